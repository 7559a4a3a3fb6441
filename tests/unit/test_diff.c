// SPDX-License-Identifier: GPL-2.0-or-later
/* test_diff.c - plan vs observed host -> ordered actions; and the
 * per-package map of report.c. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "diff.h"
#include "report.h"

static struct vcp_cpuset S(const char *list)
{
	struct vcp_cpuset s;

	assert_int_equal(vcp_cpuset_parse(list, &s), 0);
	return s;
}

/* 2 packages x 4 CPUs: package 0 = 0-3, package 1 = 4-7. */
static struct vcp_host *host2x4(void)
{
	struct vcp_host *h = calloc(1, sizeof(*h));

	h->n_cpus = 8;
	h->cpus = calloc(8, sizeof(*h->cpus));
	for (unsigned int i = 0; i < 8; i++) {
		h->cpus[i].id = i;
		h->cpus[i].package = (int)(i / 4);
		h->cpus[i].core = (int)(i % 4);
		h->cpus[i].node = 0;
	}
	assert_int_equal(vcp_host_finish(h), 0);
	return h;
}

static void make_vm(struct vcp_vm *vm, const char *name, unsigned int n,
		    const char *pins)
{
	assert_int_equal(vcp_vm_alloc_vcpus(vm, n), 0);
	vm->name = strdup(name);
	vm->managed = true;
	for (unsigned int i = 0; i < n; i++)
		vm->vcpu_pins[i] = S(pins);
	vm->emulator_pins = S(pins);
}

static struct vcp_plan *make_plan(const struct vcp_vm *vms, size_t n,
				  const char *const *pins)
{
	struct vcp_plan *p = calloc(1, sizeof(*p));

	p->n_vms = n;
	p->vms = calloc(n, sizeof(*p->vms));
	p->n_packages = 2;
	p->pkg_active = calloc(2, sizeof(bool));
	p->pkg_demand = calloc(2, sizeof(double));
	p->pkg_capacity = calloc(2, sizeof(double));
	p->pkg_active[0] = true;
	p->level = 1;
	for (size_t i = 0; i < n; i++) {
		p->vms[i].name = vms[i].name;
		p->vms[i].n_vcpus = vms[i].n_vcpus;
		p->vms[i].vcpu_pins = calloc(vms[i].n_vcpus, sizeof(struct vcp_cpuset));
		p->vms[i].class = VCP_CLASS_PACK;
		for (unsigned int c = 0; c < vms[i].n_vcpus; c++)
			p->vms[i].vcpu_pins[c] = S(pins[i]);
		p->vms[i].emulator_pins = S(pins[i]);
	}
	return p;
}

static void test_diff_orders_and_saves(void **state)
{
	struct vcp_host *h = host2x4();
	struct vcp_vm *vms = calloc(2, sizeof(*vms));
	static const char *const planned[] = { "0-3", "0-3" };
	struct vcp_plan *p;
	struct vcp_actions a = { 0 };

	make_vm(&vms[0], "a", 2, "0-7");
	make_vm(&vms[1], "b", 1, "0-3");	/* already as planned */
	p = make_plan(vms, 2, planned);
	assert_int_equal(vcp_diff_compute(h, vms, 2, p, -1, &a), 0);
	assert_int_equal(a.n, 4);
	assert_int_equal(a.a[0].kind, VCP_ACT_SAVE);
	assert_int_equal(a.a[1].kind, VCP_ACT_PIN_EMULATOR);
	assert_int_equal(a.a[2].kind, VCP_ACT_PIN_VCPU);
	assert_int_equal(a.a[2].vcpu, 0);
	assert_int_equal(a.a[3].vcpu, 1);
	assert_true(vcp_cpuset_equal(&a.a[3].from, &vms[0].vcpu_pins[1]));
	assert_int_equal(vcp_cpuset_last(&a.a[3].to), 3);
	for (size_t i = 0; i < a.n; i++)
		assert_int_equal(a.a[i].vm, 0);
	assert_int_equal(vcp_actions_count_vm(&a, 0), 3);
	assert_int_equal(vcp_actions_count_vm(&a, 1), 0);
	vcp_actions_clear(&a);

	/* recorded already: no second save; unmanaged: nothing */
	vms[0].has_saved = true;
	vms[1].managed = false;
	p->vms[1].vcpu_pins[0] = S("4");
	assert_int_equal(vcp_diff_compute(h, vms, 2, p, -1, &a), 0);
	assert_int_equal(a.n, 3);
	assert_int_equal(a.a[0].kind, VCP_ACT_PIN_EMULATOR);
	vcp_actions_clear(&a);
	vcp_plan_free(p);
	vcp_vms_free(vms, 2);
	vcp_host_free(h);
}

static void test_diff_unchanged_is_empty(void **state)
{
	struct vcp_host *h = host2x4();
	struct vcp_vm *vms = calloc(1, sizeof(*vms));
	static const char *const planned[] = { "4-7" };
	struct vcp_plan *p;
	struct vcp_actions a = { 0 };

	make_vm(&vms[0], "a", 3, "4-7");
	p = make_plan(vms, 1, planned);
	assert_int_equal(vcp_diff_compute(h, vms, 1, p, 1, &a), 0);
	assert_int_equal(a.n, 0);
	vcp_actions_clear(&a);
	/* the level differs: one host action, last */
	assert_int_equal(vcp_diff_compute(h, vms, 1, p, 0, &a), 0);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.a[0].kind, VCP_ACT_SET_LEVEL);
	assert_int_equal(a.a[0].from_level, 0);
	assert_int_equal(a.a[0].to_level, 1);
	vcp_actions_clear(&a);
	vcp_plan_free(p);
	vcp_vms_free(vms, 1);
	vcp_host_free(h);
}

static void test_diff_kernel_classes(void **state)
{
	struct vcp_host *h = host2x4();
	struct vcp_vm *vms = calloc(3, sizeof(*vms));
	static const char *const planned[] = { "0-7", "0-7", "0-7" };
	struct vcp_plan *p;
	struct vcp_actions a = { 0 };

	make_vm(&vms[0], "nopid", 1, "0-7");
	make_vm(&vms[1], "same", 1, "0-7");
	make_vm(&vms[2], "differs", 1, "0-7");
	vms[1].pid = 100;
	vms[1].has_cur_class = true;
	vms[1].cur_class = VCP_CLASS_PACK;
	vms[2].pid = 101;
	vms[2].has_cur_class = true;
	vms[2].cur_class = VCP_CLASS_BALANCED;
	p = make_plan(vms, 3, planned);
	p->mode = VCP_MODE_KERNEL;
	assert_int_equal(vcp_diff_compute(h, vms, 3, p, 1, &a), 0);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.a[0].kind, VCP_ACT_SET_CLASS);
	assert_int_equal(a.a[0].vm, 2);
	assert_int_equal(a.a[0].from_class, VCP_CLASS_BALANCED);
	assert_int_equal(a.a[0].to_class, VCP_CLASS_PACK);
	assert_string_equal(vcp_act_kind_name(a.a[0].kind), "set-class");
	vcp_actions_clear(&a);
	vcp_plan_free(p);
	vcp_vms_free(vms, 3);
	vcp_host_free(h);
}

/* Memory follows the vCPUs, after them, where the mode allows; the
 * record is made first even when only memory moves. */
static void test_diff_memory(void **state)
{
	struct vcp_host *h = host2x4();
	struct vcp_vm *vms = calloc(2, sizeof(*vms));
	static const char *const planned[] = { "4-7", "4-7" };
	struct vcp_plan *p;
	struct vcp_actions a = { 0 };
	const char *why = NULL;

	make_vm(&vms[0], "moves", 1, "0-7");
	make_vm(&vms[1], "fixed", 1, "4-7");
	vms[0].mem_mode = VCP_MEM_STRICT;
	vms[0].mem_nodes = S("0");
	vms[1].mem_mode = VCP_MEM_PREFERRED;
	vms[1].mem_nodes = S("0");
	p = make_plan(vms, 2, planned);
	p->vms[0].mem_node = 1;
	p->vms[1].mem_node = 1;
	assert_int_equal(vcp_diff_compute(h, vms, 2, p, -1, &a), 0);
	assert_int_equal(a.n, 4);
	assert_int_equal(a.a[0].kind, VCP_ACT_SAVE);
	assert_int_equal(a.a[1].kind, VCP_ACT_PIN_EMULATOR);
	assert_int_equal(a.a[2].kind, VCP_ACT_PIN_VCPU);
	assert_int_equal(a.a[3].kind, VCP_ACT_SET_MEMORY);
	assert_int_equal(a.a[3].vm, 0);
	assert_true(vcp_cpuset_equal(&a.a[3].from, &vms[0].mem_nodes));
	assert_int_equal(vcp_cpuset_count(&a.a[3].to), 1);
	assert_true(vcp_cpuset_test(&a.a[3].to, 1));
	assert_string_equal(vcp_act_kind_name(a.a[3].kind), "set-memory");
	assert_int_equal(vcp_mem_follow(&vms[1], &p->vms[1], &why),
			 VCP_MEMF_CANNOT);
	assert_string_equal(
		why,
		"its numatune mode is preferred: libvirt changes a running VM's nodeset only in strict or restrictive mode, and never the mode");
	vcp_actions_clear(&a);

	/* pins as planned, memory not yet: a save, then memory alone */
	vms[0].vcpu_pins[0] = S("4-7");
	vms[0].emulator_pins = S("4-7");
	vms[0].mem_mode = VCP_MEM_RESTRICTIVE;
	assert_int_equal(vcp_diff_compute(h, vms, 2, p, -1, &a), 0);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.a[0].kind, VCP_ACT_SAVE);
	assert_int_equal(a.a[1].kind, VCP_ACT_SET_MEMORY);
	vcp_actions_clear(&a);

	/* a record without the nodeset: memory cannot follow */
	vms[0].has_saved = true;
	assert_int_equal(vcp_diff_compute(h, vms, 2, p, -1, &a), 0);
	assert_int_equal(a.n, 0);
	assert_int_equal(vcp_mem_follow(&vms[0], &p->vms[0], &why),
			 VCP_MEMF_CANNOT);
	assert_non_null(strstr(why, "lacks the original nodeset"));
	vms[0].has_saved_mem = true;
	assert_int_equal(vcp_diff_compute(h, vms, 2, p, -1, &a), 0);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.a[0].kind, VCP_ACT_SET_MEMORY);
	vcp_actions_clear(&a);

	/* there already: nothing; no numatune, auto placement: cannot */
	vms[0].mem_nodes = S("1");
	assert_int_equal(vcp_mem_follow(&vms[0], &p->vms[0], &why),
			 VCP_MEMF_THERE);
	assert_int_equal(vcp_diff_compute(h, vms, 2, p, -1, &a), 0);
	assert_int_equal(a.n, 0);
	vms[0].mem_mode = VCP_MEM_NONE;
	assert_int_equal(vcp_mem_follow(&vms[0], &p->vms[0], &why),
			 VCP_MEMF_CANNOT);
	assert_non_null(strstr(why, "no <numatune><memory>"));
	vms[0].mem_mode = VCP_MEM_STRICT;
	vms[0].mem_auto = true;
	vms[0].mem_nodes = S("0");
	assert_int_equal(vcp_mem_follow(&vms[0], &p->vms[0], &why),
			 VCP_MEMF_CANNOT);
	assert_string_equal(
		why, "its numatune placement is auto: numad chooses its nodes");
	/* refused before (vcpackd's memo): not asked again */
	vms[0].mem_auto = false;
	vms[0].mem_refused = true;
	assert_int_equal(vcp_mem_follow(&vms[0], &p->vms[0], &why),
			 VCP_MEMF_CANNOT);
	assert_non_null(strstr(why, "libvirt refused to move its memory"));
	vms[0].mem_refused = false;
	/* no planned node, or unmanaged: memory stays by plan */
	vms[0].mem_auto = false;
	p->vms[0].mem_node = -1;
	assert_int_equal(vcp_mem_follow(&vms[0], &p->vms[0], &why),
			 VCP_MEMF_STAYS);
	p->vms[0].mem_node = 1;
	vms[0].managed = false;
	assert_int_equal(vcp_mem_follow(&vms[0], &p->vms[0], &why),
			 VCP_MEMF_STAYS);
	vcp_plan_free(p);
	vcp_vms_free(vms, 2);
	vcp_host_free(h);
}

static void test_map_now_and_planned(void **state)
{
	struct vcp_host *h = host2x4();
	struct vcp_vm *vms = calloc(2, sizeof(*vms));
	static const char *const planned[] = { "0-3", "0-3" };
	struct vcp_plan *p;
	struct vcp_pkg_map m = { 0 };

	make_vm(&vms[0], "wide", 2, "0-7");
	make_vm(&vms[1], "low", 1, "4-5");
	assert_int_equal(vcp_pkg_map_build(h, vms, 2, NULL, &m), 0);
	assert_int_equal(m.n, 2);
	assert_int_equal(m.n_awake, 2);
	assert_int_equal(m.p[0].n_vms, 1);
	assert_int_equal(m.p[0].n_vcpus, 2);
	assert_int_equal(m.p[1].n_vms, 2);
	assert_int_equal(m.p[1].n_vcpus, 3);
	vcp_pkg_map_clear(&m);

	p = make_plan(vms, 2, planned);
	assert_int_equal(vcp_pkg_map_build(h, vms, 2, p, &m), 0);
	assert_int_equal(m.n_awake, 1);
	assert_true(m.p[0].awake);
	assert_false(m.p[1].awake);
	assert_int_equal(m.p[0].n_vcpus, 3);
	assert_int_equal(m.p[1].n_vms, 0);
	vcp_pkg_map_clear(&m);
	vcp_plan_free(p);
	vcp_vms_free(vms, 2);
	vcp_host_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_orders_and_saves),
		cmocka_unit_test(test_diff_unchanged_is_empty),
		cmocka_unit_test(test_diff_kernel_classes),
		cmocka_unit_test(test_diff_memory),
		cmocka_unit_test(test_map_now_and_planned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
