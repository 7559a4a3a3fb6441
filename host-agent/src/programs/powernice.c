// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * powernice.c - `powernice`, the 2008 proposal's command: a power
 * priority separate from nice, in the spirit of nice(1), chrt(1) and
 * taskset(1), on the vcpack kernel's cpu.consolidate classes.
 *
 *   powernice CLASS COMMAND [ARG...]   run COMMAND in a new cpu cgroup of
 *                                      its own (powernice-PID, a child of
 *                                      the caller's group) with CLASS
 *   powernice -p PID CLASS             move PID's whole thread group into
 *                                      powernice-CLASS under its group
 *   powernice -p PID                   print "PID: CLASS (cgroup PATH)"
 *
 * It changes nothing on a kernel without cpu.consolidate, and a failed
 * step moves the process back where it was and removes the group it
 * made (or says that it stays). Exit status as nice/chrt:
 * 0 done, 1 could not apply, 2 usage; 126/127 COMMAND could not be run /
 * was not found, as env(1).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "esc.h"
#include "fold.h"
#include "kernel.h"
#include "model.h"

#ifndef VCP_VERSION
#define VCP_VERSION "0.1"
#endif

#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define EXIT_CANNOT_RUN 126
#define EXIT_NOT_FOUND 127

#define GROUP_PREFIX "powernice-"

static const char *const usage_text =
	"Usage: powernice CLASS COMMAND [ARG...]\n"
	"       powernice -p PID CLASS\n"
	"       powernice -p PID\n"
	"\n"
	"Run COMMAND, or move the running process PID (all its threads), into\n"
	"a consolidation class of the vcpack kernel's cpu.consolidate:\n"
	"  spread    never gathered onto few packages (latency first)\n"
	"  balanced  the default; gathered at sched_mc_power_savings=2\n"
	"  pack      gathered at sched_mc_power_savings=1 and 2 (power first)\n"
	"COMMAND runs in a new cpu cgroup powernice-PID below the caller's;\n"
	"-p PID CLASS uses powernice-CLASS below PID's group. -p PID alone\n"
	"prints PID's class and cgroup.\n"
	"\n"
	"Options:\n"
	"  -p, --pid PID   act on a running process\n"
	"  -h, --help      this text\n"
	"  -V, --version   the version\n"
	"\n"
	"Exit status: 0 done, 1 not applied (the message says what is left),\n"
	"2 usage, 126 COMMAND could not be run, 127 COMMAND not found.\n";

static int fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	/* whole (0 columns): powernice has no --wide to undo a fold */
	code = vcp_fold_err(code, "powernice", 0, fmt, ap);
	va_end(ap);
	return code;
}

/* @what (NULL: already said), then where to look */
static int usage_error(const char *what)
{
	if (what)
		fail(EXIT_USAGE, "%s", what);
	fputs("Try 'powernice --help' for more information.\n", stderr);
	return EXIT_USAGE;
}

static int parse_class(const char *s, enum vcp_class *ret)
{
	if (vcp_class_from_name(s, ret) == 0)
		return 0;
	fail(EXIT_USAGE, "unknown class '%s' (valid classes: %s, %s, %s)", s,
	     vcp_class_name(VCP_CLASS_SPREAD), vcp_class_name(VCP_CLASS_BALANCED),
	     vcp_class_name(VCP_CLASS_PACK));
	return -EINVAL;
}

static int parse_pid(const char *s, int *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > INT_MAX) {
		fail(EXIT_USAGE, "invalid pid '%s' (a positive process id)", s);
		return -EINVAL;
	}
	*ret = (int)v;
	return 0;
}

/* ---- groups ---- */

static bool is_own_group(const char *cg)
{
	const char *leaf = strrchr(cg, '/');

	return leaf && strncmp(leaf + 1, GROUP_PREFIX,
			       strlen(GROUP_PREFIX)) == 0;
}

/*
 * Where a new group goes: below @cg, or next to @cg when @cg is already
 * one of ours (no powernice-pack/powernice-spread/... nesting).
 */
static char *base_of(const char *cg)
{
	size_t n = strlen(cg);

	if (is_own_group(cg))
		n = (size_t)(strrchr(cg, '/') - cg);
	return strndup(cg, n ? n : 1);
}

static char *child_of(const char *base, const char *leaf)
{
	char *s;

	if (asprintf(&s, "%s%s%s", base, strcmp(base, "/") ? "/" : "",
		     leaf) < 0)
		return NULL;
	return s;
}

/*
 * After a failure: remove @to again if this run made it (@made). What is
 * left, for the end of the message (a static buffer when it stays).
 */
static const char *drop_new(const struct vcp_kernel *k, const char *to,
			    bool made)
{
	static char left[PATH_MAX + 64];
	char *dir = NULL;
	int r;

	if (!made)
		return "nothing changed";
	r = vcp_kernel_remove_group(k, to);
	if (r == 0)
		return "removed the new group again, nothing changed";
	if (vcp_kernel_group_dir(k, to, &dir) < 0)
		dir = NULL;
	snprintf(left, sizeof(left), "the new empty group %s stays (rmdir: %s)",
		 dir ? dir : to, strerror(-r));
	free(dir);
	return left;
}

/* What this run changed, so that a failure can take it back. */
struct joined {
	bool made; /* made the new group */
	bool made_cpu; /* wrote "+cpu" into the parent's subtree_control */
};

/*
 * After a later failure: take back the parent's "+cpu" (on cgroup v2 a
 * group with it cannot take the process back), put @pid back into @from,
 * then drop_new(). What is left, for the end of the message.
 */
static const char *undo(const struct vcp_kernel *k, const char *from,
			const char *base, const char *to, int pid,
			const struct joined *j)
{
	static char left[2 * PATH_MAX + 128];
	int r;

	if (j->made_cpu) {
		r = vcp_kernel_disable_children(k, base);
		if (r < 0) {
			snprintf(
				left, sizeof(left),
				"the process stays in the new group and the cpu controller stays enabled below %s (-cpu: %s)",
				base, strerror(-r));
			return left;
		}
	}
	if (vcp_kernel_move_pid(k, from, pid, false) < 0)
		return j->made_cpu ?
			       "disabled the cpu controller below the group again; the process stays in the new group" :
			       "the process stays in the new group";
	if (!j->made_cpu)
		return drop_new(k, to, j->made);
	snprintf(left, sizeof(left),
		 "disabled the cpu controller below %s again, %s", base,
		 drop_new(k, to, j->made));
	return left;
}

/*
 * Move @pid from @from into @to (made below @base if needed) and give
 * @to the class @c, recording in @j what was changed. cgroup v2 gives a
 * child cpu.consolidate only when its parent enables the cpu controller
 * for its children, which a group that still holds processes cannot do.
 */
static int join(const struct vcp_kernel *k, const char *from, const char *base,
		const char *to, int pid, enum vcp_class c, struct joined *j)
{
	enum vcp_class cur;
	int r;

	*j = (struct joined){ 0 };
	r = vcp_kernel_make_group(k, to);
	if (r < 0)
		return fail(EXIT_FAIL,
			    "cannot make cgroup %s: %s; nothing changed", to,
			    strerror(-r));
	j->made = r > 0;
	r = vcp_kernel_move_pid(k, to, pid, false);
	if (r < 0)
		return fail(EXIT_FAIL,
			    "cannot move pid %d into cgroup %s: %s; %s", pid,
			    to, strerror(-r), drop_new(k, to, j->made));
	r = vcp_kernel_get_class(k, to, &cur);
	if (r == -ENOENT && k->cgroup_v2) {
		r = vcp_kernel_enable_children(k, base);
		if (r < 0)
			return fail(
				EXIT_FAIL,
				"cannot enable the cpu controller below cgroup %s: %s (cgroup v2 allows it only where the group holds no processes of its own; see powernice(1)); %s",
				base, strerror(-r),
				undo(k, from, base, to, pid, j));
		j->made_cpu = true;
	}
	r = vcp_kernel_set_class(k, to, c);
	if (r < 0)
		return fail(EXIT_FAIL,
			    "cannot write %s=%s in cgroup %s: %s; %s",
			    VCP_KERNEL_CLASS_FILE, vcp_class_name(c), to,
			    strerror(-r), undo(k, from, base, to, pid, j));
	if (strcmp(from, to) != 0 && is_own_group(from))
		vcp_kernel_remove_group(k, from);	/* empty by now? */
	return 0;
}

/* ---- the three forms ---- */

static int show(const struct vcp_kernel *k, int pid)
{
	enum vcp_class c;
	char *cg = NULL;
	int r;

	r = vcp_kernel_cgroup_of_pid(k, pid, &cg);
	if (r < 0)
		return fail(EXIT_FAIL, "cannot find the cpu cgroup of pid %d: %s",
			    pid, strerror(-r));
	r = vcp_kernel_get_class(k, cg, &c);
	if (r < 0)
		r = fail(EXIT_FAIL, "cannot read %s of pid %d in cgroup %s: %s",
			 VCP_KERNEL_CLASS_FILE, pid, cg, strerror(-r));
	else
		printf("%d: %s (cgroup %s)\n", pid, vcp_class_name(c),
		       vcp_esc(cg));
	free(cg);
	return r;
}

/* The group of @pid (0: ourselves), refusing libvirt guests. */
static int current_group(const struct vcp_kernel *k, int pid, char **ret)
{
	char *task = NULL, *vm = NULL;
	int r;

	r = vcp_kernel_task_cgroup(k, pid, &task);
	if (r == 0)
		r = vcp_kernel_cgroup_of_pid(k, pid, &vm);
	if (r < 0) {
		free(task);
		return fail(EXIT_FAIL, "cannot find the cpu cgroup of pid %d: %s",
			    pid ? pid : (int)getpid(), strerror(-r));
	}
	if (strcmp(task, vm) != 0) {
		fail(EXIT_FAIL, "pid %d is a libvirt guest (cgroup %s): moving it would undo libvirt's per-vCPU groups; use 'vcpack tag DOMAIN --class CLASS' instead; nothing changed",
		     pid, vm);
		free(task);
		free(vm);
		return EXIT_FAIL;
	}
	free(vm);
	*ret = task;
	return 0;
}

static int move(const struct vcp_kernel *k, int pid, enum vcp_class c)
{
	char *from = NULL, *base = NULL, *to = NULL;
	struct joined j;
	int r;

	r = current_group(k, pid, &from);
	if (r)
		return r;
	base = base_of(from);
	to = base ? child_of(base, GROUP_PREFIX) : NULL;
	if (to) {
		char *t = NULL;

		if (asprintf(&t, "%s%s", to, vcp_class_name(c)) < 0)
			t = NULL;
		free(to);
		to = t;
	}
	if (!to)
		r = fail(EXIT_FAIL, "out of memory");
	else
		r = join(k, from, base, to, pid, c, &j);
	if (r == 0)
		printf("%d: %s (cgroup %s)\n", pid, vcp_class_name(c),
		       vcp_esc(to));
	free(from);
	free(base);
	free(to);
	return r;
}

/*
 * Run @argv in a group of its own. If it cannot be run (126/127), the
 * group made for it is taken back as after a failed step: nothing of a
 * command that never ran stays behind.
 */
static int run(const struct vcp_kernel *k, enum vcp_class c, char **argv)
{
	char *from = NULL, *base = NULL, *to = NULL, leaf[64];
	int pid = (int)getpid(), r, e;
	struct joined j;

	r = current_group(k, 0, &from);
	if (r)
		return r;
	snprintf(leaf, sizeof(leaf), GROUP_PREFIX "%d", pid);
	base = base_of(from);
	to = base ? child_of(base, leaf) : NULL;
	r = to ? join(k, from, base, to, pid, c, &j) :
		 fail(EXIT_FAIL, "out of memory");
	if (r == 0) {
		fflush(NULL);
		execvp(argv[0], argv);
		e = errno;
		fail(0, "failed to run '%s': %s; %s", argv[0], strerror(e),
		     undo(k, from, base, to, pid, &j));
		r = e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
	}
	free(from);
	free(base);
	free(to);
	return r;
}

/* ---- main ---- */

static int open_kernel(const char *root, struct vcp_kernel **ret)
{
	int r = vcp_kernel_open(root, ret);

	if (r < 0)
		return fail(EXIT_FAIL, "cannot read the cgroup mounts (%s%sproc/self/mountinfo): %s",
			    root, root[strlen(root) - 1] == '/' ? "" : "/",
			    strerror(-r));
	if (!(*ret)->has_class) {
		vcp_kernel_free(*ret);
		return fail(EXIT_FAIL, "this kernel has no cpu.consolidate (needs the vcpack kernel patches); nothing changed");
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "root", required_argument, NULL, 'R' },	/* tests */
		{ 0 }
	};
	const char *root = "/", *pid_arg = NULL;
	struct vcp_kernel *k = NULL;
	enum vcp_class c = VCP_CLASS_BALANCED;
	int opt, pid = 0, n, r;

	opterr = 0; /* said below, "powernice:" first, not argv[0] */
	while ((opt = getopt_long(argc, argv, "+:p:hV", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			pid_arg = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'V':
			puts("powernice (vcpack) " VCP_VERSION);
			return 0;
		case 'R':
			root = optarg;
			break;
		case ':':
			fail(0, "missing the argument of option '%s'",
			     argv[optind - 1]);
			return usage_error(NULL);
		default:
			if (optopt && strncmp(argv[optind - 1], "--", 2))
				fail(0, "unknown option '-%c'", optopt);
			else
				fail(0, "unknown option '%s'",
				     argv[optind - 1]);
			return usage_error(NULL);
		}
	}
	n = argc - optind;
	if (pid_arg ? n > 1 : n < 2)
		return usage_error(pid_arg ? "-p PID takes at most one CLASS" :
				   n ? "no COMMAND to run" :
				       "missing CLASS and COMMAND");
	if (!*root)
		return usage_error("--root needs a directory");
	if (pid_arg && parse_pid(pid_arg, &pid) < 0)
		return EXIT_USAGE;
	if (n && parse_class(argv[optind], &c) < 0)
		return EXIT_USAGE;

	r = open_kernel(root, &k);
	if (r)
		return r;
	if (!pid_arg)
		r = run(k, c, argv + optind + 1);
	else if (n)
		r = move(k, pid, c);
	else
		r = show(k, pid);
	vcp_kernel_free(k);
	return r;
}
