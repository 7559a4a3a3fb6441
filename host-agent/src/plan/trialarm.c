// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trialarm.c - the host states of `vcpack trial` (found, as found, as
 * planned) and the plans that put a host in one of them; pure.
 */
#include "trialarm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"

void vcp_arm_state_clear(struct vcp_arm_state *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_vms; i++) {
		free(s->vms[i].name);
		free(s->vms[i].vcpu_pins);
	}
	free(s->vms);
	memset(s, 0, sizeof(*s));
	s->level = -1;
}

/* One VM of a state with @n_vcpus pins copied from @pins. */
static int arm_vm_init(struct vcp_arm_vm *a, const struct vcp_vm *vm,
		       const struct vcp_cpuset *pins,
		       const struct vcp_cpuset *emulator)
{
	a->name = strdup(vm->name);
	a->n_vcpus = vm->n_vcpus;
	a->vcpu_pins = calloc(vm->n_vcpus ? vm->n_vcpus : 1,
			      sizeof(*a->vcpu_pins));
	if (!a->name || !a->vcpu_pins)
		return -ENOMEM;
	if (pins)
		memcpy(a->vcpu_pins, pins, vm->n_vcpus * sizeof(*pins));
	if (emulator)
		a->emulator_pins = *emulator;
	a->leave = !vm->managed;
	a->had_saved = vm->has_saved;
	return 0;
}

static int state_alloc(size_t n, struct vcp_arm_state *s)
{
	memset(s, 0, sizeof(*s));
	s->level = -1;
	s->vms = calloc(n ? n : 1, sizeof(*s->vms));
	return s->vms ? 0 : -ENOMEM;
}

int vcp_arm_from_world(const struct vcp_world *w, struct vcp_arm_state *ret)
{
	struct vcp_arm_state s;

	if (state_alloc(w->n_vms, &s) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < w->n_vms; i++) {
		const struct vcp_vm *vm = &w->vms[i];
		struct vcp_arm_vm *a = &s.vms[s.n_vms++];

		if (arm_vm_init(a, vm, vm->vcpu_pins, &vm->emulator_pins) < 0) {
			vcp_arm_state_clear(&s);
			return -ENOMEM;
		}
		a->has_class = vm->has_cur_class;
		a->class = vm->cur_class;
	}
	s.level = w->cur_level;
	*ret = s;
	return 0;
}

int vcp_arm_from_plan(const struct vcp_plan *plan, const struct vcp_vm *vms,
		      size_t n_vms, int cur_level, struct vcp_arm_state *ret)
{
	struct vcp_arm_state s;

	if (state_alloc(n_vms, &s) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n_vms && i < plan->n_vms; i++) {
		const struct vcp_vm_plan *p = &plan->vms[i];
		struct vcp_arm_vm *a = &s.vms[s.n_vms++];
		bool leave = p->placement == VCP_PLACE_UNMANAGED;

		if (arm_vm_init(a, &vms[i], leave ? NULL : p->vcpu_pins,
				leave ? NULL : &p->emulator_pins) < 0) {
			vcp_arm_state_clear(&s);
			return -ENOMEM;
		}
		a->leave = a->leave || leave;
		a->has_class = !leave;
		a->class = p->class;
	}
	s.level = cur_level < 0 ? -1 : plan->level;
	*ret = s;
	return 0;
}

static void take_record(struct vcp_arm_vm *a, const struct vcp_saved_pins *r)
{
	for (unsigned int c = 0; c < a->n_vcpus && c < r->n_vcpus; c++)
		a->vcpu_pins[c] = r->vcpu[c];
	if (r->has_emulator)
		a->emulator_pins = r->emulator;
}

void vcp_arm_as_restored(struct vcp_arm_state *s, const char *const *names,
			 const struct vcp_saved_pins *recs, size_t n,
			 bool kernel)
{
	for (size_t i = 0; i < s->n_vms; i++) {
		struct vcp_arm_vm *a = &s->vms[i];

		for (size_t k = 0; k < n; k++)
			if (strcmp(names[k], a->name) == 0)
				take_record(a, &recs[k]);
		if (kernel) {
			a->has_class = true;
			a->class = VCP_CLASS_BALANCED;
		}
	}
	if (s->level > 0)
		s->level = 0;
}

static const struct vcp_arm_vm *find_vm(const struct vcp_arm_state *s,
					const char *name)
{
	for (size_t i = 0; i < s->n_vms; i++)
		if (strcmp(s->vms[i].name, name) == 0)
			return &s->vms[i];
	return NULL;
}

static bool pin_differs(const struct vcp_cpuset *a, const struct vcp_cpuset *b)
{
	return !vcp_cpuset_empty(b) && !vcp_cpuset_equal(a, b);
}

static bool vm_same(const struct vcp_arm_vm *a, const struct vcp_arm_vm *b,
		    bool kernel)
{
	if (b->leave)
		return true;
	if (!a || a->n_vcpus != b->n_vcpus)
		return false;
	if (pin_differs(&a->emulator_pins, &b->emulator_pins))
		return false;
	for (unsigned int c = 0; c < b->n_vcpus; c++)
		if (pin_differs(&a->vcpu_pins[c], &b->vcpu_pins[c]))
			return false;
	return !kernel || !b->has_class ||
	       (a->has_class && a->class == b->class);
}

bool vcp_arm_same(const struct vcp_arm_state *a, const struct vcp_arm_state *b,
		  bool kernel)
{
	for (size_t i = 0; i < b->n_vms; i++)
		if (!vm_same(find_vm(a, b->vms[i].name), &b->vms[i], kernel))
			return false;
	return b->level < 0 || a->level == b->level;
}

static int plan_vm(struct vcp_vm_plan *p, const struct vcp_vm *vm,
		   const struct vcp_arm_vm *a)
{
	p->name = vm->name;
	p->n_vcpus = vm->n_vcpus;
	p->package = -1;
	p->mem_node = -1;
	p->vcpu_pins = calloc(vm->n_vcpus ? vm->n_vcpus : 1,
			      sizeof(*p->vcpu_pins));
	if (!p->vcpu_pins)
		return -ENOMEM;
	p->class = vm->has_cur_class ? vm->cur_class : VCP_CLASS_BALANCED;
	if (!a || a->leave || a->n_vcpus != vm->n_vcpus) {
		p->placement = VCP_PLACE_UNMANAGED;
		return 0;
	}
	p->placement = VCP_PLACE_FREE;
	memcpy(p->vcpu_pins, a->vcpu_pins, vm->n_vcpus * sizeof(*p->vcpu_pins));
	p->emulator_pins = a->emulator_pins;
	if (a->has_class)
		p->class = a->class;
	return 0;
}

int vcp_arm_plan(const struct vcp_arm_state *s, const struct vcp_vm *vms,
		 size_t n_vms, enum vcp_mode mode, struct vcp_plan **ret)
{
	struct vcp_plan *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->mode = mode;
	p->level = s->level > 0 ? s->level : 0;
	p->vms = calloc(n_vms ? n_vms : 1, sizeof(*p->vms));
	if (!p->vms) {
		free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_vms; i++) {
		p->n_vms++;
		if (plan_vm(&p->vms[i], &vms[i], find_vm(s, vms[i].name)) < 0) {
			vcp_plan_free(p);
			return -ENOMEM;
		}
	}
	*ret = p;
	return 0;
}
