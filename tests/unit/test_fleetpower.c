// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_fleetpower.c - each fleet host's power_command as `fleet status`
 * runs it (fleetpower.c): no libvirt contacted (the URIs lead nowhere),
 * every state (measured, none, failed with its stderr, timed out,
 * unparseable, a program that is not there), the host's environment,
 * the defaults' command for hosts without their own, and commands run
 * at once: four hosts sleeping 1 s each with concurrency 4 take about
 * 1 s, not 4; a hung one ends at its power_timeout.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clock.h"
#include "fleetcfg.h"
#include "fleetpower.h"

#define near(a, b) assert_true((a) > (b)-1e-9 && (a) < (b) + 1e-9)

/* Read the fleet @json's hosts' power into @p; the seconds it took. */
static double read_fleet(const char *json, struct vcp_fleet_cfg *c,
			 struct vcp_fleet_power *p)
{
	const char *uris[16];
	size_t abandoned = 99;
	char *err = NULL;
	double t0;

	if (vcp_fleet_cfg_parse(json, "f", c, &err) < 0)
		fail_msg("%s", err);
	assert_true(c->n_hosts <= 16);
	for (size_t i = 0; i < c->n_hosts; i++)
		uris[i] = c->hosts[i].uri;
	t0 = vcp_mono_s();
	assert_int_equal(vcp_fleet_power_read(c, uris, 0, p, &abandoned), 0);
	assert_int_equal(abandoned, 0);
	return vcp_mono_s() - t0;
}

static void no_reading(const struct vcp_fleet_power *p,
		       enum vcp_fpower_state st, const char *why)
{
	assert_int_equal(p->state, st);
	assert_string_equal(p->why, why);
}

static void test_states(void **state)
{
	struct vcp_fleet_cfg c;
	struct vcp_fleet_power p[7];

	(void)state;
	read_fleet(
		"{\"hosts\": ["
		"{\"uri\": \"test+unix:///nowhere\", \"name\": \"a\","
		" \"power_command\": [\"sh\", \"-c\", \"echo $VCPACK_ACTION $VCPACK_HOST $VCPACK_URI >&2; echo 212\"]},"
		"{\"uri\": \"x:///b\", \"name\": \"b\","
		" \"power_command\": [\"sh\", \"-c\", \"echo 'Instantaneous power reading: 98 Watts'\"]},"
		"{\"uri\": \"x:///c\", \"name\": \"c\","
		" \"power_command\": [\"sh\", \"-c\", \"echo out; echo 'no BMC' >&2; exit 2\"]},"
		"{\"uri\": \"x:///d\", \"name\": \"d\", \"power_timeout\": 1,"
		" \"power_command\": [\"sh\", \"-c\", \"echo reading; exec sleep 30\"]},"
		"{\"uri\": \"x:///e\", \"name\": \"e\","
		" \"power_command\": [\"sh\", \"-c\", \"echo twelve\"]},"
		"{\"uri\": \"x:///f\", \"name\": \"f\","
		" \"power_command\": [\"/nonexistent/power\"]},"
		"{\"uri\": \"x:///g\", \"name\": \"g\"}]}",
		&c, p);
	assert_int_equal(p[0].state, VCP_FPOWER_MEASURED);
	near(p[0].reading.watts, 212);
	assert_int_equal(p[0].reading.format, VCP_READING_NUMBER);
	assert_null(p[0].why); /* stderr is not parsed */
	assert_int_equal(p[1].state, VCP_FPOWER_MEASURED);
	near(p[1].reading.watts, 98);
	assert_int_equal(p[1].reading.format, VCP_READING_DCMI);
	no_reading(&p[2], VCP_FPOWER_FAILED,
		   "power_command sh: exit 2; stderr: no BMC");
	no_reading(&p[3], VCP_FPOWER_TIMED_OUT,
		   "power_command sh: timed out after 1 s; output: reading");
	no_reading(
		&p[4], VCP_FPOWER_UNPARSEABLE,
		"power_command sh: output not understood: line 1: 'twelve': not a number of watts, ipmitool's dcmi power reading or vcpack metrics text");
	no_reading(
		&p[5], VCP_FPOWER_FAILED,
		"power_command /nonexistent/power: cannot execute: No such file or directory");
	no_reading(&p[6], VCP_FPOWER_NONE, "no power_command");
	assert_string_equal(vcp_fpower_state_name(p[3].state), "timed_out");
	assert_string_equal(vcp_fpower_state_name(p[4].state), "unparseable");
	vcp_fleet_power_clear(p, c.n_hosts);
	vcp_fleet_cfg_clear(&c);
}

/* The defaults' command for every host, told apart by VCPACK_HOST. */
static void test_defaults_command(void **state)
{
	struct vcp_fleet_cfg c;
	struct vcp_fleet_power p[3];

	(void)state;
	read_fleet(
		"{\"hosts\": [{\"uri\": \"x:///a\", \"name\": \"h10\"},"
		" {\"uri\": \"x:///b\", \"name\": \"h20\"},"
		" {\"uri\": \"x:///c\", \"name\": \"h30\", \"power_command\": [\"echo\", \"7\"]}],"
		" \"defaults\": {\"power_command\": [\"sh\", \"-c\","
		" \"[ $VCPACK_ACTION = power ] && echo ${VCPACK_HOST#h}\"]}}",
		&c, p);
	for (int i = 0; i < 3; i++)
		assert_int_equal(p[i].state, VCP_FPOWER_MEASURED);
	near(p[0].reading.watts, 10);
	near(p[1].reading.watts, 20);
	near(p[2].reading.watts, 7);
	vcp_fleet_power_clear(p, c.n_hosts);
	vcp_fleet_cfg_clear(&c);
}

/* Four 1 s commands with concurrency 4: together, about 1 s. */
static void test_parallel(void **state)
{
	struct vcp_fleet_cfg c;
	struct vcp_fleet_power p[4];
	double t;

	(void)state;
	t = read_fleet("{\"hosts\": [{\"uri\": \"x:///a\", \"name\": \"a\"},"
		       " {\"uri\": \"x:///b\", \"name\": \"b\"},"
		       " {\"uri\": \"x:///c\", \"name\": \"c\"},"
		       " {\"uri\": \"x:///d\", \"name\": \"d\"}],"
		       " \"defaults\": {\"concurrency\": 4, \"power_command\":"
		       " [\"sh\", \"-c\", \"sleep 1; echo 50\"]}}",
		       &c, p);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(p[i].state, VCP_FPOWER_MEASURED);
		assert_true(p[i].seconds >= 0.9);
	}
	assert_true(t >= 0.9 && t < 3.0);
	vcp_fleet_power_clear(p, c.n_hosts);
	vcp_fleet_cfg_clear(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_defaults_command),
		cmocka_unit_test(test_parallel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
