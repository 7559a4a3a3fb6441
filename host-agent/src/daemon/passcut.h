/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * passcut.h - a re-plan pass that the connection to libvirt cut short
 * (libvirtd stopped or restarting under it): what failed then is no
 * failure of the plan, and the pass is made again once vcpackd has
 * reconnected. Pure; the liveness probe is the caller's.
 */
#ifndef VCP_PASSCUT_H
#define VCP_PASSCUT_H

#include <stdbool.h>
#include <stddef.h>

#include "apply.h"
#include "diff.h"
#include "model.h"
#include "pinmemo.h"

/*
 * Whether the pass was cut short: its result @r is -ENOTCONN or applying
 * saw the connection close (@res->lost), or something went wrong (@r < 0,
 * failed actions, @n_issues VMs left untouched) and @alive(@opaque) says
 * the connection is gone. @alive is asked only in that last case.
 */
bool vcp_passcut_is(int r, const struct vcp_apply_result *res, size_t n_issues,
		    bool (*alive)(void *opaque), void *opaque);

/*
 * After a cut pass: each VM with a change not known to be done (RETRY or
 * SKIPPED; a pin under way may or may not have landed, and it is no one
 * else's) is forgotten in @memo, to be planned afresh; those entries'
 * messages, which say only that the connection closed, are dropped.
 * @res's entries follow @acts; @vms are the VMs @acts index.
 */
void vcp_passcut_settle(const struct vcp_actions *acts,
			const struct vcp_vm *vms, struct vcp_apply_result *res,
			struct vcp_pin_memo *memo);

#endif
