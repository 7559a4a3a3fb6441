/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demand.h - per-VM vCPU demand over time, for the daemon's hysteresis.
 *
 * Each sample of cumulative vcpu.N.time / vcpu.N.delay becomes one
 * utilisation figure per vCPU. The demand handed to the planner is the
 * peak over the last @window samples: it rises at once when load rises
 * and falls only after the load has stayed low for the whole window
 * ("grow at once, shrink slowly"). Pure: no I/O, no clock.
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

#endif
