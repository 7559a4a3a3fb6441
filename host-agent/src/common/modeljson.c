// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modeljson.c - hosts and VMs from JSON, plans to JSON. Used by the
 * planner's golden tests, the benchmark and the CLI's --json output.
 * Input is validated key by key; errors name the key path. No I/O.
 *
 * Host, compact (CPU numbering as Linux enumerates x86: the first thread
 * of every core, package by package, then the second threads, ...;
 * packages are spread evenly over the nodes, which must divide them):
 *   {"packages": 2, "cores": 4, "threads": 2, "nodes": 2,
 *    "offline": "3,9", "mode": "pin"}
 *   threads, nodes default to 1, offline to "", mode to "pin".
 * Host, explicit:
 *   {"cpus": [{"id": 0, "package": 0, "core": 0, "node": 0, "die": 0},
 *    ...], "mode": "kernel"}          (node and die default to 0)
 * VMs: [{"name": "web", "vcpus": 2, "priority": "high", "class": "pack",
 *   "managed": true, "demand": [0.5, 0.1] or 0.3 (null or -1: unknown),
 *   "pins": ["0-3", "0-3"] or "0-3" for all, "emulator": "0-3",
 *   "mem_node": -1, "mem_mib": 2048, "uuid": "..."}]
 *   Only name and vcpus are required; no pins means unpinned (empty).
 *
 * Plan (stable: keys in this order, floats rounded to 3 decimals):
 *   {"mode": "pin" | "kernel" | "scx", "level": 0-2, "demand": CPUs,
 *    "capacity": usable CPUs, "overcommit": CPUs, "active": count,
 *    "packages": [{"id": package id, "active": bool, "demand": CPUs,
 *                  "capacity": usable CPUs}],
 *    "vms": [{"name", "class": "spread" | "balanced" | "pack",
 *             "placement": "gathered" | "exclusive" | "free" | "unmanaged",
 *             "package": package id or -1, "demand": CPUs,
 *             "vcpus": [cpulist per vCPU], "emulator": cpulist,
 *             "mem_node": node or -1, "degraded": reason or null}]}
 */
#include "modeljson.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "jsonfile.h"

#include "policy.h"

#define MAX_VCPUS 4096

__attribute__((format(printf, 3, 4)))
static int fail(char **ret_err, const char *path, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vcp_verr_at(ret_err, -EINVAL, path, fmt, ap);
	va_end(ap);
	return r;
}

static int get_int(char **err, const char *path, struct json_object *v,
		   int min, int max, int *ret)
{
	int64_t n;

	if (vcp_json_int_in(v, min, max, &n)) {
		*ret = (int)n;
		return 0;
	}
	return fail(err, path, "must be a whole number from %d to %d, got %s",
		    min, max, vcp_json_shown(v));
}

static int get_mode(char **err, struct json_object *v, enum vcp_mode *ret)
{
	const char *s = json_object_get_string(v);

	if (json_object_is_type(v, json_type_string) && !strcmp(s, "pin")) {
		*ret = VCP_MODE_PIN;
		return 0;
	}
	if (json_object_is_type(v, json_type_string) && !strcmp(s, "kernel")) {
		*ret = VCP_MODE_KERNEL;
		return 0;
	}
	if (json_object_is_type(v, json_type_string) && !strcmp(s, "scx")) {
		*ret = VCP_MODE_SCX;
		return 0;
	}
	return fail(err, "host.mode", "must be \"pin\", \"kernel\" or \"scx\", got %s",
		    vcp_json_shown(v));
}

static int get_cpulist(char **err, const char *path, struct json_object *v,
		       struct vcp_cpuset *ret)
{
	if (!json_object_is_type(v, json_type_string) ||
	    vcp_cpuset_parse(json_object_get_string(v), ret) < 0)
		return fail(err, path, "must be a CPU list such as \"0-3,8\", got %s",
			    vcp_json_shown(v));
	return 0;
}

/* ---- hosts ---- */

struct compact {
	int packages, cores, threads, nodes;
	struct vcp_cpuset offline;
};

static int compact_cpus(const struct compact *k, struct vcp_host *h)
{
	int per_node = k->packages / k->nodes;
	size_t n = 0;

	h->cpus = calloc((size_t)(k->packages * k->cores * k->threads),
			 sizeof(*h->cpus));
	if (!h->cpus)
		return -ENOMEM;
	for (int t = 0; t < k->threads; t++)
		for (int p = 0; p < k->packages; p++)
			for (int c = 0; c < k->cores; c++) {
				unsigned int id = (unsigned int)
					((t * k->packages + p) * k->cores + c);

				if (vcp_cpuset_test(&k->offline, id))
					continue;
				h->cpus[n].id = id;
				h->cpus[n].package = p;
				h->cpus[n].core = c;
				h->cpus[n].node = p / per_node;
				n++;
			}
	h->n_cpus = n;
	return 0;
}

static int host_compact(struct json_object *o, struct vcp_host *h,
			char **err)
{
	struct compact k = { 0, 0, 1, 1, { 0 } };
	int r = 0;

	json_object_object_foreach(o, key, v) {
		char path[64];

		snprintf(path, sizeof(path), "host.%s", key);
		if (!strcmp(key, "packages"))
			r = get_int(err, path, v, 1, 256, &k.packages);
		else if (!strcmp(key, "cores"))
			r = get_int(err, path, v, 1, VCP_MAX_CPUS, &k.cores);
		else if (!strcmp(key, "threads"))
			r = get_int(err, path, v, 1, 8, &k.threads);
		else if (!strcmp(key, "nodes"))
			r = get_int(err, path, v, 1, 256, &k.nodes);
		else if (!strcmp(key, "offline"))
			r = get_cpulist(err, path, v, &k.offline);
		else if (!strcmp(key, "mode"))
			r = get_mode(err, v, &h->mode);
		else
			r = fail(err, path, "unknown key");
		if (r < 0)
			return r;
	}
	if (!k.packages || !k.cores)
		return fail(err, "host", "needs \"packages\" and \"cores\" (or \"cpus\")");
	if (k.packages * k.cores * k.threads > VCP_MAX_CPUS)
		return fail(err, "host", "more than %d CPUs", VCP_MAX_CPUS);
	if (k.nodes > k.packages || k.packages % k.nodes)
		return fail(err, "host.nodes", "must divide the number of packages (%d), got %d",
			    k.packages, k.nodes);
	return compact_cpus(&k, h);
}

static int one_cpu(struct json_object *o, size_t i, struct vcp_cpu *c,
		   char **err)
{
	bool has_id = false, has_pkg = false, has_core = false;
	char path[64];
	int id = 0, r = 0;

	snprintf(path, sizeof(path), "host.cpus[%zu]", i);
	if (!json_object_is_type(o, json_type_object))
		return fail(err, path, "must be an object, got %s", vcp_json_shown(o));
	json_object_object_foreach(o, key, v) {
		snprintf(path, sizeof(path), "host.cpus[%zu].%s", i, key);
		if (!strcmp(key, "id")) {
			r = get_int(err, path, v, 0, VCP_MAX_CPUS - 1, &id);
			has_id = true;
		} else if (!strcmp(key, "package")) {
			r = get_int(err, path, v, 0, 65535, &c->package);
			has_pkg = true;
		} else if (!strcmp(key, "core")) {
			r = get_int(err, path, v, 0, 65535, &c->core);
			has_core = true;
		} else if (!strcmp(key, "die")) {
			r = get_int(err, path, v, 0, 255, &c->die);
		} else if (!strcmp(key, "node")) {
			r = get_int(err, path, v, 0, 255, &c->node);
		} else {
			r = fail(err, path, "unknown key");
		}
		if (r < 0)
			return r;
	}
	snprintf(path, sizeof(path), "host.cpus[%zu]", i);
	if (!has_id || !has_pkg || !has_core)
		return fail(err, path, "needs \"id\", \"package\" and \"core\"");
	c->id = (unsigned int)id;
	return 0;
}

static int host_explicit(struct json_object *o, struct vcp_host *h,
			 char **err)
{
	struct json_object *cpus = json_object_object_get(o, "cpus");
	size_t n;
	int r;

	json_object_object_foreach(o, key, v) {
		char path[64];

		snprintf(path, sizeof(path), "host.%s", key);
		if (!strcmp(key, "mode")) {
			r = get_mode(err, v, &h->mode);
			if (r < 0)
				return r;
		} else if (strcmp(key, "cpus")) {
			return fail(err, path, "unknown key (with \"cpus\" only \"mode\" may follow)");
		}
	}
	if (!json_object_is_type(cpus, json_type_array) ||
	    !(n = json_object_array_length(cpus)))
		return fail(err, "host.cpus", "must be a non-empty array");
	if (n > VCP_MAX_CPUS)
		return fail(err, "host.cpus", "more than %d CPUs", VCP_MAX_CPUS);
	h->cpus = calloc(n, sizeof(*h->cpus));
	if (!h->cpus)
		return -ENOMEM;
	h->n_cpus = n;
	for (size_t i = 0; i < n; i++) {
		r = one_cpu(json_object_array_get_idx(cpus, i), i, &h->cpus[i],
			    err);
		if (r < 0)
			return r;
	}
	return 0;
}

int vcp_model_host_from_json(struct json_object *o, struct vcp_host **ret,
			     char **ret_err)
{
	struct vcp_host *h;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return fail(ret_err, "host", "must be an object, got %s",
			    vcp_json_shown(o));
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	if (json_object_object_get_ex(o, "cpus", NULL))
		r = host_explicit(o, h, ret_err);
	else
		r = host_compact(o, h, ret_err);
	if (r == 0 && !h->n_cpus)
		r = fail(ret_err, "host", "has no online CPU");
	if (r == 0) {
		r = vcp_host_finish(h);
		if (r == -EINVAL)
			r = fail(ret_err, "host.cpus", "duplicate CPU id");
	}
	if (r < 0) {
		vcp_host_free(h);
		return r;
	}
	*ret = h;
	return 0;
}

/* ---- VMs ---- */

static int vm_demand(char **err, const char *vp, struct json_object *v,
		     struct vcp_vm *vm)
{
	bool arr = json_object_is_type(v, json_type_array);
	char path[128];

	if (arr && json_object_array_length(v) != vm->n_vcpus)
		return fail(err, vp, "demand: needs %u entries, got %zu",
			    vm->n_vcpus, json_object_array_length(v));
	for (unsigned int i = 0; i < vm->n_vcpus; i++) {
		struct json_object *d = arr ? json_object_array_get_idx(v, i) : v;
		double x;

		if (arr)
			snprintf(path, sizeof(path), "%s.demand[%u]", vp, i);
		else
			snprintf(path, sizeof(path), "%s.demand", vp);
		if (!d) {
			vm->demand[i] = -1;
			continue;
		}
		x = json_object_get_double(d);
		if ((!json_object_is_type(d, json_type_int) &&
		     !json_object_is_type(d, json_type_double)) ||
		    (x != -1 && (x < 0 || x > 1)))
			return fail(err, path, "must be a number from 0 to 1 (or -1 or null: unknown), got %s",
				    vcp_json_shown(d));
		vm->demand[i] = x;
	}
	return 0;
}

static int vm_pins(char **err, const char *vp, struct json_object *v,
		   struct vcp_vm *vm)
{
	bool arr = json_object_is_type(v, json_type_array);
	char path[128];
	int r;

	if (arr && json_object_array_length(v) != vm->n_vcpus)
		return fail(err, vp, "pins: needs %u entries, got %zu",
			    vm->n_vcpus, json_object_array_length(v));
	for (unsigned int i = 0; i < vm->n_vcpus; i++) {
		if (arr)
			snprintf(path, sizeof(path), "%s.pins[%u]", vp, i);
		else
			snprintf(path, sizeof(path), "%s.pins", vp);
		r = get_cpulist(err, path, arr ? json_object_array_get_idx(v, i) :
				v, &vm->vcpu_pins[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

static int vm_tag(char **err, const char *path, const char *key,
		  struct json_object *v, struct vcp_vm *vm)
{
	const char *s = json_object_get_string(v);

	vm->has_tag = true;
	if (!strcmp(key, "class")) {
		vm->tag.has_class = true;
		if (json_object_is_type(v, json_type_string) &&
		    vcp_class_from_name(s, &vm->tag.class) == 0)
			return 0;
		return fail(err, path, "must be \"spread\", \"balanced\" or \"pack\", got %s",
			    vcp_json_shown(v));
	}
	vm->tag.has_priority = true;
	if (json_object_is_type(v, json_type_string) &&
	    vcp_priority_from_name(s, &vm->tag.priority) == 0)
		return 0;
	return fail(err, path, "must be \"high\", \"normal\" or \"low\", got %s",
		    vcp_json_shown(v));
}

static int vm_bool(char **err, const char *path, struct json_object *v,
		   bool *ret)
{
	if (!json_object_is_type(v, json_type_boolean))
		return fail(err, path, "must be true or false, got %s",
			    vcp_json_shown(v));
	*ret = json_object_get_boolean(v);
	return 0;
}

static int vm_mem(char **err, const char *path, struct json_object *v,
		  struct vcp_vm *vm)
{
	int mib = 0;
	int r = get_int(err, path, v, 0, 1 << 24, &mib);

	if (r == 0)
		vm->mem_kib = (unsigned long long)mib * 1024;
	return r;
}

/* Second pass: keys that need n_vcpus. */
static int vm_key(char **err, const char *vp, const char *key,
		  struct json_object *v, struct vcp_vm *vm)
{
	char path[128];

	snprintf(path, sizeof(path), "%s.%s", vp, key);
	if (!strcmp(key, "name") || !strcmp(key, "vcpus"))
		return 0;
	if (!strcmp(key, "class") || !strcmp(key, "priority"))
		return vm_tag(err, path, key, v, vm);
	if (!strcmp(key, "managed"))
		return vm_bool(err, path, v, &vm->managed);
	if (!strcmp(key, "running"))
		return vm_bool(err, path, v, &vm->running);
	if (!strcmp(key, "demand"))
		return vm_demand(err, vp, v, vm);
	if (!strcmp(key, "pins"))
		return vm_pins(err, vp, v, vm);
	if (!strcmp(key, "emulator"))
		return get_cpulist(err, path, v, &vm->emulator_pins);
	if (!strcmp(key, "mem_node"))
		return get_int(err, path, v, -1, 255, &vm->mem_node);
	if (!strcmp(key, "mem_mib"))
		return vm_mem(err, path, v, vm);
	if (!strcmp(key, "uuid")) {
		if (!json_object_is_type(v, json_type_string) ||
		    strlen(json_object_get_string(v)) != 36)
			return fail(err, path, "must be a UUID string, got %s",
				    vcp_json_shown(v));
		memcpy(vm->uuid, json_object_get_string(v), 37);
		return 0;
	}
	return fail(err, path, "unknown key");
}

static int one_vm(struct json_object *o, size_t i, struct vcp_vm *vm,
		  char **err)
{
	struct json_object *name, *vcpus;
	char vp[64], path[80];
	int n = 0, r;

	snprintf(vp, sizeof(vp), "vms[%zu]", i);
	if (!json_object_is_type(o, json_type_object))
		return fail(err, vp, "must be an object, got %s", vcp_json_shown(o));
	name = json_object_object_get(o, "name");
	vcpus = json_object_object_get(o, "vcpus");
	if (!json_object_is_type(name, json_type_string) ||
	    !*json_object_get_string(name))
		return fail(err, vp, "needs a \"name\" string");
	snprintf(path, sizeof(path), "%s.vcpus", vp);
	r = get_int(err, path, vcpus, 1, MAX_VCPUS, &n);
	if (r < 0)
		return r;
	vm->name = strdup(json_object_get_string(name));
	if (!vm->name || vcp_vm_alloc_vcpus(vm, (unsigned int)n) < 0)
		return -ENOMEM;
	vm->managed = true;
	vm->running = true;
	vm->mem_node = -1;
	json_object_object_foreach(o, key, v) {
		r = vm_key(err, vp, key, v, vm);
		if (r < 0)
			return r;
	}
	return 0;
}

int vcp_model_vms_from_json(struct json_object *o, struct vcp_vm **ret,
			    size_t *ret_n, char **ret_err)
{
	struct vcp_vm *vms;
	size_t n;
	int r = 0;

	if (!json_object_is_type(o, json_type_array))
		return fail(ret_err, "vms", "must be an array, got %s",
			    vcp_json_shown(o));
	n = json_object_array_length(o);
	vms = calloc(n ? n : 1, sizeof(*vms));
	if (!vms)
		return -ENOMEM;
	for (size_t i = 0; i < n && r == 0; i++)
		r = one_vm(json_object_array_get_idx(o, i), i, &vms[i],
			   ret_err);
	if (r < 0) {
		vcp_vms_free(vms, n);
		return r;
	}
	*ret = vms;
	*ret_n = n;
	return 0;
}

/* ---- plans ---- */

static const char *const placement_names[] = {
	[VCP_PLACE_GATHERED] = "gathered",
	[VCP_PLACE_EXCLUSIVE] = "exclusive",
	[VCP_PLACE_FREE] = "free",
	[VCP_PLACE_UNMANAGED] = "unmanaged",
};

static struct json_object *cpulist_json(const struct vcp_cpuset *s)
{
	char *text = vcp_cpuset_format_alloc(s);
	struct json_object *o = text ? json_object_new_string(text) : NULL;

	free(text);
	return o;
}

static struct json_object *pkg_json(const struct vcp_plan *plan,
				    const struct vcp_host *host, size_t p)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "id",
			       json_object_new_int(host->packages[p].id));
	json_object_object_add(o, "active",
			       json_object_new_boolean(plan->pkg_active[p]));
	json_object_object_add(o, "demand",
			       vcp_json_double3(plan->pkg_demand[p]));
	json_object_object_add(o, "capacity",
			       vcp_json_double3(plan->pkg_capacity[p]));
	if (vcp_cpuset_intersects(&plan->reserved, &host->packages[p].cpus)) {
		struct vcp_cpuset r = plan->reserved;

		vcp_cpuset_and(&r, &host->packages[p].cpus);
		json_object_object_add(o, "reserved", cpulist_json(&r));
	}
	return o;
}

static struct json_object *vm_plan_json(const struct vcp_vm_plan *v,
					const struct vcp_host *host)
{
	struct json_object *o = json_object_new_object();
	struct json_object *pins = json_object_new_array();

	for (unsigned int i = 0; i < v->n_vcpus; i++)
		json_object_array_add(pins, cpulist_json(&v->vcpu_pins[i]));
	json_object_object_add(o, "name", json_object_new_string(
		v->name ? v->name : ""));
	json_object_object_add(o, "class", json_object_new_string(
		vcp_class_name(v->class)));
	json_object_object_add(o, "placement", json_object_new_string(
		placement_names[v->placement]));
	json_object_object_add(o, "package", json_object_new_int(
		v->package >= 0 ? host->packages[v->package].id : -1));
	json_object_object_add(o, "demand", vcp_json_double3(v->demand));
	json_object_object_add(o, "vcpus", pins);
	json_object_object_add(o, "emulator", cpulist_json(&v->emulator_pins));
	json_object_object_add(o, "mem_node", json_object_new_int(v->mem_node));
	json_object_object_add(o, "degraded", v->degraded ?
			       json_object_new_string(v->degraded) : NULL);
	return o;
}

struct json_object *vcp_plan_to_json(const struct vcp_plan *plan,
				     const struct vcp_host *host,
				     const struct vcp_vm *vms)
{
	struct json_object *o = json_object_new_object();
	struct json_object *pkgs = json_object_new_array();
	struct json_object *arr = json_object_new_array();

	if (!o || !pkgs || !arr) {
		json_object_put(o);
		json_object_put(pkgs);
		json_object_put(arr);
		return NULL;
	}
	for (size_t p = 0; p < plan->n_packages; p++)
		json_object_array_add(pkgs, pkg_json(plan, host, p));
	for (size_t i = 0; i < plan->n_vms; i++)
		json_object_array_add(arr, vm_plan_json(&plan->vms[i], host));
	json_object_object_add(o, "mode", json_object_new_string(
		vcp_mode_name(plan->mode)));
	json_object_object_add(o, "level", json_object_new_int(plan->level));
	json_object_object_add(o, "demand", vcp_json_double3(plan->demand));
	json_object_object_add(o, "capacity", vcp_json_double3(plan->capacity));
	json_object_object_add(o, "overcommit",
			       vcp_json_double3(plan->overcommit));
	json_object_object_add(o, "active",
			       json_object_new_int((int)plan->n_active));
	if (!vcp_cpuset_empty(&plan->reserved)) {
		json_object_object_add(o, "reserved_cpus",
				       cpulist_json(&plan->reserved));
		json_object_object_add(o, "reserved_packages", json_object_new_int(
				       (int)plan->n_reserved_pkgs));
	}
	json_object_object_add(o, "packages", pkgs);
	json_object_object_add(o, "vms", arr);
	return o;
}
