// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_power.c - how long one read of every power counter takes
 * (vcp_power_read), on a fixture tree shaped like a two-socket host with
 * 256 CPUs (2 packages x 64 cores x 2 threads) built in $TMPDIR:
 * package-N, dram and core powercap zones, cstate_pkg (c2, c6),
 * cstate_core (c1, c6) and msr/tsc counters, cpuidle POLL/C1/C1E/C6 on
 * every CPU (time and usage), uncore per package. The reader runs with
 * the production ops (cpuidle files kept open and re-read with pread);
 * each counter is one descriptor read once, as perf's are, here a file.
 * `make bench-power` runs it.
 *
 * Prints the median, min and max of repeated reads in microseconds, in
 * CPU time (what a read costs) and wall-clock time (which, on a busy
 * machine, also counts other processes), the same for one sysfs-like
 * file read by path (the baseline, and the ratio to it), the figures'
 * arithmetic, the same read of this machine's own /sys, and the target
 * (< 5 ms median CPU time on the 256-CPU tree). Figures, not a test:
 * exits 0 unless the tree cannot be built.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "powerread.h"
#include "sysfile.h"

#define TARGET_US 5000.0
#define PKGS 2
#define CORES 64
#define THREADS 2
#define RUNS 101

static char root[PATH_MAX - 256];

static double now_us(void)
{
	return (double)vcp_mono_ns() / 1e3;
}

/* CPU time of this thread: what a read costs, also on a busy machine
 * where the wall clock counts the time other processes ran. */
static double cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Write @val to ROOT/@rel, creating directories. */
static int put(const char *val, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int put(const char *val, const char *fmt, ...)
{
	char rel[256], path[PATH_MAX];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "%s\n", val);
	return fclose(f) == 0 ? 0 : -EIO;
}

static int build_tree(void)
{
	static const char *const idle[] = { "POLL", "C1", "C1E", "C6" };
	const int n = PKGS * CORES * THREADS;
	char v[32];
	int r = 0;

	snprintf(v, sizeof(v), "0-%d", n - 1);
	r |= put(v, "devices/system/cpu/online");
	for (int c = 0; c < n; c++) {
		snprintf(v, sizeof(v), "%d", (c % (PKGS * CORES)) / CORES);
		r |= put(v, "devices/system/cpu/cpu%d/topology/physical_package_id", c);
		for (int k = 0; k < 4; k++) {
			r |= put(idle[k], "devices/system/cpu/cpu%d/cpuidle/state%d/name", c, k);
			r |= put("123456789", "devices/system/cpu/cpu%d/cpuidle/state%d/time", c, k);
			r |= put("4242", "devices/system/cpu/cpu%d/cpuidle/state%d/usage", c, k);
		}
	}
	for (int p = 0; p < PKGS; p++) {
		snprintf(v, sizeof(v), "package-%d", p);
		r |= put(v, "class/powercap/intel-rapl:%d/name", p);
		r |= put("dram", "class/powercap/intel-rapl:%d:0/name", p);
		r |= put("core", "class/powercap/intel-rapl:%d:1/name", p);
		for (int z = 0; z < 3; z++) {
			const char *id = z ? (z == 1 ? ":0" : ":1") : "";

			r |= put("123456789012", "class/powercap/intel-rapl:%d%s/energy_uj", p, id);
			r |= put("262143328850", "class/powercap/intel-rapl:%d%s/max_energy_range_uj", p, id);
		}
		r |= put("1600000", "devices/system/cpu/intel_uncore_frequency/package_%02d_die_00/current_freq_khz", p);
		r |= put("800000", "devices/system/cpu/intel_uncore_frequency/package_%02d_die_00/min_freq_khz", p);
		r |= put("2500000", "devices/system/cpu/intel_uncore_frequency/package_%02d_die_00/max_freq_khz", p);
	}
	snprintf(v, sizeof(v), "0,%d", CORES);
	r |= put(v, "bus/event_source/devices/cstate_pkg/cpumask");
	r |= put("30", "bus/event_source/devices/cstate_pkg/type");
	r |= put("event=0x00", "bus/event_source/devices/cstate_pkg/events/c2-residency");
	r |= put("event=0x02", "bus/event_source/devices/cstate_pkg/events/c6-residency");
	snprintf(v, sizeof(v), "0-%d", PKGS * CORES - 1);
	r |= put(v, "bus/event_source/devices/cstate_core/cpumask");
	r |= put("29", "bus/event_source/devices/cstate_core/type");
	r |= put("event=0x00", "bus/event_source/devices/cstate_core/events/c1-residency");
	r |= put("event=0x02", "bus/event_source/devices/cstate_core/events/c6-residency");
	r |= put("31", "bus/event_source/devices/msr/type");
	r |= put("event=0x00", "bus/event_source/devices/msr/events/tsc");
	for (int c = 0; c < PKGS * CORES; c++) {
		r |= put("99999999", "vcpack-counters/cstate_core/c1-residency/cpu%d", c);
		r |= put("99999999", "vcpack-counters/cstate_core/c6-residency/cpu%d", c);
		if (c % CORES)
			continue;
		r |= put("99999999", "vcpack-counters/cstate_pkg/c2-residency/cpu%d", c);
		r |= put("99999999", "vcpack-counters/cstate_pkg/c6-residency/cpu%d", c);
		r |= put("99999999", "vcpack-counters/msr/tsc/cpu%d", c);
	}
	return r;
}

/* A counter as perf has it: one descriptor, one read per value (here a
 * pread of the fixture's counter file). */
static int ctr_open(void *data, const char *pmu, const char *event,
		    uint32_t type, uint64_t config, int cpu, int *ret)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/vcpack-counters/%s/%s/cpu%d", root,
		 pmu, event, cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*ret = fd;
	return 0;
}

static int ctr_read(void *data, int fd, uint64_t *ret)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	*ret = strtoull(buf, NULL, 10);
	return 0;
}

static void ctr_close(void *data, int fd)
{
	close(fd);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct stat3 {
	double median, min, max;
};

static struct stat3 stats(double *t, int n)
{
	qsort(t, (size_t)n, sizeof(*t), cmp_d);
	return (struct stat3){ t[n / 2], t[0], t[n - 1] };
}

/* RUNS reads through @r: wall and CPU time; the last snapshot in *last. */
static struct stat3 time_reads(struct vcp_power_reader *r,
			       struct vcp_pwr_snap *last, struct stat3 *ret_cpu)
{
	double t[RUNS], c[RUNS];

	for (int i = 0; i < RUNS; i++) {
		struct vcp_pwr_snap s;
		double t0 = now_us(), c0 = cpu_us();

		if (vcp_power_read(r, &s) < 0) {
			t[i] = c[i] = -1;
			continue;
		}
		c[i] = cpu_us() - c0;
		t[i] = now_us() - t0;
		vcp_pwr_snap_clear(last);
		*last = s;
	}
	*ret_cpu = stats(c, RUNS);
	return stats(t, RUNS);
}

static struct stat3 time_file(void)
{
	char path[PATH_MAX], buf[64];
	double t[RUNS];

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu7/cpuidle/state3/time",
		 root);
	for (int i = 0; i < RUNS; i++) {
		double t0 = now_us();

		vcp_read_line(path, buf, sizeof(buf));
		t[i] = now_us() - t0;
	}
	return stats(t, RUNS);
}

static double loadavg(void)
{
	double l = -1;
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

static void row(const char *what, struct stat3 s)
{
	printf("%-44s %10.1f %10.1f %10.1f\n", what, s.median, s.min, s.max);
}

static int run(void)
{
	struct vcp_power_ops *ops, prod;
	struct rlimit rl;
	struct vcp_power_reader *r;
	struct vcp_pwr_snap a = { 0 }, b = { 0 };
	struct vcp_pwr_thresholds th = VCP_PWR_THRESHOLDS_DEFAULT;
	struct vcp_pwr_figs f;
	struct stat3 rd, rd_cpu, one, fig, host, host_cpu;
	double t[RUNS], t0, open_us;
	size_t files;

	if (vcp_power_file_ops_new(root, &ops) < 0)
		return -ENOMEM;
	/* sysfs files as production reads them (cpuidle kept open, as many
	 * as RLIMIT_NOFILE allows, raised to its hard limit as vcpackd
	 * does); each counter one descriptor and one read, as with perf */
	prod = vcp_power_perf_ops;
	prod.open = ctr_open;
	prod.read = ctr_read;
	prod.close = ctr_close;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	t0 = now_us();
	if (vcp_power_reader_open(root, &prod, &r) < 0)
		return -EIO;
	open_us = now_us() - t0;
	rd = time_reads(r, &a, &rd_cpu);
	one = time_file();
	files = a.n_zones * 3 + a.n_cpus * a.n_idle * 2 + (size_t)PKGS * 3 +
		(size_t)PKGS * CORES * 2 + PKGS * 3;
	vcp_power_read(r, &b);
	b.t_ns = a.t_ns + 1000000000;
	for (int i = 0; i < RUNS; i++) {
		t0 = now_us();
		vcp_power_figures(&a, &b, &th, &f);
		t[i] = now_us() - t0;
		vcp_pwr_figs_clear(&f);
	}
	fig = stats(t, RUNS);
	printf("power counters, %d packages x %d cores x %d threads = %zu CPUs (fixture tree in %s)\n",
	       PKGS, CORES, THREADS, a.n_cpus, root);
	printf("one read: %zu zones, %zu residency counters over %d CPUs, %zu cpuidle files, %zu uncore dies: about %zu files\n\n",
	       a.n_zones, a.n_res, PKGS * CORES + PKGS, a.n_cpus * a.n_idle * 2,
	       a.n_uncore, files);
	printf("%-44s %10s %10s %10s\n", "microseconds", "median", "min", "max");
	row("vcp_power_read, CPU time (every counter once)", rd_cpu);
	row("vcp_power_read, wall clock", rd);
	row("baseline: one sysfs-like file (vcp_read_line)", one);
	row("vcp_power_figures (the arithmetic)", fig);
	printf("\nreader open (discovery, counters and cpuidle files opened): %.1f us\n",
	       open_us);
	printf("RLIMIT_NOFILE %llu: the reader keeps up to half of what is left open (%zu cpuidle files)\n",
	       (unsigned long long)rl.rlim_cur, a.n_cpus * a.n_idle * 2);
	printf("read / one file: x%.0f (%zu files)\n", rd.median / one.median, files);
	vcp_power_reader_close(r);
	vcp_power_file_ops_free(ops);
	vcp_pwr_snap_clear(&a);
	vcp_pwr_snap_clear(&b);
	if (vcp_power_reader_open("/sys", NULL, &r) == 0) {
		struct vcp_pwr_snap s = { 0 };

		host = time_reads(r, &s, &host_cpu);
		printf("this machine's /sys (%zu CPUs, %zu zones, %zu residency counters): median %.1f us\n",
		       s.n_cpus, s.n_zones, s.n_res, host.median);
		vcp_pwr_snap_clear(&s);
		vcp_power_reader_close(r);
	}
	printf("load average now: %.1f (the wall clock counts other processes' time)\n",
	       loadavg());
	printf("target: median read on %d CPUs %.1f us CPU (%.1f us wall), < %.0f us: %s\n",
	       PKGS * CORES * THREADS, rd_cpu.median, rd.median, TARGET_US,
	       rd_cpu.median < TARGET_US ? "met" : "MISSED");
	return 0;
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char cmd[PATH_MAX + 16];
	int r;

	snprintf(root, sizeof(root), "%s/bench-power-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		perror("bench_power: mkdtemp");
		return 1;
	}
	r = build_tree();
	if (r == 0)
		r = run();
	else
		fprintf(stderr, "bench_power: cannot build the tree in '%s'\n", root);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_power: could not remove '%s'\n", root);
	return r ? 1 : 0;
}
