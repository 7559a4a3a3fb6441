/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cycle.h - one observe -> plan -> diff pass, shared by `vcpack plan`,
 * `vcpack apply` and every re-plan of vcpackd.
 */
#ifndef VCP_CYCLE_H
#define VCP_CYCLE_H

#include <time.h>

#include "diff.h"
#include "model.h"
#include "observe.h"

struct vcp_virt;
struct vcp_kernel;
struct vcp_tracker;

struct vcp_cycle {
	struct vcp_world w;
	struct vcp_plan *plan;
	struct vcp_actions acts;
};

/*
 * Observe (sampling @sample_ms where > 0), take demand from @tracker where
 * given (the daemon's windowed peak), plan with @policy at local time
 * @now (schedule windows), diff. On failure *ret_err says why.
 */
int vcp_cycle_plan(struct vcp_virt *v, const struct vcp_kernel *k,
		   enum vcp_mode mode, unsigned int sample_ms,
		   const struct vcp_tracker *tracker,
		   const struct vcp_policy *policy, time_t now,
		   struct vcp_cycle *ret, char **ret_err);
void vcp_cycle_clear(struct vcp_cycle *c);

/*
 * With the policy's require_trial, an `auto` level plans level 0 unless
 * the trial state file (trialstate.h) holds the verdict "saves".
 */

/* The same in two steps, for a caller that adjusts the observed VMs
 * (the daemon marks VMs it must leave alone) before planning. On a
 * failure of vcp_cycle_finish() the caller clears @c. */
int vcp_cycle_observe(struct vcp_virt *v, const struct vcp_kernel *k,
		      enum vcp_mode mode, unsigned int sample_ms,
		      const struct vcp_tracker *tracker,
		      struct vcp_cycle *ret, char **ret_err);
int vcp_cycle_finish(const struct vcp_policy *policy, time_t now,
		     struct vcp_cycle *c, char **ret_err);

/* @policy with the schedule window in force at local time @now. */
struct vcp_policy vcp_policy_at(const struct vcp_policy *policy, time_t now);

#endif
