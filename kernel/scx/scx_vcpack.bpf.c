/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_vcpack: vcpack's consolidation policy as a sched_ext scheduler, so
 * that an unpatched kernel with CONFIG_SCHED_CLASS_EXT (6.12 and later)
 * gathers packable tasks onto few CPU packages and lets the other
 * packages sleep. It implements what kernel/patches/ (the
 * sched_mc_power_savings / cpu.consolidate series) does inside CFS.
 *
 * Inputs, all written from user space (scx_vcpack.c, or vcpackd through
 * the maps the loader pins):
 *
 * - topology (read-only, set before load): the package of every CPU, the
 *   first CPU of every core, the number of cores per package. The package
 *   is the unit; SMT siblings count as one core.
 * - ctl[0].level: 0, 1 or 2 (as sched_mc_power_savings).
 * - classes: cgroup id -> spread (0), balanced (1), pack (2). A task's
 *   class is that of its cgroup's nearest ancestor (itself included) that
 *   has an entry, else balanced; so a cgroup created later inherits its
 *   ancestor's class. Tasks cache the result; user space bumps ctl[0].gen
 *   after changing the map, and a cgroup move drops the cache.
 *
 * A task is packable at level 1 if its class is pack, at level 2 if it is
 * pack or balanced. spread tasks are never packable.
 *
 * Scheduling: one shared DSQ (weighted vtime, as scx_simple) that every
 * CPU consumes, plus direct dispatch to an idle CPU's local DSQ. Slices
 * are SCX_SLICE_DFL (20 ms), and SCX_OPS_ENQ_LAST hands every task that
 * used up its slice back to ops.enqueue() even when nothing else waits:
 * the slice end is where running tasks are re-placed (the balance
 * interval), its class re-read. There the task is the current one, whose
 * migration the BPF program's own prologue disables: bound_to_cpu()
 * tells that from a real migrate_disable().
 *
 * Package state is computed when needed, from the built-in idle masks:
 * the busy cores of a package (a core is busy unless all its CPUs are
 * idle and none was handed a task in the last 5 ms, the claim: a thread
 * just forked may sleep at once, and the next fork must still see its
 * CPU taken) and its utilisation, the sum of its CPUs' busy fraction (an
 * average over 20 ms windows, accounted in ops.running/ops.stopping,
 * decayed while the CPU stays idle). Packages are ordered: more busy
 * cores first, then the lower package number. A package has room for
 * one more task if its busy cores stay within the consolidation capacity
 * (level 1: 3 cores in 4, i.e. cores - ceil(cores / 4); level 2: all
 * cores) and, at level 1 only, its utilisation plus the task's stays
 * within 80% of its cores (the margin).
 *
 * - Level 0, and tasks that are not packable: a placement that does not
 *   gather. Fork/exec: an idle CPU (whole unclaimed idle core first) of
 *   the package with the fewest busy cores. Wakeup: the previous CPU if
 *   idle, else an idle CPU of its package, else any idle CPU. A task
 *   re-placed (slice end) moves to the package with the fewest busy
 *   cores only if that has at least two fewer than its own and 1.5 times
 *   the task's utilisation less, which evens them out without ever
 *   calling for the move back; else it keeps its CPU. Otherwise the
 *   shared DSQ.
 * - Packable tasks, at fork and wakeup: an idle CPU of the first package
 *   in order that has room (the busiest awake package that can take it:
 *   wakeups are kept in awake packages, but only onto idle CPUs).
 * - Gather: a packable task at the end of its slice moves to an idle CPU
 *   of a package that comes before its own in the order and has room
 *   for it. Moves go only towards packages earlier in the order, so two
 *   packages never trade tasks back and forth.
 * - Spill: a packable task that finds no package with room and an idle
 *   CPU is placed like an unpackable one: on any idle CPU, or it waits
 *   in the shared DSQ, which every CPU consumes and where an idle CPU is
 *   kicked for it. Nothing waits behind a gathered package.
 * - Put back: a packable task whose slice ends while another task waits
 *   for its CPU (a bound kworker, mostly) stays in its package while the
 *   packable tasks running there are within the consolidation capacity
 *   (other work on a CPU of the package for a moment, a kworker or a
 *   VM's I/O thread, does not push it out): on an idle CPU of the
 *   package, else behind the waiting task on its own CPU, as CFS leaves
 *   a preempted task on its runqueue. Waking another package for it
 *   would only have it gathered back a slice later. It waits so at most
 *   once in WAIT_LOCAL_NS, so a CPU hog bound to its CPU does not halve
 *   its share: put back again that soon, it spills.
 *
 * Tasks bound to one CPU are dispatched to that CPU's local DSQ. CPU
 * hotplug is followed (ops.cpu_online/offline) rather than restarting
 * the scheduler; offline CPUs count as neither busy nor idle.
 *
 * Differences from the kernel series: gathering is per task at slice
 * ends, not per whole package in the load balancer (a package is emptied
 * task by task); busy cores stand in for nr_running; wakeups are steered
 * at both levels (the series steers them only at level 2 and leaves
 * level 1 to load balancing).
 */
#include <scx/common.bpf.h>
#include "scx_vcpack.h"
#include "scx_vcpack_compat.bpf.h"

char _license[] SEC("license") = "GPL";

#define SHARED_DSQ	0
#define UTIL_ONE	1024
#define UTIL_WIN_NS	(20ULL * 1000 * 1000)
#define MAX_CG_DEPTH	32
/* a CPU handed a task this recently counts as busy, even if idle */
#define CLAIM_NS	(5ULL * 1000 * 1000)
/*
 * A task put back from its CPU waits there behind what is queued at most
 * once in this long: a task bound to the CPU that runs for a slice (20
 * ms) and comes back every slice puts it back again within 40 ms.
 */
#define WAIT_LOCAL_NS	(3 * VCP_SLICE_DFL)

/* topology, set by the loader before load */
const volatile u32 nr_cpus = 1;
const volatile u32 nr_pkgs = 1;
const volatile u8 cpu_pkg[VCP_MAX_CPUS];
const volatile u8 cpu_leader[VCP_MAX_CPUS];
const volatile u16 cpu_core[VCP_MAX_CPUS];	/* its core's first CPU */
const volatile u32 pkg_cores[VCP_MAX_PKGS];

/* online CPUs: set by the loader before attach, then by hotplug ops */
u8 cpu_on[VCP_MAX_CPUS];

/* how the scheduler ended, for the loader */
struct vcp_exit vcp_exit;

/* counters for the loader's status line */
u64 nr_gathered, nr_spilled, nr_packed, nr_spread, nr_slice_ends;

/* when each CPU was last handed a task by a placement (claim_idle_in) */
u64 claim_ns[VCP_MAX_CPUS];

static u64 vtime_now;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct vcp_ctl);
} ctl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, u64);	/* cgroup id (kernfs node id) */
	__type(value, u32);	/* enum vcp_class */
} classes SEC(".maps");

struct task_ctx {
	u32 gen;	/* class valid while == ctl.gen */
	u32 class;
	u64 util;	/* busy fraction, UTIL_ONE = always running */
	u64 win_start;
	u64 win_run;
	u64 run_start;
	u64 waited_local;	/* when it last waited behind its CPU's queue */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_ctx);
} task_ctxs SEC(".maps");

struct cpu_ctx {
	u64 util;
	u64 win_start;
	u64 win_busy;
	u64 run_start;	/* 0 while idle */
	u64 last_stop;
	u32 packable;	/* the task it runs is packable (ops.running) */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, VCP_MAX_CPUS);
	__type(key, u32);
	__type(value, struct cpu_ctx);
} cpu_ctxs SEC(".maps");

/* per-package figures of one decision */
struct pkg_view {
	u32 busy[VCP_MAX_PKGS];
	u64 util[VCP_MAX_PKGS];
	u8 core_busy[VCP_MAX_CPUS];	/* by the core's first CPU */
	u8 core_pack[VCP_MAX_CPUS];	/* pkg_packed_cores()'s scratch */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct pkg_view);
} pkg_views SEC(".maps");

static inline bool vtime_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

static struct vcp_ctl *get_ctl(void)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(&ctl, &zero);
}

static u32 cur_level(void)
{
	struct vcp_ctl *c = get_ctl();
	u32 level = c ? c->level : 0;

	return level > 2 ? 2 : level;
}

/* array indices the verifier can bound (the limits are powers of two) */
#define PKG_IDX(pkg)	((pkg) & (VCP_MAX_PKGS - 1))
#define CPU_IDX(cpu)	((cpu) & (VCP_MAX_CPUS - 1))

static __always_inline bool cpu_valid(s32 cpu)
{
	return cpu >= 0 && cpu < nr_cpus && cpu < VCP_MAX_CPUS;
}

static u32 pkg_of(s32 cpu)
{
	if (!cpu_valid(cpu))
		return 0;
	return cpu_pkg[cpu];
}

/* The class of the nearest ancestor of @cgrp (itself included) in classes. */
static u32 cgroup_class(struct cgroup *cgrp)
{
	int level = cgrp->level;
	u32 i;

	bpf_for(i, 0, MAX_CG_DEPTH) {
		struct cgroup *anc;
		u32 *cls;
		u64 id;

		if (level - (int)i <= 0)
			break;
		anc = bpf_cgroup_ancestor(cgrp, level - i);
		if (!anc)
			break;
		id = anc->kn->id;
		bpf_cgroup_release(anc);
		cls = bpf_map_lookup_elem(&classes, &id);
		if (cls)
			return *cls;
	}
	return VCP_BALANCED;
}

/*
 * Is @p's migration disabled? A BPF program runs with migration disabled
 * (its prologue), so the current task reads 1 from the program itself:
 * in ops.enqueue() at the end of its slice, on its own CPU, the task is
 * current. Only more than that is the task's own. (common.bpf.h's
 * is_migration_disabled() of 6.12 reads every current task as bound,
 * which kept all tasks at their slice ends where they were.)
 */
static bool bound_to_cpu(struct task_struct *p)
{
	if (!bpf_core_field_exists(p->migration_disabled))
		return false;
	if (p->migration_disabled == 1)
		return bpf_get_current_task_btf() != p;
	return p->migration_disabled;
}

static struct task_ctx *task_ctx(struct task_struct *p)
{
	return bpf_task_storage_get(&task_ctxs, p, 0, 0);
}

static u32 cur_gen(void)
{
	struct vcp_ctl *c = get_ctl();

	return c ? c->gen : 1;
}

static u32 task_class(struct task_struct *p, struct task_ctx *tc)
{
	struct cgroup *cgrp;
	u32 gen = cur_gen();

	if (tc->gen == gen)
		return tc->class;
	cgrp = scx_bpf_task_cgroup(p);
	if (!cgrp)
		return VCP_BALANCED;
	tc->class = cgroup_class(cgrp);
	tc->gen = gen;
	bpf_cgroup_release(cgrp);
	return tc->class;
}

static bool packable(u32 class, u32 level)
{
	if (level == 1)
		return class == VCP_PACK;
	if (level >= 2)
		return class != VCP_SPREAD;
	return false;
}

/* Busy fraction of @cpu now: the window average, halved per idle window. */
static u64 cpu_util(struct cpu_ctx *cc, u64 now)
{
	u64 idle_wins;

	if (cc->run_start)
		return cc->util;
	idle_wins = (now - cc->last_stop) / UTIL_WIN_NS;
	return idle_wins >= 10 ? 0 : cc->util >> idle_wins;
}

/* Was @cpu handed a task within CLAIM_NS of @now? */
static bool cpu_claimed(u32 cpu, u64 now)
{
	if (cpu >= VCP_MAX_CPUS)
		return false;
	return now - claim_ns[CPU_IDX(cpu)] < CLAIM_NS;
}

/*
 * Fill @v with the busy cores and utilisation of every package. A core is
 * busy if one of its CPUs is not idle or was handed a task within
 * CLAIM_NS: a task placed a moment ago may have gone to sleep already (a
 * thread just forked), and the next placement must still see its CPU.
 */
static void pkg_view_fill(struct pkg_view *v)
{
	const struct cpumask *idle;
	u64 now = bpf_ktime_get_ns();
	u32 cpu;

	bpf_for(cpu, 0, VCP_MAX_PKGS) {
		v->busy[cpu] = 0;
		v->util[cpu] = 0;
	}
	bpf_for(cpu, 0, nr_cpus) {
		if (cpu >= VCP_MAX_CPUS)
			break;
		v->core_busy[CPU_IDX(cpu)] = 0;
	}
	idle = scx_bpf_get_idle_cpumask();
	bpf_for(cpu, 0, nr_cpus) {
		struct cpu_ctx *cc;
		u32 pkg;

		if (cpu >= VCP_MAX_CPUS || !cpu_on[cpu])
			continue;
		pkg = cpu_pkg[cpu];
		if (pkg >= VCP_MAX_PKGS)
			continue;
		if (!bpf_cpumask_test_cpu(cpu, idle) || cpu_claimed(cpu, now))
			v->core_busy[CPU_IDX(cpu_core[CPU_IDX(cpu)])] = 1;
		cc = bpf_map_lookup_elem(&cpu_ctxs, &cpu);
		if (cc)
			v->util[pkg] += cpu_util(cc, now);
	}
	scx_bpf_put_idle_cpumask(idle);
	bpf_for(cpu, 0, nr_cpus) {
		u32 c = CPU_IDX(cpu);

		if (cpu_leader[c] && cpu_on[c] && v->core_busy[c])
			v->busy[PKG_IDX(cpu_pkg[c])]++;
	}
}

/*
 * Cores of package @pkg that run a packable task, leaving out CPU @skip:
 * the load its consolidation capacity is for. A core busy with other
 * work does not count.
 */
static u32 pkg_packed_cores(struct pkg_view *v, u32 pkg, s32 skip)
{
	u32 cpu, n = 0;

	bpf_for(cpu, 0, nr_cpus) {
		if (cpu >= VCP_MAX_CPUS)
			break;
		v->core_pack[CPU_IDX(cpu)] = 0;
	}
	bpf_for(cpu, 0, nr_cpus) {
		struct cpu_ctx *cc;

		if (cpu >= VCP_MAX_CPUS || !cpu_on[cpu] ||
		    cpu_pkg[cpu] != pkg || (s32)cpu == skip)
			continue;
		cc = bpf_map_lookup_elem(&cpu_ctxs, &cpu);
		if (cc && cc->run_start && cc->packable)
			v->core_pack[CPU_IDX(cpu_core[CPU_IDX(cpu)])] = 1;
	}
	bpf_for(cpu, 0, nr_cpus) {
		u32 c = CPU_IDX(cpu);

		if (cpu_leader[c] && cpu_pkg[c] == pkg && v->core_pack[c])
			n++;
	}
	return n;
}

static struct pkg_view *get_view(void)
{
	u32 zero = 0;
	struct pkg_view *v = bpf_map_lookup_elem(&pkg_views, &zero);

	if (v)
		pkg_view_fill(v);
	return v;
}


/* Does package @a come before package @b in the gathering order? */
static bool pkg_before(struct pkg_view *v, u32 a, u32 b)
{
	u32 ba = v->busy[PKG_IDX(a)], bb = v->busy[PKG_IDX(b)];

	if (ba != bb)
		return ba > bb;
	return a < b;
}

static u32 cons_capacity(u32 level, u32 cores)
{
	if (level >= 2)
		return cores;
	return cores - (cores + 3) / 4;
}

/* Can package @pkg take one more task of utilisation @tutil? */
static bool pkg_has_room(struct pkg_view *v, u32 pkg, u32 level, u64 tutil)
{
	u32 cores;

	if (pkg >= VCP_MAX_PKGS)
		return false;
	cores = pkg_cores[PKG_IDX(pkg)];
	if (v->busy[PKG_IDX(pkg)] + 1 > cons_capacity(level, cores))
		return false;
	if (level >= 2)
		return true;
	return (v->util[PKG_IDX(pkg)] + tutil) * 100 <=
	       (u64)cores * UTIL_ONE * 80;
}

/* Hand @cpu to a task now: stamp the claim the package views count. */
static s32 claimed(s32 cpu)
{
	if (cpu_valid(cpu))
		claim_ns[CPU_IDX(cpu)] = bpf_ktime_get_ns();
	return cpu;
}

/*
 * Claim an idle CPU of @pkg that @p may use: @prefer if it is one, else a
 * wholly idle core not claimed within CLAIM_NS, else an unclaimed idle
 * CPU, else any idle CPU; -1 if there is none. @pkg < 0: any package.
 */
static s32 claim_idle_in(struct task_struct *p, s32 pkg, s32 prefer)
{
	const struct cpumask *idle_core;
	u64 now = bpf_ktime_get_ns();
	s32 found = -1;
	u32 pass, cpu;

	if (cpu_valid(prefer) && (pkg < 0 || cpu_pkg[prefer] == pkg) &&
	    bpf_cpumask_test_cpu(prefer, p->cpus_ptr) &&
	    scx_bpf_test_and_clear_cpu_idle(prefer))
		return claimed(prefer);
	idle_core = scx_bpf_get_idle_smtmask();
	bpf_for(pass, 0, 3) {
		bpf_for(cpu, 0, nr_cpus) {
			if (cpu >= VCP_MAX_CPUS || !cpu_on[cpu])
				continue;
			if (pkg >= 0 && cpu_pkg[cpu] != pkg)
				continue;
			if (!bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
				continue;
			if (pass == 0 && !bpf_cpumask_test_cpu(cpu, idle_core))
				continue;
			if (pass < 2 && cpu_claimed(cpu, now))
				continue;
			if (scx_bpf_test_and_clear_cpu_idle(cpu)) {
				found = cpu;
				break;
			}
		}
		if (found >= 0)
			break;
	}
	scx_bpf_put_idle_cpumask(idle_core);
	return found >= 0 ? claimed(found) : -1;
}

/*
 * The package a packable task goes to: the first in order that has room,
 * and, with @own >= 0 (the task's current package), that comes before
 * @own. -1 if none.
 */
static s32 pack_target(struct pkg_view *v, s32 own, u32 level, u64 tutil)
{
	s32 best = -1;
	u32 pkg;

	bpf_for(pkg, 0, nr_pkgs) {
		if (pkg >= VCP_MAX_PKGS)
			break;
		if (own >= 0 &&
		    (pkg == (u32)own || !pkg_before(v, pkg, (u32)own)))
			continue;
		if (!pkg_has_room(v, pkg, level, tutil))
			continue;
		if (best < 0 || pkg_before(v, pkg, best))
			best = pkg;
	}
	return best;
}

/* The package with the fewest busy cores (ties: the lower number). */
static u32 idlest_pkg(struct pkg_view *v)
{
	u32 best = 0, pkg;

	bpf_for(pkg, 1, nr_pkgs) {
		if (pkg >= VCP_MAX_PKGS)
			break;
		if (pkg_before(v, best, pkg))
			best = pkg;
	}
	return best;
}

/*
 * Where a task of utilisation @tutil that does not gather moves from
 * package @own when it is re-placed: the package with the fewest busy
 * cores, if that has at least two fewer than @own (which counts the
 * task's own core) and at least 1.5 times the task's utilisation less.
 * The move narrows both gaps by two tasks' worth, so it never calls for
 * the move back, and a short burst of other work (the busy cores are an
 * instant's view) does not start one. -1: stay.
 */
static s32 spread_target(struct pkg_view *v, u32 own, u64 tutil)
{
	u32 best = idlest_pkg(v);

	if (best == own || own >= VCP_MAX_PKGS)
		return -1;
	if (v->busy[PKG_IDX(own)] < v->busy[PKG_IDX(best)] + 2)
		return -1;
	if (v->util[PKG_IDX(own)] < v->util[PKG_IDX(best)] + tutil * 3 / 2)
		return -1;
	return best;
}

/* Placement that does not gather: see the header. -1 if nothing is idle. */
static s32 select_plain(struct task_struct *p, s32 prev_cpu, u64 wake_flags,
			struct pkg_view *v)
{
	s32 cpu;

	if (wake_flags & VCP_WAKE_FORK) {
		cpu = claim_idle_in(p, idlest_pkg(v), -1);
		return cpu >= 0 ? cpu : claim_idle_in(p, -1, -1);
	}
	cpu = claim_idle_in(p, pkg_of(prev_cpu), prev_cpu);
	return cpu >= 0 ? cpu : claim_idle_in(p, -1, -1);
}

s32 BPF_STRUCT_OPS(vcpack_select_cpu, struct task_struct *p, s32 prev_cpu,
		   u64 wake_flags)
{
	struct task_ctx *tc = task_ctx(p);
	u32 level = cur_level();
	struct pkg_view *v;
	s32 cpu = -1, pkg;

	v = get_view();
	if (!tc || !v)
		return prev_cpu;
	if (packable(task_class(p, tc), level)) {
		pkg = pack_target(v, -1, level, tc->util);
		if (pkg >= 0)
			cpu = claim_idle_in(p, pkg, prev_cpu);
		if (cpu >= 0)
			__sync_fetch_and_add(&nr_packed, 1);
		else
			__sync_fetch_and_add(&nr_spilled, 1);
	}
	if (cpu < 0)
		cpu = select_plain(p, prev_cpu, wake_flags, v);
	if (cpu < 0)
		return prev_cpu;
	vcp_dsq_insert(p, VCP_DSQ_LOCAL, VCP_SLICE_DFL, 0);
	return cpu;
}

/*
 * A task put back from its own CPU (its slice ended while others wait)
 * is still counted there: take its core and utilisation out of @v. It
 * then stays in its package while the cores running packable tasks
 * allow (pkg_packed_cores()), whatever the utilisation margin says: the
 * margin admits new load, it does not evict a task (3 steady tasks on 4
 * cores sit near the 80% margin, and a little other work on the fourth
 * core moved all three to the other package in 1 of 4 scx-gather runs).
 * Nor does other work that holds the fourth core for a moment: counted
 * as busy, it sent one of the three to the idle package for 100-230 ms
 * (scx-overload's package moves, 2026-12-07).
 */
static void view_drop_self(struct pkg_view *v, u32 own, u64 tutil)
{
	u32 i = PKG_IDX(own);

	if (v->busy[i])
		v->busy[i]--;
	v->util[i] = v->util[i] > tutil ? v->util[i] - tutil : 0;
}

/*
 * May a task put back from its CPU, with no idle CPU in its package, wait
 * on its own CPU (the header's "Put back")? Yes if it did not within
 * WAIT_LOCAL_NS; the answer yes is stamped.
 */
static bool may_wait_local(struct task_ctx *tc)
{
	u64 now = bpf_ktime_get_ns();

	if (now - tc->waited_local < WAIT_LOCAL_NS)
		return false;
	tc->waited_local = now;
	return true;
}

static void enqueue_shared(struct task_struct *p, u64 enq_flags)
{
	u64 vtime = p->scx.dsq_vtime;
	s32 cpu;

	/* an idling task does not bank more than one slice of budget */
	if (vtime_before(vtime, vtime_now - VCP_SLICE_DFL))
		vtime = vtime_now - VCP_SLICE_DFL;
	vcp_dsq_insert_vtime(p, SHARED_DSQ, VCP_SLICE_DFL, vtime, enq_flags);
	/* nothing waits while a CPU it may use idles */
	cpu = claim_idle_in(p, -1, -1);
	if (cpu >= 0)
		scx_bpf_kick_cpu(cpu, VCP_KICK_IDLE);
}

static void dispatch_on(struct task_struct *p, s32 cpu, u64 enq_flags)
{
	vcp_dsq_insert(p, VCP_DSQ_LOCAL_ON | cpu, VCP_SLICE_DFL, enq_flags);
	scx_bpf_kick_cpu(cpu, VCP_KICK_IDLE);
}

void BPF_STRUCT_OPS(vcpack_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tc = task_ctx(p);
	s32 cur = scx_bpf_task_cpu(p), cpu = -1, pkg;
	u32 level = cur_level();
	struct pkg_view *v;
	bool pack;

	if (p->nr_cpus_allowed == 1 || bound_to_cpu(p)) {
		vcp_dsq_insert(p, VCP_DSQ_LOCAL, VCP_SLICE_DFL, enq_flags);
		return;
	}
	if (enq_flags & VCP_ENQ_LAST)
		__sync_fetch_and_add(&nr_slice_ends, 1);
	pack = tc && packable(task_class(p, tc), level);
	if (!pack) {
		if (!(enq_flags & VCP_ENQ_LAST)) {
			enqueue_shared(p, enq_flags);
			return;
		}
		/* the slice end: even out the packages' busy cores */
		v = get_view();
		pkg = v && tc ? spread_target(v, pkg_of(cur), tc->util) : -1;
		if (pkg >= 0)
			cpu = claim_idle_in(p, pkg, -1);
		if (cpu >= 0) {
			__sync_fetch_and_add(&nr_spread, 1);
			dispatch_on(p, cpu, enq_flags);
		} else {
			vcp_dsq_insert(p, VCP_DSQ_LOCAL, VCP_SLICE_DFL, enq_flags);
		}
		return;
	}
	v = get_view();
	if (!v) {
		enqueue_shared(p, enq_flags);
		return;
	}
	if (enq_flags & VCP_ENQ_LAST) {
		/* the slice end: gather towards an earlier package */
		pkg = pack_target(v, pkg_of(cur), level, tc->util);
		if (pkg >= 0)
			cpu = claim_idle_in(p, pkg, -1);
		if (cpu >= 0) {
			__sync_fetch_and_add(&nr_gathered, 1);
			dispatch_on(p, cpu, enq_flags);
		} else {
			vcp_dsq_insert(p, VCP_DSQ_LOCAL, VCP_SLICE_DFL, enq_flags);
		}
		return;
	}
	if (bpf_get_current_task_btf() == p) {
		/* put back from its CPU: it stays in its package if it can */
		view_drop_self(v, pkg_of(cur), tc->util);
		pkg = pkg_of(cur);
		if (pkg_packed_cores(v, pkg, cur) + 1 <=
		    cons_capacity(level, pkg_cores[PKG_IDX(pkg)])) {
			cpu = claim_idle_in(p, pkg, -1);
			if (cpu < 0 && may_wait_local(tc)) {
				/* behind the task queued on its own CPU */
				__sync_fetch_and_add(&nr_packed, 1);
				vcp_dsq_insert(p, VCP_DSQ_LOCAL,
					       VCP_SLICE_DFL, enq_flags);
				return;
			}
		}
		if (cpu >= 0) {
			__sync_fetch_and_add(&nr_packed, 1);
			dispatch_on(p, cpu, enq_flags);
			return;
		}
	}
	pkg = pack_target(v, -1, level, tc->util);
	if (pkg >= 0)
		cpu = claim_idle_in(p, pkg, cur);
	if (cpu >= 0) {
		__sync_fetch_and_add(&nr_packed, 1);
		dispatch_on(p, cpu, enq_flags);
		return;
	}
	__sync_fetch_and_add(&nr_spilled, 1);
	enqueue_shared(p, enq_flags);
}

void BPF_STRUCT_OPS(vcpack_dispatch, s32 cpu, struct task_struct *prev)
{
	vcp_dsq_move_to_local(SHARED_DSQ);
}

void BPF_STRUCT_OPS(vcpack_running, struct task_struct *p)
{
	s32 cpu = scx_bpf_task_cpu(p);
	u64 now = bpf_ktime_get_ns();
	struct task_ctx *tc = task_ctx(p);
	struct cpu_ctx *cc;
	u32 key = cpu;

	if (vtime_before(vtime_now, p->scx.dsq_vtime))
		vtime_now = p->scx.dsq_vtime;
	if (tc)
		tc->run_start = now;
	cc = bpf_map_lookup_elem(&cpu_ctxs, &key);
	if (!cc)
		return;
	/* the class as last looked up (ops.enqueue, ops.select_cpu) */
	cc->packable = tc && tc->gen == cur_gen() &&
		       packable(tc->class, cur_level());
	if (!cc->win_start)
		cc->win_start = now;
	cc->run_start = now;
}

/* Add @ran ns of @len ns and fold the window into *@util once it is full. */
static void util_account(u64 *util, u64 *win_start, u64 *win_sum, u64 ran,
			 u64 now)
{
	u64 len = now - *win_start, inst;

	*win_sum += ran;
	if (len < UTIL_WIN_NS)
		return;
	inst = *win_sum * UTIL_ONE / len;
	if (inst > UTIL_ONE)
		inst = UTIL_ONE;
	*util = (*util + inst) / 2;
	*win_start = now;
	*win_sum = 0;
}

void BPF_STRUCT_OPS(vcpack_stopping, struct task_struct *p, bool runnable)
{
	s32 cpu = scx_bpf_task_cpu(p);
	u64 now = bpf_ktime_get_ns();
	struct task_ctx *tc = task_ctx(p);
	struct cpu_ctx *cc;
	u32 key = cpu;

	vcp_set_dsq_vtime(p, p->scx.dsq_vtime +
			     (VCP_SLICE_DFL - p->scx.slice) * 100 / p->scx.weight);
	if (tc && tc->run_start) {
		util_account(&tc->util, &tc->win_start, &tc->win_run,
			     now - tc->run_start, now);
		tc->run_start = 0;
	}
	cc = bpf_map_lookup_elem(&cpu_ctxs, &key);
	if (!cc || !cc->run_start)
		return;
	util_account(&cc->util, &cc->win_start, &cc->win_busy,
		     now - cc->run_start, now);
	cc->run_start = 0;
	cc->last_stop = now;
}

void BPF_STRUCT_OPS(vcpack_enable, struct task_struct *p)
{
	vcp_set_dsq_vtime(p, vtime_now);
}

s32 BPF_STRUCT_OPS(vcpack_init_task, struct task_struct *p,
		   struct scx_init_task_args *args)
{
	struct task_ctx *tc;

	tc = bpf_task_storage_get(&task_ctxs, p, 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!tc)
		return -ENOMEM;
	/* a new task counts as busy until measured */
	tc->util = UTIL_ONE;
	tc->win_start = bpf_ktime_get_ns();
	tc->waited_local = 0;
	tc->gen = 0;
	return 0;
}

void BPF_STRUCT_OPS(vcpack_cgroup_move, struct task_struct *p,
		    struct cgroup *from, struct cgroup *to)
{
	struct task_ctx *tc = task_ctx(p);

	if (tc)
		tc->gen = 0;
}

void BPF_STRUCT_OPS(vcpack_cpu_online, s32 cpu)
{
	if (cpu_valid(cpu))
		cpu_on[cpu] = 1;
}

void BPF_STRUCT_OPS(vcpack_cpu_offline, s32 cpu)
{
	if (cpu_valid(cpu))
		cpu_on[cpu] = 0;
}

s32 BPF_STRUCT_OPS_SLEEPABLE(vcpack_init)
{
	struct vcp_ctl *c = get_ctl();

	if (c && !c->gen)
		c->gen = 1;
	return scx_bpf_create_dsq(SHARED_DSQ, -1);
}

void BPF_STRUCT_OPS(vcpack_exit, struct scx_exit_info *ei)
{
	vcp_exit.exit_code = ei->exit_code;
	__sync_val_compare_and_swap(&vcp_exit.kind, 0, ei->kind ?: -1);
}

SCX_OPS_DEFINE(vcpack_ops,
	       .select_cpu		= (void *)vcpack_select_cpu,
	       .enqueue			= (void *)vcpack_enqueue,
	       .dispatch		= (void *)vcpack_dispatch,
	       .running			= (void *)vcpack_running,
	       .stopping		= (void *)vcpack_stopping,
	       .enable			= (void *)vcpack_enable,
	       .init_task		= (void *)vcpack_init_task,
	       .cgroup_move		= (void *)vcpack_cgroup_move,
	       .cpu_online		= (void *)vcpack_cpu_online,
	       .cpu_offline		= (void *)vcpack_cpu_offline,
	       .init			= (void *)vcpack_init,
	       .exit			= (void *)vcpack_exit,
	       /* the running kernel's value is set by the loader */
	       .flags			= SCX_OPS_ENQ_LAST,
	       .name			= "vcpack");
