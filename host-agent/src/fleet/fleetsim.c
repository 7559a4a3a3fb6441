// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleetsim.c - the fleet simulator, pure (no I/O, no clock): replays a
 * day (or any span) of per-VM demand minute by minute over a fleet
 * snapshot, under one of four policies, and counts what happened.
 *
 * The first warmup_min minutes are replayed but not counted, neither
 * minutes nor events (so that a day can start from the state the
 * previous day left). Each minute t:
 * every VM's per-vCPU demand is set from the trace; a host
 * woken wake_latency_min minutes ago answers again; every interval_min
 * minutes the policy decides and its decisions take effect at once
 * (a migration is instantaneous, a standby too; a wake takes the
 * latency); then the minute is counted with the VMs where they now are:
 * - demand: the sum of every VM's vCPUs x per-vCPU demand (CPUs);
 * - capacity: a host's usable CPUs as the host planner counts them for
 *   that host without guests (headroom taken off), for hosts that are on
 *   and answer;
 * - a shortfall minute: the fleet's demand exceeds the capacity on; an
 *   overload host-minute: a host's own demand exceeds its capacity;
 * - modelled power: on, host_watts + packages x package_watts +
 *   busy_watts x min(1, demand / capacity); booting, the idle part;
 *   in standby, standby_watts. Package sleep inside a host (vcpack's
 *   other saving) is not modelled here: every host on is counted whole.
 * Policies:
 * - none: nothing moves, every host stays on.
 * - vcpack: vcp_sb_decide() (standby.c: the band, holds, spares, budgets,
 *   classes) each interval; the loop's notes as a loop would make them.
 * - dpm: the same with opts.move_spread: thresholds without classes.
 * - firstfit: OpenStack Watcher's vm_workload_consolidation in spirit,
 *   no hold times, no budgets, classes ignored: wake hosts in standby
 *   (fleet order) while the demand exceeds the capacity on or coming;
 *   offload each host over its capacity, largest VM first, to the first
 *   host (busiest first) with CPU and memory room; then, least loaded
 *   host first, move all of a host's VMs first-fit onto busier hosts or
 *   none, and put each host left empty in standby at once.
 * Wakes always succeed here (a failed wake is the loop's business and is
 * tested in test_standby).
 */
#include "fleetsim.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner.h"

#define EPS 1e-9

enum { SIM_ON = 0, SIM_STANDBY, SIM_BOOTING };

struct sim {
	const struct vcp_fleet_input *in;
	const struct vcp_sim_params *p;
	size_t nh, nv;
	struct vcp_vm *vm;		/* flat copies, own demand arrays */
	size_t *host_of;
	double *cap, *hd, *idle_w;
	long long *mem_room;
	int *power;
	unsigned int *up_at;
	/* residents by host, rebuilt before each decision */
	struct vcp_vm *res;
	size_t *res_id, *off, *cnt;
	struct vcp_fleet_host *fh;
	struct vcp_cpuset *nopins;
	struct vcp_sb_state st;
	struct vcp_sim_result out;
	size_t *order, *scratch;
	unsigned char *mark;	/* first fit: 1 emptied, 2 received */
	bool counting;		/* past the warm-up */
};

/* ---- the diurnal trace ---- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static double unit(uint64_t x)	/* [0, 1) */
{
	return (double)(mix(x) >> 11) / 9007199254740992.0;
}

double vcp_sim_diurnal_demand(const void *arg, size_t vm,
			      unsigned int minute)
{
	const struct vcp_sim_diurnal *d = arg;
	double j = (unit(d->seed ^ (vm * 0x9e3779b97f4a7c15ULL)) * 2 - 1) *
		   d->jitter_min;
	double ph = 2 * M_PI * ((double)minute - d->peak_minute - j) / 1440;
	double shape = d->trough + (1 - d->trough) * (0.5 + 0.5 * cos(ph));
	double n = unit(d->seed + vm * 1440ULL + minute + 1) * 2 - 1;
	double v = d->peak[vm] * shape * (1 + d->noise * n);

	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* ---- set-up ---- */

static void sim_free(struct sim *s)
{
	for (size_t i = 0; s->vm && i < s->nv; i++)
		free(s->vm[i].demand);
	free(s->vm);
	free(s->host_of);
	free(s->cap);
	free(s->hd);
	free(s->idle_w);
	free(s->mem_room);
	free(s->power);
	free(s->up_at);
	free(s->res);
	free(s->res_id);
	free(s->off);
	free(s->cnt);
	free(s->fh);
	free(s->nopins);
	free(s->order);
	free(s->scratch);
	free(s->mark);
	vcp_sb_state_clear(&s->st);
}

static int host_capacity(struct sim *s, size_t h)
{
	struct vcp_plan *pl = NULL;
	const struct vcp_host *t = s->in->topo[h];
	int r = vcp_plan_compute(t, NULL, 0, &s->in->policy, &pl);

	if (r < 0)
		return r;
	s->cap[h] = pl->capacity;
	s->idle_w[h] = s->p->host_watts +
		       (double)t->n_packages * s->p->package_watts;
	vcp_plan_free(pl);
	return 0;
}

static int copy_vms(struct sim *s)
{
	unsigned int maxv = 1;
	size_t k = 0;

	for (size_t h = 0; h < s->nh; h++)
		for (size_t j = 0; j < s->in->n_vms[h]; j++, k++) {
			struct vcp_vm *v = &s->vm[k];

			*v = s->in->vms[h][j];
			v->running = true;
			v->demand = calloc(v->n_vcpus + 1, sizeof(double));
			if (!v->demand)
				return -ENOMEM;
			memset(&v->emulator_pins, 0, sizeof(v->emulator_pins));
			v->mem_node = -1;
			s->host_of[k] = h;
			if (v->n_vcpus > maxv)
				maxv = v->n_vcpus;
		}
	s->nopins = calloc(maxv, sizeof(*s->nopins));
	if (!s->nopins)
		return -ENOMEM;
	for (k = 0; k < s->nv; k++)
		s->vm[k].vcpu_pins = s->nopins;
	return 0;
}

#define ALLOC(p, n) ((p) = calloc((n) ? (n) : 1, sizeof(*(p))))

static int sim_init(struct sim *s)
{
	const struct vcp_fleet_input *in = s->in;
	const char **names;
	int r;

	s->nh = in->n_hosts;
	for (size_t h = 0; h < s->nh; h++) {
		if (!in->hosts[h].reachable || !in->topo[h])
			return -EINVAL;
		s->nv += in->n_vms[h];
	}
	if (!ALLOC(s->vm, s->nv) || !ALLOC(s->host_of, s->nv) ||
	    !ALLOC(s->cap, s->nh) || !ALLOC(s->hd, s->nh) ||
	    !ALLOC(s->idle_w, s->nh) || !ALLOC(s->mem_room, s->nh) ||
	    !ALLOC(s->power, s->nh) || !ALLOC(s->up_at, s->nh) ||
	    !ALLOC(s->res, s->nv) || !ALLOC(s->res_id, s->nv) ||
	    !ALLOC(s->off, s->nh) || !ALLOC(s->cnt, s->nh) ||
	    !ALLOC(s->fh, s->nh) || !ALLOC(s->order, s->nh) ||
	    !ALLOC(s->scratch, s->nv) || !ALLOC(s->mark, s->nh) ||
	    !ALLOC(names, s->nh))
		return -ENOMEM;
	for (size_t h = 0; h < s->nh; h++)
		names[h] = in->names[h];
	r = vcp_sb_state_init(names, s->nh, &s->st);
	free(names);
	if (r == 0)
		r = copy_vms(s);
	for (size_t h = 0; h < s->nh && r == 0; h++)
		r = host_capacity(s, h);
	s->out.min_hosts_on = s->nh;
	return r;
}

/* ---- each minute ---- */

static void set_demand(struct sim *s, unsigned int t)
{
	for (size_t k = 0; k < s->nv; k++) {
		double d = s->p->demand(s->p->arg, k, t);

		for (unsigned int c = 0; c < s->vm[k].n_vcpus; c++)
			s->vm[k].demand[c] = d;
	}
}

static double vm_demand(const struct sim *s, size_t k)
{
	return s->vm[k].n_vcpus * s->vm[k].demand[0];
}

static void host_loads(struct sim *s)
{
	double reserve = s->in->opts.mem_reserve;

	for (size_t h = 0; h < s->nh; h++) {
		s->hd[h] = 0;
		s->mem_room[h] = (long long)((double)s->in->hosts[h].mem_kib *
					     (1 - reserve));
	}
	for (size_t k = 0; k < s->nv; k++) {
		s->hd[s->host_of[k]] += vm_demand(s, k);
		s->mem_room[s->host_of[k]] -= (long long)s->vm[k].mem_kib;
	}
}

/* Residents grouped by host (stable: snapshot order within a host). */
static void residents(struct sim *s)
{
	size_t pos = 0;

	memset(s->cnt, 0, s->nh * sizeof(*s->cnt));
	for (size_t k = 0; k < s->nv; k++)
		s->cnt[s->host_of[k]]++;
	for (size_t h = 0; h < s->nh; h++) {
		s->off[h] = pos;
		pos += s->cnt[h];
		s->cnt[h] = 0;
	}
	for (size_t k = 0; k < s->nv; k++) {
		size_t h = s->host_of[k], at = s->off[h] + s->cnt[h]++;

		s->res[at] = s->vm[k];
		s->res_id[at] = k;
	}
	for (size_t h = 0; h < s->nh; h++) {
		s->fh[h] = s->in->hosts[h];
		s->fh[h].vms = s->res + s->off[h];
		s->fh[h].n_vms = s->cnt[h];
		s->fh[h].reachable = s->power[h] == SIM_ON;
	}
}

static void count_move(struct sim *s, size_t k)
{
	if (!s->counting)
		return;
	s->out.migrations++;
	if (vcp_plan_vm_class(&s->vm[k], &s->in->policy) == VCP_CLASS_SPREAD)
		s->out.spread_migrations++;
}

static void to_standby(struct sim *s, size_t h)
{
	s->power[h] = SIM_STANDBY;
	s->out.standbys += s->counting;
}

static void wake_host(struct sim *s, size_t h, unsigned int t)
{
	s->power[h] = SIM_BOOTING;
	s->up_at[h] = t + s->p->wake_latency_min;
	s->out.wakeups += s->counting;
}

static int loop_round(struct sim *s, unsigned int t)
{
	struct vcp_fleet_opts opts = s->in->opts;
	long long now = (long long)t * 60;
	struct vcp_sb_round r = { s->fh, s->nh, &s->in->policy, &opts,
				  s->p->cfg, now };
	struct vcp_sb_decision *d = NULL;
	int e;

	opts.move_spread = s->p->mode == VCP_SIM_DPM;
	residents(s);
	e = vcp_sb_decide(&r, &s->st, &d);
	if (e < 0)
		return e;
	if (d->drain >= 0 && s->st.hosts[d->drain].power != VCP_SB_DRAINING)
		e = vcp_sb_note_drain(&s->st, (size_t)d->drain, now);
	for (size_t k = 0; k < d->n_moves; k++) {
		const struct vcp_fleet_move *m = &d->moves[k];

		size_t id = s->res_id[s->off[m->from] + m->vm];

		count_move(s, id);
		s->host_of[id] = m->to;
		vcp_sb_note_move(&s->st, m->from, m->to, now);
	}
	if (d->standby >= 0 && e == 0) {
		to_standby(s, (size_t)d->standby);
		e = vcp_sb_note_standby(&s->st, (size_t)d->standby, now,
					d->why);
	}
	for (size_t k = 0; k < d->n_wake; k++) {
		wake_host(s, d->wake[k], t);
		vcp_sb_note_wake(&s->st, d->wake[k], now);
	}
	vcp_sb_decision_free(d);
	return e;
}

/* ---- the first-fit baseline ---- */

static int cmp_load_desc(const void *a, const void *b, void *arg)
{
	const struct sim *s = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (s->hd[x] > s->hd[y] + EPS || s->hd[x] < s->hd[y] - EPS)
		return s->hd[x] > s->hd[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static bool fits(const struct sim *s, size_t h, size_t k)
{
	return s->hd[h] + vm_demand(s, k) <= s->cap[h] + EPS &&
	       s->mem_room[h] >= (long long)s->vm[k].mem_kib;
}

static void place(struct sim *s, size_t k, size_t to)
{
	size_t from = s->host_of[k];

	s->hd[from] -= vm_demand(s, k);
	s->mem_room[from] += (long long)s->vm[k].mem_kib;
	s->hd[to] += vm_demand(s, k);
	s->mem_room[to] -= (long long)s->vm[k].mem_kib;
	s->host_of[k] = to;
}

/* First host of s->order (busiest first) that is on, not @self nor
 * emptied, and has room for VM @k; -1 if none. */
static long first_fit(const struct sim *s, size_t n, size_t self, size_t k)
{
	for (size_t i = 0; i < n; i++) {
		size_t h = s->order[i];

		if (h != self && s->power[h] == SIM_ON && s->mark[h] != 1 &&
		    fits(s, h, k))
			return (long)h;
	}
	return -1;
}

static void ff_wake(struct sim *s, unsigned int t)
{
	double dem = 0, cap = 0;

	for (size_t h = 0; h < s->nh; h++) {
		dem += s->hd[h];
		if (s->power[h] != SIM_STANDBY)
			cap += s->cap[h];
	}
	for (size_t h = 0; h < s->nh && dem > cap + EPS; h++)
		if (s->power[h] == SIM_STANDBY) {
			wake_host(s, h, t);
			cap += s->cap[h];
		}
}

/* VMs of host @h, largest demand first, into s->scratch; their count. */
static size_t vms_of(struct sim *s, size_t h)
{
	size_t n = 0;

	for (size_t j = 0; j < s->cnt[h]; j++)
		s->scratch[n++] = s->res_id[s->off[h] + j];
	for (size_t a = 1; a < n; a++)	/* insertion sort: few per host */
		for (size_t b = a; b > 0 && vm_demand(s, s->scratch[b]) >
		     vm_demand(s, s->scratch[b - 1]) + EPS; b--) {
			size_t x = s->scratch[b];

			s->scratch[b] = s->scratch[b - 1];
			s->scratch[b - 1] = x;
		}
	return n;
}

static void ff_offload(struct sim *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t h = s->order[i], nv;

		if (s->power[h] != SIM_ON || s->hd[h] <= s->cap[h] + EPS)
			continue;
		nv = vms_of(s, h);
		for (size_t j = 0; j < nv && s->hd[h] > s->cap[h] + EPS; j++) {
			long to = first_fit(s, n, h, s->scratch[j]);

			if (to >= 0) {
				place(s, s->scratch[j], (size_t)to);
				count_move(s, s->scratch[j]);
				s->mark[to] = 2;
			}
		}
	}
}

/* All VMs of @h first-fit elsewhere (onto hosts not emptied), or none. */
static bool ff_empty(struct sim *s, size_t n, size_t h)
{
	size_t nv = vms_of(s, h), j;

	s->mark[h] = 1;
	for (j = 0; j < nv; j++) {
		long to = first_fit(s, n, h, s->scratch[j]);

		if (to < 0)
			break;
		place(s, s->scratch[j], (size_t)to);
	}
	if (j < nv) {
		while (j-- > 0)
			place(s, s->scratch[j], h);
		s->mark[h] = 0;
		return false;
	}
	for (j = 0; j < nv; j++) {
		count_move(s, s->scratch[j]);
		s->mark[s->host_of[s->scratch[j]]] = 2;
	}
	return true;
}

static void ff_round(struct sim *s, unsigned int t)
{
	size_t n = s->nh;

	residents(s);
	host_loads(s);
	for (size_t h = 0; h < n; h++) {
		s->order[h] = h;
		s->mark[h] = 0;
	}
	qsort_r(s->order, n, sizeof(*s->order), cmp_load_desc, s);
	ff_wake(s, t);
	ff_offload(s, n);
	residents(s);
	for (size_t i = n; i-- > 0;) {
		size_t h = s->order[i];

		if (s->power[h] == SIM_ON && s->mark[h] != 2 && ff_empty(s, n, h))
			to_standby(s, h);
	}
}

/* ---- counting ---- */

static void count_minute(struct sim *s, unsigned int t)
{
	double dem = 0, cap = 0, w = 0;
	size_t on = 0, asleep = 0;

	if (t < s->p->warmup_min)
		return;
	host_loads(s);
	for (size_t h = 0; h < s->nh; h++) {
		dem += s->hd[h];
		if (s->power[h] == SIM_STANDBY) {
			asleep++;
			w += s->p->standby_watts;
			continue;
		}
		w += s->idle_w[h];
		if (s->power[h] != SIM_ON)
			continue;
		on++;
		cap += s->cap[h];
		if (s->hd[h] > s->cap[h] + EPS)
			s->out.overload_host_minutes++;
		w += s->p->busy_watts *
		     (s->cap[h] > EPS ? fmin(1, s->hd[h] / s->cap[h]) : 0);
	}
	if (dem > cap + EPS)
		s->out.shortfall_minutes++;
	if (on < s->out.min_hosts_on)
		s->out.min_hosts_on = on;
	if (s->p->ret_hosts_on)
		s->p->ret_hosts_on[t - s->p->warmup_min] = (unsigned int)on;
	if (s->p->ret_demand)
		s->p->ret_demand[t - s->p->warmup_min] = dem;
	s->out.standby_host_hours += (double)asleep / 60;
	s->out.energy_wh += w / 60;
	s->out.demand_cpu_hours += dem / 60;
}

static int minute(struct sim *s, unsigned int t)
{
	int r = 0;

	s->counting = t >= s->p->warmup_min;
	set_demand(s, t);
	for (size_t h = 0; h < s->nh; h++)
		if (s->power[h] == SIM_BOOTING && t >= s->up_at[h])
			s->power[h] = SIM_ON;
	if (t % s->p->interval_min == 0) {
		if (s->p->mode == VCP_SIM_VCPACK || s->p->mode == VCP_SIM_DPM)
			r = loop_round(s, t);
		else if (s->p->mode == VCP_SIM_FIRSTFIT)
			ff_round(s, t);
	}
	count_minute(s, t);
	return r;
}

int vcp_sim_run(const struct vcp_fleet_input *in,
		const struct vcp_sim_params *p, struct vcp_sim_result *ret)
{
	struct sim s = { .in = in, .p = p };
	int r;

	if (!in || !p || !p->demand || !p->interval_min || !p->cfg ||
	    p->cfg->n_hosts != in->n_hosts || p->mode > VCP_SIM_FIRSTFIT)
		return -EINVAL;
	r = sim_init(&s);
	for (unsigned int t = 0; t < p->warmup_min + p->minutes && r == 0; t++)
		r = minute(&s, t);
	if (r == 0)
		*ret = s.out;
	sim_free(&s);
	return r;
}
