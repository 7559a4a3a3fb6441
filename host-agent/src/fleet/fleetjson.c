// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleetjson.c - fleet snapshots from JSON and fleet plans to JSON. Input
 * is validated key by key and errors name the key path. No I/O.
 *
 * Snapshot:
 *   {"policy": {policy.json keys},                      (optional)
 *    "options": {"move_spread": false, "mem_reserve": 0.1,
 *                "cpu_compat": {"Skylake": ["Icelake"]}},  (optional)
 *    "hosts": [{"name": "h1", "reachable": true, "accepts": true,
 *               "cpu": "Icelake", "mem_mib": 65536,
 *               "host": {modeljson host}, "vms": [modeljson VMs]}]}
 *   cpu_compat: guests of a host with the key's CPU can also run on
 *   hosts with the listed CPUs (the same CPU always can). reachable and
 *   accepts default to true; an unreachable host needs only its name.
 *   A reachable host without "cpu" has an unknown CPU group.
 * Plan (stable, floats to 3 decimals):
 *   {"hosts_emptied", "hosts_idle", "hosts_unreachable", "packages",
 *    "awake_before", "awake_after",
 *    "hosts": [{"name", "emptied", "packages", "awake_before",
 *               "awake_after", "demand_before", "demand_after",
 *               "capacity", "mem_before_mib", "mem_after_mib",
 *               "kept": reason or null}],
 *    "moves": [{"vm", "from", "to", "demand"}]}
 */
#include "fleetjson.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonfile.h"

#include "errmsg.h"
#include "fleetcfg.h"
#include "modeljson.h"
#include "policy.h"

#define MAX_GROUPS 256

void vcp_fleet_input_free(struct vcp_fleet_input *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->n_hosts; i++) {
		vcp_host_free(in->topo[i]);
		vcp_vms_free(in->vms[i], in->n_vms[i]);
		free(in->names[i]);
	}
	for (size_t g = 0; g < in->n_groups; g++)
		free(in->groups[g]);
	free(in->groups);
	free(in->compat);
	free(in->hosts);
	free(in->topo);
	free(in->vms);
	free(in->n_vms);
	free(in->names);
	vcp_policy_clear(&in->policy);
	free(in);
}

/* Index of CPU group @name, added if new; -ENOMEM, -E2BIG. */
static int group_of(struct vcp_fleet_input *in, const char *name)
{
	char **g;

	for (size_t i = 0; i < in->n_groups; i++)
		if (!strcmp(in->groups[i], name))
			return (int)i;
	if (in->n_groups == MAX_GROUPS)
		return -E2BIG;
	g = realloc(in->groups, (in->n_groups + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	in->groups = g;
	g[in->n_groups] = strdup(name);
	if (!g[in->n_groups])
		return -ENOMEM;
	return (int)in->n_groups++;
}

static int get_bool(struct json_object *v, const char *path, bool *ret,
		    char **err)
{
	if (!json_object_is_type(v, json_type_boolean))
		return vcp_err(err, -EINVAL, "%s: must be true or false, got %s",
			       path, vcp_json_shown(v));
	*ret = json_object_get_boolean(v);
	return 0;
}

static int host_cpu(struct vcp_fleet_input *in, size_t i,
		    struct json_object *v, const char *path, char **err)
{
	int g;

	if (!json_object_is_type(v, json_type_string) ||
	    !*json_object_get_string(v))
		return vcp_err(err, -EINVAL, "%s: must be a CPU name, got %s",
			       path, vcp_json_shown(v));
	g = group_of(in, json_object_get_string(v));
	if (g == -E2BIG)
		return vcp_err(err, -EINVAL, "%s: more than %d CPU groups",
			       path, MAX_GROUPS);
	if (g < 0)
		return g;
	in->hosts[i].cpu_group = g;
	return 0;
}

static int host_mem(struct vcp_fleet_host *h, struct json_object *v,
		    const char *path, char **err)
{
	int64_t mib = json_object_get_int64(v);

	if (!json_object_is_type(v, json_type_int) || mib < 1 ||
	    mib > (1LL << 32))
		return vcp_err(err, -EINVAL,
			       "%s: must be MiB from 1 to 4294967296, got %s",
			       path, vcp_json_shown(v));
	h->mem_kib = (unsigned long long)mib * 1024;
	return 0;
}

/* Re-issue a modeljson error under the host's path. */
static int nested(int r, const char *hp, char *sub, char **err)
{
	if (r == -EINVAL)
		r = vcp_err(err, r, "%s.%s", hp, sub ? sub : "invalid");
	free(sub);
	return r;
}

static int host_key(struct vcp_fleet_input *in, size_t i, const char *hp,
		    const char *key, struct json_object *v, char **err)
{
	struct vcp_fleet_host *h = &in->hosts[i];
	char path[160], *sub = NULL;
	int r;

	snprintf(path, sizeof(path), "%s.%s", hp, key);
	if (!strcmp(key, "name"))
		return 0;
	if (!strcmp(key, "reachable"))
		return get_bool(v, path, &h->reachable, err);
	if (!strcmp(key, "accepts"))
		return get_bool(v, path, &h->accepts, err);
	if (!strcmp(key, "cpu"))
		return host_cpu(in, i, v, path, err);
	if (!strcmp(key, "mem_mib"))
		return host_mem(h, v, path, err);
	if (!strcmp(key, "host")) {
		r = vcp_model_host_from_json(v, &in->topo[i], &sub);
		return nested(r, hp, sub, err);
	}
	if (!strcmp(key, "vms")) {
		r = vcp_model_vms_from_json(v, &in->vms[i], &in->n_vms[i],
					    &sub);
		return nested(r, hp, sub, err);
	}
	return vcp_err(err, -EINVAL, "%s: unknown key", path);
}

static int one_host(struct vcp_fleet_input *in, size_t i,
		    struct json_object *o, char **err)
{
	struct vcp_fleet_host *h = &in->hosts[i];
	struct json_object *name = json_object_object_get(o, "name");
	char hp[48];
	int r;

	snprintf(hp, sizeof(hp), "hosts[%zu]", i);
	if (!json_object_is_type(o, json_type_object))
		return vcp_err(err, -EINVAL, "%s: must be an object, got %s",
			       hp, vcp_json_shown(o));
	if (!json_object_is_type(name, json_type_string) ||
	    !*json_object_get_string(name))
		return vcp_err(err, -EINVAL, "%s: needs a \"name\" string", hp);
	in->names[i] = strdup(json_object_get_string(name));
	if (!in->names[i])
		return -ENOMEM;
	h->name = in->names[i];
	h->reachable = h->accepts = true;
	h->cpu_group = -1;
	json_object_object_foreach(o, key, v) {
		r = host_key(in, i, hp, key, v, err);
		if (r < 0)
			return r;
	}
	if (h->reachable && !in->topo[i])
		return vcp_err(err, -EINVAL, "%s: a reachable host needs \"host\"",
			       hp);
	h->host = in->topo[i];
	h->vms = in->vms[i];
	h->n_vms = in->n_vms[i];
	return 0;
}

static int alloc_hosts(struct vcp_fleet_input *in, size_t n)
{
	size_t m = n ? n : 1;

	in->n_hosts = n;
	in->hosts = calloc(m, sizeof(*in->hosts));
	in->topo = calloc(m, sizeof(*in->topo));
	in->vms = calloc(m, sizeof(*in->vms));
	in->n_vms = calloc(m, sizeof(*in->n_vms));
	in->names = calloc(m, sizeof(*in->names));
	if (!in->hosts || !in->topo || !in->vms || !in->n_vms || !in->names)
		return -ENOMEM;
	return 0;
}

static int parse_hosts(struct vcp_fleet_input *in, struct json_object *a,
		       char **err)
{
	size_t j, k;
	int r;

	if (!json_object_is_type(a, json_type_array))
		return vcp_err(err, -EINVAL, "hosts: must be an array, got %s",
			       vcp_json_shown(a));
	r = alloc_hosts(in, json_object_array_length(a));
	for (size_t i = 0; i < in->n_hosts && r == 0; i++)
		r = one_host(in, i, json_object_array_get_idx(a, i), err);
	if (r == 0)
		r = vcp_first_duplicate(in->names, in->n_hosts, &j, &k);
	if (r == 1)
		r = vcp_err(err, -EINVAL,
			    "hosts[%zu].name: '%s' is also hosts[%zu]", k,
			    in->names[k], j);
	return r;
}

/* "cpu_compat": {"A": ["B", ...]} after the hosts named their groups. */
static int parse_compat(struct vcp_fleet_input *in, struct json_object *v,
			char **err)
{
	struct { int from, to; } *pairs = NULL;
	size_t np = 0;
	int r = 0;

	if (!json_object_is_type(v, json_type_object))
		return vcp_err(err, -EINVAL,
			       "options.cpu_compat: must be an object, got %s",
			       vcp_json_shown(v));
	json_object_object_foreach(v, key, list) {
		size_t n;

		if (!json_object_is_type(list, json_type_array)) {
			free(pairs);
			return vcp_err(err, -EINVAL,
				       "options.cpu_compat.%s: must be an array of CPU names",
				       key);
		}
		n = json_object_array_length(list);
		for (size_t k = 0; k < n && r == 0; k++) {
			struct json_object *e = json_object_array_get_idx(list, k);
			void *p = realloc(pairs, (np + 1) * sizeof(*pairs));

			if (!p) {
				r = -ENOMEM;
				break;
			}
			pairs = p;
			if (!json_object_is_type(e, json_type_string)) {
				r = vcp_err(err, -EINVAL,
					    "options.cpu_compat.%s[%zu]: must be a CPU name, got %s",
					    key, k, vcp_json_shown(e));
				break;
			}
			pairs[np].from = group_of(in, key);
			pairs[np].to = group_of(in, json_object_get_string(e));
			if (pairs[np].from < 0 || pairs[np].to < 0)
				r = vcp_err(err, -EINVAL,
					    "options.cpu_compat: more than %d CPU groups",
					    MAX_GROUPS);
			np++;
		}
		if (r < 0)
			break;
	}
	if (r == 0 && in->n_groups) {
		in->compat = calloc(in->n_groups * in->n_groups, sizeof(bool));
		if (!in->compat)
			r = -ENOMEM;
	}
	for (size_t k = 0; r == 0 && k < np; k++)
		in->compat[(size_t)pairs[k].from * in->n_groups +
			   (size_t)pairs[k].to] = true;
	free(pairs);
	return r;
}

static int parse_options(struct vcp_fleet_input *in, struct json_object *o,
			 char **err)
{
	if (!json_object_is_type(o, json_type_object))
		return vcp_err(err, -EINVAL, "options: must be an object, got %s",
			       vcp_json_shown(o));
	json_object_object_foreach(o, key, v) {
		double d = json_object_get_double(v);
		int r = 0;

		if (!strcmp(key, "move_spread")) {
			r = get_bool(v, "options.move_spread",
				     &in->opts.move_spread, err);
		} else if (!strcmp(key, "mem_reserve")) {
			if ((!json_object_is_type(v, json_type_double) &&
			     !json_object_is_type(v, json_type_int)) ||
			    d < 0 || d > 0.9)
				return vcp_err(err, -EINVAL,
					       "options.mem_reserve: must be a number from 0 to 0.9, got %s",
					       vcp_json_shown(v));
			in->opts.mem_reserve = d;
		} else if (!strcmp(key, "cpu_compat")) {
			r = parse_compat(in, v, err);
		} else {
			r = vcp_err(err, -EINVAL, "options.%s: unknown key",
				    key);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_top(struct vcp_fleet_input *in, struct json_object *o,
		     char **err)
{
	struct json_object *v;
	int r;

	json_object_object_foreach(o, key, val) {
		if (strcmp(key, "policy") && strcmp(key, "options") &&
		    strcmp(key, "hosts") && strcmp(key, "_comment"))
			return vcp_err(err, -EINVAL, "%s: unknown key", key);
		(void)val;
	}
	if (json_object_object_get_ex(o, "policy", &v)) {
		vcp_policy_clear(&in->policy);
		r = vcp_policy_from_json(v, "policy", &in->policy, err);
		if (r < 0) {
			vcp_policy_defaults(&in->policy);
			return r;
		}
	}
	r = parse_hosts(in, json_object_object_get(o, "hosts"), err);
	if (r == 0 && json_object_object_get_ex(o, "options", &v))
		r = parse_options(in, v, err);
	in->opts.n_groups = in->n_groups;
	in->opts.compat = in->compat;
	return r;
}

int vcp_fleet_input_from_json(struct json_object *o,
			      struct vcp_fleet_input **ret, char **ret_err)
{
	struct vcp_fleet_input *in;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return vcp_err(ret_err, -EINVAL,
			       "fleet: must be a JSON object, got %s", vcp_json_shown(o));
	in = calloc(1, sizeof(*in));
	if (!in)
		return -ENOMEM;
	vcp_policy_defaults(&in->policy);
	in->opts.mem_reserve = 0.1;
	r = parse_top(in, o, ret_err);
	if (r < 0) {
		vcp_fleet_input_free(in);
		return r;
	}
	*ret = in;
	return 0;
}

static void add_int(struct json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static struct json_object *host_json(const struct vcp_fleet_host_plan *hp,
				     const char *name)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "emptied",
			       json_object_new_boolean(hp->emptied));
	add_int(o, "packages", (int64_t)hp->n_packages);
	add_int(o, "awake_before", (int64_t)hp->awake_before);
	add_int(o, "awake_after", (int64_t)hp->awake_after);
	json_object_object_add(o, "demand_before",
			       vcp_json_double3(hp->demand_before));
	json_object_object_add(o, "demand_after",
			       vcp_json_double3(hp->demand_after));
	json_object_object_add(o, "capacity", vcp_json_double3(hp->capacity));
	add_int(o, "mem_before_mib", (int64_t)(hp->mem_before / 1024));
	add_int(o, "mem_after_mib", (int64_t)(hp->mem_after / 1024));
	json_object_object_add(o, "kept", hp->kept ?
			       json_object_new_string(hp->kept) : NULL);
	return o;
}

static struct json_object *move_json(const struct vcp_fleet_move *m,
				     const struct vcp_fleet_host *hosts)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "vm", json_object_new_string(
			       hosts[m->from].vms[m->vm].name));
	json_object_object_add(o, "from",
			       json_object_new_string(hosts[m->from].name));
	json_object_object_add(o, "to",
			       json_object_new_string(hosts[m->to].name));
	json_object_object_add(o, "demand", vcp_json_double3(m->demand));
	return o;
}

struct json_object *vcp_fleet_plan_to_json(const struct vcp_fleet_plan *p,
					   const struct vcp_fleet_host *hosts)
{
	struct json_object *o = json_object_new_object();
	struct json_object *hs = json_object_new_array();
	struct json_object *ms = json_object_new_array();

	add_int(o, "hosts_emptied", (int64_t)p->hosts_emptied);
	add_int(o, "hosts_idle", (int64_t)p->hosts_idle);
	add_int(o, "hosts_unreachable", (int64_t)p->hosts_unreachable);
	add_int(o, "packages", (int64_t)p->packages);
	add_int(o, "awake_before", (int64_t)p->awake_before);
	add_int(o, "awake_after", (int64_t)p->awake_after);
	for (size_t i = 0; i < p->n_hosts; i++)
		json_object_array_add(hs, host_json(&p->hosts[i],
						    hosts[i].name));
	for (size_t k = 0; k < p->n_moves; k++)
		json_object_array_add(ms, move_json(&p->moves[k], hosts));
	json_object_object_add(o, "hosts", hs);
	json_object_object_add(o, "moves", ms);
	return o;
}
