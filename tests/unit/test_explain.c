// SPDX-License-Identifier: GPL-2.0-or-later
/* test_explain.c - `vcpack explain`'s story of one VM, built from a world
 * and its plan: the class and why (tag class, tag priority through the
 * policy's map, the default, unmanaged with its issue), the demand
 * (measured or assumed, the delay), placement and why, and what would
 * move it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "explain.h"
#include "modeljson.h"
#include "planner.h"
#include "policy.h"

/* 2 packages x 4 cores x 2 threads; demand 0.2 unless said. */
static const char *const world_json =
	"{\"host\": {\"packages\": 2, \"cores\": 4, \"threads\": 2},"
	" \"vms\": ["
	"  {\"name\": \"lat\", \"vcpus\": 2, \"class\": \"spread\","
	"   \"demand\": 0.9},"
	"  {\"name\": \"batch\", \"vcpus\": 2, \"priority\": \"low\","
	"   \"demand\": [0.2, -1], \"pins\": \"0-3\"},"
	"  {\"name\": \"web\", \"vcpus\": 1},"
	"  {\"name\": \"odd\", \"vcpus\": 1, \"managed\": false,"
	"   \"pins\": \"5\"}"
	" ]}";

struct fx {
	struct vcp_world w;
	struct vcp_policy pol;
	struct vcp_plan *plan;
};

static void load_json(struct fx *f, const char *json, int level)
{
	struct json_object *o = json_tokener_parse(json);
	char *err = NULL;

	assert_non_null(o);
	memset(f, 0, sizeof(*f));
	assert_int_equal(
		vcp_model_host_from_json(json_object_object_get(o, "host"),
					 &f->w.host, &err),
		0);
	assert_int_equal(
		vcp_model_vms_from_json(json_object_object_get(o, "vms"),
					&f->w.vms, &f->w.n_vms, &err),
		0);
	json_object_put(o);
	f->w.issues = calloc(1, sizeof(*f->w.issues));
	f->w.issues[0].vm = strdup("odd");
	f->w.issues[0].msg = strdup("bad vcpack tag");
	f->w.n_issues = 1;
	f->w.vms[1].delay = 0.05;
	vcp_policy_defaults(&f->pol);
	f->pol.level = level;
	assert_int_equal(vcp_plan_compute(f->w.host, f->w.vms, f->w.n_vms,
					  &f->pol, &f->plan),
			 0);
}

static void load(struct fx *f, int level)
{
	load_json(f, world_json, level);
}

static void unload(struct fx *f)
{
	vcp_plan_free(f->plan);
	vcp_world_clear(&f->w);
	vcp_policy_clear(&f->pol);
}

static const char *s_of(struct json_object *o, const char *key)
{
	return json_object_get_string(json_object_object_get(o, key));
}

static struct json_object *explain(struct fx *f, const char *name)
{
	for (size_t i = 0; i < f->w.n_vms; i++)
		if (!strcmp(f->w.vms[i].name, name))
			return vcp_explain_json(&f->w, f->plan, &f->pol, i);
	fail_msg("no VM '%s'", name);
	return NULL;
}

static void test_spread(void **state)
{
	struct fx f;
	struct json_object *o;

	load(&f, 2);
	o = explain(&f, "lat");
	assert_string_equal(s_of(o, "class"), "spread");
	assert_string_equal(s_of(o, "class_reason"),
			    "its tag says class spread");
	assert_string_equal(s_of(o, "placement"), "exclusive");
	assert_non_null(strstr(s_of(o, "why_cpus"), "whole cores of its own"));
	assert_int_equal(
		json_object_get_int(json_object_object_get(o, "vcpus")), 2);
	assert_false(json_object_get_boolean(
		json_object_object_get(o, "demand_assumed")));
	assert_null(json_object_object_get(o, "delay"));
	assert_int_equal(json_object_array_length(
				 json_object_object_get(o, "would_move")),
			 2);
	json_object_put(o);
	unload(&f);
}

static void test_gathered_by_priority(void **state)
{
	struct fx f;
	struct json_object *o, *tag;

	load(&f, 2);
	o = explain(&f, "batch");
	tag = json_object_object_get(o, "tag");
	assert_string_equal(s_of(tag, "priority"), "low");
	assert_string_equal(s_of(o, "class"), "pack");
	assert_string_equal(
		s_of(o, "class_reason"),
		"its tag says priority low, which the policy's priority map makes pack");
	assert_string_equal(s_of(o, "placement"), "gathered");
	/* vCPU 1 unknown: assumed */
	assert_true(json_object_get_boolean(
		json_object_object_get(o, "demand_assumed")));
	assert_float_equal(
		json_object_get_double(json_object_object_get(o, "delay")),
		0.05, 1e-9);
	assert_string_equal(s_of(o, "pins_now"), "0-3");
	assert_non_null(
		strstr(s_of(o, "why_cpus"), "level 2 gathers pack VMs"));
	assert_non_null(json_object_object_get(o, "package"));
	assert_int_equal(json_object_array_length(
				 json_object_object_get(o, "would_move")),
			 3);
	json_object_put(o);
	/* no tag: balanced, the default */
	o = explain(&f, "web");
	assert_null(json_object_object_get(o, "tag"));
	assert_string_equal(s_of(o, "class_reason"),
			    "no vcpack tag: balanced, the default");
	json_object_put(o);
	unload(&f);
}

/* Where memory goes: nowhere on one node; with two nodes it follows a
 * gathered VM in strict mode, and says why not in preferred mode. */
static void test_memory(void **state)
{
	static const char *const two_nodes =
		"{\"host\": {\"packages\": 2, \"cores\": 4, \"nodes\": 2},"
		" \"vms\": [{\"name\": \"a\", \"vcpus\": 1, \"class\": \"pack\"},"
		"  {\"name\": \"b\", \"vcpus\": 1, \"class\": \"pack\"}]}";
	struct fx f;
	struct json_object *o;
	int node;

	load(&f, 2);
	o = explain(&f, "batch");
	assert_string_equal(s_of(o, "memory"), "stays");
	assert_string_equal(
		s_of(o, "memory_reason"),
		"this host has one NUMA node: memory has nowhere to go");
	assert_null(json_object_object_get(o, "memory_node"));
	json_object_put(o);
	unload(&f);

	load_json(&f, two_nodes, 2);
	node = f.plan->vms[0].mem_node;
	assert_true(node >= 0);
	f.w.vms[0].mem_mode = VCP_MEM_STRICT;
	assert_int_equal(
		vcp_cpuset_parse(node ? "0" : "1", &f.w.vms[0].mem_nodes), 0);
	f.w.vms[1].mem_mode = VCP_MEM_PREFERRED;
	o = explain(&f, "a");
	assert_string_equal(s_of(o, "memory"), "moves");
	assert_int_equal(
		json_object_get_int(json_object_object_get(o, "memory_node")),
		node);
	assert_string_equal(s_of(o, "memory_mode"), "strict");
	assert_string_equal(s_of(o, "memory_nodes_now"), node ? "0" : "1");
	assert_non_null(strstr(s_of(o, "memory_reason"), "follows its vCPUs"));
	json_object_put(o);
	o = explain(&f, "b");
	assert_string_equal(s_of(o, "memory"), "cannot");
	assert_non_null(strstr(s_of(o, "memory_reason"),
			       "its numatune mode is preferred"));
	json_object_put(o);
	/* the policy turns it off: the plan leaves memory, and says why */
	vcp_plan_free(f.plan);
	f.pol.memory_follows = false;
	assert_int_equal(vcp_plan_compute(f.w.host, f.w.vms, f.w.n_vms, &f.pol,
					  &f.plan),
			 0);
	assert_int_equal(f.plan->vms[0].mem_node, -1);
	o = explain(&f, "a");
	assert_string_equal(s_of(o, "memory"), "stays");
	assert_string_equal(
		s_of(o, "memory_reason"),
		"the policy's memory_follows is false: no VM's memory is moved");
	json_object_put(o);
	unload(&f);
}

static void test_free_and_unmanaged(void **state)
{
	struct fx f;
	struct json_object *o;

	/* level 0 is hands off: every managed VM left as it is */
	load(&f, 0);
	o = explain(&f, "batch");
	assert_true(
		json_object_get_boolean(json_object_object_get(o, "managed")));
	assert_string_equal(s_of(o, "placement"), "unmanaged");
	assert_non_null(strstr(s_of(o, "why_cpus"),
			       "level 0 is hands off (the level as configured): vcpack leaves it as it is"));
	assert_non_null(
		strstr(json_object_get_string(json_object_array_get_idx(
			       json_object_object_get(o, "would_move"), 0)),
		       "level 1 or 2"));
	json_object_put(o);
	o = explain(&f, "web");
	assert_string_equal(s_of(o, "placement"), "unmanaged");
	assert_non_null(
		strstr(json_object_get_string(json_object_array_get_idx(
			       json_object_object_get(o, "would_move"), 0)),
		       "'vcpack level 2'"));
	json_object_put(o);
	o = explain(&f, "odd");
	assert_false(
		json_object_get_boolean(json_object_object_get(o, "managed")));
	assert_string_equal(s_of(o, "class"), "untouched");
	assert_string_equal(s_of(o, "class_reason"),
			    "left exactly as it is: bad vcpack tag");
	assert_string_equal(s_of(o, "placement"), "unmanaged");
	assert_string_equal(s_of(o, "pins_now"), "5");
	json_object_put(o);
	unload(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_gathered_by_priority),
		cmocka_unit_test(test_free_and_unmanaged),
		cmocka_unit_test(test_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
