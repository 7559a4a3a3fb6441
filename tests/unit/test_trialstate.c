// SPDX-License-Identifier: GPL-2.0-or-later
/* test_trialstate.c - reading the verdict `vcpack trial` recorded: each
 * verdict, no file, a file that is not JSON or has no known verdict, and
 * the path from VCPACK_TRIAL_STATE. */
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

#include "trialstate.h"

static char path[4096];

static int write_file(const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -errno : 0;
}

static int setup(void **state)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int fd;

	snprintf(path, sizeof(path), "%s/test_trialstate.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	return 0;
}

static void test_verdicts(void **state)
{
	enum vcp_trial_verdict v = VCP_TRIAL_COSTS;

	assert_int_equal(write_file("{\"version\": 1, \"verdict\": \"saves\"}"), 0);
	assert_int_equal(vcp_trial_state_verdict(path, &v), 0);
	assert_int_equal(v, VCP_TRIAL_SAVES);
	assert_int_equal(write_file("{\"verdict\": \"no-difference\"}\n"), 0);
	assert_int_equal(vcp_trial_state_verdict(path, &v), 0);
	assert_int_equal(v, VCP_TRIAL_NO_DIFFERENCE);
	assert_int_equal(write_file("{\"verdict\": \"costs\"}"), 0);
	assert_int_equal(vcp_trial_state_verdict(path, &v), 0);
	assert_int_equal(v, VCP_TRIAL_COSTS);
}

static void test_bad(void **state)
{
	enum vcp_trial_verdict v = VCP_TRIAL_COSTS;

	assert_int_equal(write_file("{\"verdict\": \"Saves\"}"), 0);
	assert_int_equal(vcp_trial_state_verdict(path, &v), -EINVAL);
	assert_int_equal(write_file("{\"verdict\": 1}"), 0);
	assert_int_equal(vcp_trial_state_verdict(path, &v), -EINVAL);
	assert_int_equal(write_file("{\"verdict\": \"saves\""), 0);
	assert_int_equal(vcp_trial_state_verdict(path, &v), -EINVAL);
	assert_int_equal(write_file("[]"), 0);
	assert_int_equal(vcp_trial_state_verdict(path, &v), -EINVAL);
	assert_int_equal(v, VCP_TRIAL_COSTS);	/* untouched */
	assert_int_equal(vcp_trial_state_verdict("/nonexistent/trial.json", &v),
			 -ENOENT);
}

static void test_path(void **state)
{
	setenv("VCPACK_TRIAL_STATE", "/x/t.json", 1);
	assert_string_equal(vcp_trial_state_path(), "/x/t.json");
	setenv("VCPACK_TRIAL_STATE", "", 1);
	assert_string_equal(vcp_trial_state_path(), VCP_TRIAL_STATE);
	unsetenv("VCPACK_TRIAL_STATE");
	assert_string_equal(vcp_trial_state_path(), "/var/lib/vcpack/trial.json");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_path),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
