/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trial.h - the arithmetic of `vcpack trial`, an A/B experiment on the
 * live host: arm A is the host "as found" (level 0, the original pins, as
 * `vcpack restore` leaves it), arm B is "as planned" (the policy's level
 * and plan). Pure: no I/O, no clock reads, no static state; the caller
 * switches arms, reads counters and the clock, and hands the figures in.
 *
 * Schedule. 2 * rounds + 1 windows alternate the arms, starting and
 * ending with the first arm (A B A B A for 2 rounds, A first). Each
 * window begins with a switch to its arm, then @settle_s unmeasured
 * seconds (pins, the kernel and C-states settle), then @window_s measured
 * seconds. With A first the host ends in A, as found.
 *
 * Power per window. A window's energy samples (time_s, joules) are read
 * by the caller from one cumulative counter (a powercap energy_uj / 1e6);
 * the mean power is the sum of the deltas between consecutive present
 * samples over the time they cover. A delta below zero is a counter wrap
 * and gets @max_range_j added (powercap's max_energy_range_uj / 1e6; at
 * most one wrap between two present samples, i.e. read more often than
 * the counter wraps: Intel's RAPL range is typically about 262 kJ, which
 * a 1 kW zone wraps in about 260 s); with max_range_j == 0 a wrap is an
 * error, and two present samples further apart than the counter's wrap
 * time at VCP_PWR_ZONE_MAX_W (a long --sample, or a gap of failed reads)
 * are refused with -ERANGE: two wraps cannot be told from one. A missing sample (a failed read) is skipped: the delta spans
 * the gap. A window whose present samples cover less than @min_cover of
 * its length is not used. For a host with several zones (package-0,
 * package-1, dram...), call it per zone and add the watts.
 *
 * Method. Per-arm figures: the mean of that arm's per-window means, with
 * a Student t interval (n - 1 degrees of freedom). These are for showing
 * each arm; slow drift (room temperature, other load on the host) widens
 * them. The difference B - A is paired to cancel drift: each window of
 * the second arm is compared with the mean of the two windows of the
 * first arm around it,
 *	d_i = B_i - (A_i + A_i+1) / 2	(A first; signs swapped for B first)
 * which removes any drift linear over the three windows exactly. The
 * interval of the mean of the d_i is Student t with n - 1 degrees of
 * freedom on the standard error s_d / sqrt(n), inflated by
 * sqrt(1 + k / (3 n)), where k is the number of pairs d_i, d_i+1 that
 * share a window (n - 1 when no window was dropped): with independent
 * window noise of variance v, Var(d_i) = 1.5 v and two neighbours share
 * covariance 0.25 v, so the plain s_d / sqrt(n) would be too narrow. A
 * d_i whose window or either neighbour is not usable is dropped; at least
 * 2 d_i are needed (2 rounds). All intervals are 95%.
 *
 * Verdict. "saves" when the interval of the difference lies below 0 and
 * the saving is at least the practical minimum (max of @min_effect_w and
 * @min_effect_pct of A's mean); "costs" when the interval lies above 0
 * and the cost is at least that minimum; otherwise "no difference within
 * noise" (the interval holds 0, or the change is too small to matter).
 *
 * vCPU wait. Per VM and arm, the mean over that arm's usable windows of
 * the fraction of time its vCPUs waited for a host CPU (wait seconds
 * over the window's seconds times vCPUs); the change is B - A.
 */
#ifndef VCP_TRIAL_H
#define VCP_TRIAL_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

enum vcp_trial_arm {
	VCP_TRIAL_A = 0,	/* as found */
	VCP_TRIAL_B = 1,	/* as planned */
};

enum vcp_trial_verdict {
	VCP_TRIAL_NO_DIFFERENCE = 0,
	VCP_TRIAL_SAVES,
	VCP_TRIAL_COSTS,
};

/* Where `vcpack trial` records its last verdict for vcpackd. */
#define VCP_TRIAL_STATE "/var/lib/vcpack/trial.json"

#define VCP_TRIAL_MIN_ROUNDS	2
#define VCP_TRIAL_MAX_ROUNDS	1000

struct vcp_trial_params {
	unsigned int rounds;	/* windows of the second arm, >= 2 */
	double window_s;	/* measured seconds per window, > 0 */
	double settle_s;	/* unmeasured seconds after a switch, >= 0 */
	enum vcp_trial_arm first;	/* the arm that starts and ends */
	double min_cover;	/* usable window: samples cover this share */
	double min_effect_w;	/* practical minimum of the difference */
	double min_effect_pct;	/* the same in percent of A's mean */
};

/* rounds 5, window 180 s, settle 20 s, A first, cover 0.9, effect 1%. */
void vcp_trial_params_default(struct vcp_trial_params *ret);

struct vcp_trial_window {
	unsigned int index;	/* 0 .. 2 * rounds */
	enum vcp_trial_arm arm;
	double switch_s;	/* from the trial's start: switch to @arm */
	double start_s;		/* measure from here ... */
	double end_s;		/* ... to here; the next switch */
};

/* The number of windows of a schedule: 2 * rounds + 1. */
size_t vcp_trial_n_windows(const struct vcp_trial_params *p);
/*
 * Check @p (errors name the parameter) and fill @ret (room for
 * vcp_trial_n_windows(p) windows). 0 or -EINVAL.
 */
int vcp_trial_schedule(const struct vcp_trial_params *p,
		       struct vcp_trial_window *ret, char **ret_err);

struct vcp_trial_sample {
	double t_s;		/* when read, seconds (any origin) */
	double joules;		/* the cumulative counter */
	bool missing;		/* the read failed: skip this sample */
};

/*
 * Mean power over one window of @window_s from its samples, in time
 * order. -EINVAL (message says why) when fewer than two samples are
 * present, time does not advance, the counter goes back with
 * max_range_j == 0, a present sample is not a finite time and counter
 * value, or the samples cover less than @min_cover of @window_s;
 * *ret_watts is then untouched.
 */
int vcp_trial_window_power(const struct vcp_trial_sample *s, size_t n,
			   double max_range_j, double window_s,
			   double min_cover, double *ret_watts,
			   char **ret_err);

struct vcp_trial_vm_wait {
	const char *name;
	unsigned int vcpus;
	double wait_s;		/* summed over its vCPUs, in the window */
};

/* What the caller measured in one window of the schedule. */
struct vcp_trial_obs {
	bool usable;		/* false: power unknown (window dropped) */
	double watts;		/* the host's mean power in the window */
	double span_s;		/* its measured seconds (0: window_s) */
	const struct vcp_trial_vm_wait *vms;
	size_t n_vms;
};

struct vcp_trial_arm_stat {
	unsigned int n;		/* usable windows */
	double mean_w;
	double sd_w;
	double lo_w, hi_w;	/* 95% interval of the mean */
};

struct vcp_trial_vm {
	char *name;
	double wait[2];		/* per arm, fraction; NAN: not seen */
	double change;		/* wait[B] - wait[A]; NAN if either is */
};

struct vcp_trial_result {
	struct vcp_trial_arm_stat arm[2];	/* [VCP_TRIAL_A], [.._B] */
	unsigned int n_pairs;	/* differences used */
	unsigned int n_dropped;	/* windows not usable */
	double diff_w, lo_w, hi_w;	/* B - A, 95% interval: < 0 saves */
	double diff_pct, lo_pct, hi_pct;	/* the same, % of A's mean */
	double min_effect_w;	/* the practical minimum applied */
	enum vcp_trial_verdict verdict;
	struct vcp_trial_vm *vms;	/* sorted by name */
	size_t n_vms;
};

/*
 * Analyse one observation per window of the schedule of @p (@n_obs must
 * be vcp_trial_n_windows(p)). -EINVAL with a message when @p is bad, a
 * usable window's watts is not a finite power >= 0, or fewer than 2
 * paired differences remain ("too few windows"), -ENOMEM.
 * Free the result with vcp_trial_result_free().
 */
int vcp_trial_analyse(const struct vcp_trial_params *p,
		      const struct vcp_trial_obs *obs, size_t n_obs,
		      struct vcp_trial_result **ret, char **ret_err);
void vcp_trial_result_free(struct vcp_trial_result *r);

/* "saves", "no-difference", "costs". */
const char *vcp_trial_verdict_name(enum vcp_trial_verdict v);
/* Student t quantile for a two-sided 95% interval, @df >= 1. */
double vcp_trial_t95(unsigned int df);

/*
 * The result as JSON (keys in this order, numbers rounded to
 * 3 decimals, NAN as null):
 *   {"verdict": "saves" | "no-difference" | "costs",
 *    "confidence": 0.95, "method": "paired-interpolated",
 *    "arms": {"as-found": ARM, "as-planned": ARM},
 *    "difference": {"watts": d, "watts_low": lo, "watts_high": hi,
 *                   "percent": p, "percent_low": lo, "percent_high": hi,
 *                   "pairs": n, "min_effect_watts": m},
 *    "dropped_windows": n,
 *    "vms": [{"name", "wait_as_found": f, "wait_as_planned": f,
 *             "wait_change": f}]}
 *   ARM: {"windows": n, "watts": mean, "watts_low": lo,
 *         "watts_high": hi, "sd_watts": sd}
 * 0 or -ENOMEM.
 */
int vcp_trial_to_json(const struct vcp_trial_result *r,
		      struct json_object **ret);

#endif
