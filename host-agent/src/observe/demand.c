// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * demand.c - the demand pipeline (see demand.h): deltas of cumulative
 * vCPU counters, the windowed peak of per-vCPU utilisation, relief of
 * VMs that wait, and the unknown case. Each VM keeps a ring of the last
 * @window utilisation figures per vCPU and its previous counters.
 */
#include "demand.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hyst.h"

struct track {
	char *name;
	unsigned int n_vcpus;
	uint64_t at_ns;		/* previous sample */
	uint64_t *time_ns;	/* previous cumulative run time */
	uint64_t *delay_ns;	/* previous cumulative wait time */
	double *ring;		/* window x n_vcpus */
	unsigned int filled;	/* utilisation samples held (<= window) */
	unsigned int head;	/* next slot */
	double delay;		/* latest mean wait fraction, -1 unknown */
	unsigned int relief;	/* samples left with full demand */
	bool seen;		/* in the latest sample */
};

struct vcp_tracker {
	unsigned int window;
	double max_delay;	/* > 0: relieve VMs that wait longer */
	struct track *t;
	size_t n;
};

int vcp_tracker_new(unsigned int window, struct vcp_tracker **ret)
{
	struct vcp_tracker *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->window = window ? window : 1;
	*ret = t;
	return 0;
}

static void track_clear(struct track *k)
{
	free(k->name);
	free(k->time_ns);
	free(k->delay_ns);
	free(k->ring);
	memset(k, 0, sizeof(*k));
}

void vcp_tracker_free(struct vcp_tracker *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		track_clear(&t->t[i]);
	free(t->t);
	free(t);
}

static struct track *find(const struct vcp_tracker *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->t[i].name, name) == 0)
			return &t->t[i];
	return NULL;
}

static int track_init(struct track *k, const char *name, unsigned int n,
		      unsigned int window)
{
	k->name = strdup(name);
	k->n_vcpus = n;
	k->time_ns = calloc(n ? n : 1, sizeof(uint64_t));
	k->delay_ns = calloc(n ? n : 1, sizeof(uint64_t));
	k->ring = calloc((size_t)window * (n ? n : 1), sizeof(double));
	k->delay = -1;
	if (!k->name || !k->time_ns || !k->delay_ns || !k->ring) {
		track_clear(k);
		return -ENOMEM;
	}
	return 0;
}

static struct track *get(struct vcp_tracker *t,
			 const struct vcp_vcpu_sample *vs)
{
	struct track *k = find(t, vs->name);
	struct track *arr;

	if (k && k->n_vcpus == vs->n_vcpus)
		return k;
	if (k) {
		track_clear(k);
		return track_init(k, vs->name, vs->n_vcpus, t->window) ? NULL : k;
	}
	arr = realloc(t->t, (t->n + 1) * sizeof(*arr));
	if (!arr)
		return NULL;
	t->t = arr;
	k = &t->t[t->n];
	memset(k, 0, sizeof(*k));
	if (track_init(k, vs->name, vs->n_vcpus, t->window) < 0)
		return NULL;
	t->n++;
	return k;
}

static double frac(uint64_t now, uint64_t before, double dt)
{
	double f;

	if (now < before || dt <= 0)
		return 0;
	f = (double)(now - before) / dt;
	return f > 1.0 ? 1.0 : f;
}

static void push(struct track *k, const struct vcp_vcpu_sample *vs,
		 uint64_t at_ns, unsigned int window)
{
	double dt = (double)(at_ns - k->at_ns), wait = 0;
	double *slot = &k->ring[(size_t)k->head * k->n_vcpus];

	for (unsigned int c = 0; c < k->n_vcpus; c++) {
		slot[c] = frac(vs->time_ns[c], k->time_ns[c], dt);
		wait += frac(vs->delay_ns[c], k->delay_ns[c], dt);
	}
	k->delay = k->n_vcpus ? wait / k->n_vcpus : 0;
	if (k->relief)
		k->relief--;
	k->head = (k->head + 1) % window;
	if (k->filled < window)
		k->filled++;
}

/* Drop the VMs the latest sample did not have. */
static void forget_unseen(struct vcp_tracker *t)
{
	size_t j = 0;

	for (size_t i = 0; i < t->n; i++) {
		if (t->t[i].seen)
			t->t[j++] = t->t[i];
		else
			track_clear(&t->t[i]);
	}
	t->n = j;
}

int vcp_tracker_update(struct vcp_tracker *t, const struct vcp_sample *s)
{
	for (size_t i = 0; i < t->n; i++)
		t->t[i].seen = false;
	for (size_t i = 0; i < s->n_vms; i++) {
		const struct vcp_vcpu_sample *vs = &s->vms[i];
		struct track *k = get(t, vs);
		bool first;

		if (!k)
			return -ENOMEM;
		first = k->at_ns == 0;
		if (!first && s->at_ns > k->at_ns)
			push(k, vs, s->at_ns, t->window);
		memcpy(k->time_ns, vs->time_ns, k->n_vcpus * sizeof(uint64_t));
		memcpy(k->delay_ns, vs->delay_ns, k->n_vcpus * sizeof(uint64_t));
		k->at_ns = s->at_ns;
		k->seen = true;
	}
	forget_unseen(t);
	return 0;
}

/* Windowed peak of vCPU @c of @k (-1 with no figure yet). */
static double peak_of(const struct track *k, unsigned int c)
{
	double peak = k->filled ? 0 : -1;

	for (unsigned int w = 0; w < k->filled; w++) {
		double u = k->ring[(size_t)w * k->n_vcpus + c];

		if (u > peak)
			peak = u;
	}
	return peak;
}

void vcp_tracker_set_max_delay(struct vcp_tracker *t, double max_delay)
{
	t->max_delay = max_delay;
}

size_t vcp_tracker_relieve(struct vcp_tracker *t, const char **ret_names,
			   size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		struct track *k = &t->t[i];

		if (!vcp_demand_over_delay(k->delay, t->max_delay))
			continue;
		if (!k->relief && n < max)
			ret_names[n++] = k->name;	/* newly relieved */
		k->relief = t->window;
	}
	return n;
}

bool vcp_tracker_relieved(const struct vcp_tracker *t, const char *name)
{
	const struct track *k = find(t, name);

	return k && k->relief;
}

void vcp_tracker_fill(const struct vcp_tracker *t, struct vcp_vm *vms,
		      size_t n_vms)
{
	for (size_t i = 0; i < n_vms; i++) {
		const struct track *k = find(t, vms[i].name);

		if (!k || !k->filled)
			continue;
		vms[i].delay = k->delay;
		for (unsigned int c = 0; c < vms[i].n_vcpus && c < k->n_vcpus; c++)
			vms[i].demand[c] = k->relief ? 1.0 : peak_of(k, c);
	}
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

uint64_t vcp_tracker_fingerprint(const struct vcp_tracker *t)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < t->n; i++) {
		const struct track *k = &t->t[i];
		bool relieved = k->relief > 0;

		h = fnv(h, k->name, strlen(k->name) + 1);
		h = fnv(h, &relieved, sizeof(relieved));
		for (unsigned int c = 0; c < k->n_vcpus; c++) {
			/* steps of 1/20 CPU: noise below that is no news */
			long q = lround(peak_of(k, c) * VCP_HYST_STEPS_PER_CPU);

			h = fnv(h, &q, sizeof(q));
		}
	}
	return h;
}

double vcp_tracker_delay(const struct vcp_tracker *t, const char *name)
{
	const struct track *k = find(t, name);

	return k ? k->delay : -1;
}

static unsigned int kept(const struct track *k, unsigned int window)
{
	return k->filled < window ? k->filled : window;
}

/* The ring of @k laid out for @window slots, oldest first, the newest
 * figures kept; NULL when out of memory. */
static double *rewound(const struct track *k, unsigned int old,
		       unsigned int window)
{
	size_t n = k->n_vcpus ? k->n_vcpus : 1;
	unsigned int keep = kept(k, window);
	double *ring = calloc((size_t)window * n, sizeof(double));

	for (unsigned int i = 0; ring && i < keep; i++) {
		/* the i-th newest sits in slot head - 1 - i (mod old) */
		unsigned int from = (k->head + old - 1 - i) % old;

		memcpy(&ring[(size_t)(keep - 1 - i) * n],
		       &k->ring[(size_t)from * n], n * sizeof(double));
	}
	return ring;
}

int vcp_tracker_set_window(struct vcp_tracker *t, unsigned int window)
{
	double **rings;

	window = window ? window : 1;
	if (window == t->window)
		return 0;
	/* all or nothing: every new ring first, then the swap */
	rings = calloc(t->n ? t->n : 1, sizeof(*rings));
	for (size_t i = 0; rings && i < t->n; i++) {
		rings[i] = rewound(&t->t[i], t->window, window);
		if (!rings[i]) {
			while (i--)
				free(rings[i]);
			free(rings);
			rings = NULL;
		}
	}
	if (!rings)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		struct track *k = &t->t[i];

		free(k->ring);
		k->ring = rings[i];
		k->filled = kept(k, window);
		k->head = k->filled % window;
		if (k->relief > window)
			k->relief = window;
	}
	free(rings);
	t->window = window;
	return 0;
}

int vcp_demand_measure(const struct vcp_sample *a, const struct vcp_sample *b,
		       struct vcp_vm *vms, size_t n_vms)
{
	struct vcp_tracker *t;
	int r;

	if (!a->have_vcpu_time || !b->have_vcpu_time || b->at_ns <= a->at_ns)
		return 0;
	r = vcp_tracker_new(1, &t);
	if (r < 0)
		return r;
	r = vcp_tracker_update(t, a);
	if (r == 0)
		r = vcp_tracker_update(t, b);
	if (r == 0)
		vcp_tracker_fill(t, vms, n_vms);
	vcp_tracker_free(t);
	return r;
}

bool vcp_demand_over_delay(double delay, double max_delay)
{
	return max_delay > 0 && delay > max_delay;
}

double vcp_vcpu_demand(const struct vcp_vm *vm, unsigned int c,
		       const struct vcp_policy *p)
{
	if (vcp_demand_over_delay(vm->delay, p->max_vcpu_delay))
		return 1.0;
	if (vm->demand && c < vm->n_vcpus && vm->demand[c] >= 0)
		return vm->demand[c];
	return p->default_vcpu_demand;
}

double vcp_vm_demand(const struct vcp_vm *vm, const struct vcp_policy *p,
		     bool *ret_assumed)
{
	bool assumed = false;
	double d = 0;

	for (unsigned int c = 0; c < vm->n_vcpus; c++) {
		bool known = vm->demand && vm->demand[c] >= 0;

		assumed |= !known;
		d += known ? vm->demand[c] : p ? p->default_vcpu_demand : 0;
	}
	if (ret_assumed)
		*ret_assumed = assumed;
	return d;
}

int vcp_demand_wait_ns(const struct vcp_vcpu_sample *x,
		       const struct vcp_vcpu_sample *y, uint64_t *ret_ns)
{
	uint64_t sum = 0;

	if (x->n_vcpus != y->n_vcpus)
		return -ESTALE;
	for (unsigned int c = 0; c < y->n_vcpus; c++)
		if (y->delay_ns[c] >= x->delay_ns[c])
			sum += y->delay_ns[c] - x->delay_ns[c];
	*ret_ns = sum;
	return 0;
}
