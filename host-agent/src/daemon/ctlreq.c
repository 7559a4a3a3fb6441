// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctlreq.c - a control request applied to vcpackd's run-time control
 * state, and the line that says what changed (see ctlreq.h). Pure: no
 * I/O, no clock (the caller gives the time).
 */
#include "ctlreq.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

int vcp_ctlreq_apply(const struct vcp_control *cur, const struct vcp_req *req,
		     long long now, struct vcp_control *ret)
{
	struct vcp_control c = *cur;
	bool pol;
	int level;

	if (req->op == VCP_REQ_LEVEL) {
		if (vcp_control_level_parse(req->level, &level, &pol) < 0)
			return -EINVAL;
		c.has_level = !pol;
		c.level = pol ? 0 : level;
		c.level_since = pol ? 0 : now;
	} else if (req->op == VCP_REQ_PAUSE && !c.paused) {
		c.paused = true;
		c.paused_since = now;
	} else if (req->op == VCP_REQ_RESUME) {
		c.paused = false;
		c.paused_since = 0;
	} else if (req->op == VCP_REQ_ENABLE || req->op == VCP_REQ_DISABLE) {
		bool on = req->op == VCP_REQ_ENABLE;

		if (!c.has_enabled || c.enabled != on)
			c.enabled_since = now;
		c.has_enabled = true;
		c.enabled = on;
	}
	*ret = c;
	return 0;
}

const char *vcp_ctlreq_news(const struct vcp_control *old,
			    const struct vcp_control *new, enum vcp_req_op op,
			    char *buf, size_t len)
{
	if (op == VCP_REQ_LEVEL) {
		snprintf(buf, len, "level %s",
			 new->has_level ? vcp_control_level_name(new->level) :
					  "back to the policy's");
		return buf;
	}
	if (op == VCP_REQ_ENABLE || op == VCP_REQ_DISABLE) {
		if (old->has_enabled && old->enabled == new->enabled)
			return NULL;
		return new->enabled ? "enabled: vcpackd carries out its plan" :
				      "disabled: vcpackd observes and plans but changes nothing until 'vcpack enable'";
	}
	if (new->paused == old->paused)
		return NULL;
	return new->paused ?
		       "paused: nothing is changed until 'vcpack resume'" :
		       "resumed";
}
