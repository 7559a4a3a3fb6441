/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * planner.h - the pure planner: host topology + VMs + policy -> plan
 * (active packages, per-vCPU and emulator cpusets, classes, level).
 * No I/O, no logging, no globals; the semantics are documented at the top
 * of planner.c.
 */
#ifndef VCP_PLANNER_H
#define VCP_PLANNER_H

#include "model.h"

/*
 * Plan @n_vms VMs on @host under @policy. policy->level must already be
 * resolved from the schedule windows (vcp_policy_level_at()) by the
 * caller; VCP_LEVEL_AUTO is resolved here. 0, -EINVAL (no host, no
 * package, bad level) or -ENOMEM; *ret_plan (free with vcp_plan_free())
 * untouched on failure. The plan borrows VM names from @vms.
 */
int vcp_plan_compute(const struct vcp_host *host, const struct vcp_vm *vms,
		     size_t n_vms, const struct vcp_policy *policy,
		     struct vcp_plan **ret_plan);
/*
 * Is policy->reserved_cpus usable on @host? 0, or -EINVAL with
 * *ret_err naming the CPU that does not exist ("reserved_cpus: CPU 70
 * does not exist on this host (it has CPUs 0-63)") or saying that no
 * online CPU is left for VMs. Offline CPUs of the host may be reserved.
 * Pure; vcp_plan_compute() refuses the same cases with -EINVAL.
 */
int vcp_plan_check_reserved(const struct vcp_host *host,
			    const struct vcp_policy *policy, char **ret_err);
/* Class of a VM under a policy: explicit tag class wins, else the
 * priority's mapped class, else balanced. */
enum vcp_class vcp_plan_vm_class(const struct vcp_vm *vm,
				 const struct vcp_policy *policy);

#endif
