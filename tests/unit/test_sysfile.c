// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_sysfile.c - the file helpers every module shares: the directories
 * above a state file made as `mkdir -p` does, in a scratch directory.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "fixture.h"
#include "sysfile.h"

struct root {
	char dir[256];
};

static int setup(void **state)
{
	static struct root r;

	t_tmpdir(r.dir, sizeof(r.dir), "sysfile");
	*state = &r;
	return 0;
}

static int teardown(void **state)
{
	struct root *r = *state;

	t_rmtree(r->dir);
	return 0;
}

static const char *at(const struct root *r, const char *rel)
{
	static char buf[512];
	int n = snprintf(buf, sizeof(buf), "%s%s", r->dir, rel);

	assert_true(n > 0 && (size_t)n < sizeof(buf));
	return buf;
}

static bool is_dir(const struct root *r, const char *rel)
{
	struct stat st;

	return stat(at(r, rel), &st) == 0 && S_ISDIR(st.st_mode);
}

static void test_mkdir_parents(void **state)
{
	struct root *r = *state;

	/* nested, none there yet; the last part is the file: not made */
	assert_int_equal(vcp_mkdir_parents(at(r, "/a/b/c/state.json")), 0);
	assert_true(is_dir(r, "/a/b/c"));
	assert_false(is_dir(r, "/a/b/c/state.json"));
	/* there already, and doubled slashes */
	assert_int_equal(vcp_mkdir_parents(at(r, "/a/b/c/state.json")), 0);
	assert_int_equal(vcp_mkdir_parents(at(r, "/a//b/d/f")), 0);
	assert_true(is_dir(r, "/a/b/d"));
	/* a regular file where a directory goes: refused, nothing below */
	t_put(at(r, "/a/file"), "x\n");
	assert_int_equal(vcp_mkdir_parents(at(r, "/a/file/x")), -ENOTDIR);
	assert_int_equal(vcp_mkdir_parents(at(r, "/a/file/d/x")), -ENOTDIR);
	assert_false(is_dir(r, "/a/file/d"));
	/* no directory part: nothing to make */
	assert_int_equal(vcp_mkdir_parents("state.json"), 0);
	assert_int_equal(vcp_mkdir_parents("/"), 0);
	assert_int_equal(vcp_mkdir_parents(""), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mkdir_parents, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
