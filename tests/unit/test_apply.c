// SPDX-License-Identifier: GPL-2.0-or-later
/* test_apply.c - apply.c without QEMU: pins, memory nodesets, records
 * and rollback through libvirt's own test driver (test:///default, in
 * this process: its running domain "test" takes vcpupin, emulatorpin and
 * a live numatune nodeset), class and level writes through the kernel
 * module on a fixture root (a copy of tests/data/kroot/v1, where pid
 * 4242 is the guest of group /machine/qemu-1-web.libvirt-qemu). The VM's
 * process is the seam: the observed VM carries the pid, the kernel root
 * maps it to its cgroup. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apply.h"
#include "cpuset.h"
#include "fixture.h"
#include "kernel.h"
#include "observe.h"
#include "virt.h"

#define KROOT VCP_SRCDIR "/tests/data/kroot/"
#define CLASS_FILE \
	"/sys/fs/cgroup/cpu/machine/qemu-1-web.libvirt-qemu/cpu.consolidate"
#define LEVEL_FILE "/sys/devices/system/cpu/sched_mc_power_savings"

struct fx {
	struct vcp_virt *v;
	struct vcp_world w;
	size_t test; /* index of the domain "test" */
	char dir[PATH_MAX]; /* the fixture copy */
	char root[PATH_MAX + 8];
};

static void observe_again(struct fx *f)
{
	char *err = NULL;

	vcp_world_clear(&f->w);
	assert_int_equal(vcp_observe(f->v, NULL, VCP_MODE_PIN, 0, &f->w, &err),
			 0);
	for (f->test = 0; f->test < f->w.n_vms; f->test++)
		if (!strcmp(f->w.vms[f->test].name, "test"))
			break;
	assert_true(f->test < f->w.n_vms);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char *err = NULL;

	assert_non_null(f);
	assert_int_equal(vcp_virt_open("test:///default", false, &f->v, &err),
			 0);
	observe_again(f);
	t_tmpdir(f->dir, sizeof(f->dir), "apply");
	snprintf(f->root, sizeof(f->root), "%s/v1", f->dir);
	t_copy(KROOT "v1", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	t_rmtree(f->dir);
	vcp_world_clear(&f->w);
	vcp_virt_close(f->v);
	free(f);
	return 0;
}

static struct vcp_action pin(enum vcp_act_kind kind, size_t vm,
			     unsigned int vcpu, const struct vcp_cpuset *from,
			     const char *to)
{
	struct vcp_action a = { .kind = kind,
				.vm = vm,
				.vcpu = vcpu,
				.from = *from,
				.from_level = -1 };

	assert_int_equal(vcp_cpuset_parse(to, &a.to), 0);
	return a;
}

static void fmt(const struct vcp_cpuset *s, char *buf)
{
	assert_true(vcp_cpuset_format(s, buf, 64) >= 0);
}

/* Apply @acts with the kernel module @k (NULL: pin mode): the call
 * itself succeeds; the outcomes are in @res. */
static void apply(struct fx *f, struct vcp_kernel *k,
		  const struct vcp_actions *acts, struct vcp_apply_result *res)
{
	assert_int_equal(
		vcp_apply_actions(f->v, k, f->w.host, f->w.vms, acts, res), 0);
}

/* Apply @acts in pin mode: every one done, none failed. */
static void apply_all(struct fx *f, const struct vcp_actions *acts)
{
	struct vcp_apply_result res = { 0 };

	apply(f, NULL, acts, &res);
	assert_int_equal(res.n_done, acts->n);
	assert_int_equal(res.n_failed, 0);
	vcp_apply_result_clear(&res);
}

/* Restore every VM that has a record, in pin mode: none fails. */
static void restore_all(struct fx *f, struct vcp_restore_result *rr)
{
	assert_int_equal(vcp_apply_restore(f->v, NULL, f->w.host, f->w.vms,
					   f->w.n_vms, NULL, rr),
			 0);
	assert_int_equal(rr->n_failed, 0);
}

/* "test" without a record, observed afresh. */
static void no_record(struct fx *f)
{
	char *err = NULL;

	vcp_virt_clear_saved(f->v, "test", &err);
	free(err);
	observe_again(f);
}

/* Observed afresh, vCPU @vcpu of "test" is pinned to @want. */
static void vcpu_pin_is(struct fx *f, unsigned int vcpu, const char *want)
{
	char now[64];

	observe_again(f);
	fmt(&f->w.vms[f->test].vcpu_pins[vcpu], now);
	assert_string_equal(now, want);
}

/* Observed afresh, the memory of "test" is on the nodes @want. */
static void mem_nodes_are(struct fx *f, const char *want)
{
	char now[64];

	observe_again(f);
	fmt(&f->w.vms[f->test].mem_nodes, now);
	assert_string_equal(now, want);
}

/* Pins, then a failure in the same VM: its earlier pins are undone. */
static void test_rollback(void **state)
{
	struct fx *f = *state;
	const struct vcp_vm *vm = &f->w.vms[f->test];
	struct vcp_apply_result res = { 0 };
	struct vcp_action a[5];
	struct vcp_actions acts = { a, 5 };
	char was_e[64], was_0[64], now[64];

	fmt(&vm->emulator_pins, was_e);
	fmt(&vm->vcpu_pins[0], was_0);
	a[0] = (struct vcp_action){ .kind = VCP_ACT_SAVE, .vm = f->test };
	a[1] = pin(VCP_ACT_PIN_EMULATOR, f->test, 0, &vm->emulator_pins, "1");
	a[2] = pin(VCP_ACT_PIN_VCPU, f->test, 0, &vm->vcpu_pins[0], "0");
	/* "test" has 2 vCPUs: libvirt refuses vCPU 9 */
	a[3] = pin(VCP_ACT_PIN_VCPU, f->test, 9, &vm->vcpu_pins[0], "0");
	a[4] = pin(VCP_ACT_PIN_VCPU, f->test, 1, &vm->vcpu_pins[1], "0");
	apply(f, NULL, &acts, &res);
	assert_int_equal(res.n, 5);
	assert_int_equal(res.e[0].outcome, VCP_DONE); /* the record stays */
	assert_int_equal(res.e[1].outcome, VCP_ROLLED_BACK);
	assert_int_equal(res.e[2].outcome, VCP_ROLLED_BACK);
	assert_int_equal(res.e[3].outcome, VCP_FAILED);
	assert_non_null(res.e[3].msg);
	assert_int_equal(res.e[4].outcome, VCP_SKIPPED);
	assert_int_equal(res.n_done, 1);
	assert_int_equal(res.n_failed, 1);
	assert_false(res.lost);
	vcp_apply_result_clear(&res);
	/* libvirt says the VM is as it was */
	observe_again(f);
	vm = &f->w.vms[f->test];
	fmt(&vm->emulator_pins, now);
	assert_string_equal(now, was_e);
	fmt(&vm->vcpu_pins[0], now);
	assert_string_equal(now, was_0);
	assert_true(vm->has_saved);
}

/* All done, then restore puts the recorded pins back and drops the
 * record; a second restore finds none. */
static void test_apply_restore(void **state)
{
	struct fx *f = *state;
	const struct vcp_vm *vm = &f->w.vms[f->test];
	struct vcp_restore_result rr = { 0 };
	struct vcp_action a[3];
	struct vcp_actions acts = { a, 3 };
	struct vcp_saved_pins s = { 0 };
	char *err = NULL, was_1[64], now[64];

	no_record(f);
	vm = &f->w.vms[f->test];
	fmt(&vm->vcpu_pins[1], was_1);
	a[0] = (struct vcp_action){ .kind = VCP_ACT_SAVE, .vm = f->test };
	a[1] = pin(VCP_ACT_PIN_VCPU, f->test, 1, &vm->vcpu_pins[1], "1");
	a[2] = pin(VCP_ACT_PIN_EMULATOR, f->test, 0, &vm->emulator_pins, "0-1");
	apply_all(f, &acts);
	assert_int_equal(vcp_virt_get_saved(f->v, "test", &s, &err), 0);
	assert_int_equal(s.n_vcpus, 2);
	fmt(&s.vcpu[1], now);
	assert_string_equal(now, was_1);
	vcp_saved_pins_clear(&s);

	vcpu_pin_is(f, 1, "1");
	restore_all(f, &rr);
	for (size_t i = 0; i < rr.n; i++)
		if (!strcmp(rr.e[i].vm, "test")) {
			assert_int_equal(rr.e[i].outcome, VCP_DONE);
			assert_true(rr.e[i].had_record);
		}
	vcp_restore_result_clear(&rr);
	vcpu_pin_is(f, 1, was_1);
	assert_false(f->w.vms[f->test].has_saved);
	/* nothing recorded: nothing done, no failure */
	restore_all(f, &rr);
	for (size_t i = 0; i < rr.n; i++)
		assert_false(rr.e[i].had_record);
	vcp_restore_result_clear(&rr);
}

/* A VM that went away is GONE without a message; the others go on. */
static void test_gone(void **state)
{
	struct fx *f = *state;
	struct vcp_vm *vm = &f->w.vms[f->test];
	struct vcp_apply_result res = { 0 };
	struct vcp_action a[2];
	struct vcp_actions acts = { a, 2 };
	char *name = vm->name;

	vm->name = (char *)"no-such-vm";
	a[0] = pin(VCP_ACT_PIN_VCPU, f->test, 0, &vm->vcpu_pins[0], "0");
	a[1] = pin(VCP_ACT_PIN_VCPU, f->test, 1, &vm->vcpu_pins[1], "0");
	apply(f, NULL, &acts, &res);
	vm->name = name;
	assert_int_equal(res.e[0].outcome, VCP_GONE);
	assert_null(res.e[0].msg);
	assert_int_equal(res.e[1].outcome, VCP_SKIPPED);
	assert_int_equal(res.n_failed, 0);
	vcp_apply_result_clear(&res);
}

static void slurp(const char *root, const char *rel, char *buf, size_t len)
{
	char path[2 * PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	t_slurp(path, buf, len);
}

/* Class and level through the kernel module on a fixture root: the VM's
 * process (pid 4242) found in ROOT/proc, its group classed; a process
 * that is gone is GONE for that action only, no pin is rolled back; pin
 * mode (no kernel) refuses both. */
static void test_class_level(void **state)
{
	struct fx *f = *state;
	struct vcp_vm *vm = &f->w.vms[f->test];
	struct vcp_apply_result res = { 0 };
	struct vcp_kernel *k = NULL;
	struct vcp_action a[4];
	struct vcp_actions acts = { a, 4 };
	char buf[64];
	int pid = vm->pid;

	assert_int_equal(vcp_kernel_open(f->root, &k), 0);
	assert_int_equal(vcp_kernel_mode(k), VCP_MODE_KERNEL);
	vm->pid = 4242;
	a[0] = (struct vcp_action){ .kind = VCP_ACT_SET_CLASS,
				    .vm = f->test,
				    .to_class = VCP_CLASS_PACK };
	a[1] = pin(VCP_ACT_PIN_VCPU, f->test, 0, &vm->vcpu_pins[0], "0");
	a[2] = (struct vcp_action){ .kind = VCP_ACT_SET_LEVEL,
				    .to_level = 2,
				    .from_level = -1 };
	a[3] = (struct vcp_action){ .kind = VCP_ACT_SET_LEVEL,
				    .to_level = 7,
				    .from_level = -1 };
	apply(f, k, &acts, &res);
	assert_int_equal(res.e[0].outcome, VCP_DONE);
	assert_int_equal(res.e[1].outcome, VCP_DONE);
	assert_int_equal(res.e[2].outcome, VCP_DONE);
	assert_int_equal(res.e[3].outcome, VCP_FAILED);
	assert_non_null(strstr(res.e[3].msg, "sched_mc_power_savings=7"));
	vcp_apply_result_clear(&res);
	slurp(f->root, CLASS_FILE, buf, sizeof(buf));
	assert_string_equal(buf, "pack\n");
	slurp(f->root, LEVEL_FILE, buf, sizeof(buf));
	assert_string_equal(buf, "2\n");

	/* the process is gone (the VM stopped): GONE, no message, and the
	 * pin before it stays */
	vm->pid = 999999;
	a[0] = pin(VCP_ACT_PIN_VCPU, f->test, 1, &vm->vcpu_pins[1], "1");
	a[1] = (struct vcp_action){ .kind = VCP_ACT_SET_CLASS,
				    .vm = f->test,
				    .to_class = VCP_CLASS_SPREAD };
	acts.n = 2;
	apply(f, k, &acts, &res);
	assert_int_equal(res.e[0].outcome, VCP_DONE);
	assert_int_equal(res.e[1].outcome, VCP_GONE);
	assert_null(res.e[1].msg);
	assert_int_equal(res.n_failed, 0);
	vcp_apply_result_clear(&res);

	/* pin mode: no kernel to write to */
	a[0] = (struct vcp_action){ .kind = VCP_ACT_SET_CLASS,
				    .vm = f->test,
				    .to_class = VCP_CLASS_PACK };
	a[1] = (struct vcp_action){ .kind = VCP_ACT_SET_LEVEL, .to_level = 1 };
	apply(f, NULL, &acts, &res);
	assert_int_equal(res.e[0].r, -ENOTSUP);
	assert_int_equal(res.e[1].r, -ENOTSUP);
	vcp_apply_result_clear(&res);

	/* restore in kernel mode puts a classed VM back to balanced */
	{
		struct vcp_restore_result rr = { 0 };
		bool only[64] = { false };

		vm->pid = 4242;
		vm->has_cur_class = true;
		vm->cur_class = VCP_CLASS_PACK;
		only[f->test] = true;
		assert_int_equal(vcp_apply_restore(f->v, k, f->w.host, f->w.vms,
						   f->w.n_vms, only, &rr),
				 0);
		assert_int_equal(rr.n, 1);
		assert_int_equal(rr.e[0].outcome, VCP_DONE);
		vcp_restore_result_clear(&rr);
		slurp(f->root, CLASS_FILE, buf, sizeof(buf));
		assert_string_equal(buf, "balanced\n");
	}
	vm->pid = pid;
	vcp_kernel_free(k);
}

static struct vcp_action mem(size_t vm, const char *from, const char *to)
{
	struct vcp_action a = { .kind = VCP_ACT_SET_MEMORY,
				.vm = vm,
				.from_level = -1 };

	if (*from)
		assert_int_equal(vcp_cpuset_parse(from, &a.from), 0);
	if (*to)
		assert_int_equal(vcp_cpuset_parse(to, &a.to), 0);
	return a;
}

/* "test" in strict mode on node 0, no record, observed afresh. */
static void strict_on_node0(struct fx *f)
{
	struct vcp_cpuset n0;
	char *err = NULL;

	no_record(f);
	assert_int_equal(vcp_cpuset_parse("0", &n0), 0);
	assert_int_equal(vcp_virt_set_mem_nodes(f->v, "test", &n0, &err), 0);
	assert_null(err);
	observe_again(f);
	assert_int_equal(f->w.vms[f->test].mem_mode, VCP_MEM_STRICT);
	assert_true(vcp_cpuset_equal(&f->w.vms[f->test].mem_nodes, &n0));
	assert_false(f->w.vms[f->test].has_saved_mem);
}

/* Memory follows through virDomainSetNumaParameters; the record keeps
 * the original nodeset and restore puts it back. */
static void test_memory_apply_restore(void **state)
{
	struct fx *f = *state;
	const struct vcp_vm *vm;
	struct vcp_restore_result rr = { 0 };
	struct vcp_action a[3];
	struct vcp_actions acts = { a, 3 };
	struct vcp_saved_pins s = { 0 };
	char *err = NULL, now[64];

	strict_on_node0(f);
	vm = &f->w.vms[f->test];
	a[0] = (struct vcp_action){ .kind = VCP_ACT_SAVE, .vm = f->test };
	a[1] = pin(VCP_ACT_PIN_VCPU, f->test, 1, &vm->vcpu_pins[1], "1");
	a[2] = mem(f->test, "0", "1");
	apply_all(f, &acts);
	assert_int_equal(vcp_virt_get_saved(f->v, "test", &s, &err), 0);
	assert_true(s.has_memory);
	fmt(&s.mem_nodes, now);
	assert_string_equal(now, "0");
	vcp_saved_pins_clear(&s);
	mem_nodes_are(f, "1");
	assert_true(f->w.vms[f->test].has_saved_mem);

	restore_all(f, &rr);
	vcp_restore_result_clear(&rr);
	mem_nodes_are(f, "0");
	assert_false(f->w.vms[f->test].has_saved);
}

/* A memory move that fails stops nothing else of its VM: the pins after
 * it are done, those before it stay; a later pin failure rolls a done
 * memory move back with the pins. */
static void test_memory_failure_and_rollback(void **state)
{
	struct fx *f = *state;
	const struct vcp_vm *vm;
	struct vcp_apply_result res = { 0 };
	struct vcp_action a[3];
	struct vcp_actions acts = { a, 3 };

	strict_on_node0(f);
	vm = &f->w.vms[f->test];
	a[0] = pin(VCP_ACT_PIN_VCPU, f->test, 0, &vm->vcpu_pins[0], "0");
	a[1] = mem(f->test, "0", ""); /* no node: libvirt is not asked */
	a[2] = pin(VCP_ACT_PIN_VCPU, f->test, 1, &vm->vcpu_pins[1], "1");
	apply(f, NULL, &acts, &res);
	assert_int_equal(res.e[0].outcome, VCP_DONE);
	assert_int_equal(res.e[1].outcome, VCP_FAILED);
	assert_non_null(strstr(res.e[1].msg, "'test'"));
	assert_int_equal(res.e[2].outcome, VCP_DONE);
	assert_int_equal(res.n_done, 2);
	assert_int_equal(res.n_failed, 1);
	vcp_apply_result_clear(&res);

	observe_again(f);
	vm = &f->w.vms[f->test];
	a[0] = mem(f->test, "0", "1");
	/* "test" has 2 vCPUs: libvirt refuses vCPU 9 */
	a[1] = pin(VCP_ACT_PIN_VCPU, f->test, 9, &vm->vcpu_pins[0], "0");
	acts.n = 2;
	apply(f, NULL, &acts, &res);
	assert_int_equal(res.e[0].outcome, VCP_ROLLED_BACK);
	assert_int_equal(res.e[1].outcome, VCP_FAILED);
	vcp_apply_result_clear(&res);
	mem_nodes_are(f, "0");
}

/* A driver that will not move memory (here: a read-only connection, as
 * a session libvirtd without cgroups refuses): REFUSED with libvirt's
 * reason, not a failure, memory left as it was. */
static void test_memory_refused(void **state)
{
	struct fx *f = *state;
	struct vcp_virt *ro = NULL;
	struct vcp_apply_result res = { 0 };
	struct vcp_action a[1];
	struct vcp_actions acts = { a, 1 };
	char *err = NULL;

	strict_on_node0(f);
	assert_int_equal(vcp_virt_open("test:///default", true, &ro, &err), 0);
	a[0] = mem(f->test, "0", "1");
	assert_int_equal(vcp_apply_actions(ro, NULL, f->w.host, f->w.vms, &acts,
					   &res),
			 0);
	assert_int_equal(res.e[0].outcome, VCP_REFUSED);
	assert_non_null(strstr(
		res.e[0].msg, "Failed to move the memory of 'test' to node 1"));
	assert_int_equal(res.n_failed, 0);
	assert_int_equal(res.n_done, 0);
	vcp_apply_result_clear(&res);
	vcp_virt_close(ro);
	mem_nodes_are(f, "0");
}

static void test_outcome_names(void **state)
{
	assert_string_equal(vcp_outcome_name(VCP_REFUSED), "refused");
	assert_string_equal(vcp_outcome_name(VCP_DONE), "done");
	assert_string_equal(vcp_outcome_name(VCP_FAILED), "failed");
	assert_string_equal(vcp_outcome_name(VCP_RETRY), "retry");
	assert_string_equal(vcp_outcome_name(VCP_GONE), "gone");
	assert_string_equal(vcp_outcome_name(VCP_SKIPPED), "skipped");
	assert_string_equal(vcp_outcome_name(VCP_ROLLED_BACK), "rolled-back");
	assert_string_equal(vcp_outcome_name((enum vcp_outcome)99), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rollback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_restore, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_class_level, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_memory_apply_restore,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_memory_failure_and_rollback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory_refused, setup,
						teardown),
		cmocka_unit_test(test_outcome_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
