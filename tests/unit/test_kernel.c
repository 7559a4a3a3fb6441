// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_kernel.c - kernel.c on the fixture trees in tests/data/kroot/:
 * mode detection (v1 hybrid, v2, stock, no cpu controller, container,
 * escaped mount points), /proc/PID/cgroup parsing, the level and the
 * class (read, write only when different), moving a pid, ".." refused.
 * Writes go to a mkdtemp() copy, never to the source tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "kernel.h"

#define KROOT VCP_SRCDIR "/tests/data/kroot/"
#define OLD_TIME 1000000000
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct vcp_kernel *open_ok(const char *root)
{
	struct vcp_kernel *k = NULL;

	assert_int_equal(vcp_kernel_open(root, &k), 0);
	assert_non_null(k);
	assert_string_equal(k->root, root);
	assert_non_null(k->reason);
	return k;
}

/* ---- a writable copy of one fixture ---- */

/* @buf (PATH_MAX) = @root/@rel */
static void at(char *buf, const char *root, const char *rel)
{
	int n = snprintf(buf, PATH_MAX, "%s/%s", root, rel);

	assert_true(n > 0 && n < PATH_MAX);
}

struct tmp {
	char dir[PATH_MAX];
	char root[PATH_MAX];
};

static void tmp_copy(struct tmp *t, const char *fixture)
{
	char src[PATH_MAX];

	t_tmpdir(t->dir, sizeof(t->dir), "kernel");
	at(t->root, t->dir, fixture);
	snprintf(src, sizeof(src), "%s%s", KROOT, fixture);
	t_copy(src, t->dir);
}

static void tmp_remove(struct tmp *t)
{
	t_rmtree(t->dir);
}

static void slurp(const char *root, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];

	at(path, root, rel);
	t_slurp(path, buf, len);
}

static void spit(const char *root, const char *rel, const char *s)
{
	char path[PATH_MAX];
	FILE *f;

	at(path, root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(s, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static void mkdir_in(const char *root, const char *rel)
{
	char path[PATH_MAX];

	at(path, root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void age(const char *root, const char *rel)
{
	struct timespec ts[2] = { { OLD_TIME, 0 }, { OLD_TIME, 0 } };
	char path[PATH_MAX];

	at(path, root, rel);
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static long mtime_of(const char *root, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	at(path, root, rel);
	assert_int_equal(stat(path, &st), 0);
	return (long)st.st_mtim.tv_sec;
}

/* ---- detection ---- */

static void test_open_v1(void **state)
{
	struct vcp_kernel *k = open_ok(KROOT "v1");

	assert_true(k->has_level);
	assert_true(k->has_class);
	assert_false(k->cgroup_v2);
	assert_string_equal(k->cpu_mount, "/sys/fs/cgroup/cpu");
	assert_string_equal(k->cpu_mount_root, "/");
	assert_int_equal(vcp_kernel_mode(k), VCP_MODE_KERNEL);
	assert_non_null(strstr(k->reason, "vcpack kernel"));
	assert_non_null(strstr(k->reason, "cgroup v1"));
	vcp_kernel_free(k);
}

static void test_open_v1_stock(void **state)
{
	struct vcp_kernel *k = open_ok(KROOT "v1-stock");

	assert_false(k->has_level);
	assert_false(k->has_class);
	assert_false(k->cgroup_v2);
	assert_string_equal(k->cpu_mount, "/sys/fs/cgroup/cpu");
	assert_int_equal(vcp_kernel_mode(k), VCP_MODE_PIN);
	assert_string_equal(k->reason,
			    "stock kernel: no /sys/devices/system/cpu/sched_mc_power_savings, no cpu.consolidate in /sys/fs/cgroup/cpu (cgroup v1); pins alone carry the plan");
	vcp_kernel_free(k);
}

static void test_open_v2(void **state)
{
	struct vcp_kernel *k = open_ok(KROOT "v2");

	/* the root group has no cpu.consolidate; the caller's group has */
	assert_true(k->has_level);
	assert_true(k->has_class);
	assert_true(k->cgroup_v2);
	assert_string_equal(k->cpu_mount, "/sys/fs/cgroup");
	assert_int_equal(vcp_kernel_mode(k), VCP_MODE_KERNEL);
	assert_non_null(strstr(k->reason, "cgroup v2"));
	vcp_kernel_free(k);
}

static void test_open_v2_stock(void **state)
{
	struct vcp_kernel *k = open_ok(KROOT "v2-stock");

	assert_false(k->has_level);
	assert_false(k->has_class);
	assert_true(k->cgroup_v2);
	assert_int_equal(vcp_kernel_mode(k), VCP_MODE_PIN);
	vcp_kernel_free(k);
}

/*
 * v2, the root group without the file, the caller's group without cpu
 * (e.g. vcpackd in system.slice): found in a child of the root.
 */
static void test_open_v2_child(void **state)
{
	struct vcp_kernel *k;
	struct tmp t;

	tmp_copy(&t, "v2-stock");
	mkdir_in(t.root, "sys/devices");
	mkdir_in(t.root, "sys/devices/system");
	mkdir_in(t.root, "sys/devices/system/cpu");
	spit(t.root, "sys/devices/system/cpu/sched_mc_power_savings", "0\n");
	k = open_ok(t.root);
	assert_false(k->has_class);
	vcp_kernel_free(k);
	spit(t.root, "sys/fs/cgroup/machine.slice/cpu.consolidate", "pack\n");
	k = open_ok(t.root);
	assert_true(k->has_class);
	assert_int_equal(vcp_kernel_mode(k), VCP_MODE_KERNEL);
	vcp_kernel_free(k);
	tmp_remove(&t);
}

static void test_open_nocpu(void **state)
{
	struct vcp_kernel *k = open_ok(KROOT "nocpu");
	enum vcp_class c = VCP_CLASS_PACK;
	char *cg = NULL;

	assert_true(k->has_level);
	assert_false(k->has_class);
	assert_null(k->cpu_mount);
	assert_int_equal(vcp_kernel_mode(k), VCP_MODE_PIN);
	assert_string_equal(k->reason,
			    "incomplete vcpack kernel: /sys/devices/system/cpu/sched_mc_power_savings present, no cgroup hierarchy with the cpu controller; pins alone carry the plan");
	assert_int_equal(vcp_kernel_cgroup_of_pid(k, 0, &cg), -ENODEV);
	assert_null(cg);
	assert_int_equal(vcp_kernel_get_class(k, "/", &c), -ENODEV);
	assert_int_equal(c, VCP_CLASS_PACK);
	vcp_kernel_free(k);
}

static void test_open_errors(void **state)
{
	struct vcp_kernel *k = (struct vcp_kernel *)0x1;

	assert_int_equal(vcp_kernel_open(KROOT "no-such-tree", &k), -ENOENT);
	assert_int_equal(vcp_kernel_open("", &k), -EINVAL);
	assert_int_equal(vcp_kernel_open(NULL, &k), -EINVAL);
	assert_ptr_equal(k, (struct vcp_kernel *)0x1);
	assert_int_equal(vcp_kernel_mode(NULL), VCP_MODE_PIN);
	vcp_kernel_free(NULL);
}

static void test_open_escaped(void **state)
{
	struct vcp_kernel *k = open_ok(KROOT "escaped");
	char *cg = NULL;

	assert_string_equal(k->cpu_mount, "/mnt/my cgroups");
	assert_string_equal(k->reason,
			    "incomplete vcpack kernel: no /sys/devices/system/cpu/sched_mc_power_savings, cpu.consolidate present in /mnt/my cgroups (cgroup v1); pins alone carry the plan");
	assert_false(k->cgroup_v2);
	assert_true(k->has_class);
	assert_false(k->has_level);
	assert_int_equal(vcp_kernel_cgroup_of_pid(k, 0, &cg), 0);
	assert_string_equal(cg, "/a:b");
	free(cg);
	vcp_kernel_free(k);
}

/* ---- /proc/PID/cgroup ---- */

static void expect_cg(const struct vcp_kernel *k, int pid, const char *task,
		      const char *group)
{
	char *cg = NULL;

	assert_int_equal(vcp_kernel_task_cgroup(k, pid, &cg), 0);
	assert_string_equal(cg, task);
	free(cg);
	cg = NULL;
	assert_int_equal(vcp_kernel_cgroup_of_pid(k, pid, &cg), 0);
	assert_string_equal(cg, group);
	free(cg);
}

static void test_cgroup_v1(void **state)
{
	struct vcp_kernel *k = open_ok(KROOT "v1");
	char *cg = NULL;

	expect_cg(k, 0, "/user.slice", "/user.slice");
	expect_cg(k, 4242, "/machine/qemu-1-web.libvirt-qemu/vcpu0",
		  "/machine/qemu-1-web.libvirt-qemu");
	assert_int_equal(vcp_kernel_cgroup_of_pid(k, 999999, &cg), -ENOENT);
	assert_int_equal(vcp_kernel_cgroup_of_pid(k, -1, &cg), -EINVAL);
	assert_null(cg);
	vcp_kernel_free(k);
}

static void test_cgroup_v2(void **state)
{
	struct vcp_kernel *k = open_ok(KROOT "v2");

	expect_cg(k, 0, "/user.slice/user-0.slice/session-1.scope",
		  "/user.slice/user-0.slice/session-1.scope");
	expect_cg(k, 4242,
		  "/machine.slice/machine-qemu\\x2d1\\x2dweb.scope/libvirt/emulator",
		  "/machine.slice/machine-qemu\\x2d1\\x2dweb.scope/libvirt");
	expect_cg(k, 4243,
		  "/machine.slice/machine-qemu\\x2d1\\x2dweb.scope/libvirt/vcpu0",
		  "/machine.slice/machine-qemu\\x2d1\\x2dweb.scope/libvirt");
	vcp_kernel_free(k);
}

static void test_cgroup_container(void **state)
{
	struct vcp_kernel *k = open_ok(KROOT "v1-container");

	assert_string_equal(k->cpu_mount, "/sys/fs/cgroup/cpu,cpuacct");
	assert_string_equal(k->cpu_mount_root, "/docker/0f1e2d");
	/* found through the caller's own group, /app */
	assert_true(k->has_class);
	expect_cg(k, 0, "/app", "/app");
	expect_cg(k, 7, "/", "/");
	vcp_kernel_free(k);
}

struct cg_case {
	const char *file;	/* contents of proc/100/cgroup */
	int ret;
	const char *task;
	const char *group;
};

static const struct cg_case v1_cases[] = {
	/* co-mounted cpu,cpuacct; cpuacct/cpuset alone are not cpu */
	{ "3:cpuset:/x\n2:cpuacct:/y\n1:cpu,cpuacct:/z\n", 0, "/z", "/z" },
	{ "3:cpuset:/x\n2:cpuacct:/y\n0::/w\n", -ENOENT, NULL, NULL },
	{ "", -ENOENT, NULL, NULL },
	{ "garbage\n1:cpu\n", -ENOENT, NULL, NULL },
	{ "1:cpu:/a/b:c d\n", 0, "/a/b:c d", "/a/b:c d" },
	{ "1:cpu:/\n", 0, "/", "/" },
	/* last line without a newline */
	{ "1:cpu:/m/v.libvirt-qemu/emulator", 0, "/m/v.libvirt-qemu/emulator",
	  "/m/v.libvirt-qemu" },
	{ "1:cpu:/m/v.libvirt-qemu/iothread12\n", 0,
	  "/m/v.libvirt-qemu/iothread12", "/m/v.libvirt-qemu" },
	{ "1:cpu:/machine.slice/machine-qemu\\x2d2\\x2ddb.scope/vcpu3\n", 0,
	  "/machine.slice/machine-qemu\\x2d2\\x2ddb.scope/vcpu3",
	  "/machine.slice/machine-qemu\\x2d2\\x2ddb.scope" },
	/* a vcpu-looking leaf outside a libvirt guest group stays */
	{ "1:cpu:/user.slice/vcpu0\n", 0, "/user.slice/vcpu0",
	  "/user.slice/vcpu0" },
	{ "1:cpu:/m/v.libvirt-qemu/vcpux\n", 0, "/m/v.libvirt-qemu/vcpux",
	  "/m/v.libvirt-qemu/vcpux" },
	{ "1:cpu:/vcpu0\n", 0, "/vcpu0", "/vcpu0" },
};

static void test_cgroup_table(void **state)
{
	struct tmp t;
	struct vcp_kernel *k;

	tmp_copy(&t, "v1");
	k = open_ok(t.root);
	mkdir_in(t.root, "proc/100");
	for (size_t i = 0; i < ARRAY_SIZE(v1_cases); i++) {
		const struct cg_case *c = &v1_cases[i];
		char *cg = NULL;

		spit(t.root, "proc/100/cgroup", c->file);
		assert_int_equal(vcp_kernel_task_cgroup(k, 100, &cg), c->ret);
		if (c->ret < 0) {
			assert_null(cg);
			continue;
		}
		assert_string_equal(cg, c->task);
		free(cg);
		cg = NULL;
		assert_int_equal(vcp_kernel_cgroup_of_pid(k, 100, &cg), 0);
		assert_string_equal(cg, c->group);
		free(cg);
	}
	vcp_kernel_free(k);
	tmp_remove(&t);
}

/* ---- the level ---- */

static void test_level_get(void **state)
{
	struct vcp_kernel *k = open_ok(KROOT "v1");
	int level = -1;

	assert_int_equal(vcp_kernel_get_level(k, &level), 0);
	assert_int_equal(level, 0);
	vcp_kernel_free(k);

	k = open_ok(KROOT "v2");
	assert_int_equal(vcp_kernel_get_level(k, &level), 0);
	assert_int_equal(level, 2);
	vcp_kernel_free(k);

	k = open_ok(KROOT "v1-stock");
	level = 7;
	assert_int_equal(vcp_kernel_get_level(k, &level), -ENOENT);
	assert_int_equal(vcp_kernel_set_level(k, 1), -ENOENT);
	assert_int_equal(level, 7);
	vcp_kernel_free(k);
}

static void test_level_set(void **state)
{
	const char *f = "sys/devices/system/cpu/sched_mc_power_savings";
	struct vcp_kernel *k;
	struct tmp t;
	char buf[32];
	int level = -1;

	tmp_copy(&t, "v1");
	k = open_ok(t.root);
	age(t.root, f);
	/* same value: not written */
	assert_int_equal(vcp_kernel_set_level(k, 0), 0);
	assert_int_equal(mtime_of(t.root, f), OLD_TIME);
	/* different: written, as the kernel wants it */
	assert_int_equal(vcp_kernel_set_level(k, 2), 0);
	slurp(t.root, f, buf, sizeof(buf));
	assert_string_equal(buf, "2\n");
	assert_true(mtime_of(t.root, f) > OLD_TIME);
	assert_int_equal(vcp_kernel_get_level(k, &level), 0);
	assert_int_equal(level, 2);
	/* out of range: refused, nothing written */
	age(t.root, f);
	assert_int_equal(vcp_kernel_set_level(k, 3), -EINVAL);
	assert_int_equal(vcp_kernel_set_level(k, -1), -EINVAL);
	assert_int_equal(mtime_of(t.root, f), OLD_TIME);
	slurp(t.root, f, buf, sizeof(buf));
	assert_string_equal(buf, "2\n");
	/* garbage in the file: get says so, set overwrites it */
	spit(t.root, f, "7\n");
	level = -1;
	assert_int_equal(vcp_kernel_get_level(k, &level), -EBADMSG);
	assert_int_equal(level, -1);
	assert_int_equal(vcp_kernel_set_level(k, 1), 0);
	slurp(t.root, f, buf, sizeof(buf));
	assert_string_equal(buf, "1\n");
	vcp_kernel_free(k);
	tmp_remove(&t);
}

/* ---- classes ---- */

static void test_class_get(void **state)
{
	struct vcp_kernel *k = open_ok(KROOT "v1");
	enum vcp_class c = VCP_CLASS__COUNT;

	assert_int_equal(vcp_kernel_get_class(k, "/", &c), 0);
	assert_int_equal(c, VCP_CLASS_BALANCED);
	assert_int_equal(vcp_kernel_get_class(k,
			 "/machine/qemu-1-web.libvirt-qemu", &c), 0);
	assert_int_equal(c, VCP_CLASS_PACK);
	c = VCP_CLASS__COUNT;
	assert_int_equal(vcp_kernel_get_class(k, "/machine/bad", &c),
			 -EBADMSG);
	assert_int_equal(vcp_kernel_get_class(k, "/machine/gone", &c),
			 -ENOENT);
	assert_int_equal(c, VCP_CLASS__COUNT);
	vcp_kernel_free(k);

	k = open_ok(KROOT "v2");
	assert_int_equal(vcp_kernel_get_class(k,
			 "/machine.slice/machine-qemu\\x2d1\\x2dweb.scope/libvirt",
			 &c), 0);
	assert_int_equal(c, VCP_CLASS_SPREAD);
	vcp_kernel_free(k);
}

/* Series v2: "inherit" reads as the nearest ancestor's own value, and
 * "balanced" where no ancestor set one (was -EBADMSG). */
static void test_class_inherit(void **state)
{
	const char *scope = "machine.slice/machine-qemu\\x2d1\\x2dweb.scope";
	const char *vm =
		"/machine.slice/machine-qemu\\x2d1\\x2dweb.scope/libvirt";
	enum vcp_class c = VCP_CLASS__COUNT;
	struct vcp_kernel *k;
	struct tmp t;
	char rel[PATH_MAX];

	tmp_copy(&t, "v2");
	k = open_ok(t.root);
	snprintf(rel, sizeof(rel), "sys/fs/cgroup/%s/libvirt/cpu.consolidate",
		 scope);
	spit(t.root, rel, "inherit\n");
	snprintf(rel, sizeof(rel), "sys/fs/cgroup/%s/cpu.consolidate", scope);
	spit(t.root, rel, "inherit\n");
	spit(t.root, "sys/fs/cgroup/machine.slice/cpu.consolidate", "pack\n");
	assert_int_equal(vcp_kernel_get_class(k, vm, &c), 0);
	assert_int_equal(c, VCP_CLASS_PACK);
	spit(t.root, "sys/fs/cgroup/machine.slice/cpu.consolidate",
	     "inherit\n");
	c = VCP_CLASS__COUNT;
	assert_int_equal(vcp_kernel_get_class(k, vm, &c), 0);
	assert_int_equal(c, VCP_CLASS_BALANCED);
	vcp_kernel_free(k);
	tmp_remove(&t);
}

static void test_dotdot_refused(void **state)
{
	static const char *const bad[] = {
		"..", "/..", "/../etc", "/machine/..", "/machine/../..",
		"/a/../b", "machine", "", "/a/..//b",
	};
	struct vcp_kernel *k = open_ok(KROOT "v1");
	enum vcp_class c = VCP_CLASS__COUNT;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(vcp_kernel_get_class(k, bad[i], &c), -EINVAL);
		assert_int_equal(vcp_kernel_set_class(k, bad[i],
						      VCP_CLASS_PACK), -EINVAL);
		assert_int_equal(vcp_kernel_move_pid(k, bad[i], 1, true),
				 -EINVAL);
		assert_int_equal(vcp_kernel_remove_group(k, bad[i]), -EINVAL);
	}
	assert_int_equal(vcp_kernel_get_class(k, NULL, &c), -EINVAL);
	assert_int_equal(c, VCP_CLASS__COUNT);
	/* dots inside a name are a name */
	assert_int_equal(vcp_kernel_get_class(k, "/a..b", &c), -ENOENT);
	assert_int_equal(vcp_kernel_get_class(k, "/...", &c), -ENOENT);
	vcp_kernel_free(k);
}

static void test_class_set(void **state)
{
	const char *vm = "/machine/qemu-1-web.libvirt-qemu";
	const char *f =
		"sys/fs/cgroup/cpu/machine/qemu-1-web.libvirt-qemu/cpu.consolidate";
	enum vcp_class c = VCP_CLASS__COUNT;
	struct vcp_kernel *k;
	struct tmp t;
	char buf[64];

	tmp_copy(&t, "v1");
	k = open_ok(t.root);
	age(t.root, f);
	assert_int_equal(vcp_kernel_set_class(k, vm, VCP_CLASS_PACK), 0);
	assert_int_equal(mtime_of(t.root, f), OLD_TIME);
	assert_int_equal(vcp_kernel_set_class(k, vm, VCP_CLASS_SPREAD), 0);
	slurp(t.root, f, buf, sizeof(buf));
	assert_string_equal(buf, "spread\n");
	assert_true(mtime_of(t.root, f) > OLD_TIME);
	assert_int_equal(vcp_kernel_get_class(k, vm, &c), 0);
	assert_int_equal(c, VCP_CLASS_SPREAD);
	/* a longer value over a shorter one leaves no tail */
	assert_int_equal(vcp_kernel_set_class(k, vm, VCP_CLASS_BALANCED), 0);
	assert_int_equal(vcp_kernel_set_class(k, vm, VCP_CLASS_PACK), 0);
	slurp(t.root, f, buf, sizeof(buf));
	assert_string_equal(buf, "pack\n");
	age(t.root, f);
	assert_int_equal(vcp_kernel_set_class(k, vm, VCP_CLASS__COUNT),
			 -EINVAL);
	assert_int_equal(vcp_kernel_set_class(k, vm, (enum vcp_class)-1),
			 -EINVAL);
	assert_int_equal(mtime_of(t.root, f), OLD_TIME);
	/*
	 * an unparsable value gets overwritten; a missing group is not
	 * created
	 */
	assert_int_equal(vcp_kernel_set_class(k, "/machine/bad",
					      VCP_CLASS_PACK), 0);
	slurp(t.root, "sys/fs/cgroup/cpu/machine/bad/cpu.consolidate", buf,
	      sizeof(buf));
	assert_string_equal(buf, "pack\n");
	assert_int_equal(vcp_kernel_set_class(k, "/machine/gone",
					      VCP_CLASS_PACK), -ENOENT);
	vcp_kernel_free(k);
	tmp_remove(&t);
}

/* ---- groups ---- */

static void test_move_pid(void **state)
{
	const char *g = "/user.slice/powernice-9";
	const char *d = "sys/fs/cgroup/cpu/user.slice/powernice-9";
	const char *vcpu_x = "/machine/qemu-1-web.libvirt-qemu/vcpu0/x";
	enum vcp_class c = VCP_CLASS__COUNT;
	struct vcp_kernel *k;
	char buf[64], rel[PATH_MAX];
	struct tmp t;

	tmp_copy(&t, "v1");
	k = open_ok(t.root);
	assert_int_equal(vcp_kernel_move_pid(k, g, 77, false), -ENOENT);
	assert_int_equal(vcp_kernel_move_pid(k, g, 77, true), 0);
	snprintf(rel, sizeof(rel), "%s/cgroup.procs", d);
	slurp(t.root, rel, buf, sizeof(buf));
	assert_string_equal(buf, "77\n");
	/* the new group starts with its parent's class */
	assert_int_equal(vcp_kernel_get_class(k, g, &c), 0);
	assert_int_equal(c, VCP_CLASS_BALANCED);
	/* an existing group is fine; writes add to cgroup.procs */
	assert_int_equal(vcp_kernel_move_pid(k, g, 78, true), 0);
	slurp(t.root, rel, buf, sizeof(buf));
	assert_string_equal(buf, "77\n78\n");
	assert_int_equal(vcp_kernel_move_pid(k, g, 0, true), -EINVAL);
	assert_int_equal(vcp_kernel_move_pid(k, g, -5, true), -EINVAL);
	/* the parent must exist */
	assert_int_equal(vcp_kernel_move_pid(k, "/no/such/x", 77, true),
			 -ENOENT);
	/* a nested new group inherits its parent's pack */
	assert_int_equal(vcp_kernel_move_pid(k, vcpu_x, 5, true), 0);
	assert_int_equal(vcp_kernel_get_class(k, vcpu_x, &c), 0);
	assert_int_equal(c, VCP_CLASS_PACK);
	vcp_kernel_free(k);
	tmp_remove(&t);
}

static void test_enable_remove(void **state)
{
	struct vcp_kernel *k;
	struct tmp t;
	char buf[64];

	/* v1 has no subtree_control: nothing to do, nothing written */
	k = open_ok(KROOT "v1");
	assert_int_equal(vcp_kernel_enable_children(k, "/user.slice"), 0);
	assert_int_equal(vcp_kernel_enable_children(k, "/.."), -EINVAL);
	vcp_kernel_free(k);

	tmp_copy(&t, "v2");
	k = open_ok(t.root);
	assert_int_equal(vcp_kernel_enable_children(k, "/user.slice"),
			 -ENOENT);
	spit(t.root, "sys/fs/cgroup/user.slice/cgroup.subtree_control", "");
	assert_int_equal(vcp_kernel_enable_children(k, "/user.slice"), 0);
	slurp(t.root, "sys/fs/cgroup/user.slice/cgroup.subtree_control", buf,
	      sizeof(buf));
	assert_string_equal(buf, "+cpu");
	assert_int_equal(vcp_kernel_remove_group(k, "/"), -EINVAL);
	mkdir_in(t.root, "sys/fs/cgroup/empty");
	assert_int_equal(vcp_kernel_remove_group(k, "/empty"), 0);
	assert_int_equal(vcp_kernel_remove_group(k, "/empty"), -ENOENT);
	/* as on cgroupfs: not while it has child groups */
	assert_int_equal(vcp_kernel_remove_group(k, "/user.slice"), -EBUSY);
	vcp_kernel_free(k);
	tmp_remove(&t);
}

/* Made (1) or there already (0); removed again with its files. */
static void test_make_group(void **state)
{
	const char *g = "/user.slice/powernice-9";
	struct vcp_kernel *k;
	char *dir = NULL;
	struct tmp t;

	tmp_copy(&t, "v1");
	k = open_ok(t.root);
	assert_int_equal(vcp_kernel_make_group(k, g), 1);
	assert_int_equal(vcp_kernel_make_group(k, g), 0);
	assert_int_equal(vcp_kernel_make_group(k, "/no/such/x"), -ENOENT);
	assert_int_equal(vcp_kernel_make_group(k, "/../x"), -EINVAL);
	assert_int_equal(vcp_kernel_group_dir(k, g, &dir), 0);
	assert_true(strstr(dir, "/sys/fs/cgroup/cpu/user.slice/powernice-9"));
	assert_int_equal(strncmp(dir, t.root, strlen(t.root)), 0);
	assert_int_equal(vcp_kernel_move_pid(k, g, 77, false), 0);
	assert_int_equal(vcp_kernel_remove_group(k, g), 0);
	assert_int_equal(access(dir, F_OK), -1);
	assert_int_equal(vcp_kernel_make_group(k, g), 1);
	free(dir);
	vcp_kernel_free(k);
	tmp_remove(&t);
}

/*
 * The real root of this machine: whatever it has, open must succeed and
 * agree with what is on disk.
 */
static void test_real_root(void **state)
{
	struct vcp_kernel *k = open_ok("/");

	assert_int_equal(k->has_level,
			 access(VCP_KERNEL_LEVEL_PATH, F_OK) == 0);
	assert_int_equal(vcp_kernel_mode(k) == VCP_MODE_KERNEL,
			 k->has_level && k->has_class);
	vcp_kernel_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_v1),
		cmocka_unit_test(test_open_v1_stock),
		cmocka_unit_test(test_open_v2),
		cmocka_unit_test(test_open_v2_stock),
		cmocka_unit_test(test_open_v2_child),
		cmocka_unit_test(test_open_nocpu),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_open_escaped),
		cmocka_unit_test(test_cgroup_v1),
		cmocka_unit_test(test_cgroup_v2),
		cmocka_unit_test(test_class_inherit),
		cmocka_unit_test(test_cgroup_container),
		cmocka_unit_test(test_cgroup_table),
		cmocka_unit_test(test_level_get),
		cmocka_unit_test(test_level_set),
		cmocka_unit_test(test_class_get),
		cmocka_unit_test(test_dotdot_refused),
		cmocka_unit_test(test_class_set),
		cmocka_unit_test(test_move_pid),
		cmocka_unit_test(test_enable_remove),
		cmocka_unit_test(test_make_group),
		cmocka_unit_test(test_real_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
