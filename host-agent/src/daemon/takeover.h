/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * takeover.h - vcpackd taking over VMs it placed before it (re)started:
 * a restart, an upgrade, a crash. Until a VM has two samples its demand
 * is unknown and the planner assumes the policy's default_vcpu_demand
 * (0.25 CPU a vCPU) for it; a host vcpackd had gathered on measured
 * demand (idle VMs at a few hundredths) would be planned anew on the
 * assumed one: more packages awake, an idle spread VM taken for a busy
 * one (level 1 instead of 2), and every VM moved, only to be moved back
 * once measured. So the first pass after connecting waits while a running
 * managed VM that carries vcpack's record of its original pins (it was
 * placed before) has an unknown demand: one sample interval, the time
 * the tracker needs to measure it. It does not wait where demand cannot
 * be measured (a driver that reports no vCPU time), nor past
 * VCP_TAKEOVER_SAMPLES sample intervals, nor once one pass went ahead.
 * Pure: the caller passes the clock (monotonic seconds).
 */
#ifndef VCP_TAKEOVER_H
#define VCP_TAKEOVER_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/* At most this many sample intervals of waiting after a connect. */
#define VCP_TAKEOVER_SAMPLES 3

struct vcp_takeover {
	bool on; /* the passes since the connect may wait */
	long long until; /* and no longer than this */
};

/*
 * Connected at @now: passes may wait if demand is @measurable (the first
 * sample had vCPU times), for up to VCP_TAKEOVER_SAMPLES * @sample_s.
 */
void vcp_takeover_start(struct vcp_takeover *t, bool measurable, long long now,
			unsigned int sample_s);

/*
 * Must the pass about to plan @vms (the tracker's demand filled in) at
 * @now change nothing? True while waiting, with *ret_n (if given) the
 * VMs it waits for; false from the first pass that goes ahead on.
 */
bool vcp_takeover_wait(struct vcp_takeover *t, const struct vcp_vm *vms,
		       size_t n_vms, long long now, size_t *ret_n);

#endif
