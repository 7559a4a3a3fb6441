// SPDX-License-Identifier: GPL-2.0-or-later
/* test_model.c - names, vcp_host_finish() derivations, VM allocation. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"

static void test_names(void **state)
{
	enum vcp_class c = VCP_CLASS_SPREAD;
	enum vcp_priority p = VCP_PRIO_HIGH;

	assert_int_equal(vcp_class_from_name("pack", &c), 0);
	assert_int_equal(c, VCP_CLASS_PACK);
	assert_int_equal(vcp_class_from_name("Pack", &c), -EINVAL);
	assert_int_equal(vcp_class_from_name(NULL, &c), -EINVAL);
	assert_int_equal(c, VCP_CLASS_PACK);
	assert_int_equal(vcp_priority_from_name("low", &p), 0);
	assert_int_equal(p, VCP_PRIO_LOW);
	assert_int_equal(vcp_priority_from_name("urgent", &p), -EINVAL);
	assert_string_equal(vcp_class_name(VCP_CLASS_BALANCED), "balanced");
	assert_string_equal(vcp_priority_name(VCP_PRIO_NORMAL), "normal");
	assert_null(vcp_class_name(VCP_CLASS__COUNT));
}

/* 2 packages x 2 cores x 2 threads, Linux x86 numbering, cpu 7 offline,
 * listed out of order. */
static struct vcp_host *make_host(void)
{
	static const struct vcp_cpu cpus[] = {
		{ 4, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 }, { 1, 0, 0, 1, 0 },
		{ 5, 0, 0, 1, 0 }, { 2, 1, 0, 0, 1 }, { 3, 1, 0, 1, 1 },
		{ 6, 1, 0, 0, 1 },
	};
	struct vcp_host *h = calloc(1, sizeof(*h));

	h->n_cpus = sizeof(cpus) / sizeof(cpus[0]);
	h->cpus = malloc(sizeof(cpus));
	memcpy(h->cpus, cpus, sizeof(cpus));
	return h;
}

static void test_host_finish(void **state)
{
	struct vcp_host *h = make_host();
	char buf[64];

	assert_int_equal(vcp_host_finish(h), 0);
	assert_int_equal(h->cpus[0].id, 0);
	assert_int_equal(h->cpus[6].id, 6);
	assert_int_equal(h->n_packages, 2);
	assert_int_equal(h->n_nodes, 2);
	assert_int_equal(h->threads_per_core, 2);
	assert_int_equal(h->max_cpus, 7);
	assert_int_equal(h->packages[0].n_cpus, 4);
	assert_int_equal(h->packages[0].n_cores, 2);
	assert_int_equal(h->packages[1].n_cpus, 3);
	assert_int_equal(h->packages[1].n_cores, 2);
	assert_int_equal(h->packages[1].node, 1);
	vcp_cpuset_format(&h->packages[1].cpus, buf, sizeof(buf));
	assert_string_equal(buf, "2-3,6");
	vcp_cpuset_format(&h->online, buf, sizeof(buf));
	assert_string_equal(buf, "0-6");
	assert_int_equal(vcp_host_package_of(h, 6), 1);
	assert_int_equal(vcp_host_package_of(h, 7), -1);
	vcp_host_free(h);
}

static void test_host_duplicate(void **state)
{
	struct vcp_host *h = make_host();

	h->cpus[1].id = 4;
	assert_int_equal(vcp_host_finish(h), -EINVAL);
	vcp_host_free(h);
	vcp_host_free(NULL);
}

static void test_vm_alloc(void **state)
{
	struct vcp_vm *vms = calloc(2, sizeof(*vms));

	assert_int_equal(vcp_vm_alloc_vcpus(&vms[0], 3), 0);
	assert_int_equal(vms[0].n_vcpus, 3);
	assert_true(vms[0].demand[2] < 0);
	assert_true(vcp_cpuset_empty(&vms[0].vcpu_pins[2]));
	vms[0].name = strdup("a");
	vcp_vms_free(vms, 2);
}

static void test_policy_defaults(void **state)
{
	struct vcp_policy p;

	vcp_policy_defaults(&p);
	assert_int_equal(p.prio_class[VCP_PRIO_HIGH], VCP_CLASS_SPREAD);
	assert_int_equal(p.prio_class[VCP_PRIO_NORMAL], VCP_CLASS_BALANCED);
	assert_int_equal(p.prio_class[VCP_PRIO_LOW], VCP_CLASS_PACK);
	assert_int_equal(p.level, VCP_LEVEL_AUTO);
	assert_true(p.headroom > 0.19 && p.headroom < 0.21);
	vcp_policy_clear(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_host_finish),
		cmocka_unit_test(test_host_duplicate),
		cmocka_unit_test(test_vm_alloc),
		cmocka_unit_test(test_policy_defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
