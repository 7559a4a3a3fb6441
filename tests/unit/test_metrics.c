// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_metrics.c - metrics.c: the Prometheus text for VMs (class, vCPUs,
 * cumulative run and wait seconds, wait ratio), the level, power figures
 * (NaN never printed, unreadable zones left out), label escaping, and
 * the textfile written by rename with no temporary left behind.
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
#include <dirent.h>
#include <unistd.h>

#include <cmocka.h>

#include "metrics.h"
#include "rdfile.h"
#include "metricspub.h"
#include "policy.h"
#include "virt.h"

static void has(const char *text, const char *line)
{
	char *want;
	const char *p = text;
	size_t n;

	assert_true(asprintf(&want, "%s\n", line) > 0);
	n = strlen(want);
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, want, n)) {
			free(want);
			return;
		}
	fail_msg("no line '%s' in:\n%s", line, text);
}

static void test_vms(void **state)
{
	struct vcp_policy pol;
	struct vcp_vm vms[2] = { 0 };
	uint64_t t0[] = { 1500000000, 500000000 }, d0[] = { 250000000, 0 };
	uint64_t t1[] = { 2000000000 }, d1[] = { 0 };
	struct vcp_vcpu_sample vs[] = {
		{ "web", 2, t0, d0 }, { "a\"b\\c", 1, t1, d1 },
	};
	struct vcp_sample s = { 0, vs, 2, true };
	struct vcp_metrics_in in = { .vms = vms, .n_vms = 2, .policy = &pol,
				     .sample = &s, .level = 2 };
	char *text;

	vcp_policy_defaults(&pol);
	vms[0].name = "web";
	vms[0].n_vcpus = 2;
	vms[0].managed = true;
	vms[0].has_tag = true;
	vms[0].tag.has_class = true;
	vms[0].tag.class = VCP_CLASS_PACK;
	vms[0].delay = 0.125;
	vms[1].name = "a\"b\\c";
	vms[1].n_vcpus = 1;
	vms[1].managed = false;
	vms[1].delay = -1;
	assert_int_equal(vcp_metrics_render(&in, &text), 0);
	has(text, "# TYPE vcpack_level gauge");
	has(text, "vcpack_level 2");
	has(text, "vcpack_vm_class{vm=\"web\",class=\"pack\"} 1");
	has(text, "vcpack_vm_class{vm=\"a\\\"b\\\\c\",class=\"untouched\"} 1");
	has(text, "vcpack_vm_vcpus{vm=\"web\"} 2");
	has(text, "# TYPE vcpack_vcpu_run_seconds_total counter");
	has(text, "vcpack_vcpu_run_seconds_total{vm=\"web\"} 2");
	has(text, "vcpack_vcpu_wait_seconds_total{vm=\"web\"} 0.25");
	has(text, "vcpack_vcpu_run_seconds_total{vm=\"a\\\"b\\\\c\"} 2");
	has(text, "vcpack_vcpu_wait_ratio{vm=\"web\"} 0.125");
	/* unknown delay: no sample; no power read: no power families */
	assert_null(strstr(text, "vcpack_vcpu_wait_ratio{vm=\"a"));
	assert_null(strstr(text, "vcpack_energy"));
	assert_null(strstr(text, "vcpack_power"));
	free(text);
	vcp_policy_clear(&pol);
}

static void test_power(void **state)
{
	struct vcp_pwr_zone z[] = {
		{ "intel-rapl:0", "package-0", VCP_ZONE_PACKAGE, 0, 5000000, 0,
		  0, "" },
		{ "intel-rapl:0:0", "dram", VCP_ZONE_DRAM, 0, 0, 0, -EACCES,
		  "" },
		{ "intel-rapl:1", "psys", VCP_ZONE_PSYS, -1, 7000000, 0, 0,
		  "" },
	};
	struct vcp_pwr_snap s = { .zones = z, .n_zones = 3, .pmu_err = -ENOENT,
				  .cpuidle_err = -ENOENT };
	struct vcp_pwr_pkg_figs p = { .package = 0, .awake = -1 };
	struct vcp_pwr_figs f = { .pkgs = &p, .n_pkgs = 1, .host_watts = NAN,
				  .n_awake = 0 };
	struct vcp_metrics_in in = { .level = -1, .snap = &s, .figs = &f };
	char *text;

	for (int k = 0; k < VCP_ZONE_N; k++)
		p.watts[k] = NAN;
	p.watts[VCP_ZONE_PACKAGE] = 42.5;
	p.uncore_mhz = NAN;
	assert_int_equal(vcp_metrics_render(&in, &text), 0);
	has(text, "vcpack_energy_joules_total{package=\"0\",zone=\"package\"} 5");
	has(text, "vcpack_energy_joules_total{zone=\"psys\"} 7");
	has(text, "vcpack_power_watts{package=\"0\",zone=\"package\"} 42.5");
	has(text, "vcpack_power_source_available{source=\"energy\"} 1");
	has(text, "vcpack_power_source_available{source=\"residency\"} 0");
	has(text, "vcpack_packages_awake 0");
	/* the unreadable dram zone, NaN figures, no level: not printed */
	assert_null(strstr(text, "zone=\"dram\""));
	assert_null(strstr(text, "NaN"));
	assert_null(strstr(text, "vcpack_host_power_watts"));
	assert_null(strstr(text, "vcpack_package_awake{"));
	assert_null(strstr(text, "vcpack_level"));
	free(text);
}

/* A wide host's packages: cpuidle per package for every one of 70, not
 * the first 64. */
static void test_cpuidle_packages(void **state)
{
	struct vcp_pwr_cpu c[70];
	struct vcp_pwr_snap s = { .cpus = c,
				  .n_cpus = 70,
				  .n_idle = 1,
				  .pmu_err = -ENOENT,
				  .zones_err = -ENOENT };
	struct vcp_metrics_in in = { .level = -1, .snap = &s };
	char *text;

	memset(c, 0, sizeof(c));
	for (int i = 0; i < 70; i++) {
		c[i].cpu = i;
		c[i].package = i;
		c[i].time_us[0] = 2000000;
		c[i].usage[0] = 7;
	}
	snprintf(s.idle_names[0], sizeof(s.idle_names[0]), "C6");
	assert_int_equal(vcp_metrics_render(&in, &text), 0);
	has(text,
	    "vcpack_cpuidle_residency_seconds_total{package=\"0\",state=\"C6\"} 2");
	has(text,
	    "vcpack_cpuidle_residency_seconds_total{package=\"69\",state=\"C6\"} 2");
	has(text,
	    "vcpack_cpuidle_entries_total{package=\"69\",state=\"C6\"} 7");
	free(text);
}

/* A CPU whose cpuidle files failed: its package's counters get no
 * sample (a smaller sum would read as a counter reset), and the CPUs
 * and zones that could not be read are named. */
static void test_unreadable(void **state)
{
	struct vcp_pwr_zone z[] = {
		{ "intel-rapl:1", "package-1", VCP_ZONE_PACKAGE, 1, 0, 0,
		  -VCP_ENOTREG,
		  "class/powercap/intel-rapl:1/energy_uj: not a regular file (a FIFO)" },
	};
	struct vcp_pwr_cpu c[3] = {
		{ .cpu = 0, .package = 0, .time_us = { 1000000 } },
		{ .cpu = 1, .package = 1, .time_us = { 2000000 } },
		{ .cpu = 2, .package = 1, .err = -VCP_ENOTREG },
	};
	struct vcp_pwr_snap s = { .zones = z,
				  .n_zones = 1,
				  .cpus = c,
				  .n_cpus = 3,
				  .n_idle = 1,
				  .pmu_err = -ENOENT };
	struct vcp_metrics_in in = { .level = -1, .snap = &s };
	char *text;

	strcpy(s.idle_names[0], "C1");
	strcpy(s.cpuidle_why,
	       "devices/system/cpu/cpu2/cpuidle/state0/time: not a regular file (a FIFO)");
	assert_int_equal(vcp_metrics_render(&in, &text), 0);
	has(text,
	    "vcpack_cpuidle_residency_seconds_total{package=\"0\",state=\"C1\"} 1");
	assert_null(strstr(
		text, "vcpack_cpuidle_residency_seconds_total{package=\"1\""));
	has(text,
	    "vcpack_cpuidle_cpus_unreadable{reason=\"devices/system/cpu/cpu2/cpuidle/state0/time: not a regular file (a FIFO)\"} 1");
	has(text,
	    "vcpack_power_zone_unreadable{zone=\"intel-rapl:1\",name=\"package-1\",reason=\"class/powercap/intel-rapl:1/energy_uj: not a regular file (a FIFO)\"} 1");
	free(text);
}

static void test_write(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char tdir[512], path[600], buf[64];
	struct dirent *d;
	int n = 0;
	FILE *f;
	DIR *dd;

	snprintf(tdir, sizeof(tdir), "%s/vcp-metrics-XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(tdir));
	assert_int_equal(vcp_metrics_write(tdir, "vcpack", "a 1\n"), 0);
	assert_int_equal(vcp_metrics_write(tdir, "vcpack", "b 2\n"), 0);
	snprintf(path, sizeof(path), "%s/vcpack.prom", tdir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "b 2\n");
	dd = opendir(tdir);
	while ((d = readdir(dd)))
		n += d->d_name[0] != '.';
	closedir(dd);
	assert_int_equal(n, 1);
	unlink(path);
	rmdir(tdir);
	assert_int_equal(vcp_metrics_write("/nonexistent-dir", "vcpack", "x"),
			 -ENOENT);
}

static char *slurp(const char *path)
{
	char *buf = calloc(1, 1 << 16);
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_true(fread(buf, 1, (1 << 16) - 1, f) > 0);
	fclose(f);
	return buf;
}

/* vcpackd's publisher on intel-2s: t0, t0 again (no time passed: no
 * watts), then t1 (a symlink swapped as time goes on); package 1's
 * counter wraps between t0 and t1 and its total keeps going up. */
static void test_pub(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char dir[512], link[600], path[600], *text;
	struct vcp_metrics_pub *p;

	snprintf(dir, sizeof(dir), "%s/vcp-pub-XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/pw", dir);
	snprintf(path, sizeof(path), "%s/vcpack.prom", dir);
	assert_int_equal(symlink(VCP_SRCDIR "/tests/data/power/intel-2s/t0",
				 link), 0);
	assert_int_equal(vcp_metrics_pub_new(dir, link, false, &p), 0);
	assert_int_equal(vcp_metrics_pub_sample(p, NULL), 0);
	assert_int_equal(vcp_metrics_pub_sample(p, NULL), 0);
	text = slurp(path);
	has(text, "vcpack_energy_joules_total{package=\"1\",zone=\"package\"} 262113.32885");
	assert_null(strstr(text, "vcpack_power_watts"));
	free(text);
	unlink(link);
	assert_int_equal(symlink(VCP_SRCDIR "/tests/data/power/intel-2s/t1",
				 link), 0);
	assert_int_equal(vcp_metrics_pub_sample(p, NULL), 0);
	text = slurp(path);
	/* 262113.32885 J + 80 J across the wrap (raw counter: 50 J) */
	has(text, "vcpack_energy_joules_total{package=\"1\",zone=\"package\"} 262193.32885");
	has(text, "vcpack_energy_joules_total{package=\"0\",zone=\"package\"} 300");
	has(text, "vcpack_power_watts{package=\"1\",zone=\"package\"} 40");
	free(text);
	vcp_metrics_pub_free(p);
	unlink(link);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(vcp_metrics_pub_new("/nonexistent-dir", NULL, true, &p),
			 -ENOENT);
}

/* vcpackd's energy totals across reads further apart than the
 * counter's wrap time (262 s here): it may have wrapped twice, so the
 * energy between is not counted (it used to be folded in as one wrap)
 * and the zone is named as unreadable for that read; the total does
 * not go down and counts on from the next read. */
static void test_pub_long_gap(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char dir[512], link[600], path[600], cmd[2048], *text;
	struct vcp_metrics_pub *p;

	snprintf(dir, sizeof(dir), "%s/vcp-pub-XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/pw", dir);
	snprintf(path, sizeof(path), "%s/vcpack.prom", dir);
	snprintf(
		cmd, sizeof(cmd),
		"cp -r " VCP_SRCDIR
		"/tests/data/power/intel-2s/t1 %s/late && echo 301000000000 >%s/late/vcpack-counters/clock_ns",
		dir, dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(
		symlink(VCP_SRCDIR "/tests/data/power/intel-2s/t0", link), 0);
	assert_int_equal(vcp_metrics_pub_new(dir, link, false, &p), 0);
	assert_int_equal(vcp_metrics_pub_sample(p, NULL), 0);
	unlink(link);
	snprintf(cmd, sizeof(cmd), "%s/late", dir);
	assert_int_equal(symlink(cmd, link), 0);
	assert_int_equal(vcp_metrics_pub_sample(p, NULL), 0);
	text = slurp(path);
	assert_non_null(strstr(
		text,
		"vcpack_power_zone_unreadable{zone=\"intel-rapl:1\",name=\"package-1\",reason=\"energy_uj: read 300 s after the last read, longer than the counter's wrap time (262 s at 1000 W)"));
	assert_null(strstr(
		text,
		"vcpack_energy_joules_total{package=\"1\",zone=\"package\"}"));
	assert_null(strstr(text, "\nvcpack_host_power_watts "));
	assert_non_null(strstr(
		text, "vcpack_power_zone_lacking{zone=\"intel-rapl:1\""));
	free(text);
	/* the next read, 1 s later: the total is where it was */
	snprintf(cmd, sizeof(cmd),
		 "echo 302000000000 >%s/late/vcpack-counters/clock_ns", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(vcp_metrics_pub_sample(p, NULL), 0);
	text = slurp(path);
	has(text,
	    "vcpack_energy_joules_total{package=\"1\",zone=\"package\"} 262113.32885");
	assert_null(strstr(text, "vcpack_power_zone_unreadable"));
	free(text);
	vcp_metrics_pub_free(p);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A host that is not this machine (the test driver, a remote URI):
 * the VMs and the level, and none of this machine's counters. */
static void test_pub_not_here(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char dir[512], path[600], *text;
	struct vcp_metrics_pub *p;
	struct vcp_policy pol;

	assert_string_equal(vcp_uri_not_here("test:///default"),
			    "libvirt's test driver is a simulated host");
	assert_non_null(vcp_uri_not_here("test+unix:///default?socket=/x"));
	assert_string_equal(vcp_uri_not_here("qemu+ssh://h1/system"),
			    "a remote host");
	assert_null(vcp_uri_not_here("qemu:///system"));
	assert_null(vcp_uri_not_here("qemu+unix:///system?socket=/run/x"));
	assert_null(vcp_uri_not_here(NULL));
	snprintf(dir, sizeof(dir), "%s/vcp-pub-XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/vcpack.prom", dir);
	vcp_policy_defaults(&pol);
	assert_int_equal(vcp_metrics_pub_new(dir, NULL, false, &p), 0);
	assert_int_equal(vcp_metrics_pub_plan(p, NULL, 0, &pol, 2), 0);
	assert_int_equal(vcp_metrics_pub_sample(p, NULL), 0);
	assert_int_equal(vcp_metrics_pub_sample(p, NULL), 0);
	text = slurp(path);
	has(text, "vcpack_level 2");
	assert_null(strstr(text, "vcpack_packages_awake"));
	assert_null(strstr(text, "vcpack_energy_joules_total"));
	assert_null(strstr(text, "cpuidle"));
	free(text);
	vcp_metrics_pub_free(p);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vms),
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_cpuidle_packages),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_pub_long_gap),
		cmocka_unit_test(test_pub),
		cmocka_unit_test(test_pub_not_here),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
