// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_policy.c - policy.json parsing: defaults, a full file, partial
 * overlay, schedule windows (incl. past midnight), serialisation round
 * trip, every refusal with its exact message, and the rule that picks
 * the file (a named one, else the default when present, else none).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "policy.h"

#define SRC "policy.json"

static void parse_ok(const char *text, struct vcp_policy *p)
{
	char *err = NULL;
	int r = vcp_policy_parse(text, SRC, p, &err);

	if (r)
		fail_msg("refused %s: %s", text, err ? err : "(no message)");
	assert_null(err);
}

static void test_defaults(void **state)
{
	struct vcp_policy p, d;

	vcp_policy_defaults(&d);
	parse_ok("{}", &p);
	assert_int_equal(p.level, VCP_LEVEL_AUTO);
	assert_int_equal(p.prio_class[VCP_PRIO_HIGH], VCP_CLASS_SPREAD);
	assert_int_equal(p.prio_class[VCP_PRIO_NORMAL], VCP_CLASS_BALANCED);
	assert_int_equal(p.prio_class[VCP_PRIO_LOW], VCP_CLASS_PACK);
	assert_int_equal(p.n_windows, 0);
	assert_null(p.windows);
	assert_float_equal(p.headroom, 0.2, 1e-12);
	assert_float_equal(p.default_vcpu_demand, 0.25, 1e-12);
	assert_float_equal(p.busy_vcpu_demand, 0.1, 1e-12);
	assert_float_equal(p.smt_yield, 0.3, 1e-12);
	assert_int_equal(p.sample_interval_s, 10);
	assert_int_equal(p.shrink_after_s, 300);
	/* a new install: hands off, and the hook lets every VM start */
	assert_false(p.strict_tags);
	assert_false(p.enabled);
	assert_false(p.exclusive_cores);
	assert_false(p.require_trial);
	assert_true(p.memory_follows);
	assert_memory_equal(&p, &d, sizeof(p));
}

static const char full[] =
	"{\"priorities\": {\"high\": \"balanced\", \"normal\": \"pack\","
	" \"low\": \"pack\"},"
	" \"level\": 1,"
	" \"windows\": [{\"days\": [\"Sat\", \"Sun\"], \"from\": \"00:00\","
	"   \"to\": \"24:00\", \"level\": 2},"
	"  {\"from\": \"22:30\", \"to\": \"06:00\", \"level\": \"auto\","
	"   \"_comment\": \"nightly\"}],"
	" \"headroom\": 0, \"default_vcpu_demand\": 0.5,"
	" \"busy_vcpu_demand\": 0.05, \"smt_yield\": 1,"
	" \"sample_interval\": 5, \"shrink_after\": 0,"
	" \"enabled\": true, \"exclusive_cores\": true,"
	" \"strict_tags\": false, \"max_vcpu_delay\": 0.25,"
	" \"foreign_pins\": \"respect\", \"require_trial\": true,"
	" \"memory_follows\": false,"
	" \"_comment\": [\"ignored\"]}";

static void test_full_file(void **state)
{
	struct vcp_policy p;

	parse_ok(full, &p);
	assert_int_equal(p.prio_class[VCP_PRIO_HIGH], VCP_CLASS_BALANCED);
	assert_int_equal(p.prio_class[VCP_PRIO_NORMAL], VCP_CLASS_PACK);
	assert_int_equal(p.prio_class[VCP_PRIO_LOW], VCP_CLASS_PACK);
	assert_int_equal(p.level, 1);
	assert_int_equal(p.n_windows, 2);
	assert_int_equal(p.windows[0].days, (1 << 0) | (1 << 6));
	assert_int_equal(p.windows[0].start, 0);
	assert_int_equal(p.windows[0].end, 1440);
	assert_int_equal(p.windows[0].level, 2);
	assert_int_equal(p.windows[1].days, 0x7f);
	assert_int_equal(p.windows[1].start, 22 * 60 + 30);
	assert_int_equal(p.windows[1].end, 360);
	assert_int_equal(p.windows[1].level, VCP_LEVEL_AUTO);
	assert_float_equal(p.headroom, 0, 1e-12);
	assert_float_equal(p.default_vcpu_demand, 0.5, 1e-12);
	assert_float_equal(p.busy_vcpu_demand, 0.05, 1e-12);
	assert_float_equal(p.smt_yield, 1, 1e-12);
	assert_int_equal(p.sample_interval_s, 5);
	assert_int_equal(p.shrink_after_s, 0);
	assert_false(p.strict_tags);
	assert_true(p.enabled);
	assert_true(p.exclusive_cores);
	assert_false(p.memory_follows);
	vcp_policy_clear(&p);
	assert_null(p.windows);
}

static void test_partial_overlay(void **state)
{
	struct vcp_policy p, d;

	vcp_policy_defaults(&d);
	parse_ok("{\"headroom\": 0.35, \"priorities\": {\"low\": \"balanced\"},"
		 " \"level\": \"auto\"}", &p);
	assert_float_equal(p.headroom, 0.35, 1e-12);
	assert_int_equal(p.prio_class[VCP_PRIO_LOW], VCP_CLASS_BALANCED);
	assert_int_equal(p.prio_class[VCP_PRIO_HIGH], VCP_CLASS_SPREAD);
	assert_int_equal(p.level, VCP_LEVEL_AUTO);
	p.headroom = d.headroom;
	p.prio_class[VCP_PRIO_LOW] = d.prio_class[VCP_PRIO_LOW];
	assert_memory_equal(&p, &d, sizeof(p));
	parse_ok("{\"level\": 0}", &p);
	assert_int_equal(p.level, 0);
	parse_ok("{\"level\": 2}", &p);
	assert_int_equal(p.level, 2);
}

static int at(const struct vcp_policy *p, int wday, int h, int m)
{
	struct tm tm = { 0 };

	tm.tm_wday = wday;
	tm.tm_hour = h;
	tm.tm_min = m;
	return vcp_policy_level_at(p, &tm);
}

static void test_windows(void **state)
{
	struct vcp_policy p;

	/* Weekdays 08:00-18:00 level 0; Friday night 22:00-06:00 level 1;
	 * otherwise 2. */
	parse_ok("{\"level\": 2, \"windows\": ["
		 "{\"days\": [\"Mon\",\"Tue\",\"Wed\",\"Thu\",\"Fri\"],"
		 " \"from\": \"08:00\", \"to\": \"18:00\", \"level\": 0},"
		 "{\"days\": [\"Fri\"], \"from\": \"22:00\", \"to\": \"06:00\","
		 " \"level\": 1}]}", &p);
	assert_int_equal(at(&p, 1, 8, 0), 0);	/* Mon 08:00 in */
	assert_int_equal(at(&p, 1, 7, 59), 2);	/* before */
	assert_int_equal(at(&p, 3, 17, 59), 0);
	assert_int_equal(at(&p, 3, 18, 0), 2);	/* end exclusive */
	assert_int_equal(at(&p, 0, 12, 0), 2);	/* Sunday */
	assert_int_equal(at(&p, 6, 12, 0), 2);	/* Saturday */
	/* Past midnight: Friday's window covers Saturday morning only. */
	assert_int_equal(at(&p, 5, 21, 59), 2);
	assert_int_equal(at(&p, 5, 22, 0), 1);
	assert_int_equal(at(&p, 5, 23, 59), 1);
	assert_int_equal(at(&p, 6, 0, 0), 1);
	assert_int_equal(at(&p, 6, 5, 59), 1);
	assert_int_equal(at(&p, 6, 6, 0), 2);
	assert_int_equal(at(&p, 5, 3, 0), 2);	/* Fri early: Thu's night */
	assert_int_equal(at(&p, 4, 23, 0), 2);	/* Thu night: not listed */
	vcp_policy_clear(&p);

	/* First match wins; a whole day. */
	parse_ok("{\"level\": 1, \"windows\": ["
		 "{\"from\": \"00:00\", \"to\": \"24:00\", \"level\": \"auto\"},"
		 "{\"from\": \"00:00\", \"to\": \"12:00\", \"level\": 0}]}", &p);
	assert_int_equal(at(&p, 2, 0, 0), VCP_LEVEL_AUTO);
	assert_int_equal(at(&p, 2, 23, 59), VCP_LEVEL_AUTO);
	vcp_policy_clear(&p);
	parse_ok("{\"level\": 1}", &p);
	assert_int_equal(at(&p, 2, 10, 0), 1);
}

static void test_round_trip(void **state)
{
	struct vcp_policy p, q;
	struct json_object *o;
	char *err = NULL;

	parse_ok(full, &p);
	o = vcp_policy_to_json(&p);
	assert_string_equal(
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		"{\"priorities\":{\"high\":\"balanced\",\"normal\":\"pack\","
		"\"low\":\"pack\"},\"level\":1,\"windows\":[{\"days\":[\"Sat\","
		"\"Sun\"],\"from\":\"00:00\",\"to\":\"24:00\",\"level\":2},"
		"{\"days\":[\"Mon\",\"Tue\",\"Wed\",\"Thu\",\"Fri\",\"Sat\","
		"\"Sun\"],\"from\":\"22:30\",\"to\":\"06:00\",\"level\":\"auto\"}],"
		"\"headroom\":0,\"default_vcpu_demand\":0.5,"
		"\"busy_vcpu_demand\":0.05,\"smt_yield\":1,\"sample_interval\":5,"
		"\"shrink_after\":0,\"enabled\":true,\"exclusive_cores\":true,"
		"\"strict_tags\":false,"
		"\"max_vcpu_delay\":0.25,"
		"\"foreign_pins\":\"respect\",\"reserved_cpus\":\"\",\"irq_affinity\":\"off\","
		"\"require_trial\":true,\"memory_follows\":false}");
	assert_int_equal(vcp_policy_from_json(o, SRC, &q, &err), 0);
	assert_int_equal(q.n_windows, p.n_windows);
	assert_memory_equal(q.windows, p.windows,
			    p.n_windows * sizeof(*p.windows));
	assert_memory_equal(q.prio_class, p.prio_class, sizeof(p.prio_class));
	assert_int_equal(q.level, p.level);
	assert_float_equal(q.busy_vcpu_demand, p.busy_vcpu_demand, 1e-12);
	assert_float_equal(q.max_vcpu_delay, 0.25, 1e-12);
	assert_true(q.respect_foreign_pins);
	assert_true(q.require_trial);
	assert_false(q.memory_follows);
	json_object_put(o);
	vcp_policy_clear(&p);
	vcp_policy_clear(&q);
}

struct refusal {
	const char *text;
	const char *msg;
};

/* clang-format off */
static const struct refusal refusals[] = {
	{ "{\"foreign_pins\": \"ignore\"}",
	  SRC ": foreign_pins: must be \"restate\" or \"respect\", got \"ignore\"" },
	{ "{\"require_trial\": 1}",
	  SRC ": require_trial: must be true or false, got 1" },
	{ "{\"memory_follows\": \"on\"}",
	  SRC ": memory_follows: must be true or false, got \"on\"" },
	{ "{\"max_vcpu_delay\": 2}",
	  SRC ": max_vcpu_delay: must be a number from 0 to 1, got 2" },
	{ "{\"headroom\": 1.5}",
	  SRC ": headroom: must be a number from 0 to 0.9, got 1.5" },
	{ "{\"headroom\": -0.1}",
	  SRC ": headroom: must be a number from 0 to 0.9, got -0.1" },
	{ "{\"headroom\": \"0.2\"}",
	  SRC ": headroom: must be a number from 0 to 0.9, got \"0.2\"" },
	{ "{\"default_vcpu_demand\": 2}",
	  SRC ": default_vcpu_demand: must be a number from 0 to 1, got 2" },
	{ "{\"busy_vcpu_demand\": null}",
	  SRC ": busy_vcpu_demand: must be a number from 0 to 1, got null" },
	{ "{\"smt_yield\": 1.01}",
	  SRC ": smt_yield: must be a number from 0 to 1, got 1.01" },
	{ "{\"sample_interval\": 0}",
	  SRC ": sample_interval: must be a whole number from 1 to 3600, got 0" },
	{ "{\"sample_interval\": 2.5}",
	  SRC ": sample_interval: must be a whole number from 1 to 3600, got 2.5" },
	{ "{\"shrink_after\": 86401}",
	  SRC ": shrink_after: must be a whole number from 0 to 86400, got 86401" },
	{ "{\"enabled\": 1}",
	  SRC ": enabled: must be true or false, got 1" },
	{ "{\"strict_tags\": \"yes\"}",
	  SRC ": strict_tags: must be true or false, got \"yes\"" },
	{ "{\"level\": 3}",
	  SRC ": level: must be 0, 1, 2 or \"auto\", got 3" },
	{ "{\"level\": \"Auto\"}",
	  SRC ": level: must be 0, 1, 2 or \"auto\", got \"Auto\"" },
	{ "{\"level\": 1.0}",
	  SRC ": level: must be 0, 1, 2 or \"auto\", got 1.0" },
	{ "{\"colour\": 1}", SRC ": colour: unknown key" },
	{ "{\"priorities\": []}",
	  SRC ": priorities: must be an object, got []" },
	{ "{\"priorities\": {\"urgent\": \"spread\"}}",
	  SRC ": priorities.urgent: unknown priority (expected high, normal or low)" },
	{ "{\"priorities\": {\"high\": \"fast\"}}",
	  SRC ": priorities.high: must be \"spread\", \"balanced\" or \"pack\", got \"fast\"" },
	{ "{\"windows\": {}}", SRC ": windows: must be an array, got {}" },
	{ "{\"windows\": [1]}", SRC ": windows[0]: must be an object, got 1" },
	{ "{\"windows\": [{\"days\": [\"Mon\"], \"from\": \"08:00\","
	  " \"to\": \"18:00\", \"level\": 0}, {\"days\": [\"Mun\"],"
	  " \"from\": \"08:00\", \"to\": \"18:00\", \"level\": 0}]}",
	  SRC ": windows[1].days[0]: unknown day 'Mun'" },
	{ "{\"windows\": [{\"days\": [\"Mon\", 2], \"from\": \"08:00\","
	  " \"to\": \"18:00\", \"level\": 0}]}",
	  SRC ": windows[0].days[1]: must be a day name such as \"Mon\", got 2" },
	{ "{\"windows\": [{\"days\": [\"Mon\", \"Tue\", \"Mon\"], \"from\": \"08:00\","
	  " \"to\": \"18:00\", \"level\": 0}]}",
	  SRC ": windows[0].days[2]: 'Mon' is also days[0]" },
	{ "{\"windows\": [{\"days\": [], \"from\": \"08:00\","
	  " \"to\": \"18:00\", \"level\": 0}]}",
	  SRC ": windows[0].days: must be a non-empty array of days (\"Mon\" ... \"Sun\"), got []" },
	{ "{\"windows\": [{\"from\": \"08:00\", \"level\": 0}]}",
	  SRC ": windows[0]: needs \"from\", \"to\" and \"level\"" },
	{ "{\"windows\": [{\"from\": \"8:00\", \"to\": \"18:00\", \"level\": 0}]}",
	  SRC ": windows[0].from: must be a time \"HH:MM\" from \"00:00\" to \"24:00\", got \"8:00\"" },
	{ "{\"windows\": [{\"from\": \"08:00\", \"to\": \"24:01\", \"level\": 0}]}",
	  SRC ": windows[0].to: must be a time \"HH:MM\" from \"00:00\" to \"24:00\", got \"24:01\"" },
	{ "{\"windows\": [{\"from\": \"08:60\", \"to\": \"09:00\", \"level\": 0}]}",
	  SRC ": windows[0].from: must be a time \"HH:MM\" from \"00:00\" to \"24:00\", got \"08:60\"" },
	{ "{\"windows\": [{\"from\": \"08:00\", \"to\": \"08:00\", \"level\": 0}]}",
	  SRC ": windows[0].to: must differ from \"from\" (use \"00:00\" to \"24:00\" for a whole day)" },
	{ "{\"windows\": [{\"from\": \"08:00\", \"to\": \"09:00\", \"level\": 5}]}",
	  SRC ": windows[0].level: must be 0, 1, 2 or \"auto\", got 5" },
	{ "{\"windows\": [{\"from\": \"08:00\", \"to\": \"09:00\", \"level\": 0,"
	  " \"day\": \"Mon\"}]}",
	  SRC ": windows[0].day: unknown key (expected days, from, to, level)" },
	{ "[1]", SRC ": must be a JSON object, got [1]" },
	{ "{\"level\": }", SRC ": not valid JSON at line 1: unexpected character" },
	{ "{\n\"level\": 1,\n\"headroom\": 0.2,,\n}",
	  SRC ": not valid JSON at line 3: a key (a string in \") expected" },
	{ "{} x", SRC ": not valid JSON at line 1: unexpected text after the value" },
	{ "", SRC ": not valid JSON at line 1: unexpected end of text" },
	{ "{\"level\": 1,\n", SRC ": not valid JSON at line 2: unexpected end of text" },
	/* strict JSON: the first of two keys was never checked, the last won */
	{ "{\"level\":5,\"level\":1}",
	  SRC ": level: duplicate key (lines 1 and 1)" },
	{ "{\"windows\": [{\"from\": \"08:00\", \"to\": \"09:00\",\n"
	  " \"level\": 0, \"from\": \"07:00\"}]}",
	  SRC ": windows[0].from: duplicate key (lines 1 and 2)" },
	{ "{'level': 1}",
	  SRC ": not valid JSON at line 1: single quotes are not JSON (use \")" },
	{ "{\"level\": 1,}", SRC ": not valid JSON at line 1: trailing comma" },
	{ "{\"windows\": [],}",
	  SRC ": not valid JSON at line 1: trailing comma" },
	{ "/* c */{}",
	  SRC ": not valid JSON at line 1: comments are not JSON" },
	{ "{} // c", SRC ": not valid JSON at line 1: comments are not JSON" },
	/* window times: two digits, a colon, two digits; nothing else */
	{ "{\"windows\": [{\"from\": \"+1:00\", \"to\": \"18:00\", \"level\": 0}]}",
	  SRC ": windows[0].from: must be a time \"HH:MM\" from \"00:00\" to \"24:00\", got \"+1:00\"" },
	{ "{\"windows\": [{\"from\": \" 1:00\", \"to\": \"18:00\", \"level\": 0}]}",
	  SRC ": windows[0].from: must be a time \"HH:MM\" from \"00:00\" to \"24:00\", got \" 1:00\"" },
	{ "{\"windows\": [{\"from\": \"01:00\", \"to\": \"02: 5\", \"level\": 0}]}",
	  SRC ": windows[0].to: must be a time \"HH:MM\" from \"00:00\" to \"24:00\", got \"02: 5\"" },
	{ "{\"windows\": [{\"from\": \"01:00\", \"to\": \"02:+5\", \"level\": 0}]}",
	  SRC ": windows[0].to: must be a time \"HH:MM\" from \"00:00\" to \"24:00\", got \"02:+5\"" },
	{ "{\"windows\": [{\"from\": \"-0:00\", \"to\": \"02:00\", \"level\": 0}]}",
	  SRC ": windows[0].from: must be a time \"HH:MM\" from \"00:00\" to \"24:00\", got \"-0:00\"" },
	{ "{\"windows\": [{\"from\": \"25:00\", \"to\": \"02:00\", \"level\": 0}]}",
	  SRC ": windows[0].from: must be a time \"HH:MM\" from \"00:00\" to \"24:00\", got \"25:00\"" },
};
/* clang-format on */

static void test_refusals(void **state)
{
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		struct vcp_policy p, before;
		char *err = NULL;
		int r;

		memset(&p, 0x5a, sizeof(p));
		before = p;
		r = vcp_policy_parse(refusals[i].text, SRC, &p, &err);
		if (r != -EINVAL)
			fail_msg("accepted (%d): %s", r, refusals[i].text);
		assert_non_null(err);
		if (strcmp(err, refusals[i].msg))
			fail_msg("for %s\n got: %s\nwant: %s", refusals[i].text,
				 err, refusals[i].msg);
		assert_memory_equal(&p, &before, sizeof(p));
		free(err);
	}
}

/* reserved_cpus: a cpulist, none by default, round-trips; bad ones are
 * refused naming the key, and change nothing. */
static void test_reserved_cpus(void **state)
{
	static const char *const bad[] = {
		"\"0-\"",
		"\"a\"",
		"\"3-1\"",
		"\"16384\"",
		"5",
		"[0,1]",
		/* as strict as the times: no white space anywhere */
		"\" 0\"",
		"\"0 \"",
		"\"0\\n\"",
		"\"\\t0\"",
		"\"0, 1\"",
		"\"0 ,1\"",
		"\" \"",
	};
	struct vcp_policy p, q, before;
	struct json_object *o;
	char *err = NULL;
	char want[160];

	parse_ok("{}", &p);
	assert_true(vcp_cpuset_empty(&p.reserved_cpus));
	parse_ok("{\"reserved_cpus\": \"0-1,32-33\"}", &p);
	assert_int_equal(vcp_cpuset_count(&p.reserved_cpus), 4);
	assert_true(vcp_cpuset_test(&p.reserved_cpus, 0));
	assert_true(vcp_cpuset_test(&p.reserved_cpus, 33));
	assert_false(vcp_cpuset_test(&p.reserved_cpus, 2));
	o = vcp_policy_to_json(&p);
	assert_string_equal(json_object_get_string(
		json_object_object_get(o, "reserved_cpus")), "0-1,32-33");
	assert_int_equal(vcp_policy_from_json(o, SRC, &q, &err), 0);
	assert_true(vcp_cpuset_equal(&q.reserved_cpus, &p.reserved_cpus));
	vcp_policy_clear(&q);
	json_object_put(o);
	/* every other CPU of 16,384 (43,596 characters) round-trips whole */
	vcp_cpuset_zero(&p.reserved_cpus);
	for (unsigned int cpu = 0; cpu < 16384; cpu += 2)
		vcp_cpuset_set(&p.reserved_cpus, cpu);
	o = vcp_policy_to_json(&p);
	assert_non_null(json_object_object_get(o, "reserved_cpus"));
	assert_int_equal(strlen(json_object_get_string(
				 json_object_object_get(o, "reserved_cpus"))),
			 43596);
	assert_int_equal(vcp_policy_from_json(o, SRC, &q, &err), 0);
	assert_true(vcp_cpuset_equal(&q.reserved_cpus, &p.reserved_cpus));
	vcp_policy_clear(&q);
	json_object_put(o);
	parse_ok("{\"reserved_cpus\": \"\"}", &p);
	assert_true(vcp_cpuset_empty(&p.reserved_cpus));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[64];

		snprintf(text, sizeof(text), "{\"reserved_cpus\": %s}", bad[i]);
		snprintf(
			want, sizeof(want),
			SRC
			": reserved_cpus: must be a CPU list such as \"0-1,32-33\" (CPUs 0-16383), got %s",
			bad[i]);
		memset(&p, 0x5a, sizeof(p));
		before = p;
		assert_int_equal(vcp_policy_parse(text, SRC, &p, &err), -EINVAL);
		assert_non_null(err);
		assert_string_equal(err, want);
		assert_memory_equal(&p, &before, sizeof(p));
		free(err);
		err = NULL;
	}
}

static void test_irq_affinity(void **state)
{
	struct vcp_policy p, before;
	char *err = NULL;

	parse_ok("{}", &p);
	assert_false(p.irq_affinity);
	parse_ok("{\"irq_affinity\": \"on\"}", &p);
	assert_true(p.irq_affinity);
	parse_ok("{\"irq_affinity\": \"off\"}", &p);
	assert_false(p.irq_affinity);
	memset(&p, 0x5a, sizeof(p));
	before = p;
	assert_int_equal(vcp_policy_parse("{\"irq_affinity\": true}", SRC, &p,
					  &err), -EINVAL);
	assert_string_equal(err, SRC ": irq_affinity: must be \"on\" or \"off\", got true");
	assert_memory_equal(&p, &before, sizeof(p));
	free(err);
}

/* @p says exactly what vcp_policy_defaults() says, key by key. */
static void assert_policy_is_default(const struct vcp_policy *p)
{
	struct vcp_policy d;
	struct json_object *a = vcp_policy_to_json(p);
	struct json_object *b;

	vcp_policy_defaults(&d);
	b = vcp_policy_to_json(&d);
	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(json_object_to_json_string(a),
			    json_object_to_json_string(b));
	json_object_put(a);
	json_object_put(b);
	vcp_policy_clear(&d);
}

static void test_load(void **state)
{
	struct vcp_policy p;
	char *err = NULL;
	int r;

	r = vcp_policy_load(VCP_SRCDIR "/tests/data/policy/nonexistent.json",
			    &p, &err);
	assert_int_equal(r, -ENOENT);
	assert_string_equal(err, VCP_SRCDIR
			    "/tests/data/policy/nonexistent.json: No such file or directory");
	free(err);
	err = NULL;

	/* The shipped example is the built-in defaults written out: it
	 * must load to exactly what no file at all gives. */
	r = vcp_policy_load(VCP_SRCDIR "/host-agent/policy.example.json", &p,
			    &err);
	if (r)
		fail_msg("policy.example.json: %s", err);
	assert_policy_is_default(&p);
	vcp_policy_clear(&p);

	/* The second example adds only its business-hours window. */
	r = vcp_policy_load(VCP_SRCDIR "/host-agent/policy-business-hours.example.json",
			    &p, &err);
	if (r)
		fail_msg("policy-business-hours.example.json: %s", err);
	assert_int_equal(p.level, VCP_LEVEL_AUTO);
	assert_int_equal(p.n_windows, 1);
	assert_int_equal(p.windows[0].days, 0x3e);
	assert_int_equal(at(&p, 2, 9, 0), 0);
	assert_int_equal(at(&p, 6, 9, 0), VCP_LEVEL_AUTO);
	vcp_policy_clear(&p);

	r = vcp_policy_load(VCP_SRCDIR "/tests/data/policy/bad-day.json", &p,
			    &err);
	assert_int_equal(r, -EINVAL);
	assert_string_equal(err, VCP_SRCDIR
			    "/tests/data/policy/bad-day.json: windows[0].days[2]: unknown day 'Wendsday'");
	free(err);

	r = vcp_policy_load(VCP_SRCDIR "/tests/data/policy/partial.json", &p,
			    &err);
	assert_int_equal(r, 0);
	assert_int_equal(p.level, 2);
	assert_float_equal(p.headroom, 0.1, 1e-12);
	assert_float_equal(p.smt_yield, 0.3, 1e-12);
	vcp_policy_clear(&p);
}

/* Load with the shared rule into @p (first scribbled over: the rule
 * starts from the defaults itself); the file it tried in *@tried. */
static int load_or(const char *path, const char *fallback, struct vcp_policy *p,
		   const char **tried, char **err)
{
	memset(p, 0x5a, sizeof(*p));
	*tried = NULL;
	*err = NULL;
	return vcp_policy_load_or(path, fallback, p, tried, err);
}

/* The rule vcpack, vcpackd and the hook share (vcp_policy_load_or):
 * the default file when it exists, else the defaults; a named file
 * always, missing or not. */
static void test_load_or(void **state)
{
	const char *partial = VCP_SRCDIR "/tests/data/policy/partial.json";
	char dir[256], def[300], other[300], msg[400];
	struct vcp_policy p;
	const char *tried;
	char *err;

	t_tmpdir(dir, sizeof(dir), "policy");
	snprintf(def, sizeof(def), "%s/policy.json", dir);
	snprintf(other, sizeof(other), "%s/other.json", dir);

	/* no file named, the default absent: the defaults, no message */
	assert_int_equal(load_or(NULL, def, &p, &tried, &err), 0);
	assert_ptr_equal(tried, def);
	assert_null(err);
	assert_policy_is_default(&p);

	/* the default present: read */
	t_put(def, "{\"level\": 1, \"headroom\": 0.3}");
	assert_int_equal(load_or(NULL, def, &p, &tried, &err), 0);
	assert_ptr_equal(tried, def);
	assert_null(err);
	assert_int_equal(p.level, 1);
	assert_float_equal(p.headroom, 0.3, 1e-12);
	assert_float_equal(p.smt_yield, 0.3, 1e-12);
	vcp_policy_clear(&p);

	/* the default present but wrong: refused by name, defaults kept */
	t_put(def, "{\"level\": 7}");
	assert_int_equal(load_or(NULL, def, &p, &tried, &err), -EINVAL);
	assert_ptr_equal(tried, def);
	snprintf(msg, sizeof(msg),
		 "%s: level: must be 0, 1, 2 or \"auto\", got 7", def);
	assert_string_equal(err, msg);
	assert_policy_is_default(&p);
	free(err);

	/* a named file wins over a present default */
	t_put(def, "{\"level\": 1}");
	assert_int_equal(load_or(partial, def, &p, &tried, &err), 0);
	assert_ptr_equal(tried, partial);
	assert_null(err);
	assert_int_equal(p.level, 2);
	assert_float_equal(p.headroom, 0.1, 1e-12);
	vcp_policy_clear(&p);

	/* a named file that is missing is an error, even with a default */
	assert_int_equal(load_or(other, def, &p, &tried, &err), -ENOENT);
	assert_ptr_equal(tried, other);
	snprintf(msg, sizeof(msg), "%s: No such file or directory", other);
	assert_string_equal(err, msg);
	assert_policy_is_default(&p);
	free(err);

	t_rmtree(dir);
}

/* vcp_policy_load_host: the same rule on the host's own file. */
static void test_load_host(void **state)
{
	const char *partial = VCP_SRCDIR "/tests/data/policy/partial.json";
	struct vcp_policy p;
	const char *tried = NULL;
	char *err = NULL;

	assert_int_equal(vcp_policy_load_host(partial, &p, &tried, &err), 0);
	assert_ptr_equal(tried, partial);
	assert_int_equal(p.level, 2);
	vcp_policy_clear(&p);

	/* this machine's own file may or may not be there: only the name */
	vcp_policy_load_host(NULL, &p, &tried, &err);
	assert_string_equal(tried, VCP_SYSCONFDIR "/vcpack/policy.json");
	assert_string_equal(VCP_POLICY_PATH,
			    VCP_SYSCONFDIR "/vcpack/policy.json");
	vcp_policy_clear(&p);
	free(err);
}

static void refused_file(const char *path, int want, const char *msg)
{
	struct vcp_policy p;
	char *err = NULL;

	memset(&p, 0x5a, sizeof(p));
	assert_int_equal(vcp_policy_load(path, &p, &err), want);
	assert_non_null(err);
	assert_string_equal(err, msg);
	assert_int_equal(p.n_windows, 0x5a5a5a5a5a5a5a5aULL); /* untouched */
	free(err);
}

/* Not a regular file: refused by name at once, never read (a FIFO with
 * no writer would block a reader forever, /dev/zero never ends). */
static void test_not_regular(void **state)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[256], fifo[300], sock[300], big[300], msg[400];
	int fd;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/test_policy.XXXXXX", tmp);
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo.json", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	snprintf(msg, sizeof(msg), "%s: not a regular file (a FIFO)", fifo);
	refused_file(fifo, -EINVAL, msg);

	snprintf(msg, sizeof(msg), "%s: not a regular file (a directory)", dir);
	refused_file(dir, -EINVAL, msg);
	refused_file("/dev/zero", -EINVAL,
		     "/dev/zero: not a regular file (a character device)");

	snprintf(sock, sizeof(sock), "%s/s.json", dir);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_true(strlen(sock) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, sock, strlen(sock) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	snprintf(msg, sizeof(msg), "%s: not a regular file (a socket)", sock);
	refused_file(sock, -EINVAL, msg);
	close(fd);

	snprintf(big, sizeof(big), "%s/big.json", dir);
	f = fopen(big, "w");
	assert_non_null(f);
	for (size_t i = 0; i <= VCP_POLICY_MAX_BYTES; i += 8)
		fputs("        ", f);
	fclose(f);
	snprintf(msg, sizeof(msg), "%s: larger than %d bytes", big,
		 VCP_POLICY_MAX_BYTES);
	refused_file(big, -EFBIG, msg);

	unlink(big);
	unlink(sock);
	unlink(fifo);
	rmdir(dir);
}

/* Text after a NUL byte was never seen (the parser stopped at the NUL). */
static void test_nul_byte(void **state)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[256], msg[400];
	FILE *f;

	snprintf(path, sizeof(path), "%s/test_policy_nul.%d.json", tmp,
		 (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite("{\"level\": 1}\n\0{\"level\": 7}\n", 1, 28, f);
	fclose(f);
	snprintf(msg, sizeof(msg), "%s: not valid JSON at line 2: NUL byte",
		 path);
	refused_file(path, -EINVAL, msg);
	unlink(path);
}

static void test_double3(void **state)
{
	struct {
		double d;
		const char *s;
	} cases[] = {
		{ 0.25, "0.25" }, { 1.0 / 3, "0.333" }, { 2, "2" },
		{ 4.1600000001, "4.16" }, { -0.0001, "0" }, { 1234.5675, "1234.568" },
		{ 0.0005, "0.001" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct json_object *o = vcp_json_double3(cases[i].d);

		assert_string_equal(json_object_to_json_string(o), cases[i].s);
		json_object_put(o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_full_file),
		cmocka_unit_test(test_partial_overlay),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_reserved_cpus),
		cmocka_unit_test(test_irq_affinity),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_load_or),
		cmocka_unit_test(test_load_host),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_double3),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
