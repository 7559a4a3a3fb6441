// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * standby.c - the fleet loop's decision, pure: one round at a time (time
 * passed in), which guests to migrate, which one host to put in standby,
 * which hosts to wake. No I/O, no clock, no logging, no globals; the fleet
 * planner (fleetplan.c) says where guests go.
 *
 * Demand and capacity (CPUs, headroom taken off) come from the host
 * planner through the fleet planner, over the hosts that are on and
 * answer; util = demand / capacity on. The band [low, high] of the
 * policy has a target in its middle. Each round:
 * 1. Observations first: a waking host that answers is on (the cool-down
 *    runs from the wake); one that has not answered by the wake deadline
 *    is failed; a host in standby that answers was woken by someone else
 *    and is on (and no candidate for woken_grace: whoever woke it had a
 *    reason). Band timers: since when util is below low / above high.
 * 2. Wake, before anything else, when the capacity on plus the capacity
 *    waking is below demand (at once), leaves less than min_spare_hosts
 *    of the largest host's capacity spare (at once), or util stayed above
 *    high for high_hold and would still be above with the hosts waking.
 *    Hosts in standby, largest capacity first (then fleet order), until
 *    util would be at most the target and the spares kept. A drain in
 *    progress is given up.
 * 3. Rebalance: a host on whose demand exceeds its capacity sends
 *    movable guests (managed; spread only with move_spread), largest
 *    first, to the hosts on with the most room left under the target
 *    (CPU group, memory and budgets permitting) until it is back within
 *    the band. A round that rebalances does nothing else but wake.
 * 4. Otherwise at most one host goes towards standby, and only when no
 *    wake is in progress and the cool-down since the last wake is over:
 *    the host being drained, or (util below low for low_hold) a new one.
 *    A candidate is on, answers, has an action other than none, is not
 *    stay_on nor failed, and its going must leave util at most the target
 *    and the spare capacity kept. An empty candidate (no running guest)
 *    goes first; else the fleet planner is offered the 8 candidates of
 *    least demand, every other host's guests held in place (planned as
 *    unmanaged), and the first host it empties is drained: its guests
 *    move, at most migrations_per_round a round and within each host's
 *    budget of migrations an hour (in or out, sender and receiver), so
 *    a drain may take several rounds; a host whose budget is spent is
 *    not chosen. A host is put in standby only in a round that sees it
 *    without a running guest; a guest that cannot move (spread unless
 *    move_spread, not managed) keeps its host on.
 * A failed host is never chosen, to wake or to sleep, until cleared.
 */
#include "standby.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "demand.h"
#include "planner.h"

#define EPS 1e-9
/* the why of a host in standby that answered: someone else woke it */
#define WOKEN_ELSEWHERE "woken by someone else (it answered while in standby)"
#define VCP_SB_OFFERED 8

struct dctx {
	const struct vcp_sb_round *r;
	struct vcp_sb_state *st;
	struct vcp_sb_decision *d;
	struct vcp_fleet_host *views;
	struct vcp_fleet_host_plan *hp;	/* demand pass, per host */
	double demand, cap_on, waking, maxcap, target;
	long drain;
};

const char *vcp_sb_power_name(enum vcp_sb_power p)
{
	static const char *const n[] = { "on", "draining", "standby",
					 "waking", "failed" };

	return (unsigned int)p < 5 ? n[p] : NULL;
}

void vcp_sb_decision_free(struct vcp_sb_decision *d)
{
	if (!d)
		return;
	free(d->moves);
	free(d->wake);
	free(d->host_why);
	free(d);
}

unsigned int vcp_sb_moves_last_hour(const struct vcp_sb_host_state *h,
				    long long now)
{
	unsigned int n = h->n_moves < VCP_SB_MAX_HOST_BUDGET ?
			 h->n_moves : VCP_SB_MAX_HOST_BUDGET, c = 0;

	for (unsigned int i = 0; i < n; i++)
		c += h->moves[i] > now - 3600;
	return c;
}

static bool sleeping(enum vcp_sb_power p)
{
	return p == VCP_SB_STANDBY || p == VCP_SB_WAKING;
}

/* Step 1: what the observation says about the state. */
static void observe(struct dctx *c)
{
	const struct vcp_sb_round *r = c->r;

	for (size_t i = 0; i < r->n_hosts; i++) {
		struct vcp_sb_host_state *h = &c->st->hosts[i];

		if (sleeping(h->power) && r->hosts[i].reachable) {
			/* asleep for sure, and not woken by us */
			bool theirs = h->power == VCP_SB_STANDBY &&
				      h->seen_asleep;

			h->power = VCP_SB_ON;
			h->since = r->now;
			free(h->why);
			/* kept: it is left on for woken_grace */
			h->why = theirs ? strdup(WOKEN_ELSEWHERE) : NULL;
		} else if (h->power == VCP_SB_STANDBY) {
			vcp_sb_note_asleep(c->st, i);
		} else if (h->power == VCP_SB_WAKING &&
			   r->now - h->since >= r->cfg->wake_deadline_s) {
			vcp_sb_note_failed(c->st, i, r->now,
					   "did not answer within the wake deadline");
		}
	}
}

/* The hosts as the planner should see them: asleep ones unreachable, the
 * host being drained receives nothing. @nogroup: the demand pass. */
static void make_views(struct dctx *c, bool nogroup)
{
	for (size_t i = 0; i < c->r->n_hosts; i++) {
		struct vcp_fleet_host *v = &c->views[i];
		enum vcp_sb_power p = c->st->hosts[i].power;

		*v = c->r->hosts[i];
		if (sleeping(p))
			v->reachable = false;
		if (p == VCP_SB_DRAINING)
			v->accepts = false;
		if (nogroup)
			v->cpu_group = -1;
	}
}

static int demand_pass(struct dctx *c, struct vcp_fleet_plan **ret)
{
	const struct vcp_sb_round *r = c->r;
	int ret_r;

	make_views(c, true);
	ret_r = vcp_fleet_plan_compute(c->views, r->n_hosts, r->policy,
				       r->opts, ret);
	if (ret_r < 0)
		return ret_r;
	c->hp = (*ret)->hosts;
	for (size_t i = 0; i < r->n_hosts; i++) {
		struct vcp_sb_host_state *h = &c->st->hosts[i];

		if (c->views[i].reachable) {
			h->capacity = c->hp[i].capacity;
			h->packages = (unsigned int)c->hp[i].n_packages;
			c->demand += c->hp[i].demand_before;
			c->cap_on += c->hp[i].capacity;
		} else if (h->power == VCP_SB_WAKING) {
			c->waking += h->capacity;
		}
		if (h->power != VCP_SB_FAILED && h->capacity > c->maxcap)
			c->maxcap = h->capacity;
		if (h->power == VCP_SB_DRAINING)
			c->drain = (long)i;
	}
	return 0;
}

static void band_timers(struct dctx *c)
{
	struct vcp_sb_state *s = c->st;
	const struct vcp_sb_cfg *cfg = c->r->cfg;
	double u = c->d->util;

	if (u > cfg->high + EPS) {
		if (s->above_since == VCP_SB_NO_TIME)
			s->above_since = c->r->now;
	} else {
		s->above_since = VCP_SB_NO_TIME;
	}
	if (u < cfg->low - EPS) {
		if (s->below_since == VCP_SB_NO_TIME)
			s->below_since = c->r->now;
	} else {
		s->below_since = VCP_SB_NO_TIME;
	}
}

/* Would capacity @cap on (plus what is waking) carry the demand at the
 * target with the spares kept? */
static bool enough(const struct dctx *c, double cap)
{
	double spare = c->r->cfg->min_spare_hosts * c->maxcap;

	return c->demand <= c->target * cap + EPS &&
	       cap - c->demand >= spare - EPS;
}

static const char *wake_reason(const struct dctx *c)
{
	const struct vcp_sb_cfg *cfg = c->r->cfg;
	const struct vcp_sb_state *s = c->st;
	double cap = c->cap_on + c->waking;

	if (c->demand > cap + EPS)
		return "demand exceeds the capacity on: waking";
	if (cap - c->demand < cfg->min_spare_hosts * c->maxcap - EPS)
		return "fewer spare hosts on than min_spare_hosts: waking";
	if (s->above_since != VCP_SB_NO_TIME &&
	    c->r->now - s->above_since >= cfg->high_hold_s &&
	    c->demand > cfg->high * cap + EPS)
		return "utilisation stayed above the band for high_hold: waking";
	return NULL;
}

static int cmp_cap(const void *a, const void *b, void *arg)
{
	const struct vcp_sb_state *s = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	double cx = s->hosts[x].capacity, cy = s->hosts[y].capacity;

	if (cx > cy + EPS || cx < cy - EPS)
		return cx > cy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Step 2. */
static int wake(struct dctx *c, const char *why)
{
	struct vcp_sb_decision *d = c->d;
	size_t n = c->r->n_hosts, k = 0;
	double cap = c->cap_on + c->waking;
	size_t *order = calloc(n ? n : 1, sizeof(*order));

	d->wake = calloc(n ? n : 1, sizeof(*d->wake));
	if (!order || !d->wake) {
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (c->st->hosts[i].power == VCP_SB_STANDBY)
			order[k++] = i;
	qsort_r(order, k, sizeof(*order), cmp_cap, c->st);
	for (size_t j = 0; j < k && !enough(c, cap); j++) {
		d->wake[d->n_wake++] = order[j];
		cap += c->st->hosts[order[j]].capacity;
	}
	free(order);
	if (c->drain >= 0)
		vcp_sb_note_undrain(c->st, (size_t)c->drain, c->r->now);
	d->why = d->n_wake ? why :
		 "more capacity is needed but no (further) host is in standby to wake";
	return 0;
}

/* ---- rebalancing ---- */

struct room {
	double cpu;			/* under the target */
	long long mem;			/* KiB */
	unsigned int moves;		/* taken this round */
};

static double vm_cpus(const struct dctx *c, const struct vcp_vm *vm)
{
	double d = 0;

	for (unsigned int k = 0; k < vm->n_vcpus; k++)
		d += vcp_vcpu_demand(vm, k, c->r->policy);
	return d;
}

static bool movable(const struct dctx *c, const struct vcp_vm *vm)
{
	return vm->running && vm->managed &&
	       (c->r->opts->move_spread ||
		vcp_plan_vm_class(vm, c->r->policy) != VCP_CLASS_SPREAD);
}

static bool group_ok(const struct dctx *c, size_t from, size_t to)
{
	const struct vcp_fleet_opts *o = c->r->opts;
	int a = c->r->hosts[from].cpu_group, b = c->r->hosts[to].cpu_group;

	if (a < 0 || b < 0)
		return false;
	return a == b || (o->compat &&
			  o->compat[(size_t)a * o->n_groups + (size_t)b]);
}

static bool budget_ok(const struct dctx *c, size_t h, const struct room *rm)
{
	return vcp_sb_moves_last_hour(&c->st->hosts[h], c->r->now) +
	       rm[h].moves < c->r->cfg->host_migrations_per_hour;
}

static void rooms(const struct dctx *c, struct room *rm)
{
	const struct vcp_sb_round *r = c->r;

	for (size_t i = 0; i < r->n_hosts; i++) {
		const struct vcp_fleet_host *h = &r->hosts[i];
		long long mem = (long long)((double)h->mem_kib *
					    (1 - r->opts->mem_reserve));

		for (size_t j = 0; j < h->n_vms; j++)
			if (h->vms[j].running)
				mem -= (long long)h->vms[j].mem_kib;
		rm[i].mem = h->mem_kib ? mem : -1;
		rm[i].cpu = c->target * c->hp[i].capacity -
			    c->hp[i].demand_before;
		rm[i].moves = 0;
	}
}

/* The host on with the most room for VM @vm of @from, or -1. */
static long roomiest(const struct dctx *c, const struct room *rm,
		     size_t from, const struct vcp_vm *vm, double d)
{
	long t = -1;

	for (size_t i = 0; i < c->r->n_hosts; i++) {
		if (i == from || !c->views[i].reachable ||
		    !c->views[i].accepts || rm[i].cpu < d - EPS ||
		    rm[i].mem < (long long)vm->mem_kib ||
		    !group_ok(c, from, i) || !budget_ok(c, i, rm))
			continue;
		if (t < 0 || rm[i].cpu > rm[t].cpu + EPS)
			t = (long)i;
	}
	return t;
}

/* The largest movable VM of @h not yet moved, or -1. */
static long largest(const struct dctx *c, size_t h, const bool *gone)
{
	const struct vcp_fleet_host *fh = &c->r->hosts[h];
	double best = -1;
	long b = -1;

	for (size_t j = 0; j < fh->n_vms; j++) {
		double d;

		if (gone[j] || !movable(c, &fh->vms[j]))
			continue;
		d = vm_cpus(c, &fh->vms[j]);
		if (d > best + EPS) {
			best = d;
			b = (long)j;
		}
	}
	return b;
}

static void offload_host(struct dctx *c, struct room *rm, size_t h,
			 bool *gone)
{
	const struct vcp_fleet_host *fh = &c->r->hosts[h];
	double dem = c->hp[h].demand_before;
	double want = c->r->cfg->high * c->hp[h].capacity;
	long j;

	memset(gone, 0, (fh->n_vms + 1) * sizeof(*gone));
	while (dem > want + EPS && budget_ok(c, h, rm) &&
	       c->d->n_moves < c->r->cfg->migrations_per_round &&
	       (j = largest(c, h, gone)) >= 0) {
		const struct vcp_vm *vm = &fh->vms[j];
		double d = vm_cpus(c, vm);
		long t = roomiest(c, rm, h, vm, d);

		gone[j] = true;
		if (t < 0)
			continue;
		c->d->moves[c->d->n_moves++] = (struct vcp_fleet_move){
			.from = h, .vm = (size_t)j, .to = (size_t)t,
			.demand = d };
		rm[t].cpu -= d;
		rm[t].mem -= (long long)vm->mem_kib;
		rm[t].moves++;
		rm[h].moves++;
		dem -= d;
	}
}

static size_t max_vms(const struct vcp_sb_round *r)
{
	size_t m = 1;

	for (size_t i = 0; i < r->n_hosts; i++)
		if (r->hosts[i].n_vms > m)
			m = r->hosts[i].n_vms;
	return m;
}

/* Step 3: moves off every host on over its capacity. */
static int offload(struct dctx *c)
{
	const struct vcp_sb_round *r = c->r;
	struct room *rm = calloc(r->n_hosts + 1, sizeof(*rm));
	bool *gone = calloc(max_vms(r) + 1, sizeof(*gone));
	struct vcp_sb_decision *d = c->d;

	d->moves = calloc(r->cfg->migrations_per_round + 1, sizeof(*d->moves));
	if (!rm || !gone || !d->moves) {
		free(rm);
		free(gone);
		return -ENOMEM;
	}
	rooms(c, rm);
	for (size_t h = 0; h < r->n_hosts; h++)
		if (c->views[h].reachable &&
		    c->st->hosts[h].power != VCP_SB_DRAINING &&
		    c->hp[h].demand_before > c->hp[h].capacity + EPS)
			offload_host(c, rm, h, gone);
	free(rm);
	free(gone);
	if (d->n_moves) {
		d->why = d->n_wake ?
			 "waking, and rebalancing meanwhile: a host's demand exceeds its capacity" :
			 "rebalancing: a host's demand exceeds its capacity";
		return 0;
	}
	free(d->moves);
	d->moves = NULL;
	return 0;
}

/* Hosts on (or being drained) that answer. */
static size_t hosts_on(const struct dctx *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->r->n_hosts; i++) {
		enum vcp_sb_power p = c->st->hosts[i].power;

		n += (p == VCP_SB_ON || p == VCP_SB_DRAINING) &&
		     c->views[i].reachable;
	}
	return n;
}

/* Why host @i cannot go to standby now (before planning), or NULL. */
static const char *not_candidate(const struct dctx *c, size_t i)
{
	const struct vcp_sb_host_cfg *h = &c->r->cfg->hosts[i];
	const struct vcp_sb_host_state *s = &c->st->hosts[i];

	if (s->power == VCP_SB_FAILED)
		return "failed: never chosen until an operator clears it";
	if (s->power == VCP_SB_STANDBY)
		return "in standby";
	if (s->power == VCP_SB_WAKING)
		return "waking";
	if (!c->views[i].reachable)
		return "unreachable";
	if (h->stay_on)
		return "stay_on";
	if (s->power == VCP_SB_ON && s->why &&
	    strcmp(s->why, WOKEN_ELSEWHERE) == 0 &&
	    c->r->now - s->since < (long long)c->r->cfg->woken_grace_s)
		return "woken by someone else: left on for woken_grace";
	/* the fleet file's (the view of a host being drained says false) */
	if (!c->r->hosts[i].accepts)
		return "accepts false (maintenance): left as it is";
	if (h->action == VCP_SB_ACTION_NONE)
		return "action none: never sleeps";
	if (hosts_on(c) <= c->r->cfg->min_hosts_on)
		return "min_hosts_on: the fleet keeps this many hosts on";
	if (!enough(c, c->cap_on + c->waking - c->hp[i].capacity))
		return "the others could not carry the demand with spares";
	if (vcp_sb_moves_last_hour(s, c->r->now) >=
	    c->r->cfg->host_migrations_per_hour)
		return "its migration budget for the hour is spent";
	return NULL;
}

static void free_copies(struct vcp_vm **cp, size_t n)
{
	for (size_t i = 0; cp && i < n; i++)
		free(cp[i]);
	free(cp);
}

/* The full plan: candidates' guests managed as they are, every other
 * host's guests held in place (copies marked unmanaged); hosts whose
 * migration budget is spent receive nothing. */
static int full_plan(struct dctx *c, const bool *cand,
		     struct vcp_fleet_plan **ret)
{
	const struct vcp_sb_round *r = c->r;
	struct vcp_vm **cp = calloc(r->n_hosts ? r->n_hosts : 1, sizeof(*cp));
	int ret_r = 0;

	if (!cp)
		return -ENOMEM;
	make_views(c, false);
	for (size_t i = 0; i < r->n_hosts && ret_r == 0; i++) {
		const struct vcp_fleet_host *h = &r->hosts[i];

		if (vcp_sb_moves_last_hour(&c->st->hosts[i], r->now) >=
		    r->cfg->host_migrations_per_hour)
			c->views[i].accepts = false;
		if (cand[i] || !c->views[i].reachable)
			continue;
		cp[i] = calloc(h->n_vms ? h->n_vms : 1, sizeof(**cp));
		if (!cp[i]) {
			ret_r = -ENOMEM;
			break;
		}
		for (size_t j = 0; j < h->n_vms; j++) {
			cp[i][j] = h->vms[j];
			cp[i][j].managed = false;
		}
		c->views[i].vms = cp[i];
	}
	if (ret_r == 0)
		ret_r = vcp_fleet_plan_compute(c->views, r->n_hosts, r->policy,
					       r->opts, ret);
	free_copies(cp, r->n_hosts);
	return ret_r;
}

/* Take host @x's moves of plan @p within the round's and the hosts'
 * budgets. */
static int take_moves(struct dctx *c, const struct vcp_fleet_plan *p,
		      size_t x)
{
	const struct vcp_sb_cfg *cfg = c->r->cfg;
	struct vcp_sb_decision *d = c->d;
	unsigned int *extra = calloc(c->r->n_hosts, sizeof(*extra));

	d->moves = calloc(p->n_moves + 1, sizeof(*d->moves));
	if (!extra || !d->moves) {
		free(extra);
		return -ENOMEM;
	}
	for (size_t k = 0; k < p->n_moves; k++) {
		const struct vcp_fleet_move *m = &p->moves[k];

		if (m->from != x || d->n_moves >= cfg->migrations_per_round ||
		    vcp_sb_moves_last_hour(&c->st->hosts[x], c->r->now) +
		    d->n_moves >= cfg->host_migrations_per_hour)
			continue;
		if (vcp_sb_moves_last_hour(&c->st->hosts[m->to], c->r->now) +
		    extra[m->to] >= cfg->host_migrations_per_hour)
			continue;
		extra[m->to]++;
		d->moves[d->n_moves++] = *m;
	}
	free(extra);
	return 0;
}

/* Step 3 for host @x, chosen or being drained, per plan @p. */
static int go(struct dctx *c, const struct vcp_fleet_plan *p, size_t x)
{
	struct vcp_sb_decision *d = c->d;
	int r;

	if (c->hp[x].idle) {
		d->standby = (long)x;
		d->why = "empty: to standby";
		return 0;
	}
	if (!p || !p->hosts[x].emptied) {
		if (c->drain == (long)x)
			vcp_sb_note_undrain(c->st, x, c->r->now);
		d->host_why[x] = p && p->hosts[x].kept ? p->hosts[x].kept :
				 "its guests do not fit on the others";
		d->why = "the host being drained can no longer be emptied: drain stopped";
		return 0;
	}
	r = take_moves(c, p, x);
	if (r == 0) {
		d->drain = (long)x;
		d->why = d->n_moves ? "draining towards standby" :
			 "draining towards standby: the receivers' migration budgets are spent for now";
	}
	return r;
}

/* Keep the VCP_SB_OFFERED candidates of least demand (ties: fleet
 * order): the planner empties the lightest first anyway, and offering
 * it a thousand candidates costs a thousand tries. */
static size_t lightest(const struct dctx *c, bool *cand, size_t nc)
{
	while (nc > VCP_SB_OFFERED) {
		long w = -1;

		for (size_t i = 0; i < c->r->n_hosts; i++)
			if (cand[i] && (w < 0 || c->hp[i].demand_before >=
					c->hp[w].demand_before - EPS))
				w = (long)i;
		cand[w] = false;
		nc--;
	}
	return nc;
}

/* A new host towards standby: empty candidates first, else the first
 * the planner empties. */
static int choose(struct dctx *c, bool *cand)
{
	const struct vcp_sb_round *r = c->r;
	struct vcp_fleet_plan *p = NULL;
	size_t n = r->n_hosts, nc = 0;
	long idle = -1;
	int ret_r;

	for (size_t i = 0; i < n; i++) {
		c->d->host_why[i] = not_candidate(c, i);
		cand[i] = !c->d->host_why[i];
		nc += cand[i];
		if (cand[i] && c->hp[i].idle && idle < 0)
			idle = (long)i;
	}
	if (idle >= 0)
		return go(c, NULL, (size_t)idle);
	nc = lightest(c, cand, nc);
	if (!nc) {
		c->d->why = "below the band, but no host can go to standby";
		return 0;
	}
	ret_r = full_plan(c, cand, &p);
	if (ret_r < 0)
		return ret_r;
	for (size_t i = 0; i < n; i++)
		if (cand[i] && p->hosts[i].kept)
			c->d->host_why[i] = p->hosts[i].kept;
	if (p->n_moves)
		ret_r = go(c, p, p->moves[0].from);
	else
		c->d->why = "below the band, but the planner can empty no host";
	vcp_fleet_plan_free(p);
	return ret_r;
}

static int continue_drain(struct dctx *c, bool *cand)
{
	struct vcp_fleet_plan *p = NULL;
	size_t x = (size_t)c->drain;
	int r;

	if (!enough(c, c->cap_on + c->waking - c->hp[x].capacity)) {
		vcp_sb_note_undrain(c->st, x, c->r->now);
		c->d->why = "the host being drained is needed again: drain stopped";
		return 0;
	}
	if (c->hp[x].idle)
		return go(c, NULL, x);
	cand[x] = true;
	r = full_plan(c, cand, &p);
	if (r == 0)
		r = go(c, p, x);
	vcp_fleet_plan_free(p);
	return r;
}

static int sleep_step(struct dctx *c)
{
	const struct vcp_sb_cfg *cfg = c->r->cfg;
	const struct vcp_sb_state *s = c->st;
	bool *cand = calloc(c->r->n_hosts + 1, sizeof(*cand));
	int r = 0;

	if (!cand)
		return -ENOMEM;
	if (c->waking > 0)
		c->d->why = "a wake is in progress";
	else if (s->last_wake != VCP_SB_NO_TIME &&
		 c->r->now - s->last_wake < cfg->wake_cooldown_s)
		c->d->why = "cool-down after a wake";
	else if (c->drain >= 0)
		r = continue_drain(c, cand);
	else if (s->below_since != VCP_SB_NO_TIME &&
		 c->r->now - s->below_since >= cfg->low_hold_s)
		r = choose(c, cand);
	else
		c->d->why = s->below_since == VCP_SB_NO_TIME ?
			    "within the band" :
			    "below the band, not yet for low_hold";
	free(cand);
	return r;
}

static int decide(struct dctx *c)
{
	struct vcp_fleet_plan *p1 = NULL;
	const char *why;
	int r;

	observe(c);
	r = demand_pass(c, &p1);
	if (r < 0)
		return r;
	c->d->demand = c->demand;
	c->d->capacity_on = c->cap_on;
	c->d->util = c->cap_on > EPS ? c->demand / c->cap_on :
		     (c->demand > EPS ? INFINITY : 0);
	band_timers(c);
	why = wake_reason(c);
	r = why ? wake(c, why) : 0;
	if (r == 0)
		r = offload(c);
	if (r == 0 && !why && !c->d->n_moves)
		r = sleep_step(c);
	vcp_fleet_plan_free(p1);
	return r;
}

int vcp_sb_decide(const struct vcp_sb_round *r, struct vcp_sb_state *state,
		  struct vcp_sb_decision **ret)
{
	struct dctx c = { .r = r, .st = state, .drain = -1 };
	int e;

	if (!r || !state || !r->cfg || !r->policy || !r->opts ||
	    state->n_hosts != r->n_hosts || r->cfg->n_hosts != r->n_hosts)
		return -EINVAL;
	c.target = (r->cfg->low + r->cfg->high) / 2;
	c.d = calloc(1, sizeof(*c.d));
	c.views = calloc(r->n_hosts + 1, sizeof(*c.views));
	if (c.d)
		c.d->host_why = calloc(r->n_hosts + 1, sizeof(char *));
	if (!c.d || !c.views || !c.d->host_why) {
		e = -ENOMEM;
		goto out;
	}
	c.d->standby = c.d->drain = -1;
	e = decide(&c);
out:
	free(c.views);
	if (e < 0)
		vcp_sb_decision_free(c.d);
	else
		*ret = c.d;
	return e;
}
