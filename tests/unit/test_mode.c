// SPDX-License-Identifier: GPL-2.0-or-later
/* test_mode.c - kernel or pin mode and why: a root with both knobs is
 * kernel mode, a stock root pin mode, the test driver without a root pin
 * mode (a simulated host), --mode overrides and says so, or is refused
 * where the host cannot run that mode; --mode's words. libvirt's test driver runs in this process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernel.h"
#include "mode.h"
#include "virt.h"

#define KROOT VCP_SRCDIR "/tests/data/kroot/"

static void test_detect(void **state)
{
	struct vcp_virt *v = NULL;
	struct vcp_kernel *k = NULL;
	char why[512], *err = NULL;
	bool refused = true;

	assert_int_equal(vcp_virt_open("test:///default", true, &v, &err), 0);
	assert_int_equal(vcp_mode_detect(v, NULL, -1, &k, why, sizeof(why),
					 &refused),
			 VCP_MODE_PIN);
	assert_null(k);
	assert_non_null(strstr(why, "libvirt's test driver"));
	/* a root: its kernel decides */
	assert_int_equal(vcp_mode_detect(v, KROOT "v1", -1, &k, why,
					 sizeof(why), &refused),
			 VCP_MODE_KERNEL);
	assert_non_null(k);
	assert_string_equal(why, k->reason);
	vcp_kernel_free(k);
	assert_int_equal(vcp_mode_detect(v, KROOT "v1-stock", -1, &k, why,
					 sizeof(why), &refused),
			 VCP_MODE_PIN);
	vcp_kernel_free(k);
	/* --mode wins, and says so */
	assert_int_equal(vcp_mode_detect(v, KROOT "v1", VCP_MODE_PIN, &k, why,
					 sizeof(why), &refused),
			 VCP_MODE_PIN);
	assert_string_equal(why, "forced with --mode");
	vcp_kernel_free(k);
	assert_false(refused);
	/* forcing a mode this host cannot run is refused, and says why:
	 * the mode found stays (no silent kernel mode without knobs) */
	assert_int_equal(vcp_mode_detect(v, NULL, VCP_MODE_KERNEL, &k, why,
					 sizeof(why), &refused),
			 VCP_MODE_PIN);
	assert_true(refused);
	assert_string_equal(
		why,
		"--mode kernel: libvirt's test driver has no kernel to tune");
	assert_int_equal(vcp_mode_detect(v, KROOT "v1-stock", VCP_MODE_KERNEL,
					 &k, why, sizeof(why), &refused),
			 VCP_MODE_PIN);
	assert_true(refused);
	assert_string_equal(
		why,
		"--mode kernel: stock kernel: no /sys/devices/system/cpu/sched_mc_power_savings, no cpu.consolidate in /sys/fs/cgroup/cpu (cgroup v1)");
	vcp_kernel_free(k);
	assert_int_equal(vcp_mode_detect(v, KROOT "v1-stock", VCP_MODE_SCX, &k,
					 why, sizeof(why), &refused),
			 VCP_MODE_PIN);
	assert_true(refused);
	assert_string_equal(
		why,
		"--mode scx: this kernel has no sched_ext (CONFIG_SCHED_CLASS_EXT)");
	vcp_kernel_free(k);
	/* forcing what was found anyway keeps the reason */
	assert_int_equal(vcp_mode_detect(v, NULL, VCP_MODE_PIN, &k, why,
					 sizeof(why), &refused),
			 VCP_MODE_PIN);
	assert_false(refused);
	assert_non_null(strstr(why, "libvirt's test driver"));
	vcp_virt_close(v);
}

static void test_parse(void **state)
{
	assert_int_equal(vcp_mode_parse("auto"), -1);
	assert_int_equal(vcp_mode_parse("pin"), VCP_MODE_PIN);
	assert_int_equal(vcp_mode_parse("kernel"), VCP_MODE_KERNEL);
	assert_int_equal(vcp_mode_parse("Kernel"), -2);
	assert_int_equal(vcp_mode_parse(""), -2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
