// SPDX-License-Identifier: GPL-2.0-or-later
/* test_control.c - vcpackd's run-time control state: level names, the
 * state file written and read back (atomically: no FILE.tmp left), a
 * missing file as the empty state, bad files refused by member, and
 * which level is in force and why (override, window, policy). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "control.h"
#include "policy.h"

static char dir[4096], path[4200];

static int setup(void **state)
{
	const char *t = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	snprintf(dir, sizeof(dir), "%s/test_control.XXXXXX", t);
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/state.json", dir);
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	rmdir(dir);
	return 0;
}

static void test_level_parse(void **state)
{
	int l = 9;
	bool pol = true;

	assert_int_equal(vcp_control_level_parse("2", &l, &pol), 0);
	assert_int_equal(l, 2);
	assert_false(pol);
	assert_int_equal(vcp_control_level_parse("auto", &l, &pol), 0);
	assert_int_equal(l, VCP_LEVEL_AUTO);
	assert_int_equal(vcp_control_level_parse("policy", &l, &pol), 0);
	assert_true(pol);
	assert_int_equal(vcp_control_level_parse("3", &l, &pol), -EINVAL);
	assert_int_equal(vcp_control_level_parse("", &l, &pol), -EINVAL);
	assert_string_equal(vcp_control_level_name(VCP_LEVEL_AUTO), "auto");
	assert_string_equal(vcp_control_level_name(1), "1");
}

static void test_roundtrip(void **state)
{
	struct vcp_control c = { .has_level = true, .level = VCP_LEVEL_AUTO,
				 .level_since = 100, .paused = true,
				 .paused_since = 200 }, got = { 0 };
	char tmp[4300];
	char *err = NULL;

	assert_int_equal(vcp_control_load(path, &got, &err), 0);
	assert_false(got.has_level);
	assert_false(got.paused);
	assert_int_equal(vcp_control_save(path, &c), 0);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_equal(access(tmp, F_OK), -1);
	assert_int_equal(vcp_control_load(path, &got, &err), 0);
	assert_true(got.has_level);
	assert_int_equal(got.level, VCP_LEVEL_AUTO);
	assert_int_equal(got.level_since, 100);
	assert_true(got.paused);
	assert_int_equal(got.paused_since, 200);
	c = (struct vcp_control){ .has_level = true, .level = 1 };
	assert_int_equal(vcp_control_save(path, &c), 0);
	assert_int_equal(vcp_control_load(path, &got, &err), 0);
	assert_int_equal(got.level, 1);
	assert_false(got.paused);
	assert_false(got.has_enabled);
	c = (struct vcp_control){ .has_enabled = true, .enabled = true,
				  .enabled_since = 300 };
	assert_int_equal(vcp_control_save(path, &c), 0);
	assert_int_equal(vcp_control_load(path, &got, &err), 0);
	assert_true(got.has_enabled);
	assert_true(got.enabled);
	assert_int_equal(got.enabled_since, 300);
	c.enabled = false;
	assert_int_equal(vcp_control_save(path, &c), 0);
	assert_int_equal(vcp_control_load(path, &got, &err), 0);
	assert_true(got.has_enabled);
	assert_false(got.enabled);
	assert_null(err);
}

/* What `vcpack enable`/`disable` said wins; else the policy; else off. */
static void test_enabled(void **state)
{
	struct vcp_control none = { 0 }, on = { .has_enabled = true,
						.enabled = true },
			   off = { .has_enabled = true };
	struct vcp_policy p;
	char why[256];

	vcp_policy_defaults(&p);
	assert_false(vcp_control_enabled(&none, &p, why, sizeof(why)));
	assert_non_null(strstr(why, "not enabled yet"));
	assert_non_null(strstr(why, "'vcpack enable'"));
	assert_true(vcp_control_enabled(&on, &p, why, sizeof(why)));
	assert_string_equal(why, "enabled with 'vcpack enable'");
	p.enabled = true;
	assert_true(vcp_control_enabled(&none, &p, why, sizeof(why)));
	assert_string_equal(why, "enabled by the policy (\"enabled\": true)");
	assert_false(vcp_control_enabled(&off, &p, why, sizeof(why)));
	assert_string_equal(why, "disabled with 'vcpack disable'");
}

static void bad(const char *text, const char *msg)
{
	struct vcp_control got = { .paused = true };
	FILE *f = fopen(path, "w");
	char *err = NULL;

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(vcp_control_load(path, &got, &err), -EINVAL);
	assert_non_null(err);
	assert_non_null(strstr(err, msg));
	assert_true(got.paused);	/* untouched */
	free(err);
}

static void test_bad(void **state)
{
	bad("{\"level\": 3}", "state.json: level: must be null, 0, 1, 2 or \"auto\", got 3");
	bad("{\"level\": \"policy\"}", "level: must be");
	bad("{\"paused\": 1}", "paused: must be true or false, got 1");
	bad("{\"paused_since\": \"x\"}", "paused_since");
	bad("{\"enabled\": \"yes\"}", "enabled: must be null, true or false, got \"yes\"");
	bad("{\"enabled_since\": -1}", "enabled_since");
	bad("[]", "not a JSON object");
	bad("{", "not valid JSON");
}

static void test_level_at(void **state)
{
	struct vcp_window w = { .days = 0x7f, .start = 9 * 60, .end = 17 * 60,
				.level = 0 };
	struct vcp_policy p;
	struct vcp_control c = { 0 };
	struct tm noon = { .tm_wday = 2, .tm_hour = 12 };
	struct tm night = { .tm_wday = 2, .tm_hour = 22 };
	char why[256];

	vcp_policy_defaults(&p);
	p.level = VCP_LEVEL_AUTO;
	p.windows = &w;
	p.n_windows = 1;
	assert_int_equal(vcp_control_level_at(&c, &p, &night, why, sizeof(why)),
			 VCP_LEVEL_AUTO);
	assert_string_equal(why, "the policy's level");
	assert_int_equal(vcp_control_level_at(&c, &p, &noon, why, sizeof(why)), 0);
	assert_string_equal(why, "policy schedule window 0 (09:00-17:00)");
	c.has_level = true;
	c.level = 2;
	assert_int_equal(vcp_control_level_at(&c, &p, &noon, why, sizeof(why)), 2);
	assert_non_null(strstr(why, "set with 'vcpack level 2'"));
	p.windows = NULL;
	p.n_windows = 0;
	vcp_policy_clear(&p);
}

/* The policy a plan is made with: as given without an override, the
 * override's level and no windows with one; either way the level it
 * gives at a time is the level status reports in force then. */
static void test_policy_in_force(void **state)
{
	struct vcp_window w = {
		.days = 0x7f, .start = 9 * 60, .end = 17 * 60, .level = 0
	};
	struct tm times[2] = { { .tm_wday = 2, .tm_hour = 12 },
			       { .tm_wday = 2, .tm_hour = 22 } };
	struct vcp_control c = { 0 };
	struct vcp_policy p, in;
	char why[256];

	vcp_policy_defaults(&p);
	p.level = 1;
	p.max_vcpu_delay = 0.3;
	p.windows = &w;
	p.n_windows = 1;
	in = vcp_control_policy(&c, &p);
	assert_int_equal(in.level, 1);
	assert_int_equal(in.n_windows, 1);
	assert_ptr_equal(in.windows, &w);
	assert_float_equal(in.max_vcpu_delay, 0.3, 1e-9);
	for (int lv = -1; lv <= 2; lv++) {
		c.has_level = lv >= 0;
		c.level = lv == 0 ? VCP_LEVEL_AUTO : lv;
		in = vcp_control_policy(&c, &p);
		if (c.has_level) {
			assert_int_equal(in.level, c.level);
			assert_int_equal(in.n_windows, 0);
		}
		assert_float_equal(in.max_vcpu_delay, 0.3, 1e-9);
		for (int t = 0; t < 2; t++) {
			struct tm tm = times[t];

			assert_int_equal(vcp_policy_level_at(&in, &tm),
					 vcp_control_level_at(&c, &p, &times[t],
							      why,
							      sizeof(why)));
		}
	}
	p.windows = NULL;
	p.n_windows = 0;
	vcp_policy_clear(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level_parse),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_enabled),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_level_at),
		cmocka_unit_test(test_policy_in_force),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
