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

#endif
