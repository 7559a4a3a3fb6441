// SPDX-License-Identifier: GPL-2.0-or-later
/* test_fleetstate.c - the fleet loop's state file: written and read back
 * (standby, failed with the last action and its output), no file = every
 * host on, a bad record refused by name with the file left as it was, a
 * sleeping host the fleet file dropped refused, a host named twice
 * refused (a later "on" would clear an earlier "failed"), saved atomically (a new
 * file renamed over the old, which a failed save leaves intact), the
 * path's override. */
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

#include "fixture.h"
#include "fleetstate.h"

static char dir[4096], path[4200];
static const char *const names[] = { "h1", "h2", "h3" };

static int setup(void **state)
{
	(void)state;
	t_tmpdir(dir, sizeof(dir), "fleetstate");
	/* the directory does not exist yet: save creates it */
	snprintf(path, sizeof(path), "%s/lib/fleet-state.json", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	t_rmtree(dir);
	return 0;
}

static char *slurp(void)
{
	FILE *f = fopen(path, "r");
	char *b = calloc(1, 65536);

	assert_non_null(f);
	assert_true(fread(b, 1, 65535, f) > 0);
	fclose(f);
	return b;
}

static void test_roundtrip(void **state)
{
	struct vcp_sb_state s, b;
	char *err = NULL;

	(void)state;
	assert_int_equal(vcp_fleet_state_load(path, names, 3, &s, &err), 0);
	assert_null(err);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(s.hosts[i].power, VCP_SB_ON);
	assert_int_equal(vcp_sb_note_standby(&s, 1, 1000, "empty"), 0);
	assert_int_equal(vcp_sb_note_action(&s, 1, "standby: command exit 0",
					    "asleep\n"), 0);
	assert_int_equal(vcp_sb_note_failed(&s, 2, 2000, "did not answer"), 0);
	vcp_sb_note_move(&s, 0, 1, 900);
	assert_int_equal(vcp_fleet_state_save(path, &s), 0);
	assert_int_equal(vcp_fleet_state_load(path, names, 3, &b, &err), 0);
	assert_int_equal(b.hosts[1].power, VCP_SB_STANDBY);
	assert_int_equal(b.hosts[1].since, 1000);
	assert_string_equal(b.hosts[1].why, "empty");
	assert_string_equal(b.hosts[1].last_action, "standby: command exit 0");
	assert_string_equal(b.hosts[1].output, "asleep\n");
	assert_int_equal(b.hosts[2].power, VCP_SB_FAILED);
	assert_string_equal(b.hosts[2].why, "did not answer");
	assert_null(b.hosts[2].last_action);
	assert_int_equal(vcp_sb_moves_last_hour(&b.hosts[0], 1000), 1);
	vcp_sb_state_clear(&s);
	vcp_sb_state_clear(&b);
}

static void refused(const char *text, const char *msg_part)
{
	struct vcp_sb_state s = { 0 };
	char *err = NULL, *after;
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(vcp_fleet_state_load(path, names, 3, &s, &err),
			 -EINVAL);
	assert_non_null(err);
	if (!strstr(err, msg_part))
		fail_msg("'%s' does not contain '%s'", err, msg_part);
	assert_null(s.hosts);
	after = slurp();
	assert_string_equal(after, text);	/* nothing lost */
	free(after);
	free(err);
}

static void test_bad_records(void **state)
{
	char cmd[8400];

	(void)state;
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/lib'", dir);
	assert_int_equal(system(cmd), 0);
	refused("{\"version\": 1, \"hosts\": [{\"name\": \"h2\", \"power\": \"asleep\"}]}",
		"hosts[0] (h2).power: must be on, draining, standby, waking or failed, got \"asleep\"");
	refused("{\"version\": 1, \"hosts\": [{\"name\": \"h1\"}, {\"name\": \"h3\", \"output\": 5}]}",
		"hosts[1] (h3).output: must be null or a string, got 5");
	refused("{\"version\": 1, \"hosts\": [{\"name\": \"h9\", \"power\": \"standby\"}]}",
		"'h9' is standby (by vcpack) but not in the fleet file");
	refused("{\"version\": 1, \"hosts\": [],}", "not valid JSON at line 1");
	refused("{\"version\": 2, \"hosts\": []}", "\"version\": 1");
	/* one host twice: failed, then on, would clear the latch */
	refused("{\"version\": 1, \"hosts\": [{\"name\": \"h2\", \"power\": \"failed\", \"why\": \"x\"}, {\"name\": \"h1\"}, {\"name\": \"h2\", \"power\": \"on\"}]}",
		"hosts[2] (h2): host 'h2' is also hosts[0]: one record a host");
	/* also a host the fleet file no longer lists */
	refused("{\"version\": 1, \"hosts\": [{\"name\": \"h9\"}, {\"name\": \"h9\"}]}",
		"hosts[1] (h9): host 'h9' is also hosts[0]: one record a host");
}

/* Saved atomically: a reader of the old file keeps reading it whole
 * (a new file renamed over it, not the old one rewritten), no temporary
 * file is left, and a save that cannot write leaves the old file as it
 * was. */
static void test_atomic(void **state)
{
	struct vcp_sb_state s;
	char *err = NULL, *before, tmp[4300], cmd[8800], buf[65536];
	FILE *old;
	size_t n;

	(void)state;
	assert_int_equal(vcp_fleet_state_load(path, names, 3, &s, &err), 0);
	assert_int_equal(vcp_fleet_state_save(path, &s), 0);
	before = slurp();
	old = fopen(path, "r");
	assert_non_null(old);
	assert_int_equal(vcp_sb_note_standby(&s, 0, 1000, "empty"), 0);
	assert_int_equal(vcp_fleet_state_save(path, &s), 0);
	n = fread(buf, 1, sizeof(buf) - 1, old);
	buf[n] = '\0';
	fclose(old);
	assert_string_equal(buf, before);
	assert_null(strstr(buf, "standby"));
	free(before);
	before = slurp();
	assert_non_null(strstr(before, "\"standby\""));
	/* nothing but the file (and no lock: save does not take it) */
	snprintf(cmd, sizeof(cmd),
		 "test \"$(ls -A '%s/lib')\" = fleet-state.json", dir);
	assert_int_equal(system(cmd), 0);
	/* the temporary file cannot be made: refused, the old file intact */
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	snprintf(cmd, sizeof(cmd), "mkdir '%s'", tmp);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(vcp_sb_note_failed(&s, 2, 2000, "gone"), 0);
	assert_true(vcp_fleet_state_save(path, &s) < 0);
	{
		char *after = slurp();

		assert_string_equal(after, before);
		free(after);
	}
	free(before);
	vcp_sb_state_clear(&s);
}

static void test_path(void **state)
{
	(void)state;
	unsetenv("VCPACK_FLEET_STATE");
	assert_string_equal(vcp_fleet_state_path(NULL), VCP_FLEET_STATE);
	setenv("VCPACK_FLEET_STATE", "/tmp/x.json", 1);
	assert_string_equal(vcp_fleet_state_path(NULL), "/tmp/x.json");
	assert_string_equal(vcp_fleet_state_path("/a/b.json"), "/a/b.json");
	unsetenv("VCPACK_FLEET_STATE");
}

/* One loop per state file: a second is told the first's pid; once the
 * first lets go, it may. */
static void test_run_lock(void **st)
{
	int fd = -1, fd2 = -1;
	long pid = -1;

	(void)st;
	assert_int_equal(vcp_fleet_state_run_lock(path, &fd, &pid), 0);
	assert_true(fd >= 0);
	assert_int_equal(vcp_fleet_state_run_lock(path, &fd2, &pid), -EBUSY);
	assert_int_equal(pid, (long)getpid());
	assert_int_equal(fd2, -1);
	vcp_fleet_state_unlock(fd);
	assert_int_equal(vcp_fleet_state_run_lock(path, &fd2, &pid), 0);
	vcp_fleet_state_unlock(fd2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_records, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_atomic, setup, teardown),
		cmocka_unit_test(test_path),
		cmocka_unit_test_setup_teardown(test_run_lock, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
