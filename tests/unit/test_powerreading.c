// SPDX-License-Identifier: GPL-2.0-or-later
/* test_powerreading.c - a fleet host's power_command output, parsed: a
 * bare number, ipmitool's dcmi power reading (as ipmitool prints it,
 * every line), `vcpack metrics` text (the host total; else package and
 * dram zones summed, core and uncore not counted twice), and the text
 * metrics.c itself renders read back; refused with the bad line quoted:
 * garbage, no output, negative, NaN, infinite, huge, a number and more,
 * a dcmi line without its number, metrics text with a broken line or no
 * power sample. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metrics.h"
#include "power.h"
#include "powerreading.h"

#define near(a, b) assert_true((a) > (b)-1e-9 && (a) < (b) + 1e-9)

/* Parsed: the watts and format; refused: the message. */
static void ok(const char *text, double watts, enum vcp_reading_format f)
{
	struct vcp_reading r = { -1, 99 };
	char *err = NULL;

	assert_int_equal(vcp_reading_parse(text, &r, &err), 0);
	assert_null(err);
	near(r.watts, watts);
	assert_int_equal(r.format, f);
}

static void refused(const char *text, const char *msg)
{
	struct vcp_reading r = { -1, 99 };
	char *err = NULL;

	assert_int_equal(vcp_reading_parse(text, &r, &err), -EINVAL);
	assert_non_null(err);
	if (strcmp(err, msg))
		fail_msg("got \"%s\", expected \"%s\"", err, msg);
	near(r.watts, -1); /* untouched */
	free(err);
}

static void test_number(void **state)
{
	(void)state;
	ok("212\n", 212, VCP_READING_NUMBER);
	ok("212.5", 212.5, VCP_READING_NUMBER);
	ok("\n  0 \n\n", 0, VCP_READING_NUMBER);
	ok("1e3\n", 1000, VCP_READING_NUMBER);
	ok("100000\n", 100000, VCP_READING_NUMBER);
	assert_string_equal(vcp_reading_format_name(VCP_READING_NUMBER),
			    "bare number");
}

static void test_number_refused(void **state)
{
	(void)state;
	refused("", "no output");
	refused(" \n\n", "no output");
	refused("-5\n", "line 1: '-5': negative watts");
	refused("nan\n",
		"line 1: 'nan': not a number of watts, ipmitool's dcmi power reading or vcpack metrics text");
	refused("NaN\n",
		"line 1: 'NaN': not a number of watts, ipmitool's dcmi power reading or vcpack metrics text");
	refused("inf\n",
		"line 1: 'inf': not a number of watts, ipmitool's dcmi power reading or vcpack metrics text");
	refused("1e400\n", "line 1: '1e400': watts out of range (0 to 100000)");
	refused("100001\n",
		"line 1: '100001': watts out of range (0 to 100000)");
	refused("99999999999999999999999999999999999999999999999999999999999999999999\n",
		"line 1: '999999999999999999999999999999999999999999999999999999999999...': a number too long");
	refused("1.2.3\n", "line 1: '1.2.3': not a number of watts");
	refused("0x10\n",
		"line 1: '0x10': not a number of watts, ipmitool's dcmi power reading or vcpack metrics text");
	refused("212 W\n",
		"line 1: '212 W': not a number of watts, ipmitool's dcmi power reading or vcpack metrics text");
	refused("212\n\n300\n", "line 3: '300': more than one number of watts");
	refused("212\nhello\n",
		"line 2: 'hello': more than one number of watts");
	refused("hello\x01world\n",
		"line 1: 'hello?world': not a number of watts, ipmitool's dcmi power reading or vcpack metrics text");
	refused("Error: unable to establish IPMI v2 / RMCP+ session\n",
		"line 1: 'Error: unable to establish IPMI v2 / RMCP+ session': not a number of watts, ipmitool's dcmi power reading or vcpack metrics text");
}

/* `ipmitool dcmi power reading`, as it prints it */
static const char dcmi_out[] =
	"\n"
	"    Instantaneous power reading:                   212 Watts\n"
	"    Minimum during sampling period:                 80 Watts\n"
	"    Maximum during sampling period:                320 Watts\n"
	"    Average power reading over sample period:      198 Watts\n"
	"    IPMI timestamp:                           Fri Dec  4 18:00:00 2026\n"
	"    Sampling period:                          00000001 Seconds.\n"
	"    Power reading state is:                   activated\n"
	"\n\n";

static void test_dcmi(void **state)
{
	(void)state;
	ok(dcmi_out, 212, VCP_READING_DCMI);
	ok("Instantaneous power reading: 8 Watts", 8, VCP_READING_DCMI);
	refused("    Instantaneous power reading:   n/a Watts\n",
		"line 1: 'Instantaneous power reading:   n/a Watts': not a number of watts");
	refused("x\n  Instantaneous power reading:   -3 Watts\n",
		"line 2: 'Instantaneous power reading:   -3 Watts': negative watts");
	refused("Instantaneous power reading:   212 kW\n",
		"line 1: 'Instantaneous power reading:   212 kW': not 'N Watts'");
	refused("Instantaneous power reading:\n",
		"line 1: 'Instantaneous power reading:': not a number of watts");
	assert_string_equal(vcp_reading_format_name(VCP_READING_DCMI),
			    "ipmitool dcmi");
}

static const char prom_host[] =
	"# HELP vcpack_level Consolidation level in force.\n"
	"# TYPE vcpack_level gauge\n"
	"vcpack_level 1\n"
	"vcpack_vm_class{vm=\"web \\\"a\\\" \\\\ {x}\",class=\"pack\"} 1\n"
	"vcpack_power_watts{package=\"0\",zone=\"package\"} 60\n"
	"vcpack_power_watts{package=\"0\",zone=\"core\"} 40\n"
	"vcpack_power_watts{package=\"0\",zone=\"dram\"} 6\n"
	"vcpack_power_watts{package=\"1\",zone=\"package\"} 70.5\n"
	"# HELP vcpack_host_power_watts Mean power.\n"
	"# TYPE vcpack_host_power_watts gauge\n"
	"vcpack_host_power_watts 141.5 1733335200000\n"
	"vcpack_cstate_residency_ratio{package=\"0\",scope=\"core\",state=\"c6\"} NaN\n"
	"vcpack_uncore_frequency_hertz{package=\"0\"} +Inf\n";

static void test_prom(void **state)
{
	(void)state;
	ok(prom_host, 141.5, VCP_READING_PROM_HOST);
	/* no host total: package + dram, not core (inside package) */
	ok("vcpack_power_watts{package=\"0\",zone=\"package\"} 60\n"
	   "vcpack_power_watts{package=\"0\",zone=\"core\"} 40\n"
	   "vcpack_power_watts{package=\"0\",zone=\"uncore\"} 5\n"
	   "vcpack_power_watts{package=\"0\",zone=\"psys\"} 200\n"
	   "vcpack_power_watts{package=\"0\",zone=\"dram\"} 6\n"
	   "vcpack_power_watts{zone=\"package\", package=\"1\"} 70.5\n",
	   136.5, VCP_READING_PROM_ZONES);
	assert_string_equal(vcp_reading_format_name(VCP_READING_PROM_ZONES),
			    "vcpack_power_watts package+dram");
}

static void test_prom_refused(void **state)
{
	(void)state;
	refused("# HELP vcpack_level x\nvcpack_level 1\n",
		"metrics text without vcpack_host_power_watts or vcpack_power_watts of zone package or dram (the host's power counters were not readable?)");
	refused("# HELP x y\nvcpack_host_power_watts NaN\n",
		"line 2: 'vcpack_host_power_watts NaN': not a number of watts");
	refused("vcpack_host_power_watts -12\n",
		"line 1: 'vcpack_host_power_watts -12': negative watts");
	refused("vcpack_host_power_watts 1e300\n",
		"line 1: 'vcpack_host_power_watts 1e300': watts out of range (0 to 100000)");
	refused("vcpack_power_watts{zone=\"package\"} 90000\n"
		"vcpack_power_watts{zone=\"dram\"} 20000\n",
		"the package and dram zones sum to 110000 W, out of range (0 to 100000)");
	refused("vcpack_level 1\nvcpack_host_power_watts\n",
		"line 2: 'vcpack_host_power_watts': not a sample (no value after the name)");
	refused("vcpack_level 1\nssh: connect to host h1 port 22: Connection refused\n",
		"line 2: 'ssh: connect to host h1 port 22: Connection refused': not a sample (its value is not a number)");
	refused("vcpack_level 1\n<html>\n",
		"line 2: '<html>': not a sample, comment or blank line");
	refused("vcpack_x{zone=\"a} 1\n",
		"line 1: 'vcpack_x{zone=\"a} 1': a label value without its closing '\"'");
	refused("vcpack_x{zone} 1\n",
		"line 1: 'vcpack_x{zone} 1': not a sample (a label is not name=\"value\")");
	refused("vcpack_x{a=\"1\" b=\"2\"} 1\n",
		"line 1: 'vcpack_x{a=\"1\" b=\"2\"} 1': not a sample (labels not closed by '}')");
	refused("vcpack_x 1 2 3\n",
		"line 1: 'vcpack_x 1 2 3': not a sample (more after its value)");
	refused("vcpack_x one\n",
		"line 1: 'vcpack_x one': not a sample (its value is not a number)");
}

/* What metrics.c renders for a host's figures reads back as the host
 * total it wrote; without it, as its zones. */
static void test_metrics_round_trip(void **state)
{
	struct vcp_pwr_pkg_figs pkgs[2];
	struct vcp_pwr_figs figs = { .pkgs = pkgs,
				     .n_pkgs = 2,
				     .host_watts = 131.25 };
	struct vcp_metrics_in in = { .level = 1, .figs = &figs };
	char *text = NULL;

	(void)state;
	memset(pkgs, 0, sizeof(pkgs));
	for (int p = 0; p < 2; p++) {
		pkgs[p].package = p;
		for (int k = 0; k < VCP_ZONE_N; k++)
			pkgs[p].watts[k] = NAN;
		pkgs[p].watts[VCP_ZONE_PACKAGE] = 55 + p;
		pkgs[p].watts[VCP_ZONE_CORE] = 30;
		pkgs[p].watts[VCP_ZONE_DRAM] = 10.125;
		pkgs[p].uncore_mhz = NAN;
		pkgs[p].awake = -1;
	}
	assert_int_equal(vcp_metrics_render(&in, &text), 0);
	ok(text, 131.25, VCP_READING_PROM_HOST);
	free(text);
	figs.host_watts = NAN;
	assert_int_equal(vcp_metrics_render(&in, &text), 0);
	ok(text, 55 + 56 + 2 * 10.125, VCP_READING_PROM_ZONES);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_number),
		cmocka_unit_test(test_number_refused),
		cmocka_unit_test(test_dcmi),
		cmocka_unit_test(test_prom),
		cmocka_unit_test(test_prom_refused),
		cmocka_unit_test(test_metrics_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
