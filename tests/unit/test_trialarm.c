// SPDX-License-Identifier: GPL-2.0-or-later
/* test_trialarm.c - the host states of `vcpack trial` and the plans that
 * switch between them, through diff.c as the command uses them: the
 * found state copies pins, classes and level; "as restored" takes the
 * recorded pins, balanced classes and level 0; the plan of a state gives
 * exactly the pin, class and level actions back to it (a SAVE first
 * where no record exists) and leaves VMs the state does not know or
 * leaves alone. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpuset.h"
#include "diff.h"
#include "trialarm.h"

static struct vcp_cpuset cs(const char *s)
{
	struct vcp_cpuset c;

	assert_int_equal(vcp_cpuset_parse(s, &c), 0);
	return c;
}

/* VM @name with @n vCPUs all pinned to @pins, emulator @emu. */
static void mkvm(struct vcp_vm *vm, const char *name, unsigned int n,
		 const char *pins, const char *emu)
{
	memset(vm, 0, sizeof(*vm));
	vm->name = strdup(name);
	assert_int_equal(vcp_vm_alloc_vcpus(vm, n), 0);
	for (unsigned int i = 0; i < n; i++)
		vm->vcpu_pins[i] = cs(pins);
	vm->emulator_pins = cs(emu);
	vm->managed = true;
	vm->running = true;
}

static void world(struct vcp_world *w)
{
	memset(w, 0, sizeof(*w));
	w->n_vms = 3;
	w->vms = calloc(3, sizeof(*w->vms));
	mkvm(&w->vms[0], "web", 2, "0-15", "0-15");
	mkvm(&w->vms[1], "db", 2, "0-15", "0-15");
	w->vms[1].vcpu_pins[1] = cs("2-5");
	w->vms[1].has_saved = true;
	w->vms[1].pid = 4242;
	w->vms[1].has_cur_class = true;
	w->vms[1].cur_class = VCP_CLASS_PACK;
	mkvm(&w->vms[2], "odd", 1, "7", "7");
	w->vms[2].managed = false;
	w->cur_level = 1;
}

static void test_from_world(void **state)
{
	struct vcp_world w;
	struct vcp_arm_state s;

	world(&w);
	assert_int_equal(vcp_arm_from_world(&w, &s), 0);
	assert_int_equal(s.n_vms, 3);
	assert_int_equal(s.level, 1);
	assert_string_equal(s.vms[1].name, "db");
	assert_true(vcp_cpuset_equal(&s.vms[1].vcpu_pins[1], &w.vms[1].vcpu_pins[1]));
	assert_true(s.vms[1].had_saved);
	assert_false(s.vms[0].had_saved);
	assert_true(s.vms[1].has_class);
	assert_int_equal(s.vms[1].class, VCP_CLASS_PACK);
	assert_true(s.vms[2].leave);
	vcp_arm_state_clear(&s);
	assert_int_equal(s.level, -1);
	vcp_world_clear(&w);
}

static void test_as_restored(void **state)
{
	struct vcp_world w;
	struct vcp_arm_state s;
	struct vcp_cpuset pins[2] = { cs("0-15"), cs("8-11") };
	struct vcp_saved_pins rec = { .n_vcpus = 2, .vcpu = pins,
				      .emulator = cs("0-3"),
				      .has_emulator = true };
	const char *names[] = { "db" };

	world(&w);
	assert_int_equal(vcp_arm_from_world(&w, &s), 0);
	vcp_arm_as_restored(&s, names, &rec, 1, true);
	assert_true(vcp_cpuset_equal(&s.vms[1].vcpu_pins[1], &pins[1]));
	assert_true(vcp_cpuset_equal(&s.vms[1].emulator_pins, &rec.emulator));
	assert_true(vcp_cpuset_equal(&s.vms[0].vcpu_pins[0], &w.vms[0].vcpu_pins[0]));
	assert_int_equal(s.vms[1].class, VCP_CLASS_BALANCED);
	assert_int_equal(s.level, 0);
	vcp_arm_state_clear(&s);
	/* no level knob stays without one */
	w.cur_level = -1;
	assert_int_equal(vcp_arm_from_world(&w, &s), 0);
	vcp_arm_as_restored(&s, names, &rec, 1, false);
	assert_int_equal(s.level, -1);
	assert_int_equal(s.vms[1].class, VCP_CLASS_PACK);
	vcp_arm_state_clear(&s);
	vcp_world_clear(&w);
}

/* Found, then the VMs move (as arm B would): the plan of the found state
 * diffs back to it exactly. */
static void test_plan_back(void **state)
{
	struct vcp_world w;
	struct vcp_arm_state found;
	struct vcp_plan *plan = NULL;
	struct vcp_actions acts = { 0 };

	world(&w);
	assert_int_equal(vcp_arm_from_world(&w, &found), 0);
	w.vms[0].vcpu_pins[1] = cs("8-15");	/* web moved */
	w.vms[1].cur_class = VCP_CLASS_SPREAD;	/* db reclassed */
	w.vms[2].vcpu_pins[0] = cs("1");	/* odd: someone else's */
	w.cur_level = 2;
	assert_int_equal(vcp_arm_plan(&found, w.vms, w.n_vms, VCP_MODE_KERNEL,
				      &plan), 0);
	assert_int_equal(vcp_diff_compute(NULL, w.vms, w.n_vms, plan,
					  w.cur_level, &acts), 0);
	assert_int_equal(acts.n, 4);
	assert_int_equal(acts.a[0].kind, VCP_ACT_SAVE);
	assert_int_equal(acts.a[0].vm, 0);
	assert_int_equal(acts.a[1].kind, VCP_ACT_PIN_VCPU);
	assert_int_equal(acts.a[1].vcpu, 1);
	assert_true(vcp_cpuset_equal(&acts.a[1].to, &found.vms[0].vcpu_pins[1]));
	assert_int_equal(acts.a[2].kind, VCP_ACT_SET_CLASS);
	assert_int_equal(acts.a[2].vm, 1);
	assert_int_equal(acts.a[2].to_class, VCP_CLASS_PACK);
	assert_int_equal(acts.a[3].kind, VCP_ACT_SET_LEVEL);
	assert_int_equal(acts.a[3].to_level, 1);
	vcp_actions_clear(&acts);
	vcp_plan_free(plan);
	/* a VM the state does not know is left; nothing else differs */
	w.vms[0].vcpu_pins[1] = cs("0-15");
	w.vms[1].cur_class = VCP_CLASS_PACK;
	w.cur_level = 1;
	free(found.vms[0].name);
	found.vms[0].name = strdup("gone");
	w.vms[0].vcpu_pins[0] = cs("3");
	assert_int_equal(vcp_arm_plan(&found, w.vms, w.n_vms, VCP_MODE_KERNEL,
				      &plan), 0);
	assert_int_equal(vcp_diff_compute(NULL, w.vms, w.n_vms, plan,
					  w.cur_level, &acts), 0);
	assert_int_equal(acts.n, 0);
	vcp_actions_clear(&acts);
	vcp_plan_free(plan);
	vcp_arm_state_clear(&found);
	vcp_world_clear(&w);
}

static void test_from_plan(void **state)
{
	struct vcp_world w;
	struct vcp_arm_state s;
	struct vcp_plan *plan = NULL;

	world(&w);
	assert_int_equal(vcp_arm_from_world(&w, &s), 0);
	s.vms[0].vcpu_pins[0] = cs("0-3");
	s.level = 2;
	assert_int_equal(vcp_arm_plan(&s, w.vms, w.n_vms, VCP_MODE_PIN, &plan), 0);
	vcp_arm_state_clear(&s);
	assert_int_equal(vcp_arm_from_plan(plan, w.vms, w.n_vms, 0, &s), 0);
	assert_int_equal(s.level, 2);
	assert_true(vcp_cpuset_equal(&s.vms[0].vcpu_pins[0],
				     &(struct vcp_cpuset){ .nw = 1,
							   .w = { 0xf } }));
	assert_true(s.vms[2].leave);	/* unmanaged in the plan */
	vcp_arm_state_clear(&s);
	assert_int_equal(vcp_arm_from_plan(plan, w.vms, w.n_vms, -1, &s), 0);
	assert_int_equal(s.level, -1);	/* no knob: no level */
	vcp_arm_state_clear(&s);
	vcp_plan_free(plan);
	vcp_world_clear(&w);
}

static void test_same(void **state)
{
	struct vcp_world w;
	struct vcp_arm_state a, b;

	world(&w);
	assert_int_equal(vcp_arm_from_world(&w, &a), 0);
	assert_int_equal(vcp_arm_from_world(&w, &b), 0);
	assert_true(vcp_arm_same(&a, &b, true));
	vcp_cpuset_zero(&b.vms[0].vcpu_pins[1]);	/* empty: leave */
	assert_true(vcp_arm_same(&a, &b, true));
	b.vms[2].vcpu_pins[0] = cs("0");		/* left alone */
	assert_true(vcp_arm_same(&a, &b, true));
	b.vms[1].class = VCP_CLASS_SPREAD;
	assert_false(vcp_arm_same(&a, &b, true));
	assert_true(vcp_arm_same(&a, &b, false));	/* pin mode: no class */
	b.vms[1].class = VCP_CLASS_PACK;
	b.level = 2;
	assert_false(vcp_arm_same(&a, &b, true));
	b.level = -1;
	assert_true(vcp_arm_same(&a, &b, true));
	b.vms[0].emulator_pins = cs("0-3");
	assert_false(vcp_arm_same(&a, &b, true));
	vcp_arm_state_clear(&a);
	vcp_arm_state_clear(&b);
	vcp_world_clear(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_world),
		cmocka_unit_test(test_as_restored),
		cmocka_unit_test(test_plan_back),
		cmocka_unit_test(test_from_plan),
		cmocka_unit_test(test_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
