// SPDX-License-Identifier: GPL-2.0-or-later
/* test_powercmd.c - an operator's power command as vcpack runs it: argv
 * without a shell (a ';' stays an argument), stdout and stderr captured
 * and capped, the exit status, environment added, a program that does
 * not exist, and one that outlives its timeout (killed as a group, and a
 * child it left holding the pipe does not keep vcpack waiting); a stop
 * asked for while it runs lets it finish and says so once with its pid,
 * a kill asked for kills its group at once, long before its timeout;
 * with options: a larger output kept, stderr kept apart from stdout
 * (both read while the command runs: neither pipe fills and blocks it). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "powercmd.h"

/* The state letter and process group of process @pid (a /proc name) from
 * /proc/PID/stat: 1, 0 if it is gone, -1 if its line does not read. */
static int proc_stat(const char *pid, char *state, int *pgrp)
{
	char path[300], buf[512], *p;
	int ok = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) &&
	    sscanf(p + 1, " %c %*d %d", state, pgrp) == 2)
		ok = 1;
	fclose(f);
	return ok;
}

/* Is @pid a zombie (ended, not yet reaped)? */
static bool zombie(pid_t pid)
{
	char name[24], st;
	int pgrp, r;

	snprintf(name, sizeof(name), "%d", (int)pid);
	r = proc_stat(name, &st, &pgrp);
	if (r == 0)
		return true; /* gone */
	return r > 0 && st == 'Z';
}

/* Processes of group @pgid still running (zombies are dead: init reaps
 * them when it comes to it, and until then kill(-pgid, 0) finds them). */
static int group_live(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0, pgrp;
	char st;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9' &&
		    proc_stat(e->d_name, &st, &pgrp) > 0 && pgrp == (int)pgid &&
		    st != 'Z')
			n++;
	closedir(d);
	return n;
}

static void test_argv_no_shell(void **state)
{
	char *argv[] = { "printf", "%s|%s", "a; echo injected", "$(id)", NULL };
	struct vcp_cmd_result r;

	(void)state;
	assert_int_equal(vcp_cmd_run(argv, NULL, 10, &r), 0);
	assert_int_equal(r.status, 0);
	assert_false(r.timed_out);
	assert_string_equal(r.output, "a; echo injected|$(id)");
	vcp_cmd_result_clear(&r);
}

static void test_status_stderr_env(void **state)
{
	char *argv[] = { "sh", "-c", "echo out; echo err >&2; echo $VCPACK_HOST; exit 3", NULL };
	char *env[] = { "VCPACK_HOST=h2", NULL };
	struct vcp_cmd_result r;
	char buf[64];

	(void)state;
	assert_int_equal(vcp_cmd_run(argv, env, 10, &r), 0);
	assert_int_equal(r.status, 3);
	assert_string_equal(r.output, "out\nerr\nh2\n");
	assert_string_equal(vcp_cmd_outcome(&r, buf, sizeof(buf), 10), "exit 3");
	vcp_cmd_result_clear(&r);
}

static void test_output_capped(void **state)
{
	char *argv[] = { "sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x", NULL };
	struct vcp_cmd_result r;

	(void)state;
	assert_int_equal(vcp_cmd_run(argv, NULL, 10, &r), 0);
	assert_int_equal(r.status, 0);
	assert_int_equal(strlen(r.output), VCP_CMD_MAX_OUTPUT);
	vcp_cmd_result_clear(&r);
}

static void test_opts_larger_output(void **state)
{
	char *argv[] = { "sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x",
			 NULL };
	struct vcp_cmd_opts o = { .max_output = 65536 };
	struct vcp_cmd_result r;

	(void)state;
	assert_int_equal(vcp_cmd_run_opts(argv, NULL, 10, NULL, &o, &r), 0);
	assert_int_equal(r.status, 0);
	assert_int_equal(strlen(r.output), 65536);
	assert_null(r.errout);
	vcp_cmd_result_clear(&r);
}

static void test_opts_stderr_apart(void **state)
{
	/* 200 KB on each pipe, interleaved: both are read as it runs */
	char *argv[] = {
		"sh", "-c",
		"echo out; echo err >&2; i=0; while [ $i -lt 2000 ]; do "
		"printf '%0100d\\n' 0; printf '%0100d\\n' 1 >&2; i=$((i+1)); done; exit 4",
		NULL
	};
	struct vcp_cmd_opts o = { .max_output = 1 << 20, .stderr_apart = true };
	struct vcp_cmd_result r;

	(void)state;
	assert_int_equal(vcp_cmd_run_opts(argv, NULL, 30, NULL, &o, &r), 0);
	assert_int_equal(r.status, 4);
	assert_false(r.timed_out);
	assert_int_equal(strncmp(r.output, "out\n0000", 8), 0);
	assert_int_equal(strlen(r.output), 4 + 2000 * 101);
	assert_null(strchr(r.output, '1'));
	assert_int_equal(strncmp(r.errout, "err\n0000", 8), 0);
	assert_int_equal(strlen(r.errout), VCP_CMD_MAX_OUTPUT);
	vcp_cmd_result_clear(&r);
}

static void test_missing_program(void **state)
{
	char *argv[] = { "/nonexistent/wake-h1", NULL };
	struct vcp_cmd_result r;

	(void)state;
	assert_int_equal(vcp_cmd_run(argv, NULL, 10, &r), -ENOENT);
	assert_string_equal(r.output, "cannot execute: No such file or directory");
	vcp_cmd_result_clear(&r);
}

static void test_timeout(void **state)
{
	/* the shell ignores TERM: the group is killed 2 s later */
	char *argv[] = { "sh", "-c", "trap '' TERM; echo started; sleep 30 & sleep 30", NULL };
	struct vcp_cmd_result r;
	char buf[64];

	(void)state;
	assert_int_equal(vcp_cmd_run(argv, NULL, 1, &r), 0);
	assert_true(r.timed_out);
	assert_int_equal(r.status, -1);
	assert_string_equal(r.output, "started\n");
	assert_string_equal(vcp_cmd_outcome(&r, buf, sizeof(buf), 1),
			    "timed out after 1 s");
	vcp_cmd_result_clear(&r);
}

/* The command dies at SIGTERM, a child it left in its group ignores
 * SIGTERM: once the command is gone that child is killed (SIGKILL to the
 * group), not left running. */
static void test_timeout_leftover_killed(void **state)
{
	char pidfile[] = "/tmp/vcp-test-powercmd-XXXXXX";
	int fd = mkstemp(pidfile);
	char script[512], got[32] = "";
	char *argv[] = { "sh", "-c", script, NULL };
	struct vcp_cmd_result r;
	FILE *f;
	pid_t left;
	int k;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	snprintf(
		script, sizeof(script),
		"(trap '' TERM; exec sleep 30) & echo $! >%s; echo started; wait",
		pidfile);
	assert_int_equal(vcp_cmd_run(argv, NULL, 1, &r), 0);
	assert_true(r.timed_out);
	assert_string_equal(r.output, "started\n");
	vcp_cmd_result_clear(&r);
	f = fopen(pidfile, "r");
	assert_non_null(f);
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	unlink(pidfile);
	left = (pid_t)atoi(got);
	assert_true(left > 0);
	/* gone, or a zombie for init to reap, within a second */
	for (k = 0; k < 20 && kill(left, 0) == 0 && !zombie(left); k++)
		usleep(50000);
	if (kill(left, 0) == 0 && !zombie(left)) {
		kill(left, SIGKILL);
		fail_msg("pid %d (sleep, ignoring SIGTERM) still runs",
			 (int)left);
	}
}

static void test_child_keeps_pipe(void **state)
{
	/* exits at once, a background child keeps stdout open */
	char *argv[] = { "sh", "-c", "sleep 5 & echo done", NULL };
	struct vcp_cmd_result r;

	(void)state;
	assert_int_equal(vcp_cmd_run(argv, NULL, 20, &r), 0);
	assert_false(r.timed_out);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.output, "done\n");
	vcp_cmd_result_clear(&r);
}

struct told {
	int calls;
	pid_t pid;
};

static void on_stopping(void *opaque, pid_t pid)
{
	struct told *t = opaque;

	t->calls++;
	t->pid = pid;
}

static void test_stop_lets_it_finish(void **state)
{
	char *argv[] = { "sh", "-c", "sleep 0.3; echo finished", NULL };
	volatile sig_atomic_t stop = SIGINT, kill_now = 0;
	struct told t = { 0 };
	struct vcp_cmd_watch w = { .stop = &stop, .stopping = on_stopping,
				   .kill = &kill_now, .opaque = &t };
	struct vcp_cmd_result r;

	(void)state;
	assert_int_equal(vcp_cmd_run_watched(argv, NULL, 20, &w, &r), 0);
	assert_int_equal(t.calls, 1);
	assert_true(t.pid > 0);
	assert_int_equal(t.pid, r.pid);
	assert_false(r.killed);
	assert_false(r.timed_out);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.output, "finished\n");
	vcp_cmd_result_clear(&r);
}

static void test_kill_asked(void **state)
{
	/* ignores nothing: SIGTERM to its group ends it and its sleep */
	char *argv[] = { "sh", "-c", "echo started; sleep 30", NULL };
	volatile sig_atomic_t stop = SIGTERM, kill_now = SIGTERM;
	struct vcp_cmd_watch w = { .stop = &stop, .kill = &kill_now };
	struct vcp_cmd_result r;
	char buf[96], want[96];
	int k;

	(void)state;
	assert_int_equal(vcp_cmd_run_watched(argv, NULL, 60, &w, &r), 0);
	assert_true(r.killed);
	assert_false(r.timed_out);
	assert_int_equal(r.status, -1);
	assert_int_equal(r.signal, SIGTERM);
	snprintf(want, sizeof(want), "killed when asked to (pid %d, its process group)",
		 (int)r.pid);
	assert_string_equal(vcp_cmd_outcome(&r, buf, sizeof(buf), 60), want);
	/* its group is gone: no process of it left running within a second
	 * (the sleep, SIGKILLed with the group, may be a zombie until init
	 * reaps it: kill(-pid, 0) found one once in a CI run) */
	for (k = 0; k < 20 && group_live(r.pid) != 0; k++)
		usleep(50000);
	assert_int_equal(group_live(r.pid), 0);
	vcp_cmd_result_clear(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv_no_shell),
		cmocka_unit_test(test_status_stderr_env),
		cmocka_unit_test(test_output_capped),
		cmocka_unit_test(test_opts_larger_output),
		cmocka_unit_test(test_opts_stderr_apart),
		cmocka_unit_test(test_missing_program),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_timeout_leftover_killed),
		cmocka_unit_test(test_child_keeps_pipe),
		cmocka_unit_test(test_stop_lets_it_finish),
		cmocka_unit_test(test_kill_asked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
