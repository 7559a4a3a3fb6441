// SPDX-License-Identifier: GPL-2.0-or-later
/* test_passcut.c - a re-plan pass cut short by the connection to libvirt
 * (passcut.c): when a pass counts as cut (lost or -ENOTCONN at once; a
 * failure only when the connection is found dead, asked only then), and
 * what a cut pass leaves: the VMs of changes not known to be done
 * forgotten in the pin memo, their messages dropped, the others kept. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "passcut.h"

struct probe {
	bool alive;
	int asked;
};

static bool alive(void *opaque)
{
	struct probe *p = opaque;

	p->asked++;
	return p->alive;
}

static void test_is(void **state)
{
	static const struct {
		int r;
		bool lost;
		size_t failed, issues;
		bool alive;
		bool cut;
		int asked;
	} cases[] = {
		/* the connection said so: cut, nothing asked */
		{ -ENOTCONN, false, 0, 0, true, true, 0 },
		{ 0, true, 1, 0, true, true, 0 },
		/* all went well: not cut, nothing asked */
		{ 0, false, 0, 0, false, false, 0 },
		/* something failed: cut when the connection is dead */
		{ -EIO, false, 0, 0, false, true, 1 },
		{ -EIO, false, 0, 0, true, false, 1 },
		{ 0, false, 2, 0, false, true, 1 },
		{ 0, false, 2, 0, true, false, 1 },
		{ 0, false, 0, 1, false, true, 1 },
		{ 0, false, 0, 1, true, false, 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vcp_apply_result res = { .lost = cases[i].lost,
						.n_failed = cases[i].failed };
		struct probe p = { .alive = cases[i].alive };
		bool cut = vcp_passcut_is(cases[i].r, &res, cases[i].issues,
					  alive, &p);

		if (cut != cases[i].cut || p.asked != cases[i].asked)
			fail_msg("case %zu: cut %d asked %d, want %d %d", i,
				 cut, p.asked, cases[i].cut, cases[i].asked);
	}
}

static void vm_init(struct vcp_vm *vm, const char *name)
{
	memset(vm, 0, sizeof(*vm));
	assert_int_equal(vcp_vm_alloc_vcpus(vm, 1), 0);
	vm->name = strdup(name);
	vm->managed = true;
	assert_int_equal(vcp_cpuset_parse("0-3", &vm->vcpu_pins[0]), 0);
	assert_int_equal(vcp_cpuset_parse("0-3", &vm->emulator_pins), 0);
}

static void test_settle(void **state)
{
	struct vcp_action a[5] = {
		{ .kind = VCP_ACT_PIN_VCPU, .vm = 0 }, /* RETRY: under way */
		{ .kind = VCP_ACT_PIN_VCPU, .vm = 1 }, /* DONE */
		{ .kind = VCP_ACT_SET_LEVEL }, /* SKIPPED */
		{ .kind = VCP_ACT_PIN_EMULATOR, .vm = 2 }, /* SKIPPED */
		{ .kind = VCP_ACT_PIN_EMULATOR, .vm = 1 }, /* FAILED */
	};
	struct vcp_outcome_entry e[5] = {
		{ .action = 0, .outcome = VCP_RETRY, .msg = strdup("closed") },
		{ .action = 1, .outcome = VCP_DONE },
		{ .action = 2, .outcome = VCP_SKIPPED, .msg = strdup("closed") },
		{ .action = 3, .outcome = VCP_SKIPPED, .msg = strdup("closed") },
		{ .action = 4, .outcome = VCP_FAILED, .msg = strdup("refused") },
	};
	struct vcp_actions acts = { a, 5 }, none = { NULL, 0 };
	struct vcp_apply_result res = { e, 5, 1, 2, true };
	struct vcp_apply_result nothing = { NULL, 0, 0, 0, false };
	struct vcp_pin_memo *m;
	struct vcp_vm vms[3];
	const char *names[4];

	vm_init(&vms[0], "a");
	vm_init(&vms[1], "b");
	vm_init(&vms[2], "c");
	assert_int_equal(vcp_pin_memo_new(&m), 0);
	assert_int_equal(vcp_pin_memo_record(m, vms, 3, &none, &nothing), 0);
	vcp_passcut_settle(&acts, vms, &res, m);
	assert_null(e[0].msg);
	assert_null(e[2].msg);
	assert_null(e[3].msg);
	assert_string_equal(e[4].msg, "refused");
	/* every VM re-pinned now: only b is still remembered, so only b's
	 * pins are someone else's */
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(vcp_cpuset_parse("7", &vms[i].vcpu_pins[0]),
				 0);
	assert_int_equal(vcp_pin_memo_check(m, vms, 3, false, names, 4), 1);
	assert_string_equal(names[0], "b");
	free(e[4].msg);
	vcp_pin_memo_free(m);
	for (size_t i = 0; i < 3; i++)
		vcp_vm_clear(&vms[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_is),
		cmocka_unit_test(test_settle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
