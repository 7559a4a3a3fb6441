// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * observe.c - one snapshot of the host for planning: what libvirt says
 * (topology, VMs, pins, tags, vCPU time) and, in kernel mode, what the
 * kernel says (each VM's cpu.consolidate, the host level). Reads only.
 */
#include "observe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "demand.h"
#include "kernel.h"
#include "topology.h"

void vcp_world_clear(struct vcp_world *w)
{
	if (!w)
		return;
	vcp_host_free(w->host);
	vcp_vms_free(w->vms, w->n_vms);
	vcp_vm_issues_free(w->issues, w->n_issues);
	memset(w, 0, sizeof(*w));
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int measure(struct vcp_virt *v, unsigned int ms, struct vcp_world *w,
		   char **ret_err)
{
	struct vcp_sample *a = NULL, *b = NULL;
	int r = vcp_virt_sample(v, &a, ret_err);

	if (r < 0)
		return r;
	if (a->have_vcpu_time) {
		sleep_ms(ms);
		r = vcp_virt_sample(v, &b, ret_err);
		if (r == 0)
			r = vcp_demand_measure(a, b, w->vms, w->n_vms);
		if (r == 0) {
			w->demand_measured = true;
			w->sample_s = (double)(b->at_ns - a->at_ns) / 1e9;
		}
	}
	vcp_sample_free(a);
	vcp_sample_free(b);
	return r;
}

static void read_classes(const struct vcp_kernel *k, struct vcp_world *w)
{
	for (size_t i = 0; i < w->n_vms; i++) {
		struct vcp_vm *vm = &w->vms[i];
		char *cg = NULL;

		if (vm->pid <= 0 || vcp_kernel_cgroup_of_pid(k, vm->pid, &cg) < 0)
			continue;
		if (vcp_kernel_get_class(k, cg, &vm->cur_class) == 0)
			vm->has_cur_class = true;
		free(cg);
	}
}

static int observe(struct vcp_virt *v, const struct vcp_kernel *k,
		   enum vcp_mode mode, unsigned int sample_ms, bool any_width,
		   struct vcp_world *ret, char **ret_err)
{
	struct vcp_world w = { .cur_level = -1 };
	int r;

	r = vcp_virt_host(v, &w.host, ret_err);
	if (r == 0 && !any_width)
		r = vcp_host_fits(w.host, ret_err);
	if (r < 0) {
		vcp_world_clear(&w);
		return r;
	}
	w.host->mode = mode;
	r = vcp_virt_list_vms(v, w.host, &w.vms, &w.n_vms, &w.issues,
			      &w.n_issues, ret_err);
	if (r == 0 && sample_ms)
		r = measure(v, sample_ms, &w, ret_err);
	if (r < 0) {
		vcp_world_clear(&w);
		return r;
	}
	if (k && vcp_mode_plan(mode) == VCP_MODE_KERNEL) {
		read_classes(k, &w);
		if (vcp_kernel_get_level(k, &w.cur_level) < 0)
			w.cur_level = -1;
	}
	*ret = w;
	return 0;
}

int vcp_observe(struct vcp_virt *v, const struct vcp_kernel *k,
		enum vcp_mode mode, unsigned int sample_ms,
		struct vcp_world *ret, char **ret_err)
{
	return observe(v, k, mode, sample_ms, false, ret, ret_err);
}

int vcp_observe_to_restore(struct vcp_virt *v, const struct vcp_kernel *k,
			   enum vcp_mode mode, struct vcp_world *ret,
			   char **ret_err)
{
	return observe(v, k, mode, 0, true, ret, ret_err);
}
