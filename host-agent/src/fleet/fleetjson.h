/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fleetjson.h - a fleet as JSON (the fleet planner's golden cases,
 * benchmarks and `vcpack fleet plan --snapshot` files) and the fleet plan
 * to JSON. Formats are documented at the top of fleetjson.c. No I/O.
 */
#ifndef VCP_FLEETJSON_H
#define VCP_FLEETJSON_H

#include <json-c/json.h>

#include "fleetplan.h"

/* A whole fleet snapshot with the storage the vcp_fleet_host views
 * point into. */
struct vcp_fleet_input {
	struct vcp_fleet_host *hosts;
	size_t n_hosts;
	struct vcp_host **topo;		/* per host, NULL if unreachable */
	struct vcp_vm **vms;		/* per host */
	size_t *n_vms;
	char **names;
	char **groups;			/* CPU group names */
	size_t n_groups;
	bool *compat;			/* n_groups x n_groups */
	struct vcp_policy policy;
	struct vcp_fleet_opts opts;
};

/*
 * {"policy": {...}, "options": {...}, "hosts": [...]}. 0, -EINVAL with
 * *ret_err naming the key path ("hosts[3].vms[0].vcpus: ...") or -ENOMEM;
 * *ret untouched on failure.
 */
int vcp_fleet_input_from_json(struct json_object *o,
			      struct vcp_fleet_input **ret, char **ret_err);
void vcp_fleet_input_free(struct vcp_fleet_input *in);
/* Stable JSON of a plan over @hosts; NULL on -ENOMEM. */
struct json_object *vcp_fleet_plan_to_json(const struct vcp_fleet_plan *p,
					   const struct vcp_fleet_host *hosts);

#endif
