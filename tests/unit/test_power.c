// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_power.c - power.c's arithmetic on hand-made snapshots with known
 * answers: counter deltas and wrap, rates, zone kinds, watts per package
 * and host, residency against the TSC, cpuidle shares, awake by figures,
 * zones that appear or vanish, unreadable zones reported as such.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "power.h"

#define SEC 1000000000ull
#define NEAR(a, b) assert_true(fabs((double)(a) - (double)(b)) < 1e-9)

static void test_delta(void **state)
{
	uint64_t d = 7;

	assert_int_equal(vcp_counter_delta(100, 250, 0, &d), 0);
	assert_int_equal(d, 150);
	/* wraps at max_energy_range_uj */
	assert_int_equal(vcp_counter_delta(262143328850ull - 1000, 500,
					   262143328850ull, &d), 0);
	assert_int_equal(d, 1500);
	/* backwards without a range: refused, output untouched */
	d = 7;
	assert_int_equal(vcp_counter_delta(500, 100, 0, &d), -ERANGE);
	assert_int_equal(d, 7);
	assert_int_equal(vcp_counter_delta(500, 100, 400, &d), -ERANGE);
	assert_int_equal(d, 7);
	NEAR(vcp_rate(3000000, SEC / 2), 6000000.0);
	assert_true(isnan(vcp_rate(1, 0)));
	NEAR(vcp_ratio(1, 4), 0.25);
	NEAR(vcp_ratio(5, 4), 1.0);
	assert_true(isnan(vcp_ratio(1, 0)));
}

static void test_kinds(void **state)
{
	assert_int_equal(vcp_zone_kind_of("package-0"), VCP_ZONE_PACKAGE);
	assert_int_equal(vcp_zone_kind_of("package-1-die-0"), VCP_ZONE_PACKAGE);
	assert_int_equal(vcp_zone_kind_of("dram"), VCP_ZONE_DRAM);
	assert_int_equal(vcp_zone_kind_of("core"), VCP_ZONE_CORE);
	assert_int_equal(vcp_zone_kind_of("uncore"), VCP_ZONE_UNCORE);
	assert_int_equal(vcp_zone_kind_of("psys"), VCP_ZONE_PSYS);
	assert_int_equal(vcp_zone_kind_of("gpu"), VCP_ZONE_OTHER);
	assert_string_equal(vcp_zone_kind_name(VCP_ZONE_DRAM), "dram");
}

static struct vcp_pwr_zone zone(const char *id, const char *name, int pkg,
				uint64_t uj, uint64_t max, int err)
{
	struct vcp_pwr_zone z = { .package = pkg, .energy_uj = uj,
				  .max_uj = max, .err = err };

	snprintf(z.id, sizeof(z.id), "%s", id);
	snprintf(z.name, sizeof(z.name), "%s", name);
	z.kind = vcp_zone_kind_of(name);
	return z;
}

#define MAXR 262143328850ull

/* Two packages with package and dram zones; @scale multiplies energy. */
static void two_pkg(struct vcp_pwr_snap *s, uint64_t t, uint64_t e0,
		    uint64_t e1, uint64_t d0, uint64_t d1)
{
	memset(s, 0, sizeof(*s));
	s->t_ns = t;
	s->zones = calloc(5, sizeof(*s->zones));
	s->zones[s->n_zones++] = zone("intel-rapl:0", "package-0", 0, e0, MAXR, 0);
	s->zones[s->n_zones++] = zone("intel-rapl:0:0", "dram", 0, d0, MAXR, 0);
	s->zones[s->n_zones++] = zone("intel-rapl:1", "package-1", 1, e1, MAXR, 0);
	s->zones[s->n_zones++] = zone("intel-rapl:1:0", "dram", 1, d1, MAXR, 0);
	s->pmu_err = -ENOENT;
	s->cpuidle_err = -ENOENT;
}

static void test_watts(void **state)
{
	struct vcp_pwr_snap a, b;
	struct vcp_pwr_figs f;
	struct vcp_pwr_thresholds th = VCP_PWR_THRESHOLDS_DEFAULT;

	/* 2 s: package 0 uses 180 J (90 W), package 1 wraps: 60 J (30 W) */
	two_pkg(&a, 5 * SEC, 1000000, MAXR - 10000000, 20000000, 0);
	two_pkg(&b, 7 * SEC, 181000000, 50000000, 40000000, 8000000);
	assert_int_equal(vcp_power_figures(&a, &b, &th, &f), 0);
	NEAR(f.interval_s, 2.0);
	assert_int_equal(f.n_pkgs, 2);
	assert_int_equal(f.pkgs[0].package, 0);
	NEAR(f.pkgs[0].joules[VCP_ZONE_PACKAGE], 180.0);
	NEAR(f.pkgs[0].watts[VCP_ZONE_PACKAGE], 90.0);
	NEAR(f.pkgs[0].watts[VCP_ZONE_DRAM], 10.0);
	assert_true(isnan(f.pkgs[0].watts[VCP_ZONE_CORE]));
	NEAR(f.pkgs[1].watts[VCP_ZONE_PACKAGE], 30.0);
	NEAR(f.pkgs[1].watts[VCP_ZONE_DRAM], 4.0);
	assert_int_equal(f.pkgs[0].energy_err, 0);
	NEAR(f.host_joules, 180 + 20 + 60 + 8);
	NEAR(f.host_watts, 134.0);
	assert_int_equal(f.energy_err, 0);
	assert_int_equal(f.n_changed, 0);
	/* no counters: no verdict, and errors carried through */
	assert_int_equal(f.pkgs[0].awake, -1);
	assert_int_equal(f.pmu_err, -ENOENT);
	assert_int_equal(f.cpuidle_err, -ENOENT);
	vcp_pwr_figs_clear(&f);
	/* b not after a */
	assert_int_equal(vcp_power_figures(&b, &a, &th, &f), -EINVAL);
	vcp_pwr_snap_clear(&a);
	vcp_pwr_snap_clear(&b);
}

static void test_unreadable(void **state)
{
	struct vcp_pwr_snap a, b;
	struct vcp_pwr_figs f;
	struct vcp_pwr_thresholds th = VCP_PWR_THRESHOLDS_DEFAULT;
	char buf[128];

	two_pkg(&a, SEC, 0, 0, 0, 0);
	two_pkg(&b, 2 * SEC, 0, 0, 0, 0);
	for (size_t i = 0; i < 4; i++)
		a.zones[i].err = b.zones[i].err = -EACCES;
	assert_int_equal(vcp_power_figures(&a, &b, &th, &f), 0);
	/* unreadable is not zero */
	assert_true(isnan(f.pkgs[0].watts[VCP_ZONE_PACKAGE]));
	assert_true(isnan(f.host_watts));
	assert_int_equal(f.energy_err, -EACCES);
	assert_int_equal(f.pkgs[1].energy_err, -EACCES);
	assert_string_equal(vcp_power_why("energy", f.energy_err, buf, sizeof(buf)),
			    "energy: not root (the kernel lets only root read it)");
	assert_null(vcp_power_why("energy", 0, buf, sizeof(buf)));
	vcp_pwr_figs_clear(&f);
	vcp_pwr_snap_clear(&a);
	vcp_pwr_snap_clear(&b);

	/* only package 1 unreadable: package 0 still measured */
	two_pkg(&a, SEC, 0, 0, 0, 0);
	two_pkg(&b, 2 * SEC, 50000000, 0, 0, 0);
	b.zones[2].err = -EACCES;
	assert_int_equal(vcp_power_figures(&a, &b, &th, &f), 0);
	NEAR(f.pkgs[0].watts[VCP_ZONE_PACKAGE], 50.0);
	assert_int_equal(f.pkgs[1].energy_err, -EACCES);
	assert_true(isnan(f.pkgs[1].watts[VCP_ZONE_PACKAGE]));
	assert_int_equal(f.energy_err, 0);
	vcp_pwr_figs_clear(&f);
	vcp_pwr_snap_clear(&a);
	vcp_pwr_snap_clear(&b);
}

static void test_zone_changes(void **state)
{
	struct vcp_pwr_snap a, b;
	struct vcp_pwr_figs f;
	struct vcp_pwr_thresholds th = VCP_PWR_THRESHOLDS_DEFAULT;

	/* package 1's dram zone vanishes; a psys zone appears */
	two_pkg(&a, SEC, 0, 0, 0, 0);
	two_pkg(&b, 2 * SEC, 10000000, 20000000, 1000000, 0);
	b.zones[3] = zone("intel-rapl:2", "psys", -1, 5, MAXR, 0);
	assert_int_equal(vcp_power_figures(&a, &b, &th, &f), 0);
	assert_int_equal(f.n_changed, 2);
	NEAR(f.pkgs[1].watts[VCP_ZONE_PACKAGE], 20.0);
	assert_true(isnan(f.pkgs[1].watts[VCP_ZONE_DRAM]));
	assert_true(isnan(f.psys_watts));
	NEAR(f.host_watts, 31.0);
	vcp_pwr_figs_clear(&f);
	vcp_pwr_snap_clear(&a);
	vcp_pwr_snap_clear(&b);

	/* no zones at all (a guest) */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.t_ns = SEC;
	b.t_ns = 2 * SEC;
	a.zones_err = b.zones_err = -ENOENT;
	assert_int_equal(vcp_power_figures(&a, &b, &th, &f), 0);
	assert_int_equal(f.n_pkgs, 0);
	assert_int_equal(f.energy_err, -ENOENT);
	assert_true(isnan(f.host_watts));
	vcp_pwr_figs_clear(&f);
}

static struct vcp_pwr_res res(int pkg, bool core, const char *st,
			      uint64_t count, unsigned int n)
{
	struct vcp_pwr_res r = { .package = pkg, .core = core, .count = count,
				 .n_cpus = n };

	snprintf(r.state, sizeof(r.state), "%s", st);
	return r;
}

/* One snapshot of cstate counters: package 0 asleep 80% in PC6,
 * package 1 busy (PC6 5%), with cores of package 1 in CC6 30%. */
static void cstates(struct vcp_pwr_snap *s, uint64_t t, unsigned int k)
{
	memset(s, 0, sizeof(*s));
	s->t_ns = t;
	s->res = calloc(6, sizeof(*s->res));
	s->tsc = calloc(2, sizeof(*s->tsc));
	s->res[s->n_res++] = res(0, false, "c2", 10000 * k, 1);
	s->res[s->n_res++] = res(0, false, "c6", 800000 * k, 1);
	s->res[s->n_res++] = res(0, true, "c6", 4 * 900000 * k, 4);
	s->res[s->n_res++] = res(1, false, "c2", 0, 1);
	s->res[s->n_res++] = res(1, false, "c6", 50000 * k, 1);
	s->res[s->n_res++] = res(1, true, "c6", 4 * 300000 * k, 4);
	s->tsc[s->n_tsc++] = (struct vcp_pwr_tsc){ 0, 1000000 * k, 0 };
	s->tsc[s->n_tsc++] = (struct vcp_pwr_tsc){ 1, 1000000 * k, 0 };
	s->zones_err = -ENOENT;
	s->cpuidle_err = -ENOENT;
}

static void test_residency(void **state)
{
	struct vcp_pwr_snap a, b;
	struct vcp_pwr_figs f;
	struct vcp_pwr_thresholds th = VCP_PWR_THRESHOLDS_DEFAULT;

	cstates(&a, SEC, 1);
	cstates(&b, 2 * SEC, 3);
	assert_int_equal(vcp_power_figures(&a, &b, &th, &f), 0);
	assert_int_equal(f.n_pkgs, 2);
	assert_int_equal(f.pkgs[0].n_pc, 2);
	assert_string_equal(f.pkgs[0].pc[1].state, "c6");
	NEAR(f.pkgs[0].pc[0].ratio, 0.01);
	NEAR(f.pkgs[0].pc[1].ratio, 0.8);
	NEAR(f.pkgs[0].pc_total, 0.81);
	assert_int_equal(f.pkgs[0].n_cc, 1);
	NEAR(f.pkgs[0].cc[0].ratio, 0.9);
	NEAR(f.pkgs[1].pc[1].ratio, 0.05);
	NEAR(f.pkgs[1].cc[0].ratio, 0.3);
	assert_int_equal(f.pkgs[0].awake, 0);
	assert_string_equal(f.pkgs[0].awake_by, "package C-states");
	assert_int_equal(f.pkgs[1].awake, 1);
	assert_int_equal(f.n_awake, 1);
	assert_true(isnan(f.host_watts));
	vcp_pwr_figs_clear(&f);

	/* no TSC reference for package 1: its residency is unknown */
	b.tsc[1].err = -EACCES;
	assert_int_equal(vcp_power_figures(&a, &b, &th, &f), 0);
	assert_int_equal(f.pkgs[1].n_pc, 0);
	assert_true(isnan(f.pkgs[1].pc_total));
	assert_int_equal(f.pkgs[1].awake, -1);
	assert_int_equal(f.n_awake, 0);
	vcp_pwr_figs_clear(&f);
	vcp_pwr_snap_clear(&a);
	vcp_pwr_snap_clear(&b);
}

/* Four CPUs, two per package, states POLL C1 C6; cpu 3 busy. */
static void idle(struct vcp_pwr_snap *s, uint64_t t, unsigned int k)
{
	static const char *names[] = { "POLL", "C1", "C6" };

	memset(s, 0, sizeof(*s));
	s->t_ns = t;
	s->n_idle = 3;
	for (int i = 0; i < 3; i++)
		strcpy(s->idle_names[i], names[i]);
	s->cpus = calloc(4, sizeof(*s->cpus));
	for (int c = 0; c < 4; c++) {
		struct vcp_pwr_cpu *p = &s->cpus[s->n_cpus++];

		p->cpu = c;
		p->package = c / 2;
		/* per 1 s step: POLL 10 ms, C1 50 ms, C6 900 ms (cpu 3: 100 ms) */
		p->time_us[0] = 10000 * k;
		p->time_us[1] = 50000 * k;
		p->time_us[2] = (c == 3 ? 100000 : 900000) * (uint64_t)k;
		p->usage[2] = 100 * k;
	}
	s->zones_err = s->pmu_err = -ENOENT;
}

static void test_cpuidle(void **state)
{
	struct vcp_pwr_snap a, b;
	struct vcp_pwr_figs f;
	struct vcp_pwr_thresholds th = VCP_PWR_THRESHOLDS_DEFAULT;

	idle(&a, 10 * SEC, 10);
	idle(&b, 12 * SEC, 12);
	assert_int_equal(vcp_power_figures(&a, &b, &th, &f), 0);
	assert_int_equal(f.cpuidle_err, 0);
	assert_int_equal(f.pkgs[0].n_cpus, 2);
	assert_int_equal(f.pkgs[0].n_idle, 3);
	assert_string_equal(f.pkgs[0].idle[2].state, "C6");
	NEAR(f.pkgs[0].idle[0].ratio, 0.01);
	NEAR(f.pkgs[0].idle[2].ratio, 0.9);
	/* POLL does not count as idle for the package */
	NEAR(f.pkgs[0].idle_min, 0.95);
	NEAR(f.pkgs[1].idle_min, 0.15);
	NEAR(f.pkgs[1].idle_mean, 0.55);
	NEAR(f.pkgs[1].idle[2].ratio, 0.5);
	assert_int_equal(f.pkgs[0].awake, 0);
	assert_string_equal(f.pkgs[0].awake_by, "cpuidle");
	assert_int_equal(f.pkgs[1].awake, 1);
	assert_int_equal(f.n_awake, 1);
	vcp_pwr_figs_clear(&f);

	/* package C-states win over cpuidle when both are there */
	b.res = calloc(1, sizeof(*b.res));
	a.res = calloc(1, sizeof(*a.res));
	b.tsc = calloc(1, sizeof(*b.tsc));
	a.tsc = calloc(1, sizeof(*a.tsc));
	a.res[0] = res(0, false, "c6", 0, 1);
	b.res[0] = res(0, false, "c6", 100, 1);
	a.n_res = b.n_res = a.n_tsc = b.n_tsc = 1;
	a.tsc[0] = (struct vcp_pwr_tsc){ 0, 0, 0 };
	b.tsc[0] = (struct vcp_pwr_tsc){ 0, 1000, 0 };
	assert_int_equal(vcp_power_figures(&a, &b, &th, &f), 0);
	NEAR(f.pkgs[0].pc_total, 0.1);
	assert_int_equal(f.pkgs[0].awake, 1);
	assert_string_equal(f.pkgs[0].awake_by, "package C-states");
	vcp_pwr_figs_clear(&f);
	vcp_pwr_snap_clear(&a);
	vcp_pwr_snap_clear(&b);
}

/* A backward cpuidle count is no figure for that CPU (a 0 in its place
 * made an idle package look awake), and is said. */
static void test_cpuidle_backwards(void **state)
{
	struct vcp_pwr_snap a, b;
	struct vcp_pwr_figs f;
	struct vcp_pwr_thresholds th = VCP_PWR_THRESHOLDS_DEFAULT;

	idle(&a, 10 * SEC, 10);
	idle(&b, 12 * SEC, 12);
	b.cpus[1].time_us[2] = 5; /* cpu 1's C6 went backwards */
	assert_int_equal(vcp_power_figures(&a, &b, &th, &f), 0);
	assert_int_equal(f.pkgs[0].n_cpus, 1);
	NEAR(f.pkgs[0].idle_min, 0.95);
	assert_int_equal(f.pkgs[0].awake, 0); /* still asleep */
	assert_int_equal(f.n_idle_bad, 1);
	assert_non_null(
		strstr(f.idle_why, "cpu1/cpuidle/state2/time went backwards"));
	vcp_pwr_figs_clear(&f);
	/* a CPU whose files failed: left out and said, with the reader's why */
	b.cpus[1].time_us[2] = a.cpus[1].time_us[2];
	b.cpus[0].err = -EIO;
	snprintf(b.cpuidle_why, sizeof(b.cpuidle_why),
		 "cpu0/cpuidle/state1/time: x");
	assert_int_equal(vcp_power_figures(&a, &b, &th, &f), 0);
	assert_int_equal(f.pkgs[0].n_cpus, 1);
	assert_int_equal(f.n_idle_bad, 1);
	assert_string_equal(f.idle_why, "cpu0/cpuidle/state1/time: x");
	vcp_pwr_figs_clear(&f);
	vcp_pwr_snap_clear(&a);
	vcp_pwr_snap_clear(&b);
}

/* The host's total names each zone it lacks, and why; implausible
 * deltas (more than a zone draws, or reads further apart than the
 * counter's wrap time) are refused, not summed. */
static void test_lacking(void **state)
{
	struct vcp_pwr_snap a, b;
	struct vcp_pwr_figs f;
	struct vcp_pwr_thresholds th = VCP_PWR_THRESHOLDS_DEFAULT;

	two_pkg(&a, SEC, 0, 0, 0, 0);
	two_pkg(&b, 2 * SEC, 100000000, 50000000, 10000000, 4000000);
	b.zones[2].err = -EINVAL;
	snprintf(b.zones[2].why, sizeof(b.zones[2].why),
		 "class/powercap/intel-rapl:1/energy_uj: garbage");
	assert_int_equal(vcp_power_figures(&a, &b, &th, &f), 0);
	NEAR(f.host_watts, 114.0);
	assert_int_equal(f.n_lacking, 1);
	assert_string_equal(f.lacking[0].id, "intel-rapl:1");
	assert_string_equal(f.lacking[0].name, "package-1");
	assert_string_equal(f.lacking[0].why,
			    "class/powercap/intel-rapl:1/energy_uj: garbage");
	vcp_pwr_figs_clear(&f);
	vcp_pwr_snap_clear(&a);
	vcp_pwr_snap_clear(&b);

	/* 5,700 J in 2 s: 2,850 W from one zone is a bad reading */
	two_pkg(&a, SEC, 0, 0, 0, 0);
	two_pkg(&b, 3 * SEC, 5700000000ull, 0, 0, 0);
	assert_int_equal(vcp_power_figures(&a, &b, &th, &f), 0);
	assert_true(isnan(f.pkgs[0].watts[VCP_ZONE_PACKAGE]));
	assert_int_equal(f.n_lacking, 1);
	assert_non_null(strstr(f.lacking[0].why, "more than a zone draws"));
	NEAR(f.host_watts, 0.0);
	vcp_pwr_figs_clear(&f);
	vcp_pwr_snap_clear(&a);
	vcp_pwr_snap_clear(&b);

	/* reads 300 s apart on a 262 kJ counter: it may have wrapped twice */
	NEAR(vcp_pwr_wrap_s(MAXR), 262.14332885);
	two_pkg(&a, SEC, 0, 0, 0, 0);
	two_pkg(&b, 301 * SEC, 1000, 1000, 1000, 1000);
	assert_int_equal(vcp_power_figures(&a, &b, &th, &f), 0);
	assert_true(isnan(f.host_watts));
	assert_int_equal(f.n_lacking, 4);
	assert_non_null(
		strstr(f.lacking[0].why, "may have wrapped more than once"));
	assert_int_equal(f.energy_err, -ERANGE);
	/* the energy source says why it has no figure, a zone named */
	assert_non_null(strstr(f.src_why[0],
			       "zone intel-rapl:0: the reads are 300 s apart"));
	vcp_pwr_figs_clear(&f);
	vcp_pwr_snap_clear(&a);
	vcp_pwr_snap_clear(&b);
}

static void test_uncore(void **state)
{
	struct vcp_pwr_snap a = { .t_ns = 1 }, b = { .t_ns = 2 };
	struct vcp_pwr_uncore u[] = {
		{ 0, 0, 2400000, 800000, 2500000 },
		{ 0, 1, 1600000, 800000, 2500000 },
		{ 1, 0, 800000, 800000, 2200000 },
	};
	struct vcp_pwr_figs f;
	struct vcp_pwr_thresholds th = VCP_PWR_THRESHOLDS_DEFAULT;

	b.uncore = u;
	b.n_uncore = 3;
	assert_int_equal(vcp_power_figures(&a, &b, &th, &f), 0);
	assert_int_equal(f.n_pkgs, 2);
	NEAR(f.pkgs[0].uncore_mhz, 2000.0);
	NEAR(f.pkgs[0].uncore_min_mhz, 800.0);
	NEAR(f.pkgs[0].uncore_max_mhz, 2500.0);
	NEAR(f.pkgs[1].uncore_mhz, 800.0);
	vcp_pwr_figs_clear(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_watts),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_zone_changes),
		cmocka_unit_test(test_residency),
		cmocka_unit_test(test_cpuidle),
		cmocka_unit_test(test_uncore),
		cmocka_unit_test(test_cpuidle_backwards),
		cmocka_unit_test(test_lacking),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
