// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * diff.c - the difference between a plan and the host as observed, as an
 * ordered list of actions. Only what differs is listed, so applying an
 * unchanged plan twice does nothing the second time. A VM whose pins
 * change and whose original pins are not yet recorded gets a SAVE action
 * before anything else: nothing is changed that cannot be restored.
 * Memory follows the vCPUs (after them) where libvirt can move it live
 * (vcp_mem_follow()); the record then holds its original nodeset too.
 */
#include "diff.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct buf {
	struct vcp_action *a;
	size_t n, cap;
};

static struct vcp_action *push(struct buf *b, enum vcp_act_kind kind,
			       size_t vm)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		struct vcp_action *t = realloc(b->a, cap * sizeof(*t));

		if (!t)
			return NULL;
		b->a = t;
		b->cap = cap;
	}
	memset(&b->a[b->n], 0, sizeof(b->a[0]));
	b->a[b->n].kind = kind;
	b->a[b->n].vm = vm;
	b->a[b->n].from_level = -1;
	return &b->a[b->n++];
}

static bool pins_differ(const struct vcp_vm *vm, const struct vcp_vm_plan *p)
{
	if (!vcp_cpuset_equal(&vm->emulator_pins, &p->emulator_pins))
		return true;
	for (unsigned int i = 0; i < vm->n_vcpus && i < p->n_vcpus; i++)
		if (!vcp_cpuset_equal(&vm->vcpu_pins[i], &p->vcpu_pins[i]))
			return true;
	return false;
}

const char *vcp_mem_follow_name(enum vcp_mem_follow f)
{
	/* in the enum's order, from VCP_MEMF_STAYS = 0 */
	static const char *const names[] = { "stays", "there", "moves",
					     "cannot" };

	return names[f];
}

enum vcp_mem_follow vcp_mem_follow(const struct vcp_vm *vm,
				   const struct vcp_vm_plan *p,
				   const char **ret_why)
{
	const char *why = NULL;

	if (p->mem_node < 0 || !vm->managed ||
	    p->placement == VCP_PLACE_UNMANAGED)
		return VCP_MEMF_STAYS;
	if (vm->mem_mode == VCP_MEM_NONE)
		why = "its domain has no <numatune><memory>: libvirt changes a running VM's nodeset only in strict or restrictive mode and adds no mode while it runs";
	else if (vm->mem_mode == VCP_MEM_PREFERRED)
		why = "its numatune mode is preferred: libvirt changes a running VM's nodeset only in strict or restrictive mode, and never the mode";
	else if (vm->mem_mode == VCP_MEM_INTERLEAVE)
		why = "its numatune mode is interleave: libvirt changes a running VM's nodeset only in strict or restrictive mode, and never the mode";
	else if (vm->mem_auto)
		why = "its numatune placement is auto: numad chooses its nodes";
	else if (vm->mem_refused)
		why = "libvirt refused to move its memory while it runs (said once; vcpackd asks again when it restarts or its tag changes)";
	else if (vm->has_saved && !vm->has_saved_mem)
		why = "its restore record predates memory moves and lacks the original nodeset ('vcpack restore', then apply again, records it)";
	if (why) {
		*ret_why = why;
		return VCP_MEMF_CANNOT;
	}
	if (vcp_cpuset_count(&vm->mem_nodes) == 1 &&
	    vcp_cpuset_test(&vm->mem_nodes, (unsigned int)p->mem_node))
		return VCP_MEMF_THERE;
	return VCP_MEMF_MOVES;
}

static int diff_memory(struct buf *b, size_t idx, const struct vcp_vm *vm,
		       const struct vcp_vm_plan *p)
{
	struct vcp_action *a = push(b, VCP_ACT_SET_MEMORY, idx);

	if (!a)
		return -ENOMEM;
	a->from = vm->mem_nodes;
	vcp_cpuset_zero(&a->to);
	vcp_cpuset_set(&a->to, (unsigned int)p->mem_node);
	return 0;
}

static int diff_pins(struct buf *b, size_t idx, const struct vcp_vm *vm,
		     const struct vcp_vm_plan *p)
{
	struct vcp_action *a;

	if (!vcp_cpuset_equal(&vm->emulator_pins, &p->emulator_pins) &&
	    !vcp_cpuset_empty(&p->emulator_pins)) {
		a = push(b, VCP_ACT_PIN_EMULATOR, idx);
		if (!a)
			return -ENOMEM;
		a->from = vm->emulator_pins;
		a->to = p->emulator_pins;
	}
	for (unsigned int i = 0; i < vm->n_vcpus && i < p->n_vcpus; i++) {
		if (vcp_cpuset_equal(&vm->vcpu_pins[i], &p->vcpu_pins[i]) ||
		    vcp_cpuset_empty(&p->vcpu_pins[i]))
			continue;
		a = push(b, VCP_ACT_PIN_VCPU, idx);
		if (!a)
			return -ENOMEM;
		a->vcpu = i;
		a->from = vm->vcpu_pins[i];
		a->to = p->vcpu_pins[i];
	}
	return 0;
}

static int diff_vm(struct buf *b, size_t idx, const struct vcp_vm *vm,
		   const struct vcp_vm_plan *p, enum vcp_mode mode)
{
	const char *why;
	bool pins, mem;
	struct vcp_action *a;
	int r = 0;

	if (p->restore && vm->managed && vm->has_saved)
		return push(b, VCP_ACT_RESTORE, idx) ? 0 : -ENOMEM;
	if (p->placement == VCP_PLACE_UNMANAGED || !vm->managed)
		return 0;
	pins = pins_differ(vm, p);
	mem = vcp_mem_follow(vm, p, &why) == VCP_MEMF_MOVES;
	if ((pins || mem) && !vm->has_saved && !push(b, VCP_ACT_SAVE, idx))
		return -ENOMEM;
	if (pins)
		r = diff_pins(b, idx, vm, p);
	if (r == 0 && mem)
		r = diff_memory(b, idx, vm, p);
	if (r < 0)
		return r;
	if (vcp_mode_plan(mode) != VCP_MODE_KERNEL || vm->pid <= 0)
		return 0;
	if (vm->has_cur_class && vm->cur_class == p->class)
		return 0;
	a = push(b, VCP_ACT_SET_CLASS, idx);
	if (!a)
		return -ENOMEM;
	a->has_from_class = vm->has_cur_class;
	a->from_class = vm->cur_class;
	a->to_class = p->class;
	return 0;
}

int vcp_diff_compute(const struct vcp_host *host, const struct vcp_vm *vms,
		     size_t n_vms, const struct vcp_plan *plan, int cur_level,
		     struct vcp_actions *ret)
{
	struct buf b = { 0 };
	struct vcp_action *a;
	int r;

	for (size_t i = 0; i < n_vms && i < plan->n_vms; i++) {
		r = diff_vm(&b, i, &vms[i], &plan->vms[i], plan->mode);
		if (r < 0) {
			free(b.a);
			return r;
		}
	}
	if (cur_level >= 0 && cur_level != plan->level) {
		a = push(&b, VCP_ACT_SET_LEVEL, 0);
		if (!a) {
			free(b.a);
			return -ENOMEM;
		}
		a->from_level = cur_level;
		a->to_level = plan->level;
	}
	ret->a = b.a;
	ret->n = b.n;
	return 0;
}

void vcp_actions_clear(struct vcp_actions *a)
{
	if (!a)
		return;
	free(a->a);
	a->a = NULL;
	a->n = 0;
}

size_t vcp_actions_count_vm(const struct vcp_actions *a, size_t vm)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n; i++)
		if (a->a[i].kind != VCP_ACT_SET_LEVEL &&
		    a->a[i].kind != VCP_ACT_SAVE && a->a[i].vm == vm)
			n++;
	return n;
}

const char *vcp_act_kind_name(enum vcp_act_kind k)
{
	switch (k) {
	case VCP_ACT_SAVE:
		return "save-original";
	case VCP_ACT_PIN_EMULATOR:
		return "pin-emulator";
	case VCP_ACT_PIN_VCPU:
		return "pin-vcpu";
	case VCP_ACT_SET_CLASS:
		return "set-class";
	case VCP_ACT_SET_LEVEL:
		return "set-level";
	case VCP_ACT_SET_MEMORY:
		return "set-memory";
	case VCP_ACT_RESTORE:
		return "restore";
	}
	return "?";
}
