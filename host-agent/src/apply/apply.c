// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * apply.c - carries out the actions of a diff, VM by VM, and restores VMs
 * to their recorded original pinning and memory nodeset.
 *
 * Promises: the original pins of a VM are in its own metadata before the
 * first pin of that VM changes; a VM whose step fails is rolled back to
 * where it was (and the rollback's outcome is reported too); a VM that
 * vanished is skipped; every action gets an outcome.
 */
#include "apply.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "scx.h"
#include "tags.h"
#include "virt.h"

const char *vcp_outcome_name(enum vcp_outcome o)
{
	switch (o) {
	case VCP_DONE:
		return "done";
	case VCP_FAILED:
		return "failed";
	case VCP_RETRY:
		return "retry";
	case VCP_GONE:
		return "gone";
	case VCP_SKIPPED:
		return "skipped";
	case VCP_ROLLED_BACK:
		return "rolled-back";
	case VCP_REFUSED:
		return "refused";
	}
	return "?";
}

void vcp_apply_result_clear(struct vcp_apply_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		free(r->e[i].msg);
	free(r->e);
	memset(r, 0, sizeof(*r));
}

void vcp_restore_result_clear(struct vcp_restore_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		free(r->e[i].msg);
	free(r->e);
	memset(r, 0, sizeof(*r));
}

static enum vcp_outcome sort_failure(int r)
{
	if (r == -ENOENT)
		return VCP_GONE;
	if (r == -EAGAIN || r == -ENOTCONN)
		return VCP_RETRY;
	return VCP_FAILED;
}

static int save_original(struct vcp_virt *v, const struct vcp_vm *vm,
			 char **ret_err)
{
	struct vcp_saved_pins s = {
		.n_vcpus = vm->n_vcpus,
		.vcpu = vm->vcpu_pins,
		.emulator = vm->emulator_pins,
		.has_emulator = true,
		.mem_nodes = vm->mem_nodes,
		/* a nodeset libvirt can put back live */
		.has_memory = (vm->mem_mode == VCP_MEM_STRICT ||
			       vm->mem_mode == VCP_MEM_RESTRICTIVE) &&
			      !vm->mem_auto &&
			      !vcp_cpuset_empty(&vm->mem_nodes),
	};

	return vcp_virt_set_saved(v, vm->name, &s, ret_err);
}

static int set_class(const struct vcp_kernel *k, const struct vcp_vm *vm,
		     enum vcp_class c, char **ret_err)
{
	char *cg = NULL;
	int r;

	if (!k)
		return -ENOTSUP;
	r = vcp_kernel_cgroup_of_pid(k, vm->pid, &cg);
	if (r < 0) {
		if (asprintf(ret_err, "Failed to find the cgroup of '%s' (pid %d): %s",
			     vm->name, vm->pid, strerror(-r)) < 0)
			*ret_err = NULL;
		return r;
	}
	r = vcp_kernel_set_class(k, cg, c);
	if (r < 0 && k->scx) {
		if (asprintf(ret_err, "Failed to give '%s' (%s) class %s in scx_vcpack: %s",
			     vm->name, cg, vcp_class_name(c),
			     *vcp_scx_last_error(k->scx) ?
			     vcp_scx_last_error(k->scx) : strerror(-r)) < 0)
			*ret_err = NULL;
	} else if (r < 0 && asprintf(ret_err, "Failed to write cpu.consolidate=%s for '%s' in %s: %s",
				     vcp_class_name(c), vm->name, cg, strerror(-r)) < 0) {
		*ret_err = NULL;
	}
	free(cg);
	return r;
}

static int restore_vm(struct vcp_virt *v, const struct vcp_kernel *k,
		      const struct vcp_host *host, const struct vcp_vm *vm,
		      bool *ret_had, char **ret_err);

static int run_one(struct vcp_virt *v, const struct vcp_kernel *k,
		   const struct vcp_host *host, const struct vcp_vm *vms,
		   const struct vcp_action *a, char **ret_err)
{
	const struct vcp_vm *vm = &vms[a->vm];
	int r;

	switch (a->kind) {
	case VCP_ACT_SAVE:
		return save_original(v, vm, ret_err);
	case VCP_ACT_PIN_EMULATOR:
		return vcp_virt_pin_emulator(v, vm->name, &a->to,
					     host->max_cpus, ret_err);
	case VCP_ACT_PIN_VCPU:
		return vcp_virt_pin_vcpu(v, vm->name, a->vcpu, &a->to,
					 host->max_cpus, ret_err);
	case VCP_ACT_SET_CLASS:
		return set_class(k, vm, a->to_class, ret_err);
	case VCP_ACT_SET_MEMORY:
		return vcp_virt_set_mem_nodes(v, vm->name, &a->to, ret_err);
	case VCP_ACT_RESTORE: {
		bool had;

		return restore_vm(v, k, host, vm, &had, ret_err);
	}
	case VCP_ACT_SET_LEVEL:
		if (!k)
			return -ENOTSUP;
		r = vcp_kernel_set_level(k, a->to_level);
		if (r < 0 && asprintf(ret_err, "Failed to %s=%d: %s",
				      k->scx ? "set scx_vcpack's level" :
				      "write sched_mc_power_savings", a->to_level,
				      k->scx && *vcp_scx_last_error(k->scx) ?
				      vcp_scx_last_error(k->scx) :
				      strerror(-r)) < 0)
			*ret_err = NULL;
		return r;
	}
	return -EINVAL;
}

/* Undo the pin actions of the VM in [first, upto) that were done. */
static void roll_back(struct vcp_virt *v, const struct vcp_host *host,
		      const struct vcp_vm *vms, const struct vcp_actions *acts,
		      struct vcp_apply_result *res, size_t first, size_t upto)
{
	for (size_t i = upto; i-- > first;) {
		const struct vcp_action *a = &acts->a[i];
		struct vcp_outcome_entry *e = &res->e[i];
		char *err = NULL;
		int r = 0;

		if (e->outcome != VCP_DONE)
			continue;
		if (a->kind == VCP_ACT_PIN_VCPU)
			r = vcp_virt_pin_vcpu(v, vms[a->vm].name, a->vcpu,
					      &a->from, host->max_cpus, &err);
		else if (a->kind == VCP_ACT_PIN_EMULATOR)
			r = vcp_virt_pin_emulator(v, vms[a->vm].name, &a->from,
						  host->max_cpus, &err);
		else if (a->kind == VCP_ACT_SET_MEMORY &&
			 !vcp_cpuset_empty(&a->from))
			r = vcp_virt_set_mem_nodes(v, vms[a->vm].name, &a->from,
						   &err);
		else
			continue;
		if (r == 0) {
			e->outcome = VCP_ROLLED_BACK;
			res->n_done--;
			free(err);
		} else {
			if (r == -ENOTCONN)
				res->lost = true;
			free(e->msg);
			e->msg = err;
			e->r = r;
		}
	}
}

static bool same_vm(const struct vcp_action *a, const struct vcp_action *b)
{
	return a->kind != VCP_ACT_SET_LEVEL && b->kind != VCP_ACT_SET_LEVEL &&
	       a->vm == b->vm;
}

/*
 * Sort the failure @r of action @a into @e and @res. Does the rest of its
 * VM stop (and roll back)? A class, level or memory action failing stops
 * nothing: memory stays where it is, and a refused move is REFUSED.
 */
static bool failed(struct vcp_apply_result *res, const struct vcp_action *a,
		   struct vcp_outcome_entry *e, int r)
{
	e->outcome = sort_failure(r);
	if (a->kind == VCP_ACT_SET_MEMORY && (r == -ENOTSUP || r == -EPERM))
		e->outcome = VCP_REFUSED;
	if (e->outcome == VCP_GONE) {
		free(e->msg);
		e->msg = NULL;
	} else if (e->outcome != VCP_REFUSED) {
		res->n_failed++;
	}
	if (r == -ENOTCONN) {
		res->lost = true;
		return false;
	}
	return a->kind != VCP_ACT_SET_CLASS && a->kind != VCP_ACT_SET_LEVEL &&
	       a->kind != VCP_ACT_SET_MEMORY;
}

int vcp_apply_actions(struct vcp_virt *v, const struct vcp_kernel *k,
		      const struct vcp_host *host, const struct vcp_vm *vms,
		      const struct vcp_actions *acts,
		      struct vcp_apply_result *ret)
{
	struct vcp_apply_result res = { 0 };
	size_t first = 0;
	bool vm_failed = false;

	res.e = calloc(acts->n ? acts->n : 1, sizeof(*res.e));
	if (!res.e)
		return -ENOMEM;
	res.n = acts->n;
	for (size_t i = 0; i < acts->n; i++) {
		struct vcp_outcome_entry *e = &res.e[i];
		int r;

		if (i == 0 || !same_vm(&acts->a[i], &acts->a[i - 1])) {
			first = i;
			vm_failed = false;
		}
		e->action = i;
		if (vm_failed || res.lost) {
			e->outcome = VCP_SKIPPED;
			continue;
		}
		r = run_one(v, k, host, vms, &acts->a[i], &e->msg);
		e->r = r;
		if (r == 0) {
			e->outcome = VCP_DONE;
			res.n_done++;
			continue;
		}
		if (!failed(&res, &acts->a[i], e, r))
			continue;
		vm_failed = true;
		if (e->outcome != VCP_GONE)
			roll_back(v, host, vms, acts, &res, first, i);
	}
	*ret = res;
	return 0;
}

/* ---- restore ---- */

static int restore_pins(struct vcp_virt *v, const struct vcp_host *host,
			const struct vcp_vm *vm,
			const struct vcp_saved_pins *s, char **ret_err)
{
	int r;

	for (unsigned int i = 0; i < s->n_vcpus && i < vm->n_vcpus; i++) {
		if (vcp_cpuset_equal(&vm->vcpu_pins[i], &s->vcpu[i]))
			continue;
		r = vcp_virt_pin_vcpu(v, vm->name, i, &s->vcpu[i],
				      host->max_cpus, ret_err);
		if (r < 0)
			return r;
	}
	if (s->has_emulator &&
	    !vcp_cpuset_equal(&vm->emulator_pins, &s->emulator)) {
		r = vcp_virt_pin_emulator(v, vm->name, &s->emulator,
					  host->max_cpus, ret_err);
		if (r < 0)
			return r;
	}
	if (s->has_memory && !vcp_cpuset_equal(&vm->mem_nodes, &s->mem_nodes)) {
		r = vcp_virt_set_mem_nodes(v, vm->name, &s->mem_nodes, ret_err);
		if (r < 0)
			return r;
	}
	return vcp_virt_clear_saved(v, vm->name, ret_err);
}

/* "REASON" -> "REASON; nothing restored, the record is kept" */
static void kept_note(char **msg)
{
	char *t;

	if (*msg && asprintf(&t, "%s; nothing restored, the record is kept",
			     *msg) >= 0) {
		free(*msg);
		*msg = t;
	}
}

/* Put @vm back to its record and drop it (none: nothing to do, 0);
 * in kernel mode its class goes back to balanced. 0 or -errno with
 * *ret_err. */
static int restore_vm(struct vcp_virt *v, const struct vcp_kernel *k,
		      const struct vcp_host *host, const struct vcp_vm *vm,
		      bool *ret_had, char **ret_err)
{
	struct vcp_saved_pins s = { 0 };
	int r = vcp_virt_get_saved(v, vm->name, &s, ret_err);

	*ret_had = r == 0;
	if (r == -ENOENT)
		r = 0;
	else if (r == 0) {
		/* only what can be restored exactly; else the record stays */
		r = vcp_saved_pins_fit(&s, vm, host, ret_err);
		if (r < 0)
			kept_note(ret_err);
		else
			r = restore_pins(v, host, vm, &s, ret_err);
		vcp_saved_pins_clear(&s);
	}
	if (r == 0 && k && vm->pid > 0 &&
	    (vcp_kernel_mode(k) == VCP_MODE_KERNEL || k->scx) &&
	    vm->has_cur_class && vm->cur_class != VCP_CLASS_BALANCED)
		r = set_class(k, vm, VCP_CLASS_BALANCED, ret_err);
	return r;
}

static void restore_one(struct vcp_virt *v, const struct vcp_kernel *k,
			const struct vcp_host *host, const struct vcp_vm *vm,
			struct vcp_restore_entry *e)
{
	int r = restore_vm(v, k, host, vm, &e->had_record, &e->msg);

	e->vm = vm->name;
	e->outcome = r < 0 ? sort_failure(r) : VCP_DONE;
}

int vcp_apply_restore(struct vcp_virt *v, const struct vcp_kernel *k,
		      const struct vcp_host *host, const struct vcp_vm *vms,
		      size_t n_vms, const bool *only,
		      struct vcp_restore_result *ret)
{
	struct vcp_restore_result res = { 0 };

	res.e = calloc(n_vms ? n_vms : 1, sizeof(*res.e));
	if (!res.e)
		return -ENOMEM;
	for (size_t i = 0; i < n_vms; i++) {
		struct vcp_restore_entry *e = &res.e[res.n];

		if (only && !only[i])
			continue;
		restore_one(v, k, host, &vms[i], e);
		if (e->outcome == VCP_FAILED || e->outcome == VCP_RETRY)
			res.n_failed++;
		res.n++;
	}
	*ret = res;
	return 0;
}
