/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctlreq.h - what one control request (`vcpack level`, `pause`,
 * `resume`) does to vcpackd's run-time control state (control.h), and
 * the line that says so. Pure: vcpackd writes the state file, logs the
 * line and re-plans.
 */
#ifndef VCP_CTLREQ_H
#define VCP_CTLREQ_H

#include <stddef.h>

#include "control.h"
#include "proto.h"

/*
 * @cur with @req applied at time @now into *ret: a level (0, 1, 2 or
 * auto) overrides the policy's from @now, "policy" drops the override;
 * pause pauses from @now (a paused state stays as it was); resume
 * resumes; enable and disable say whether vcpack is enabled from @now
 * (over the policy's "enabled"). Other requests change nothing. 0, or -EINVAL for a level that
 * is none of those (*ret untouched).
 */
int vcp_ctlreq_apply(const struct vcp_control *cur, const struct vcp_req *req,
		     long long now, struct vcp_control *ret);

/*
 * The log line for @req having taken the state from @old to @new: a
 * level request always says the level now set, a pause, resume, enable
 * or disable only when it changed something. NULL when there is nothing to say; else
 * @buf (@len bytes) or a static string.
 */
const char *vcp_ctlreq_news(const struct vcp_control *old,
			    const struct vcp_control *new, enum vcp_req_op op,
			    char *buf, size_t len);

#endif
