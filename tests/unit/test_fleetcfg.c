// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_fleetcfg.c - the fleet file: values, defaults, names taken from
 * URIs, and every refusal naming the key path.
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
#include "fleetwatts.h"

static void test_values(void **state)
{
	struct vcp_fleet_cfg c;
	char *err = NULL;

	assert_int_equal(vcp_fleet_cfg_parse(
		"{\"hosts\": [{\"uri\": \"qemu+ssh://root@h1.example:2222/system\"},"
		" {\"uri\": \"qemu+tls://h2/system\", \"name\": \"b\", \"group\": \"rack1\","
		"  \"accepts\": false, \"migration_address\": \"10.0.0.2\","
		"  \"vendor\": \"amd\", \"idle_watts\": 212.5},"
		" {\"uri\": \"qemu:///system\", \"vendor\": \"intel\"}],"
		" \"defaults\": {\"concurrency\": 64, \"timeout\": 3, \"move_spread\": true,"
		"  \"mem_reserve\": 0.2, \"p2p\": true, \"tls\": true,"
		"  \"bandwidth\": 250, \"auto_converge\": true,"
		"  \"package_watts\": 35.5, \"host_watts\": 0}}",
		"f.json", &c, &err), 0);
	assert_null(err);
	assert_int_equal(c.n_hosts, 3);
	assert_string_equal(c.hosts[0].name, "h1.example:2222");
	assert_null(c.hosts[0].group);
	assert_true(c.hosts[0].accepts);
	assert_string_equal(c.hosts[1].name, "b");
	assert_string_equal(c.hosts[1].group, "rack1");
	assert_false(c.hosts[1].accepts);
	assert_string_equal(c.hosts[1].migration_address, "10.0.0.2");
	assert_null(c.hosts[0].migration_address);
	/* the power model's vendor and the measured idle draw */
	assert_int_equal(c.hosts[0].vendor, VCP_VENDOR_UNKNOWN);
	assert_true(c.hosts[0].idle_watts < 0);
	assert_int_equal(c.hosts[1].vendor, VCP_VENDOR_AMD);
	assert_true(c.hosts[1].idle_watts > 212.49 && c.hosts[1].idle_watts < 212.51);
	assert_int_equal(c.hosts[2].vendor, VCP_VENDOR_INTEL);
	assert_string_equal(c.hosts[2].name, "qemu:///system");
	assert_int_equal(c.concurrency, 64);
	assert_int_equal(c.timeout_s, 3);
	assert_true(c.move_spread);
	assert_true(c.mem_reserve > 0.199 && c.mem_reserve < 0.201);
	assert_true(c.p2p);
	assert_true(c.tls);
	assert_true(c.auto_converge);
	assert_int_equal(c.bandwidth_mib, 250);
	assert_true(c.package_watts > 35.4 && c.package_watts < 35.6);
	assert_true(c.host_watts == 0);
	vcp_fleet_cfg_clear(&c);
}

static void test_defaults(void **state)
{
	struct vcp_fleet_cfg c;

	assert_int_equal(vcp_fleet_cfg_parse(
		"{\"hosts\": [{\"uri\": \"test:///default\"}]}", "f", &c, NULL),
		0);
	assert_int_equal(c.concurrency, 16);
	assert_int_equal(c.timeout_s, 10);
	assert_false(c.move_spread);
	assert_false(c.p2p);
	assert_false(c.tls);
	assert_false(c.auto_converge);
	assert_int_equal(c.bandwidth_mib, 0);
	assert_string_equal(c.hosts[0].name, "test:///default");
	vcp_fleet_cfg_clear(&c);
}

static void refused(const char *text, const char *msg)
{
	struct vcp_fleet_cfg c;
	char *err = NULL;

	memset(&c, 0x5a, sizeof(c));
	assert_int_equal(vcp_fleet_cfg_parse(text, "fleet.json", &c, &err),
			 -EINVAL);
	assert_non_null(err);
	assert_string_equal(err, msg);
	assert_int_equal(c.n_hosts, 0x5a5a5a5a5a5a5a5aULL);	/* untouched */
	free(err);
}

static void test_refused(void **state)
{
	refused("{", "fleet.json: not valid JSON at line 1: unexpected end of text");
	refused("[]", "fleet.json: must be a JSON object");
	refused("{\"hosts\": []}",
		"fleet.json: hosts: must be a non-empty array, got []");
	refused("{\"hostz\": 1}", "fleet.json: hostz: unknown key");
	refused("{\"hosts\": [{\"name\": \"a\"}]}",
		"fleet.json: hosts[0]: needs \"uri\"");
	refused("{\"hosts\": [{\"uri\": \"h1\"}]}",
		"fleet.json: hosts[0].uri: 'h1' is not a libvirt URI (e.g. qemu+ssh://host/system)");
	refused("{\"hosts\": [{\"uri\": \"qemu+ssh://h1/system\", \"port\": 22}]}",
		"fleet.json: hosts[0].port: unknown key");
	refused("{\"hosts\": [{\"uri\": \"qemu+ssh://h1/system\"},"
		" {\"uri\": \"qemu+tls://h1/system\"}]}",
		"fleet.json: hosts[1].name: 'h1' is also hosts[0] (give each host a \"name\")");
	refused("{\"hosts\": [{\"uri\": \"qemu:///system\", \"vendor\": \"Intel\"}]}",
		"fleet.json: hosts[0].vendor: must be \"intel\" or \"amd\", got \"Intel\"");
	refused("{\"hosts\": [{\"uri\": \"qemu:///system\", \"idle_watts\": -3}]}",
		"fleet.json: hosts[0].idle_watts: must be a number from 0 to 100000, got -3");
	refused("{\"hosts\": [{\"uri\": \"qemu:///system\", \"accepts\": 1}]}",
		"fleet.json: hosts[0].accepts: must be true or false, got 1");
	refused("{\"hosts\": [{\"uri\": \"qemu:///system\"}], \"defaults\": {\"concurrency\": 0}}",
		"fleet.json: defaults.concurrency: must be a whole number from 1 to 1024, got 0");
	refused("{\"hosts\": [{\"uri\": \"qemu:///system\"}], \"defaults\": {\"mem_reserve\": \"lots\"}}",
		"fleet.json: defaults.mem_reserve: must be a number from 0 to 0.9, got \"lots\"");
	refused("{\"hosts\": [{\"uri\": \"qemu:///system\"}], \"defaults\": {\"speed\": 1}}",
		"fleet.json: defaults.speed: unknown key");
}

/* power_command: a host's own, else the defaults'; its timeout too */
/* One host under two names would be counted twice (capacity, watts,
 * a receiver of its own guests): the same URI after trivial
 * normalisation is refused, naming both entries. */
static void test_same_uri(void **state)
{
	struct vcp_fleet_cfg c;
	char *err = NULL;

	refused("{\"hosts\": [{\"uri\": \"qemu+ssh://h1/system\", \"name\": \"a\"},"
		" {\"uri\": \"qemu+ssh://h2/system\", \"name\": \"b\"},"
		" {\"uri\": \"qemu+ssh://h1/system\", \"name\": \"c\"}]}",
		"fleet.json: hosts[2].uri: 'qemu+ssh://h1/system' is the host of hosts[0] ('a', 'qemu+ssh://h1/system'): one entry a host");
	/* case of scheme and host, user, default port, trailing slash */
	refused("{\"hosts\": [{\"uri\": \"qemu+ssh://h1/system\", \"name\": \"a\"},"
		" {\"uri\": \"QEMU+SSH://root@H1.:22/system/\", \"name\": \"b\"}]}",
		"fleet.json: hosts[1].uri: 'QEMU+SSH://root@H1.:22/system/' is the host of hosts[0] ('a', 'qemu+ssh://h1/system'): one entry a host");
	/* libvirt's default transports: tls with a host, local without */
	refused("{\"hosts\": [{\"uri\": \"qemu+tls://h1:16514/system\", \"name\": \"a\"},"
		" {\"uri\": \"qemu://h1/system\", \"name\": \"b\"}]}",
		"fleet.json: hosts[1].uri: 'qemu://h1/system' is the host of hosts[0] ('a', 'qemu+tls://h1:16514/system'): one entry a host");
	refused("{\"hosts\": [{\"uri\": \"qemu:///system\", \"name\": \"a\"},"
		" {\"uri\": \"qemu+unix:///system\", \"name\": \"b\"}]}",
		"fleet.json: hosts[1].uri: 'qemu+unix:///system' is the host of hosts[0] ('a', 'qemu:///system'): one entry a host");
	/* different hosts: other host, port, path, socket, transport */
	assert_int_equal(
		vcp_fleet_cfg_parse(
			"{\"hosts\": [{\"uri\": \"qemu+ssh://h1/system\", \"name\": \"a\"},"
			" {\"uri\": \"qemu+ssh://h1:2222/system\", \"name\": \"b\"},"
			" {\"uri\": \"qemu+ssh://h1/session\", \"name\": \"c\"},"
			" {\"uri\": \"qemu+tcp://h1/system\", \"name\": \"d\"},"
			" {\"uri\": \"test+unix:///default?socket=/s/1\", \"name\": \"e\"},"
			" {\"uri\": \"test+unix:///default?socket=/s/2\", \"name\": \"f\"},"
			" {\"uri\": \"qemu+ssh://h11/system\", \"name\": \"g\"}]}",
			"fleet.json", &c, &err),
		0);
	assert_null(err);
	assert_int_equal(c.n_hosts, 7);
	vcp_fleet_cfg_clear(&c);
}

/* migration_address: a host name or an IP address libvirt can listen
 * on and put in tcp://ADDRESS, whole or refused by name. */
static void test_migration_address(void **state)
{
	static const char *const good[] = {
		"10.0.0.2", "fd00::2", "mig-h2.example.com",
		"h2",	    "h2.",     "2001:db8::1:0:0:1",
	};
	char text[2048], want[2048], name[300];
	struct vcp_fleet_cfg c;
	char *err = NULL;

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
		snprintf(
			text, sizeof(text),
			"{\"hosts\": [{\"uri\": \"qemu:///system\", \"migration_address\": \"%s\"}]}",
			good[i]);
		if (vcp_fleet_cfg_parse(text, "fleet.json", &c, &err))
			fail_msg("%s: %s", good[i], err);
		assert_string_equal(c.hosts[0].migration_address, good[i]);
		vcp_fleet_cfg_clear(&c);
	}
#define MA "{\"hosts\": [{\"uri\": \"qemu:///system\", \"migration_address\": "
#define WANT "fleet.json: hosts[0].migration_address: "
	refused(MA "\"10.0.0.2:49152\"}]}", WANT
		"'10.0.0.2:49152' is not a host name or IP address (no port, no scheme, no brackets)");
	refused(MA "\"tcp://10.0.0.2\"}]}", WANT
		"'tcp://10.0.0.2' is not a host name or IP address (no port, no scheme, no brackets)");
	refused(MA "\"[fd00::2]\"}]}", WANT
		"'[fd00::2]' is not a host name or IP address (no port, no scheme, no brackets)");
	refused(MA "\"mig h2\"}]}", WANT
		"'mig h2' is not a host name or IP address (no port, no scheme, no brackets)");
	refused(MA "\"-h2\"}]}", WANT
		"'-h2' is not a host name or IP address (no port, no scheme, no brackets)");
	refused(MA "\"a..b\"}]}", WANT
		"'a..b' is not a host name or IP address (no port, no scheme, no brackets)");
	refused(MA "\"10.0.0.256\"}]}", WANT
		"'10.0.0.256' is not a host name or IP address (no port, no scheme, no brackets)");
	refused(MA "\"\"}]}",
		"fleet.json: hosts[0].migration_address: must be a non-empty string (at most 1024 bytes), got \"\"");
	/* a label of 64 characters, and a name of 254: too long, by name */
	memset(name, 'a', 64);
	name[64] = '\0';
	snprintf(text, sizeof(text), MA "\"%s.example\"}]}", name);
	snprintf(want, sizeof(want),
		 WANT "'%s.example': a label longer than 63 characters", name);
	refused(text, want);
	for (size_t i = 0; i < 254; i++)
		name[i] = i % 2 ? '.' : 'a';
	name[253] = 'b';
	name[254] = '\0';
	snprintf(text, sizeof(text), MA "\"%s\"}]}", name);
	snprintf(
		want, sizeof(want),
		WANT
		"'%.40s...' is 254 characters long: a host name has at most 253",
		name);
	refused(text, want);
#undef MA
#undef WANT
}

static void test_power_command(void **state)
{
	struct vcp_fleet_cfg c;

	(void)state;
	assert_int_equal(
		vcp_fleet_cfg_parse(
			"{\"hosts\": [{\"uri\": \"test:///a\", \"name\": \"a\","
			"  \"power_command\": [\"ipmitool\", \"-H\", \"bmc-a\", \"dcmi\","
			"  \"power\", \"reading\"], \"power_timeout\": 9},"
			" {\"uri\": \"test:///b\", \"name\": \"b\"}],"
			" \"defaults\": {\"power_command\": [\"/usr/local/bin/power\"]}}",
			"f", &c, NULL),
		0);
	assert_string_equal(vcp_fleet_power_command(&c, 0)[2], "bmc-a");
	assert_null(vcp_fleet_power_command(&c, 0)[6]);
	assert_int_equal(vcp_fleet_power_timeout(&c, 0), 9);
	assert_string_equal(vcp_fleet_power_command(&c, 1)[0],
			    "/usr/local/bin/power");
	assert_int_equal(vcp_fleet_power_timeout(&c, 1), 5); /* default */
	vcp_fleet_cfg_clear(&c);
	assert_int_equal(
		vcp_fleet_cfg_parse(
			"{\"hosts\": [{\"uri\": \"test:///a\"}], \"defaults\": {\"power_timeout\": 2}}",
			"f", &c, NULL),
		0);
	assert_null(vcp_fleet_power_command(&c, 0));
	assert_int_equal(vcp_fleet_power_timeout(&c, 0), 2);
	vcp_fleet_cfg_clear(&c);
	refused("{\"hosts\": [{\"uri\": \"qemu:///system\", \"power_command\": \"ipmitool dcmi\"}]}",
		"fleet.json: hosts[0].power_command: must be an array of 1 to 64 strings (the program and its arguments; no shell), got \"ipmitool dcmi\"");
	refused("{\"hosts\": [{\"uri\": \"qemu:///system\", \"power_command\": [\"a\", \"\"]}]}",
		"fleet.json: hosts[0].power_command[1]: must be a non-empty string (at most 4096 bytes), got \"\"");
	refused("{\"hosts\": [{\"uri\": \"qemu:///system\", \"power_timeout\": 0}]}",
		"fleet.json: hosts[0].power_timeout: must be a whole number from 1 to 600, got 0");
	refused("{\"hosts\": [{\"uri\": \"qemu:///system\"}], \"defaults\": {\"power_command\": []}}",
		"fleet.json: defaults.power_command: must be an array of 1 to 64 strings (the program and its arguments; no shell), got []");
}

/* hosts missing, not an array or not an object: an error, never an abort */
static void test_hosts_types(void **state)
{
	refused("{}", "fleet.json: needs \"hosts\" (an array of hosts)");
	refused("{\"defaults\": {}}",
		"fleet.json: needs \"hosts\" (an array of hosts)");
	refused("{\"hosts\": 5}",
		"fleet.json: hosts: must be a non-empty array, got 5");
	refused("{\"hosts\": {\"uri\": \"qemu:///system\"}}",
		"fleet.json: hosts: must be a non-empty array, got {\"uri\":\"qemu:\\/\\/\\/system\"}");
	refused("{\"hosts\": null}",
		"fleet.json: hosts: must be a non-empty array, got null");
	refused("{\"hosts\": [null]}",
		"fleet.json: hosts[0]: must be an object, got null");
	refused("{\"hosts\": [[]]}",
		"fleet.json: hosts[0]: must be an object, got []");
	refused("{\"hosts\": [{\"uri\": \"qemu:///system\"}], \"defaults\": []}",
		"fleet.json: defaults: must be an object, got []");
}

/* strict JSON: a key given twice is refused by name, not the last kept */
static void test_strict(void **state)
{
	refused("{\"hosts\": [{\"uri\": \"qemu:///system\"}],\n"
		" \"hosts\": [{\"uri\": \"qemu+ssh://h2/system\"}]}",
		"fleet.json: hosts: duplicate key (lines 1 and 2)");
	refused("{\"hosts\": [{\"uri\": \"qemu:///system\"},\n"
		" {\"uri\": \"qemu+ssh://h2/system\", \"accepts\": true,\n"
		"  \"accepts\": false}]}",
		"fleet.json: hosts[1].accepts: duplicate key (lines 2 and 3)");
	refused("{\"hosts\": [{\"uri\": \"qemu:///system\"},]}",
		"fleet.json: not valid JSON at line 1: trailing comma");
	refused("{\"hosts\": [{'uri': \"qemu:///system\"}]}",
		"fleet.json: not valid JSON at line 1: single quotes are not JSON (use \")");
	refused("{\"hosts\": [{\"uri\": \"qemu:///system\"}]} # x",
		"fleet.json: not valid JSON at line 1: unexpected text after the value");
}

static void test_first_duplicate(void **state)
{
	char *none[] = { "a", "b", "c" };
	char *two[] = { "d", "a", "c", "b", "c", "a", "d" };
	char *three[] = { "x", "y", "x", "x" };
	size_t j = 99, i = 99;

	assert_int_equal(vcp_first_duplicate(none, 3, &j, &i), 0);
	assert_int_equal(j, 99); /* untouched */
	assert_int_equal(vcp_first_duplicate(none, 0, &j, &i), 0);
	/* "c" at 4 comes before "a" at 5 and "d" at 6 */
	assert_int_equal(vcp_first_duplicate(two, 7, &j, &i), 1);
	assert_int_equal(j, 2);
	assert_int_equal(i, 4);
	assert_int_equal(vcp_first_duplicate(three, 4, &j, &i), 1);
	assert_int_equal(j, 0);
	assert_int_equal(i, 2);
}

/* The largest fleet file allowed, with one duplicate near its end: found
 * and named (the quadratic check took 76 s here; the figure is in
 * bench_fleetplan, this checks the answer). */
static void test_duplicate_deep(void **state)
{
	size_t n = VCP_FLEET_MAX_HOSTS, cap = n * 48 + 64, len = 0;
	char *text = malloc(cap), *err = NULL, want[160];
	struct vcp_fleet_cfg c;

	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len, "{\"hosts\": [");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(
			text + len, cap - len,
			"%s{\"uri\": \"qemu+ssh://h%zu/system\"}", i ? "," : "",
			i == n - 2 ? (size_t)70001 : i);
	snprintf(text + len, cap - len, "]}");
	assert_int_equal(vcp_fleet_cfg_parse(text, "big.json", &c, &err),
			 -EINVAL);
	snprintf(
		want, sizeof(want),
		"big.json: hosts[%zu].name: 'h70001' is also hosts[70001] (give each host a \"name\")",
		n - 2);
	assert_string_equal(err, want);
	free(err);
	err = NULL;

	/* and all different: accepted, every host there */
	len = (size_t)snprintf(text, cap, "{\"hosts\": [");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(
			text + len, cap - len,
			"%s{\"uri\": \"qemu+ssh://h%zu/system\"}", i ? "," : "",
			i);
	snprintf(text + len, cap - len, "]}");
	assert_int_equal(vcp_fleet_cfg_parse(text, "big.json", &c, &err), 0);
	assert_int_equal(c.n_hosts, n);
	assert_string_equal(c.hosts[n - 1].name, "h99999");
	vcp_fleet_cfg_clear(&c);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_same_uri),
		cmocka_unit_test(test_migration_address),
		cmocka_unit_test(test_power_command),
		cmocka_unit_test(test_hosts_types),
		cmocka_unit_test(test_strict),
		cmocka_unit_test(test_first_duplicate),
		cmocka_unit_test(test_duplicate_deep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
