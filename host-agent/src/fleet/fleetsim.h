/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fleetsim.h - the fleet simulator, pure: a fleet snapshot (fleetjson.h)
 * and per-VM demand traces replayed minute by minute under vcpack's
 * standby loop (standby.h, the fleet planner inside) or a baseline, with
 * what it cost and saved. Energy is modelled, never measured. The model
 * is documented at the top of fleetsim.c.
 */
#ifndef VCP_FLEETSIM_H
#define VCP_FLEETSIM_H

#include <stdint.h>

#include "fleetjson.h"
#include "standby.h"

enum vcp_sim_mode {
	VCP_SIM_NONE = 0,	/* no consolidation: every host on */
	VCP_SIM_VCPACK,		/* the standby loop, classes honoured */
	VCP_SIM_DPM,		/* the same thresholds, spread moved too */
	VCP_SIM_FIRSTFIT,	/* Watcher-style first fit, no holds */
};

/* Per-vCPU demand (0-1) of VM @vm (index in the snapshot's order: host
 * by host, VM by VM) at @minute. */
typedef double (*vcp_sim_demand_fn)(const void *arg, size_t vm,
				    unsigned int minute);

struct vcp_sim_params {
	enum vcp_sim_mode mode;
	unsigned int minutes;		/* length of the replay */
	unsigned int warmup_min;	/* replayed first, not counted */
	unsigned int interval_min;	/* a decision every so many minutes */
	unsigned int wake_latency_min;	/* wake decided -> host takes load */
	/* Modelled power: a host on draws host_watts + packages x
	 * package_watts idle (the fleet file's power model), plus
	 * busy_watts x its utilisation; standby_watts asleep; a booting
	 * host draws its idle power. */
	double host_watts, package_watts, busy_watts, standby_watts;
	const struct vcp_sb_cfg *cfg;	/* band, holds, budgets, actions */
	vcp_sim_demand_fn demand;
	const void *arg;
	/* Optional, @minutes long each (the counted minutes): hosts on
	 * (answering) and the fleet's demand (CPUs) per minute; NULL: not
	 * wanted. */
	unsigned int *ret_hosts_on;
	double *ret_demand;
};

struct vcp_sim_result {
	double standby_host_hours;
	size_t migrations, spread_migrations, standbys, wakeups;
	size_t shortfall_minutes;	/* fleet demand > capacity on */
	size_t overload_host_minutes;	/* a host's demand > its capacity */
	double energy_wh;		/* modelled */
	double demand_cpu_hours;	/* what the guests asked for */
	size_t min_hosts_on;
};

/*
 * Replay @in (every host reachable; VMs start where the snapshot puts
 * them) under @p. Deterministic. 0, -EINVAL (bad parameters, an
 * unreachable host, cfg not for this fleet) or -ENOMEM; *ret untouched
 * on failure.
 */
int vcp_sim_run(const struct vcp_fleet_input *in,
		const struct vcp_sim_params *p, struct vcp_sim_result *ret);

/* A diurnal day: VM @vm peaks at peak[vm] per vCPU around minute
 * peak_minute (+- jitter_min, per VM), falls to trough x peak at night;
 * uniform noise of +- noise x the value, per VM and minute, from @seed. */
struct vcp_sim_diurnal {
	uint64_t seed;
	const double *peak;
	double trough, noise;
	unsigned int peak_minute, jitter_min;
};

double vcp_sim_diurnal_demand(const void *arg, size_t vm,
			      unsigned int minute);

#endif
