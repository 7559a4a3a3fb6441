/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * passnews.h - what of one re-plan pass is news for vcpackd's log, so
 * that a pass that changes nothing logs nothing however often it runs:
 * the plan line when the level or the number of active packages
 * changed or actions were applied, and the pass's failures (failed or
 * refused actions, VMs left untouched) when they differ from the last
 * pass's. Pure; vcpackd formats and logs the lines.
 */
#ifndef VCP_PASSNEWS_H
#define VCP_PASSNEWS_H

#include <stdbool.h>
#include <stddef.h>

#include "apply.h"
#include "model.h"
#include "observe.h"

struct vcp_passnews {
	int level; /* the last pass's; -1: the next plan is news */
	size_t active; /* its active packages */
	char **failures; /* its failures, one a line (g_strfreev) */
};

#define VCP_PASSNEWS_INIT   \
	{                   \
		.level = -1 \
	}

/* The next pass's plan line is news whatever it says (after a
 * reconnect or a change of mode). */
void vcp_passnews_forget(struct vcp_passnews *n);
void vcp_passnews_clear(struct vcp_passnews *n);

/*
 * Take in a pass: its plan @p, what was observed @w (its issues) and
 * what applying did @res. *ret_plan: whether the plan line is news;
 * *ret_lines: the failures to say (NULL-terminated, free with
 * g_strfreev; empty when they are as at the last pass): each failed or
 * refused action's message, then each VM left untouched as "'VM': why".
 */
void vcp_passnews_update(struct vcp_passnews *n, const struct vcp_plan *p,
			 const struct vcp_world *w,
			 const struct vcp_apply_result *res, bool *ret_plan,
			 char ***ret_lines);

#endif
