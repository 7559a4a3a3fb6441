// SPDX-License-Identifier: GPL-2.0
/*
 * vcwork - a guest workload that imitates the vCPU threads of KVM guests.
 *
 * Each --vm is one process in its own cgroup (v2, or the v1 cpu hierarchy)
 * with N threads; its class is written to cpu.consolidate when that file
 * exists (and read back). A thread is steady (always busy), bursty (busy
 * for `burst`, then sleeps so that it is busy `duty` percent of the time)
 * or, with pattern=mixed, every other thread of the VM is steady. Threads
 * may start and stop at given offsets, to make the load grow and shrink.
 * A burst is `burst` of wall time (work=wall, the default) or of the
 * thread's own CPU time (work=cpu: a fixed amount of work, as a vCPU's
 * guest code is; a burst that overruns its period skips the periods it
 * missed). --seed gives each bursty thread its own phase in its period
 * (else all start together); pins= pins each thread on its own CPU list.
 * mem=MB gives each thread a buffer it writes one cache line of (a new
 * page each time) with every unit of work, first touched on NUMA node
 * memnode= (the thread runs there while it touches, then gets its own
 * affinity back): a VM whose memory sits on one node, for NUMA
 * balancing to act on.
 *
 * Measured over the window [warmup, warmup + duration), never during the
 * warm-up:
 *  - placement: sched_getcpu() every --sample-ms of the thread's own
 *    running time, per CPU and per package, package migrations (a change
 *    of package between two samples; the first VCP_MAX_MOVES of them as
 *    "ms:from>to", ms since the window opened), and a timeline of the
 *    package each thread ran on most in every --slot-ms slot;
 *  - wakeup latency of bursty threads: the intended wake time (absolute,
 *    clock_nanosleep TIMER_ABSTIME on CLOCK_MONOTONIC) to the first
 *    instruction after the wakeup;
 *  - work done: bursts completed and missed, and `work`, the number of
 *    spin-loop chunks the thread executed (CPU work actually received);
 *  - with mem=: the pages of the thread's buffer on each NUMA node
 *    (move_pages(2) asked for the node, nothing moved) after the first
 *    touch and at the end;
 *  - run_ms and wait_ms: the scheduler's own count of the thread's time
 *    on a CPU and runnable but waiting for one (/proc/thread-self/
 *    schedstat, CONFIG_SCHEDSTATS or SCHED_INFO; -1 without), from its
 *    first sample in the window to its end;
 *  - per-package busy time from the guest's own accounting: /proc/stat
 *    per-CPU deltas summed by physical_package_id, busy percentage per
 *    slot, and the share of --mon-ms intervals in which no CPU of the
 *    package was busy at all (a cheap package-idle residency estimate);
 *    per CPU the busy share, the share of ticks in interrupt context
 *    (intr_pct) and the time accounted at all against the window
 *    (acct_pct): the testbed's health (tests/kernel/collapse.awk).
 *
 *  - per class, over all VMs: the pooled wakeup latencies (p50/p99/max)
 *    and the work done, and the limit: the all-idle residency a perfect
 *    packer would reach on this schedule (see vcp_print_limit()).
 *
 * Output: one JSON object per line on stdout ("type" says which kind),
 * ending with {"type":"end",...}; errors go to stderr, exit status 1
 * (2 for a usage error). Promises: every created cgroup is removed again
 * unless --keep is given; the tool never leaves threads behind.
 *
 *   vcwork --duration 10 --warmup 2 \
 *     --vm name=a,threads=3,class=pack,duty=100,burst=10ms --vm ...
 *   vcwork --write FILE VALUE      (prints ok or the errno name: EINVAL)
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define VCP_MAX_CPUS	64
#define VCP_MAX_PKGS	16
#define VCP_MAX_VMS	32
#define VCP_MAX_THREADS	64
#define VCP_MAX_SLOTS	600
#define VCP_MAX_MOVES	16	/* package changes listed per thread */
#define VCP_MAX_LAT	20000
#define VCP_MAX_NODES	8
#define VCP_PAGE	4096
#define NSEC_PER_SEC	1000000000LL
#define NSEC_PER_MSEC	1000000LL

enum vcp_pattern { VCP_STEADY, VCP_BURSTY, VCP_MIXED };

struct vcp_vm_spec {
	char name[32];
	char class[16];
	char cg[128];		/* relative to the cgroup root */
	char cpus[64];		/* affinity list, "" = all */
	int threads;
	int duty;		/* percent */
	long long burst_ns;
	long long start_ns;	/* offsets from t0 */
	long long stop_ns;	/* 0 = until the end */
	enum vcp_pattern pattern;
	bool cpu_work;		/* work=cpu: bursts of thread CPU time */
	char pins[256];		/* per-thread CPU lists, '/'-separated */
	int mem_mb;		/* per-thread buffer, 0 = none */
	int memnode;		/* its first touch on this node, -1 = anywhere */
	int index;		/* position on the command line */
};

struct vcp_opts {
	double duration;
	double warmup;
	long long sample_ns;
	long long slot_ns;
	long long mon_ns;
	int mon_cpu;
	bool keep;
	unsigned long long seed;
	char cg_root[128];
	struct vcp_vm_spec vms[VCP_MAX_VMS];
	int n_vms;
};

/*
 * What each thread hands to the parent, in memory shared across fork():
 * the parent pools the latencies per class. One per thread, in command
 * line order.
 */
struct vcp_shared {
	long long n_lat, wakes, bursts, missed, work, phase_ns;
	long long lat[VCP_MAX_LAT];
};

static struct vcp_shared *vcp_shm;

/* Topology and time base, set before any fork, read-only afterwards. */
static int vcp_pkg_of[VCP_MAX_CPUS];
static int vcp_core_of[VCP_MAX_CPUS];	/* topology/core_id, -1 unknown */
static int vcp_n_pkgs;
static long long vcp_t0, vcp_win_start, vcp_win_end, vcp_end;
static struct vcp_opts vcp_o;

struct vcp_thread {
	pthread_t th;
	const struct vcp_vm_spec *vm;
	int idx;
	int tid;		/* its kernel pid, for trace analysis (vcresid waits) */
	bool steady;
	long long samples;
	long long cpu_samples[VCP_MAX_CPUS];
	long long pkg_samples[VCP_MAX_PKGS];
	long long pkg_migr, cpu_migr;
	/* the first VCP_MAX_MOVES package changes: when, from, to */
	long long move_ns[VCP_MAX_MOVES];
	short move_from[VCP_MAX_MOVES], move_to[VCP_MAX_MOVES];
	int last_cpu, last_pkg;
	unsigned short (*slot_pkg)[VCP_MAX_PKGS];
	long long *lat;
	int n_lat;
	long long wakes;
	long long phase_ns;
	long long bursts, missed, work;
	cpu_set_t pins;
	bool pins_set;
	unsigned char *mem;	/* mem=: the buffer, its size, next line */
	size_t mem_len, mem_off;
	long long mem_start[VCP_MAX_NODES], mem_end[VCP_MAX_NODES];
	/* the scheduler's own run and wait time (schedstat, ns) at the
	 * thread's first sample in the window and at its end; -1: none */
	long long ss_run0, ss_wait0, ss_run1, ss_wait1;
};

static long long vcp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void vcp_sleep_until(long long t)
{
	struct timespec ts = { .tv_sec = t / NSEC_PER_SEC,
			       .tv_nsec = t % NSEC_PER_SEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static void vcp_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("vcwork: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void vcp_usage(const char *msg)
{
	fprintf(stderr,
		"vcwork: %s\n"
		"usage: vcwork [--duration S] [--warmup S] [--sample-ms MS] [--slot-ms MS]\n"
		"              [--mon-ms MS] [--mon-cpu N] [--cgroup-root DIR] [--keep]\n"
		"              [--seed N]\n"
		"              --vm name=N,threads=T[,class=C][,duty=PCT][,burst=DUR]\n"
		"                   [,pattern=steady|bursty|mixed][,start=DUR][,stop=DUR]\n"
		"                   [,work=wall|cpu][,cg=REL/PATH][,cpus=LIST]\n"
		"                   [,pins=LIST/LIST/...][,mem=MB][,memnode=N] ...\n"
		"LIST: CPU numbers and ranges joined by ':' (0:2-3); pins: thread i\n"
		"gets the (i mod n)-th list\n"
		"DUR: a number with ns, us, ms or s (plain numbers are ms)\n",
		msg);
	exit(2);
}

/* "10ms", "2s", "500us", "7" (ms). Returns -1 on garbage. */
static long long vcp_parse_dur(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0)
		return -1;
	if (!*end || !strcmp(end, "ms"))
		return (long long)(v * NSEC_PER_MSEC);
	if (!strcmp(end, "s"))
		return (long long)(v * NSEC_PER_SEC);
	if (!strcmp(end, "us"))
		return (long long)(v * 1000);
	if (!strcmp(end, "ns"))
		return (long long)v;
	return -1;
}

static int vcp_parse_int(const char *s, int lo, int hi, int *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

static void vcp_copy(char *dst, size_t size, const char *src, const char *what)
{
	if (strlen(src) >= size) {
		fprintf(stderr, "vcwork: %s '%s' is too long\n", what, src);
		exit(2);
	}
	strcpy(dst, src);
}

static void vcp_parse_vm_kv(struct vcp_vm_spec *vm, const char *k,
			    const char *v)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "--vm: bad value '%s' for '%s'", v, k);
	if (!strcmp(k, "name")) {
		vcp_copy(vm->name, sizeof(vm->name), v, "VM name");
	} else if (!strcmp(k, "class")) {
		vcp_copy(vm->class, sizeof(vm->class), v, "class");
	} else if (!strcmp(k, "cg")) {
		vcp_copy(vm->cg, sizeof(vm->cg), v, "cgroup path");
	} else if (!strcmp(k, "cpus")) {
		vcp_copy(vm->cpus, sizeof(vm->cpus), v, "cpu list");
	} else if (!strcmp(k, "pins")) {
		vcp_copy(vm->pins, sizeof(vm->pins), v, "pin lists");
	} else if (!strcmp(k, "work")) {
		if (!strcmp(v, "cpu"))
			vm->cpu_work = true;
		else if (strcmp(v, "wall"))
			vcp_usage(msg);
	} else if (!strcmp(k, "threads")) {
		if (vcp_parse_int(v, 1, VCP_MAX_THREADS, &vm->threads))
			vcp_usage(msg);
	} else if (!strcmp(k, "duty")) {
		if (vcp_parse_int(v, 1, 100, &vm->duty))
			vcp_usage(msg);
	} else if (!strcmp(k, "burst")) {
		vm->burst_ns = vcp_parse_dur(v);
		if (vm->burst_ns < 100000)
			vcp_usage(msg);
	} else if (!strcmp(k, "start")) {
		vm->start_ns = vcp_parse_dur(v);
		if (vm->start_ns < 0)
			vcp_usage(msg);
	} else if (!strcmp(k, "stop")) {
		vm->stop_ns = vcp_parse_dur(v);
		if (vm->stop_ns < 0)
			vcp_usage(msg);
	} else if (!strcmp(k, "mem")) {
		if (vcp_parse_int(v, 1, 1024, &vm->mem_mb))
			vcp_usage(msg);
	} else if (!strcmp(k, "memnode")) {
		if (vcp_parse_int(v, 0, VCP_MAX_NODES - 1, &vm->memnode))
			vcp_usage(msg);
	} else if (!strcmp(k, "pattern")) {
		if (!strcmp(v, "steady"))
			vm->pattern = VCP_STEADY;
		else if (!strcmp(v, "bursty"))
			vm->pattern = VCP_BURSTY;
		else if (!strcmp(v, "mixed"))
			vm->pattern = VCP_MIXED;
		else
			vcp_usage(msg);
	} else {
		snprintf(msg, sizeof(msg), "--vm: unknown key '%s'", k);
		vcp_usage(msg);
	}
}

static void vcp_parse_vm(struct vcp_vm_spec *vm, char *spec)
{
	char *save = NULL, *kv;
	int pattern_set = 0;

	memset(vm, 0, sizeof(*vm));
	vm->threads = 1;
	vm->duty = 100;
	vm->burst_ns = 10 * NSEC_PER_MSEC;
	vm->pattern = VCP_STEADY;
	vm->memnode = -1;
	for (kv = strtok_r(spec, ",", &save); kv;
	     kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');

		if (!eq)
			vcp_usage("--vm: expected key=value");
		*eq = '\0';
		if (!strcmp(kv, "pattern"))
			pattern_set = 1;
		vcp_parse_vm_kv(vm, kv, eq + 1);
	}
	if (!vm->name[0])
		vcp_usage("--vm: name= is required");
	if (vm->memnode >= 0 && !vm->mem_mb)
		vcp_usage("--vm: memnode= needs mem=");
	if (!pattern_set && vm->duty < 100)
		vm->pattern = VCP_BURSTY;
	if (vm->pattern != VCP_STEADY && vm->duty == 100)
		vm->duty = 30;
	if (!vm->cg[0]) {
		strcpy(vm->cg, "vcwork-");
		strcat(vm->cg, vm->name);	/* name < 32 < sizeof(cg) - 7 */
	}
}

static void vcp_parse_args(int argc, char **argv)
{
	int i;

	vcp_o.duration = 10;
	vcp_o.warmup = 2;
	vcp_o.sample_ns = 10 * NSEC_PER_MSEC;
	vcp_o.slot_ns = 1000 * NSEC_PER_MSEC;
	vcp_o.mon_ns = 250 * NSEC_PER_MSEC;
	vcp_o.mon_cpu = -1;
	strcpy(vcp_o.cg_root, "/sys/fs/cgroup");
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--keep")) {
			vcp_o.keep = true;
			continue;
		}
		if (!v)
			vcp_usage("missing value");
		i++;
		if (!strcmp(a, "--duration")) {
			vcp_o.duration = atof(v);
		} else if (!strcmp(a, "--warmup")) {
			vcp_o.warmup = atof(v);
		} else if (!strcmp(a, "--sample-ms")) {
			vcp_o.sample_ns = vcp_parse_dur(v);
		} else if (!strcmp(a, "--slot-ms")) {
			vcp_o.slot_ns = vcp_parse_dur(v);
		} else if (!strcmp(a, "--seed")) {
			char *end;

			errno = 0;
			vcp_o.seed = strtoull(v, &end, 10);
			if (errno || end == v || *end)
				vcp_usage("bad --seed");
		} else if (!strcmp(a, "--mon-ms")) {
			vcp_o.mon_ns = vcp_parse_dur(v);
		} else if (!strcmp(a, "--mon-cpu")) {
			if (vcp_parse_int(v, 0, VCP_MAX_CPUS - 1, &vcp_o.mon_cpu))
				vcp_usage("bad --mon-cpu");
		} else if (!strcmp(a, "--cgroup-root")) {
			vcp_copy(vcp_o.cg_root, sizeof(vcp_o.cg_root), v,
				 "cgroup root");
		} else if (!strcmp(a, "--vm")) {
			char buf[512];

			if (vcp_o.n_vms == VCP_MAX_VMS)
				vcp_usage("too many --vm");
			vcp_copy(buf, sizeof(buf), v, "--vm");
			vcp_parse_vm(&vcp_o.vms[vcp_o.n_vms], buf);
			vcp_o.vms[vcp_o.n_vms].index = vcp_o.n_vms;
			vcp_o.n_vms++;
		} else {
			vcp_usage("unknown option");
		}
	}
	if (vcp_o.duration <= 0 || vcp_o.warmup < 0 || vcp_o.sample_ns <= 0 ||
	    vcp_o.slot_ns <= 0 || vcp_o.mon_ns <= 0)
		vcp_usage("durations must be positive");
	if ((vcp_o.warmup + vcp_o.duration) * NSEC_PER_SEC / vcp_o.slot_ns >=
	    VCP_MAX_SLOTS)
		vcp_usage("too many slots: raise --slot-ms");
	if (!vcp_o.n_vms)
		vcp_usage("no --vm given");
}

/* ---- files ---- */

static int vcp_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

static int vcp_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int r = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		r = -errno;
	close(fd);
	return r;
}

/*
 * VCPACK_PACE_CPU=CPU: that CPU is outside the measured topology (the
 * benchmark's pacing CPU, alone in a package of its own): in no package,
 * so not in the per-package figures nor in the limit.
 */
static void vcp_load_topology(void)
{
	const char *pace = getenv("VCPACK_PACE_CPU");
	int outside = pace && *pace ? atoi(pace) : -1;
	char path[96], buf[32];
	int cpu, pkg;

	for (cpu = 0; cpu < VCP_MAX_CPUS; cpu++) {
		vcp_pkg_of[cpu] = -1;
		vcp_core_of[cpu] = -1;
		if (cpu == outside)
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
			 cpu);
		if (vcp_read_file(path, buf, sizeof(buf)))
			continue;
		pkg = atoi(buf);
		if (pkg < 0 || pkg >= VCP_MAX_PKGS)
			vcp_die("cpu%d: package id %d out of range", cpu, pkg);
		vcp_pkg_of[cpu] = pkg;
		if (pkg + 1 > vcp_n_pkgs)
			vcp_n_pkgs = pkg + 1;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
		vcp_core_of[cpu] = vcp_read_file(path, buf, sizeof(buf)) ? -1 : atoi(buf);
	}
	if (!vcp_n_pkgs)
		vcp_die("no CPU topology in /sys/devices/system/cpu");
}

/* ---- cgroups ---- */

static bool vcp_cg_v2(void)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/cgroup.controllers", vcp_o.cg_root);
	return access(path, F_OK) == 0;
}

/* mkdir -p below the root; on v2 enable +cpu for every new level. */
static void vcp_cg_create(const char *rel)
{
	char path[320], ctl[352];
	size_t len = strlen(vcp_o.cg_root);
	const char *p = rel;

	snprintf(path, sizeof(path), "%s", vcp_o.cg_root);
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (vcp_cg_v2()) {
			snprintf(ctl, sizeof(ctl), "%s/cgroup.subtree_control",
				 path);
			vcp_write_file(ctl, "+cpu");
		}
		len = strlen(path);
		snprintf(path + len, sizeof(path) - len, "/%.*s", (int)n, p);
		if (mkdir(path, 0755) && errno != EEXIST)
			vcp_die("cannot create cgroup '%s': %s", path,
				strerror(errno));
		p += n;
		while (*p == '/')
			p++;
	}
}

static void vcp_cg_path(const struct vcp_vm_spec *vm, const char *file,
			char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s%s%s", vcp_o.cg_root, vm->cg,
		 file ? "/" : "", file ? file : "");
}

/*
 * Writes the VM's class when cpu.consolidate exists. Returns the value
 * read back into @got ("" when the file is absent).
 */
static void vcp_cg_set_class(const struct vcp_vm_spec *vm, char *got,
			     size_t size)
{
	char path[352];
	int r;

	got[0] = '\0';
	vcp_cg_path(vm, "cpu.consolidate", path, sizeof(path));
	if (access(path, F_OK))
		return;
	if (vm->class[0]) {
		r = vcp_write_file(path, vm->class);
		if (r)
			vcp_die("VM '%s': writing '%s' to %s: %s", vm->name,
				vm->class, path, strerror(-r));
	}
	if (vcp_read_file(path, got, size))
		got[0] = '\0';
}

static void vcp_cg_enter(const struct vcp_vm_spec *vm)
{
	char path[352], pid[24];
	int r;

	vcp_cg_path(vm, "cgroup.procs", path, sizeof(path));
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	r = vcp_write_file(path, pid);
	if (r)
		vcp_die("VM '%s': cannot join %s: %s", vm->name, path,
			strerror(-r));
}

/* ---- the threads ---- */

static bool vcp_in_window(long long t)
{
	return t >= vcp_win_start && t < vcp_win_end;
}

/* This thread's time on a CPU and waiting for one (schedstat), in ns. */
static void vcp_schedstat(long long *run, long long *wait)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	*run = *wait = -1;
	if (!f)
		return;
	if (fscanf(f, "%lld %lld", run, wait) != 2)
		*run = *wait = -1;
	fclose(f);
}

static void vcp_sample(struct vcp_thread *t, long long now)
{
	int cpu = sched_getcpu();
	int pkg;
	long long slot;

	if (cpu < 0 || cpu >= VCP_MAX_CPUS)
		return;
	pkg = vcp_pkg_of[cpu] < 0 ? 0 : vcp_pkg_of[cpu];
	slot = (now - vcp_t0) / vcp_o.slot_ns;
	if (slot >= 0 && slot < VCP_MAX_SLOTS &&
	    t->slot_pkg[slot][pkg] < USHRT_MAX)
		t->slot_pkg[slot][pkg]++;
	if (!vcp_in_window(now))
		return;
	if (!t->samples)
		vcp_schedstat(&t->ss_run0, &t->ss_wait0);
	t->samples++;
	t->cpu_samples[cpu]++;
	t->pkg_samples[pkg]++;
	if (t->last_cpu >= 0 && t->last_cpu != cpu)
		t->cpu_migr++;
	if (t->last_pkg >= 0 && t->last_pkg != pkg) {
		if (t->pkg_migr < VCP_MAX_MOVES) {
			t->move_ns[t->pkg_migr] = now - vcp_win_start;
			t->move_from[t->pkg_migr] = t->last_pkg;
			t->move_to[t->pkg_migr] = pkg;
		}
		t->pkg_migr++;
	}
	t->last_cpu = cpu;
	t->last_pkg = pkg;
}

static long long vcp_thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* One unit of work: a fixed number of instructions. */
volatile unsigned int vcp_sink;

static void vcp_chunk(struct vcp_thread *t, long long now)
{
	unsigned int i, x = (unsigned int)now;

	for (i = 0; i < 64; i++)
		x = x * 1103515245u + 12345u;
	vcp_sink = x;
	if (t->mem) {
		/* a line of the next page: NUMA hinting faults see it */
		t->mem[t->mem_off] += (unsigned char)x;
		t->mem_off += VCP_PAGE + 64;
		if (t->mem_off >= t->mem_len)
			t->mem_off %= VCP_PAGE;
	}
	if (vcp_in_window(now))
		t->work++;
}

/*
 * Spins until @until (wall time), or with @cpu_until >= 0 until the
 * thread's CPU time reaches it, sampling every sample_ns; returns the time.
 */
static long long vcp_spin_cpu(struct vcp_thread *t, long long until,
			      long long cpu_until, long long *next_sample)
{
	long long now = vcp_now();

	while (cpu_until >= 0 ? vcp_thread_cpu() < cpu_until : now < until) {
		if (now >= *next_sample) {
			vcp_sample(t, now);
			*next_sample = now + vcp_o.sample_ns;
		}
		vcp_chunk(t, now);
		now = vcp_now();
		if (now >= vcp_end)
			break;
	}
	return now;
}

static long long vcp_spin(struct vcp_thread *t, long long until,
			  long long *next_sample)
{
	return vcp_spin_cpu(t, until, -1, next_sample);
}

static long long vcp_period(const struct vcp_vm_spec *vm)
{
	return vm->burst_ns * 100 / vm->duty;
}

static void vcp_run_bursty(struct vcp_thread *t, long long start,
			   long long stop)
{
	const struct vcp_vm_spec *vm = t->vm;
	long long period = vcp_period(vm);
	long long next = start + t->phase_ns, next_sample = start, now, lat;
	long long begun;

	if (next > start)
		vcp_sleep_until(next);
	while (next < stop) {
		begun = next;
		if (vm->cpu_work)
			now = vcp_spin_cpu(t, 0, vcp_thread_cpu() + vm->burst_ns,
					   &next_sample);
		else
			now = vcp_spin(t, next + vm->burst_ns < stop ?
				       next + vm->burst_ns : stop, &next_sample);
		if (vcp_in_window(begun) && now < stop)
			t->bursts++;
		next += period;
		while (vm->cpu_work && next < now) {
			if (vcp_in_window(next))
				t->missed++;
			next += period;
		}
		if (next >= stop)
			break;
		vcp_sleep_until(next);
		now = vcp_now();
		lat = now - next;
		vcp_sample(t, now);
		next_sample = now + vcp_o.sample_ns;
		if (vcp_in_window(next)) {
			t->wakes++;
			if (t->n_lat < VCP_MAX_LAT)
				t->lat[t->n_lat++] = lat;
		}
	}
}

/* The CPUs of NUMA node @node (its sysfs cpulist). */
static int vcp_parse_cpulist(const char *s, cpu_set_t *set);

static int vcp_node_cpus(int node, cpu_set_t *set)
{
	char path[64], buf[256];
	int n;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
		 node);
	if (vcp_read_file(path, buf, sizeof(buf)) || !buf[0])
		return -ENOENT;
	for (n = 0; buf[n]; n++)	/* sysfs joins with ',', we with ':' */
		if (buf[n] == ',')
			buf[n] = ':';
	return vcp_parse_cpulist(buf, set);
}

/* Pages of the thread's buffer on each node, asked of move_pages(2). */
static void vcp_mem_nodes(const struct vcp_thread *t, long long *count)
{
	size_t n = t->mem_len / VCP_PAGE, i;
	void **pages = calloc(n, sizeof(*pages));
	int *status = calloc(n, sizeof(*status));

	memset(count, 0, VCP_MAX_NODES * sizeof(*count));
	if (!pages || !status)
		vcp_die("out of memory");
	for (i = 0; i < n; i++)
		pages[i] = t->mem + i * VCP_PAGE;
	if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0) < 0)
		vcp_die("move_pages: %s", strerror(errno));
	for (i = 0; i < n; i++)
		if (status[i] >= 0 && status[i] < VCP_MAX_NODES)
			count[status[i]]++;
	free(pages);
	free(status);
}

/*
 * mem=: the buffer, first touched while the thread runs on memnode='s
 * CPUs (the kernel's first-touch policy puts the pages there), then the
 * thread's own affinity again.
 */
static void vcp_mem_setup(struct vcp_thread *t)
{
	const struct vcp_vm_spec *vm = t->vm;
	cpu_set_t own, node;

	t->mem_len = (size_t)vm->mem_mb << 20;
	t->mem = mmap(NULL, t->mem_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->mem == MAP_FAILED)
		vcp_die("VM '%s': mmap %d MB: %s", vm->name, vm->mem_mb,
			strerror(errno));
	if (sched_getaffinity(0, sizeof(own), &own))
		vcp_die("sched_getaffinity: %s", strerror(errno));
	if (vm->memnode >= 0) {
		if (vcp_node_cpus(vm->memnode, &node))
			vcp_die("VM '%s': no NUMA node %d", vm->name,
				vm->memnode);
		if (sched_setaffinity(0, sizeof(node), &node))
			vcp_die("VM '%s': sched_setaffinity: %s", vm->name,
				strerror(errno));
	}
	memset(t->mem, 1, t->mem_len);
	if (vm->memnode >= 0 && sched_setaffinity(0, sizeof(own), &own))
		vcp_die("VM '%s': sched_setaffinity: %s", vm->name,
			strerror(errno));
	vcp_mem_nodes(t, t->mem_start);
}

static void *vcp_thread_main(void *arg)
{
	struct vcp_thread *t = arg;
	const struct vcp_vm_spec *vm = t->vm;
	long long start = vcp_t0 + vm->start_ns;
	long long stop = vm->stop_ns ? vcp_t0 + vm->stop_ns : vcp_end;
	long long next_sample = start;

	if (stop > vcp_end)
		stop = vcp_end;
	t->tid = (int)syscall(SYS_gettid);
	if (t->pins_set &&
	    sched_setaffinity(0, sizeof(t->pins), &t->pins))
		vcp_die("VM '%s' thread %d: sched_setaffinity: %s", vm->name,
			t->idx, strerror(errno));
	if (vm->mem_mb)
		vcp_mem_setup(t);
	vcp_sleep_until(start);
	if (t->steady)
		vcp_spin(t, stop, &next_sample);
	else
		vcp_run_bursty(t, start, stop);
	vcp_schedstat(&t->ss_run1, &t->ss_wait1);
	if (t->mem)
		vcp_mem_nodes(t, t->mem_end);
	return NULL;
}

/* ---- per-thread results ---- */

static int vcp_cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static char vcp_pkg_char(int pkg)
{
	return pkg < 10 ? (char)('0' + pkg) : (char)('a' + pkg - 10);
}

static void vcp_timeline(const struct vcp_thread *t, char *buf, size_t size)
{
	long long n_slots = (vcp_end - vcp_t0 + vcp_o.slot_ns - 1) /
			    vcp_o.slot_ns;
	long long s;
	int p, best;

	for (s = 0; s < n_slots && s < (long long)size - 1; s++) {
		best = -1;
		for (p = 0; p < vcp_n_pkgs; p++)
			if (t->slot_pkg[s][p] &&
			    (best < 0 || t->slot_pkg[s][p] > t->slot_pkg[s][best]))
				best = p;
		buf[s] = best < 0 ? '-' : vcp_pkg_char(best);
	}
	buf[s] = '\0';
}

/* "ms:from>to ..." of the first VCP_MAX_MOVES package changes. */
static void vcp_moves(const struct vcp_thread *t, char *buf, size_t size)
{
	size_t len = 0;
	long long i;

	buf[0] = '\0';
	for (i = 0; i < t->pkg_migr && i < VCP_MAX_MOVES; i++)
		len += snprintf(buf + len, size - len, "%s%lld:%c>%c",
				i ? " " : "", t->move_ns[i] / NSEC_PER_MSEC,
				vcp_pkg_char(t->move_from[i]),
				vcp_pkg_char(t->move_to[i]));
}

/* "n0,n1,..." up to the last node that holds a page ("" if none). */
static void vcp_node_counts(const long long *count, char *buf, size_t size)
{
	size_t len = 0;
	int last = -1, n;

	for (n = 0; n < VCP_MAX_NODES; n++)
		if (count[n])
			last = n;
	buf[0] = '\0';
	for (n = 0; n <= last; n++)
		len += snprintf(buf + len, size - len, "%s%lld", n ? "," : "",
				count[n]);
}

static void vcp_print_thread(const struct vcp_thread *t)
{
	char pk[VCP_MAX_PKGS * 12] = "", tl[VCP_MAX_SLOTS + 1];
	char cs[VCP_MAX_CPUS * 24] = "";
	char mv[VCP_MAX_MOVES * 24];
	char m0[VCP_MAX_NODES * 24] = "", m1[VCP_MAX_NODES * 24] = "";
	char line[4096];
	size_t len = 0, clen = 0;
	int p, cpu, main_pkg = -1;
	long long p50 = 0, p99 = 0, max = 0, sum = 0;
	/* run and wait time over the window, by the scheduler's count */
	bool ss = t->samples && t->ss_run0 >= 0 && t->ss_run1 >= 0;
	int i;

	for (p = 0; p < vcp_n_pkgs; p++) {
		len += snprintf(pk + len, sizeof(pk) - len, "%s%lld",
				p ? "," : "", t->pkg_samples[p]);
		if (t->pkg_samples[p] &&
		    (main_pkg < 0 || t->pkg_samples[p] > t->pkg_samples[main_pkg]))
			main_pkg = p;
	}
	/* "CPU:samples" of the CPUs the thread was seen on */
	for (cpu = 0; cpu < VCP_MAX_CPUS; cpu++)
		if (t->cpu_samples[cpu])
			clen += snprintf(cs + clen, sizeof(cs) - clen, "%s%d:%lld",
					 clen ? "," : "", cpu,
					 t->cpu_samples[cpu]);
	if (t->n_lat) {
		qsort(t->lat, t->n_lat, sizeof(*t->lat), vcp_cmp_ll);
		for (i = 0; i < t->n_lat; i++)
			sum += t->lat[i];
		p50 = t->lat[t->n_lat / 2];
		p99 = t->lat[(t->n_lat * 99) / 100];
		max = t->lat[t->n_lat - 1];
	}
	vcp_timeline(t, tl, sizeof(tl));
	vcp_moves(t, mv, sizeof(mv));
	if (t->mem) {
		vcp_node_counts(t->mem_start, m0, sizeof(m0));
		vcp_node_counts(t->mem_end, m1, sizeof(m1));
	}
	snprintf(line, sizeof(line),
		 "{\"type\":\"thread\",\"vm\":\"%s\",\"thread\":%d,\"tid\":%d,"
		 "\"class\":\"%s\",\"steady\":%s,\"samples\":%lld,\"pkg_samples\":\"%s\","
		 "\"cpu_samples\":\"%s\","
		 "\"main_pkg\":%d,\"pkg_migrations\":%lld,\"cpu_migrations\":%lld,"
		 "\"wakes\":%lld,\"wake_mean_us\":%.1f,\"wake_p50_us\":%.1f,"
		 "\"wake_p99_us\":%.1f,\"wake_max_us\":%.1f,"
		 "\"period_us\":%.1f,\"burst_us\":%.1f,\"phase_us\":%.1f,"
		 "\"start_ms\":%lld,\"stop_ms\":%lld,\"cpu_work\":%s,"
		 "\"bursts\":%lld,\"missed\":%lld,\"work\":%lld,"
		 "\"run_ms\":%.1f,\"wait_ms\":%.1f,"
		 "\"mem_nodes_start\":\"%s\",\"mem_nodes_end\":\"%s\","
		 "\"timeline\":\"%s\",\"pkg_moves\":\"%s\"}\n",
		 t->vm->name, t->idx, t->tid, t->vm->class[0] ? t->vm->class : "-",
		 t->steady ? "true" : "false", t->samples, pk, cs, main_pkg,
		 t->pkg_migr, t->cpu_migr, t->wakes,
		 t->n_lat ? sum / 1000.0 / t->n_lat : 0.0, p50 / 1000.0,
		 p99 / 1000.0, max / 1000.0,
		 t->steady ? 0.0 : vcp_period(t->vm) / 1000.0,
		 t->steady ? 0.0 : t->vm->burst_ns / 1000.0, t->phase_ns / 1000.0,
		 t->vm->start_ns / NSEC_PER_MSEC, t->vm->stop_ns / NSEC_PER_MSEC,
		 t->vm->cpu_work ? "true" : "false", t->bursts, t->missed,
		 t->work, ss ? (t->ss_run1 - t->ss_run0) / 1e6 : -1.0,
		 ss ? (t->ss_wait1 - t->ss_wait0) / 1e6 : -1.0, m0, m1, tl, mv);
	/* one write per line: VM processes share the console */
	if (write(STDOUT_FILENO, line, strlen(line)) < 0)
		exit(1);
}

static int vcp_parse_cpulist(const char *s, cpu_set_t *set)
{
	char *end;
	long a, b;

	CPU_ZERO(set);
	while (*s) {
		a = strtol(s, &end, 10);
		if (end == s)
			return -EINVAL;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s)
				return -EINVAL;
		}
		if (a < 0 || b < a || b >= CPU_SETSIZE)
			return -EINVAL;
		for (; a <= b; a++)
			CPU_SET(a, set);
		s = end;
		if (*s == ',' || *s == ':')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return 0;
}

/* splitmix64 of (seed, vm, thread): a fixed pseudo-random phase. */
static unsigned long long vcp_mix(unsigned long long seed, int vm, int thread)
{
	unsigned long long z = seed + 0x9e3779b97f4a7c15ULL *
			       (1 + ((unsigned long long)vm << 20) + thread);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The (@idx mod n)-th '/'-separated list of vm->pins. */
static int vcp_pin_list(const struct vcp_vm_spec *vm, int idx, cpu_set_t *set)
{
	const char *p = vm->pins, *e;
	char one[64];
	int n = 1, k;

	for (e = p; *e; e++)
		n += *e == '/';
	for (k = idx % n; k > 0; k--)
		p = strchr(p, '/') + 1;
	e = strchr(p, '/');
	if (!e)
		e = p + strlen(p);
	if (e == p || (size_t)(e - p) >= sizeof(one))
		return -EINVAL;
	memcpy(one, p, e - p);
	one[e - p] = '\0';
	return vcp_parse_cpulist(one, set);
}

/* Index of @vm's first thread among all threads. */
static int vcp_first_thread(const struct vcp_vm_spec *vm)
{
	int i, n = 0;

	for (i = 0; i < vm->index; i++)
		n += vcp_o.vms[i].threads;
	return n;
}

static int vcp_total_threads(void)
{
	return vcp_first_thread(&vcp_o.vms[vcp_o.n_vms - 1]) +
	       vcp_o.vms[vcp_o.n_vms - 1].threads;
}

static bool vcp_thread_steady(const struct vcp_vm_spec *vm, int i)
{
	return vm->pattern == VCP_STEADY || (vm->pattern == VCP_MIXED && !(i & 1));
}

/* The body of one VM process: join the cgroup, run, report, exit. */
static void vcp_vm_main(const struct vcp_vm_spec *vm)
{
	struct vcp_thread *ts = calloc(vm->threads, sizeof(*ts));
	cpu_set_t set;
	int i, r;

	if (!ts)
		vcp_die("out of memory");
	vcp_cg_enter(vm);
	if (vm->cpus[0]) {
		if (vcp_parse_cpulist(vm->cpus, &set))
			vcp_die("VM '%s': bad cpus '%s'", vm->name, vm->cpus);
		if (sched_setaffinity(0, sizeof(set), &set))
			vcp_die("VM '%s': sched_setaffinity: %s", vm->name,
				strerror(errno));
	}
	for (i = 0; i < vm->threads; i++) {
		struct vcp_thread *t = &ts[i];

		t->vm = vm;
		t->idx = i;
		t->steady = vcp_thread_steady(vm, i);
		t->last_cpu = t->last_pkg = -1;
		if (!t->steady && vcp_o.seed)
			t->phase_ns = (long long)(vcp_mix(vcp_o.seed, vm->index,
						  i) % (unsigned long long)
						  vcp_period(vm));
		if (vm->pins[0] && vcp_pin_list(vm, i, &t->pins))
			vcp_die("VM '%s': bad pins '%s'", vm->name, vm->pins);
		t->pins_set = vm->pins[0] != '\0';
		t->slot_pkg = calloc(VCP_MAX_SLOTS, sizeof(*t->slot_pkg));
		t->lat = calloc(VCP_MAX_LAT, sizeof(*t->lat));
		if (!t->slot_pkg || !t->lat)
			vcp_die("out of memory");
		r = pthread_create(&t->th, NULL, vcp_thread_main, t);
		if (r)
			vcp_die("VM '%s': pthread_create: %s", vm->name,
				strerror(r));
	}
	for (i = 0; i < vm->threads; i++)
		pthread_join(ts[i].th, NULL);
	for (i = 0; i < vm->threads; i++) {
		struct vcp_shared *sh = &vcp_shm[vcp_first_thread(vm) + i];

		sh->n_lat = ts[i].n_lat;
		memcpy(sh->lat, ts[i].lat, ts[i].n_lat * sizeof(*sh->lat));
		sh->wakes = ts[i].wakes;
		sh->bursts = ts[i].bursts;
		sh->missed = ts[i].missed;
		sh->work = ts[i].work;
		sh->phase_ns = ts[i].phase_ns;
		vcp_print_thread(&ts[i]);
	}
	exit(0);
}

/* ---- /proc/stat monitor (the parent) ---- */

struct vcp_stat {
	long long busy[VCP_MAX_CPUS];
	long long total[VCP_MAX_CPUS];
	long long intr[VCP_MAX_CPUS];	/* irq + softirq: in interrupt context */
	bool online[VCP_MAX_CPUS];
};

static void vcp_read_stat(struct vcp_stat *st)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[512];

	memset(st, 0, sizeof(*st));
	if (!f)
		vcp_die("cannot open /proc/stat: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		long long v[10] = { 0 };
		int cpu;

		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		if (sscanf(line + 3, "%d %lld %lld %lld %lld %lld %lld %lld %lld",
			   &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6], &v[7]) < 8 || cpu < 0 || cpu >= VCP_MAX_CPUS)
			continue;
		/* user nice system idle iowait irq softirq steal */
		st->busy[cpu] = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
		st->total[cpu] = st->busy[cpu] + v[3] + v[4];
		st->intr[cpu] = v[5] + v[6];
		st->online[cpu] = true;
	}
	fclose(f);
}

struct vcp_pkgacc {
	long long busy[VCP_MAX_PKGS], total[VCP_MAX_PKGS];
};

static void vcp_stat_delta(const struct vcp_stat *a, const struct vcp_stat *b,
			   struct vcp_pkgacc *acc)
{
	int cpu, p;

	memset(acc, 0, sizeof(*acc));
	for (cpu = 0; cpu < VCP_MAX_CPUS; cpu++) {
		p = vcp_pkg_of[cpu];
		if (p < 0 || !a->online[cpu] || !b->online[cpu])
			continue;
		acc->busy[p] += b->busy[cpu] - a->busy[cpu];
		acc->total[p] += b->total[cpu] - a->total[cpu];
	}
}

static double vcp_pct(long long part, long long whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

struct vcp_mon {
	struct vcp_stat first, last;
	struct vcp_pkgacc slot_acc[VCP_MAX_SLOTS];
	long long intervals, idle_intervals[VCP_MAX_PKGS];
};

static void vcp_monitor(struct vcp_mon *m)
{
	struct vcp_stat prev, cur;
	struct vcp_pkgacc d;
	long long t = vcp_t0, slot;
	bool started = false;
	int p;

	vcp_read_stat(&prev);
	while (t < vcp_end) {
		t += vcp_o.mon_ns;
		vcp_sleep_until(t);
		vcp_read_stat(&cur);
		vcp_stat_delta(&prev, &cur, &d);
		slot = (t - vcp_o.mon_ns / 2 - vcp_t0) / vcp_o.slot_ns;
		for (p = 0; slot < VCP_MAX_SLOTS && p < vcp_n_pkgs; p++) {
			m->slot_acc[slot].busy[p] += d.busy[p];
			m->slot_acc[slot].total[p] += d.total[p];
		}
		if (t > vcp_win_start && t <= vcp_win_end) {
			if (!started)
				m->first = prev;
			started = true;
			m->last = cur;
			m->intervals++;
			for (p = 0; p < vcp_n_pkgs; p++)
				if (d.busy[p] == 0)
					m->idle_intervals[p]++;
		}
		prev = cur;
	}
}

static void vcp_print_pkgs(const struct vcp_mon *m)
{
	struct vcp_pkgacc d;
	double expect;
	int p, cpu;

	vcp_stat_delta(&m->first, &m->last, &d);
	for (p = 0; p < vcp_n_pkgs; p++) {
		char cpus[256] = "";
		size_t len = 0;

		for (cpu = 0; cpu < VCP_MAX_CPUS; cpu++)
			if (vcp_pkg_of[cpu] == p)
				len += snprintf(cpus + len, sizeof(cpus) - len,
						"%s%d", len ? "," : "", cpu);
		printf("{\"type\":\"pkg\",\"pkg\":%d,\"cpus\":\"%s\","
		       "\"busy_pct\":%.1f,\"idle_pct\":%.1f,"
		       "\"all_idle_pct\":%.1f}\n",
		       p, cpus, vcp_pct(d.busy[p], d.total[p]),
		       100.0 - vcp_pct(d.busy[p], d.total[p]),
		       vcp_pct(m->idle_intervals[p], m->intervals));
	}
	/* ticks (USER_HZ) a CPU accounts, idle or busy, in the window */
	expect = (double)m->intervals * vcp_o.mon_ns / NSEC_PER_SEC *
		 sysconf(_SC_CLK_TCK);
	for (cpu = 0; cpu < VCP_MAX_CPUS; cpu++) {
		long long total;

		if (vcp_pkg_of[cpu] < 0 || !m->last.online[cpu])
			continue;
		total = m->last.total[cpu] - m->first.total[cpu];

		/*
		 * intr_pct: the window's ticks that found the CPU in hard or
		 * soft interrupt context; acct_pct: the time the CPU accounted
		 * at all, idle or busy, against the window. Most CPUs near 100
		 * in the one or near 0 in the other at once is the emulator's
		 * collapse, not a scheduling result (kernel/README.md, "The
		 * emulator's collapse").
		 */
		printf("{\"type\":\"cpu\",\"cpu\":%d,\"pkg\":%d,\"busy_pct\":%.1f,"
		       "\"intr_pct\":%.1f,\"acct_pct\":%.1f}\n",
		       cpu, vcp_pkg_of[cpu],
		       vcp_pct(m->last.busy[cpu] - m->first.busy[cpu], total),
		       vcp_pct(m->last.intr[cpu] - m->first.intr[cpu], total),
		       expect > 0 ? 100.0 * total / expect : 0.0);
	}
}

static void vcp_print_slots(const struct vcp_mon *m)
{
	long long n_slots = (vcp_end - vcp_t0 + vcp_o.slot_ns - 1) /
			    vcp_o.slot_ns;
	long long s;
	int p;

	for (s = 0; s < n_slots && s < VCP_MAX_SLOTS; s++) {
		char buf[VCP_MAX_PKGS * 8] = "";
		size_t len = 0;

		for (p = 0; p < vcp_n_pkgs; p++)
			len += snprintf(buf + len, sizeof(buf) - len, "%s%.0f",
					p ? "," : "",
					vcp_pct(m->slot_acc[s].busy[p],
						m->slot_acc[s].total[p]));
		printf("{\"type\":\"slot\",\"slot\":%lld,\"t_ms\":%lld,"
		       "\"warmup\":%s,\"pkg_busy\":\"%s\"}\n",
		       s, s * vcp_o.slot_ns / NSEC_PER_MSEC,
		       (vcp_t0 + (s + 1) * vcp_o.slot_ns <= vcp_win_start) ?
		       "true" : "false", buf);
	}
}

/* ---- per class and the limit (the parent, after the VMs) ---- */

static const char *vcp_class_of(const struct vcp_vm_spec *vm)
{
	return vm->class[0] ? vm->class : "-";
}

static long long vcp_due(const struct vcp_vm_spec *vm, long long phase);

/*
 * Pooled over every thread of every VM of one class: wakeup latencies,
 * bursts done against those due in the window, work chunks.
 */
static void vcp_print_classes(void)
{
	static const char *const classes[] = { "spread", "balanced", "pack", "-" };
	size_t c;

	for (c = 0; c < sizeof(classes) / sizeof(*classes); c++) {
		long long n = 0, bursts = 0, due = 0, missed = 0, work = 0;
		long long *all, sum = 0;
		int v, i, threads = 0;

		for (v = 0; v < vcp_o.n_vms; v++)
			if (!strcmp(vcp_class_of(&vcp_o.vms[v]), classes[c]))
				for (i = 0; i < vcp_o.vms[v].threads; i++)
					n += vcp_shm[vcp_first_thread(&vcp_o.vms[v]) + i].n_lat;
		all = malloc((n ? n : 1) * sizeof(*all));
		if (!all)
			vcp_die("out of memory");
		n = 0;
		for (v = 0; v < vcp_o.n_vms; v++) {
			const struct vcp_vm_spec *vm = &vcp_o.vms[v];

			if (strcmp(vcp_class_of(vm), classes[c]))
				continue;
			for (i = 0; i < vm->threads; i++) {
				const struct vcp_shared *sh =
					&vcp_shm[vcp_first_thread(vm) + i];

				memcpy(all + n, sh->lat, sh->n_lat * sizeof(*all));
				n += sh->n_lat;
				bursts += sh->bursts;
				missed += sh->missed;
				work += sh->work;
				threads++;
				if (!vcp_thread_steady(vm, i))
					due += vcp_due(vm, sh->phase_ns);
			}
		}
		if (threads) {
			qsort(all, n, sizeof(*all), vcp_cmp_ll);
			for (i = 0; i < n; i++)
				sum += all[i];
			printf("{\"type\":\"class\",\"class\":\"%s\",\"threads\":%d,"
			       "\"wakes\":%lld,\"wake_mean_us\":%.1f,\"wake_p50_us\":%.1f,"
			       "\"wake_p99_us\":%.1f,\"wake_max_us\":%.1f,\"bursts\":%lld,"
			       "\"bursts_due\":%lld,\"missed\":%lld,\"work\":%lld}\n",
			       classes[c], threads, n, n ? sum / 1000.0 / n : 0.0,
			       n ? all[n / 2] / 1000.0 : 0.0,
			       n ? all[(n * 99) / 100] / 1000.0 : 0.0,
			       n ? all[n - 1] / 1000.0 : 0.0, bursts, due, missed,
			       work);
		}
		free(all);
	}
}

/* Bursts of a bursty thread that start inside the window, by schedule. */
static long long vcp_due(const struct vcp_vm_spec *vm, long long phase)
{
	long long period = vcp_period(vm), k = 0;
	long long t = vcp_t0 + vm->start_ns + phase;
	long long stop = vm->stop_ns ? vcp_t0 + vm->stop_ns : vcp_end;

	for (; t < stop && t < vcp_win_end; t += period)
		k += t >= vcp_win_start;
	return k;
}

/* Is thread (@vm, @i, @phase) meant to be running at @t? */
static bool vcp_meant_busy(const struct vcp_vm_spec *vm, int i, long long phase,
			   long long t)
{
	long long start = vcp_t0 + vm->start_ns;
	long long stop = vm->stop_ns ? vcp_t0 + vm->stop_ns : vcp_end;
	long long period, off;

	if (t < start || t >= stop)
		return false;
	if (vcp_thread_steady(vm, i))
		return true;
	period = vcp_period(vm);
	off = t - start - phase;
	if (off < 0)
		return false;
	return off % period < vm->burst_ns;
}

/*
 * The limit: the all-idle residency of a perfect packer on this schedule.
 * At each instant (20 us steps over the window) the threads meant to run
 * then each need a CPU; threads of `spread` VMs need distinct packages
 * (that is what spread means) and everything else fills the fewest
 * packages: awake = max(min(spread running, P), ceil(running / cores per
 * package)), capped at P. limit = mean over the window of (P - awake) / P.
 * "cores per package" is its CPUs (hardware threads): the packer may put
 * a thread on every sibling. limit_core_pct is the same with the
 * package's physical cores (distinct core_id) instead, the packer that
 * never runs more busy threads than cores, as the series' levels do on
 * SMT; without SMT the two are equal.
 * Also printed: the mean and peak number of threads meant to run.
 */
static int vcp_awake(int run, int spread, int cores)
{
	int awake = (run + cores - 1) / cores;

	if (spread > awake)
		awake = spread;
	return awake > vcp_n_pkgs ? vcp_n_pkgs : awake;
}

static void vcp_print_limit(void)
{
	const long long step = 20000;
	int cores = 0, phys = 0, cpu, other, v, i;
	long long t, steps = 0, sleeping = 0, sleeping_core = 0, sum_run = 0,
		  peak = 0;

	for (cpu = 0; cpu < VCP_MAX_CPUS; cpu++) {
		if (vcp_pkg_of[cpu] != 0)
			continue;
		cores++;
		for (other = 0; other < cpu; other++)
			if (vcp_pkg_of[other] == 0 &&
			    vcp_core_of[other] == vcp_core_of[cpu] &&
			    vcp_core_of[cpu] >= 0)
				break;
		phys += other == cpu;
	}
	for (t = vcp_win_start; t < vcp_win_end; t += step) {
		int run = 0, spread = 0;

		for (v = 0; v < vcp_o.n_vms; v++) {
			const struct vcp_vm_spec *vm = &vcp_o.vms[v];
			int first = vcp_first_thread(vm);

			for (i = 0; i < vm->threads; i++) {
				if (!vcp_meant_busy(vm, i, vcp_shm[first + i].phase_ns, t))
					continue;
				run++;
				spread += !strcmp(vm->class, "spread");
			}
		}
		sleeping += vcp_n_pkgs - vcp_awake(run, spread, cores);
		sleeping_core += vcp_n_pkgs - vcp_awake(run, spread, phys);
		sum_run += run;
		if (run > peak)
			peak = run;
		steps++;
	}
	printf("{\"type\":\"limit\",\"pkgs\":%d,\"cores_per_pkg\":%d,"
	       "\"limit_pct\":%.2f,\"demand_mean\":%.3f,\"demand_peak\":%lld,"
	       "\"phys_cores_per_pkg\":%d,\"limit_core_pct\":%.2f}\n",
	       vcp_n_pkgs, cores, steps ? 100.0 * sleeping / steps / vcp_n_pkgs : 0,
	       steps ? (double)sum_run / steps : 0, peak, phys,
	       steps ? 100.0 * sleeping_core / steps / vcp_n_pkgs : 0);
}

/* ---- main ---- */

static void vcp_setup_vms(void)
{
	char got[32];
	int i;

	for (i = 0; i < vcp_o.n_vms; i++) {
		const struct vcp_vm_spec *vm = &vcp_o.vms[i];
		char path[352];

		vcp_cg_create(vm->cg);
		vcp_cg_set_class(vm, got, sizeof(got));
		vcp_cg_path(vm, NULL, path, sizeof(path));
		printf("{\"type\":\"vm\",\"vm\":\"%s\",\"threads\":%d,"
		       "\"class\":\"%s\",\"class_applied\":%s,"
		       "\"consolidate\":\"%s\",\"cgroup\":\"%s\",\"duty\":%d,"
		       "\"burst_ms\":%.1f,\"start_ms\":%lld,\"stop_ms\":%lld}\n",
		       vm->name, vm->threads, vm->class[0] ? vm->class : "-",
		       got[0] ? "true" : "false", got, path, vm->duty,
		       vm->burst_ns / 1e6, vm->start_ns / NSEC_PER_MSEC,
		       vm->stop_ns / NSEC_PER_MSEC);
	}
	fflush(stdout);
}

static void vcp_cleanup_vms(void)
{
	char path[352];
	int i;

	if (vcp_o.keep)
		return;
	for (i = vcp_o.n_vms - 1; i >= 0; i--) {
		vcp_cg_path(&vcp_o.vms[i], NULL, path, sizeof(path));
		if (rmdir(path) && errno != ENOENT && errno != EBUSY)
			fprintf(stderr, "vcwork: cannot remove cgroup '%s': %s\n",
				path, strerror(errno));
	}
}

/*
 * vcwork --write FILE VALUE: one write(2) of VALUE plus a newline (as echo
 * does; --write-raw: VALUE alone), then prints "ok" or the errno name, so
 * that scripts can check for EINVAL exactly. Exit 0 on success, 1 if not.
 */
static int vcp_write_cmd(const char *path, const char *val, bool raw)
{
	char buf[512];
	int fd, e;
	ssize_t n;

	snprintf(buf, sizeof(buf), "%s%s", val, raw ? "" : "\n");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		printf("open: %s (%s)\n", strerrorname_np(e), strerror(e));
		return 1;
	}
	n = write(fd, buf, strlen(buf));
	e = errno;
	close(fd);
	if (n < 0) {
		printf("%s (%s)\n", strerrorname_np(e), strerror(e));
		return 1;
	}
	printf(n == (ssize_t)strlen(buf) ? "ok\n" : "short write\n");
	return n == (ssize_t)strlen(buf) ? 0 : 1;
}

int main(int argc, char **argv)
{
	static struct vcp_mon mon;
	pid_t pids[VCP_MAX_VMS];
	int i, status, failed = 0;
	cpu_set_t set;

	if (argc == 4 && !strcmp(argv[1], "--write"))
		return vcp_write_cmd(argv[2], argv[3], false);
	if (argc == 4 && !strcmp(argv[1], "--write-raw"))
		return vcp_write_cmd(argv[2], argv[3], true);
	vcp_parse_args(argc, argv);
	vcp_load_topology();
	vcp_shm = mmap(NULL, vcp_total_threads() * sizeof(*vcp_shm),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (vcp_shm == MAP_FAILED)
		vcp_die("mmap: %s", strerror(errno));
	vcp_setup_vms();
	vcp_t0 = vcp_now() + 300 * NSEC_PER_MSEC;
	vcp_win_start = vcp_t0 + (long long)(vcp_o.warmup * NSEC_PER_SEC);
	vcp_win_end = vcp_win_start + (long long)(vcp_o.duration * NSEC_PER_SEC);
	vcp_end = vcp_win_end;
	printf("{\"type\":\"start\",\"pkgs\":%d,\"cgroup\":\"%s\","
	       "\"warmup_s\":%.1f,\"duration_s\":%.1f,\"vms\":%d,"
	       "\"t0_ns\":%lld,\"win_start_ns\":%lld,\"win_end_ns\":%lld}\n",
	       vcp_n_pkgs, vcp_cg_v2() ? "v2" : "v1", vcp_o.warmup,
	       vcp_o.duration, vcp_o.n_vms, vcp_t0, vcp_win_start, vcp_win_end);
	fflush(stdout);
	for (i = 0; i < vcp_o.n_vms; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			vcp_die("fork: %s", strerror(errno));
		if (!pids[i])
			vcp_vm_main(&vcp_o.vms[i]);
	}
	if (vcp_o.mon_cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(vcp_o.mon_cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	vcp_monitor(&mon);
	for (i = 0; i < vcp_o.n_vms; i++) {
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed++;
	}
	vcp_print_pkgs(&mon);
	vcp_print_classes();
	vcp_print_limit();
	vcp_print_slots(&mon);
	vcp_cleanup_vms();
	printf("{\"type\":\"end\",\"failed_vms\":%d}\n", failed);
	return failed ? 1 : 0;
}
