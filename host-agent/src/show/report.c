// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report.c - builds the per-package map (awake or idle, VMs on each) from
 * current pins or from a plan. No I/O: the CLI renders it as text or JSON.
 */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void vcp_packages_of(const struct vcp_host *host, const struct vcp_cpuset *s,
		     bool *ret_pkgs)
{
	for (size_t i = 0; i < host->n_packages; i++)
		ret_pkgs[i] = vcp_cpuset_intersects(&host->packages[i].cpus, s);
}

static const struct vcp_cpuset *pins_of(const struct vcp_vm *vms,
					const struct vcp_plan *plan,
					size_t vm, unsigned int vcpu)
{
	if (plan && vcpu < plan->vms[vm].n_vcpus)
		return &plan->vms[vm].vcpu_pins[vcpu];
	return &vms[vm].vcpu_pins[vcpu];
}

/* Does VM @vm have a vCPU on package @p; how many vCPUs there. */
static unsigned int vcpus_on(const struct vcp_host *host,
			     const struct vcp_vm *vms,
			     const struct vcp_plan *plan, size_t vm, size_t p)
{
	const struct vcp_package *pkg = &host->packages[p];
	unsigned int n = 0;

	if (plan && vcp_mode_plan(plan->mode) == VCP_MODE_KERNEL &&
	    plan->vms[vm].placement == VCP_PLACE_FREE)
		return plan->pkg_active[p] ? vms[vm].n_vcpus : 0;
	for (unsigned int c = 0; c < vms[vm].n_vcpus; c++)
		if (vcp_cpuset_intersects(&pkg->cpus,
					  pins_of(vms, plan, vm, c)))
			n++;
	return n;
}

static int fill_view(const struct vcp_host *host, const struct vcp_vm *vms,
		     size_t n_vms, const struct vcp_plan *plan, size_t p,
		     struct vcp_pkg_view *v)
{
	v->id = host->packages[p].id;
	v->vms = calloc(n_vms ? n_vms : 1, sizeof(*v->vms));
	if (!v->vms)
		return -ENOMEM;
	for (size_t i = 0; i < n_vms; i++) {
		unsigned int n = vcpus_on(host, vms, plan, i, p);

		if (!n)
			continue;
		v->vms[v->n_vms++] = i;
		v->n_vcpus += n;
	}
	v->awake = v->n_vcpus > 0;
	if (plan) {
		v->reserved = vcp_cpuset_subset(&host->packages[p].cpus,
						&plan->reserved);
		v->by_free = !plan->pkg_active[p] && v->awake && !v->reserved;
		v->awake = plan->pkg_active[p] || v->awake || v->reserved;
	}
	return 0;
}

int vcp_pkg_map_build(const struct vcp_host *host, const struct vcp_vm *vms,
		      size_t n_vms, const struct vcp_plan *plan,
		      struct vcp_pkg_map *ret)
{
	struct vcp_pkg_map m = { 0 };

	m.p = calloc(host->n_packages ? host->n_packages : 1, sizeof(*m.p));
	if (!m.p)
		return -ENOMEM;
	m.n = host->n_packages;
	for (size_t p = 0; p < host->n_packages; p++) {
		if (fill_view(host, vms, n_vms, plan, p, &m.p[p]) < 0) {
			vcp_pkg_map_clear(&m);
			return -ENOMEM;
		}
		if (m.p[p].awake)
			m.n_awake++;
	}
	*ret = m;
	return 0;
}

void vcp_pkg_map_clear(struct vcp_pkg_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->p[i].vms);
	free(m->p);
	memset(m, 0, sizeof(*m));
}
