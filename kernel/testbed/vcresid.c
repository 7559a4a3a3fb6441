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
 *   vcresid start --wakeups [--events SYSTEM/EVENT,...]
 *	the same with sched:sched_wakeup on too, for vcresid waits, and
 *	the events listed (e.g. irq/softirq_entry), for --slow-trace.
 *   vcresid waits --window VCWORK.OUT
 *	turns tracing off and says, per class of vcwork's bursty threads,
 *	how long their wakeups waited for a CPU (sched_wakeup to the
 *	sched_switch that runs the thread) and where they were queued: on an
 *	idle CPU, on a busy one while its package had an idle CPU, in a
 *	package with no idle CPU while another had one, or with no CPU idle
 *	anywhere; and, for the waits at or above the class's p99, how many
 *	were of each kind and how many queued behind another such thread
 *	(see r_cmd_waits()). Needs vcwork's "tid" in its thread lines.
 *	--slow US: also one "wslow" line for each wait of at least US
 *	microseconds (when, where queued, traced and run, what the target
 *	CPU ran then and next); --slow-trace N: the target CPU's trace
 *	lines ("wtrace") from 200 us before each of the first N (at most
 *	16) such wakeups to the switch that ran the thread. --pace-cpu
 *	CPU: the CPU that takes the pacing interrupt (vcresid pace prints
 *	it); how many wakeups were queued on it, how many of the tail, and
 *	the p99 of the others.
 *   vcresid opens --window VCWORK.OUT
 *	turns tracing off and says, per package, what ended its all-idle
 *	stretches inside the window and how long it stayed awake after each:
 *	a thread woken where it last ran, woken into it from another package,
 *	moved there by the balancer while runnable, or another task (see
 *	r_cmd_opens()). Needs the trace of start --wakeups.
 *
 *   vcresid pace HZ [--cpu CPU]
 *	turns on the RTC's periodic interrupt at HZ (rtc-core runs it as an
 *	hrtimer on one CPU; no task is woken: nobody reads /dev/rtc0) and
 *	leaves a process holding /dev/rtc0 open. It paces single-threaded
 *	TCG, which otherwise runs a spinning vCPU until the next virtual-clock
 *	deadline while a woken one waits (BENCHMARKS.md). The hrtimer stays
 *	on the CPU it was started on: CPU if given, else the one this runs
 *	on; "rpace" names it ("cpu").
 *
 * A CPU is idle from a switch to pid 0 until the next switch away from it.
 * VCPACK_PACE_CPU=CPU: that CPU is outside the measured topology (the
 * benchmark's pacing CPU, alone in a package of its own): in no package,
 * not in the system figures, not visited by start. Output: JSON lines
 * ("type": resid, rslot, rtotal; wclass, wslow, wtrace, wtotal; wopen,
 * wopentotal); errors on stderr, exit 1; usage 2. VCRESID_TRACEFS and VCRESID_SYSFS replace
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
static int r_outside = -1; /* VCPACK_PACE_CPU */
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

	if (cpu == r_outside)
		return -1;
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

static int r_cmd_start(int kb, bool wakeups, const char *events)
{
	char ev[256], *tok, *save = NULL;
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
	if (wakeups)
		r_must_write("events/sched/sched_wakeup/enable", "1");
	snprintf(ev, sizeof(ev), "%s", events ? events : "");
	for (tok = strtok_r(ev, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char file[320];

		if (!*tok || strstr(tok, ".."))
			r_die("bad event '%s' (SYSTEM/EVENT)", tok);
		snprintf(file, sizeof(file), "events/%s/enable", tok);
		r_must_write(file, "1");
	}
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
	printf("{\"type\":\"rstart\",\"cpus_visited\":%d,\"buffer_kb\":%d,"
	       "\"wakeups\":%s}\n", visited, kb, wakeups ? "true" : "false");
	return 0;
}

/* The timestamp before event @ev ("...  12345.678901: EVENT: ...") in ns. */
static int r_parse_ts(const char *line, const char *ev, long long *t)
{
	const char *p = ev;
	long long sec = 0, frac = 0;
	int digits = 0;

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
	*t = sec * R_NSEC + frac;
	return 0;
}

/*
 * "...  12345.678901: EVENT: ... K1N ... K2M": the time and the integers
 * after the keys @k1 and @k2 (with their leading space and '=').
 */
static int r_parse_event(const char *line, const char *event, const char *k1,
			 const char *k2, long long *t, int *a, int *b)
{
	char tag[64];
	const char *ev, *p1, *p2;

	snprintf(tag, sizeof(tag), ": %s: ", event);
	ev = strstr(line, tag);
	if (!ev || r_parse_ts(line, ev, t))
		return -1;
	p1 = strstr(ev, k1);
	p2 = strstr(ev, k2);
	if (!p1 || !p2)
		return -1;
	*a = atoi(p1 + strlen(k1));
	*b = atoi(p2 + strlen(k2));
	return 0;
}

/* "... sched_switch: prev_comm=... prev_pid=N ... next_pid=M" */
static int r_parse_switch(const char *line, long long *t, int *prev, int *next)
{
	return r_parse_event(line, "sched_switch", " prev_pid=", " next_pid=",
			     t, prev, next);
}

/* "... sched_wakeup: comm=... pid=N prio=P target_cpu=C" */
static int r_parse_wakeup(const char *line, long long *t, int *pid, int *cpu)
{
	return r_parse_event(line, "sched_wakeup", " pid=", " target_cpu=",
			     t, pid, cpu);
}

struct r_evs {
	struct r_ev *v;
	size_t n, cap;
};

/*
 * Room for one more element of @size in array @v holding @n of @*cap:
 * doubles it (from @first) when full. Returns the array, maybe moved.
 */
static void *r_grow(void *v, size_t n, size_t *cap, size_t size, size_t first)
{
	if (n < *cap)
		return v;
	*cap = *cap ? 2 * *cap : first;
	v = realloc(v, *cap * size);
	if (!v)
		r_die("%s", "out of memory");
	return v;
}

static void r_push(struct r_evs *e, long long t, int cpu, bool idle)
{
	e->v = r_grow(e->v, e->n, &e->cap, sizeof(*e->v), 4096);
	e->v[e->n].t = t;
	e->v[e->n].cpu = cpu;
	e->v[e->n].idle = idle;
	e->n++;
}

/* CPU @cpu's trace buffer, read without consuming it. */
static FILE *r_open_trace(int cpu)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace", r_tracefs, cpu);
	f = fopen(path, "re");
	if (!f)
		r_die("cannot open %s", path);
	return f;
}

/*
 * Reads one CPU's events into @e; the first element is the CPU's state
 * before its first event (at time LLONG_MIN). Returns the number of
 * events, 0 if there were none.
 */
static size_t r_read_cpu(int cpu, struct r_evs *e)
{
	char line[1024];
	FILE *f;
	long long t;
	int prev, next;
	size_t n = 0;

	f = r_open_trace(cpu);
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

/*
 * vcresid waits: where the wakeups of vcwork's bursty threads wait. Each
 * sched_wakeup of a thread named in vcwork's output (its "tid") inside the
 * window is followed to the sched_switch that runs it; the time between
 * is the wait for a CPU (the timer's lateness before the wakeup is not in
 * it). A wakeup is counted by the state at that moment of the CPU it was
 * queued on: idle, and the CPU ran the thread first; idle, but the CPU
 * ran another task first ("idle_taken": a task pulled or woken onto the
 * same idle CPU at about the same time); busy while another CPU of its
 * package was idle (a placement miss inside the package); busy with
 * every CPU of its package busy but an idle CPU in another package (the
 * package is full); busy with no CPU idle anywhere. Wakeups of a thread
 * that was still running are left out.
 */
enum w_cat { W_IDLE, W_IDLETAKEN, W_PKGIDLE, W_PKGFULL, W_ALLBUSY, W_NCAT };
static const char *const w_cat_name[W_NCAT] = {
	"idle", "idle_taken", "pkg_idle", "pkg_full", "all_busy"
};

#define W_MAX_THREADS	2048
#define W_MAX_CLASSES	8

struct w_ev {
	long long t;
	size_t seq;	/* order within the CPU's buffer, for equal times */
	int cpu, a, b;	/* switch: prev, next; wakeup: pid, target CPU */
	bool wakeup;
};

struct w_thread {
	int tid, class;
	bool steady;		/* always busy: its wakeups are not counted */
	bool pending, behind;	/* a wakeup waits; queued behind a thread */
	bool target_ran;	/* its target CPU switched since the wakeup */
	enum w_cat cat;
	int target, rec_cpu;	/* queued on; the CPU that traced the wakeup */
	int curr0, first_next;	/* target's task then; its next one after */
	int idle_pkg, idle_other; /* other idle CPUs then: in its package, not */
	long long t0, first_t;
};

struct w_class {
	char name[16];
	long long *wait[W_NCAT];
	size_t n[W_NCAT], cap[W_NCAT];
	long long running, migrated;
};

static struct w_ev *w_evs;
static size_t w_n, w_cap;
/* the comm a pid was last switched to under, for the wslow lines */
#define W_MAX_PID	32768
static char w_comm[W_MAX_PID][16];

static void w_note_comm(const char *line, int pid)
{
	const char *p = strstr(line, " next_comm=");

	if (p && pid > 0 && pid < W_MAX_PID)
		sscanf(p + 11, "%15s", w_comm[pid]);
}

static const char *w_comm_of(int pid)
{
	if (pid == 0)
		return "idle";
	return pid > 0 && pid < W_MAX_PID && w_comm[pid][0] ? w_comm[pid] : "?";
}

static void w_push(const struct w_ev *e)
{
	w_evs = r_grow(w_evs, w_n, &w_cap, sizeof(*w_evs), 8192);
	w_evs[w_n++] = *e;
}

static int w_cmp_ev(const void *a, const void *b)
{
	const struct w_ev *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void w_add(struct w_class *c, enum w_cat k, long long wait)
{
	c->wait[k] = r_grow(c->wait[k], c->n[k], &c->cap[k],
			    sizeof(long long), 1024);
	c->wait[k][c->n[k]++] = wait;
}

/* The threads of vcwork's output: tid, class and whether steady. */
static int w_read_threads(const char *file, struct w_thread *th,
			  struct w_class *cl, int *n_cl)
{
	char line[8192], name[16];
	FILE *f = fopen(file, "re");
	const char *p;
	int n = 0, k;

	if (!f)
		r_die("cannot open %s", file);
	while (fgets(line, sizeof(line), f) && n < W_MAX_THREADS) {
		if (!strstr(line, "\"type\":\"thread\""))
			continue;
		p = strstr(line, "\"tid\":");
		if (!p || atoi(p + 6) <= 0)
			r_die("no tid in a thread line of %s (vcwork too old?)", file);
		th[n].tid = atoi(p + 6);
		p = strstr(line, "\"class\":\"");
		if (!p || sscanf(p + 9, "%15[^\"]", name) != 1)
			r_die("no class in a thread line of %s", file);
		for (k = 0; k < *n_cl && strcmp(cl[k].name, name); k++)
			;
		if (k == *n_cl) {
			if (k == W_MAX_CLASSES)
				r_die("too many classes in %s", file);
			snprintf(cl[k].name, sizeof(cl[k].name), "%s", name);
			(*n_cl)++;
		}
		th[n].steady = strstr(line, "\"steady\":true");
		th[n++].class = k;
	}
	fclose(f);
	return n;
}

static struct w_thread *w_find(struct w_thread *th, int n, int tid)
{
	for (int i = 0; i < n; i++)
		if (th[i].tid == tid)
			return &th[i];
	return NULL;
}

static void w_read_cpu(int cpu)
{
	char line[1024];
	struct w_ev e = { .cpu = cpu };
	FILE *f;

	f = r_open_trace(cpu);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (!r_parse_switch(line, &e.t, &e.a, &e.b)) {
			e.wakeup = false;
			w_note_comm(line, e.b);
		} else if (!r_parse_wakeup(line, &e.t, &e.a, &e.b)) {
			e.wakeup = true;
		} else {
			continue;
		}
		w_push(&e);
		e.seq++;
	}
	fclose(f);
}

/*
 * The category of a wakeup queued on @target, from the CPUs' tasks; the
 * number of other idle CPUs in its package and elsewhere into @t.
 */
static enum w_cat w_category(const int *curr, const int *pkg_of, int target,
			     struct w_thread *t)
{
	t->idle_pkg = t->idle_other = 0;
	for (int c = 0; c < R_MAX_CPUS; c++) {
		if (pkg_of[c] < 0 || curr[c] || c == target)
			continue;
		if (pkg_of[c] == pkg_of[target])
			t->idle_pkg++;
		else
			t->idle_other++;
	}
	if (!curr[target])
		return W_IDLE;
	return t->idle_pkg ? W_PKGIDLE : t->idle_other ? W_PKGFULL : W_ALLBUSY;
}

/*
 * Waits are kept as (ns << 2) | (on the pace CPU << 1) | behind: sorting
 * orders them by time.
 */
#define W_BEHIND	1
#define W_ON_PACE	2
#define W_SHIFT		2
static long long w_pct(const long long *v, size_t n, int pct)
{
	return n ? (v[(n * pct) / 100] >> W_SHIFT) : 0;
}

static int w_cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static void w_print_class(struct w_class *c)
{
	size_t all = 0, tail[W_NCAT] = { 0 }, behind = 0, i, j;
	size_t on_pace = 0, tail_pace = 0, off = 0;
	long long *v, *w, p99;
	int k;

	for (k = 0; k < W_NCAT; k++) {
		qsort(c->wait[k], c->n[k], sizeof(long long), w_cmp_ll);
		all += c->n[k];
	}
	v = malloc((all ? all : 1) * sizeof(*v));
	w = malloc((all ? all : 1) * sizeof(*w));
	if (!v || !w)
		r_die("%s", "out of memory");
	for (k = 0, j = 0; k < W_NCAT; k++)
		for (i = 0; i < c->n[k]; i++) {
			v[j++] = c->wait[k][i];
			if (c->wait[k][i] & W_ON_PACE)
				on_pace++;
			else
				w[off++] = c->wait[k][i];
		}
	qsort(v, all, sizeof(*v), w_cmp_ll);
	qsort(w, off, sizeof(*w), w_cmp_ll);
	p99 = w_pct(v, all, 99);
	/* the waits at or above the class's p99: where they were queued */
	for (k = 0; k < W_NCAT && all; k++)
		for (i = 0; i < c->n[k]; i++) {
			if ((c->wait[k][i] >> W_SHIFT) < p99)
				continue;
			tail[k]++;
			behind += !!(c->wait[k][i] & W_BEHIND);
			tail_pace += !!(c->wait[k][i] & W_ON_PACE);
		}
	printf("{\"type\":\"wclass\",\"class\":\"%s\",\"wakeups\":%zu,"
	       "\"running\":%lld,\"migrated\":%lld,\"p50_us\":%.1f,"
	       "\"p99_us\":%.1f,\"max_us\":%.1f,\"tail_behind_thread\":%zu,"
	       "\"n_on_pace\":%zu,\"tail_on_pace\":%zu,\"p99_off_pace_us\":%.1f",
	       c->name, all, c->running, c->migrated,
	       w_pct(v, all, 50) / 1e3, p99 / 1e3,
	       all ? (v[all - 1] >> W_SHIFT) / 1e3 : 0.0, behind, on_pace,
	       tail_pace, w_pct(w, off, 99) / 1e3);
	for (k = 0; k < W_NCAT; k++)
		printf(",\"n_%s\":%zu,\"p50_%s_us\":%.1f,\"p99_%s_us\":%.1f,"
		       "\"tail_%s\":%zu",
		       w_cat_name[k], c->n[k], w_cat_name[k],
		       w_pct(c->wait[k], c->n[k], 50) / 1e3, w_cat_name[k],
		       w_pct(c->wait[k], c->n[k], 99) / 1e3, w_cat_name[k],
		       tail[k]);
	printf("}\n");
	free(v);
	free(w);
}

/* An idle target CPU that runs another task first: the wakeup was overtaken. */
static void w_first_switch(struct w_thread *th, int n_th, const struct w_ev *e)
{
	for (int i = 0; i < n_th; i++) {
		struct w_thread *t = &th[i];

		if (!t->pending || t->target_ran || t->target != e->cpu)
			continue;
		t->target_ran = true;
		t->first_t = e->t;
		t->first_next = e->b;
		if (t->cat == W_IDLE && e->b != t->tid) {
			t->cat = W_IDLETAKEN;
			t->behind = w_find(th, n_th, e->b);
		}
	}
}

/* The slow waits whose target CPU's events --slow-trace prints. */
#define W_MAX_SLOW_TRACE	16
static struct { int cpu; long long from, to; } w_slow[W_MAX_SLOW_TRACE];
static int w_n_slow;

/* Prints the events of CPU @cpu in [from, to] as "wtrace" lines. */
static void w_print_trace(int n, int cpu, long long from, long long to)
{
	char line[1024];
	long long t;
	FILE *f;

	f = r_open_trace(cpu);
	while (fgets(line, sizeof(line), f)) {
		const char *ev = strstr(line, ": ");

		if (line[0] == '#' || !ev || r_parse_ts(line, ev, &t) ||
		    t < from || t > to)
			continue;
		line[strcspn(line, "\n")] = 0;
		printf("{\"type\":\"wtrace\",\"slow\":%d,\"cpu\":%d,"
		       "\"line\":\"", n, cpu);
		for (const char *p = line; *p; p++) {
			if (*p == '"' || *p == '\\')
				putchar('\\');
			putchar((unsigned char)*p < ' ' ? ' ' : *p);
		}
		printf("\"}\n");
	}
	fclose(f);
}

/* A wait of at least --slow US, in detail. */
static void w_print_slow(const struct w_thread *t, const struct w_class *c,
			 const struct w_ev *e, long long a)
{
	printf("{\"type\":\"wslow\",\"class\":\"%s\",\"tid\":%d,"
	       "\"at_ms\":%.3f,\"wait_us\":%.1f,\"kind\":\"%s\","
	       "\"target\":%d,\"traced_on\":%d,\"ran_on\":%d,"
	       "\"target_task\":%d,\"target_comm\":\"%s\","
	       "\"target_next\":%d,\"target_next_comm\":\"%s\","
	       "\"target_next_after_us\":%.1f,\"idle_in_pkg\":%d,"
	       "\"idle_elsewhere\":%d}\n",
	       c->name, t->tid, (t->t0 - a) / 1e6, (e->t - t->t0) / 1e3,
	       w_cat_name[t->cat], t->target, t->rec_cpu, e->cpu, t->curr0,
	       w_comm_of(t->curr0), t->target_ran ? t->first_next : -1,
	       t->target_ran ? w_comm_of(t->first_next) : "-",
	       t->target_ran ? (t->first_t - t->t0) / 1e3 : -1.0,
	       t->idle_pkg, t->idle_other);
}

/*
 * Turns tracing off and reads what waits and opens start from: the window
 * into @a, @b; vcwork's threads (returns their number); each CPU's package
 * (-1: none) into @pkg_of and its trace into w_evs, sorted by time; and
 * into @curr the task each CPU ran before its first switch (that switch's
 * prev task).
 */
static int w_load(const char *window, long long *a, long long *b,
		  struct w_thread *th, struct w_class *cl, int *n_cl,
		  int *pkg_of, int *curr)
{
	bool seen[R_MAX_CPUS] = { false };
	int cpu, n_th;
	size_t i;

	r_write("tracing_on", "0");
	r_read_window(window, a, b);
	n_th = w_read_threads(window, th, cl, n_cl);
	for (cpu = 0; cpu < R_MAX_CPUS; cpu++) {
		pkg_of[cpu] = r_pkg_of(cpu);
		curr[cpu] = 0;
		if (pkg_of[cpu] >= 0)
			w_read_cpu(cpu);
	}
	for (i = 0; i < w_n; i++) {
		struct w_ev *e = &w_evs[i];

		if (!e->wakeup && !seen[e->cpu]) {
			seen[e->cpu] = true;
			curr[e->cpu] = e->a;
		}
	}
	qsort(w_evs, w_n, sizeof(*w_evs), w_cmp_ev);
	return n_th;
}

static int r_cmd_waits(const char *window, long long slow_ns, int slow_trace,
		       int pace_cpu)
{
	static struct w_thread th[W_MAX_THREADS];
	static struct w_class cl[W_MAX_CLASSES];
	int curr[R_MAX_CPUS], pkg_of[R_MAX_CPUS], n_th, n_cl = 0, cpu, k;
	long long a, b;
	size_t i;

	n_th = w_load(window, &a, &b, th, cl, &n_cl, pkg_of, curr);
	for (i = 0; i < w_n && w_evs[i].t < b; i++) {
		struct w_ev *e = &w_evs[i];
		struct w_thread *t;

		if (!e->wakeup) {
			curr[e->cpu] = e->b;
			w_first_switch(th, n_th, e);
			t = w_find(th, n_th, e->b);
			if (!t || !t->pending)
				continue;
			t->pending = false;
			if (slow_ns && e->t - t->t0 >= slow_ns) {
				w_print_slow(t, &cl[t->class], e, a);
				if (w_n_slow < slow_trace) {
					w_slow[w_n_slow].cpu = t->target;
					w_slow[w_n_slow].from = t->t0 - 200000;
					w_slow[w_n_slow++].to = e->t;
				}
			}
			w_add(&cl[t->class], t->cat,
			      ((e->t - t->t0) << W_SHIFT) |
			      (t->target == pace_cpu ? W_ON_PACE : 0) |
			      (t->behind ? W_BEHIND : 0));
			cl[t->class].migrated += e->cpu != t->target;
			continue;
		}
		t = w_find(th, n_th, e->a);
		if (!t || t->steady || e->t < a || e->b < 0 || e->b >= R_MAX_CPUS ||
		    pkg_of[e->b] < 0)
			continue;
		for (cpu = 0; cpu < R_MAX_CPUS && curr[cpu] != t->tid; cpu++)
			;
		if (cpu < R_MAX_CPUS) {
			cl[t->class].running++;
			continue;
		}
		t->pending = true;
		t->target_ran = false;
		t->t0 = e->t;
		t->target = e->b;
		t->rec_cpu = e->cpu;
		t->curr0 = curr[e->b];
		t->cat = w_category(curr, pkg_of, e->b, t);
		t->behind = t->cat != W_IDLE && w_find(th, n_th, curr[e->b]);
	}
	for (k = 0; k < n_cl; k++)
		w_print_class(&cl[k]);
	for (k = 0; k < w_n_slow; k++)
		w_print_trace(k, w_slow[k].cpu, w_slow[k].from, w_slow[k].to);
	printf("{\"type\":\"wtotal\",\"threads\":%d,\"events\":%zu}\n", n_th,
	       w_n);
	return n_th ? 0 : 1;
}

/*
 * vcresid opens: what ends the all-idle stretches of each package inside
 * the window (what "opens" the package), and how long the package stays
 * awake each time, until every CPU of it is idle again. An opening is put
 * down to the task its first switch runs:
 *   wake_home   one of vcwork's threads, woken onto the package it last
 *               ran in (the wakeup was not moved to an awake package);
 *   wake_moved  a thread woken onto it from another package (the wakeup's
 *               placement moved it there);
 *   pulled      a thread not woken since it last ran, or woken onto
 *               another CPU: it was runnable and the balancer moved it;
 *   first       a thread not seen running before in the trace;
 *   other       any other task (a kernel thread, vcwork's monitor); the
 *               most frequent of their names are in "wopentotal".
 * A package awake when the window starts is an opening "at_start". Per
 * package: openings and awake time (ms) of each cause; of them, those
 * made while another package was awake ("over_": a packer that fits the
 * load into one package avoids them), and the wake_home openings whose
 * CPU had been idle for less than sysctl_sched_migration_cost's default
 * (0.5 ms) at the wakeup ("home_hot": a wakeup level 2 leaves where it
 * is, the task being cache-hot there).
 */
enum o_cause { O_START, O_HOME, O_MOVED, O_PULLED, O_FIRST, O_OTHER, O_NCAUSE };
static const char *const o_cause_name[O_NCAUSE] = {
	"at_start", "wake_home", "wake_moved", "pulled", "first", "other"
};

struct o_task {
	int last_cpu;		/* where it last ran; -1: not seen running */
	int woken_to;		/* target of a wakeup since; -1: none */
	bool hot;		/* that target had been idle < O_HOT_NS */
};

struct o_pkg {
	int busy;		/* CPUs of it not running the idle task */
	enum o_cause cause;	/* of the current opening */
	long long since;
	long long n[O_NCAUSE], ns[O_NCAUSE];
	bool over;		/* the current opening came with another awake */
	long long n_over[O_NCAUSE], ns_over[O_NCAUSE], n_home_hot;
};

#define O_HOT_NS	500000

#define O_MAX_COMMS	16
static struct { char comm[16]; long long n; } o_comms[O_MAX_COMMS];

static void o_note_other(int pid)
{
	const char *c = w_comm_of(pid);
	int k;

	/* kworker/1:2 and kworker/3:0 are the same kind of task */
	for (k = 0; k < O_MAX_COMMS && o_comms[k].n; k++)
		if (!strncmp(o_comms[k].comm, c, strcspn(c, "/")) &&
		    strlen(o_comms[k].comm) == strcspn(c, "/"))
			break;
	if (k == O_MAX_COMMS)
		return;
	if (!o_comms[k].n)
		snprintf(o_comms[k].comm, sizeof(o_comms[k].comm), "%.*s",
			 (int)strcspn(c, "/"), c);
	o_comms[k].n++;
}

static enum o_cause o_cause_of(const struct o_task *tk, int pkg_now,
			       const int *pkg_of, int cpu)
{
	if (!tk)
		return O_OTHER;
	if (tk->last_cpu < 0)
		return O_FIRST;
	if (tk->woken_to != cpu)
		return O_PULLED;
	return pkg_of[tk->last_cpu] == pkg_now ? O_HOME : O_MOVED;
}

static void o_close(struct o_pkg *p, long long t, long long a)
{
	long long from = p->since > a ? p->since : a;

	if (t <= from)
		return;
	p->ns[p->cause] += t - from;
	if (p->over)
		p->ns_over[p->cause] += t - from;
}

/* Is a package other than @pkg awake? */
static bool o_other_awake(const struct o_pkg *pk, int pkg)
{
	for (int k = 0; k < R_MAX_PKGS; k++)
		if (k != pkg && pk[k].busy)
			return true;
	return false;
}

static int r_cmd_opens(const char *window)
{
	static struct w_thread th[W_MAX_THREADS];
	static struct w_class cl[W_MAX_CLASSES];
	static struct o_task tk[W_MAX_THREADS];
	struct o_pkg pk[R_MAX_PKGS];
	int curr[R_MAX_CPUS], pkg_of[R_MAX_CPUS], n_th, n_cl = 0, cpu, k;
	long long a, b, idle_at[R_MAX_CPUS];
	bool started = false;
	size_t i;

	n_th = w_load(window, &a, &b, th, cl, &n_cl, pkg_of, curr);
	memset(pk, 0, sizeof(pk));
	/* idle since long before the trace, as far as it can tell */
	for (cpu = 0; cpu < R_MAX_CPUS; cpu++)
		idle_at[cpu] = -O_HOT_NS;
	for (k = 0; k < n_th; k++)
		tk[k].last_cpu = tk[k].woken_to = -1;
	for (cpu = 0; cpu < R_MAX_CPUS; cpu++)
		if (pkg_of[cpu] >= 0 && curr[cpu])
			pk[pkg_of[cpu]].busy++;
	for (i = 0; i <= w_n; i++) {
		struct w_ev *e = i < w_n ? &w_evs[i] : NULL;
		struct w_thread *t;
		struct o_task *o;
		struct o_pkg *p;

		if (!started && (!e || e->t >= a)) {
			/* the packages awake as the window opens */
			started = true;
			for (k = 0; k < R_MAX_PKGS; k++)
				if (pk[k].busy) {
					pk[k].cause = O_START;
					pk[k].since = a;
					pk[k].n[O_START]++;
				}
		}
		if (!e || e->t >= b)
			break;
		if (e->wakeup) {
			t = w_find(th, n_th, e->a);
			if (t && e->b >= 0 && e->b < R_MAX_CPUS) {
				tk[t - th].woken_to = e->b;
				tk[t - th].hot = !curr[e->b] &&
						 e->t - idle_at[e->b] < O_HOT_NS;
			}
			continue;
		}
		if (pkg_of[e->cpu] < 0)
			continue;
		p = &pk[pkg_of[e->cpu]];
		t = w_find(th, n_th, e->b);
		o = t ? &tk[t - th] : NULL;
		if (!curr[e->cpu] && e->b) {
			if (!p->busy++ && started) {
				p->cause = o_cause_of(o, pkg_of[e->cpu],
						      pkg_of, e->cpu);
				p->since = e->t;
				p->n[p->cause]++;
				p->over = o_other_awake(pk, pkg_of[e->cpu]);
				if (p->over)
					p->n_over[p->cause]++;
				if (p->cause == O_HOME && o->hot)
					p->n_home_hot++;
				if (!t)
					o_note_other(e->b);
			}
		} else if (curr[e->cpu] && !e->b) {
			idle_at[e->cpu] = e->t;
			if (!--p->busy && started)
				o_close(p, e->t, a);
		}
		curr[e->cpu] = e->b;
		if (o) {
			o->last_cpu = e->cpu;
			o->woken_to = -1;
		}
	}
	for (k = 0; k < R_MAX_PKGS; k++) {
		int c;

		for (c = 0; c < R_MAX_CPUS && pkg_of[c] != k; c++)
			;
		if (c == R_MAX_CPUS)
			continue;
		if (pk[k].busy)
			o_close(&pk[k], b, a);
		printf("{\"type\":\"wopen\",\"pkg\":%d", k);
		for (c = 0; c < O_NCAUSE; c++)
			printf(",\"n_%s\":%lld,\"ms_%s\":%.1f,\"n_over_%s\":%lld,"
			       "\"ms_over_%s\":%.1f",
			       o_cause_name[c], pk[k].n[c], o_cause_name[c],
			       pk[k].ns[c] / 1e6, o_cause_name[c],
			       pk[k].n_over[c], o_cause_name[c],
			       pk[k].ns_over[c] / 1e6);
		printf(",\"n_home_hot\":%lld}\n", pk[k].n_home_hot);
	}
	printf("{\"type\":\"wopentotal\",\"window_ms\":%.1f,\"other_comms\":\"",
	       (b - a) / 1e6);
	for (k = 0; k < O_MAX_COMMS && o_comms[k].n; k++)
		printf("%s%s=%lld", k ? "," : "", o_comms[k].comm, o_comms[k].n);
	printf("\"}\n");
	return n_th ? 0 : 1;
}

static int r_cmd_pace(int hz, int cpu)
{
	int fd = open("/dev/rtc0", O_RDONLY | O_CLOEXEC);
	cpu_set_t set;
	pid_t pid;

	if (fd < 0)
		r_die("cannot open /dev/rtc0: %s (no RTC in this kernel?)",
		      strerror(errno));
	/*
	 * The RTC's hrtimer stays on the CPU it is started on: start it
	 * from CPU, or stay on this one while starting it, so the CPU can be
	 * named.
	 */
	if (cpu < 0)
		cpu = sched_getcpu();
	if (cpu < 0)
		r_die("cannot tell which CPU this runs on: %s", strerror(errno));
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		char msg[96];

		snprintf(msg, sizeof(msg), "cannot move to CPU %d: %s", cpu,
			 strerror(errno));
		r_die("%s", msg);
	}
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
	printf("{\"type\":\"rpace\",\"hz\":%d,\"pid\":%d,\"cpu\":%d}\n", hz,
	       (int)pid, cpu);
	return 0;
}

static void r_usage(void)
{
	fprintf(stderr, "usage: vcresid start [--buffer-kb N] [--wakeups]\n"
			"                     [--events SYS/EV,...]\n"
			"       vcresid pace HZ [--cpu CPU]\n"
			"       vcresid report --window VCWORK.OUT [--slot-ms MS]\n"
			"       vcresid waits --window VCWORK.OUT [--pace-cpu CPU]\n"
			"                     [--slow US [--slow-trace N]]\n"
			"       vcresid opens --window VCWORK.OUT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *window = NULL;
	long long slot_ms = 100, slow_us = 0;
	const char *events = NULL;
	int slow_trace = 0, pace_cpu = -1;
	int kb = 4096, i;
	bool wakeups = false;

	if (getenv("VCRESID_TRACEFS"))
		r_tracefs = getenv("VCRESID_TRACEFS");
	if (getenv("VCRESID_SYSFS"))
		r_sysfs = getenv("VCRESID_SYSFS");
	if (getenv("VCPACK_PACE_CPU") && *getenv("VCPACK_PACE_CPU"))
		r_outside = atoi(getenv("VCPACK_PACE_CPU"));
	if (argc < 2)
		r_usage();
	if ((argc == 3 || (argc == 5 && !strcmp(argv[3], "--cpu"))) &&
	    !strcmp(argv[1], "pace")) {
		i = atoi(argv[2]);
		if (i < 2 || i > 8192)
			r_usage();
		if (argc == 5) {
			char *end;
			long cpu = strtol(argv[4], &end, 10);

			if (end == argv[4] || *end || cpu < 0 ||
			    cpu >= R_MAX_CPUS)
				r_die("pace --cpu: '%s' is not a CPU number",
				      argv[4]);
			return r_cmd_pace(i, (int)cpu);
		}
		return r_cmd_pace(i, -1);
	}
	for (i = 2; i < argc; i += 2) {
		if (!strcmp(argv[i], "--wakeups")) {
			wakeups = true;
			i--;
		} else if (i + 1 == argc) {
			r_usage();
		} else if (!strcmp(argv[i], "--buffer-kb"))
			kb = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--window"))
			window = argv[i + 1];
		else if (!strcmp(argv[i], "--slot-ms"))
			slot_ms = atoll(argv[i + 1]);
		else if (!strcmp(argv[i], "--slow"))
			slow_us = atoll(argv[i + 1]);
		else if (!strcmp(argv[i], "--slow-trace"))
			slow_trace = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--pace-cpu"))
			pace_cpu = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--events"))
			events = argv[i + 1];
		else
			r_usage();
	}
	if (i != argc || kb < 64 || slot_ms <= 0 || slow_us < 0 ||
	    slow_trace < 0 || slow_trace > W_MAX_SLOW_TRACE)
		r_usage();
	if (!strcmp(argv[1], "start"))
		return r_cmd_start(kb, wakeups, events);
	if (wakeups)
		r_usage();
	if (!strcmp(argv[1], "report") && window)
		return r_cmd_report(window, slot_ms * 1000000);
	if (!strcmp(argv[1], "waits") && window)
		return r_cmd_waits(window, slow_us * 1000, slow_trace, pace_cpu);
	if (!strcmp(argv[1], "opens") && window)
		return r_cmd_opens(window);
	r_usage();
	return 2;
}
