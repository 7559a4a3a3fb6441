// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_fleetplan.c - the fleet planner: golden cases (tests/data/fleet/
 * NAME.in.json -> NAME.expected.json, each also asserting which hosts are
 * emptied), and generated fleets of 2 to 1000 hosts checked for the
 * planner's promises (no receiver over its CPU or memory room, every VM
 * of an emptied host moved exactly once, CPU groups respected, nothing
 * moved twice, deterministic) with their summary figures golden too.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fleetgen.h"
#include "golden.h"
#include "fleetjson.h"
#include "fleetplan.h"
#include "modeljson.h"

#define DATA VCP_SRCDIR "/tests/data/fleet/"

static struct vcp_fleet_input *load(const char *path)
{
	struct json_object *o = json_object_from_file(path);
	struct vcp_fleet_input *in = NULL;
	char *err = NULL;
	int r;

	if (!o)
		fail_msg("%s: cannot read: %s", path, json_util_get_last_err());
	r = vcp_fleet_input_from_json(o, &in, &err);
	json_object_put(o);
	if (r)
		fail_msg("%s: %s", path, err ? err : strerror(-r));
	return in;
}

static struct vcp_fleet_plan *plan_of(const struct vcp_fleet_input *in)
{
	struct vcp_fleet_plan *p = NULL;

	assert_int_equal(vcp_fleet_plan_compute(in->hosts, in->n_hosts,
						&in->policy, &in->opts, &p), 0);
	return p;
}

/* "h1,h3": the emptied hosts in input order. */
static void emptied_names(const struct vcp_fleet_input *in,
			  const struct vcp_fleet_plan *p, char *buf, size_t n)
{
	buf[0] = 0;
	for (size_t i = 0; i < p->n_hosts; i++) {
		if (!p->hosts[i].emptied)
			continue;
		if (buf[0])
			strncat(buf, ",", n - strlen(buf) - 1);
		strncat(buf, in->hosts[i].name, n - strlen(buf) - 1);
	}
}

struct gcase {
	const char *name;
	const char *emptied;
	size_t moves;
};

static void golden_case(void **state)
{
	const struct gcase *gc = *state;
	struct vcp_fleet_input *in;
	struct vcp_fleet_plan *p;
	char path[512], names[256];
	char *got;

	snprintf(path, sizeof(path), DATA "%s.in.json", gc->name);
	in = load(path);
	p = plan_of(in);
	got = t_json_text(vcp_fleet_plan_to_json(p, in->hosts));
	snprintf(path, sizeof(path), DATA "%s.expected.json", gc->name);
	t_golden(path, got);
	emptied_names(in, p, names, sizeof(names));
	assert_string_equal(names, gc->emptied);
	assert_int_equal(p->n_moves, gc->moves);
	free(got);
	vcp_fleet_plan_free(p);
	vcp_fleet_input_free(in);
}

#define DO_TEST(n, e, m)                                                  \
	{ .name = n, .test_func = golden_case, .initial_state =           \
	  &(struct gcase){ n, e, m } }

/* ---- generated fleets ---- */

static struct vcp_fleet_input *gen_input(size_t n, size_t per)
{
	struct json_object *o = gen_fleet(n, per, 42 + n);
	struct vcp_fleet_input *in = NULL;
	char *err = NULL;

	if (vcp_fleet_input_from_json(o, &in, &err))
		fail_msg("generated fleet: %s", err);
	json_object_put(o);
	return in;
}

/* The planner's promises, checked from the outside. */
static void check_invariants(const struct vcp_fleet_input *in,
			     const struct vcp_fleet_plan *p)
{
	size_t n = in->n_hosts;
	double *load = calloc(n, sizeof(double));
	double *mem = calloc(n, sizeof(double));
	bool *sends = calloc(n, sizeof(bool)), *gets = calloc(n, sizeof(bool));
	size_t moved_from_emptied = 0, running_on_emptied = 0;

	assert_non_null(load);
	assert_non_null(mem);
	assert_non_null(sends);
	assert_non_null(gets);
	for (size_t i = 0; i < n; i++) {
		load[i] = p->hosts[i].demand_before;
		mem[i] = (double)p->hosts[i].mem_before;
		if (p->hosts[i].emptied)
			for (size_t j = 0; j < in->hosts[i].n_vms; j++)
				running_on_emptied += in->hosts[i].vms[j].running;
	}
	for (size_t k = 0; k < p->n_moves; k++) {
		const struct vcp_fleet_move *m = &p->moves[k];
		int a = in->hosts[m->from].cpu_group;
		int b = in->hosts[m->to].cpu_group;

		assert_true(p->hosts[m->from].emptied);
		assert_false(p->hosts[m->to].emptied);
		assert_true(in->hosts[m->to].accepts);
		assert_true(a == b || in->compat[a * (int)in->n_groups + b]);
		for (size_t q = 0; q < k; q++)
			assert_false(p->moves[q].from == m->from &&
				     p->moves[q].vm == m->vm);
		load[m->to] += m->demand;
		mem[m->to] += (double)in->hosts[m->from].vms[m->vm].mem_kib;
		sends[m->from] = gets[m->to] = true;
		moved_from_emptied++;
	}
	assert_int_equal(moved_from_emptied, running_on_emptied);
	for (size_t i = 0; i < n; i++) {
		assert_false(sends[i] && gets[i]);
		if (!gets[i])
			continue;
		assert_true(load[i] <= p->hosts[i].capacity + 1e-6);
		assert_true(mem[i] <= (double)in->hosts[i].mem_kib *
				      (1 - in->opts.mem_reserve) + 1);
	}
	free(load);
	free(mem);
	free(sends);
	free(gets);
}

struct fcase {
	size_t hosts, per;
};

static void generated(void **state)
{
	const struct fcase *fc = *state;
	struct vcp_fleet_input *in = gen_input(fc->hosts, fc->per);
	struct vcp_fleet_plan *p = plan_of(in), *p2 = plan_of(in);
	struct json_object *sum = json_object_new_object();
	char path[256], *a, *b, *got;

	check_invariants(in, p);
	a = t_json_text(vcp_fleet_plan_to_json(p, in->hosts));
	b = t_json_text(vcp_fleet_plan_to_json(p2, in->hosts));
	assert_string_equal(a, b);	/* deterministic */
	json_object_object_add(sum, "hosts",
			       json_object_new_int64((int64_t)p->n_hosts));
	json_object_object_add(sum, "moves",
			       json_object_new_int64((int64_t)p->n_moves));
	json_object_object_add(sum, "hosts_emptied",
			       json_object_new_int64((int64_t)p->hosts_emptied));
	json_object_object_add(sum, "hosts_unreachable",
			       json_object_new_int64((int64_t)p->hosts_unreachable));
	json_object_object_add(sum, "awake_before",
			       json_object_new_int64((int64_t)p->awake_before));
	json_object_object_add(sum, "awake_after",
			       json_object_new_int64((int64_t)p->awake_after));
	got = t_json_text(sum);
	snprintf(path, sizeof(path), DATA "generated-%zu.expected.json",
		 fc->hosts);
	t_golden(path, got);
	if (fc->hosts >= 10)
		assert_true(p->hosts_emptied > 0);
	assert_true(p->awake_after <= p->awake_before);
	free(a);
	free(b);
	free(got);
	vcp_fleet_plan_free(p);
	vcp_fleet_plan_free(p2);
	vcp_fleet_input_free(in);
}

#define GEN(h, v)                                                         \
	{ .name = "generated-" #h, .test_func = generated,                \
	  .initial_state = &(struct fcase){ h, v } }

/* ---- errors name the key ---- */

static void expect_error(const char *text, const char *msg)
{
	struct json_object *o = json_tokener_parse(text);
	struct vcp_fleet_input *in = NULL;
	char *err = NULL;

	assert_non_null(o);
	assert_int_equal(vcp_fleet_input_from_json(o, &in, &err), -EINVAL);
	assert_null(in);
	assert_non_null(err);
	assert_string_equal(err, msg);
	free(err);
	json_object_put(o);
}

static void test_errors(void **state)
{
	expect_error("{\"hosts\": 3}", "hosts: must be an array, got 3");
	expect_error("{}", "hosts: must be an array, got null");
	expect_error("{\"hosts\": [{\"name\": \"b\", \"reachable\": false},"
		     " {\"name\": \"a\", \"reachable\": false},"
		     " {\"name\": \"b\", \"reachable\": false},"
		     " {\"name\": \"a\", \"reachable\": false}]}",
		     "hosts[2].name: 'b' is also hosts[0]");
	expect_error(
		"{\"hosts\": [], \"options\": {\"cpu_compat\": {\"a\": 1}}}",
		"options.cpu_compat.a: must be an array of CPU names");
	expect_error(
		"{\"hosts\": [], \"options\": {\"cpu_compat\": {\"a\": {}}}}",
		"options.cpu_compat.a: must be an array of CPU names");
	expect_error("{\"hosts\": [{}]}",
		     "hosts[0]: needs a \"name\" string");
	expect_error("{\"hosts\": [{\"name\": \"a\"}]}",
		     "hosts[0]: a reachable host needs \"host\"");
	expect_error("{\"hosts\": [{\"name\": \"a\", \"colour\": 1}]}",
		     "hosts[0].colour: unknown key");
	expect_error("{\"hosts\": [{\"name\": \"a\", \"reachable\": false},"
		     " {\"name\": \"a\", \"reachable\": false}]}",
		     "hosts[1].name: 'a' is also hosts[0]");
	expect_error("{\"hosts\": [{\"name\": \"a\", \"host\": {\"packages\": 1,"
		     " \"cores\": 2}, \"vms\": [{\"name\": \"x\", \"vcpus\": 0}]}]}",
		     "hosts[0].vms[0].vcpus: must be a whole number from 1 to 4096, got 0");
	expect_error("{\"hosts\": [], \"options\": {\"mem_reserve\": 2}}",
		     "options.mem_reserve: must be a number from 0 to 0.9, got 2");
	expect_error("{\"hosts\": [], \"extra\": 1}", "extra: unknown key");
	expect_error("{\"hosts\": [{\"name\": \"a\", \"reachable\": false,"
		     " \"mem_mib\": -5}]}",
		     "hosts[0].mem_mib: must be MiB from 1 to 4294967296, got -5");
}

static void test_bad_args(void **state)
{
	struct vcp_policy pol;
	struct vcp_fleet_opts o = { .mem_reserve = 0.95 };
	struct vcp_fleet_plan *p = NULL;
	struct vcp_fleet_host h = { .name = "x", .reachable = true };

	vcp_policy_defaults(&pol);
	assert_int_equal(vcp_fleet_plan_compute(NULL, 0, &pol, &o, &p),
			 -EINVAL);
	o.mem_reserve = 0;
	assert_int_equal(vcp_fleet_plan_compute(&h, 1, &pol, &o, &p),
			 -EINVAL);	/* reachable without topology */
	assert_null(p);
	assert_int_equal(vcp_fleet_plan_compute(NULL, 0, &pol, &o, &p), 0);
	assert_int_equal(p->n_moves, 0);
	vcp_fleet_plan_free(p);
	vcp_policy_clear(&pol);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		DO_TEST("two-hosts", "h1", 2),
		DO_TEST("spread-stays", "h2", 2),
		DO_TEST("spread-moves", "h1,h2", 3),
		DO_TEST("memory-bound", "", 0),
		DO_TEST("cpu-compat", "old,new2", 2),
		DO_TEST("unreachable", "h1", 1),
		DO_TEST("no-room", "", 0),
		DO_TEST("unmanaged", "h2", 1),
		DO_TEST("idle-stays-idle", "", 0),
		GEN(2, 10),
		GEN(10, 20),
		GEN(100, 20),
		GEN(1000, 20),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_bad_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
