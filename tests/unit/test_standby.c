// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_standby.c - fleet host standby: the fleet file's "standby" object
 * (values, defaults, every refusal naming its key path).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fleetcfg.h"
#include "standby.h"

#define HOSTS "\"hosts\": [{\"uri\": \"qemu+ssh://h1/system\"}," \
	" {\"uri\": \"qemu+ssh://h2/system\"}, {\"uri\": \"qemu+ssh://h3/system\"}]"

static void test_cfg_values(void **state)
{
	struct vcp_fleet_cfg c;
	const struct vcp_sb_cfg *s = &c.standby;
	char *err = NULL;

	assert_int_equal(vcp_fleet_cfg_parse("{" HOSTS ", \"standby\": {"
		"\"low\": 0.3, \"high\": 0.7, \"low_hold\": 600, \"high_hold\": 0,"
		" \"min_spare_hosts\": 2, \"host_migrations_per_hour\": 5,"
		" \"migrations_per_round\": 1, \"wake_cooldown\": 60,"
		" \"wake_deadline\": 300, \"interval\": 30,"
		" \"host_defaults\": {\"action\": \"command\","
		"  \"standby_command\": \"ipmitool power soft\","
		"  \"wake_command\": \"ipmitool power on\", \"command_timeout\": 30},"
		" \"hosts\": {\"h2\": {\"action\": \"libvirt-suspend\"},"
		"  \"h3\": {\"stay_on\": true, \"wake_command\": \"etherwake h3\"}}}}",
		"f.json", &c, &err), 0);
	assert_null(err);
	assert_true(s->enabled);
	assert_true(s->low > 0.299 && s->low < 0.301);
	assert_true(s->high > 0.699 && s->high < 0.701);
	assert_int_equal(s->low_hold_s, 600);
	assert_int_equal(s->high_hold_s, 0);
	assert_int_equal(s->min_spare_hosts, 2);
	assert_int_equal(s->host_migrations_per_hour, 5);
	assert_int_equal(s->migrations_per_round, 1);
	assert_int_equal(s->wake_cooldown_s, 60);
	assert_int_equal(s->wake_deadline_s, 300);
	assert_int_equal(s->interval_s, 30);
	assert_int_equal(s->n_hosts, 3);
	assert_int_equal(s->hosts[0].action, VCP_SB_ACTION_COMMAND);
	assert_string_equal(s->hosts[0].standby_command, "ipmitool power soft");
	assert_string_equal(s->hosts[0].wake_command, "ipmitool power on");
	assert_int_equal(s->hosts[0].command_timeout_s, 30);
	assert_false(s->hosts[0].stay_on);
	assert_int_equal(s->hosts[1].action, VCP_SB_ACTION_LIBVIRT);
	assert_int_equal(s->hosts[2].action, VCP_SB_ACTION_COMMAND);
	assert_string_equal(s->hosts[2].wake_command, "etherwake h3");
	assert_string_equal(s->hosts[2].standby_command, "ipmitool power soft");
	assert_true(s->hosts[2].stay_on);
	vcp_fleet_cfg_clear(&c);
}

static void test_cfg_defaults(void **state)
{
	struct vcp_fleet_cfg c;
	const struct vcp_sb_cfg *s = &c.standby;

	assert_int_equal(vcp_fleet_cfg_parse("{" HOSTS "}", "f", &c, NULL), 0);
	assert_false(s->enabled);
	assert_int_equal(s->n_hosts, 3);
	assert_int_equal(s->hosts[1].action, VCP_SB_ACTION_NONE);
	vcp_fleet_cfg_clear(&c);
	assert_int_equal(vcp_fleet_cfg_parse("{" HOSTS ", \"standby\": {}}",
					     "f", &c, NULL), 0);
	assert_true(s->enabled);
	assert_true(s->low > 0.449 && s->low < 0.451);
	assert_true(s->high > 0.809 && s->high < 0.811);
	assert_int_equal(s->low_hold_s, 2400);
	assert_int_equal(s->high_hold_s, 300);
	assert_int_equal(s->min_spare_hosts, 1);
	assert_int_equal(s->host_migrations_per_hour, 10);
	assert_int_equal(s->migrations_per_round, 4);
	assert_int_equal(s->wake_cooldown_s, 900);
	assert_int_equal(s->wake_deadline_s, 600);
	assert_int_equal(s->interval_s, 60);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(s->hosts[i].action, VCP_SB_ACTION_NONE);
		assert_int_equal(s->hosts[i].command_timeout_s, 120);
		assert_false(s->hosts[i].stay_on);
		assert_null(s->hosts[i].standby_command);
	}
	vcp_fleet_cfg_clear(&c);
}

static void refused(const char *standby, const char *msg)
{
	struct vcp_fleet_cfg c;
	char text[2048], *err = NULL;

	memset(&c, 0x5a, sizeof(c));
	snprintf(text, sizeof(text), "{" HOSTS ", \"standby\": %s}", standby);
	assert_int_equal(vcp_fleet_cfg_parse(text, "fleet.json", &c, &err),
			 -EINVAL);
	assert_non_null(err);
	assert_string_equal(err, msg);
	assert_int_equal(c.n_hosts, 0x5a5a5a5a5a5a5a5aULL);
	free(err);
}

static void test_cfg_refused(void **state)
{
	refused("[]", "fleet.json: standby: must be an object, got []");
	refused("{\"low\": 1.2}",
		"fleet.json: standby.low: must be a number from 0 to 1, got 1.2");
	refused("{\"low\": 0.8, \"high\": 0.5}",
		"fleet.json: standby.low: 0.8 must be below standby.high (0.5)");
	refused("{\"low_hold\": -1}",
		"fleet.json: standby.low_hold: must be a whole number from 0 to 86400, got -1");
	refused("{\"host_migrations_per_hour\": 65}",
		"fleet.json: standby.host_migrations_per_hour: must be a whole number from 1 to 64, got 65");
	refused("{\"wake_deadline\": \"soon\"}",
		"fleet.json: standby.wake_deadline: must be a whole number from 10 to 86400, got \"soon\"");
	refused("{\"hold\": 1}", "fleet.json: standby.hold: unknown key");
	refused("{\"host_defaults\": {\"action\": \"off\"}}",
		"fleet.json: standby.host_defaults.action: must be \"none\", \"libvirt-suspend\" or \"command\", got \"off\"");
	refused("{\"host_defaults\": 1}",
		"fleet.json: standby.host_defaults: must be an object, got 1");
	refused("{\"hosts\": []}",
		"fleet.json: standby.hosts: must be an object (host name: settings), got []");
	refused("{\"hosts\": {\"h9\": {}}}",
		"fleet.json: standby.hosts.h9: no host of that name in \"hosts\"");
	refused("{\"hosts\": {\"h2\": {\"stay_on\": 1}}}",
		"fleet.json: standby.hosts.h2.stay_on: must be true or false, got 1");
	refused("{\"hosts\": {\"h2\": {\"wake_command\": \"\"}}}",
		"fleet.json: standby.hosts.h2.wake_command: must be a non-empty string (at most 4096 bytes), got \"\"");
	refused("{\"hosts\": {\"h2\": {\"command_timeout\": 0}}}",
		"fleet.json: standby.hosts.h2.command_timeout: must be a whole number from 1 to 3600, got 0");
	refused("{\"hosts\": {\"h2\": {\"action\": \"command\", \"wake_command\": \"x\"}}}",
		"fleet.json: standby.hosts.h2: action \"command\" needs \"standby_command\" and \"wake_command\"");
	refused("{\"hosts\": {\"h1\": {\"power\": \"none\"}}}",
		"fleet.json: standby.hosts.h1.power: unknown key");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfg_values),
		cmocka_unit_test(test_cfg_defaults),
		cmocka_unit_test(test_cfg_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
