/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demand.h - the one demand pipeline: how vCPU time becomes the demand
 * the planner sees, for vcpackd, every CLI command and the fleet.
 *
 * Each sample of cumulative vcpu.N.time / vcpu.N.delay becomes one
 * utilisation figure per vCPU (the delta over the time between samples,
 * clamped to 0-1; a counter that went backwards counts 0). The demand
 * handed to the planner is the peak over the last @window samples: it
 * rises at once when load rises and falls only after the load has stayed
 * low for the whole window ("grow at once, shrink slowly"; hyst.h says
 * how long). Before a VM has two samples its demand is unknown (-1), and
 * the planner takes the policy's default_vcpu_demand for it
 * (vcp_vcpu_demand()). vcpackd keeps one tracker over its whole life;
 * `vcpack plan` and the fleet measure with the same code over one window
 * of two samples (vcp_demand_measure()). Pure: no I/O, no clock.
 */
#ifndef VCP_DEMAND_H
#define VCP_DEMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "virt.h"

struct vcp_tracker;

int vcp_tracker_new(unsigned int window, struct vcp_tracker **ret);
void vcp_tracker_free(struct vcp_tracker *t);

/*
 * Take one sample. VMs not in the sample are forgotten (stopped); a VM
 * whose vCPU count changed starts over. 0 or -ENOMEM.
 */
int vcp_tracker_update(struct vcp_tracker *t, const struct vcp_sample *s);

/*
 * Fill vms[].demand[] with the windowed peak (unknown stays -1 where a
 * VM has fewer than two samples).
 */
void vcp_tracker_fill(const struct vcp_tracker *t, struct vcp_vm *vms,
		      size_t n_vms);

/* Latest fraction of time a VM's vCPUs waited for a host CPU (steal),
 * mean over its vCPUs; -1 unknown. */
double vcp_tracker_delay(const struct vcp_tracker *t, const char *name);

/*
 * The cost of packing: a VM whose vCPUs waited for a host CPU more than
 * @max_delay of the time (0 = never) is relieved: vcp_tracker_fill()
 * gives it a whole CPU per vCPU, so the plan gives it room at once (more
 * packages, or its own), and keeps doing so for a whole window after the
 * wait was last seen above the bound (hysteresis: no pack-unpack
 * flapping).
 */
void vcp_tracker_set_max_delay(struct vcp_tracker *t, double max_delay);
/* After an update: mark the VMs over the bound; @ret_names gets (up to
 * @max) those newly relieved, for the caller to say so once. */
size_t vcp_tracker_relieve(struct vcp_tracker *t, const char **ret_names,
			   size_t max);
bool vcp_tracker_relieved(const struct vcp_tracker *t, const char *name);

/* Changes when what vcp_tracker_fill() would hand the planner changes by
 * 1/20 CPU or more, or a VM is relieved or no longer: the daemon re-plans
 * on news, not on every sample. */
uint64_t vcp_tracker_fingerprint(const struct vcp_tracker *t);

/* A new window (samples, 0 taken as 1), from a reloaded policy: the
 * newest figures held are kept (as many as fit), and a relief lasts no
 * longer than the new window. 0 or -ENOMEM (then nothing changed). */
int vcp_tracker_set_window(struct vcp_tracker *t, unsigned int window);

/*
 * One measurement from two samples @a then @b (the CLI's and the fleet's
 * --sample): what a tracker with a window of one sample gives. VMs or
 * vCPUs missing from either sample stay unknown. 0 or -ENOMEM.
 */
int vcp_demand_measure(const struct vcp_sample *a, const struct vcp_sample *b,
		       struct vcp_vm *vms, size_t n_vms);

/* Does a VM that waits @delay of the time for a host CPU get relief
 * under @max_delay (0: never)? The tracker's rule, and the planner's. */
bool vcp_demand_over_delay(double delay, double max_delay);

/* The demand the planner counts for vCPU @c of @vm: a whole CPU while
 * its latest delay is over @p's max_vcpu_delay (a one-shot measurement
 * gets the relief vcpackd's tracker gives; the tracker's held relief is
 * 1.0 already), else the measured figure, or @p's default_vcpu_demand
 * while unknown. */
double vcp_vcpu_demand(const struct vcp_vm *vm, unsigned int c,
		       const struct vcp_policy *p);

/* The measured demand of @vm summed over its vCPUs; *ret_assumed: some
 * vCPU is unknown (counted with @p's default, or as 0 when @p is NULL). */
double vcp_vm_demand(const struct vcp_vm *vm, const struct vcp_policy *p,
		     bool *ret_assumed);

/* Time @vm waited for a host CPU between samples @x and @y, summed over
 * its vCPUs, in ns: 0, or -ESTALE when the vCPU count changed (no
 * comparable figure). */
int vcp_demand_wait_ns(const struct vcp_vcpu_sample *x,
		       const struct vcp_vcpu_sample *y, uint64_t *ret_ns);

#endif
