// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_modeljson.c - hosts and VMs from JSON (numbering, defaults, every
 * refusal names its key path) and the plan's JSON shape.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "modeljson.h"
#include "planner.h"
#include "policy.h"

static struct vcp_host *host_of(const char *text)
{
	struct json_object *o = json_tokener_parse(text);
	struct vcp_host *h = NULL;
	char *err = NULL;

	assert_non_null(o);
	if (vcp_model_host_from_json(o, &h, &err))
		fail_msg("%s: %s", text, err);
	json_object_put(o);
	return h;
}

static char *host_err(const char *text)
{
	struct json_object *o = json_tokener_parse(text);
	struct vcp_host *h = (struct vcp_host *)0x1;
	char *err = NULL;

	assert_non_null(o);
	assert_int_equal(vcp_model_host_from_json(o, &h, &err), -EINVAL);
	assert_ptr_equal(h, (struct vcp_host *)0x1);
	json_object_put(o);
	assert_non_null(err);
	return err;
}

static void fmt(const struct vcp_cpuset *s, char *buf)
{
	assert_int_equal(vcp_cpuset_format(s, buf, 256), 0);
}

static void test_compact_host(void **state)
{
	struct vcp_host *h = host_of("{\"packages\": 2, \"cores\": 4,"
		" \"threads\": 2, \"nodes\": 2, \"offline\": \"3,9\","
		" \"mode\": \"kernel\"}");
	char buf[256];

	assert_int_equal(h->n_cpus, 14);
	assert_int_equal(h->packages[0].n_cpus, 6);
	assert_int_equal(h->n_packages, 2);
	assert_int_equal(h->n_nodes, 2);
	assert_int_equal(h->threads_per_core, 2);
	assert_int_equal(h->mode, VCP_MODE_KERNEL);
	assert_int_equal(h->max_cpus, 16);
	/* Linux x86 numbering: first threads 0-7, siblings 8-15. */
	fmt(&h->packages[0].cpus, buf);
	assert_string_equal(buf, "0-2,8,10-11");
	assert_int_equal(h->packages[0].n_cores, 4);	/* 3 lives on in 11 */
	fmt(&h->packages[1].cpus, buf);
	assert_string_equal(buf, "4-7,12-15");
	assert_int_equal(h->packages[1].n_cores, 4);
	assert_int_equal(h->packages[1].node, 1);
	assert_int_equal(h->cpus[0].core, 0);
	assert_int_equal(h->cpus[7].id, 8);	/* 3 offline */
	assert_int_equal(h->cpus[7].core, 0);
	assert_int_equal(h->cpus[7].package, 0);
	vcp_host_free(h);

	h = host_of("{\"packages\": 1, \"cores\": 2}");
	assert_int_equal(h->n_cpus, 2);
	assert_int_equal(h->threads_per_core, 1);
	assert_int_equal(h->n_nodes, 1);
	assert_int_equal(h->mode, VCP_MODE_PIN);
	vcp_host_free(h);
}

static void test_explicit_host(void **state)
{
	struct vcp_host *h = host_of("{\"cpus\": ["
		"{\"id\": 3, \"package\": 1, \"core\": 0, \"node\": 1},"
		"{\"id\": 0, \"package\": 0, \"core\": 0},"
		"{\"id\": 1, \"package\": 0, \"core\": 0},"
		"{\"id\": 2, \"package\": 0, \"core\": 1, \"die\": 0}]}");
	char buf[256];

	assert_int_equal(h->n_cpus, 4);
	assert_int_equal(h->n_packages, 2);
	assert_int_equal(h->n_nodes, 2);
	fmt(&h->packages[0].cpus, buf);
	assert_string_equal(buf, "0-2");
	assert_int_equal(h->packages[0].n_cores, 2);
	assert_int_equal(h->packages[1].node, 1);
	vcp_host_free(h);
}

static void test_host_refusals(void **state)
{
	static const char *const cases[][2] = {
		{ "[]", "host: must be an object, got []" },
		{ "{\"packages\": 0, \"cores\": 2}",
		  "host.packages: must be a whole number from 1 to 256, got 0" },
		{ "{\"packages\": 2}",
		  "host: needs \"packages\" and \"cores\" (or \"cpus\")" },
		{ "{\"packages\": 3, \"cores\": 2, \"nodes\": 2}",
		  "host.nodes: must divide the number of packages (3), got 2" },
		{ "{\"packages\": 1, \"cores\": 2, \"offline\": \"x\"}",
		  "host.offline: must be a CPU list such as \"0-3,8\", got \"x\"" },
		{ "{\"packages\": 1, \"cores\": 2, \"offline\": \"0-1\"}",
		  "host: has no online CPU" },
		{ "{\"packages\": 1, \"cores\": 2, \"mode\": \"fast\"}",
		  "host.mode: must be \"pin\", \"kernel\" or \"scx\", got \"fast\"" },
		{ "{\"packages\": 1, \"cores\": 2, \"sockets\": 1}",
		  "host.sockets: unknown key" },
		{ "{\"cpus\": []}", "host.cpus: must be a non-empty array" },
		{ "{\"cpus\": [{\"id\": 0, \"core\": 0}]}",
		  "host.cpus[0]: needs \"id\", \"package\" and \"core\"" },
		{ "{\"cpus\": [{\"id\": 0, \"package\": 0, \"core\": 0,"
		  " \"thread\": 0}]}", "host.cpus[0].thread: unknown key" },
		{ "{\"cpus\": [{\"id\": 0, \"package\": 0, \"core\": 0},"
		  " {\"id\": 0, \"package\": 0, \"core\": 1}]}",
		  "host.cpus: duplicate CPU id" },
		{ "{\"cpus\": [{\"id\": 0, \"package\": 0, \"core\": 0}],"
		  " \"cores\": 2}",
		  "host.cores: unknown key (with \"cpus\" only \"mode\" may follow)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *err = host_err(cases[i][0]);

		if (strcmp(err, cases[i][1]))
			fail_msg("%s\n got: %s\nwant: %s", cases[i][0], err,
				 cases[i][1]);
		free(err);
	}
}

static void test_vms(void **state)
{
	struct json_object *o = json_tokener_parse("["
		"{\"name\": \"a\", \"vcpus\": 2},"
		"{\"name\": \"b\", \"vcpus\": 3, \"priority\": \"low\","
		" \"class\": \"spread\", \"managed\": false,"
		" \"demand\": [0.5, null, -1], \"pins\": [\"0-1\", \"2\", \"\"],"
		" \"emulator\": \"0-3\", \"mem_node\": 1,"
		" \"uuid\": \"c7a5fdbd-edaf-9455-926a-d65c16db1809\"},"
		"{\"name\": \"c\", \"vcpus\": 2, \"demand\": 0.3, \"pins\": \"4-7\"}]");
	struct vcp_vm *vms = NULL;
	size_t n = 0;
	char *err = NULL, buf[256];

	assert_int_equal(vcp_model_vms_from_json(o, &vms, &n, &err), 0);
	json_object_put(o);
	assert_int_equal(n, 3);
	assert_string_equal(vms[0].name, "a");
	assert_false(vms[0].has_tag);
	assert_true(vms[0].managed);
	assert_int_equal(vms[0].mem_node, -1);
	assert_float_equal(vms[0].demand[1], -1, 0);
	assert_true(vcp_cpuset_empty(&vms[0].vcpu_pins[0]));
	assert_true(vms[1].has_tag && vms[1].tag.has_class &&
		    vms[1].tag.has_priority);
	assert_int_equal(vms[1].tag.class, VCP_CLASS_SPREAD);
	assert_int_equal(vms[1].tag.priority, VCP_PRIO_LOW);
	assert_false(vms[1].managed);
	assert_float_equal(vms[1].demand[0], 0.5, 0);
	assert_float_equal(vms[1].demand[1], -1, 0);
	assert_float_equal(vms[1].demand[2], -1, 0);
	fmt(&vms[1].vcpu_pins[0], buf);
	assert_string_equal(buf, "0-1");
	assert_true(vcp_cpuset_empty(&vms[1].vcpu_pins[2]));
	fmt(&vms[1].emulator_pins, buf);
	assert_string_equal(buf, "0-3");
	assert_int_equal(vms[1].mem_node, 1);
	assert_string_equal(vms[1].uuid, "c7a5fdbd-edaf-9455-926a-d65c16db1809");
	assert_float_equal(vms[2].demand[1], 0.3, 0);
	fmt(&vms[2].vcpu_pins[1], buf);
	assert_string_equal(buf, "4-7");
	vcp_vms_free(vms, n);
}

static void test_vm_refusals(void **state)
{
	static const char *const cases[][2] = {
		{ "{}", "vms: must be an array, got {}" },
		{ "[1]", "vms[0]: must be an object, got 1" },
		{ "[{\"vcpus\": 1}]", "vms[0]: needs a \"name\" string" },
		{ "[{\"name\": \"a\"}]",
		  "vms[0].vcpus: must be a whole number from 1 to 4096, got null" },
		{ "[{\"name\": \"a\", \"vcpus\": 1}, {\"name\": \"b\", \"vcpus\": 2,"
		  " \"demand\": [0.1]}]",
		  "vms[1]: demand: needs 2 entries, got 1" },
		{ "[{\"name\": \"a\", \"vcpus\": 2, \"demand\": [0.1, 1.5]}]",
		  "vms[0].demand[1]: must be a number from 0 to 1 (or -1 or null: unknown), got 1.5" },
		{ "[{\"name\": \"a\", \"vcpus\": 1, \"pins\": [\"0\", \"1\"]}]",
		  "vms[0]: pins: needs 1 entries, got 2" },
		{ "[{\"name\": \"a\", \"vcpus\": 1, \"pins\": \"0-\"}]",
		  "vms[0].pins: must be a CPU list such as \"0-3,8\", got \"0-\"" },
		{ "[{\"name\": \"a\", \"vcpus\": 1, \"class\": \"fast\"}]",
		  "vms[0].class: must be \"spread\", \"balanced\" or \"pack\", got \"fast\"" },
		{ "[{\"name\": \"a\", \"vcpus\": 1, \"priority\": \"urgent\"}]",
		  "vms[0].priority: must be \"high\", \"normal\" or \"low\", got \"urgent\"" },
		{ "[{\"name\": \"a\", \"vcpus\": 1, \"managed\": 1}]",
		  "vms[0].managed: must be true or false, got 1" },
		{ "[{\"name\": \"a\", \"vcpus\": 1, \"memnode\": 1}]",
		  "vms[0].memnode: unknown key" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct json_object *o = json_tokener_parse(cases[i][0]);
		struct vcp_vm *vms = (struct vcp_vm *)0x1;
		size_t n = 77;
		char *err = NULL;

		assert_non_null(o);
		assert_int_equal(vcp_model_vms_from_json(o, &vms, &n, &err),
				 -EINVAL);
		assert_ptr_equal(vms, (struct vcp_vm *)0x1);
		assert_int_equal(n, 77);
		assert_non_null(err);
		if (strcmp(err, cases[i][1]))
			fail_msg("%s\n got: %s\nwant: %s", cases[i][0], err,
				 cases[i][1]);
		free(err);
		json_object_put(o);
	}
}

static void test_plan_json(void **state)
{
	struct vcp_host *h = host_of("{\"packages\": 2, \"cores\": 2}");
	struct json_object *o = json_tokener_parse(
		"[{\"name\": \"p\", \"vcpus\": 1, \"priority\": \"low\","
		" \"demand\": 0.3333}]");
	struct vcp_vm *vms = NULL;
	struct vcp_plan *plan = NULL;
	struct vcp_policy pol;
	size_t n = 0;
	char *err = NULL;

	assert_int_equal(vcp_model_vms_from_json(o, &vms, &n, &err), 0);
	json_object_put(o);
	vcp_policy_defaults(&pol);
	pol.level = 2;
	assert_int_equal(vcp_plan_compute(h, vms, n, &pol, &plan), 0);
	o = vcp_plan_to_json(plan, h, vms);
	assert_string_equal(json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PLAIN),
		"{\"mode\":\"pin\",\"level\":2,\"demand\":0.333,"
		"\"capacity\":3.2,\"overcommit\":0,\"active\":1,"
		"\"packages\":[{\"id\":0,\"active\":true,\"demand\":0.333,"
		"\"capacity\":1.6},{\"id\":1,\"active\":false,\"demand\":0,"
		"\"capacity\":1.6}],\"vms\":[{\"name\":\"p\",\"class\":\"pack\","
		"\"placement\":\"gathered\",\"package\":0,\"demand\":0.333,"
		"\"vcpus\":[\"0-1\"],\"emulator\":\"0-1\",\"mem_node\":-1,"
		"\"degraded\":null}]}");
	json_object_put(o);
	vcp_plan_free(plan);
	vcp_vms_free(vms, n);
	vcp_host_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact_host),
		cmocka_unit_test(test_explicit_host),
		cmocka_unit_test(test_host_refusals),
		cmocka_unit_test(test_vms),
		cmocka_unit_test(test_vm_refusals),
		cmocka_unit_test(test_plan_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
