/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * explain.h - `vcpack explain DOMAIN`: why one VM has its class, its
 * demand, and the CPUs the plan gives it, and what would move it; from
 * an observed world and its plan. Pure: builds a JSON object.
 */
#ifndef VCP_EXPLAIN_H
#define VCP_EXPLAIN_H

#include <json-c/json.h>

#include "model.h"
#include "observe.h"

/*
 * {vm, uuid, managed, tag ({priority?, class?} or null), class,
 *  class_reason, vcpus, demand (CPUs), demand_assumed (bool), delay
 *  (fraction or null), pins_now (cpulist over its vCPUs), placement,
 *  package (id or null), cpus (planned, over its vCPUs), level,
 *  level_reason, why_cpus, degraded (or null), would_move: [reasons]}
 * for VM @i of @w under @plan and @policy; NULL on -ENOMEM.
 */
struct json_object *vcp_explain_json(const struct vcp_world *w,
				     const struct vcp_plan *plan,
				     const struct vcp_policy *policy, size_t i);

#endif
