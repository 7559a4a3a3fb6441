// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * planner.c - the pure planner. Given the host topology, the VMs and the
 * policy it decides which packages stay active, where every VM runs and
 * the host level. No I/O, no logging, no globals, no static state; the
 * same input always gives the same plan.
 *
 * Accounting (all in CPUs):
 * - A package carries n_cores + (n_cpus - n_cores) * smt_yield; usable is
 *   that times (1 - headroom).
 * - A vCPU demands its measured demand, or default_vcpu_demand when never
 *   measured, or a whole CPU while its VM waits for a host CPU more than
 *   max_vcpu_delay of the time (vcp_vcpu_demand(), demand.h). A spread
 *   vCPU on an exclusive core counts 1.0.
 *
 * Steps:
 * 1. Spread VMs get one exclusive whole core (all its online threads) per
 *    vCPU, at levels 1 and 2 (level 0: step 8, and exclusive_cores) and
 *    in both modes. One core of every package is
 *    never given exclusively (housekeeping: emulator threads, host tasks,
 *    other VMs), so a package has n_cores - 1 exclusive cores. Largest first (vCPUs, then
 *    name, then input order). First every VM whose vCPUs are pinned
 *    exactly to free whole cores of one package, its emulator elsewhere,
 *    keeps them (incumbents are never displaced by a newcomer); then each
 *    other one goes whole into
 *    the first package with enough free cores (its current package first,
 *    then packages that already hold exclusive cores, then by id), taking
 *    the lowest free cores; failing that it spans packages in that order.
 *    With too few free cores left it runs shared (placement FREE) and
 *    vms[i].degraded says "no exclusive cores left". Emulator threads go
 *    to the non-exclusive CPUs of the VM's package(s), or to its own cores
 *    when there are none.
 * 2. Unmanaged VMs keep their pins. A vCPU pinned inside one package
 *    counts there and keeps that package active (it runs there); a vCPU
 *    pinned across packages (or not at all) counts on the active set.
 * 3. Level: 0, 1, 2 as given; auto is 0 without a managed pack or
 *    balanced VM, 1 with a busy spread VM (mean vCPU demand above
 *    busy_vcpu_demand), else 2 - and 0 when that plan still needs every
 *    package (a one-package host always resolves to 0).
 * 4. Active packages: the fewest whose usable capacity carries the total
 *    demand (spread reservations, gathered, free and unmanaged demand).
 *    Packages with exclusive cores or pinned unmanaged vCPUs come first,
 *    then packages a managed VM already runs inside (stability), then the
 *    rest, each group by id. At least one package is active.
 * 5. Gathered VMs (pack at level >= 1, also balanced at level 2) are
 *    packed whole, first-fit decreasing by demand (ties by name, then
 *    input order): first every VM that fits on its current, active
 *    package stays there; then the rest go to the first active package
 *    with room, else to a newly activated one (in the order of 4). A VM
 *    that fits no package on its own spans the active packages with the
 *    most room, activating more as needed; one that fits a package but no
 *    remaining room goes to the active package with most room, which is
 *    then planned over its capacity (visible in pkg_demand). vCPUs and
 *    emulator get the package's CPUs minus exclusive cores; memory goes to
 *    the package's node when the host has several nodes and the VM is in
 *    one package.
 * 6. Free VMs (managed, not gathered at this level) get every online CPU
 *    minus exclusive cores. Their demand (and unmanaged floating demand)
 *    fills the remaining room of the active packages, activating more
 *    packages if it does not fit. In pin mode their pins let them run on
 *    every package: a plan at level 1 or 2 in which a free VM remains
 *    would idle no package, so it is made at level 0 instead (nothing is
 *    gathered, nothing re-pinned; level_reason says so), and the
 *    active count always matches the packages the pins can wake.
 * 7. Demand beyond the usable capacity of the whole host: every package
 *    is active and plan->overcommit is the excess.
 * 8. Level 0 is hands off, whichever way it was reached (configured,
 *    auto, or because gathering would idle no package): the plan is
 *    made again from the start with every VM unmanaged - no exclusive
 *    cores, nothing gathered, every VM's pins kept - and a managed VM
 *    that vcpack changed before (its record, vm->has_saved) gets
 *    vp->restore: back to what `vcpack restore` leaves. The policy's
 *    exclusive_cores is the operator's other choice: with a spread VM
 *    holding exclusive cores, level 0 keeps step 1's cores and leaves
 *    the other managed VMs free on the rest (re-pinned off them).
 * Reserved CPUs (policy->reserved_cpus, like numad -R): no VM is pinned
 * to them and no exclusive core has one of them, so exclusive cores start
 * at the first unreserved core; one unreserved core per package still
 * stays shared. A package counts only its unreserved threads' capacity.
 * A package reserved whole is the host's: never active, never offered to
 * VMs, not counted in n_active (plan->n_reserved_pkgs counts it). A
 * reserved CPU past the host's CPUs, or reserving every online CPU, is
 * -EINVAL (vcp_plan_check_reserved() says which).
 * Memory (vp->mem_node): on a host with several NUMA nodes, a VM placed
 * inside one package (gathered whole, or spread on exclusive cores of
 * one package) gets that package's node; -1 (leave it) on a one-node
 * host, for a VM spanning packages, a free or unmanaged VM, and so for
 * every gathered VM in kernel mode; -1 for all with the policy's
 * memory_follows false. Whether its memory can follow is
 * not the planner's business: vcp_mem_follow() (diff.h) decides that
 * from the VM's numatune mode.
 * Kernel mode: the same plan, but only spread VMs are pinned; every other
 * managed VM is FREE (the kernel packs by class and level); active
 * packages are what the kernel is expected to keep awake.
 * Cost: O(CPUs log CPUs + VMs log VMs + VMs x packages + vCPUs x cpuset
 * words); no VM x CPU loops.
 */
#include "planner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demand.h"
#include "errmsg.h"

#define EPS 1e-9

enum kind {
	K_UNMANAGED,
	K_SPREAD,	/* exclusive cores */
	K_SHARED,	/* spread VM without exclusive cores: degraded */
	K_GATHER,
	K_FREE,
};

struct core {
	unsigned int first;	/* lowest thread id */
	size_t pkg;		/* index into host->packages */
	size_t t_off;		/* its threads in ctx->threads */
	unsigned int n_t;
	int die, core;
	bool used;
};

struct pk {
	double usable;
	double base;		/* spread reservations + pinned unmanaged */
	double load;		/* base + gathered (+ free share at the end) */
	size_t core_lo, core_hi, next_free;
	unsigned int free_cores;
	bool forced, in_use, active, has_excl;
	bool reserved;		/* every CPU reserved: not for VMs */
	struct vcp_cpuset shared;	/* CPUs minus exclusive, reserved */
};

struct item {
	const char *name;
	size_t idx;
	unsigned int n_vcpus;
	double demand;
	enum vcp_class cls;
	enum kind kind;
	int cur_pkg;		/* package its vCPUs are all inside, or -1 */
	int pkg;		/* planned package, -1 if none or spanning */
	size_t core_off;	/* spread: its cores in ctx->vcpu_core */
	struct vcp_cpuset *span;	/* spanning: union of its CPUs */
};

struct ctx {
	const struct vcp_host *h;
	const struct vcp_vm *vms;
	size_t n_vms;
	const struct vcp_policy *pol;
	int *cpu_pkg;		/* by cpu id: package index or -1 */
	size_t *cpu_core;	/* by cpu id: core index */
	unsigned int *threads;
	struct core *cores;
	size_t n_cores;
	struct pk *pk;
	struct item *it;
	struct item **order;	/* scratch for sorting */
	size_t *vcpu_core;	/* spread VMs' cores, by item core_off */
	double floating;	/* unmanaged demand counted on the active set */
	struct vcp_cpuset excl;	/* all exclusive threads */
	struct vcp_cpuset free_set;	/* online minus exclusive, reserved */
	struct vcp_cpuset avail;	/* online minus reserved */
	size_t n_pref;		/* packages VMs may use (not reserved) */
	bool hands_off;		/* level 0: every VM is left as it is */
};

enum vcp_class vcp_plan_vm_class(const struct vcp_vm *vm,
				 const struct vcp_policy *policy)
{
	if (vm->has_tag && vm->tag.has_class &&
	    (unsigned int)vm->tag.class < VCP_CLASS__COUNT)
		return vm->tag.class;
	if (vm->has_tag && vm->tag.has_priority &&
	    (unsigned int)vm->tag.priority < VCP_PRIO__COUNT)
		return policy->prio_class[vm->tag.priority];
	return VCP_CLASS_BALANCED;
}

/* ---- topology: cores per package ---- */

static int cmp_cpu_idx(const void *a, const void *b, void *arg)
{
	const struct ctx *c = arg;
	const struct vcp_cpu *x = &c->h->cpus[*(const size_t *)a];
	const struct vcp_cpu *y = &c->h->cpus[*(const size_t *)b];
	int px = c->cpu_pkg[x->id], py = c->cpu_pkg[y->id];

	if (px != py)
		return px < py ? -1 : 1;
	if (x->die != y->die)
		return x->die < y->die ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_core(const void *a, const void *b)
{
	const struct core *x = a, *y = b;

	if (x->pkg != y->pkg)
		return x->pkg < y->pkg ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

/* Reserved CPUs: a core with a reserved thread is never exclusive, and a
 * package's capacity counts only its unreserved threads (a core with
 * one as a core). A package with no unreserved CPU is for the host. */
static int reserve_cores(struct ctx *c)
{
	size_t np = c->h->n_packages;
	unsigned int *nc = calloc(2 * np, sizeof(*nc)), *nt;

	if (!nc)
		return -ENOMEM;
	nt = nc + np;
	for (size_t i = 0; i < c->n_cores; i++) {
		struct core *k = &c->cores[i];
		unsigned int n = 0;

		for (unsigned int t = 0; t < k->n_t; t++)
			n += vcp_cpuset_test(&c->avail,
					     c->threads[k->t_off + t]);
		if (n < k->n_t) {
			k->used = true;
			c->pk[k->pkg].free_cores--;
		}
		if (n) {
			nc[k->pkg]++;
			nt[k->pkg] += n;
		}
	}
	for (size_t p = 0; p < np; p++) {
		c->pk[p].usable = (nc[p] + (double)(nt[p] - nc[p]) *
				   c->pol->smt_yield) *
				  (1.0 - c->pol->headroom);
		c->pk[p].reserved = nc[p] == 0;
	}
	free(nc);
	return 0;
}

/* Group the online CPUs into cores (sorted by package, then lowest
 * thread), each with its thread list. */
static int build_cores(struct ctx *c)
{
	const struct vcp_host *h = c->h;
	size_t *idx = malloc((h->n_cpus ? h->n_cpus : 1) * sizeof(*idx));
	unsigned int *tmp = malloc((h->n_cpus ? h->n_cpus : 1) * sizeof(*tmp));
	size_t n = 0;

	if (!idx || !tmp) {
		free(idx);
		free(tmp);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->n_cpus; i++)
		idx[i] = i;
	qsort_r(idx, h->n_cpus, sizeof(*idx), cmp_cpu_idx, c);
	for (size_t i = 0; i < h->n_cpus; i++) {
		const struct vcp_cpu *cpu = &h->cpus[idx[i]];
		struct core *k = n ? &c->cores[n - 1] : NULL;

		if (!k || k->pkg != (size_t)c->cpu_pkg[cpu->id] ||
		    k->die != cpu->die || k->core != cpu->core) {
			k = &c->cores[n++];
			k->pkg = (size_t)c->cpu_pkg[cpu->id];
			k->die = cpu->die;
			k->core = cpu->core;
			k->first = cpu->id;
			k->t_off = i;
		}
		k->n_t++;
		tmp[i] = cpu->id;
	}
	c->n_cores = n;
	/* Keep thread runs attached to their core while sorting cores. */
	memcpy(c->threads, tmp, h->n_cpus * sizeof(*tmp));
	qsort(c->cores, n, sizeof(*c->cores), cmp_core);
	for (size_t i = 0; i < n; i++) {
		struct pk *p = &c->pk[c->cores[i].pkg];

		if (p->core_hi == 0 && p->core_lo == 0 && p->free_cores == 0)
			p->core_lo = i;
		p->core_hi = i + 1;
		p->free_cores++;
		for (unsigned int t = 0; t < c->cores[i].n_t; t++)
			c->cpu_core[c->threads[c->cores[i].t_off + t]] = i;
	}
	if (reserve_cores(c) < 0) {
		free(idx);
		free(tmp);
		return -ENOMEM;
	}
	/* One core of every package stays shared (housekeeping). */
	for (size_t i = 0; i < h->n_packages; i++) {
		c->pk[i].next_free = c->pk[i].core_lo;
		if (c->pk[i].free_cores)
			c->pk[i].free_cores--;
	}
	free(idx);
	free(tmp);
	return 0;
}

static int ctx_init(struct ctx *c)
{
	const struct vcp_host *h = c->h;
	size_t maxc = h->max_cpus ? h->max_cpus : 1, nv = 0;

	for (size_t i = 0; i < c->n_vms; i++)
		nv += c->vms[i].n_vcpus;
	c->cpu_pkg = malloc(maxc * sizeof(*c->cpu_pkg)); /* ids < max_cpus */
	c->cpu_core = calloc(maxc, sizeof(*c->cpu_core));
	c->threads = calloc(h->n_cpus ? h->n_cpus : 1, sizeof(*c->threads));
	c->cores = calloc(h->n_cpus ? h->n_cpus : 1, sizeof(*c->cores));
	c->pk = calloc(h->n_packages, sizeof(*c->pk));
	c->it = calloc(c->n_vms ? c->n_vms : 1, sizeof(*c->it));
	c->order = calloc(c->n_vms ? c->n_vms : 1, sizeof(*c->order));
	c->vcpu_core = calloc(nv ? nv : 1, sizeof(*c->vcpu_core));
	if (!c->cpu_pkg || !c->cpu_core || !c->threads || !c->cores ||
	    !c->pk || !c->it || !c->order || !c->vcpu_core)
		return -ENOMEM;
	for (size_t i = 0; i < maxc; i++)
		c->cpu_pkg[i] = -1;
	for (size_t p = 0; p < h->n_packages; p++) {
		const struct vcp_package *pkg = &h->packages[p];
		int cpu;
		double cap = pkg->n_cores +
			     (double)(pkg->n_cpus - pkg->n_cores) *
			     c->pol->smt_yield;

		c->pk[p].usable = cap * (1.0 - c->pol->headroom);
		vcp_cpuset_foreach(cpu, &pkg->cpus)
			c->cpu_pkg[cpu] = (int)p;
	}
	for (size_t i = 0; i < h->n_cpus; i++)
		if (c->cpu_pkg[h->cpus[i].id] < 0 || h->cpus[i].id >= maxc)
			return -EINVAL;	/* host not finished */
	if (vcp_plan_check_reserved(h, c->pol, NULL) < 0)
		return -EINVAL;
	c->avail = h->online;
	vcp_cpuset_andnot(&c->avail, &c->pol->reserved_cpus);
	return build_cores(c);
}

static void ctx_free(struct ctx *c)
{
	for (size_t i = 0; c->it && i < c->n_vms; i++)
		free(c->it[i].span);
	free(c->cpu_pkg);
	free(c->cpu_core);
	free(c->threads);
	free(c->cores);
	free(c->pk);
	free(c->it);
	free(c->order);
	free(c->vcpu_core);
}

/* ---- VMs ---- */

static double vcpu_demand(const struct ctx *c, const struct vcp_vm *vm,
			  unsigned int i)
{
	return vcp_vcpu_demand(vm, i, c->pol);
}

/* Package index @s lies inside, or -1 (empty or spanning). */
static int pkg_of_set(const struct ctx *c, const struct vcp_cpuset *s)
{
	int cpu = vcp_cpuset_next(s, 0);
	int p;

	if (cpu < 0 || (p = c->cpu_pkg[cpu]) < 0)
		return -1;
	return vcp_cpuset_subset(s, &c->h->packages[p].cpus) ? p : -1;
}

static int vm_cur_pkg(const struct ctx *c, const struct vcp_vm *vm)
{
	int p = -1;

	if (!vm->vcpu_pins || !vm->n_vcpus)
		return -1;
	for (unsigned int i = 0; i < vm->n_vcpus; i++) {
		int q = pkg_of_set(c, &vm->vcpu_pins[i]);

		if (q < 0 || (i && q != p))
			return -1;
		p = q;
	}
	return p;
}

/* Unmanaged: count each vCPU where it is pinned now. */
static void count_unmanaged(struct ctx *c, const struct vcp_vm *vm)
{
	for (unsigned int i = 0; i < vm->n_vcpus; i++) {
		double d = vcpu_demand(c, vm, i);
		int p = vm->vcpu_pins ? pkg_of_set(c, &vm->vcpu_pins[i]) : -1;

		if (p < 0) {
			c->floating += d;
			continue;
		}
		c->pk[p].base += d;
		c->pk[p].forced = !c->pk[p].reserved;
	}
}

static void init_items(struct ctx *c)
{
	for (size_t i = 0; i < c->n_vms; i++) {
		const struct vcp_vm *vm = &c->vms[i];
		struct item *it = &c->it[i];

		it->name = vm->name ? vm->name : "";
		it->idx = i;
		it->n_vcpus = vm->n_vcpus;
		it->cls = vcp_plan_vm_class(vm, c->pol);
		it->cur_pkg = vm_cur_pkg(c, vm);
		it->pkg = -1;
		for (unsigned int v = 0; v < vm->n_vcpus; v++)
			it->demand += vcpu_demand(c, vm, v);
		if (!vm->managed || c->hands_off) {
			it->kind = K_UNMANAGED;
			count_unmanaged(c, vm);
		} else if (it->cls == VCP_CLASS_SPREAD) {
			it->kind = K_SPREAD;
		} else {
			it->kind = K_FREE;
			if (it->cur_pkg >= 0)
				c->pk[it->cur_pkg].in_use = true;
		}
	}
}

static int name_then_idx(const struct item *x, const struct item *y)
{
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_by_vcpus(const void *a, const void *b)
{
	const struct item *x = *(struct item *const *)a;
	const struct item *y = *(struct item *const *)b;

	if (x->n_vcpus != y->n_vcpus)
		return x->n_vcpus > y->n_vcpus ? -1 : 1;
	return name_then_idx(x, y);
}

static int cmp_by_demand(const void *a, const void *b)
{
	const struct item *x = *(struct item *const *)a;
	const struct item *y = *(struct item *const *)b;

	if (x->demand != y->demand)
		return x->demand > y->demand ? -1 : 1;
	return name_then_idx(x, y);
}

/* Items of @kind into c->order, sorted by @cmp; returns the count. */
static size_t sorted(struct ctx *c, enum kind kind,
		     int (*cmp)(const void *, const void *))
{
	size_t n = 0;

	for (size_t i = 0; i < c->n_vms; i++)
		if (c->it[i].kind == kind)
			c->order[n++] = &c->it[i];
	qsort(c->order, n, sizeof(*c->order), cmp);
	return n;
}

/* ---- step 1: spread VMs on exclusive cores ---- */

static void take_core(struct ctx *c, size_t k)
{
	struct core *co = &c->cores[k];

	co->used = true;
	c->pk[co->pkg].free_cores--;
	c->pk[co->pkg].base += 1.0;
	c->pk[co->pkg].forced = true;
	c->pk[co->pkg].has_excl = true;
	for (unsigned int t = 0; t < co->n_t; t++)
		vcp_cpuset_set(&c->excl, c->threads[co->t_off + t]);
}

static size_t next_free_core(struct ctx *c, size_t p)
{
	struct pk *k = &c->pk[p];

	while (c->cores[k->next_free].used)
		k->next_free++;
	return k->next_free;
}

/* Does vCPU pin @s name exactly one whole, free core? Its index or -1. */
static long whole_free_core(const struct ctx *c, const struct vcp_cpuset *s)
{
	int cpu = vcp_cpuset_next(s, 0);
	const struct core *co;
	size_t k;

	if (cpu < 0 || c->cpu_pkg[cpu] < 0)
		return -1;
	k = c->cpu_core[cpu];
	co = &c->cores[k];
	if (co->used || vcp_cpuset_count(s) != co->n_t)
		return -1;
	for (unsigned int t = 0; t < co->n_t; t++)
		if (!vcp_cpuset_test(s, c->threads[co->t_off + t]))
			return -1;
	return (long)k;
}

/* Keep the exact cores a spread VM has now if they are whole, free and
 * its own (its emulator threads elsewhere). */
static bool spread_stay(struct ctx *c, struct item *it)
{
	const struct vcp_vm *vm = &c->vms[it->idx];
	size_t *out = &c->vcpu_core[it->core_off];

	if (it->cur_pkg < 0 || c->pk[it->cur_pkg].free_cores < it->n_vcpus)
		return false;
	for (unsigned int i = 0; i < it->n_vcpus; i++) {
		long k = whole_free_core(c, &vm->vcpu_pins[i]);

		/* Its emulator on the same CPUs: it shares them, it does not
		 * own them (a balanced VM pinned to a one-core shared set). */
		if (vcp_cpuset_intersects(&vm->emulator_pins, &vm->vcpu_pins[i]))
			k = -1;

		for (unsigned int j = 0; k >= 0 && j < i; j++)
			if (out[j] == (size_t)k)
				k = -1;
		if (k < 0)
			return false;
		out[i] = (size_t)k;
	}
	for (unsigned int i = 0; i < it->n_vcpus; i++)
		take_core(c, out[i]);
	it->pkg = it->cur_pkg;
	return true;
}

/* Package preference for spread VMs: current one, then packages with
 * exclusive cores, then by id. Fills @ord with n_packages indices. */
static void spread_order(const struct ctx *c, const struct item *it,
			 size_t *ord)
{
	size_t n = 0, np = c->h->n_packages;

	if (it->cur_pkg >= 0)
		ord[n++] = (size_t)it->cur_pkg;
	for (int pass = 0; pass < 2; pass++)
		for (size_t p = 0; p < np; p++)
			if ((int)p != it->cur_pkg &&
			    c->pk[p].has_excl == (pass == 0))
				ord[n++] = p;
}

static void spread_place(struct ctx *c, struct item *it, size_t *ord)
{
	size_t np = c->h->n_packages, got = 0, total = 0;

	spread_order(c, it, ord);
	for (size_t p = 0; p < np; p++)
		total += c->pk[p].free_cores;
	if (total < it->n_vcpus) {
		it->kind = K_SHARED;
		return;
	}
	it->pkg = -1;
	for (size_t i = 0; i < np; i++)
		if (c->pk[ord[i]].free_cores >= it->n_vcpus) {
			it->pkg = (int)ord[i];
			break;
		}
	for (size_t i = 0; got < it->n_vcpus && i < np; i++) {
		size_t p = it->pkg >= 0 ? (size_t)it->pkg : ord[i];

		while (got < it->n_vcpus && c->pk[p].free_cores) {
			size_t k = next_free_core(c, p);

			c->vcpu_core[it->core_off + got++] = k;
			take_core(c, k);
		}
	}
}

static int place_spread(struct ctx *c)
{
	size_t n = sorted(c, K_SPREAD, cmp_by_vcpus), off = 0;
	size_t *ord = malloc(c->h->n_packages * sizeof(*ord));
	bool *stays = calloc(n ? n : 1, sizeof(*stays));

	if (!ord || !stays) {
		free(ord);
		free(stays);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->n_vms; i++) {
		c->it[i].core_off = off;
		off += c->it[i].n_vcpus;
	}
	/* Incumbents first: a VM on its own whole free cores keeps them, so
	 * a newcomer (or a re-tagged VM) never takes cores from under it. */
	for (size_t i = 0; i < n; i++)
		stays[i] = spread_stay(c, c->order[i]);
	for (size_t i = 0; i < n; i++)
		if (!stays[i])
			spread_place(c, c->order[i], ord);
	free(stays);
	free(ord);
	c->free_set = c->avail;
	vcp_cpuset_andnot(&c->free_set, &c->excl);
	if (vcp_cpuset_empty(&c->free_set))
		c->free_set = c->avail;
	for (size_t p = 0; p < c->h->n_packages; p++) {
		c->pk[p].shared = c->h->packages[p].cpus;
		vcp_cpuset_andnot(&c->pk[p].shared, &c->excl);
		vcp_cpuset_andnot(&c->pk[p].shared, &c->pol->reserved_cpus);
	}
	return 0;
}

/* ---- steps 4-6: active packages, gathering, free demand ---- */

static bool gathered_at(enum vcp_class cls, int level)
{
	return (cls == VCP_CLASS_PACK && level >= 1) ||
	       (cls == VCP_CLASS_BALANCED && level >= 2);
}

static double room(const struct pk *p)
{
	return p->usable - p->load > 0 ? p->usable - p->load : 0;
}

static bool can_host(const struct pk *p)
{
	return !vcp_cpuset_empty(&p->shared);
}

static void place_on(struct ctx *c, struct item *it, size_t p)
{
	c->pk[p].active = true;
	c->pk[p].load += it->demand;
	it->pkg = (int)p;
}

/* Preference order for activation: forced, in use, the rest; by id.
 * Reserved packages are left out (c->n_pref counts the others). */
static void build_pref(struct ctx *c, size_t *pref)
{
	size_t n = 0, np = c->h->n_packages;

	for (int pass = 0; pass < 3; pass++)
		for (size_t p = 0; p < np; p++) {
			const struct pk *k = &c->pk[p];
			int g = k->forced ? 0 : k->in_use ? 1 : 2;

			if (g == pass && !k->reserved)
				pref[n++] = p;
		}
	c->n_pref = n;
}

static void choose_active(struct ctx *c, const size_t *pref, double total)
{
	size_t np = c->h->n_packages;
	double cap = 0;
	bool any = false;

	for (size_t p = 0; p < np; p++) {
		c->pk[p].active = c->pk[p].forced;
		if (c->pk[p].active) {
			cap += c->pk[p].usable;
			any = true;
		}
	}
	for (size_t i = 0; i < c->n_pref && (cap + EPS < total || !any); i++) {
		struct pk *k = &c->pk[pref[i]];

		if (k->active)
			continue;
		k->active = true;
		cap += k->usable;
		any = true;
	}
}

/* Span a VM that fits no package alone over the packages with most room,
 * activating more in preference order while it does not fit. */
static int span(struct ctx *c, struct item *it, const size_t *pref,
		size_t *pick)
{
	size_t np = c->h->n_packages, n = 0;
	double got = 0, left = it->demand, cap = 0;

	it->span = calloc(1, sizeof(*it->span));
	if (!it->span)
		return -ENOMEM;
	for (size_t p = 0; p < np; p++)
		if (c->pk[p].active && can_host(&c->pk[p]))
			pick[n++] = p;
	/* Insertion sort by room, descending; stable keeps id order. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j && room(&c->pk[pick[j]]) >
			     room(&c->pk[pick[j - 1]]); j--) {
			size_t t = pick[j];

			pick[j] = pick[j - 1];
			pick[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++)
		got += room(&c->pk[pick[i]]);
	/* Drop the emptiest while the others still carry it. */
	while (n > 1 && got - room(&c->pk[pick[n - 1]]) + EPS >= it->demand)
		got -= room(&c->pk[pick[--n]]);
	for (size_t i = 0; i < c->n_pref && got + EPS < it->demand; i++) {
		struct pk *k = &c->pk[pref[i]];

		if (k->active || !can_host(k))
			continue;
		k->active = true;
		pick[n++] = pref[i];
		got += room(k);
	}
	for (size_t i = 0; i < n; i++) {
		struct pk *k = &c->pk[pick[i]];
		double d = room(k) < left ? room(k) : left;

		k->load += d;
		left -= d;
		cap += k->usable;
		vcp_cpuset_or(it->span, &k->shared);
	}
	for (size_t i = 0; i < n && left > EPS; i++)
		c->pk[pick[i]].load += left * c->pk[pick[i]].usable / cap;
	if (!n) {
		/* Every core is exclusive: it can only run shared. */
		*it->span = c->free_set;
		c->pk[pref[0]].active = true;
		c->pk[pref[0]].load += it->demand;
	}
	it->pkg = -1;
	return 0;
}

/* A VM that found no room: an inactive package that carries it, else
 * the active package with most room, else span. */
static int place_hard(struct ctx *c, struct item *it, const size_t *pref,
		      size_t *pick)
{
	size_t np = c->h->n_packages;
	long best = -1;
	bool fits_one = false;

	for (size_t i = 0; i < c->n_pref; i++) {
		struct pk *k = &c->pk[pref[i]];

		if (!can_host(k) || k->usable - k->base + EPS < it->demand)
			continue;
		fits_one = true;
		if (!k->active) {
			place_on(c, it, pref[i]);
			return 0;
		}
	}
	if (!fits_one)
		return span(c, it, pref, pick);
	for (size_t p = 0; p < np; p++)
		if (c->pk[p].active && can_host(&c->pk[p]) &&
		    (best < 0 || room(&c->pk[p]) > room(&c->pk[best])))
			best = (long)p;
	if (best < 0)
		return span(c, it, pref, pick);
	place_on(c, it, (size_t)best);
	return 0;
}

static bool fits(const struct pk *k, double d)
{
	return k->active && can_host(k) && k->usable - k->load + EPS >= d;
}

static int pack(struct ctx *c, const size_t *pref, size_t *pick)
{
	size_t n = sorted(c, K_GATHER, cmp_by_demand), np = c->h->n_packages;
	int r;

	for (size_t i = 0; i < n; i++) {
		struct item *it = c->order[i];

		if (it->cur_pkg >= 0 && fits(&c->pk[it->cur_pkg], it->demand))
			place_on(c, it, (size_t)it->cur_pkg);
	}
	for (size_t i = 0; i < n; i++) {
		struct item *it = c->order[i];
		size_t p;

		if (it->pkg >= 0)
			continue;
		for (p = 0; p < np && !fits(&c->pk[p], it->demand); p++)
			;
		if (p < np) {
			place_on(c, it, p);
			continue;
		}
		r = place_hard(c, it, pref, pick);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Free and floating demand fills the active packages' room; more
 * packages are activated while it does not fit. */
static void fill_free(struct ctx *c, const size_t *pref, double f)
{
	size_t np = c->h->n_packages;
	double rt = 0, cap = 0, share;

	for (size_t p = 0; p < np; p++)
		if (c->pk[p].active)
			rt += room(&c->pk[p]);
	for (size_t i = 0; i < c->n_pref && rt + EPS < f; i++) {
		struct pk *k = &c->pk[pref[i]];

		if (k->active)
			continue;
		k->active = true;
		rt += room(k);
	}
	share = f < rt ? f : rt;
	for (size_t p = 0; p < np; p++) {
		struct pk *k = &c->pk[p];

		if (!k->active)
			continue;
		cap += k->usable;
		if (rt > 0)
			k->load += share * room(k) / rt;
	}
	for (size_t p = 0; f - share > EPS && cap > 0 && p < np; p++)
		if (c->pk[p].active)
			c->pk[p].load += (f - share) * c->pk[p].usable / cap;
}

static void reset(struct ctx *c, int level)
{
	for (size_t p = 0; p < c->h->n_packages; p++) {
		c->pk[p].load = c->pk[p].base;
		c->pk[p].active = false;
	}
	for (size_t i = 0; i < c->n_vms; i++) {
		struct item *it = &c->it[i];

		if (it->kind != K_GATHER && it->kind != K_FREE)
			continue;
		it->kind = gathered_at(it->cls, level) ? K_GATHER : K_FREE;
		it->pkg = -1;
		free(it->span);
		it->span = NULL;
	}
}

/* Plan at @level; returns the number of active packages or -ENOMEM. */
static int gather(struct ctx *c, int level, size_t *pref, size_t *pick)
{
	size_t np = c->h->n_packages, n_active = 0;
	double total = c->floating, f = c->floating;
	int r;

	reset(c, level);
	for (size_t p = 0; p < np; p++)
		if (!c->pk[p].reserved)
			total += c->pk[p].base;
	for (size_t i = 0; i < c->n_vms; i++) {
		const struct item *it = &c->it[i];

		if (it->kind == K_GATHER || it->kind == K_FREE ||
		    it->kind == K_SHARED)
			total += it->demand;
		if (it->kind == K_FREE || it->kind == K_SHARED)
			f += it->demand;
	}
	build_pref(c, pref);
	choose_active(c, pref, total);
	r = pack(c, pref, pick);
	if (r < 0)
		return r;
	fill_free(c, pref, f);
	for (size_t p = 0; p < np; p++)
		n_active += c->pk[p].active;
	return (int)n_active;
}

static int auto_level(const struct ctx *c, const char **ret_why)
{
	bool packable = false, busy = false;

	for (size_t i = 0; i < c->n_vms; i++) {
		const struct item *it = &c->it[i];

		if (it->kind == K_FREE)
			packable = true;
		if ((it->kind == K_SPREAD || it->kind == K_SHARED) &&
		    it->n_vcpus && it->demand / it->n_vcpus >
		    c->pol->busy_vcpu_demand + EPS)
			busy = true;
	}
	if (!packable) {
		*ret_why = "auto: no packable VM (every VM is spread or left alone)";
		return 0;
	}
	*ret_why = busy ? "auto: a busy spread VM runs, so only pack VMs are gathered" :
			  "auto: packable VMs and no busy spread VM";
	return busy ? 1 : 2;
}

/*
 * Pin mode: a free VM is pinned to every CPU left for VMs, so it may run
 * on (and wakes) every package with such CPUs. True when the plan made
 * at this level then leaves no package idle: gathering frees nothing.
 */
static bool frees_none(const struct ctx *c)
{
	bool has_free = false;

	if (vcp_mode_plan(c->h->mode) == VCP_MODE_KERNEL)
		return false;
	for (size_t i = 0; i < c->n_vms; i++)
		if ((c->it[i].kind == K_FREE || c->it[i].kind == K_SHARED) &&
		    c->it[i].n_vcpus)
			has_free = true;
	if (!has_free)
		return false;
	for (size_t p = 0; p < c->h->n_packages; p++) {
		const struct pk *k = &c->pk[p];

		if (!k->reserved && !k->active &&
		    !vcp_cpuset_intersects(&k->shared, &c->free_set))
			return false;
	}
	return true;
}

static int resolve(struct ctx *c, int *ret_level, const char **ret_why)
{
	size_t np = c->h->n_packages;
	size_t *pref = malloc(2 * np * sizeof(*pref));
	const char *why = "the level as configured";
	int level = c->pol->level, r;

	if (!pref)
		return -ENOMEM;
	if (level == VCP_LEVEL_AUTO)
		level = auto_level(c, &why);
	r = gather(c, level, pref, pref + np);
	if (r >= 0 && c->pol->level == VCP_LEVEL_AUTO && level > 0 &&
	    (size_t)r == c->n_pref) {
		level = 0;
		why = "auto: the measured demand leaves no package to idle";
		r = gather(c, level, pref, pref + np);
	}
	if (r >= 0 && level > 0 && frees_none(c)) {
		level = 0;
		why = "gathering would idle no package (VMs left free may run on every package): nothing is gathered";
		r = gather(c, level, pref, pref + np);
	}
	free(pref);
	if (r < 0)
		return r;
	*ret_level = level;
	*ret_why = why;
	return 0;
}

/* ---- the plan ---- */

static void fill_all(struct vcp_vm_plan *vp, const struct vcp_cpuset *s)
{
	for (unsigned int i = 0; i < vp->n_vcpus; i++)
		vcp_cpuset_copy(&vp->vcpu_pins[i], s);
	vcp_cpuset_copy(&vp->emulator_pins, s);
}

static void out_spread(const struct ctx *c, const struct item *it,
		       struct vcp_vm_plan *vp)
{
	struct vcp_cpuset own;

	vcp_cpuset_zero(&own);
	vcp_cpuset_zero(&vp->emulator_pins);
	for (unsigned int i = 0; i < it->n_vcpus; i++) {
		const struct core *co = &c->cores[c->vcpu_core[it->core_off + i]];

		vcp_cpuset_zero(&vp->vcpu_pins[i]);
		for (unsigned int t = 0; t < co->n_t; t++)
			vcp_cpuset_set(&vp->vcpu_pins[i],
				       c->threads[co->t_off + t]);
		vcp_cpuset_or(&own, &vp->vcpu_pins[i]);
		vcp_cpuset_or(&vp->emulator_pins, &c->pk[co->pkg].shared);
	}
	if (vcp_cpuset_empty(&vp->emulator_pins))
		vcp_cpuset_copy(&vp->emulator_pins, &own);
	vp->placement = VCP_PLACE_EXCLUSIVE;
	vp->package = it->pkg;
	vp->demand = it->n_vcpus;
}

/* Kernel mode: the kernel packs gathered VMs; they are left free. */
static bool kernel_free(const struct ctx *c, const struct item *it)
{
	return it->kind == K_GATHER && vcp_mode_plan(c->h->mode) == VCP_MODE_KERNEL;
}

static void out_vm(const struct ctx *c, const struct item *it,
		   struct vcp_vm_plan *vp)
{
	const struct vcp_vm *vm = &c->vms[it->idx];

	vp->name = vm->name;
	vp->class = it->cls;
	vp->n_vcpus = it->n_vcpus;
	vp->package = -1;
	vp->mem_node = -1;
	vp->demand = it->demand;
	switch (kernel_free(c, it) ? K_FREE : it->kind) {
	case K_UNMANAGED:
		vp->placement = VCP_PLACE_UNMANAGED;
		vp->restore = c->hands_off && vm->managed && vm->has_saved;
		for (unsigned int i = 0; vm->vcpu_pins && i < it->n_vcpus; i++)
			vcp_cpuset_copy(&vp->vcpu_pins[i],
					vp->restore && vm->orig_pins ?
						&vm->orig_pins[i] :
						&vm->vcpu_pins[i]);
		vcp_cpuset_copy(&vp->emulator_pins,
				vp->restore && vm->has_orig_emulator ?
					&vm->orig_emulator :
					&vm->emulator_pins);
		vp->package = it->cur_pkg;
		return;
	case K_SPREAD:
		out_spread(c, it, vp);
		break;
	case K_GATHER:
		vp->placement = VCP_PLACE_GATHERED;
		vp->package = it->pkg;
		fill_all(vp, it->span ? it->span : &c->pk[it->pkg].shared);
		break;
	case K_SHARED:
	case K_FREE:
		vp->placement = VCP_PLACE_FREE;
		fill_all(vp, &c->free_set);
		if (it->kind == K_SHARED)
			vp->degraded = "no exclusive cores left";
		return;
	}
	if (vp->package >= 0 && c->h->n_nodes > 1 && c->pol->memory_follows)
		vp->mem_node = c->h->packages[vp->package].node;
}

/* Pin mode: a VM pinned there (a free VM's pins span every package)
 * runs there, so the package is awake whatever the demand says. */
static bool woken(const struct ctx *c, const struct vcp_plan *pl, size_t p)
{
	if (vcp_mode_plan(c->h->mode) == VCP_MODE_KERNEL || c->pk[p].reserved)
		return false;
	for (size_t i = 0; i < pl->n_vms; i++)
		for (unsigned int v = 0; v < pl->vms[i].n_vcpus; v++)
			if (vcp_cpuset_intersects(&pl->vms[i].vcpu_pins[v],
						  &c->h->packages[p].cpus) ||
			    /* hands off, pinned nowhere: runs anywhere */
			    (c->hands_off &&
			     vcp_cpuset_empty(&pl->vms[i].vcpu_pins[v])))
				return true;
	return false;
}

static int build_plan(const struct ctx *c, int level, struct vcp_plan **ret)
{
	size_t np = c->h->n_packages;
	struct vcp_plan *pl = calloc(1, sizeof(*pl));

	if (!pl)
		return -ENOMEM;
	pl->vms = calloc(c->n_vms ? c->n_vms : 1, sizeof(*pl->vms));
	pl->pkg_active = calloc(np, sizeof(*pl->pkg_active));
	pl->pkg_demand = calloc(np, sizeof(*pl->pkg_demand));
	pl->pkg_capacity = calloc(np, sizeof(*pl->pkg_capacity));
	if (!pl->vms || !pl->pkg_active || !pl->pkg_demand ||
	    !pl->pkg_capacity)
		goto nomem;
	pl->mode = c->h->mode;
	pl->level = level;
	pl->hands_off = c->hands_off;
	pl->n_packages = np;
	for (size_t i = 0; i < c->n_vms; i++, pl->n_vms++) {
		pl->vms[i].vcpu_pins = calloc(c->it[i].n_vcpus ?
					      c->it[i].n_vcpus : 1,
					      sizeof(*pl->vms[i].vcpu_pins));
		if (!pl->vms[i].vcpu_pins)
			goto nomem;
		out_vm(c, &c->it[i], &pl->vms[i]);
	}
	for (size_t p = 0; p < np; p++) {
		pl->pkg_active[p] = c->pk[p].active || woken(c, pl, p);
		pl->pkg_demand[p] = c->pk[p].load;
		pl->pkg_capacity[p] = c->pk[p].usable;
		pl->n_active += pl->pkg_active[p];
		if (c->pk[p].reserved)
			continue;	/* the host's: not the VMs' demand */
		pl->demand += c->pk[p].load;
		pl->capacity += c->pk[p].usable;
	}
	if (pl->demand > pl->capacity + EPS)
		pl->overcommit = pl->demand - pl->capacity;
	pl->reserved = c->h->online;
	vcp_cpuset_andnot(&pl->reserved, &c->avail);
	for (size_t p = 0; p < np; p++)
		pl->n_reserved_pkgs += c->pk[p].reserved;
	*ret = pl;
	return 0;
nomem:
	vcp_plan_free(pl);
	return -ENOMEM;
}

/* A spread VM holds exclusive cores in this plan. */
static bool has_spread(const struct ctx *c)
{
	for (size_t i = 0; i < c->n_vms; i++)
		if (c->it[i].kind == K_SPREAD)
			return true;
	return false;
}

/*
 * Level 0 is hands off: plan again from the start with every VM left as
 * it is (no exclusive cores either), counted where its pins let it run.
 */
static int hands_off(struct ctx *c)
{
	size_t np = c->h->n_packages;
	size_t *pref;
	int r;

	ctx_free(c);
	*c = (struct ctx){ .h = c->h, .vms = c->vms, .n_vms = c->n_vms,
			   .pol = c->pol, .hands_off = true };
	r = ctx_init(c);
	if (r < 0)
		return r;
	init_items(c);
	pref = malloc(2 * np * sizeof(*pref));
	if (!pref)
		return -ENOMEM;
	r = gather(c, 0, pref, pref + np);
	free(pref);
	return r < 0 ? r : 0;
}

int vcp_plan_compute(const struct vcp_host *host, const struct vcp_vm *vms,
		     size_t n_vms, const struct vcp_policy *policy,
		     struct vcp_plan **ret_plan)
{
	struct ctx c = { 0 };
	const char *why = NULL;
	int level = 0, r;

	if (!host || !policy || !ret_plan || !host->n_packages ||
	    (n_vms && !vms) || policy->level < VCP_LEVEL_AUTO ||
	    policy->level > 2)
		return -EINVAL;
	c.h = host;
	c.vms = vms;
	c.n_vms = n_vms;
	c.pol = policy;
	r = ctx_init(&c);
	if (r == 0) {
		init_items(&c);
		r = place_spread(&c);
	}
	if (r == 0)
		r = resolve(&c, &level, &why);
	if (r == 0 && level == 0 && !(policy->exclusive_cores && has_spread(&c)))
		r = hands_off(&c);
	if (r == 0)
		r = build_plan(&c, level, ret_plan);
	if (r == 0)
		(*ret_plan)->level_reason = why;
	ctx_free(&c);
	return r;
}

int vcp_plan_check_reserved(const struct vcp_host *host,
			    const struct vcp_policy *policy, char **ret_err)
{
	const struct vcp_cpuset *rs = &policy->reserved_cpus;
	struct vcp_cpuset avail = host->online;
	int bad = vcp_cpuset_next(rs, host->max_cpus);
	char buf[256];

	if (bad >= 0)
		return vcp_err(ret_err, -EINVAL,
			       "reserved_cpus: CPU %d does not exist on this host (it has CPUs 0-%u)",
			       bad, host->max_cpus ? host->max_cpus - 1 : 0);
	vcp_cpuset_andnot(&avail, rs);
	if (vcp_cpuset_empty(&avail)) {
		if (vcp_cpuset_format(rs, buf, sizeof(buf)) < 0)
			snprintf(buf, sizeof(buf), "...");
		return vcp_err(ret_err, -EINVAL,
			       "reserved_cpus: '%s' leaves no online CPU for VMs",
			       buf);
	}
	return 0;
}
