// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_scx.c - the sched_ext mode's pieces on fixture trees
 * (tests/data/scx/): scxstate.c's reading (scx_vcpack loaded, another
 * scheduler loaded, disabled, ejected with its pins left, absent, a bad
 * state), mode.c's decision (patched kernel > scx > pin, with reasons)
 * and scx.c's commands against tests/data/scx/fake-scx_vcpack (argv,
 * `show` parsed into the nearest classed ancestor, errors, the loader
 * started, waited for and stopped).
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "mode.h"
#include "scx.h"
#include "scxstate.h"

#define SCXDATA VCP_SRCDIR "/tests/data/scx/"
#define FAKE SCXDATA "fake-scx_vcpack"

/* ---- scxstate.c ---- */

/* The fixture tree @tree reads as @st, @ops, maps pinned or not, and is
 * scx_vcpack's or not. */
static void read_is(const char *tree, enum vcp_scx_state st, const char *ops,
		    bool pinned, bool ours)
{
	struct vcp_scx_info i;

	memset(&i, 0x5a, sizeof(i));
	assert_int_equal(vcp_scx_read(tree, NULL, &i), 0);
	assert_int_equal(i.state, st);
	assert_string_equal(i.ops, ops);
	assert_int_equal(i.maps_pinned, pinned);
	assert_int_equal(vcp_scx_is_ours(&i), ours);
}

static void test_read_ours(void **state)
{
	struct vcp_scx_info i;

	read_is(SCXDATA "ours", VCP_SCX_ENABLED, "vcpack", true, true);
	/* another pin directory has no maps */
	assert_int_equal(vcp_scx_read(SCXDATA "ours", "/sys/fs/bpf/other", &i), 0);
	assert_false(i.maps_pinned);
	assert_false(vcp_scx_is_ours(&i));
}

static void test_read_other(void **state)
{
	read_is(SCXDATA "other", VCP_SCX_ENABLED, "lavd_1.0.6_x86_64", false,
		false);
}

static void test_read_disabled_ejected_absent(void **state)
{
	read_is(SCXDATA "disabled", VCP_SCX_DISABLED, "", false, false);
	read_is(SCXDATA "ejected", VCP_SCX_DISABLED, "", true, false);
	read_is(SCXDATA "absent", VCP_SCX_ABSENT, "", false, false);
	assert_string_equal(vcp_scx_state_name(VCP_SCX_ABSENT), "absent");
}

static void test_read_refusals(void **state)
{
	struct vcp_scx_info i = { .state = VCP_SCX_ENABLING, .ops = "keep" };

	assert_int_equal(vcp_scx_read(SCXDATA "bad", NULL, &i), -EBADMSG);
	assert_int_equal(vcp_scx_read("", NULL, &i), -EINVAL);
	assert_int_equal(vcp_scx_read(NULL, NULL, &i), -EINVAL);
	/* untouched on failure */
	assert_int_equal(i.state, VCP_SCX_ENABLING);
	assert_string_equal(i.ops, "keep");
}

/* ---- mode.c's decision ---- */

static const struct vcp_scx_info S_OURS = { VCP_SCX_ENABLED, "vcpack", true };
static const struct vcp_scx_info S_OTHER = { VCP_SCX_ENABLED, "lavd", false };
static const struct vcp_scx_info S_OFF = { VCP_SCX_DISABLED, "", false };
static const struct vcp_scx_info S_STALE = { VCP_SCX_DISABLED, "", true };
static const struct vcp_scx_info S_GOING = { VCP_SCX_DISABLING, "vcpack", true };
static const struct vcp_scx_info S_NOPIN = { VCP_SCX_ENABLED, "vcpack", false };
static const struct vcp_scx_info S_ABSENT = { VCP_SCX_ABSENT, "", false };

struct dcase {
	const char *name;
	struct vcp_mode_facts f;
	enum vcp_mode mode;
	bool start;
	const char *reason;	/* a part of the reason */
};

#define LOCAL .force = -1, .local = true, .cpu_cgroup = true, \
	.kernel_reason = "stock kernel"

static const struct dcase dcases[] = {
	{ "patched kernel first", { .force = -1, .local = true,
	  .cpu_cgroup = true, .knobs = true, .scx = &S_OURS,
	  .kernel_reason = "patched" }, VCP_MODE_KERNEL, false, "patched" },
	{ "scx_vcpack loaded", { LOCAL, .scx = &S_OURS, .may_start = true },
	  VCP_MODE_SCX, false, "scx_vcpack is loaded" },
	{ "disabled, vcpackd starts it", { LOCAL, .scx = &S_OFF,
	  .may_start = true }, VCP_MODE_SCX, true, "vcpackd loads scx_vcpack" },
	{ "disabled, the CLI does not", { LOCAL, .scx = &S_OFF },
	  VCP_MODE_PIN, false, "scx_vcpack is not loaded" },
	{ "another scheduler", { LOCAL, .scx = &S_OTHER, .may_start = true },
	  VCP_MODE_PIN, false, "another BPF scheduler ('lavd', enabled)" },
	{ "ejected, pins left", { LOCAL, .scx = &S_STALE, .may_start = true,
	  .scx_failed = "went away (its loader ejected by the kernel (see dmesg))" },
	  VCP_MODE_PIN, false, "scx_vcpack went away (its loader ejected" },
	{ "being ejected", { LOCAL, .scx = &S_GOING },
	  VCP_MODE_PIN, false, "scx_vcpack is disabling" },
	{ "running, no pins", { LOCAL, .scx = &S_NOPIN, .may_start = true },
	  VCP_MODE_PIN, false, "not pinned" },
	{ "failed once, not again", { LOCAL, .scx = &S_OFF, .may_start = true,
	  .scx_failed = "did not load" }, VCP_MODE_PIN, false,
	  "restart vcpackd to try sched_ext again" },
	{ "no sched_ext", { LOCAL, .scx = &S_ABSENT, .may_start = true },
	  VCP_MODE_PIN, false, "stock kernel; no sched_ext either" },
	{ "no cpu controller", { .force = -1, .local = true, .scx = &S_OURS,
	  .kernel_reason = "no cpu" }, VCP_MODE_PIN, false,
	  "no cgroup hierarchy has the cpu controller" },
	{ "remote", { .force = -1, .scx = &S_OURS }, VCP_MODE_PIN, false,
	  "remote host" },
	{ "test driver", { .force = -1, .test_driver = true },
	  VCP_MODE_PIN, false, "test driver" },
	{ "forced pin", { .force = VCP_MODE_PIN, .local = true,
	  .cpu_cgroup = true, .scx = &S_OURS },
	  VCP_MODE_PIN, false, "forced with --mode" },
	{ "forced scx starts it", { .force = VCP_MODE_SCX, .local = true,
	  .cpu_cgroup = true, .knobs = true, .scx = &S_OFF, .may_start = true }, VCP_MODE_SCX,
	  true, "forced with --mode" },
};

/* --mode asking for what this host cannot run: refused, the mode found
 * kept, the reason says what is missing */
static const struct dcase refusals[] = {
	{ "scx, no sched_ext",
	  { .force = VCP_MODE_SCX,
	    .local = true,
	    .cpu_cgroup = true,
	    .scx = &S_ABSENT,
	    .may_start = true },
	  VCP_MODE_PIN,
	  false,
	  "--mode scx: this kernel has no sched_ext" },
	{ "scx, no cpu controller",
	  { .force = VCP_MODE_SCX,
	    .local = true,
	    .scx = &S_OFF,
	    .may_start = true },
	  VCP_MODE_PIN,
	  false,
	  "--mode scx: no cgroup hierarchy has the cpu controller" },
	{ "kernel, no knobs",
	  { .force = VCP_MODE_KERNEL,
	    .local = true,
	    .cpu_cgroup = true,
	    .scx = &S_OURS,
	    .kernel_reason = "stock kernel: no level; pins alone carry the plan",
	    .kernel_missing = "stock kernel: no level" },
	  VCP_MODE_SCX,
	  false,
	  "--mode kernel: stock kernel: no level" },
	{ "kernel, remote",
	  { .force = VCP_MODE_KERNEL, .knobs = true },
	  VCP_MODE_PIN,
	  false,
	  "--mode kernel: a remote host's kernel" },
};

/* Each case of @t decided as it says, refused as @refused says (a
 * refusal's reason starts with the case's and says nothing of what auto
 * mode would do instead). */
static void check_cases(const struct dcase *t, size_t n, bool refused)
{
	for (size_t i = 0; i < n; i++) {
		const struct dcase *c = &t[i];
		struct vcp_mode_choice ch;
		const char *at;

		memset(&ch, 0x5a, sizeof(ch));
		vcp_mode_decide(&c->f, &ch);
		at = strstr(ch.reason, c->reason);
		if (ch.mode != c->mode || ch.start_scx != c->start ||
		    ch.refused != refused || !at ||
		    (refused &&
		     (at != ch.reason || strstr(ch.reason, "pins alone"))))
			fail_msg("%s: got mode %s start %d refused %d '%s'",
				 c->name, vcp_mode_name(ch.mode), ch.start_scx,
				 ch.refused, ch.reason);
	}
}

static void test_decide(void **state)
{
	check_cases(dcases, sizeof(dcases) / sizeof(dcases[0]), false);
}

static void test_decide_refused(void **state)
{
	check_cases(refusals, sizeof(refusals) / sizeof(refusals[0]), true);
}

static void test_mode_names(void **state)
{
	assert_int_equal(vcp_mode_parse("scx"), VCP_MODE_SCX);
	assert_int_equal(vcp_mode_parse("kernel"), VCP_MODE_KERNEL);
	assert_int_equal(vcp_mode_parse("bpf"), -2);
	assert_string_equal(vcp_mode_name(VCP_MODE_SCX), "scx");
	assert_int_equal(vcp_mode_plan(VCP_MODE_SCX), VCP_MODE_KERNEL);
	assert_int_equal(vcp_mode_plan(VCP_MODE_PIN), VCP_MODE_PIN);
}

/* ---- scx.c against the fake loader ---- */

struct tmp {
	char dir[256];
	char log[PATH_MAX];
	char show[PATH_MAX];
};

static void tmp_new(struct tmp *t)
{
	t_tmpdir(t->dir, sizeof(t->dir), "scx");
	snprintf(t->log, sizeof(t->log), "%s/log", t->dir);
	snprintf(t->show, sizeof(t->show), "%s/show", t->dir);
	setenv("VCP_FAKE_SCX_LOG", t->log, 1);
	setenv("VCP_FAKE_SCX_SHOW", t->show, 1);
	unsetenv("VCP_FAKE_SCX_FAIL");
}

static void tmp_free(struct tmp *t)
{
	t_rmtree(t->dir);
}

/* the log's lines, joined with '|' */
static void log_is(const struct tmp *t, const char *want)
{
	char buf[4096] = "";
	FILE *f = fopen(t->log, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (char *p = buf; *p; p++)
		if (*p == '\n' && p[1])
			*p = '|';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	assert_string_equal(buf, want);
}

static void test_commands(void **state)
{
	struct vcp_scx *s;
	char dir[PATH_MAX + 8], want[3 * PATH_MAX];
	struct tmp t;
	int level = -1;

	tmp_new(&t);
	snprintf(dir, sizeof(dir), "%s/vm", t.dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(vcp_scx_new(FAKE, "/sys/fs/bpf/x", &s), 0);
	assert_int_equal(vcp_scx_set_level(s, 2), 0);
	assert_int_equal(vcp_scx_set_class(s, dir, VCP_CLASS_SPREAD), 0);
	assert_int_equal(vcp_scx_set_level(s, 3), -EINVAL);
	assert_int_equal(vcp_scx_set_class(s, "vm", VCP_CLASS_PACK), -EINVAL);
	assert_int_equal(vcp_scx_set_class(s, dir, VCP_CLASS__COUNT), -EINVAL);
	t_put(t.show, "level 1\ncgroup 12 pack\n");
	assert_int_equal(vcp_scx_get_level(s, &level), 0);
	assert_int_equal(level, 1);
	snprintf(want, sizeof(want), "-d /sys/fs/bpf/x level 2|-d /sys/fs/bpf/x class %s spread|-d /sys/fs/bpf/x show",
		 dir);
	log_is(&t, want);
	vcp_scx_free(s);
	tmp_free(&t);
}

static uint64_t ino_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_ino;
}

/* the class of a/b/c: its own, its nearest classed ancestor's, balanced */
static void test_get_class(void **state)
{
	char a[PATH_MAX], c[PATH_MAX + 8], show[2 * PATH_MAX];
	enum vcp_class cls = VCP_CLASS__COUNT;
	struct vcp_scx *s;
	struct tmp t;

	tmp_new(&t);
	snprintf(a, sizeof(a), "%s/a", t.dir);
	snprintf(c, sizeof(c), "%s/b/c", a);
	assert_int_equal(mkdir(a, 0755), 0);
	snprintf(show, sizeof(show), "mkdir -p '%s'", c);
	assert_int_equal(system(show), 0);
	assert_int_equal(vcp_scx_new(FAKE, NULL, &s), 0);

	snprintf(show, sizeof(show), "level 2\ncgroup 1 pack\ncgroup %llu spread\n",
		 (unsigned long long)ino_of(a));
	t_put(t.show, show);
	assert_int_equal(vcp_scx_get_class(s, c, t.dir, &cls), 0);
	assert_int_equal(cls, VCP_CLASS_SPREAD);
	snprintf(show, sizeof(show), "level 2\ncgroup %llu spread\ncgroup %llu pack\n",
		 (unsigned long long)ino_of(a), (unsigned long long)ino_of(c));
	t_put(t.show, show);
	assert_int_equal(vcp_scx_get_class(s, c, t.dir, &cls), 0);
	assert_int_equal(cls, VCP_CLASS_PACK);
	/* the top (the cgroup mount) itself is never looked up */
	snprintf(show, sizeof(show), "level 2\ncgroup %llu pack\n",
		 (unsigned long long)ino_of(t.dir));
	t_put(t.show, show);
	assert_int_equal(vcp_scx_get_class(s, c, t.dir, &cls), 0);
	assert_int_equal(cls, VCP_CLASS_BALANCED);
	/* outside the top, or a garbled answer: refused, untouched */
	cls = VCP_CLASS_SPREAD;
	assert_int_equal(vcp_scx_get_class(s, "/etc", t.dir, &cls), -EINVAL);
	t_put(t.show, "level 1\ncgroup 7 turbo\n");
	assert_int_equal(vcp_scx_get_class(s, c, t.dir, &cls), -EBADMSG);
	assert_non_null(strstr(vcp_scx_last_error(s), "show"));
	t_put(t.show, "");
	assert_int_equal(vcp_scx_get_class(s, c, t.dir, &cls), -EBADMSG);
	assert_int_equal(cls, VCP_CLASS_SPREAD);
	vcp_scx_free(s);
	tmp_free(&t);
}

static void test_command_errors(void **state)
{
	struct vcp_scx *s;
	int level = 7;
	struct tmp t;

	tmp_new(&t);
	setenv("VCP_FAKE_SCX_FAIL", "no scx_vcpack running", 1);
	assert_int_equal(vcp_scx_new(FAKE, NULL, &s), 0);
	assert_int_equal(vcp_scx_set_level(s, 1), -EIO);
	assert_string_equal(vcp_scx_last_error(s),
			    "scx_vcpack: no scx_vcpack running");
	assert_int_equal(vcp_scx_get_level(s, &level), -EIO);
	assert_int_equal(level, 7);
	vcp_scx_free(s);
	assert_int_equal(vcp_scx_new(SCXDATA "no-such-loader", NULL, &s), 0);
	assert_int_equal(vcp_scx_set_level(s, 1), -ENOENT);
	assert_non_null(strstr(vcp_scx_last_error(s), "cannot run"));
	vcp_scx_free(s);
	unsetenv("VCP_FAKE_SCX_FAIL");
	tmp_free(&t);
}

/* The loader: started, seen loaded in the tree, stopped (state back). */
static void test_loader(void **state)
{
	struct vcp_scx_info i;
	struct vcp_scx *s;
	char root[PATH_MAX], cmd[3 * PATH_MAX], how[64];
	bool exited = true;
	int st = -1;
	pid_t pid = 0;
	struct tmp t;

	tmp_new(&t);
	snprintf(root, sizeof(root), "%s/root", t.dir);
	snprintf(cmd, sizeof(cmd), "cp -a '%s' '%s'", SCXDATA "disabled", root);
	assert_int_equal(system(cmd), 0);
	setenv("VCP_FAKE_SCX_ROOT", root, 1);
	assert_int_equal(vcp_scx_new(FAKE, NULL, &s), 0);
	assert_int_equal(vcp_scx_start(s, 0, &pid), 0);
	assert_true(pid > 0);
	assert_int_equal(vcp_scx_wait_loaded(s, root, pid, 10000, &st), 0);
	assert_int_equal(vcp_scx_read(root, NULL, &i), 0);
	assert_true(vcp_scx_is_ours(&i));
	assert_int_equal(vcp_scx_reap(pid, &exited, &st), 0);
	assert_false(exited);
	assert_int_equal(vcp_scx_stop(pid, 5000, &st), 0);
	assert_string_equal(vcp_scx_status_text(st, how, sizeof(how)), "unloaded");
	assert_int_equal(vcp_scx_read(root, NULL, &i), 0);
	assert_int_equal(i.state, VCP_SCX_DISABLED);
	assert_false(i.maps_pinned);

	/* a loader that exits before loading: -ECHILD and its status */
	setenv("VCP_FAKE_SCX_FAIL", "cannot load", 1);
	assert_int_equal(vcp_scx_start(s, 1, &pid), 0);
	assert_int_equal(vcp_scx_wait_loaded(s, root, pid, 10000, &st), -ECHILD);
	assert_string_equal(vcp_scx_status_text(st, how, sizeof(how)),
			    "exited with status 1");
	unsetenv("VCP_FAKE_SCX_FAIL");
	assert_string_equal(vcp_scx_status_text(2 << 8, how, sizeof(how)),
			    "ejected by the kernel (see dmesg)");
	assert_string_equal(vcp_scx_status_text(SIGKILL, how, sizeof(how)),
			    "killed by signal 9");
	vcp_scx_free(s);
	unsetenv("VCP_FAKE_SCX_ROOT");
	tmp_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_ours),
		cmocka_unit_test(test_read_other),
		cmocka_unit_test(test_read_disabled_ejected_absent),
		cmocka_unit_test(test_read_refusals),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_decide_refused),
		cmocka_unit_test(test_mode_names),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_get_class),
		cmocka_unit_test(test_command_errors),
		cmocka_unit_test(test_loader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
