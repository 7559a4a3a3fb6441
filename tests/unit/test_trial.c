// SPDX-License-Identifier: GPL-2.0-or-later
/* test_trial.c - the arithmetic of `vcpack trial` on synthetic counter
 * series with known answers: the schedule, power per window (constant,
 * counter wrap, missing samples), per-arm means and the paired
 * difference with hand-computed t intervals, a linear drift that a naive
 * comparison gets wrong, too few windows, the verdicts, vCPU wait per
 * arm, and the JSON rendering. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trial.h"

#define TOL 0.001

static struct vcp_trial_params params(unsigned int rounds)
{
	struct vcp_trial_params p;

	vcp_trial_params_default(&p);
	p.rounds = rounds;
	p.window_s = 60;
	p.settle_s = 10;
	return p;
}

/* One usable observation per window from @w[] (NAN: not usable). */
static void observe(const double *w, size_t n, struct vcp_trial_obs *obs)
{
	size_t i;

	for (i = 0; i < n; i++) {
		obs[i] = (struct vcp_trial_obs){ .usable = !isnan(w[i]),
						 .watts = w[i] };
	}
}

static struct vcp_trial_result *analyse(unsigned int rounds,
					const double *w)
{
	struct vcp_trial_params p = params(rounds);
	struct vcp_trial_obs obs[32];
	struct vcp_trial_result *r = NULL;
	char *err = NULL;

	observe(w, vcp_trial_n_windows(&p), obs);
	assert_int_equal(vcp_trial_analyse(&p, obs, vcp_trial_n_windows(&p),
					   &r, &err), 0);
	assert_null(err);
	return r;
}

static void test_schedule(void **state)
{
	struct vcp_trial_params p = params(2);
	struct vcp_trial_window w[5];
	char *err = NULL;

	assert_int_equal(vcp_trial_n_windows(&p), 5);
	assert_int_equal(vcp_trial_schedule(&p, w, &err), 0);
	/* A B A B A: switch, settle 10 s, measure 60 s, next switch */
	assert_int_equal(w[0].arm, VCP_TRIAL_A);
	assert_int_equal(w[1].arm, VCP_TRIAL_B);
	assert_int_equal(w[4].arm, VCP_TRIAL_A);
	assert_float_equal(w[0].switch_s, 0, TOL);
	assert_float_equal(w[0].start_s, 10, TOL);
	assert_float_equal(w[0].end_s, 70, TOL);
	assert_float_equal(w[1].switch_s, 70, TOL);
	assert_float_equal(w[4].end_s, 350, TOL);
	assert_int_equal(w[3].index, 3);

	p.first = VCP_TRIAL_B;
	assert_int_equal(vcp_trial_schedule(&p, w, &err), 0);
	assert_int_equal(w[0].arm, VCP_TRIAL_B);
	assert_int_equal(w[1].arm, VCP_TRIAL_A);
	assert_int_equal(w[4].arm, VCP_TRIAL_B);
	assert_null(err);
}

static void test_schedule_refused(void **state)
{
	struct vcp_trial_params p = params(1);
	struct vcp_trial_window w[16];
	char *err = NULL;

	w[0].index = 99;
	assert_int_equal(vcp_trial_schedule(&p, w, &err), -EINVAL);
	assert_non_null(strstr(err, "rounds: 1 is too few windows"));
	assert_int_equal(w[0].index, 99);	/* untouched */
	p = params(2);
	p.window_s = 0;
	assert_int_equal(vcp_trial_schedule(&p, w, &err), -EINVAL);
	assert_non_null(strstr(err, "window: 0 s"));
	p = params(2);
	p.settle_s = -1;
	assert_int_equal(vcp_trial_schedule(&p, w, &err), -EINVAL);
	assert_non_null(strstr(err, "settle"));
	free(err);
}

/* 100 W for 60 s, a sample every 10 s. */
static void test_power_constant(void **state)
{
	struct vcp_trial_sample s[7];
	double w = -1;
	int i;

	for (i = 0; i < 7; i++)
		s[i] = (struct vcp_trial_sample){ 1000 + 10 * i,
						  5000 + 1000 * i, false };
	assert_int_equal(vcp_trial_window_power(s, 7, 0, 60, 0.9, &w, NULL),
			 0);
	assert_float_equal(w, 100, TOL);
}

/* 50 W (500 J per 10 s); the counter wraps at 10,000 J (10 s at the
 * most a zone draws, 1000 W), once in each series (a failed read in
 * the first). */
static void test_power_wrap(void **state)
{
	const struct vcp_trial_sample s[] = {
		{ 0, 9700, false },  { 10, 200, false }, { 20, 700, false },
		{ 30, 1200, false }, { 40, 700, true },	 { 40, 1700, false },
		{ 50, 9700, true },
	};
	const struct vcp_trial_sample t[] = {
		{ 0, 9200, false }, { 10, 9700, false }, { 20, 200, false },
		{ 30, 700, false }, { 40, 1200, false },
	};
	char *err = NULL;
	double w = -1;

	assert_int_equal(vcp_trial_window_power(s, 6, 10000, 40, 0.9, &w, &err),
			 0);
	assert_float_equal(w, 50, TOL);
	assert_int_equal(vcp_trial_window_power(t, 5, 10000, 40, 0.9, &w, &err),
			 0);
	assert_float_equal(w, 50, TOL);
	/* without the range, going back is an error naming the sample */
	w = -1;
	assert_int_equal(vcp_trial_window_power(s, 5, 0, 40, 0.9, &w, &err),
			 -EINVAL);
	assert_non_null(strstr(err, "energy sample 1: the counter went back"));
	assert_float_equal(w, -1, 0);	/* untouched */
	free(err);
}

/* Reads further apart than the counter's wrap time (1000 J: 1 s at
 * 1000 W) are refused, not counted as one wrap: at 1000 W the counter
 * below may have wrapped ten times between two reads. */
static void test_power_two_wraps(void **state)
{
	const struct vcp_trial_sample s[] = {
		{ 0, 700, false },
		{ 10, 200, false },
		{ 20, 700, false },
	};
	char *err = NULL;
	double w = -1;

	assert_int_equal(vcp_trial_window_power(s, 3, 1000, 20, 0.9, &w, &err),
			 -ERANGE);
	assert_non_null(strstr(
		err,
		"energy sample 1: 10 s after the last one, longer than the counter's wrap time (1 s at 1000 W)"));
	assert_float_equal(w, -1, 0);
	free(err);
}

/* A failed read in the middle: the delta spans the gap, same power. At
 * the end: the window is covered less; refused below the minimum. */
static void test_power_missing(void **state)
{
	struct vcp_trial_sample s[7];
	char *err = NULL;
	double w = -1;
	int i;

	for (i = 0; i < 7; i++)
		s[i] = (struct vcp_trial_sample){ 10 * i, 200.0 * 10 * i,
						  false };
	s[3].missing = true;
	s[3].joules = 0;	/* whatever a failed read left */
	assert_int_equal(vcp_trial_window_power(s, 7, 0, 60, 0.9, &w, &err),
			 0);
	assert_float_equal(w, 200, TOL);
	/* last sample missing too: 50 s of 60 covered, 0.9 needed */
	s[6].missing = true;
	w = -1;
	assert_int_equal(vcp_trial_window_power(s, 7, 0, 60, 0.9, &w, &err),
			 -EINVAL);
	assert_non_null(strstr(err, "samples cover 50 s of the 60 s window"));
	assert_float_equal(w, -1, 0);
	assert_int_equal(vcp_trial_window_power(s, 7, 0, 60, 0.8, &w, &err),
			 0);
	assert_float_equal(w, 200, TOL);
	/* one sample present: no power */
	for (i = 1; i < 7; i++)
		s[i].missing = true;
	assert_int_equal(vcp_trial_window_power(s, 7, 0, 60, 0.1, &w, &err),
			 -EINVAL);
	assert_non_null(strstr(err, "1 of 7 samples present"));
	free(err);
}

static void test_t95(void **state)
{
	assert_float_equal(vcp_trial_t95(1), 12.7062, 1e-4);
	assert_float_equal(vcp_trial_t95(2), 4.3027, 1e-4);
	assert_float_equal(vcp_trial_t95(30), 2.0423, 1e-4);
	assert_float_equal(vcp_trial_t95(31), 2.0395, 1e-4);
	assert_float_equal(vcp_trial_t95(100), 1.9840, 1e-4);
	assert_true(isnan(vcp_trial_t95(0)));
}

/* A at 200 W, B at 180 W in every window: -20 W, -10%, no spread. */
static void test_constant_powers(void **state)
{
	const double w[] = { 200, 180, 200, 180, 200 };
	struct vcp_trial_result *r = analyse(2, w);

	assert_int_equal(r->arm[VCP_TRIAL_A].n, 3);
	assert_int_equal(r->arm[VCP_TRIAL_B].n, 2);
	assert_float_equal(r->arm[VCP_TRIAL_A].mean_w, 200, TOL);
	assert_float_equal(r->arm[VCP_TRIAL_B].mean_w, 180, TOL);
	assert_float_equal(r->diff_w, -20, TOL);
	assert_float_equal(r->lo_w, -20, TOL);
	assert_float_equal(r->hi_w, -20, TOL);
	assert_float_equal(r->diff_pct, -10, TOL);
	assert_int_equal(r->n_pairs, 2);
	assert_int_equal(r->verdict, VCP_TRIAL_SAVES);
	vcp_trial_result_free(r);
}

/*
 * Known noise, worked by hand. A: 100 102 98 100, B: 90 93 89.
 * A: mean 100, sd sqrt(8/3) = 1.63299, se 0.81650, t(3) 3.1824:
 *    100 -+ 2.59842.
 * B: mean 90.66667, sd sqrt(13/3) = 2.08167, se 1.20185, t(2) 4.3027:
 *    90.66667 -+ 5.17120.
 * d = 90 - 101, 93 - 100, 89 - 99 = -11, -7, -10: mean -9.33333,
 * sd 2.08167, se 1.20185, neighbours sharing a window k = 2, n = 3:
 * inflation sqrt(1 + 2/9) = 1.10554, t(2) 4.3027: half 5.71698,
 * interval [-15.05031, -3.61635]; % of 100 W the same numbers. Saves.
 */
static const double noisy[] = { 100, 90, 102, 93, 98, 89, 100 };

static void test_known_noise(void **state)
{
	struct vcp_trial_result *r = analyse(3, noisy);

	assert_float_equal(r->arm[VCP_TRIAL_A].mean_w, 100, TOL);
	assert_float_equal(r->arm[VCP_TRIAL_A].sd_w, 1.63299, TOL);
	assert_float_equal(r->arm[VCP_TRIAL_A].lo_w, 97.40158, TOL);
	assert_float_equal(r->arm[VCP_TRIAL_A].hi_w, 102.59842, TOL);
	assert_float_equal(r->arm[VCP_TRIAL_B].mean_w, 90.66667, TOL);
	assert_float_equal(r->arm[VCP_TRIAL_B].lo_w, 85.49546, TOL);
	assert_float_equal(r->arm[VCP_TRIAL_B].hi_w, 95.83787, TOL);
	assert_float_equal(r->diff_w, -9.33333, TOL);
	assert_float_equal(r->lo_w, -15.05031, TOL);
	assert_float_equal(r->hi_w, -3.61635, TOL);
	assert_float_equal(r->lo_pct, -15.05031, TOL);
	assert_float_equal(r->min_effect_w, 1, TOL);	/* 1% of 100 W */
	assert_int_equal(r->n_pairs, 3);
	assert_int_equal(r->verdict, VCP_TRIAL_SAVES);
	vcp_trial_result_free(r);
}

/*
 * The host's power rises 5 W per window (warming room, other load) and B
 * saves 3 W. A: 100 110 120 130, B: 105-3 112 122 (at windows 1 3 5).
 * Naive comparisons get it wrong: each B with the A before it says B
 * costs 2 W; the two arms' own intervals overlap widely (no difference).
 * The paired interpolation removes the drift: -3 W exactly.
 */
static void test_linear_drift(void **state)
{
	const double w[] = { 100, 102, 110, 112, 120, 122, 130 };
	struct vcp_trial_result *r = analyse(3, w);
	double naive = 0;
	int i;

	for (i = 1; i < 7; i += 2)
		naive += (w[i] - w[i - 1]) / 3;
	assert_float_equal(naive, 2, TOL);	/* wrong sign */
	assert_true(r->arm[VCP_TRIAL_B].hi_w > r->arm[VCP_TRIAL_A].lo_w);
	assert_float_equal(r->diff_w, -3, TOL);
	assert_float_equal(r->lo_w, -3, TOL);
	assert_float_equal(r->hi_w, -3, TOL);
	assert_int_equal(r->verdict, VCP_TRIAL_SAVES);
	vcp_trial_result_free(r);

	/* the same with B first: B flanks, signs swap, same answer */
	{
		struct vcp_trial_params p = params(3);
		const double v[] = { 97, 105, 107, 115, 117, 125, 127 };
		struct vcp_trial_obs obs[7];

		p.first = VCP_TRIAL_B;
		observe(v, 7, obs);
		assert_int_equal(vcp_trial_analyse(&p, obs, 7, &r, NULL), 0);
		assert_float_equal(r->diff_w, -3, TOL);
		assert_int_equal(r->verdict, VCP_TRIAL_SAVES);
		vcp_trial_result_free(r);
	}
}

static void test_too_few_windows(void **state)
{
	struct vcp_trial_params p = params(1);
	struct vcp_trial_result *r = NULL;
	struct vcp_trial_obs obs[5];
	const double w[] = { 100, 90, NAN, 90, 100 };
	char *err = NULL;

	observe(w, 3, obs);
	assert_int_equal(vcp_trial_analyse(&p, obs, 3, &r, &err), -EINVAL);
	assert_non_null(strstr(err, "too few windows"));
	assert_null(r);
	/* 2 rounds, but the middle A is lost: both pairs need it */
	p = params(2);
	observe(w, 5, obs);
	assert_int_equal(vcp_trial_analyse(&p, obs, 5, &r, &err), -EINVAL);
	assert_string_equal(err, "too few windows: 0 paired differences left of 2 (1 window not usable), at least 2 needed");
	assert_null(r);
	/* observations not matching the schedule */
	assert_int_equal(vcp_trial_analyse(&p, obs, 4, &r, &err), -EINVAL);
	assert_string_equal(err, "windows: 4 observed, the schedule has 5");
	assert_null(r);
	free(err);
}

/*
 * A window missing (its samples did not cover it): the known-noise
 * series with the last A lost. d = -11, -7 (they share A2, k = 1):
 * mean -9, sd 2.82843, se 2, inflation sqrt(1 + 1/6) = 1.08012,
 * t(1) 12.7062: half 27.44853, [-36.44853, 18.44853]: holds 0.
 */
static void test_window_dropped(void **state)
{
	double w[7];
	struct vcp_trial_result *r;

	memcpy(w, noisy, sizeof(w));
	w[6] = NAN;
	r = analyse(3, w);
	assert_int_equal(r->n_dropped, 1);
	assert_int_equal(r->n_pairs, 2);
	assert_int_equal(r->arm[VCP_TRIAL_A].n, 3);
	assert_float_equal(r->diff_w, -9, TOL);
	assert_float_equal(r->lo_w, -36.44853, TOL);
	assert_float_equal(r->hi_w, 18.44853, TOL);
	assert_int_equal(r->verdict, VCP_TRIAL_NO_DIFFERENCE);
	vcp_trial_result_free(r);
}

/* Costs: B draws 10 W more. Significant but tiny (0.5 W of 200 W, under
 * the 1% minimum): no difference. Over a watt minimum: same. */
static void test_verdicts(void **state)
{
	const double costs[] = { 200, 211, 201, 210, 199 };
	const double tiny[] = { 200, 199.5, 200, 199.5, 200 };
	struct vcp_trial_params p = params(2);
	struct vcp_trial_obs obs[5];
	struct vcp_trial_result *r = analyse(2, costs);

	assert_int_equal(r->verdict, VCP_TRIAL_COSTS);
	assert_true(r->lo_w > 0);
	vcp_trial_result_free(r);
	r = analyse(2, tiny);
	assert_true(r->hi_w < 0);	/* the interval excludes 0 ... */
	assert_float_equal(r->diff_w, -0.5, TOL);
	assert_int_equal(r->verdict, VCP_TRIAL_NO_DIFFERENCE); /* ... small */
	vcp_trial_result_free(r);
	p.min_effect_pct = 0;
	p.min_effect_w = 0.4;
	observe(tiny, 5, obs);
	assert_int_equal(vcp_trial_analyse(&p, obs, 5, &r, NULL), 0);
	assert_int_equal(r->verdict, VCP_TRIAL_SAVES);
	assert_float_equal(r->min_effect_w, 0.4, TOL);
	vcp_trial_result_free(r);
}

/* "web" (2 vCPUs) waits 6 s per 60 s window as found (5%), 18 s as
 * planned (15%); "db" is seen only as found (stopped): null as planned;
 * an unusable window's waits are not counted. */
static void test_vm_wait(void **state)
{
	const struct vcp_trial_vm_wait a[] = { { "web", 2, 6 },
					       { "db", 1, 3 } };
	const struct vcp_trial_vm_wait b[] = { { "web", 2, 18 } };
	const struct vcp_trial_vm_wait bad[] = { { "web", 2, 999 } };
	const double w[] = { 100, 90, 100, 90, 100, 90, 100 };
	struct vcp_trial_params p = params(3);
	struct vcp_trial_result *r;
	struct vcp_trial_obs obs[7];
	int i;

	observe(w, 7, obs);
	for (i = 0; i < 7; i++) {
		obs[i].vms = i % 2 ? b : a;
		obs[i].n_vms = i % 2 ? 1 : 2;
	}
	obs[3].usable = false;
	obs[3].vms = bad;
	obs[3].n_vms = 1;
	assert_int_equal(vcp_trial_analyse(&p, obs, 7, &r, NULL), 0);
	assert_int_equal(r->n_vms, 2);
	assert_string_equal(r->vms[0].name, "db");
	assert_float_equal(r->vms[0].wait[VCP_TRIAL_A], 0.05, 1e-9);
	assert_true(isnan(r->vms[0].wait[VCP_TRIAL_B]));
	assert_true(isnan(r->vms[0].change));
	assert_string_equal(r->vms[1].name, "web");
	assert_float_equal(r->vms[1].wait[VCP_TRIAL_A], 0.05, 1e-9);
	assert_float_equal(r->vms[1].wait[VCP_TRIAL_B], 0.15, 1e-9);
	assert_float_equal(r->vms[1].change, 0.10, 1e-9);
	vcp_trial_result_free(r);
	/* window 0 measured only 30 s: its 6 s of waiting are 10% there;
	 * as found (0.10 + 3 * 0.05) / 4 */
	obs[0].span_s = 30;
	assert_int_equal(vcp_trial_analyse(&p, obs, 7, &r, NULL), 0);
	assert_float_equal(r->vms[1].wait[VCP_TRIAL_A], 0.0625, 1e-9);
	vcp_trial_result_free(r);
}

/* Bad figures are refused with the place named, nothing returned. */
static void test_bad_input(void **state)
{
	struct vcp_trial_sample s[] = {
		{ 0, 0, false }, { 10, NAN, false }, { 20, 100, false },
	};
	const double w[] = { 100, 90, 100, 90, 100 };
	struct vcp_trial_params p = params(2);
	struct vcp_trial_result *r = NULL;
	struct vcp_trial_obs obs[5];
	char *err = NULL;
	double watts = -1;

	assert_int_equal(vcp_trial_window_power(s, 3, 0, 20, 0.9, &watts,
						&err), -EINVAL);
	assert_non_null(strstr(err, "energy sample 1: not a time"));
	s[1].missing = true;	/* the same read, marked failed: fine */
	assert_int_equal(vcp_trial_window_power(s, 3, 0, 20, 0.9, &watts,
						&err), 0);
	assert_float_equal(watts, 5, TOL);
	assert_int_equal(vcp_trial_window_power(s, 3, 0, 0, 0.9, &watts,
						&err), -EINVAL);
	assert_non_null(strstr(err, "window: 0 s"));
	observe(w, 5, obs);
	obs[2].watts = -5;
	assert_int_equal(vcp_trial_analyse(&p, obs, 5, &r, &err), -EINVAL);
	assert_string_equal(err, "window 2: -5 W is not a power");
	assert_null(r);
	free(err);
}

static void test_json(void **state)
{
	const struct vcp_trial_vm_wait a[] = { { "web", 2, 6 },
					       { "db", 1, 3 } };
	const struct vcp_trial_vm_wait b[] = { { "web", 2, 18 } };
	struct vcp_trial_params p = params(3);
	struct json_object *o = NULL;
	struct vcp_trial_result *r;
	struct vcp_trial_obs obs[7];
	int i;

	observe(noisy, 7, obs);
	for (i = 0; i < 7; i++) {
		obs[i].vms = i % 2 ? b : a;
		obs[i].n_vms = i % 2 ? 1 : 2;
	}
	assert_int_equal(vcp_trial_analyse(&p, obs, 7, &r, NULL), 0);
	assert_int_equal(vcp_trial_to_json(r, &o), 0);
	assert_string_equal(json_object_to_json_string_ext(o,
						JSON_C_TO_STRING_PLAIN),
		"{\"verdict\":\"saves\",\"confidence\":0.95,"
		"\"method\":\"paired-interpolated\","
		"\"arms\":{\"as-found\":{\"windows\":4,\"watts\":100,"
		"\"watts_low\":97.402,\"watts_high\":102.598,"
		"\"sd_watts\":1.633},"
		"\"as-planned\":{\"windows\":3,\"watts\":90.667,"
		"\"watts_low\":85.495,\"watts_high\":95.838,"
		"\"sd_watts\":2.082}},"
		"\"difference\":{\"watts\":-9.333,\"watts_low\":-15.05,"
		"\"watts_high\":-3.616,\"percent\":-9.333,"
		"\"percent_low\":-15.05,\"percent_high\":-3.616,"
		"\"pairs\":3,\"min_effect_watts\":1},"
		"\"dropped_windows\":0,"
		"\"vms\":[{\"name\":\"db\",\"wait_as_found\":0.05,"
		"\"wait_as_planned\":null,\"wait_change\":null},"
		"{\"name\":\"web\",\"wait_as_found\":0.05,"
		"\"wait_as_planned\":0.15,\"wait_change\":0.1}]}");
	json_object_put(o);
	vcp_trial_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedule),
		cmocka_unit_test(test_schedule_refused),
		cmocka_unit_test(test_power_constant),
		cmocka_unit_test(test_power_wrap),
		cmocka_unit_test(test_power_two_wraps),
		cmocka_unit_test(test_power_missing),
		cmocka_unit_test(test_t95),
		cmocka_unit_test(test_constant_powers),
		cmocka_unit_test(test_known_noise),
		cmocka_unit_test(test_linear_drift),
		cmocka_unit_test(test_too_few_windows),
		cmocka_unit_test(test_window_dropped),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_vm_wait),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
