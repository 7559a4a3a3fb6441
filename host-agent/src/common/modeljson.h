/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * modeljson.h - the model as JSON: hosts and VMs from JSON (test fixtures,
 * golden cases) and the plan to JSON (golden files, `vcpack plan --json`).
 * Formats are documented at the top of modeljson.c.
 */
#ifndef VCP_MODELJSON_H
#define VCP_MODELJSON_H

#include <json-c/json.h>

#include "model.h"

/*
 * Golden case / fixture: {"host": {...}, "vms": [...], "policy": {...}}.
 * These take the "host" object and the "vms" array. 0, -EINVAL (with
 * *ret_err naming the key path, e.g. "vms[1].pins: ...") or -ENOMEM;
 * outputs untouched on failure. Free with vcp_host_free() and
 * vcp_vms_free().
 */
int vcp_model_host_from_json(struct json_object *o, struct vcp_host **ret,
			     char **ret_err);
int vcp_model_vms_from_json(struct json_object *o, struct vcp_vm **ret,
			    size_t *ret_n, char **ret_err);
/* The plan, stable and rounded to 3 decimals; NULL on -ENOMEM. */
struct json_object *vcp_plan_to_json(const struct vcp_plan *plan,
				     const struct vcp_host *host,
				     const struct vcp_vm *vms);

#endif
