// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trial.c - the arithmetic of `vcpack trial`: the window schedule, mean
 * power per window from energy counter samples (wrap, missing samples),
 * per-arm means and the drift-cancelling paired difference with Student
 * t intervals, the verdict, per-VM vCPU wait per arm, and JSON. The
 * method is stated in trial.h. Pure: no I/O, no clock, no static state.
 */
#include "trial.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "policy.h"	/* vcp_json_double3() */
#include "power.h" /* VCP_PWR_ZONE_MAX_W */

/* Two-sided 95% Student t quantiles, df 1..30. */
static const double t95_table[30] = {
	12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060,
	2.2622, 2.2281, 2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199,
	2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
	2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
};

double vcp_trial_t95(unsigned int df)
{
	const double z = 1.959963984540054;
	double n = df;

	if (df == 0)
		return NAN;
	if (df <= 30)
		return t95_table[df - 1];
	/* Cornish-Fisher expansion: within 1e-5 from df 31 on */
	return z + (z * z * z + z) / (4 * n) +
	       (5 * pow(z, 5) + 16 * pow(z, 3) + 3 * z) / (96 * n * n) +
	       (3 * pow(z, 7) + 19 * pow(z, 5) + 17 * pow(z, 3) - 15 * z) /
	       (384 * n * n * n);
}

const char *vcp_trial_verdict_name(enum vcp_trial_verdict v)
{
	switch (v) {
	case VCP_TRIAL_SAVES:
		return "saves";
	case VCP_TRIAL_COSTS:
		return "costs";
	default:
		return "no-difference";
	}
}

void vcp_trial_params_default(struct vcp_trial_params *ret)
{
	*ret = (struct vcp_trial_params){
		.rounds = 5,
		.window_s = 180,
		.settle_s = 20,
		.first = VCP_TRIAL_A,
		.min_cover = 0.9,
		.min_effect_w = 0,
		.min_effect_pct = 1,
	};
}

size_t vcp_trial_n_windows(const struct vcp_trial_params *p)
{
	return 2 * (size_t)p->rounds + 1;
}

static int check_params(const struct vcp_trial_params *p, char **ret_err)
{
	if (p->rounds < VCP_TRIAL_MIN_ROUNDS)
		return vcp_err(ret_err, -EINVAL,
			       "rounds: %u is too few windows: a trial needs at least %d rounds (%d paired differences) for an interval",
			       p->rounds, VCP_TRIAL_MIN_ROUNDS,
			       VCP_TRIAL_MIN_ROUNDS);
	if (p->rounds > VCP_TRIAL_MAX_ROUNDS)
		return vcp_err(ret_err, -EINVAL,
			       "rounds: %u is more than %d", p->rounds,
			       VCP_TRIAL_MAX_ROUNDS);
	if (!(p->window_s > 0) || !isfinite(p->window_s))
		return vcp_err(ret_err, -EINVAL,
			       "window: %g s is not a positive length",
			       p->window_s);
	if (!(p->settle_s >= 0) || !isfinite(p->settle_s))
		return vcp_err(ret_err, -EINVAL,
			       "settle: %g s is negative", p->settle_s);
	if (p->first != VCP_TRIAL_A && p->first != VCP_TRIAL_B)
		return vcp_err(ret_err, -EINVAL, "order: unknown first arm");
	if (!(p->min_cover > 0 && p->min_cover <= 1))
		return vcp_err(ret_err, -EINVAL,
			       "min_cover: %g is not in (0, 1]", p->min_cover);
	if (!(p->min_effect_w >= 0) || !(p->min_effect_pct >= 0))
		return vcp_err(ret_err, -EINVAL,
			       "min_effect: must be 0 or more");
	return 0;
}

int vcp_trial_schedule(const struct vcp_trial_params *p,
		       struct vcp_trial_window *ret, char **ret_err)
{
	size_t i, n = vcp_trial_n_windows(p);
	double at = 0;
	int r;

	r = check_params(p, ret_err);
	if (r < 0)
		return r;
	for (i = 0; i < n; i++) {
		ret[i].index = i;
		ret[i].arm = (i % 2 == 0) ? p->first : !p->first;
		ret[i].switch_s = at;
		ret[i].start_s = at + p->settle_s;
		ret[i].end_s = ret[i].start_s + p->window_s;
		at = ret[i].end_s;
	}
	return 0;
}

int vcp_trial_window_power(const struct vcp_trial_sample *s, size_t n,
			   double max_range_j, double window_s,
			   double min_cover, double *ret_watts,
			   char **ret_err)
{
	const struct vcp_trial_sample *prev = NULL;
	double joules = 0, first_t = 0, d;
	size_t i, present = 0;

	if (!(window_s > 0) || !isfinite(window_s))
		return vcp_err(ret_err, -EINVAL,
			       "window: %g s is not a positive length",
			       window_s);
	for (i = 0; i < n; i++) {
		if (s[i].missing)
			continue;
		if (!isfinite(s[i].t_s) || !isfinite(s[i].joules) ||
		    s[i].joules < 0)
			return vcp_err(ret_err, -EINVAL,
				       "energy sample %zu: not a time and a counter value (%g s, %g J)",
				       i, s[i].t_s, s[i].joules);
		present++;
		if (!prev) {
			prev = &s[i];
			first_t = s[i].t_s;
			continue;
		}
		if (!(s[i].t_s > prev->t_s))
			return vcp_err(ret_err, -EINVAL,
				       "energy sample %zu: time does not advance (%g s after %g s)",
				       i, s[i].t_s, prev->t_s);
		/* further apart than the counter wraps at the most a zone
		 * draws: two wraps would read as one */
		if (max_range_j > 0 &&
		    s[i].t_s - prev->t_s > max_range_j / VCP_PWR_ZONE_MAX_W)
			return vcp_err(
				ret_err, -ERANGE,
				"energy sample %zu: %g s after the last one, longer than the counter's wrap time (%g s at %g W): it may have wrapped more than once",
				i, s[i].t_s - prev->t_s,
				max_range_j / VCP_PWR_ZONE_MAX_W,
				VCP_PWR_ZONE_MAX_W);
		d = s[i].joules - prev->joules;
		if (d < 0) {
			if (max_range_j <= 0)
				return vcp_err(ret_err, -EINVAL,
					       "energy sample %zu: the counter went back (%g J after %g J) and its range is unknown",
					       i, s[i].joules, prev->joules);
			d += max_range_j;
		}
		joules += d;
		prev = &s[i];
	}
	if (present < 2)
		return vcp_err(ret_err, -EINVAL,
			       "energy: %zu of %zu samples present, 2 needed",
			       present, n);
	if (prev->t_s - first_t < min_cover * window_s)
		return vcp_err(ret_err, -EINVAL,
			       "energy: samples cover %g s of the %g s window (%g%% needed)",
			       prev->t_s - first_t, window_s, min_cover * 100);
	*ret_watts = joules / (prev->t_s - first_t);
	return 0;
}

/* Mean, sd and 95% interval of @x[0..n). n >= 1 (n == 1: no interval). */
static void stat(const double *x, unsigned int n,
		 struct vcp_trial_arm_stat *ret)
{
	double sum = 0, ss = 0, half;
	unsigned int i;

	for (i = 0; i < n; i++)
		sum += x[i];
	ret->n = n;
	ret->mean_w = n ? sum / n : NAN;
	for (i = 0; i < n; i++)
		ss += (x[i] - ret->mean_w) * (x[i] - ret->mean_w);
	ret->sd_w = n > 1 ? sqrt(ss / (n - 1)) : NAN;
	half = n > 1 ? vcp_trial_t95(n - 1) * ret->sd_w / sqrt(n) : NAN;
	ret->lo_w = ret->mean_w - half;
	ret->hi_w = ret->mean_w + half;
}

static void arm_stats(const struct vcp_trial_obs *obs, size_t n_obs,
		      enum vcp_trial_arm first, double *buf,
		      struct vcp_trial_result *res)
{
	unsigned int arm, n;
	size_t i;

	for (arm = 0; arm < 2; arm++) {
		n = 0;
		for (i = 0; i < n_obs; i++) {
			bool is_first = (i % 2 == 0);

			if (obs[i].usable &&
			    (is_first ? first : !first) == arm)
				buf[n++] = obs[i].watts;
		}
		stat(buf, n, &res->arm[arm]);
	}
}

/*
 * The paired differences B - A into @d; returns how many, and in
 * *ret_shared how many neighbours share a flanking window.
 */
static unsigned int pairs(const struct vcp_trial_obs *obs, size_t n_obs,
			  enum vcp_trial_arm first, double *d,
			  unsigned int *ret_shared)
{
	unsigned int n = 0, shared = 0;
	size_t i, last = 0;
	double x;

	for (i = 1; i + 1 < n_obs; i += 2) {
		if (!obs[i].usable || !obs[i - 1].usable ||
		    !obs[i + 1].usable)
			continue;
		x = obs[i].watts - (obs[i - 1].watts + obs[i + 1].watts) / 2;
		d[n++] = first == VCP_TRIAL_A ? x : -x;
		if (n > 1 && last + 2 == i)
			shared++;
		last = i;
	}
	*ret_shared = shared;
	return n;
}

static void verdict(const struct vcp_trial_params *p,
		    struct vcp_trial_result *res)
{
	double a = res->arm[VCP_TRIAL_A].mean_w;
	double min = fmax(p->min_effect_w, p->min_effect_pct / 100 * a);

	res->min_effect_w = min;
	res->verdict = VCP_TRIAL_NO_DIFFERENCE;
	if (res->hi_w < 0 && -res->diff_w >= min)
		res->verdict = VCP_TRIAL_SAVES;
	else if (res->lo_w > 0 && res->diff_w >= min)
		res->verdict = VCP_TRIAL_COSTS;
}

static int difference(const struct vcp_trial_params *p,
		      const struct vcp_trial_obs *obs, size_t n_obs,
		      double *buf, struct vcp_trial_result *res,
		      char **ret_err)
{
	struct vcp_trial_arm_stat d;
	unsigned int n, shared;
	double half, a;

	n = pairs(obs, n_obs, p->first, buf, &shared);
	if (n < 2)
		return vcp_err(ret_err, -EINVAL,
			       "too few windows: %u paired difference%s left of %u (%u window%s not usable), at least 2 needed",
			       n, n == 1 ? "" : "s", p->rounds,
			       res->n_dropped, res->n_dropped == 1 ? "" : "s");
	stat(buf, n, &d);
	half = vcp_trial_t95(n - 1) * d.sd_w / sqrt(n) *
	       sqrt(1 + (double)shared / (3.0 * n));
	res->n_pairs = n;
	res->diff_w = d.mean_w;
	res->lo_w = d.mean_w - half;
	res->hi_w = d.mean_w + half;
	a = res->arm[VCP_TRIAL_A].mean_w;
	res->diff_pct = a > 0 ? 100 * res->diff_w / a : NAN;
	res->lo_pct = a > 0 ? 100 * res->lo_w / a : NAN;
	res->hi_pct = a > 0 ? 100 * res->hi_w / a : NAN;
	verdict(p, res);
	return 0;
}

static int cmp_vm(const void *x, const void *y)
{
	const struct vcp_trial_vm *a = x, *b = y;

	return strcmp(a->name, b->name);
}

static struct vcp_trial_vm *find_vm(struct vcp_trial_result *res,
				    const char *name)
{
	size_t i;

	for (i = 0; i < res->n_vms; i++)
		if (strcmp(res->vms[i].name, name) == 0)
			return &res->vms[i];
	return NULL;
}

/* Collect the VM names seen in usable windows. */
static int vm_names(const struct vcp_trial_obs *obs, size_t n_obs,
		    struct vcp_trial_result *res)
{
	size_t i, j, max = 0;

	for (i = 0; i < n_obs; i++)
		max += obs[i].usable ? obs[i].n_vms : 0;
	res->vms = calloc(max ? max : 1, sizeof(*res->vms));
	if (!res->vms)
		return -ENOMEM;
	for (i = 0; i < n_obs; i++)
		for (j = 0; obs[i].usable && j < obs[i].n_vms; j++) {
			const char *name = obs[i].vms[j].name;

			if (!name || find_vm(res, name))
				continue;
			res->vms[res->n_vms].name = strdup(name);
			if (!res->vms[res->n_vms].name)
				return -ENOMEM;
			res->n_vms++;
		}
	qsort(res->vms, res->n_vms, sizeof(*res->vms), cmp_vm);
	return 0;
}

static void vm_wait(const struct vcp_trial_params *p,
		    const struct vcp_trial_obs *obs, size_t n_obs,
		    struct vcp_trial_vm *vm)
{
	double sum[2] = { 0, 0 };
	unsigned int cnt[2] = { 0, 0 }, arm;
	size_t i, j;

	for (i = 0; i < n_obs; i++) {
		arm = (i % 2 == 0) ? p->first : !p->first;
		for (j = 0; obs[i].usable && j < obs[i].n_vms; j++) {
			const struct vcp_trial_vm_wait *w = &obs[i].vms[j];

			if (!w->name || strcmp(w->name, vm->name) != 0 ||
			    w->vcpus == 0)
				continue;
			sum[arm] += w->wait_s / ((obs[i].span_s > 0 ?
						  obs[i].span_s : p->window_s) *
						 w->vcpus);
			cnt[arm]++;
		}
	}
	for (arm = 0; arm < 2; arm++)
		vm->wait[arm] = cnt[arm] ? sum[arm] / cnt[arm] : NAN;
	vm->change = vm->wait[VCP_TRIAL_B] - vm->wait[VCP_TRIAL_A];
}

void vcp_trial_result_free(struct vcp_trial_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n_vms; i++)
		free(r->vms[i].name);
	free(r->vms);
	free(r);
}

int vcp_trial_analyse(const struct vcp_trial_params *p,
		      const struct vcp_trial_obs *obs, size_t n_obs,
		      struct vcp_trial_result **ret, char **ret_err)
{
	struct vcp_trial_result *res;
	double *buf;
	size_t i;
	int r;

	r = check_params(p, ret_err);
	if (r < 0)
		return r;
	if (n_obs != vcp_trial_n_windows(p))
		return vcp_err(ret_err, -EINVAL,
			       "windows: %zu observed, the schedule has %zu",
			       n_obs, vcp_trial_n_windows(p));
	res = calloc(1, sizeof(*res));
	buf = calloc(n_obs, sizeof(*buf));
	if (!res || !buf) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n_obs; i++) {
		if (obs[i].usable && !(isfinite(obs[i].watts) &&
				       obs[i].watts >= 0)) {
			r = vcp_err(ret_err, -EINVAL,
				    "window %zu: %g W is not a power", i,
				    obs[i].watts);
			goto out;
		}
		res->n_dropped += !obs[i].usable;
	}
	arm_stats(obs, n_obs, p->first, buf, res);
	r = difference(p, obs, n_obs, buf, res, ret_err);
	if (r < 0)
		goto out;
	r = vm_names(obs, n_obs, res);
	if (r < 0)
		goto out;
	for (i = 0; i < res->n_vms; i++)
		vm_wait(p, obs, n_obs, &res->vms[i]);
	*ret = res;
	res = NULL;
out:
	free(buf);
	vcp_trial_result_free(res);
	return r;
}

/* A number rounded to 3 decimals, null when not a number. */
static struct json_object *num(double d)
{
	return isfinite(d) ? vcp_json_double3(d) : NULL;
}

/*
 * Add @v under @key (taken over, also on failure); -ENOMEM when @v
 * should be there and is not.
 */
static int add(struct json_object *o, const char *key,
	       struct json_object *v, bool want)
{
	if (want && !v)
		return -ENOMEM;
	if (json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

#define ADD_NUM(o, key, d) add((o), (key), num(d), isfinite(d))

static struct json_object *arm_json(const struct vcp_trial_arm_stat *a)
{
	struct json_object *o = json_object_new_object();

	if (!o || add(o, "windows", json_object_new_int(a->n), true) < 0 ||
	    ADD_NUM(o, "watts", a->mean_w) < 0 ||
	    ADD_NUM(o, "watts_low", a->lo_w) < 0 ||
	    ADD_NUM(o, "watts_high", a->hi_w) < 0 ||
	    ADD_NUM(o, "sd_watts", a->sd_w) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *diff_json(const struct vcp_trial_result *r)
{
	struct json_object *o = json_object_new_object();

	if (!o || ADD_NUM(o, "watts", r->diff_w) < 0 ||
	    ADD_NUM(o, "watts_low", r->lo_w) < 0 ||
	    ADD_NUM(o, "watts_high", r->hi_w) < 0 ||
	    ADD_NUM(o, "percent", r->diff_pct) < 0 ||
	    ADD_NUM(o, "percent_low", r->lo_pct) < 0 ||
	    ADD_NUM(o, "percent_high", r->hi_pct) < 0 ||
	    add(o, "pairs", json_object_new_int(r->n_pairs), true) < 0 ||
	    ADD_NUM(o, "min_effect_watts", r->min_effect_w) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *vms_json(const struct vcp_trial_result *r)
{
	struct json_object *a = json_object_new_array(), *o;
	size_t i;

	for (i = 0; a && i < r->n_vms; i++) {
		const struct vcp_trial_vm *vm = &r->vms[i];

		o = json_object_new_object();
		if (!o || add(o, "name", json_object_new_string(vm->name),
			      true) < 0 ||
		    ADD_NUM(o, "wait_as_found", vm->wait[VCP_TRIAL_A]) < 0 ||
		    ADD_NUM(o, "wait_as_planned", vm->wait[VCP_TRIAL_B]) < 0 ||
		    ADD_NUM(o, "wait_change", vm->change) < 0 ||
		    json_object_array_add(a, o) < 0) {
			json_object_put(o);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

int vcp_trial_to_json(const struct vcp_trial_result *r,
		      struct json_object **ret)
{
	struct json_object *o = json_object_new_object(), *arms = NULL;
	int e;

	if (!o)
		return -ENOMEM;
	if (add(o, "verdict",
		json_object_new_string(vcp_trial_verdict_name(r->verdict)),
		true) < 0 ||
	    add(o, "confidence", vcp_json_double3(0.95), true) < 0 ||
	    add(o, "method", json_object_new_string("paired-interpolated"),
		true) < 0)
		goto fail;
	arms = json_object_new_object();
	if (!arms || add(arms, "as-found", arm_json(&r->arm[VCP_TRIAL_A]),
			 true) < 0 ||
	    add(arms, "as-planned", arm_json(&r->arm[VCP_TRIAL_B]),
		true) < 0)
		goto fail;
	e = add(o, "arms", arms, true);
	arms = NULL;
	if (e < 0)
		goto fail;
	if (add(o, "difference", diff_json(r), true) < 0 ||
	    add(o, "dropped_windows", json_object_new_int(r->n_dropped),
		true) < 0 ||
	    add(o, "vms", vms_json(r), true) < 0)
		goto fail;
	*ret = o;
	return 0;
fail:
	json_object_put(arms);
	json_object_put(o);
	return -ENOMEM;
}
