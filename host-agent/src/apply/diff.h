/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff.h - what carrying out a plan would change, as a list of actions.
 * Pure: the same inputs give the same list, in a fixed order (per VM in
 * input order: save, emulator, vCPUs by id, memory, class - or, for a
 * VM the plan puts back (vp->restore, level 0), restore alone; the host
 * level last).
 */
#ifndef VCP_DIFF_H
#define VCP_DIFF_H

#include <stddef.h>

#include "model.h"

enum vcp_act_kind {
	VCP_ACT_SAVE = 0, /* record the VM's original pins first */
	VCP_ACT_PIN_EMULATOR,
	VCP_ACT_PIN_VCPU,
	VCP_ACT_SET_CLASS, /* cpu.consolidate of the VM's cgroup */
	VCP_ACT_SET_LEVEL, /* sched_mc_power_savings */
	VCP_ACT_SET_MEMORY, /* the nodeset of its <numatune><memory> */
	VCP_ACT_RESTORE, /* level 0: back to its record, as `vcpack restore` */
};

struct vcp_action {
	enum vcp_act_kind kind;
	size_t vm;		/* index into the VMs (not for SET_LEVEL) */
	unsigned int vcpu;	/* PIN_VCPU only */
	struct vcp_cpuset from; /* PIN_*: current pins; SET_MEMORY: nodes */
	struct vcp_cpuset to; /* PIN_*: planned pins; SET_MEMORY: nodes */
	bool has_from_class;
	enum vcp_class from_class;
	enum vcp_class to_class;
	int from_level;		/* -1 when unknown */
	int to_level;
};

struct vcp_actions {
	struct vcp_action *a;
	size_t n;
};

enum vcp_mem_follow {
	VCP_MEMF_STAYS = 0, /* the plan leaves its memory (mem_node -1) */
	VCP_MEMF_THERE, /* already on the planned node */
	VCP_MEMF_MOVES, /* a SET_MEMORY action moves it there */
	VCP_MEMF_CANNOT, /* planned elsewhere, but it cannot follow */
};

/*
 * Can @vm's memory follow its plan @p to node p->mem_node? libvirt
 * changes a running VM's nodeset only where its <numatune><memory> mode
 * is strict or restrictive (cpuset.mems of its cgroup carries those; the
 * other modes are the guest's mbind policy, fixed at start), never its
 * mode, never for placement='auto' (numad's choice), and vcpack moves it
 * only when the original nodeset is (or will be) in its restore record.
 * VCP_MEMF_CANNOT sets *ret_why to a static sentence saying which. Pure.
 */
enum vcp_mem_follow vcp_mem_follow(const struct vcp_vm *vm,
				   const struct vcp_vm_plan *p,
				   const char **ret_why);
/* "stays", "there", "moves" or "cannot" (the --json "memory" values). */
const char *vcp_mem_follow_name(enum vcp_mem_follow f);

/*
 * @cur_level: the host's sched_mc_power_savings now, or -1 where the
 * knob is absent (then no level action is emitted). Class actions are
 * emitted in kernel mode for VMs whose QEMU pid is known.
 * 0 or -ENOMEM; *ret is untouched on failure.
 */
int vcp_diff_compute(const struct vcp_host *host, const struct vcp_vm *vms,
		     size_t n_vms, const struct vcp_plan *plan, int cur_level,
		     struct vcp_actions *ret);
void vcp_actions_clear(struct vcp_actions *a);
/* Number of actions that change something for VM @vm. */
size_t vcp_actions_count_vm(const struct vcp_actions *a, size_t vm);
const char *vcp_act_kind_name(enum vcp_act_kind k);

#endif
