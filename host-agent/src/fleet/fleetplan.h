/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fleetplan.h - the pure fleet planner: which hosts could be emptied by
 * live migration, where each of their VMs would go, and how many packages
 * and hosts would then sleep. No I/O; the semantics are at the top of
 * fleetplan.c.
 */
#ifndef VCP_FLEETPLAN_H
#define VCP_FLEETPLAN_H

#include "model.h"

/* One host as the fleet planner sees it. Everything is borrowed. */
struct vcp_fleet_host {
	const char *name;
	bool reachable;
	/* May receive VMs (false: draining, maintenance, or told so). */
	bool accepts;
	/* Index into opts->compat's groups (hosts whose CPUs libvirt finds
	 * alike); -1 = unknown: such a host neither sends nor receives. */
	int cpu_group;
	/* Memory the host has for guests, in KiB (0 = unknown: such a host
	 * receives nothing). */
	unsigned long long mem_kib;
	const struct vcp_host *host;	/* NULL when unreachable */
	const struct vcp_vm *vms;
	size_t n_vms;
};

struct vcp_fleet_opts {
	/* spread VMs may be migrated (default false: a host with one stays). */
	bool move_spread;
	/* Fraction of each receiver's guest memory kept free (0-0.9). */
	double mem_reserve;
	/* compat[src * n_groups + dst]: a guest from a host of group src can
	 * run on a host of group dst. NULL: only the same group. */
	size_t n_groups;
	const bool *compat;
};

struct vcp_fleet_move {
	size_t from;		/* host index */
	size_t vm;		/* index into hosts[from].vms */
	size_t to;		/* host index */
	double demand;		/* CPUs it carries */
};

struct vcp_fleet_host_plan {
	bool emptied;		/* all its VMs move away: it can sleep */
	bool idle;		/* no VMs before the plan */
	size_t n_packages;
	size_t awake_before;	/* packages the host planner keeps awake */
	size_t awake_after;	/* 0 for an emptied or idle host */
	double demand_before, demand_after, capacity;	/* CPUs */
	unsigned long long mem_before, mem_after;	/* KiB */
	/* Why the host is not emptied (static string), or NULL. */
	const char *kept;
};

struct vcp_fleet_plan {
	size_t n_hosts;
	struct vcp_fleet_host_plan *hosts;	/* same order as the input */
	struct vcp_fleet_move *moves;	/* in execution order */
	size_t n_moves;
	size_t hosts_emptied, hosts_idle, hosts_unreachable;
	size_t packages, awake_before, awake_after;	/* reachable hosts */
};

/*
 * Plan @n hosts under @policy (the level already resolved for the time of
 * planning, as for vcp_plan_compute()) and @opts. Deterministic: the same
 * input (in the same order) gives the same plan. 0, -EINVAL (bad opts or
 * a reachable host without topology) or -ENOMEM; *ret untouched on
 * failure. Free with vcp_fleet_plan_free().
 */
int vcp_fleet_plan_compute(const struct vcp_fleet_host *hosts, size_t n,
			   const struct vcp_policy *policy,
			   const struct vcp_fleet_opts *opts,
			   struct vcp_fleet_plan **ret);
void vcp_fleet_plan_free(struct vcp_fleet_plan *p);

#endif
