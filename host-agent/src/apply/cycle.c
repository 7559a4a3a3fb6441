// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cycle.c - observe, plan, diff: the pipeline every caller runs before it
 * reports or applies. Changes nothing.
 */
#include "cycle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demand.h"
#include "planner.h"
#include "policy.h"
#include "trialstate.h"

struct vcp_policy vcp_policy_at(const struct vcp_policy *policy, time_t now)
{
	struct vcp_policy p = *policy;
	struct tm tm;

	localtime_r(&now, &tm);
	p.level = vcp_policy_level_at(policy, &tm);
	return p;
}

void vcp_cycle_clear(struct vcp_cycle *c)
{
	if (!c)
		return;
	vcp_actions_clear(&c->acts);
	vcp_plan_free(c->plan);
	vcp_world_clear(&c->w);
	memset(c, 0, sizeof(*c));
}

int vcp_cycle_observe(struct vcp_virt *v, const struct vcp_kernel *k,
		      enum vcp_mode mode, unsigned int sample_ms,
		      const struct vcp_tracker *tracker,
		      struct vcp_cycle *ret, char **ret_err)
{
	struct vcp_cycle c = { 0 };
	int r = vcp_observe(v, k, mode, sample_ms, &c.w, ret_err);

	if (r < 0)
		return r;
	if (tracker) {
		vcp_tracker_fill(tracker, c.w.vms, c.w.n_vms);
		c.w.demand_measured = true;
	}
	*ret = c;
	return 0;
}

int vcp_cycle_finish(const struct vcp_policy *policy, time_t now,
		     struct vcp_cycle *c, char **ret_err)
{
	struct vcp_policy p = vcp_policy_at(policy, now);
	enum vcp_trial_verdict v;
	int r;

	/* require_trial: auto packs only after a trial said "saves" */
	if (p.require_trial && p.level == VCP_LEVEL_AUTO &&
	    (vcp_trial_state_verdict(vcp_trial_state_path(), &v) < 0 ||
	     v != VCP_TRIAL_SAVES))
		p.level = 0;
	r = vcp_plan_check_reserved(c->w.host, &p, ret_err);
	if (r < 0)
		return r;
	r = vcp_plan_compute(c->w.host, c->w.vms, c->w.n_vms, &p, &c->plan);
	if (r == 0)
		r = vcp_diff_compute(c->w.host, c->w.vms, c->w.n_vms, c->plan,
				     c->w.cur_level, &c->acts);
	if (r < 0 && ret_err && asprintf(ret_err, "Failed to plan: %s",
					 strerror(-r)) < 0)
		*ret_err = NULL;
	return r;
}

int vcp_cycle_plan(struct vcp_virt *v, const struct vcp_kernel *k,
		   enum vcp_mode mode, unsigned int sample_ms,
		   const struct vcp_tracker *tracker,
		   const struct vcp_policy *policy, time_t now,
		   struct vcp_cycle *ret, char **ret_err)
{
	struct vcp_cycle c = { 0 };
	int r = vcp_cycle_observe(v, k, mode, sample_ms, tracker, &c, ret_err);

	if (r == 0)
		r = vcp_cycle_finish(policy, now, &c, ret_err);
	if (r < 0) {
		vcp_cycle_clear(&c);
		return r;
	}
	*ret = c;
	return 0;
}
