// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_sysfile.c - the file helpers every module shares: a daemon's pid
 * found under a root (its pid file when that names a process with the
 * daemon's comm, else a scan of ROOT/proc), the directories above a
 * state file made as `mkdir -p` does, and a state file written with them
 * or removed, in a scratch directory.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "sysfile.h"

#define PLACERS VCP_SRCDIR "/tests/data/placers/"

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

static void mkdirs(const struct root *r, const char *rel)
{
	char probe[128];
	int n = snprintf(probe, sizeof(probe), "%s/x", rel);

	assert_true(n > 0 && (size_t)n < sizeof(probe));
	assert_int_equal(vcp_mkdir_parents(at(r, probe)), 0);
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

/* The content of @rel under the scratch root. */
static const char *content(const struct root *r, const char *rel)
{
	static char buf[256];

	t_slurp(at(r, rel), buf, sizeof(buf));
	return buf;
}

static void test_state_file_put(void **state)
{
	struct root *r = *state;

	/* the directories made, the text and a newline written */
	assert_int_equal(vcp_state_file_put(at(r, "/var/lib/x/state"), "1 0-3"),
			 0);
	assert_string_equal(content(r, "/var/lib/x/state"), "1 0-3\n");
	/* replaced whole */
	assert_int_equal(vcp_state_file_put(at(r, "/var/lib/x/state"), "2"), 0);
	assert_string_equal(content(r, "/var/lib/x/state"), "2\n");
	assert_false(is_dir(r, "/var/lib/x/state"));
	/* NULL removes it; removing what is not there is fine */
	assert_int_equal(vcp_state_file_put(at(r, "/var/lib/x/state"), NULL),
			 0);
	assert_int_equal(access(at(r, "/var/lib/x/state"), F_OK), -1);
	assert_int_equal(vcp_state_file_put(at(r, "/var/lib/x/state"), NULL),
			 0);
	assert_int_equal(vcp_state_file_put(at(r, "/none/state"), NULL), 0);
	/* a file where a directory goes: refused, and said */
	t_put(at(r, "/var/lib/f"), "x\n");
	assert_int_equal(vcp_state_file_put(at(r, "/var/lib/f/state"), "1"),
			 -ENOTDIR);
	/* a directory where the file goes cannot be removed as one */
	mkdirs(r, "/var/lib/d/state");
	assert_int_equal(vcp_state_file_put(at(r, "/var/lib/d/state"), NULL),
			 -EISDIR);
}

/* numad's pid under the scratch root */
static int numad(const struct root *r)
{
	return vcp_proc_find_daemon(r->dir, "/run/numad.pid", "numad");
}

static void test_find_daemon(void **state)
{
	struct root *r = *state;

	/* nothing runs: 0 */
	mkdirs(r, "/proc/1");
	t_put(at(r, "/proc/1/comm"), "init\n");
	assert_int_equal(numad(r), 0);
	/* found by its comm alone */
	mkdirs(r, "/proc/20");
	t_put(at(r, "/proc/20/comm"), "numad\n");
	assert_int_equal(vcp_proc_find_comm(r->dir, "numad"), 20);
	assert_int_equal(numad(r), 20);
	/* its pid file wins over the scan */
	mkdirs(r, "/run");
	mkdirs(r, "/proc/30");
	t_put(at(r, "/proc/30/comm"), "numad\n");
	t_put(at(r, "/run/numad.pid"), "30\n");
	assert_int_equal(numad(r), 30);
	/* the pid was taken by another program since: the scan's */
	t_put(at(r, "/proc/30/comm"), "sshd\n");
	assert_int_equal(numad(r), 20);
	/* gone, or not a pid: the scan's */
	t_put(at(r, "/run/numad.pid"), "40\n");
	assert_int_equal(numad(r), 20);
	t_put(at(r, "/run/numad.pid"), "30x\n");
	assert_int_equal(numad(r), 20);
	/* the shipped fixtures */
	assert_int_equal(vcp_proc_find_daemon(PLACERS "numad-tuned",
					      "/var/run/numad.pid", "numad"),
			 77);
	assert_int_equal(vcp_proc_find_daemon(PLACERS "comm-only",
					      "/var/run/numad.pid", "numad"),
			 90);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mkdir_parents, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_find_daemon, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_state_file_put, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
