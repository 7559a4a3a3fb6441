// SPDX-License-Identifier: GPL-2.0-or-later
/* test_fleetwatts.c - the fleet's power figures per vendor, worked by
 * hand from bench/kernel/power-model.json: Intel packages emptied on a
 * busy host save core C6 + uncore floor only (no PC6), an all-idle Intel
 * host reaches PC6, AMD per socket (unverified), unknown vendors use the
 * fleet file's figures, and a host in standby saves its measured idle
 * draw when the operator gave it (labelled measured), else modelled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fleetwatts.h"

#define near(a, b) assert_true((a) > (b) - 1e-9 && (a) < (b) + 1e-9)

static void test_vendor_names(void **state)
{
	(void)state;
	assert_int_equal(vcp_vendor_from_name("intel"), VCP_VENDOR_INTEL);
	assert_int_equal(vcp_vendor_from_name("amd"), VCP_VENDOR_AMD);
	assert_int_equal(vcp_vendor_from_name("Intel"), -1);
	assert_int_equal(vcp_vendor_from_cpu_key("Intel Skylake-Server-IBRS a,b"),
			 VCP_VENDOR_INTEL);
	assert_int_equal(vcp_vendor_from_cpu_key("AMD EPYC-Milan x"), VCP_VENDOR_AMD);
	assert_int_equal(vcp_vendor_from_cpu_key(" i686"), VCP_VENDOR_UNKNOWN);
	assert_int_equal(vcp_vendor_from_cpu_key(NULL), VCP_VENDOR_UNKNOWN);
	assert_string_equal(vcp_vendor_name(VCP_VENDOR_AMD), "amd");
}

static void test_packages(void **state)
{
	struct vcp_watts w;

	(void)state;
	w = vcp_watts_packages(VCP_VENDOR_INTEL, 2, 40);
	near(w.watts, 36);		/* 2 x (40 - 22): no PC6 */
	assert_false(w.measured);
	assert_non_null(strstr(w.basis, "not PC6"));
	w = vcp_watts_packages(VCP_VENDOR_AMD, 1, 40);
	near(w.watts, 32);		/* 80 - 48 */
	assert_non_null(strstr(w.basis, "unverified"));
	w = vcp_watts_packages(VCP_VENDOR_UNKNOWN, 3, 25);
	near(w.watts, 75);
	assert_non_null(strstr(w.basis, "package_watts"));
}

static void test_host(void **state)
{
	struct vcp_watts w;

	(void)state;
	/* left on, all idle: Intel packages reach PC6 now */
	w = vcp_watts_host(VCP_VENDOR_INTEL, 2, false, 150, 40, 100);
	near(w.watts, 56);		/* 2 x (40 - 12); idle_watts unused */
	assert_false(w.measured);
	assert_non_null(strstr(w.basis, "PC6"));
	w = vcp_watts_host(VCP_VENDOR_UNKNOWN, 2, false, -1, 40, 100);
	near(w.watts, 180);		/* the fleet file's old figure */
	/* in standby: the measured idle draw wins */
	w = vcp_watts_host(VCP_VENDOR_AMD, 2, true, 150, 40, 100);
	near(w.watts, 150);
	assert_true(w.measured);
	assert_non_null(strstr(w.basis, "measured"));
	/* in standby, modelled: packages awake idle + the platform */
	w = vcp_watts_host(VCP_VENDOR_AMD, 2, true, -1, 40, 100);
	near(w.watts, 260);		/* 2 x 80 + 100 */
	assert_false(w.measured);
	w = vcp_watts_host(VCP_VENDOR_INTEL, 2, true, -1, 40, 60);
	near(w.watts, 140);		/* 2 x 40 + 60 */
	w = vcp_watts_host(VCP_VENDOR_UNKNOWN, 1, true, -1, 30, 60);
	near(w.watts, 90);
	/* a measured 0 W is a measurement */
	w = vcp_watts_host(VCP_VENDOR_INTEL, 2, true, 0, 40, 60);
	near(w.watts, 0);
	assert_true(w.measured);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vendor_names),
		cmocka_unit_test(test_packages),
		cmocka_unit_test(test_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
