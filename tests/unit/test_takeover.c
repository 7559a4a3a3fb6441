// SPDX-License-Identifier: GPL-2.0-or-later
/* test_takeover.c - vcpackd's first pass after a (re)connect waits for
 * the demand of the VMs it placed before, and only for those, only where
 * demand can be measured, and not for ever. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "takeover.h"

static double unknown[2] = { -1, -1 };
static double measured[2] = { 0.02, 0.01 };
static double half[2] = { 0.02, -1 };

/* A running managed VM of two vCPUs; @saved: it carries vcpack's record. */
static struct vcp_vm vm(const char *name, bool saved, double *demand)
{
	return (struct vcp_vm){ .name = (char *)name,
				.n_vcpus = 2,
				.managed = true,
				.running = true,
				.has_saved = saved,
				.demand = demand };
}

/* A restart under VMs vcpackd had placed: wait until they are measured,
 * then go ahead, and never wait again until the next connect. */
static void test_waits_until_measured(void **state)
{
	struct vcp_vm vms[2] = { vm("a", true, unknown), vm("b", true, half) };
	struct vcp_takeover t;
	size_t n = 99;

	vcp_takeover_start(&t, true, 1000, 10);
	assert_true(vcp_takeover_wait(&t, vms, 2, 1000, &n));
	assert_int_equal(n, 2);
	vms[0].demand = measured; /* one vCPU of b still unknown */
	assert_true(vcp_takeover_wait(&t, vms, 2, 1010, &n));
	assert_int_equal(n, 1);
	vms[1].demand = measured;
	assert_false(vcp_takeover_wait(&t, vms, 2, 1011, &n));
	assert_int_equal(n, 0);
	/* a VM unknown later on (its vCPU count changed) does not hold */
	vms[0].demand = unknown;
	assert_false(vcp_takeover_wait(&t, vms, 2, 1012, NULL));
	/* a new connect waits again */
	vcp_takeover_start(&t, true, 2000, 10);
	assert_true(vcp_takeover_wait(&t, vms, 2, 2000, NULL));
}

/* VMs vcpack never placed (no record: a first start, a VM started since),
 * stopped or left alone are placed at once. */
static void test_only_vms_placed_before(void **state)
{
	struct vcp_vm vms[3] = { vm("new", false, unknown),
				 vm("off", true, unknown),
				 vm("alone", true, unknown) };
	struct vcp_takeover t;
	size_t n = 99;

	vms[1].running = false;
	vms[2].managed = false;
	vcp_takeover_start(&t, true, 1000, 10);
	assert_false(vcp_takeover_wait(&t, vms, 3, 1000, &n));
	assert_int_equal(n, 0);
	vcp_takeover_start(&t, true, 1000, 10);
	assert_false(vcp_takeover_wait(&t, vms, 0, 1000, &n));
}

/* Where demand cannot be measured (no vCPU times: libvirt's test driver)
 * nothing waits; nor past VCP_TAKEOVER_SAMPLES intervals. */
static void test_not_for_ever(void **state)
{
	struct vcp_vm v = vm("a", true, unknown);
	struct vcp_takeover t;

	vcp_takeover_start(&t, false, 1000, 10);
	assert_false(vcp_takeover_wait(&t, &v, 1, 1000, NULL));
	vcp_takeover_start(&t, true, 1000, 10);
	assert_true(vcp_takeover_wait(
		&t, &v, 1, 1000 + 10 * VCP_TAKEOVER_SAMPLES - 1, NULL));
	assert_false(vcp_takeover_wait(&t, &v, 1,
				       1000 + 10 * VCP_TAKEOVER_SAMPLES, NULL));
	/* and once gone ahead, not again */
	assert_false(vcp_takeover_wait(&t, &v, 1, 1001, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waits_until_measured),
		cmocka_unit_test(test_only_vms_placed_before),
		cmocka_unit_test(test_not_for_ever),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
