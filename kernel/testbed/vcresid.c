// SPDX-License-Identifier: GPL-2.0
/*
 * vcresid - package-idle residency of a guest, from the scheduler's own
 * events (ftrace sched_switch), not from anything the consolidation patches
 * report.
 *
 *   vcresid start [--buffer-kb N]
 *	stops and clears the trace, sets trace_clock=mono (CLOCK_MONOTONIC,
 *	the clock vcwork's window is in), enables sched:sched_switch only,
 *	turns tracing on, then visits every online CPU once (sched_setaffinity
 *	to it), so that each CPU's trace starts with a switch and its state
 *	(idle or not) is known from the start.
 *   vcresid report --window VCWORK.OUT [--slot-ms MS]
 *	turns tracing off, reads the window [win_start_ns, win_end_ns) from
 *	vcwork's "start" line, and from per_cpu/cpuN/trace computes per
 *	package, over the window: the share of time during which every CPU of
 *	the package ran the idle task at once (all-idle residency), the same
 *	counted only in all-idle stretches of at least 200 us, 1 ms and 10 ms
 *	(a deep package C-state needs a stretch longer than its exit
 *	latency), the number of stretches, and the CPUs' busy share; the
 *	same all-idle figures for the whole guest (system all-idle: every
 *	CPU of every package idle at once; on Intel Xeons package C6 is
 *	entered only then, BENCHMARKS.md); per slot of the window, each
 *	package's all-idle share (a timeline); and whether any event of the
 *	window was lost (ring-buffer overrun).
 *
 *   vcresid pace HZ
 *	turns on the RTC's periodic interrupt at HZ (rtc-core runs it as an
 *	hrtimer on one CPU; no task is woken: nobody reads /dev/rtc0) and
 *	leaves a process holding /dev/rtc0 open. It paces single-threaded
 *	TCG, which otherwise runs a spinning vCPU until the next virtual-clock
 *	deadline while a woken one waits (BENCHMARKS.md). Prints "rpace".
 *
 * A CPU is idle from a switch to pid 0 until the next switch away from it.
 * Output: JSON lines ("type": resid, rslot, rtotal); errors on stderr,
 * exit 1; usage 2. VCRESID_TRACEFS and VCRESID_SYSFS replace
 * /sys/kernel/tracing and /sys/devices/system/cpu (tests/bench).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/rtc.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define R_MAX_CPUS	64
#define R_MAX_PKGS	16
#define R_MAX_SLOTS	1000
static const char *r_tracefs = "/sys/kernel/tracing";
static const char *r_sysfs = "/sys/devices/system/cpu";
#define R_NSEC		1000000000LL

static const long long r_thresh_ns[] = { 0, 200000, 1000000, 10000000 };
#define R_N_THRESH	(sizeof(r_thresh_ns) / sizeof(r_thresh_ns[0]))

struct r_ev {
	long long t;
	int cpu;
	bool idle;	/* the CPU is idle after this event */
};

static void r_die(const char *fmt, const char *arg)
{
	fprintf(stderr, "vcresid: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(1);
}

static int r_write(const char *file, const char *val)
{
	char path[256];
	int fd, r = 0;

	snprintf(path, sizeof(path), "%s/%s", r_tracefs, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		r = -errno;
	close(fd);
	return r;
}

static void r_must_write(const char *file, const char *val)
{
	char msg[320];

	if (r_write(file, val)) {
		snprintf(msg, sizeof(msg), "%s/%s <- '%s': %s", r_tracefs,
			 file, val, strerror(errno));
		r_die("%s", msg);
	}
}

static int r_pkg_of(int cpu)
{
	char path[96];
	FILE *f;
	int pkg = -1;

	snprintf(path, sizeof(path), "%s/cpu%d/topology/physical_package_id",
		 r_sysfs, cpu);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &pkg) != 1)
		pkg = -1;
	fclose(f);
	return pkg >= 0 && pkg < R_MAX_PKGS ? pkg : -1;
}

static int r_cmd_start(int kb)
{
	char buf[32];
	cpu_set_t set;
	int cpu, visited = 0;

	r_must_write("tracing_on", "0");
	r_must_write("events/enable", "0");
	r_must_write("trace_clock", "mono");
	snprintf(buf, sizeof(buf), "%d", kb);
	r_must_write("buffer_size_kb", buf);
	r_must_write("trace", "");
	r_must_write("events/sched/sched_switch/enable", "1");
	r_must_write("tracing_on", "1");
	for (cpu = 0; cpu < R_MAX_CPUS; cpu++) {
		if (r_pkg_of(cpu) < 0)
			continue;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) == 0) {
			sched_yield();
			visited++;
		}
	}
	printf("{\"type\":\"rstart\",\"cpus_visited\":%d,\"buffer_kb\":%d}\n",
	       visited, kb);
	return 0;
}

/* "...  12345.678901: sched_switch: prev_comm=... prev_pid=N ... next_pid=M" */
static int r_parse_switch(const char *line, long long *t, int *prev, int *next)
{
	const char *ev = strstr(line, ": sched_switch: ");
	const char *p, *pp, *np;
	long long sec = 0, frac = 0;
	int digits = 0;

	if (!ev)
		return -1;
	p = ev;
	while (p > line && p[-1] != ' ')
		p--;
	for (; *p >= '0' && *p <= '9'; p++)
		sec = sec * 10 + (*p - '0');
	if (*p++ != '.')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++, digits++)
		frac = frac * 10 + (*p - '0');
	while (digits < 9) {
		frac *= 10;
		digits++;
	}
	pp = strstr(ev, " prev_pid=");
	np = strstr(ev, " next_pid=");
	if (!pp || !np)
		return -1;
	*t = sec * R_NSEC + frac;
	*prev = atoi(pp + 10);
	*next = atoi(np + 10);
	return 0;
}

struct r_evs {
	struct r_ev *v;
	size_t n, cap;
};

static void r_push(struct r_evs *e, long long t, int cpu, bool idle)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 4096;
		e->v = realloc(e->v, e->cap * sizeof(*e->v));
		if (!e->v)
			r_die("%s", "out of memory");
	}
	e->v[e->n].t = t;
	e->v[e->n].cpu = cpu;
	e->v[e->n].idle = idle;
	e->n++;
}

/*
 * Reads one CPU's events into @e; the first element is the CPU's state
 * before its first event (at time LLONG_MIN). Returns the number of
 * events, 0 if there were none.
 */
static size_t r_read_cpu(int cpu, struct r_evs *e)
{
	char path[512], line[1024];
	FILE *f;
	long long t;
	int prev, next;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace", r_tracefs, cpu);
	f = fopen(path, "re");
	if (!f)
		r_die("cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || r_parse_switch(line, &t, &prev, &next))
			continue;
		if (!n)
			r_push(e, INT64_MIN, cpu, prev == 0);
		r_push(e, t, cpu, next == 0);
		n++;
	}
	fclose(f);
	return n;
}

/* Oldest event still in CPU @cpu's buffer and its overrun count. */
static void r_cpu_stats(int cpu, long long *oldest, long long *overrun)
{
	char path[512], line[256];
	FILE *f;
	long long s, us;

	*oldest = 0;
	*overrun = 0;
	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", r_tracefs, cpu);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "overrun: %lld", overrun) == 1)
			continue;
		if (sscanf(line, "oldest event ts: %lld.%lld", &s, &us) == 2)
			*oldest = s * R_NSEC + us * 1000;
	}
	fclose(f);
}

static int r_cmp_ev(const void *a, const void *b)
{
	const struct r_ev *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

static void r_read_window(const char *file, long long *a, long long *b)
{
	char line[1024];
	FILE *f = fopen(file, "re");
	const char *p;

	*a = *b = 0;
	if (!f)
		r_die("cannot open %s", file);
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "\"type\":\"start\""))
			continue;
		p = strstr(line, "\"win_start_ns\":");
		if (p)
			*a = atoll(p + 15);
		p = strstr(line, "\"win_end_ns\":");
		if (p)
			*b = atoll(p + 13);
	}
	fclose(f);
	if (*a <= 0 || *b <= *a)
		r_die("no window (win_start_ns/win_end_ns) in %s", file);
}

struct r_pkg {
	int n_cpus;
	long long idle_ns[R_N_THRESH];
	long long stretches;
	long long busy_ns;	/* summed over the package's CPUs */
	long long slot_idle[R_MAX_SLOTS];
};

static void r_add_slots(struct r_pkg *p, long long from, long long to,
			long long a, long long slot_ns, int n_slots)
{
	while (from < to) {
		long long s = (from - a) / slot_ns;
		long long end = a + (s + 1) * slot_ns;

		if (s >= n_slots)
			break;
		if (end > to)
			end = to;
		p->slot_idle[s] += end - from;
		from = end;
	}
}

/* One all-idle stretch [from, to) of a package. */
static void r_stretch(struct r_pkg *p, long long from, long long to,
		      long long a, long long slot_ns, int n_slots)
{
	unsigned int k;

	p->stretches++;
	for (k = 0; k < R_N_THRESH; k++)
		if (to - from >= r_thresh_ns[k])
			p->idle_ns[k] += to - from;
	r_add_slots(p, from, to, a, slot_ns, n_slots);
}

/* Sweeps one package's merged events over [a, b). */
static void r_sweep(struct r_pkg *p, struct r_ev *v, size_t n, bool *idle,
		    long long a, long long b, long long slot_ns, int n_slots)
{
	int busy = 0, c;
	long long t = a, start = a;
	size_t i;

	for (c = 0; c < R_MAX_CPUS; c++)
		busy += !idle[c] && idle[c + R_MAX_CPUS];	/* member, busy */
	for (i = 0; i <= n; i++) {
		long long now = i < n ? v[i].t : b;

		if (now > b)
			now = b;
		if (now > t) {
			p->busy_ns += busy * (now - t);
			t = now;
		}
		if (i == n || now >= b)
			break;
		c = v[i].cpu;
		if (idle[c] == v[i].idle)
			continue;
		if (v[i].idle) {
			idle[c] = true;
			if (--busy == 0)
				start = now;
		} else {
			idle[c] = false;
			if (busy++ == 0 && now > start)
				r_stretch(p, start, now, a, slot_ns, n_slots);
		}
	}
	if (busy == 0 && b > start)
		r_stretch(p, start, b, a, slot_ns, n_slots);
}

/*
 * Sweeps the CPUs of package @pkg (-1: every CPU of the guest, for the
 * system all-idle residency) over [a, b).
 */
static void r_sweep_cpus(struct r_pkg *p, int pkg, const int *pkg_of,
			 struct r_evs *cpu_evs, long long a, long long b,
			 long long slot_ns, int n_slots)
{
	/* idle[c]: state of CPU c; idle[R_MAX_CPUS + c]: c is a member */
	bool idle[2 * R_MAX_CPUS];
	struct r_evs m = { 0 };
	int cpu;
	size_t i;

	memset(idle, 0, sizeof(idle));
	for (cpu = 0; cpu < R_MAX_CPUS; cpu++) {
		struct r_evs *e = &cpu_evs[cpu];

		if (pkg_of[cpu] < 0 || (pkg >= 0 && pkg_of[cpu] != pkg))
			continue;
		idle[R_MAX_CPUS + cpu] = true;
		/* no event at all: idle throughout (it was visited) */
		idle[cpu] = true;
		for (i = 0; i < e->n && e->v[i].t <= a; i++)
			idle[cpu] = e->v[i].idle;
		for (; i < e->n && e->v[i].t < b; i++)
			r_push(&m, e->v[i].t, cpu, e->v[i].idle);
	}
	qsort(m.v, m.n, sizeof(*m.v), r_cmp_ev);
	r_sweep(p, m.v, m.n, idle, a, b, slot_ns, n_slots);
	free(m.v);
}

static int r_cmd_report(const char *window, long long slot_ns)
{
	static struct r_pkg pkgs[R_MAX_PKGS], sys;
	static struct r_evs cpu_evs[R_MAX_CPUS];
	long long a, b, oldest, overrun, overruns = 0;
	int cpu, pkg, n_pkgs = 0, n_slots, no_events = 0, lost = 0;
	int pkg_of[R_MAX_CPUS];
	size_t total_events = 0, n;
	double sum[R_N_THRESH] = { 0 };
	unsigned int k;

	r_write("tracing_on", "0");
	r_read_window(window, &a, &b);
	n_slots = (int)((b - a + slot_ns - 1) / slot_ns);
	if (n_slots > R_MAX_SLOTS)
		n_slots = R_MAX_SLOTS;
	for (cpu = 0; cpu < R_MAX_CPUS; cpu++) {
		pkg_of[cpu] = r_pkg_of(cpu);
		if (pkg_of[cpu] < 0)
			continue;
		if (pkg_of[cpu] + 1 > n_pkgs)
			n_pkgs = pkg_of[cpu] + 1;
		pkgs[pkg_of[cpu]].n_cpus++;
		n = r_read_cpu(cpu, &cpu_evs[cpu]);
		if (!n)
			no_events++;
		total_events += n;
		r_cpu_stats(cpu, &oldest, &overrun);
		overruns += overrun;
		if (overrun && oldest > a)
			lost++;
	}
	if (!n_pkgs)
		r_die("%s", "no CPU topology in sysfs");
	for (pkg = 0; pkg < n_pkgs; pkg++) {
		struct r_pkg *p = &pkgs[pkg];

		r_sweep_cpus(p, pkg, pkg_of, cpu_evs, a, b, slot_ns, n_slots);
		printf("{\"type\":\"resid\",\"pkg\":%d,\"cpus\":%d,"
		       "\"all_idle_pct\":%.2f,\"all_idle_200us_pct\":%.2f,"
		       "\"all_idle_1ms_pct\":%.2f,\"all_idle_10ms_pct\":%.2f,"
		       "\"stretches\":%lld,\"busy_pct\":%.2f}\n",
		       pkg, p->n_cpus,
		       100.0 * p->idle_ns[0] / (b - a),
		       100.0 * p->idle_ns[1] / (b - a),
		       100.0 * p->idle_ns[2] / (b - a),
		       100.0 * p->idle_ns[3] / (b - a), p->stretches,
		       p->n_cpus ? 100.0 * p->busy_ns / p->n_cpus / (b - a) : 0);
		for (k = 0; k < R_N_THRESH; k++)
			sum[k] += 100.0 * p->idle_ns[k] / (b - a);
	}
	r_sweep_cpus(&sys, -1, pkg_of, cpu_evs, a, b, slot_ns, n_slots);
	for (int s = 0; s < n_slots; s++) {
		char buf[R_MAX_PKGS * 8];
		size_t len = 0;
		long long w = s == n_slots - 1 ? b - a - s * slot_ns : slot_ns;

		for (pkg = 0; pkg < n_pkgs; pkg++)
			len += snprintf(buf + len, sizeof(buf) - len, "%s%.0f",
					pkg ? "," : "",
					100.0 * pkgs[pkg].slot_idle[s] / w);
		printf("{\"type\":\"rslot\",\"slot\":%d,\"t_ms\":%lld,"
		       "\"all_idle\":\"%s\"}\n", s, s * slot_ns / 1000000, buf);
	}
	printf("{\"type\":\"rtotal\",\"pkgs\":%d,\"window_ms\":%lld,"
	       "\"all_idle_pct\":%.2f,\"all_idle_200us_pct\":%.2f,"
	       "\"all_idle_1ms_pct\":%.2f,\"all_idle_10ms_pct\":%.2f,"
	       "\"sys_all_idle_pct\":%.2f,\"sys_all_idle_200us_pct\":%.2f,"
	       "\"sys_all_idle_1ms_pct\":%.2f,\"sys_all_idle_10ms_pct\":%.2f,"
	       "\"sys_stretches\":%lld,"
	       "\"events\":%zu,\"cpus_without_events\":%d,\"overruns\":%lld,"
	       "\"lost_in_window\":%s}\n",
	       n_pkgs, (b - a) / 1000000, sum[0] / n_pkgs, sum[1] / n_pkgs,
	       sum[2] / n_pkgs, sum[3] / n_pkgs,
	       100.0 * sys.idle_ns[0] / (b - a),
	       100.0 * sys.idle_ns[1] / (b - a),
	       100.0 * sys.idle_ns[2] / (b - a),
	       100.0 * sys.idle_ns[3] / (b - a), sys.stretches,
	       total_events, no_events,
	       overruns, lost ? "true" : "false");
	return lost ? 1 : 0;
}

static int r_cmd_pace(int hz)
{
	int fd = open("/dev/rtc0", O_RDONLY | O_CLOEXEC);
	pid_t pid;

	if (fd < 0)
		r_die("cannot open /dev/rtc0: %s (no RTC in this kernel?)",
		      strerror(errno));
	if (ioctl(fd, RTC_IRQP_SET, (unsigned long)hz) < 0)
		r_die("RTC_IRQP_SET: %s", strerror(errno));
	if (ioctl(fd, RTC_PIE_ON, 0) < 0)
		r_die("RTC_PIE_ON: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		r_die("fork: %s", strerror(errno));
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		/* let the caller's $(...) end: no inherited stdio */
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		setsid();
		for (;;)
			pause();
	}
	printf("{\"type\":\"rpace\",\"hz\":%d,\"pid\":%d}\n", hz, (int)pid);
	return 0;
}

static void r_usage(void)
{
	fprintf(stderr, "usage: vcresid start [--buffer-kb N]\n"
			"       vcresid pace HZ\n"
			"       vcresid report --window VCWORK.OUT [--slot-ms MS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *window = NULL;
	long long slot_ms = 100;
	int kb = 4096, i;

	if (getenv("VCRESID_TRACEFS"))
		r_tracefs = getenv("VCRESID_TRACEFS");
	if (getenv("VCRESID_SYSFS"))
		r_sysfs = getenv("VCRESID_SYSFS");
	if (argc < 2)
		r_usage();
	if (argc == 3 && !strcmp(argv[1], "pace")) {
		i = atoi(argv[2]);
		if (i < 2 || i > 8192)
			r_usage();
		return r_cmd_pace(i);
	}
	for (i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--buffer-kb"))
			kb = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--window"))
			window = argv[i + 1];
		else if (!strcmp(argv[i], "--slot-ms"))
			slot_ms = atoll(argv[i + 1]);
		else
			r_usage();
	}
	if (i != argc || kb < 64 || slot_ms <= 0)
		r_usage();
	if (!strcmp(argv[1], "start"))
		return r_cmd_start(kb);
	if (!strcmp(argv[1], "report") && window)
		return r_cmd_report(window, slot_ms * 1000000);
	r_usage();
	return 2;
}
