/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.h - the per-package map people and scripts read: which packages
 * are awake, which can sleep, which VMs sit where. Pure.
 */
#ifndef VCP_REPORT_H
#define VCP_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

struct vcp_pkg_view {
	int id;			/* physical package id */
	bool awake;
	/* Planned (pin mode): awake only because VMs that are not gathered
	 * at this level may run here. */
	bool by_free;
	/* Planned: every CPU in the policy's reserved_cpus: the host's
	 * own work keeps it awake. */
	bool reserved;
	unsigned int n_vcpus;	/* vCPUs that may run here */
	size_t n_vms;
	size_t *vms;		/* indices of VMs with a vCPU here */
};

struct vcp_pkg_map {
	struct vcp_pkg_view *p;
	size_t n;
	size_t n_awake;
};

/*
 * Where VMs may run now (from their current pins), or as @plan would
 * have them (plan non-NULL). Now: a package is awake when any vCPU may run
 * on it. Planned: awake = the plan's active packages, and in pin mode
 * also any package where a planned pin lets a vCPU run (by_free: VMs not
 * gathered at the plan's level keep it awake); in kernel mode unpinned
 * VMs are shown on the active packages, where the kernel packs them.
 * 0 or -ENOMEM.
 */
int vcp_pkg_map_build(const struct vcp_host *host, const struct vcp_vm *vms,
		      size_t n_vms, const struct vcp_plan *plan,
		      struct vcp_pkg_map *ret);
void vcp_pkg_map_clear(struct vcp_pkg_map *m);

/* Packages (indices into host->packages) a cpuset touches, as a bitmap
 * over package indices: bit i = host->packages[i]. */
void vcp_packages_of(const struct vcp_host *host, const struct vcp_cpuset *s,
		     bool *ret_pkgs);

#endif
