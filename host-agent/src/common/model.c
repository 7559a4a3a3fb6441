// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * model.c - constructors, destructors and names for the shared model.
 * vcp_host_finish() derives the per-package view from the CPU list, so
 * every topology source (capabilities XML, sysfs, node info, JSON
 * fixtures) ends in the same representation.
 */
#include "model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_names[VCP_CLASS__COUNT] = {
	[VCP_CLASS_SPREAD] = "spread",
	[VCP_CLASS_BALANCED] = "balanced",
	[VCP_CLASS_PACK] = "pack",
};

static const char *const prio_names[VCP_PRIO__COUNT] = {
	[VCP_PRIO_HIGH] = "high",
	[VCP_PRIO_NORMAL] = "normal",
	[VCP_PRIO_LOW] = "low",
};

const char *vcp_class_name(enum vcp_class c)
{
	return (unsigned int)c < VCP_CLASS__COUNT ? class_names[c] : NULL;
}

const char *vcp_mode_name(enum vcp_mode m)
{
	return m == VCP_MODE_KERNEL ? "kernel" : m == VCP_MODE_SCX ? "scx" :
	       "pin";
}

enum vcp_mode vcp_mode_plan(enum vcp_mode m)
{
	return m == VCP_MODE_SCX ? VCP_MODE_KERNEL : m;
}

const char *vcp_mem_mode_name(enum vcp_mem_mode m)
{
	static const char *const names[] = {
		[VCP_MEM_NONE] = "none",
		[VCP_MEM_STRICT] = "strict",
		[VCP_MEM_RESTRICTIVE] = "restrictive",
		[VCP_MEM_PREFERRED] = "preferred",
		[VCP_MEM_INTERLEAVE] = "interleave",
	};

	return (unsigned int)m <= VCP_MEM_INTERLEAVE ? names[m] : NULL;
}

const char *vcp_priority_name(enum vcp_priority p)
{
	return (unsigned int)p < VCP_PRIO__COUNT ? prio_names[p] : NULL;
}

static int lookup(const char *const *names, int n, const char *s)
{
	for (int i = 0; s && i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -EINVAL;
}

int vcp_class_from_name(const char *s, enum vcp_class *ret)
{
	int i = lookup(class_names, VCP_CLASS__COUNT, s);

	if (i < 0)
		return i;
	*ret = (enum vcp_class)i;
	return 0;
}

int vcp_priority_from_name(const char *s, enum vcp_priority *ret)
{
	int i = lookup(prio_names, VCP_PRIO__COUNT, s);

	if (i < 0)
		return i;
	*ret = (enum vcp_priority)i;
	return 0;
}

void vcp_host_free(struct vcp_host *h)
{
	if (!h)
		return;
	free(h->cpus);
	free(h->packages);
	free(h);
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct vcp_cpu *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static struct vcp_package *find_package(struct vcp_package *p, size_t n,
					int id)
{
	for (size_t i = 0; i < n; i++)
		if (p[i].id == id)
			return &p[i];
	return NULL;
}

static int cmp_package(const void *a, const void *b)
{
	const struct vcp_package *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_core(const void *a, const void *b)
{
	const struct vcp_cpu *x = a, *y = b;

	if (x->package != y->package)
		return (x->package > y->package) - (x->package < y->package);
	if (x->die != y->die)
		return (x->die > y->die) - (x->die < y->die);
	return (x->core > y->core) - (x->core < y->core);
}

/* Count each package's distinct (die, core) pairs, and the most threads
 * one core has: runs of a copy of the CPUs sorted by core, O(n log n)
 * (a wide host's 16,384 CPUs cost no more than their sort). */
static int count_cores(const struct vcp_host *h, struct vcp_package *pkgs,
		       size_t n_pkgs, unsigned int *max_threads)
{
	struct vcp_cpu *c = malloc((h->n_cpus ? h->n_cpus : 1) * sizeof(*c));

	if (!c)
		return -ENOMEM;
	memcpy(c, h->cpus, h->n_cpus * sizeof(*c));
	qsort(c, h->n_cpus, sizeof(*c), cmp_core);
	for (size_t i = 0, j; i < h->n_cpus; i = j) {
		struct vcp_package *p =
			find_package(pkgs, n_pkgs, c[i].package);

		for (j = i + 1; j < h->n_cpus && !cmp_core(&c[i], &c[j]); j++)
			;
		if (p)
			p->n_cores++;
		if (j - i > *max_threads)
			*max_threads = (unsigned int)(j - i);
	}
	free(c);
	return 0;
}

/* How many packages @h's CPUs name. */
static size_t count_packages(const struct vcp_host *h)
{
	int *ids = malloc((h->n_cpus ? h->n_cpus : 1) * sizeof(*ids));
	size_t n = 0, k;

	if (!ids)
		return h->n_cpus; /* at most one per CPU */
	for (size_t i = 0; i < h->n_cpus; i++) {
		for (k = 0; k < n && ids[k] != h->cpus[i].package; k++)
			;
		if (k == n)
			ids[n++] = h->cpus[i].package;
	}
	free(ids);
	return n;
}

int vcp_host_finish(struct vcp_host *h)
{
	struct vcp_package *pkgs;
	size_t n_pkgs = 0;
	int max_node = -1;
	unsigned int max_threads = 1;

	qsort(h->cpus, h->n_cpus, sizeof(*h->cpus), cmp_cpu);
	for (size_t i = 0; i < h->n_cpus; i++) {
		if (h->cpus[i].id >= VCP_MAX_CPUS)
			return -EINVAL;
		if (i && h->cpus[i].id == h->cpus[i - 1].id)
			return -EINVAL;
	}
	/* as many packages as there are (each holds a CPU set) */
	pkgs = calloc(h->n_cpus ? count_packages(h) : 1, sizeof(*pkgs));
	if (!pkgs)
		return -ENOMEM;
	vcp_cpuset_zero(&h->online);
	for (size_t i = 0; i < h->n_cpus; i++) {
		const struct vcp_cpu *c = &h->cpus[i];
		struct vcp_package *p = find_package(pkgs, n_pkgs, c->package);

		if (!p) {
			p = &pkgs[n_pkgs++];
			p->id = c->package;
			p->node = c->node;
		}
		vcp_cpuset_set(&p->cpus, c->id);
		p->n_cpus++;
		vcp_cpuset_set(&h->online, c->id);
		if (c->node > max_node)
			max_node = c->node;
		if (c->id + 1 > h->max_cpus)
			h->max_cpus = c->id + 1;
	}
	qsort(pkgs, n_pkgs, sizeof(*pkgs), cmp_package);
	if (count_cores(h, pkgs, n_pkgs, &max_threads) < 0) {
		free(pkgs);
		return -ENOMEM;
	}
	free(h->packages);
	h->packages = pkgs;
	h->n_packages = n_pkgs;
	h->n_nodes = (size_t)(max_node + 1);
	h->threads_per_core = max_threads;
	return 0;
}

int vcp_host_package_of(const struct vcp_host *h, unsigned int cpu)
{
	for (size_t i = 0; i < h->n_packages; i++)
		if (vcp_cpuset_test(&h->packages[i].cpus, cpu))
			return (int)i;
	return -1;
}

void vcp_vm_clear(struct vcp_vm *vm)
{
	if (!vm)
		return;
	free(vm->name);
	free(vm->demand);
	free(vm->vcpu_pins);
	free(vm->orig_pins);
	memset(vm, 0, sizeof(*vm));
}

void vcp_vms_free(struct vcp_vm *vms, size_t n)
{
	if (!vms)
		return;
	for (size_t i = 0; i < n; i++)
		vcp_vm_clear(&vms[i]);
	free(vms);
}

int vcp_vm_alloc_vcpus(struct vcp_vm *vm, unsigned int n_vcpus)
{
	vm->delay = -1;
	double *d = calloc(n_vcpus ? n_vcpus : 1, sizeof(*d));
	struct vcp_cpuset *p = calloc(n_vcpus ? n_vcpus : 1, sizeof(*p));

	if (!d || !p) {
		free(d);
		free(p);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < n_vcpus; i++)
		d[i] = -1.0;
	free(vm->demand);
	free(vm->vcpu_pins);
	vm->demand = d;
	vm->vcpu_pins = p;
	vm->n_vcpus = n_vcpus;
	return 0;
}

void vcp_policy_defaults(struct vcp_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->prio_class[VCP_PRIO_HIGH] = VCP_CLASS_SPREAD;
	p->prio_class[VCP_PRIO_NORMAL] = VCP_CLASS_BALANCED;
	p->prio_class[VCP_PRIO_LOW] = VCP_CLASS_PACK;
	p->level = VCP_LEVEL_AUTO;
	p->headroom = 0.2;
	p->default_vcpu_demand = 0.25;
	p->busy_vcpu_demand = 0.1;
	p->max_vcpu_delay = 0.1;
	p->smt_yield = 0.3;
	p->sample_interval_s = 10;
	p->shrink_after_s = 300;
	p->memory_follows = true;
}

void vcp_policy_clear(struct vcp_policy *p)
{
	if (!p)
		return;
	free(p->windows);
	p->windows = NULL;
	p->n_windows = 0;
}

void vcp_plan_free(struct vcp_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_vms; i++)
		free(p->vms[i].vcpu_pins);
	free(p->vms);
	free(p->pkg_active);
	free(p->pkg_demand);
	free(p->pkg_capacity);
	free(p);
}
