/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trialarm.h - the host states `vcpack trial` switches between, as plain
 * data, and the plan that puts the host in one of them. Pure: the caller
 * observes (observe.c), diffs the plan (diff.c) and carries it out
 * (apply.c), the same path as `vcpack apply`, so no pin or kernel knob is
 * written anywhere else.
 *
 * A state holds, per VM by name, the pins of its vCPUs and emulator and
 * (kernel mode) its class, and the host level. Three states make a
 * trial: "found" (what the host had when the trial began: the end state,
 * also after a signal), arm A "as found" (what `vcpack restore` would
 * leave: the recorded original pins where a VM has a record, classes
 * balanced, level 0) and arm B "as planned" (the policy's plan).
 */
#ifndef VCP_TRIALARM_H
#define VCP_TRIALARM_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "observe.h"
#include "tags.h"

struct vcp_arm_vm {
	char *name;
	unsigned int n_vcpus;
	struct vcp_cpuset *vcpu_pins;	/* n_vcpus; empty: leave that vCPU */
	struct vcp_cpuset emulator_pins;	/* empty: leave */
	bool leave;		/* not managed: never touched */
	bool has_class;		/* kernel mode: set this class */
	enum vcp_class class;
	bool had_saved;		/* (found) its original pins were recorded */
};

struct vcp_arm_state {
	struct vcp_arm_vm *vms;
	size_t n_vms;
	int level;		/* sched_mc_power_savings, -1: no knob */
};

void vcp_arm_state_clear(struct vcp_arm_state *s);

/* The state of the world as observed. 0 or -ENOMEM. */
int vcp_arm_from_world(const struct vcp_world *w, struct vcp_arm_state *ret);

/*
 * The state @plan (for the VMs @vms it was made from) would leave; VMs
 * the plan leaves unmanaged are left. @cur_level -1: no level knob.
 * 0 or -ENOMEM.
 */
int vcp_arm_from_plan(const struct vcp_plan *plan, const struct vcp_vm *vms,
		      size_t n_vms, int cur_level, struct vcp_arm_state *ret);

/*
 * Make @s what `vcpack restore` would leave: pins from the record of each
 * VM named in @names (@recs[i] for @names[i]), class balanced (kernel
 * mode: @kernel), level 0 where there is a knob.
 */
void vcp_arm_as_restored(struct vcp_arm_state *s, const char *const *names,
			 const struct vcp_saved_pins *recs, size_t n,
			 bool kernel);

/*
 * Would switching from @a to @b change nothing? Per VM of @b by name:
 * its non-empty pins, its class (@kernel only) and the level.
 */
bool vcp_arm_same(const struct vcp_arm_state *a, const struct vcp_arm_state *b,
		  bool kernel);

/*
 * A plan that puts the VMs @vms (as observed now) in state @s: VMs the
 * state does not know, or leaves, are left as they are. Feed it to
 * vcp_diff_compute(). Free with vcp_plan_free(). 0 or -ENOMEM.
 */
int vcp_arm_plan(const struct vcp_arm_state *s, const struct vcp_vm *vms,
		 size_t n_vms, enum vcp_mode mode, struct vcp_plan **ret);

#endif
