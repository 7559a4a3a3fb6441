/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * observe.h - read the world once: topology, running VMs with tags and
 * pins, measured vCPU demand, and (kernel mode) each VM's class and the
 * host level. Shared by the CLI and the daemon.
 */
#ifndef VCP_OBSERVE_H
#define VCP_OBSERVE_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "virt.h"

struct vcp_kernel;

struct vcp_world {
	struct vcp_host *host;
	struct vcp_vm *vms;
	size_t n_vms;
	struct vcp_vm_issue *issues;	/* VMs left untouched, and why */
	size_t n_issues;
	int cur_level;		/* sched_mc_power_savings, -1 absent */
	bool demand_measured;	/* vcpu.N.time was sampled twice */
	double sample_s;	/* seconds between the two samples */
};

void vcp_world_clear(struct vcp_world *w);

/*
 * Observe through @v; @k (may be NULL) is the local kernel, used only
 * when @mode is VCP_MODE_KERNEL. @sample_ms > 0 samples vcpu.N.time
 * twice that far apart where the driver reports it.
 */
int vcp_observe(struct vcp_virt *v, const struct vcp_kernel *k,
		enum vcp_mode mode, unsigned int sample_ms,
		struct vcp_world *ret, char **ret_err);
/*
 * vcp_observe refuses a host wider than VCP_MAX_CPUS (-E2BIG, naming
 * the limit); this one, for putting VMs back, takes it with the CPUs
 * below the limit (host->too_wide set), which is all libvirt pins to.
 */
int vcp_observe_to_restore(struct vcp_virt *v, const struct vcp_kernel *k,
			   enum vcp_mode mode, struct vcp_world *ret,
			   char **ret_err);

#endif
