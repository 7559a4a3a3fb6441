// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * power.c - the arithmetic on two reads of the power counters (see
 * power.h): energy deltas with wraparound at max_energy_range_uj (as
 * turbostat does for RAPL), watts, C-state residency as a share of the
 * package's TSC ticks, cpuidle residency as a share of wall time, and
 * "awake by these figures". Pure: no I/O, no logging, no static state.
 */
#include "power.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdfile.h"

void vcp_pwr_snap_clear(struct vcp_pwr_snap *s)
{
	if (!s)
		return;
	free(s->zones);
	free(s->res);
	free(s->tsc);
	free(s->cpus);
	free(s->uncore);
	memset(s, 0, sizeof(*s));
}

int vcp_counter_delta(uint64_t before, uint64_t after, uint64_t max,
		      uint64_t *ret_delta)
{
	if (after >= before) {
		*ret_delta = after - before;
		return 0;
	}
	if (max == 0 || before > max || after > max)
		return -ERANGE;
	*ret_delta = max - before + after;
	return 0;
}

double vcp_pwr_wrap_s(uint64_t max_uj)
{
	return (double)max_uj / 1e6 / VCP_PWR_ZONE_MAX_W;
}

double vcp_rate(uint64_t delta, uint64_t ns)
{
	if (ns == 0)
		return NAN;
	return (double)delta * 1e9 / (double)ns;
}

double vcp_ratio(uint64_t part, uint64_t whole)
{
	double r;

	if (whole == 0)
		return NAN;
	r = (double)part / (double)whole;
	return r > 1.0 ? 1.0 : r;
}

static const char *const zone_kind_names[VCP_ZONE_N] = {
	[VCP_ZONE_PACKAGE] = "package", [VCP_ZONE_CORE] = "core",
	[VCP_ZONE_UNCORE] = "uncore",	[VCP_ZONE_DRAM] = "dram",
	[VCP_ZONE_PSYS] = "psys",	[VCP_ZONE_OTHER] = "other",
};

enum vcp_zone_kind vcp_zone_kind_of(const char *name)
{
	if (strncmp(name, "package-", 8) == 0)
		return VCP_ZONE_PACKAGE;
	for (int k = VCP_ZONE_CORE; k < VCP_ZONE_OTHER; k++)
		if (strcmp(name, zone_kind_names[k]) == 0)
			return (enum vcp_zone_kind)k;
	return VCP_ZONE_OTHER;
}

const char *vcp_zone_kind_name(enum vcp_zone_kind k)
{
	return k < VCP_ZONE_N ? zone_kind_names[k] : "other";
}

void vcp_pwr_figs_clear(struct vcp_pwr_figs *f)
{
	if (!f)
		return;
	free(f->pkgs);
	free(f->lacking);
	memset(f, 0, sizeof(*f));
}

/* ---- the package list ---- */

static int add_pkg(struct vcp_pwr_figs *f, int id)
{
	struct vcp_pwr_pkg_figs *p;
	size_t i;

	if (id < 0)
		return 0;
	for (i = 0; i < f->n_pkgs && f->pkgs[i].package < id; i++)
		;
	if (i < f->n_pkgs && f->pkgs[i].package == id)
		return 0;
	p = realloc(f->pkgs, (f->n_pkgs + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	f->pkgs = p;
	memmove(&p[i + 1], &p[i], (f->n_pkgs - i) * sizeof(*p));
	f->n_pkgs++;
	p = &p[i];
	memset(p, 0, sizeof(*p));
	p->package = id;
	for (int k = 0; k < VCP_ZONE_N; k++)
		p->joules[k] = p->watts[k] = NAN;
	p->energy_err = -ENOENT;
	p->pc_total = p->idle_min = p->idle_mean = NAN;
	p->uncore_mhz = p->uncore_min_mhz = p->uncore_max_mhz = NAN;
	p->awake = -1;
	return 0;
}

static struct vcp_pwr_pkg_figs *pkg_of(struct vcp_pwr_figs *f, int id)
{
	for (size_t i = 0; i < f->n_pkgs; i++)
		if (f->pkgs[i].package == id)
			return &f->pkgs[i];
	return NULL;
}

static int list_pkgs(const struct vcp_pwr_snap *s, struct vcp_pwr_figs *f)
{
	int r = 0;

	for (size_t i = 0; !r && i < s->n_zones; i++)
		r = add_pkg(f, s->zones[i].package);
	for (size_t i = 0; !r && i < s->n_res; i++)
		r = add_pkg(f, s->res[i].package);
	for (size_t i = 0; !r && i < s->n_cpus; i++)
		r = add_pkg(f, s->cpus[i].package);
	for (size_t i = 0; !r && i < s->n_uncore; i++)
		r = add_pkg(f, s->uncore[i].package);
	return r;
}

/* ---- energy ---- */

static const struct vcp_pwr_zone *zone_in(const struct vcp_pwr_snap *s,
					  const char *id)
{
	for (size_t i = 0; i < s->n_zones; i++)
		if (strcmp(s->zones[i].id, id) == 0)
			return &s->zones[i];
	return NULL;
}

static void accumulate(double *acc, double j)
{
	*acc = isnan(*acc) ? j : *acc + j;
}

/* Note @z as a zone the host's total lacks (package and dram only: the
 * zones it adds), and why. 0 or -ENOMEM. */
static int lack(struct vcp_pwr_figs *f, const struct vcp_pwr_zone *z,
		const char *why)
{
	struct vcp_pwr_lack *l;

	if (z->kind != VCP_ZONE_PACKAGE && z->kind != VCP_ZONE_DRAM)
		return 0;
	l = realloc(f->lacking, (f->n_lacking + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	f->lacking = l;
	l = &l[f->n_lacking++];
	memcpy(l->id, z->id, sizeof(l->id));
	memcpy(l->name, z->name, sizeof(l->name));
	snprintf(l->why, sizeof(l->why), "%s", why);
	return 0;
}

/*
 * The zone's energy over @ns: refused (-ERANGE, why in @why) when its
 * range or reading is implausible, when the reads are further apart
 * than the counter's wrap time (it may have wrapped twice: no way to
 * tell) or when the figure is more than a zone draws.
 */
static int zone_delta(const struct vcp_pwr_zone *za,
		      const struct vcp_pwr_zone *zb, uint64_t ns, uint64_t *ret,
		      char *why, size_t len)
{
	double s = (double)ns / 1e9;
	uint64_t d;

	if (za->max_uj != zb->max_uj) {
		snprintf(
			why, len,
			"max_energy_range_uj changed between the reads (%" PRIu64
			", %" PRIu64 ")",
			za->max_uj, zb->max_uj);
		return -ERANGE;
	}
	if (s > vcp_pwr_wrap_s(zb->max_uj)) {
		snprintf(
			why, len,
			"the reads are %.0f s apart, longer than the counter wraps at %.0f W (%.0f s): it may have wrapped more than once",
			s, VCP_PWR_ZONE_MAX_W, vcp_pwr_wrap_s(zb->max_uj));
		return -ERANGE;
	}
	if (vcp_counter_delta(za->energy_uj, zb->energy_uj, zb->max_uj, &d) <
	    0) {
		snprintf(why, len,
			 "energy_uj went backwards (%" PRIu64 " after %" PRIu64
			 ")",
			 zb->energy_uj, za->energy_uj);
		return -ERANGE;
	}
	if (vcp_rate(d, ns) / 1e6 > VCP_PWR_ZONE_MAX_W) {
		snprintf(
			why, len,
			"energy_uj gives %.0f W, more than a zone draws (%.0f W): a bad reading",
			vcp_rate(d, ns) / 1e6, VCP_PWR_ZONE_MAX_W);
		return -ERANGE;
	}
	*ret = d;
	return 0;
}

static int energy_zone(const struct vcp_pwr_zone *za,
		       const struct vcp_pwr_zone *zb, struct vcp_pwr_figs *f,
		       uint64_t ns)
{
	struct vcp_pwr_pkg_figs *p = pkg_of(f, zb->package);
	uint64_t d = 0;
	double j;
	int err = zb->err ? zb->err : za->err;
	char why[192];

	snprintf(why, sizeof(why), "%s", zb->err ? zb->why : za->why);
	if (!err)
		err = zone_delta(za, zb, ns, &d, why, sizeof(why));
	if (p && zb->kind == VCP_ZONE_PACKAGE &&
	    (p->energy_err == -ENOENT || err))
		p->energy_err = err;
	if (err) {
		if (!f->energy_err || f->energy_err == -ENOENT)
			f->energy_err = err;
		return lack(f, zb, why);
	}
	j = (double)d / 1e6;
	if (zb->kind == VCP_ZONE_PSYS) {
		f->psys_watts = j * 1e9 / (double)ns;
		return 0;
	}
	if (!p)
		return 0;
	accumulate(&p->joules[zb->kind], j);
	p->watts[zb->kind] = p->joules[zb->kind] * 1e9 / (double)ns;
	if (zb->kind == VCP_ZONE_PACKAGE || zb->kind == VCP_ZONE_DRAM)
		accumulate(&f->host_joules, j);
	return 0;
}

static int energy_figs(const struct vcp_pwr_snap *a,
		       const struct vcp_pwr_snap *b, struct vcp_pwr_figs *f,
		       uint64_t ns)
{
	int r = 0;

	f->energy_err = b->zones_err ? b->zones_err : a->zones_err;
	if (!f->energy_err && b->n_zones == 0)
		f->energy_err = -ENOENT;
	for (size_t i = 0; i < b->n_zones; i++) {
		const struct vcp_pwr_zone *za = zone_in(a, b->zones[i].id);

		if (!za) {
			f->n_changed++;
			continue;
		}
		if (!r)
			r = energy_zone(za, &b->zones[i], f, ns);
	}
	for (size_t i = 0; i < a->n_zones; i++)
		if (!zone_in(b, a->zones[i].id))
			f->n_changed++;
	if (!isnan(f->host_joules)) {
		f->host_watts = f->host_joules * 1e9 / (double)ns;
		f->energy_err = 0;
	}
	return r;
}

/* ---- C-state residency (perf cstate PMUs) ---- */

static const struct vcp_pwr_res *res_in(const struct vcp_pwr_snap *s,
					const struct vcp_pwr_res *x)
{
	for (size_t i = 0; i < s->n_res; i++)
		if (s->res[i].package == x->package &&
		    s->res[i].core == x->core &&
		    strcmp(s->res[i].state, x->state) == 0)
			return &s->res[i];
	return NULL;
}

static int tsc_delta(const struct vcp_pwr_snap *a, const struct vcp_pwr_snap *b,
		     int package, uint64_t *ret)
{
	const struct vcp_pwr_tsc *ta = NULL, *tb = NULL;

	for (size_t i = 0; i < a->n_tsc; i++)
		if (a->tsc[i].package == package && !a->tsc[i].err)
			ta = &a->tsc[i];
	for (size_t i = 0; i < b->n_tsc; i++)
		if (b->tsc[i].package == package && !b->tsc[i].err)
			tb = &b->tsc[i];
	if (!ta || !tb || tb->count <= ta->count)
		return -ENODATA;
	*ret = tb->count - ta->count;
	return 0;
}

static void res_one(const struct vcp_pwr_res *ra, const struct vcp_pwr_res *rb,
		    struct vcp_pwr_pkg_figs *p, uint64_t tsc)
{
	struct vcp_pwr_state_fig *s;
	unsigned int *n = rb->core ? &p->n_cc : &p->n_pc;
	double ratio = NAN;

	if (*n >= VCP_PWR_MAX_STATES)
		return;
	if (!ra->err && !rb->err && rb->count >= ra->count &&
	    rb->n_cpus && rb->n_cpus == ra->n_cpus)
		ratio = vcp_ratio(rb->count - ra->count, tsc * rb->n_cpus);
	s = rb->core ? &p->cc[*n] : &p->pc[*n];
	snprintf(s->state, sizeof(s->state), "%s", rb->state);
	s->ratio = ratio;
	(*n)++;
	if (!rb->core && !isnan(ratio))
		accumulate(&p->pc_total, ratio);
}

static void res_figs(const struct vcp_pwr_snap *a, const struct vcp_pwr_snap *b,
		     struct vcp_pwr_figs *f)
{
	f->pmu_err = b->pmu_err ? b->pmu_err : a->pmu_err;
	for (size_t i = 0; i < b->n_res; i++) {
		const struct vcp_pwr_res *ra = res_in(a, &b->res[i]);
		struct vcp_pwr_pkg_figs *p = pkg_of(f, b->res[i].package);
		uint64_t tsc;

		if (!ra || !p || tsc_delta(a, b, p->package, &tsc) < 0)
			continue;
		res_one(ra, &b->res[i], p, tsc);
	}
	for (size_t i = 0; i < f->n_pkgs; i++)
		if (f->pkgs[i].pc_total > 1.0)
			f->pkgs[i].pc_total = 1.0;
}

/* ---- cpuidle (the OS view) ---- */

static const struct vcp_pwr_cpu *cpu_in(const struct vcp_pwr_snap *s, int cpu)
{
	for (size_t i = 0; i < s->n_cpus; i++)
		if (s->cpus[i].cpu == cpu)
			return &s->cpus[i];
	return NULL;
}

/* Did one of the CPU's cpuidle times go backwards (no figure then: a
 * 0 in its place would make an idle package look awake)? The first such
 * state in @why. */
static bool idle_backwards(const struct vcp_pwr_cpu *ca,
			   const struct vcp_pwr_cpu *cb,
			   const struct vcp_pwr_snap *b, unsigned int n_idle,
			   char *why, size_t len)
{
	for (unsigned int k = 0; k < n_idle; k++)
		if (cb->time_us[k] < ca->time_us[k]) {
			snprintf(
				why, len,
				"cpu%d/cpuidle/state%u/time went backwards (%" PRIu64
				" us after %" PRIu64 " us)",
				cb->cpu, k, cb->time_us[k], ca->time_us[k]);
			return true;
		}
	return false;
}

/* One CPU's idle time per state (us) into @acc; its non-POLL share. */
static double idle_cpu(const struct vcp_pwr_cpu *ca,
		       const struct vcp_pwr_cpu *cb,
		       const struct vcp_pwr_snap *b, unsigned int n_idle,
		       uint64_t wall_us, double *acc)
{
	uint64_t deep = 0;

	for (unsigned int k = 0; k < n_idle; k++) {
		uint64_t d = cb->time_us[k] - ca->time_us[k];

		acc[k] += vcp_ratio(d, wall_us);
		if (strcmp(b->idle_names[k], "POLL") != 0)
			deep += d;
	}
	return vcp_ratio(deep, wall_us);
}

/* A CPU with no cpuidle figure: counted, the first one's why kept. */
static void idle_bad(struct vcp_pwr_figs *f, const char *why)
{
	if (!f->n_idle_bad++)
		snprintf(f->idle_why, sizeof(f->idle_why), "%s", why);
}

static void idle_figs(const struct vcp_pwr_snap *a, const struct vcp_pwr_snap *b,
		      struct vcp_pwr_figs *f, uint64_t ns)
{
	unsigned int n_idle = a->n_idle < b->n_idle ? a->n_idle : b->n_idle;
	uint64_t wall_us = ns / 1000;

	f->cpuidle_err = b->cpuidle_err ? b->cpuidle_err : a->cpuidle_err;
	for (size_t i = 0; i < f->n_pkgs; i++) {
		struct vcp_pwr_pkg_figs *p = &f->pkgs[i];
		double acc[VCP_PWR_MAX_STATES] = { 0 }, sum = 0, min = NAN;
		char why[192];

		for (size_t c = 0; c < b->n_cpus; c++) {
			const struct vcp_pwr_cpu *cb = &b->cpus[c];
			const struct vcp_pwr_cpu *ca = cpu_in(a, cb->cpu);
			double share;

			if (cb->package != p->package || !n_idle || !wall_us)
				continue;
			if (!ca || ca->err || cb->err) {
				idle_bad(
					f,
					cb->err ?
						b->cpuidle_why :
					ca && ca->err ?
						a->cpuidle_why :
						"a CPU came online between the reads");
				continue;
			}
			if (idle_backwards(ca, cb, b, n_idle, why,
					   sizeof(why))) {
				idle_bad(f, why);
				continue;
			}
			share = idle_cpu(ca, cb, b, n_idle, wall_us, acc);
			sum += share;
			min = isnan(min) || share < min ? share : min;
			p->n_cpus++;
		}
		if (!p->n_cpus)
			continue;
		p->idle_min = min;
		p->idle_mean = sum / p->n_cpus;
		p->n_idle = n_idle;
		for (unsigned int k = 0; k < n_idle; k++) {
			snprintf(p->idle[k].state, sizeof(p->idle[k].state),
				 "%s", b->idle_names[k]);
			p->idle[k].ratio = acc[k] / p->n_cpus;
		}
	}
}

/* ---- uncore and the verdict ---- */

static void uncore_figs(const struct vcp_pwr_snap *b, struct vcp_pwr_pkg_figs *p)
{
	double sum = 0;
	unsigned int n = 0;

	for (size_t i = 0; i < b->n_uncore; i++) {
		const struct vcp_pwr_uncore *u = &b->uncore[i];

		if (u->package != p->package || !u->cur_khz)
			continue;
		sum += u->cur_khz / 1000.0;
		n++;
		if (u->min_khz && (isnan(p->uncore_min_mhz) ||
				   u->min_khz / 1000.0 < p->uncore_min_mhz))
			p->uncore_min_mhz = u->min_khz / 1000.0;
		if (u->max_khz && (isnan(p->uncore_max_mhz) ||
				   u->max_khz / 1000.0 > p->uncore_max_mhz))
			p->uncore_max_mhz = u->max_khz / 1000.0;
	}
	if (n)
		p->uncore_mhz = sum / n;
}

static void awake_fig(struct vcp_pwr_pkg_figs *p,
		      const struct vcp_pwr_thresholds *th)
{
	if (!isnan(p->pc_total)) {
		p->awake = p->pc_total < th->pc_asleep;
		p->awake_by = "package C-states";
	} else if (!isnan(p->idle_min)) {
		p->awake = p->idle_min < th->idle_asleep;
		p->awake_by = "cpuidle";
	}
}

/* The file that made each unavailable source so, from the later read
 * first. */
static void src_whys(const struct vcp_pwr_snap *a, const struct vcp_pwr_snap *b,
		     struct vcp_pwr_figs *f)
{
	const struct vcp_pwr_snap *s[2] = { b, a };

	for (int i = 1; i >= 0; i--) {
		for (size_t k = 0; f->energy_err && k < s[i]->n_zones; k++)
			if (s[i]->zones[k].why[0])
				memcpy(f->src_why[0], s[i]->zones[k].why,
				       sizeof(f->src_why[0]));
		if (f->pmu_err && s[i]->pmu_why[0])
			memcpy(f->src_why[1], s[i]->pmu_why,
			       sizeof(f->src_why[1]));
		if (f->cpuidle_err && s[i]->cpuidle_why[0])
			memcpy(f->src_why[2], s[i]->cpuidle_why,
			       sizeof(f->src_why[2]));
	}
	/* refused between the reads (wrap time, implausible watts) */
	if (f->energy_err && !f->src_why[0][0] && f->n_lacking)
		snprintf(f->src_why[0], sizeof(f->src_why[0]),
			 "zone %s: %.150s", f->lacking[0].id,
			 f->lacking[0].why);
}

int vcp_power_figures(const struct vcp_pwr_snap *a,
		      const struct vcp_pwr_snap *b,
		      const struct vcp_pwr_thresholds *th,
		      struct vcp_pwr_figs *ret)
{
	struct vcp_pwr_figs f = { .host_joules = NAN, .host_watts = NAN,
				  .psys_watts = NAN };
	uint64_t ns;

	if (b->t_ns <= a->t_ns)
		return -EINVAL;
	ns = b->t_ns - a->t_ns;
	if (list_pkgs(b, &f) < 0) {
		vcp_pwr_figs_clear(&f);
		return -ENOMEM;
	}
	f.interval_s = (double)ns / 1e9;
	if (energy_figs(a, b, &f, ns) < 0) {
		vcp_pwr_figs_clear(&f);
		return -ENOMEM;
	}
	res_figs(a, b, &f);
	idle_figs(a, b, &f, ns);
	src_whys(a, b, &f);
	for (size_t i = 0; i < f.n_pkgs; i++) {
		uncore_figs(b, &f.pkgs[i]);
		awake_fig(&f.pkgs[i], th);
		f.n_awake += f.pkgs[i].awake == 1;
	}
	*ret = f;
	return 0;
}

const char *vcp_power_why(const char *source, int err, char *buf, size_t len)
{
	switch (err) {
	case 0:
		return NULL;
	case -ENOENT:
		snprintf(buf, len, "%s: not on this host (a guest, or no driver)",
			 source);
		break;
	case -EACCES:
	case -EPERM:
		snprintf(buf, len, "%s: not root (the kernel lets only root read it)",
			 source);
		break;
	case -ERANGE:
		snprintf(buf, len, "%s: a counter went backwards with no known range",
			 source);
		break;
	case -VCP_ENOTREG:
		snprintf(buf, len, "%s: a file is not a regular file", source);
		break;
	default:
		snprintf(buf, len, "%s: %s", source, strerror(-err));
	}
	return buf;
}
