// SPDX-License-Identifier: GPL-2.0-or-later
/* test_daemonstatus.c - vcpackd's status and replies (daemonstatus.c):
 * the last plan's record (per-VM demand with null for unknown, delay,
 * relieved; level, packages, the plan), the status object around it as
 * the CLI's parser (vcp_status_from_json) reads it, the configured level
 * in force, and which members each request's reply carries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "daemonstatus.h"
#include "demand.h"
#include "modeljson.h"
#include "planner.h"

#define SEC 1000000000ull

struct last {
	struct vcp_world w;
	struct vcp_plan *plan;
	struct vcp_tracker *t;
	struct vcp_policy pol;
};

/* VM "a" (2 vCPUs) waited 40% of 10 s on vCPU0: relieved over 10%. */
static void relieve_a(struct vcp_tracker *t)
{
	struct vcp_sample s = { .have_vcpu_time = true, .n_vms = 1 };
	struct vcp_vcpu_sample v = { .name = "a", .n_vcpus = 2 };
	uint64_t time_ns[2] = { 0, 0 }, delay_ns[2] = { 0, 0 };
	const char *names[2];

	v.time_ns = time_ns;
	v.delay_ns = delay_ns;
	s.vms = &v;
	vcp_tracker_set_max_delay(t, 0.1);
	s.at_ns = 10 * SEC;
	assert_int_equal(vcp_tracker_update(t, &s), 0);
	s.at_ns = 20 * SEC;
	time_ns[0] = 2 * SEC;
	delay_ns[0] = 8 * SEC;
	assert_int_equal(vcp_tracker_update(t, &s), 0);
	assert_int_equal(vcp_tracker_relieve(t, names, 2), 1);
}

/* Two packages of 2 cores; "a" (2 vCPUs, one demand unknown, delay 25%)
 * and "b" (1 vCPU, nothing known), planned at level 2. */
static void last_init(struct last *l)
{
	struct json_object *o =
		json_tokener_parse("{\"packages\": 2, \"cores\": 2}");
	char *err = NULL;

	memset(l, 0, sizeof(*l));
	assert_int_equal(vcp_model_host_from_json(o, &l->w.host, &err), 0);
	json_object_put(o);
	o = json_tokener_parse("[{\"name\": \"a\", \"vcpus\": 2,"
			       " \"demand\": [0.5, null]},"
			       " {\"name\": \"b\", \"vcpus\": 1}]");
	assert_int_equal(
		vcp_model_vms_from_json(o, &l->w.vms, &l->w.n_vms, &err), 0);
	json_object_put(o);
	l->w.vms[0].delay = 0.25;
	l->w.vms[1].delay = -1;
	l->w.vms[1].demand[0] = -1;
	vcp_policy_defaults(&l->pol);
	l->pol.level = 2;
	assert_int_equal(vcp_plan_compute(l->w.host, l->w.vms, l->w.n_vms,
					  &l->pol, &l->plan),
			 0);
	assert_int_equal(vcp_tracker_new(3, &l->t), 0);
	relieve_a(l->t);
}

static void last_clear(struct last *l)
{
	vcp_tracker_free(l->t);
	vcp_plan_free(l->plan);
	vcp_vms_free(l->w.vms, l->w.n_vms);
	vcp_host_free(l->w.host);
	vcp_policy_clear(&l->pol);
}

static const char *plain(struct json_object *o)
{
	int flags = JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE;

	return json_object_to_json_string_ext(o, flags);
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *m = NULL;

	assert_true(json_object_object_get_ex(o, key, &m));
	return m;
}

static void test_last(void **state)
{
	struct last l;
	struct json_object *o, *vms;

	last_init(&l);
	o = vcp_dstatus_last(&l.w, l.plan, l.t, 1700000000);
	assert_int_equal(json_object_get_int64(member(o, "at")), 1700000000);
	assert_int_equal(json_object_get_int(member(o, "level")), 2);
	assert_int_equal(json_object_get_int(member(o, "active")),
			 (int)l.plan->n_active);
	assert_int_equal(json_object_get_int(member(o, "packages")), 2);
	assert_string_equal(json_object_get_string(member(o, "level_reason")),
			    l.plan->level_reason ? l.plan->level_reason : "");
	assert_int_equal(
		json_object_get_int(member(member(o, "plan"), "level")), 2);
	vms = member(o, "vms");
	assert_string_equal(plain(vms),
			    "[{\"name\":\"a\",\"demand\":[0.5,null],"
			    "\"delay\":0.25,\"relieved\":true},"
			    "{\"name\":\"b\",\"demand\":[null],\"delay\":null,"
			    "\"relieved\":false}]");
	json_object_put(o);
	/* no level_reason: an empty one */
	l.plan->level_reason = NULL;
	o = vcp_dstatus_last(&l.w, l.plan, l.t, 0);
	assert_string_equal(json_object_get_string(member(o, "level_reason")),
			    "");
	json_object_put(o);
	last_clear(&l);
}

static struct vcp_dstatus status_of(const struct vcp_control *ctl,
				    const struct vcp_policy *pol,
				    const struct tm *tm,
				    struct json_object *last)
{
	return (struct vcp_dstatus){
		.pid = 42,
		.uri = "test:///default",
		.connected = true,
		.mode = VCP_MODE_PIN,
		.mode_reason = "no kernel support",
		.replans = 7,
		.ctl = ctl,
		.policy = pol,
		.tm = tm,
		.state_path = "/run/vcpack/state.json",
		.last = last,
	};
}

/* The status object as `vcpack status` reads it (proto.c's parser). */
static void test_status_parses(void **state)
{
	struct vcp_control ctl = { 0 };
	struct tm tm = { .tm_hour = 12 };
	const char *head;
	struct vcp_status st;
	struct json_object *o;
	struct vcp_dstatus s;
	struct last l;
	char *err = NULL;

	last_init(&l);
	s = status_of(&ctl, &l.pol, &tm,
		      vcp_dstatus_last(&l.w, l.plan, l.t, 1700000000));
	/* what vcpackd adds to it (daemon.c: remember_status) */
	json_object_object_add(s.last, "carried_out",
			       json_object_new_boolean(true));
	json_object_object_add(s.last, "changes", json_object_new_int(3));
	o = vcp_dstatus_json(&s);
	json_object_put(s.last); /* the status holds its own reference */
	if (vcp_status_from_json(o, &st, &err))
		fail_msg("%s", err);
	assert_true(st.has_last);
	assert_int_equal(st.at, 1700000000);
	assert_int_equal(st.level, 2);
	assert_int_equal(st.n_vms, 2);
	assert_float_equal(st.vms[0].demand[1], -1, 1e-9);
	assert_true(st.vms[0].relieved && !st.vms[1].relieved);
	/* the members test_proto's status parses, in that order */
	head = "{\"pid\":42,\"uri\":\"test:///default\",\"connected\":true,"
	       "\"mode\":\"pin\",\"replans\":7,";
	assert_memory_equal(plain(o), head, strlen(head));
	vcp_status_clear(&st);
	assert_string_equal(json_object_get_string(member(o, "mode_reason")),
			    "no kernel support");
	assert_string_equal(json_object_get_string(member(o, "state_file")),
			    "/run/vcpack/state.json");
	assert_string_equal(json_object_get_string(member(o, "level")), "2");
	json_object_put(o);
	last_clear(&l);
}

/* Before any plan: "last" null, no URI given: ""; an override of the
 * level is the level in force, and the control object says so. */
static void test_status_no_plan(void **state)
{
	struct vcp_control ctl = { .has_level = true,
				   .level = VCP_LEVEL_AUTO,
				   .level_since = 5 };
	struct tm tm = { .tm_hour = 3 };
	struct vcp_policy pol;
	struct json_object *o, *want;
	struct vcp_status st;
	struct vcp_dstatus s;
	char *err = NULL;

	vcp_policy_defaults(&pol);
	pol.level = 1;
	s = status_of(&ctl, &pol, &tm, NULL);
	s.uri = NULL;
	s.connected = false;
	o = vcp_dstatus_json(&s);
	assert_int_equal(vcp_status_from_json(o, &st, &err), 0);
	assert_false(st.has_last);
	assert_false(st.connected);
	assert_string_equal(st.uri, "");
	vcp_status_clear(&st);
	assert_null(member(o, "last"));
	assert_string_equal(json_object_get_string(member(o, "level")), "auto");
	want = vcp_control_to_json(&ctl);
	assert_string_equal(plain(member(o, "control")), plain(want));
	json_object_put(want);
	json_object_put(o);
	/* the policy's own level when nothing overrides it */
	ctl.has_level = false;
	o = vcp_dstatus_json(&s);
	assert_string_equal(json_object_get_string(member(o, "level")), "1");
	json_object_put(o);
	vcp_policy_clear(&pol);
}

/* The members of each reply (proto.h). */
static void test_replies(void **state)
{
	static const struct {
		enum vcp_req_op op;
		const char *keys;
	} cases[] = {
		{ VCP_REQ_HOOK, "" },
		{ VCP_REQ_REPLAN, "replans" },
		{ VCP_REQ_PING, "connected,mode,replans" },
		{ VCP_REQ_STATUS, "status" },
		{ VCP_REQ_LEVEL, "status" },
		{ VCP_REQ_PAUSE, "status" },
		{ VCP_REQ_RESUME, "status" },
	};
	struct vcp_control ctl = { .paused = true, .paused_since = 9 };
	struct tm tm = { 0 };
	struct vcp_policy pol;
	struct vcp_dstatus s;

	vcp_policy_defaults(&pol);
	s = status_of(&ctl, &pol, &tm, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct json_object *o = vcp_dstatus_reply(cases[i].op, &s);
		char keys[64] = "";

		json_object_object_foreach(o, k, v) {
			(void)v;
			if (*keys)
				strcat(keys, ",");
			strcat(keys, k);
		}
		assert_string_equal(keys, cases[i].keys);
		json_object_put(o);
	}
	{
		struct json_object *o = vcp_dstatus_reply(VCP_REQ_PING, &s);

		assert_string_equal(plain(o),
				    "{\"connected\":true,"
				    "\"mode\":\"pin\",\"replans\":7}");
		json_object_put(o);
	}
	vcp_policy_clear(&pol);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_last),
		cmocka_unit_test(test_status_parses),
		cmocka_unit_test(test_status_no_plan),
		cmocka_unit_test(test_replies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
