// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_powerread.c - powerread.c on the fixture trees of
 * tests/data/power/CASE/{t0,t1} (two reads 2 s apart; README there gives
 * the expected figures): a two-socket Intel host, a two-socket AMD host,
 * a guest, energy and counters unreadable (not root), zones that appear
 * and vanish, and errors injected through the ops seam.
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

#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "powerread.h"
#include "rdfile.h"

#define DIR VCP_SRCDIR "/tests/data/power/"
#define NEAR(a, b) assert_true(fabs((double)(a) - (double)(b)) < 1e-6)

static uint64_t clock_ns;

static uint64_t fixed_now(void *data)
{
	return clock_ns;
}

/* The errors to inject: a path suffix and its error; an event open. */
static const char *fail_suffix;
static int fail_err;
static const char *fail_text;	/* read as the file's text instead */
static const struct vcp_power_ops *inner;
static bool held;	/* keep files open as production does */

static int failing_read_line(void *data, const char *path, char *buf,
			     size_t len)
{
	size_t n = strlen(path), k = fail_suffix ? strlen(fail_suffix) : 0;

	if (k && n >= k && !strcmp(path + n - k, fail_suffix)) {
		if (!fail_text)
			return fail_err;
		snprintf(buf, len, "%s", fail_text);
		return 0;
	}
	return inner->read_line(data, path, buf, len);
}

static int failing_open(void *data, const char *pmu, const char *event,
			uint32_t type, uint64_t config, int cpu, int *ret)
{
	if (!fail_suffix && fail_err)
		return fail_err;
	return inner->open(data, pmu, event, type, config, cpu, ret);
}

/* Read CASE/t0 at 1 s and CASE/t1 at 3 s into *snaps and *ret. */
static void read_case(const char *name, struct vcp_pwr_snap *snaps,
		      struct vcp_pwr_figs *ret)
{
	struct vcp_pwr_thresholds th = VCP_PWR_THRESHOLDS_DEFAULT;

	for (int t = 0; t < 2; t++) {
		struct vcp_power_ops *fops, ops;
		struct vcp_power_reader *r;
		char root[512];

		snprintf(root, sizeof(root), DIR "%s/t%d", name, t);
		assert_int_equal(vcp_power_file_ops_new(root, &fops), 0);
		/* the fixture's own clock */
		assert_int_equal(fops->now_ns(fops->data),
				 (1 + 2 * (uint64_t)t) * 1000000000ull);
		inner = fops;
		ops = *fops;
		ops.now_ns = fixed_now;
		ops.read_line = failing_read_line;
		ops.open = failing_open;
		if (held) {
			ops.open_file = vcp_power_perf_ops.open_file;
			ops.read_fd = vcp_power_perf_ops.read_fd;
			ops.close_file = vcp_power_perf_ops.close_file;
		}
		assert_int_equal(vcp_power_reader_open(root, &ops, &r), 0);
		clock_ns = (1 + 2 * (uint64_t)t) * 1000000000ull;
		assert_int_equal(vcp_power_read(r, &snaps[t]), 0);
		vcp_power_reader_close(r);
		vcp_power_file_ops_free(fops);
	}
	assert_int_equal(vcp_power_figures(&snaps[0], &snaps[1], &th, ret), 0);
}

static void done(struct vcp_pwr_snap *s, struct vcp_pwr_figs *f)
{
	vcp_pwr_snap_clear(&s[0]);
	vcp_pwr_snap_clear(&s[1]);
	vcp_pwr_figs_clear(f);
	fail_suffix = NULL;
	fail_err = 0;
	fail_text = NULL;
}

static void test_intel(void **state)
{
	struct vcp_pwr_snap s[2];
	struct vcp_pwr_figs f;
	const struct vcp_pwr_pkg_figs *p0, *p1;

	read_case("intel-2s", s, &f);
	/* the mmio zone repeating package-0 is left out */
	assert_int_equal(s[1].n_zones, 4);
	assert_string_equal(s[1].zones[1].id, "intel-rapl:0:0");
	assert_string_equal(s[1].zones[1].name, "dram");
	assert_int_equal(s[1].zones[3].package, 1);
	assert_int_equal(s[1].n_res, 8);
	assert_int_equal(s[1].n_cpus, 16);
	assert_int_equal(s[1].n_idle, 4);
	assert_string_equal(s[1].idle_names[3], "C6");
	assert_int_equal(s[1].cpus[12].package, 1);
	assert_int_equal(s[1].cpus[13].usage[1], 13 + 900);
	assert_int_equal(f.n_pkgs, 2);
	p0 = &f.pkgs[0];
	p1 = &f.pkgs[1];
	NEAR(f.interval_s, 2.0);
	NEAR(p0->watts[VCP_ZONE_PACKAGE], 100.0);
	NEAR(p0->watts[VCP_ZONE_DRAM], 10.0);
	NEAR(p1->watts[VCP_ZONE_PACKAGE], 40.0);	/* across the wrap */
	NEAR(p1->watts[VCP_ZONE_DRAM], 4.0);
	NEAR(f.host_watts, 154.0);
	NEAR(f.host_joules, 308.0);
	assert_int_equal(f.energy_err, 0);
	assert_int_equal(f.pmu_err, 0);
	/* package C-states against the package's TSC */
	assert_int_equal(p0->n_pc, 2);
	assert_string_equal(p0->pc[0].state, "c2");
	NEAR(p0->pc[0].ratio, 0.01);
	NEAR(p0->pc[1].ratio, 0.80);
	NEAR(p1->pc[0].ratio, 0.05);
	NEAR(p1->pc[1].ratio, 0.0);
	/* core C-states: mean over the package's 4 cores */
	assert_int_equal(p0->n_cc, 2);
	assert_string_equal(p0->cc[1].state, "c6");
	NEAR(p0->cc[0].ratio, 0.05);
	NEAR(p0->cc[1].ratio, 0.90);
	NEAR(p1->cc[1].ratio, 0.30);
	/* cpuidle */
	NEAR(p0->idle_min, 0.95);
	NEAR(p0->idle[3].ratio, 0.85);
	NEAR(p1->idle_mean, 0.50);
	NEAR(p1->idle[0].ratio, 0.01);
	assert_int_equal(p0->n_cpus, 8);
	/* uncore */
	NEAR(p0->uncore_mhz, 800.0);
	NEAR(p1->uncore_mhz, 2200.0);
	NEAR(p1->uncore_max_mhz, 2500.0);
	/* awake by the figures */
	assert_int_equal(p0->awake, 0);
	assert_int_equal(p1->awake, 1);
	assert_string_equal(p1->awake_by, "package C-states");
	assert_int_equal(f.n_awake, 1);
	done(s, &f);
}

/* The cpuidle files kept open (pread) give the same figures; with a low
 * RLIMIT_NOFILE some are held and the rest read by path. */
static void test_held(void **state)
{
	struct vcp_pwr_snap s[2];
	struct vcp_pwr_figs f;
	struct rlimit old, low;

	held = true;
	read_case("intel-2s", s, &f);
	NEAR(f.pkgs[0].idle_min, 0.95);
	NEAR(f.pkgs[1].idle[3].ratio, 0.2);
	assert_int_equal(s[1].cpus[13].usage[1], 13 + 900);
	done(s, &f);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 300;	/* (300 - 128 - 22 counters) / 2 = 75 of 128 held */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	read_case("intel-2s", s, &f);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	NEAR(f.pkgs[0].idle_min, 0.95);
	NEAR(f.pkgs[1].idle_min, 0.5);
	assert_int_equal(s[1].cpus[15].usage[3], 15 + 100);
	held = false;
	done(s, &f);
}

static void test_amd(void **state)
{
	struct vcp_pwr_snap s[2];
	struct vcp_pwr_figs f;

	read_case("amd-2s", s, &f);
	assert_int_equal(f.n_pkgs, 2);
	NEAR(f.pkgs[0].watts[VCP_ZONE_PACKAGE], 60.0);
	NEAR(f.pkgs[0].watts[VCP_ZONE_CORE], 40.0);
	NEAR(f.pkgs[1].watts[VCP_ZONE_PACKAGE], 30.0);
	NEAR(f.pkgs[1].watts[VCP_ZONE_CORE], 15.0);
	assert_true(isnan(f.pkgs[0].watts[VCP_ZONE_DRAM]));
	NEAR(f.host_watts, 90.0);
	assert_int_equal(f.pmu_err, -ENOENT);
	assert_int_equal(f.pkgs[0].n_pc, 0);
	assert_true(isnan(f.pkgs[0].uncore_mhz));
	NEAR(f.pkgs[0].idle_min, 0.95);
	NEAR(f.pkgs[1].idle_min, 0.30);
	assert_int_equal(f.pkgs[0].awake, 0);
	assert_string_equal(f.pkgs[0].awake_by, "cpuidle");
	assert_int_equal(f.pkgs[1].awake, 1);
	done(s, &f);
}

static void test_guest(void **state)
{
	struct vcp_pwr_snap s[2];
	struct vcp_pwr_figs f;

	read_case("guest", s, &f);
	assert_int_equal(f.energy_err, -ENOENT);
	assert_int_equal(f.pmu_err, -ENOENT);
	assert_int_equal(f.cpuidle_err, 0);
	assert_true(isnan(f.host_watts));
	assert_int_equal(f.n_pkgs, 1);
	assert_int_equal(f.pkgs[0].n_cpus, 4);
	NEAR(f.pkgs[0].idle_mean, 0.5);
	NEAR(f.pkgs[0].idle[0].ratio, 0.05);
	assert_int_equal(f.pkgs[0].awake, 1);
	assert_string_equal(f.pkgs[0].awake_by, "cpuidle");
	done(s, &f);
}

static void test_noroot(void **state)
{
	struct vcp_pwr_snap s[2];
	struct vcp_pwr_figs f;

	read_case("noroot", s, &f);
	assert_int_equal(s[1].n_zones, 4);
	assert_int_equal(s[1].zones[0].err, -EACCES);
	assert_int_equal(f.energy_err, -EACCES);
	assert_int_equal(f.pkgs[0].energy_err, -EACCES);
	assert_true(isnan(f.pkgs[0].watts[VCP_ZONE_PACKAGE]));
	assert_true(isnan(f.host_watts));
	assert_int_equal(f.pmu_err, -EACCES);
	assert_int_equal(f.pkgs[0].n_pc, 0);
	/* cpuidle is readable by anyone */
	NEAR(f.pkgs[0].idle_min, 0.95);
	assert_int_equal(f.pkgs[0].awake, 0);
	assert_string_equal(f.pkgs[0].awake_by, "cpuidle");
	done(s, &f);
}

static void test_zones_change(void **state)
{
	struct vcp_pwr_snap s[2];
	struct vcp_pwr_figs f;

	read_case("zones-change", s, &f);
	assert_int_equal(s[0].n_zones, 2);
	assert_int_equal(s[1].n_zones, 2);
	assert_int_equal(f.n_changed, 2);
	NEAR(f.pkgs[0].watts[VCP_ZONE_PACKAGE], 10.0);
	assert_true(isnan(f.pkgs[0].watts[VCP_ZONE_DRAM]));
	assert_int_equal(f.pkgs[1].energy_err, -ENOENT);
	NEAR(f.host_watts, 10.0);
	assert_int_equal(f.cpuidle_err, -ENOENT);
	done(s, &f);
}

/* EACCES through the ops seam: one zone's energy_uj is root-only. */
static void test_injected(void **state)
{
	struct vcp_pwr_snap s[2];
	struct vcp_pwr_figs f;

	fail_suffix = "intel-rapl:1/energy_uj";
	fail_err = -EACCES;
	read_case("intel-2s", s, &f);
	assert_int_equal(s[1].zones[2].err, -EACCES);
	assert_int_equal(f.pkgs[1].energy_err, -EACCES);
	assert_true(isnan(f.pkgs[1].watts[VCP_ZONE_PACKAGE]));
	NEAR(f.pkgs[1].watts[VCP_ZONE_DRAM], 4.0);
	NEAR(f.pkgs[0].watts[VCP_ZONE_PACKAGE], 100.0);
	assert_int_equal(f.energy_err, 0);
	done(s, &f);

	/* perf_event_open refused (perf_event_paranoid, no CAP_PERFMON) */
	fail_err = -EPERM;
	read_case("intel-2s", s, &f);
	assert_int_equal(f.pmu_err, -EPERM);
	assert_int_equal(s[1].n_res, 0);
	assert_int_equal(f.pkgs[0].n_pc, 0);
	assert_string_equal(f.pkgs[0].awake_by, "cpuidle");
	NEAR(f.host_watts, 154.0);
	done(s, &f);
}

/* A counter file is digits only: strtoull() alone takes "-5" as 2^64-5. */
static void test_not_digits(void **state)
{
	static const char *const bad[] = { "-5", " 5", "+5", "5x", "" };
	struct vcp_pwr_snap s[2];
	struct vcp_pwr_figs f;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fail_suffix = "intel-rapl:1/energy_uj";
		fail_text = bad[i];
		read_case("intel-2s", s, &f);
		assert_int_equal(s[1].zones[2].err, -EINVAL);
		assert_true(isnan(f.pkgs[1].watts[VCP_ZONE_PACKAGE]));
		NEAR(f.pkgs[0].watts[VCP_ZONE_PACKAGE], 100.0);
		done(s, &f);
	}
}

/* A wrong root is said to be wrong (it used to read as a host with no
 * counters at all, "a guest"); an empty directory is such a host. */
static void test_empty_root(void **state)
{
	struct vcp_power_reader *r;
	struct vcp_pwr_snap s;
	char tmp[] = "/tmp/vcp-pw-empty.XXXXXX";

	assert_int_equal(vcp_power_reader_open(DIR "no-such-dir", NULL, &r),
			 -ENOENT);
	assert_int_equal(vcp_power_reader_open(DIR "README", NULL, &r),
			 -ENOTDIR);
	assert_non_null(mkdtemp(tmp));
	assert_int_equal(vcp_power_reader_open(tmp, NULL, &r), 0);
	assert_int_equal(vcp_power_read(r, &s), 0);
	assert_int_equal(s.zones_err, -ENOENT);
	assert_int_equal(s.pmu_err, -ENOENT);
	assert_int_equal(s.cpuidle_err, -ENOENT);
	assert_int_equal(s.n_zones + s.n_res + s.n_cpus + s.n_uncore, 0);
	vcp_pwr_snap_clear(&s);
	vcp_power_reader_close(r);
	rmdir(tmp);
}

/* A zone with an unreadable or implausible range or reading is refused
 * and named, never summed as 0 or as garbage. */
static void test_zone_garbage(void **state)
{
	static const struct {
		const char *file, *text, *why;
		int err;
	} cases[] = {
		{ "intel-rapl:1/max_energy_range_uj", "x",
		  "class/powercap/intel-rapl:1/max_energy_range_uj: not a counter",
		  -EINVAL },
		{ "intel-rapl:1/max_energy_range_uj", "0",
		  "class/powercap/intel-rapl:1/max_energy_range_uj: 0 is no range",
		  -ERANGE },
		{ "intel-rapl:1/energy_uj", "300000000000",
		  "class/powercap/intel-rapl:1/energy_uj: 300000000000 is above the counter's range (max_energy_range_uj 262143328850)",
		  -ERANGE },
		{ "intel-rapl:1/energy_uj", "18446744073709551615",
		  "class/powercap/intel-rapl:1/energy_uj: 18446744073709551615 is above",
		  -ERANGE },
		{ "intel-rapl:1/energy_uj", "18446744073709551616",
		  "class/powercap/intel-rapl:1/energy_uj: not a counter",
		  -EINVAL },
		{ "intel-rapl:1/energy_uj", "-5",
		  "class/powercap/intel-rapl:1/energy_uj: not a counter",
		  -EINVAL },
	};
	struct vcp_pwr_snap s[2];
	struct vcp_pwr_figs f;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fail_suffix = cases[i].file;
		fail_text = cases[i].text;
		read_case("intel-2s", s, &f);
		assert_int_equal(s[1].zones[2].err, cases[i].err);
		assert_non_null(strstr(s[1].zones[2].why, cases[i].why));
		assert_true(isnan(f.pkgs[1].watts[VCP_ZONE_PACKAGE]));
		/* the total says it lacks package-1 */
		NEAR(f.host_watts, 114.0);
		assert_int_equal(f.n_lacking, 1);
		assert_string_equal(f.lacking[0].id, "intel-rapl:1");
		done(s, &f);
	}
}

/* A copy of CASE/t@t in a temporary directory, with @file (relative) a
 * FIFO; the copy's path in @ret. */
static void fifo_copy(const char *name, int t, const char *file, char *ret,
		      size_t len)
{
	char cmd[1024];

	snprintf(ret, len, "/tmp/vcp-pw-fifo.%d", (int)getpid());
	snprintf(cmd, sizeof(cmd),
		 "rm -rf %s && cp -r " DIR
		 "%s/t%d %s && rm -f %s/%s && mkfifo %s/%s",
		 ret, name, t, ret, ret, file, ret, file);
	assert_int_equal(system(cmd), 0);
}

static void rm_copy(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* FIFOs in the tree: the read does not block, and names the file. */
static void test_fifo(void **state)
{
	struct vcp_power_ops *fops;
	struct vcp_power_reader *r;
	struct vcp_pwr_snap s;
	char root[256];

	fifo_copy("intel-2s", 1, "class/powercap/intel-rapl:1/energy_uj", root,
		  sizeof(root));
	assert_int_equal(vcp_power_file_ops_new(root, &fops), 0);
	assert_int_equal(vcp_power_reader_open(root, fops, &r), 0);
	assert_int_equal(vcp_power_read(r, &s), 0);
	assert_int_equal(s.zones[2].err, -VCP_ENOTREG);
	assert_string_equal(
		s.zones[2].why,
		"class/powercap/intel-rapl:1/energy_uj: not a regular file (a FIFO)");
	vcp_pwr_snap_clear(&s);
	vcp_power_reader_close(r);
	vcp_power_file_ops_free(fops);
	rm_copy(root);

	/* a cpuidle file, read as production does (kept open, pread) */
	fifo_copy("intel-2s", 1, "devices/system/cpu/cpu3/cpuidle/state1/time",
		  root, sizeof(root));
	assert_int_equal(vcp_power_reader_open(root, NULL, &r), 0);
	assert_int_equal(vcp_power_read(r, &s), 0);
	assert_int_equal(s.cpus[3].err, -VCP_ENOTREG);
	assert_int_equal(s.cpus[2].err, 0);
	assert_string_equal(
		s.cpuidle_why,
		"devices/system/cpu/cpu3/cpuidle/state1/time: not a regular file (a FIFO)");
	vcp_pwr_snap_clear(&s);
	vcp_power_reader_close(r);
	rm_copy(root);

	/* a source's own file: the source is unavailable, the file named */
	fifo_copy("intel-2s", 1, "devices/system/cpu/online", root,
		  sizeof(root));
	assert_int_equal(vcp_power_reader_open(root, NULL, &r), 0);
	assert_int_equal(vcp_power_read(r, &s), 0);
	assert_int_equal(s.cpuidle_err, -VCP_ENOTREG);
	assert_string_equal(
		s.cpuidle_why,
		"devices/system/cpu/online: not a regular file (a FIFO)");
	vcp_pwr_snap_clear(&s);
	vcp_power_reader_close(r);
	rm_copy(root);
	fifo_copy("intel-2s", 1, "bus/event_source/devices/cstate_pkg/cpumask",
		  root, sizeof(root));
	assert_int_equal(vcp_power_file_ops_new(root, &fops), 0);
	assert_int_equal(vcp_power_reader_open(root, fops, &r), 0);
	assert_int_equal(vcp_power_read(r, &s), 0);
	assert_int_equal(s.pmu_err, -VCP_ENOTREG);
	assert_string_equal(
		s.pmu_why,
		"bus/event_source/devices/cstate_pkg/cpumask: not a regular file (a FIFO)");
	vcp_pwr_snap_clear(&s);
	vcp_power_reader_close(r);
	vcp_power_file_ops_free(fops);
	rm_copy(root);
}

/* The real-sysfs path (files kept open, pread) parses as the fixture
 * path does: "-5" is refused there too (it read as 2^64-5). */
static void test_held_not_digits(void **state)
{
	struct vcp_power_reader *r;
	struct vcp_pwr_snap s;
	char root[256], cmd[600];

	fifo_copy("intel-2s", 1, "vcpack-no-such-file", root, sizeof(root));
	snprintf(cmd, sizeof(cmd),
		 "echo -5 >%s/devices/system/cpu/cpu3/cpuidle/state1/time",
		 root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(vcp_power_reader_open(root, NULL, &r), 0);
	assert_int_equal(vcp_power_read(r, &s), 0);
	assert_int_equal(s.cpus[3].err, -EINVAL);
	assert_non_null(strstr(
		s.cpuidle_why,
		"cpu3/cpuidle/state1/time: not a counter (digits only, at most 2^64-1): '-5'"));
	vcp_pwr_snap_clear(&s);
	vcp_power_reader_close(r);
	rm_copy(root);
}

/* A fixture clock that is no clock ("-5" wrapped to 2^64-5) is refused
 * and named. */
static void test_bad_clock(void **state)
{
	struct vcp_power_ops *fops;
	struct vcp_power_reader *r;
	struct vcp_pwr_snap s;
	char root[256], cmd[600];

	fifo_copy("intel-2s", 1, "vcpack-no-such-file", root, sizeof(root));
	snprintf(cmd, sizeof(cmd), "echo -5 >%s/vcpack-counters/clock_ns",
		 root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(vcp_power_file_ops_new(root, &fops), 0);
	assert_int_equal(vcp_power_reader_open(root, fops, &r), 0);
	assert_int_equal(vcp_power_read(r, &s), -EINVAL);
	assert_non_null(fops->clock_why(fops->data));
	assert_non_null(strstr(
		fops->clock_why(fops->data),
		"vcpack-counters/clock_ns: not a clock (nanoseconds, 1 to 2^63-1): '-5'"));
	vcp_power_reader_close(r);
	vcp_power_file_ops_free(fops);
	rm_copy(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel),
		cmocka_unit_test(test_held),
		cmocka_unit_test(test_amd),
		cmocka_unit_test(test_guest),
		cmocka_unit_test(test_noroot),
		cmocka_unit_test(test_zones_change),
		cmocka_unit_test(test_injected),
		cmocka_unit_test(test_not_digits),
		cmocka_unit_test(test_empty_root),
		cmocka_unit_test(test_zone_garbage),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_held_not_digits),
		cmocka_unit_test(test_bad_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
