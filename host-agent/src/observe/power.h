/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * power.h - what the hardware reports about power, as plain data, and
 * the arithmetic on two reads of it: energy deltas with wraparound,
 * watts per package and for the host, package and core C-state
 * residency, cpuidle (OS view) residency, uncore clock, and whether a
 * package is awake by those figures. Pure: no I/O (powerread.c reads).
 *
 * A snapshot (struct vcp_pwr_snap) is one read of every counter; two
 * snapshots give the figures (struct vcp_pwr_figs). Every source has an
 * error field: 0 when read, -ENOENT when the host has no such source
 * (no powercap, no cstate PMU, a guest), -EACCES/-EPERM when only root
 * may read it; figures from a source that was not read are NaN (never 0).
 */
#ifndef VCP_POWER_H
#define VCP_POWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VCP_PWR_MAX_STATES 16	/* C-states per PMU or per cpuidle driver */
#define VCP_PWR_NAME 32

enum vcp_zone_kind {
	VCP_ZONE_PACKAGE,
	VCP_ZONE_CORE,
	VCP_ZONE_UNCORE,
	VCP_ZONE_DRAM,
	VCP_ZONE_PSYS,
	VCP_ZONE_OTHER,
	VCP_ZONE_N
};

/* One powercap zone (intel-rapl:N[:M] or intel-rapl-mmio:N[:M]). */
struct vcp_pwr_zone {
	char id[VCP_PWR_NAME];		/* directory: "intel-rapl:0:1" */
	char name[VCP_PWR_NAME];	/* its name file: "dram" */
	enum vcp_zone_kind kind;
	int package;		/* physical package, -1 host-wide (psys) */
	uint64_t energy_uj;
	uint64_t max_uj; /* max_energy_range_uj */
	int err; /* 0, or -errno: energy_uj or max_energy_range_uj
				 * unreadable or implausible (why says) */
	char why[192]; /* "class/powercap/ID/energy_uj: reason" */
};

/* One residency counter (cstate_pkg or cstate_core) over one package. */
struct vcp_pwr_res {
	int package;
	bool core;		/* cstate_core (core C-state), else package */
	char state[8];		/* "c6" (from the event "c6-residency") */
	uint64_t count;		/* TSC ticks in the state, summed over CPUs */
	unsigned int n_cpus;	/* CPUs (cores) summed into count */
	int err;
};

/* The TSC of one CPU of a package (msr PMU "tsc"): the residency base. */
struct vcp_pwr_tsc {
	int package;
	uint64_t count;
	int err;
};

/* cpuidle of one CPU: time (us) and entries per state. */
struct vcp_pwr_cpu {
	int cpu;
	int package;
	uint64_t time_us[VCP_PWR_MAX_STATES];
	uint64_t usage[VCP_PWR_MAX_STATES];
	int err;
};

/* One uncore frequency domain (intel_uncore_frequency). */
struct vcp_pwr_uncore {
	int package;
	int die;
	unsigned int cur_khz, min_khz, max_khz;	/* 0 unknown */
};

struct vcp_pwr_snap {
	uint64_t t_ns;		/* CLOCK_MONOTONIC at the read */
	struct vcp_pwr_zone *zones;
	size_t n_zones;
	int zones_err;		/* -ENOENT: no powercap zones */
	struct vcp_pwr_res *res;
	size_t n_res;
	struct vcp_pwr_tsc *tsc;
	size_t n_tsc;
	int pmu_err;		/* -ENOENT: no cstate PMU; -EACCES/-EPERM */
	char pmu_why[192]; /* the file that failed, and why, or "" */
	struct vcp_pwr_cpu *cpus;
	size_t n_cpus;
	char idle_names[VCP_PWR_MAX_STATES][16];	/* "POLL", "C1", .. */
	unsigned int n_idle;
	int cpuidle_err;	/* -ENOENT: no cpuidle */
	char cpuidle_why[192]; /* why cpuidle, or the first CPU's, failed */
	struct vcp_pwr_uncore *uncore;
	size_t n_uncore;
};

void vcp_pwr_snap_clear(struct vcp_pwr_snap *s);

/* ---- pure arithmetic ---- */

/*
 * The most power one powercap zone plausibly draws (W): a reading above
 * it is refused, and a counter of range R uJ wraps no sooner than
 * R / VCP_PWR_ZONE_MAX_W us, the longest interval two reads may be apart
 * to see at most one wrap.
 */
#define VCP_PWR_ZONE_MAX_W 1000.0

/* The shortest wrap time (s) of a counter with range @max_uj (0: none). */
double vcp_pwr_wrap_s(uint64_t max_uj);

/*
 * @after - @before for a counter that wraps to 0 after @max (@max 0: the
 * range is unknown). 0 and *ret_delta, or -ERANGE when it went backwards
 * and the range is unknown or the values lie outside it.
 */
int vcp_counter_delta(uint64_t before, uint64_t after, uint64_t max,
		      uint64_t *ret_delta);

/* @delta over @ns nanoseconds per second; NaN for @ns 0. */
double vcp_rate(uint64_t delta, uint64_t ns);

/* @part / @whole clamped to 0..1; NaN for @whole 0. */
double vcp_ratio(uint64_t part, uint64_t whole);

/* Kind of a zone from its name file ("package-0", "dram", ...). */
enum vcp_zone_kind vcp_zone_kind_of(const char *name);
const char *vcp_zone_kind_name(enum vcp_zone_kind k);

struct vcp_pwr_state_fig {
	char state[16];
	double ratio;		/* share of the interval, 0..1, NaN unknown */
};

struct vcp_pwr_pkg_figs {
	int package;
	double joules[VCP_ZONE_N];	/* energy in the interval, NaN unknown */
	double watts[VCP_ZONE_N];
	int energy_err;		/* why the package zone is missing, or 0 */
	struct vcp_pwr_state_fig pc[VCP_PWR_MAX_STATES];	/* package */
	unsigned int n_pc;
	struct vcp_pwr_state_fig cc[VCP_PWR_MAX_STATES];	/* core, mean */
	unsigned int n_cc;
	double pc_total;	/* sum of package C-state ratios, NaN */
	struct vcp_pwr_state_fig idle[VCP_PWR_MAX_STATES];	/* cpuidle mean */
	unsigned int n_idle;
	double idle_min;	/* least idle CPU's non-POLL cpuidle share */
	double idle_mean;
	unsigned int n_cpus;
	double uncore_mhz;	/* mean over dies, NaN unknown */
	double uncore_min_mhz, uncore_max_mhz;
	int awake;		/* 1 awake, 0 asleep, -1 no figure */
	const char *awake_by;	/* "package C-states", "cpuidle", NULL */
};

/* A zone the host's total lacks (package or dram), and why. */
struct vcp_pwr_lack {
	char id[VCP_PWR_NAME];
	char name[VCP_PWR_NAME];
	char why[192];
};

struct vcp_pwr_figs {
	double interval_s;
	struct vcp_pwr_lack *lacking; /* zones host_watts leaves out */
	size_t n_lacking;
	unsigned int n_idle_bad; /* CPUs without a cpuidle figure */
	char idle_why[192]; /* the first one's why */
	/* per source (energy, residency, cpuidle): the file that made it
	 * unavailable, and why ("" when absent, root-only or unknown) */
	char src_why[3][192];
	struct vcp_pwr_pkg_figs *pkgs;	/* sorted by package id */
	size_t n_pkgs;
	double host_joules;	/* sum of the package zones (+ dram), NaN */
	double host_watts;
	double psys_watts;	/* platform zone where there is one, NaN */
	unsigned int n_awake;	/* packages with awake == 1 */
	int energy_err;		/* 0, or why no energy figure (-ENOENT...) */
	int pmu_err;
	int cpuidle_err;
	unsigned int n_changed;	/* zones present in only one of the reads */
};

/* Awake thresholds: asleep when the package C-state share reaches
 * @pc_asleep; by cpuidle alone, when every CPU of the package is idle
 * (not polling) at least @idle_asleep of the time. */
struct vcp_pwr_thresholds {
	double pc_asleep;
	double idle_asleep;
};
#define VCP_PWR_THRESHOLDS_DEFAULT { .pc_asleep = 0.5, .idle_asleep = 0.9 }

/*
 * Figures between @a and @b (two reads of the same host, @a first).
 * Zones are matched by id; one present in only one read is counted in
 * n_changed and left out. 0, -EINVAL (@b not after @a), -ENOMEM.
 */
int vcp_power_figures(const struct vcp_pwr_snap *a,
		      const struct vcp_pwr_snap *b,
		      const struct vcp_pwr_thresholds *th,
		      struct vcp_pwr_figs *ret);
void vcp_pwr_figs_clear(struct vcp_pwr_figs *f);

/* One plain sentence on why a source gave no figure ("not root: ..."),
 * for @err from the snap's *_err fields; NULL for 0. */
const char *vcp_power_why(const char *source, int err, char *buf, size_t len);

#endif
