/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * declog.h - vcpackd's one log line per VM decision: the VM's class,
 * where the plan puts it and why, its CPUs; a line only when that VM's
 * decision changed since the last line for it. Pure: no I/O.
 */
#ifndef VCP_DECLOG_H
#define VCP_DECLOG_H

#include "model.h"
#include "observe.h"

struct vcp_declog;

/* 0 and *ret, or -ENOMEM. */
int vcp_declog_new(struct vcp_declog **ret);
void vcp_declog_free(struct vcp_declog *l);

/*
 * The decision of VM @i of @w under @plan as one line, without a
 * trailing newline (malloc'd; NULL on -ENOMEM), for example
 *   'app': balanced, gathered on package 0 (level 2 gathers balanced
 *   VMs); vCPUs on 2-7,18-23, emulator on 2-7,18-23
 */
char *vcp_declog_line(const struct vcp_world *w, const struct vcp_plan *plan,
		      size_t i);

/*
 * The lines to log after a plan: one per VM of @w whose line differs
 * from the last one returned for it, in @w's order; a VM no longer in
 * @w is forgotten (logged again when it comes back). 0 with *ret_lines
 * (NULL-terminated, free with g_strfreev(); empty when nothing
 * changed), or -ENOMEM with @l unchanged.
 */
int vcp_declog_update(struct vcp_declog *l, const struct vcp_world *w,
		      const struct vcp_plan *plan, char ***ret_lines);

#endif
