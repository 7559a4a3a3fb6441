// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_pinmemo.c - telling vcpackd's own pins from someone else's:
 * restate (report once) and respect (leave the VM alone while its pins
 * stay as found), forgetting, and what counts as "set" after an apply
 * where some actions failed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pinmemo.h"

static void set(struct vcp_cpuset *s, const char *list)
{
	assert_int_equal(vcp_cpuset_parse(list, s), 0);
}

static void vm_init(struct vcp_vm *vm, const char *name)
{
	memset(vm, 0, sizeof(*vm));
	assert_int_equal(vcp_vm_alloc_vcpus(vm, 2), 0);
	vm->name = strdup(name);
	vm->managed = true;
	set(&vm->vcpu_pins[0], "0-3");
	set(&vm->vcpu_pins[1], "0-3");
	set(&vm->emulator_pins, "0-3");
}

/* vCPU 0 -> "0" done, vCPU 1 -> "1" failed, emulator -> "2" done. */
static void record_some(struct vcp_pin_memo *m, struct vcp_vm *vms, size_t n)
{
	struct vcp_action a[3] = {
		{ .kind = VCP_ACT_PIN_VCPU, .vm = 0, .vcpu = 0 },
		{ .kind = VCP_ACT_PIN_VCPU, .vm = 0, .vcpu = 1 },
		{ .kind = VCP_ACT_PIN_EMULATOR, .vm = 0 },
	};
	struct vcp_outcome_entry e[3] = {
		{ .action = 0, .outcome = VCP_DONE },
		{ .action = 1, .outcome = VCP_FAILED },
		{ .action = 2, .outcome = VCP_DONE },
	};
	struct vcp_actions acts = { a, 3 };
	struct vcp_apply_result res = { e, 3, 2, 1, false };

	set(&a[0].to, "0");
	set(&a[1].to, "1");
	set(&a[2].to, "2");
	assert_int_equal(vcp_pin_memo_record(m, vms, n, &acts, &res), 0);
}

static void now_as_set(struct vcp_vm *vm)
{
	set(&vm->vcpu_pins[0], "0");	/* done */
	set(&vm->vcpu_pins[1], "0-3");	/* failed: as it was */
	set(&vm->emulator_pins, "2");
}

static void test_restate(void **state)
{
	struct vcp_pin_memo *m;
	struct vcp_vm vm;
	const char *names[2];

	assert_int_equal(vcp_pin_memo_new(&m), 0);
	vm_init(&vm, "a");
	/* nothing recorded yet: nothing is foreign */
	assert_int_equal(vcp_pin_memo_check(m, &vm, 1, false, names, 2), 0);
	record_some(m, &vm, 1);
	now_as_set(&vm);
	assert_int_equal(vcp_pin_memo_check(m, &vm, 1, false, names, 2), 0);
	/* someone else moves vCPU 1 */
	set(&vm.vcpu_pins[1], "5");
	assert_int_equal(vcp_pin_memo_check(m, &vm, 1, false, names, 2), 1);
	assert_string_equal(names[0], "a");
	assert_true(vm.managed);	/* restate: still ours */
	/* said once, not every cycle */
	assert_int_equal(vcp_pin_memo_check(m, &vm, 1, false, names, 2), 0);
	/* restated (pins as set again), then changed again: news again */
	set(&vm.vcpu_pins[1], "0-3");
	assert_int_equal(vcp_pin_memo_check(m, &vm, 1, false, names, 2), 0);
	set(&vm.vcpu_pins[1], "6");
	assert_int_equal(vcp_pin_memo_check(m, &vm, 1, false, names, 2), 1);
	/* forgotten (tag changed): planned afresh, nothing foreign */
	vcp_pin_memo_forget(m, "a");
	assert_int_equal(vcp_pin_memo_check(m, &vm, 1, false, names, 2), 0);
	vcp_vm_clear(&vm);
	vcp_pin_memo_free(m);
}

/* Every other CPU of 16,384: set @s to the even (@odd false) or odd
 * ones, the longest cpulists a host has. */
static void every_other(struct vcp_cpuset *s, bool odd)
{
	vcp_cpuset_zero(s);
	for (unsigned int c = odd; c < 16384; c += 2)
		vcp_cpuset_set(s, c);
}

/* Pins past any fixed buffer are told apart: someone moving a vCPU from
 * the even CPUs to the odd ones is news. */
static void test_restate_long(void **state)
{
	struct vcp_pin_memo *m;
	struct vcp_vm vm;
	const char *names[2];
	struct vcp_action a = { .kind = VCP_ACT_PIN_VCPU, .vm = 0, .vcpu = 0 };
	struct vcp_outcome_entry e = { .action = 0, .outcome = VCP_DONE };
	struct vcp_actions acts = { &a, 1 };
	struct vcp_apply_result res = { &e, 1, 1, 0, false };

	assert_int_equal(vcp_pin_memo_new(&m), 0);
	vm_init(&vm, "a");
	every_other(&a.to, false);
	assert_int_equal(vcp_pin_memo_record(m, &vm, 1, &acts, &res), 0);
	every_other(&vm.vcpu_pins[0], false);
	assert_int_equal(vcp_pin_memo_check(m, &vm, 1, false, names, 2), 0);
	every_other(&vm.vcpu_pins[0], true);
	assert_int_equal(vcp_pin_memo_check(m, &vm, 1, false, names, 2), 1);
	assert_string_equal(names[0], "a");
	vcp_vm_clear(&vm);
	vcp_pin_memo_free(m);
}

static void test_respect(void **state)
{
	struct vcp_pin_memo *m;
	struct vcp_vm vm;
	const char *names[2];

	assert_int_equal(vcp_pin_memo_new(&m), 0);
	vm_init(&vm, "a");
	record_some(m, &vm, 1);
	now_as_set(&vm);
	set(&vm.emulator_pins, "7");
	assert_int_equal(vcp_pin_memo_check(m, &vm, 1, true, names, 2), 1);
	assert_false(vm.managed);
	/* next cycle, pins as found: still left alone, not said again */
	vm.managed = true;
	assert_int_equal(vcp_pin_memo_check(m, &vm, 1, true, names, 2), 0);
	assert_false(vm.managed);
	/* changed again: vcpack plans it afresh */
	vm.managed = true;
	set(&vm.emulator_pins, "6");
	assert_int_equal(vcp_pin_memo_check(m, &vm, 1, true, names, 2), 0);
	assert_true(vm.managed);
	/* an unmanaged VM (bad tag) is never reported */
	vm.managed = false;
	set(&vm.emulator_pins, "5");
	assert_int_equal(vcp_pin_memo_check(m, &vm, 1, true, names, 2), 0);
	vcp_vm_clear(&vm);
	vcp_pin_memo_free(m);
}

/* A refused memory move is not asked for again until forgotten. */
static void test_memory_refused(void **state)
{
	struct vcp_pin_memo *m;
	struct vcp_vm vms[2];
	struct vcp_action a[1] = { { .kind = VCP_ACT_SET_MEMORY, .vm = 1 } };
	struct vcp_outcome_entry e[1] = { { .action = 0,
					    .outcome = VCP_REFUSED } };
	struct vcp_actions acts = { a, 1 };
	struct vcp_apply_result res = { e, 1, 0, 0, false };
	const char *names[2];

	assert_int_equal(vcp_pin_memo_new(&m), 0);
	vm_init(&vms[0], "a");
	vm_init(&vms[1], "b");
	assert_int_equal(vcp_pin_memo_record(m, vms, 2, &acts, &res), 0);
	vcp_vm_clear(&vms[0]);
	vcp_vm_clear(&vms[1]);
	vm_init(&vms[0], "a");
	vm_init(&vms[1], "b");
	assert_int_equal(vcp_pin_memo_check(m, vms, 2, false, names, 2), 0);
	assert_false(vms[0].mem_refused);
	assert_true(vms[1].mem_refused);
	/* still so after a pass that did not ask */
	res.n = 0;
	assert_int_equal(vcp_pin_memo_record(m, vms, 2, &acts, &res), 0);
	vms[1].mem_refused = false;
	vcp_pin_memo_check(m, vms, 2, false, names, 2);
	assert_true(vms[1].mem_refused);
	/* forgotten (restart, tag change): asked again */
	vcp_pin_memo_forget(m, "b");
	vms[1].mem_refused = false;
	vcp_pin_memo_check(m, vms, 2, false, names, 2);
	assert_false(vms[1].mem_refused);
	vcp_vm_clear(&vms[0]);
	vcp_vm_clear(&vms[1]);
	vcp_pin_memo_free(m);
}

static void test_forget_unlisted(void **state)
{
	struct vcp_pin_memo *m;
	struct vcp_vm vms[2];
	struct vcp_actions none = { NULL, 0 };
	struct vcp_apply_result nores = { 0 };
	const char *names[2];

	assert_int_equal(vcp_pin_memo_new(&m), 0);
	vm_init(&vms[0], "a");
	vm_init(&vms[1], "b");
	assert_int_equal(vcp_pin_memo_record(m, vms, 2, &none, &nores), 0);
	/* "b" stopped: the next record forgets it; started again with other
	 * pins it is not "re-pinned by someone else" */
	assert_int_equal(vcp_pin_memo_record(m, vms, 1, &none, &nores), 0);
	set(&vms[1].vcpu_pins[0], "9");
	assert_int_equal(vcp_pin_memo_check(m, vms, 2, false, names, 2), 0);
	vcp_vm_clear(&vms[0]);
	vcp_vm_clear(&vms[1]);
	vcp_pin_memo_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_restate),
		cmocka_unit_test(test_restate_long),
		cmocka_unit_test(test_respect),
		cmocka_unit_test(test_memory_refused),
		cmocka_unit_test(test_forget_unlisted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
