// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleetplan.c - the pure fleet planner: host-level consolidation by live
 * migration, as advice (`vcpack fleet plan`) and as the script `vcpack
 * fleet apply` carries out. No I/O, no logging, no globals.
 *
 * Every reachable host is first planned on its own with the host planner
 * (vcp_plan_compute): that gives its demand and capacity in CPUs (usable,
 * headroom taken off), the demand of each VM, and the packages it keeps
 * awake. Then, greedily:
 * 1. Candidates to empty: reachable hosts with running VMs, all of them
 *    movable (managed, and not `spread` unless opts->move_spread), a
 *    known CPU group. Least demand first (then fewest VMs, then input
 *    order): emptying the lightest hosts moves the least.
 * 2. A candidate's running VMs, largest demand first (then memory, then
 *    input order), go one by one to the best-fitting receiver: a
 *    reachable host that accepts VMs, is not emptied, has a CPU group the
 *    VM can run on, room for the VM's demand within its capacity and for
 *    its memory within mem_kib * (1 - mem_reserve), and running VMs of
 *    its own (an idle host can sleep already: waking it to empty another
 *    gains nothing and costs migrations); best fit = least CPU
 *    room left afterwards (ties: lower index). If one VM finds no room,
 *    the candidate is left as it is and nothing of it moves.
 * 3. A host that has received VMs is no longer a candidate (no VM moves
 *    twice); an emptied host receives nothing.
 * Afterwards every receiver is planned again with its new VMs (moved VMs
 * arrive unpinned) for the packages it keeps awake. Stopped VMs neither
 * count nor move. Cost: O(hosts x VMs per host x hosts) comparisons plus
 * two host plans per host.
 */
#include "fleetplan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "planner.h"

#define EPS 1e-9

/*
 * What a VM takes on the host it moves to: its planned demand, and for a
 * spread VM at least a whole core per vCPU (its exclusive cores there),
 * also where its own host plans at level 0 and leaves it as it is.
 */
static double move_demand(const struct vcp_vm_plan *vp)
{
	if (vp->class == VCP_CLASS_SPREAD && vp->demand < vp->n_vcpus)
		return vp->n_vcpus;
	return vp->demand;
}

struct hst {
	double cap, room;		/* CPUs */
	long long mem_room;		/* KiB */
	double *vm_demand;		/* per VM, from its host plan */
	size_t n_running;
	bool receiver, emptied, movable;
};

struct fctx {
	const struct vcp_fleet_host *h;
	size_t n;
	const struct vcp_policy *pol;
	const struct vcp_fleet_opts *o;
	struct hst *s;
	struct vcp_fleet_plan *p;
	size_t cap_moves;
};

void vcp_fleet_plan_free(struct vcp_fleet_plan *p)
{
	if (!p)
		return;
	free(p->hosts);
	free(p->moves);
	free(p);
}

static unsigned long long running_mem(const struct vcp_fleet_host *h)
{
	unsigned long long m = 0;

	for (size_t i = 0; i < h->n_vms; i++)
		if (h->vms[i].running)
			m += h->vms[i].mem_kib;
	return m;
}

static const char *why_fixed(const struct fctx *c, size_t i)
{
	const struct vcp_fleet_host *h = &c->h[i];

	for (size_t j = 0; j < h->n_vms; j++) {
		const struct vcp_vm *vm = &h->vms[j];

		if (!vm->running)
			continue;
		if (!vm->managed)
			return "has a VM vcpack does not manage";
		if (!c->o->move_spread &&
		    vcp_plan_vm_class(vm, c->pol) == VCP_CLASS_SPREAD)
			return "has a spread VM (move_spread is off)";
	}
	if (h->cpu_group < 0)
		return "CPU model unknown";
	return NULL;
}

/* Shallow copies of the running VMs of @h (the host planner plans what
 * it is given); @map[k] is the index of copy k in h->vms. */
static struct vcp_vm *running_vms(const struct vcp_fleet_host *h,
				  size_t *map, size_t *ret_n)
{
	struct vcp_vm *run = calloc(h->n_vms ? h->n_vms : 1, sizeof(*run));
	size_t n = 0;

	if (!run)
		return NULL;
	for (size_t j = 0; j < h->n_vms; j++) {
		if (!h->vms[j].running)
			continue;
		map[n] = j;
		run[n++] = h->vms[j];
	}
	*ret_n = n;
	return run;
}

static void before_figures(struct fctx *c, size_t i,
			   const struct vcp_plan *plan)
{
	const struct vcp_fleet_host *h = &c->h[i];
	struct vcp_fleet_host_plan *hp = &c->p->hosts[i];
	struct hst *s = &c->s[i];
	double mem;

	hp->n_packages = plan->n_packages;
	hp->awake_before = hp->awake_after = plan->n_active;
	hp->demand_before = hp->demand_after = plan->demand;
	hp->capacity = plan->capacity;
	hp->mem_before = hp->mem_after = running_mem(h);
	s->cap = plan->capacity;
	s->room = plan->capacity - plan->demand;
	mem = (double)h->mem_kib * (1.0 - c->o->mem_reserve);
	s->mem_room = h->mem_kib ? (long long)mem - (long long)hp->mem_before
				 : -1;
}

/* Plan one host alone; fill before-figures and per-VM demand. */
static int plan_host(struct fctx *c, size_t i)
{
	const struct vcp_fleet_host *h = &c->h[i];
	struct hst *s = &c->s[i];
	struct vcp_plan *plan = NULL;
	struct vcp_vm *run = NULL;
	size_t *map, n = 0;
	int r = -ENOMEM;

	map = calloc(h->n_vms ? h->n_vms : 1, sizeof(*map));
	s->vm_demand = calloc(h->n_vms ? h->n_vms : 1, sizeof(double));
	if (map && s->vm_demand)
		run = running_vms(h, map, &n);
	if (run)
		r = vcp_plan_compute(h->host, run, n, c->pol, &plan);
	if (r == 0) {
		for (size_t k = 0; k < n; k++)
			s->vm_demand[map[k]] = move_demand(&plan->vms[k]);
		s->n_running = n;
		before_figures(c, i, plan);
	}
	vcp_plan_free(plan);
	free(run);
	free(map);
	return r;
}

static bool compatible(const struct fctx *c, size_t from, size_t to)
{
	int a = c->h[from].cpu_group, b = c->h[to].cpu_group;

	if (a < 0 || b < 0)
		return false;
	if (a == b)
		return true;
	if (!c->o->compat)
		return false;
	return c->o->compat[(size_t)a * c->o->n_groups + (size_t)b];
}

/* Best-fit receiver for VM @j of host @from, or -1. */
static long best_target(const struct fctx *c, size_t from, size_t j)
{
	const struct vcp_vm *vm = &c->h[from].vms[j];
	double d = c->s[from].vm_demand[j], best = 0;
	long t = -1;

	for (size_t i = 0; i < c->n; i++) {
		const struct hst *s = &c->s[i];
		double left = s->room - d;

		if (i == from || !c->h[i].reachable || !c->h[i].accepts ||
		    s->emptied || !s->n_running || s->mem_room < 0 ||
		    left < -EPS ||
		    (unsigned long long)s->mem_room < vm->mem_kib ||
		    !compatible(c, from, i))
			continue;
		if (t < 0 || left < best - EPS) {
			t = (long)i;
			best = left;
		}
	}
	return t;
}

static int push_move(struct fctx *c, size_t from, size_t vm, size_t to)
{
	struct vcp_fleet_move *m;

	if (c->p->n_moves == c->cap_moves) {
		size_t cap = c->cap_moves ? c->cap_moves * 2 : 64;

		m = realloc(c->p->moves, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		c->p->moves = m;
		c->cap_moves = cap;
	}
	m = &c->p->moves[c->p->n_moves++];
	m->from = from;
	m->vm = vm;
	m->to = to;
	m->demand = c->s[from].vm_demand[vm];
	return 0;
}

struct vm_order {
	const struct fctx *c;
	size_t from;
};

static int cmp_vm(const void *a, const void *b, void *arg)
{
	const struct vm_order *o = arg;
	const struct vcp_vm *vms = o->c->h[o->from].vms;
	const double *dem = o->c->s[o->from].vm_demand;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (dem[x] > dem[y] + EPS || dem[x] < dem[y] - EPS)
		return dem[x] > dem[y] ? -1 : 1;
	if (vms[x].mem_kib != vms[y].mem_kib)
		return vms[x].mem_kib > vms[y].mem_kib ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Try to empty host @from. On success the moves are appended and the
 * receivers' rooms charged; on failure everything is as before.
 */
static int try_empty(struct fctx *c, size_t from, size_t *order,
		     long *to, bool *ret_ok)
{
	const struct vcp_fleet_host *h = &c->h[from];
	struct vm_order arg = { c, from };
	size_t n = 0, k;
	int r = 0;

	for (size_t j = 0; j < h->n_vms; j++)
		if (h->vms[j].running)
			order[n++] = j;
	qsort_r(order, n, sizeof(*order), cmp_vm, &arg);
	for (k = 0; k < n; k++) {
		size_t j = order[k];

		to[k] = best_target(c, from, j);
		if (to[k] < 0)
			break;
		c->s[to[k]].room -= c->s[from].vm_demand[j];
		c->s[to[k]].mem_room -= (long long)h->vms[j].mem_kib;
	}
	*ret_ok = k == n;
	for (size_t u = 0; u < k; u++) {
		size_t j = order[u];

		if (*ret_ok) {
			c->s[to[u]].receiver = true;
			if (r == 0)
				r = push_move(c, from, j, (size_t)to[u]);
			continue;
		}
		c->s[to[u]].room += c->s[from].vm_demand[j];
		c->s[to[u]].mem_room += (long long)h->vms[j].mem_kib;
	}
	return r;
}

static int cmp_cand(const void *a, const void *b, void *arg)
{
	const struct fctx *c = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	double dx = c->p->hosts[x].demand_before;
	double dy = c->p->hosts[y].demand_before;

	if (dx > dy + EPS || dx < dy - EPS)
		return dx < dy ? -1 : 1;
	if (c->s[x].n_running != c->s[y].n_running)
		return c->s[x].n_running < c->s[y].n_running ? -1 : 1;
	return x < y ? -1 : x > y;
}

static size_t max_vms(const struct fctx *c)
{
	size_t m = 1;

	for (size_t i = 0; i < c->n; i++)
		if (c->h[i].n_vms > m)
			m = c->h[i].n_vms;
	return m;
}

static int consolidate(struct fctx *c)
{
	size_t *cand, *order, nc = 0, m = max_vms(c);
	long *to;
	int r = 0;

	cand = calloc(c->n ? c->n : 1, sizeof(*cand));
	order = calloc(m, sizeof(*order));
	to = calloc(m, sizeof(*to));
	if (!cand || !order || !to) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c->n; i++)
		if (c->s[i].movable)
			cand[nc++] = i;
	qsort_r(cand, nc, sizeof(*cand), cmp_cand, c);
	for (size_t k = 0; k < nc && r == 0; k++) {
		size_t i = cand[k];
		bool ok = false;

		if (c->s[i].receiver) {
			c->p->hosts[i].kept = "receives VMs from other hosts";
			continue;
		}
		r = try_empty(c, i, order, to, &ok);
		c->s[i].emptied = ok;
		if (!ok)
			c->p->hosts[i].kept = "no room on the other busy hosts for all its VMs";
	}
out:
	free(cand);
	free(order);
	free(to);
	return r;
}

/* The VMs host @i runs after the plan: its own plus the incoming ones
 * (unpinned copies); planned again. */
static int replan_receiver(struct fctx *c, size_t i,
			   const struct vcp_cpuset *nopins)
{
	const struct vcp_fleet_host *h = &c->h[i];
	struct vcp_fleet_host_plan *hp = &c->p->hosts[i];
	struct vcp_plan *plan = NULL;
	struct vcp_vm *vms;
	size_t n;
	int r;

	vms = calloc(h->n_vms + c->p->n_moves + 1, sizeof(*vms));
	if (!vms)
		return -ENOMEM;
	n = 0;
	for (size_t j = 0; j < h->n_vms; j++)
		if (h->vms[j].running)
			vms[n++] = h->vms[j];
	for (size_t k = 0; k < c->p->n_moves; k++) {
		const struct vcp_fleet_move *mv = &c->p->moves[k];
		struct vcp_vm *v;

		if (mv->to != i)
			continue;
		v = &vms[n++];
		*v = c->h[mv->from].vms[mv->vm];
		v->vcpu_pins = (struct vcp_cpuset *)nopins;
		memset(&v->emulator_pins, 0, sizeof(v->emulator_pins));
		v->mem_node = -1;
		hp->mem_after += v->mem_kib;
	}
	r = vcp_plan_compute(h->host, vms, n, c->pol, &plan);
	free(vms);
	if (r < 0)
		return r;
	hp->awake_after = plan->n_active;
	hp->demand_after = plan->demand;
	vcp_plan_free(plan);
	return 0;
}

static unsigned int max_vcpus(const struct fctx *c)
{
	unsigned int m = 1;

	for (size_t i = 0; i < c->n; i++)
		for (size_t j = 0; j < c->h[i].n_vms; j++)
			if (c->h[i].vms[j].n_vcpus > m)
				m = c->h[i].vms[j].n_vcpus;
	return m;
}

static int finish(struct fctx *c)
{
	struct vcp_cpuset *nopins;
	struct vcp_fleet_plan *p = c->p;
	int r = 0;

	nopins = calloc(max_vcpus(c), sizeof(*nopins));
	if (!nopins)
		return -ENOMEM;
	for (size_t i = 0; i < c->n && r == 0; i++) {
		struct vcp_fleet_host_plan *hp = &p->hosts[i];

		if (!c->h[i].reachable) {
			p->hosts_unreachable++;
			continue;
		}
		if (c->s[i].emptied) {
			hp->emptied = true;
			hp->awake_after = 0;
			hp->demand_after = 0;
			hp->mem_after = 0;
			p->hosts_emptied++;
		} else if (c->s[i].receiver) {
			r = replan_receiver(c, i, nopins);
		}
		p->hosts_idle += hp->idle;
		p->packages += hp->n_packages;
		p->awake_before += hp->awake_before;
		p->awake_after += hp->awake_after;
	}
	free(nopins);
	return r;
}

static int setup(struct fctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct vcp_fleet_host_plan *hp = &c->p->hosts[i];
		int r;

		if (!c->h[i].reachable) {
			hp->kept = "unreachable";
			continue;
		}
		if (!c->h[i].host)
			return -EINVAL;
		r = plan_host(c, i);
		if (r < 0)
			return r;
		hp->idle = c->s[i].n_running == 0;
		hp->kept = hp->idle ? "idle: no running VMs" : why_fixed(c, i);
		c->s[i].movable = !hp->kept;
	}
	return 0;
}

int vcp_fleet_plan_compute(const struct vcp_fleet_host *hosts, size_t n,
			   const struct vcp_policy *policy,
			   const struct vcp_fleet_opts *opts,
			   struct vcp_fleet_plan **ret)
{
	struct fctx c = { .h = hosts, .n = n, .pol = policy, .o = opts };
	int r;

	if ((!hosts && n) || !policy || !opts || opts->mem_reserve < 0 ||
	    opts->mem_reserve > 0.9 || (opts->compat && !opts->n_groups))
		return -EINVAL;
	c.p = calloc(1, sizeof(*c.p));
	c.s = calloc(n ? n : 1, sizeof(*c.s));
	if (c.p)
		c.p->hosts = calloc(n ? n : 1, sizeof(*c.p->hosts));
	if (!c.p || !c.s || !c.p->hosts) {
		r = -ENOMEM;
		goto out;
	}
	c.p->n_hosts = n;
	r = setup(&c);
	if (r == 0)
		r = consolidate(&c);
	if (r == 0)
		r = finish(&c);
out:
	for (size_t i = 0; c.s && i < n; i++)
		free(c.s[i].vm_demand);
	free(c.s);
	if (r < 0)
		vcp_fleet_plan_free(c.p);
	else
		*ret = c.p;
	return r;
}
