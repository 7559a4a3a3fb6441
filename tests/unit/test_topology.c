// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_topology.c - the three topology loaders on fixtures: libvirt
 * capabilities XML (tests/data/caps/), virNodeGetInfo counts, and sysfs
 * trees (tests/data/sysfs/CASE). Asserts package/core/thread counts,
 * per-package cpusets, node ids, offline CPUs left out, error messages.
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

#include "golden.h"

#include "topology.h"

#define CAPS_DIR VCP_SRCDIR "/tests/data/caps/"
#define SYSFS_DIR VCP_SRCDIR "/tests/data/sysfs/"

static const char *fmt(const struct vcp_cpuset *s)
{
	static char buf[256];

	assert_int_equal(vcp_cpuset_format(s, buf, sizeof(buf)), 0);
	return buf;
}

/* Package @i: its id, node, cpulist, core and thread counts. */
static void check_pkg(const struct vcp_host *h, size_t i, int id, int node,
		      const char *cpus, unsigned int n_cores,
		      unsigned int n_cpus)
{
	assert_true(i < h->n_packages);
	assert_int_equal(h->packages[i].id, id);
	assert_int_equal(h->packages[i].node, node);
	assert_string_equal(fmt(&h->packages[i].cpus), cpus);
	assert_int_equal(h->packages[i].n_cores, n_cores);
	assert_int_equal(h->packages[i].n_cpus, n_cpus);
}

static const struct vcp_cpu *cpu_of(const struct vcp_host *h, unsigned int id)
{
	for (size_t i = 0; i < h->n_cpus; i++)
		if (h->cpus[i].id == id)
			return &h->cpus[i];
	fail_msg("cpu %u not in the host", id);
	return NULL;
}

static void check_cpu(const struct vcp_host *h, unsigned int id, int pkg,
		      int core, int node)
{
	const struct vcp_cpu *c = cpu_of(h, id);

	assert_int_equal(c->package, pkg);
	assert_int_equal(c->core, core);
	assert_int_equal(c->node, node);
}

static struct vcp_host *caps_file(const char *name)
{
	char path[512];
	struct vcp_host *h = NULL;
	char *err = NULL, *xml;

	snprintf(path, sizeof(path), "%s%s", CAPS_DIR, name);
	xml = t_slurp_must(path);
	assert_int_equal(vcp_topology_from_caps(xml, &h, &err), 0);
	assert_null(err);
	assert_non_null(h);
	free(xml);
	return h;
}

/* ---- capabilities ---- */

static void test_caps_two_socket_smt(void **state)
{
	struct vcp_host *h = caps_file("two-socket-smt.xml");

	assert_int_equal(h->n_cpus, 16);
	assert_int_equal(h->n_packages, 2);
	assert_int_equal(h->n_nodes, 2);
	assert_int_equal(h->threads_per_core, 2);
	assert_int_equal(h->max_cpus, 16);
	assert_string_equal(fmt(&h->online), "0-15");
	check_pkg(h, 0, 0, 0, "0-3,8-11", 4, 8);
	check_pkg(h, 1, 1, 1, "4-7,12-15", 4, 8);
	check_cpu(h, 12, 1, 0, 1);
	check_cpu(h, 3, 0, 3, 0);
	vcp_host_free(h);
}

/* The CPU key ignores microcode and counters, sorts features. */
static void test_caps_host_cpu(void **state)
{
	char path[512], *xml, *cpu = NULL, *key = NULL, *err = NULL;
	char *other, *p;

	snprintf(path, sizeof(path), "%s%s", CAPS_DIR, "two-socket-smt.xml");
	xml = t_slurp_must(path);
	assert_int_equal(vcp_caps_host_cpu(xml, &cpu, &key, &err), 0);
	assert_string_equal(key, "Intel Skylake-Server-IBRS vmx");
	assert_non_null(strstr(cpu, "<model>Skylake-Server-IBRS</model>"));
	assert_int_equal(strncmp(cpu, "<cpu>", 5), 0);
	free(cpu);
	free(key);
	/* another microcode, more features in another order */
	other = strdup(xml);
	p = strstr(other, "0x2007006");
	memcpy(p, "0x2007999", 9);
	p = strstr(other, "<feature name='vmx'/>");
	memcpy(p, "<feature name='abm'/>", 21);
	assert_int_equal(vcp_caps_host_cpu(other, &cpu, &key, &err), 0);
	assert_string_equal(key, "Intel Skylake-Server-IBRS abm");
	free(cpu);
	free(key);
	free(other);
	free(xml);
	cpu = key = NULL;
	assert_int_equal(vcp_caps_host_cpu("<capabilities><host/></capabilities>",
					   &cpu, &key, &err), -ENODATA);
	assert_string_equal(err, "capabilities XML has no host <cpu>");
	assert_null(cpu);
	assert_null(key);
	free(err);
}

static void test_caps_offline(void **state)
{
	struct vcp_host *h = caps_file("offline-cpu.xml");

	assert_int_equal(h->n_cpus, 3);
	assert_string_equal(fmt(&h->online), "0-1,3");
	assert_int_equal(h->max_cpus, 4);
	assert_int_equal(h->n_packages, 1);
	assert_int_equal(h->threads_per_core, 1);
	check_pkg(h, 0, 0, 0, "0-1,3", 3, 3);
	assert_int_equal(vcp_host_package_of(h, 2), -1);
	vcp_host_free(h);
}

static void test_caps_one_socket_two_cells(void **state)
{
	struct vcp_host *h = caps_file("one-socket-two-cells.xml");

	assert_int_equal(h->n_cpus, 8);
	assert_int_equal(h->n_packages, 1);
	assert_int_equal(h->n_nodes, 2);
	assert_int_equal(h->threads_per_core, 2);
	check_pkg(h, 0, 0, 0, "0-7", 4, 8);
	check_cpu(h, 2, 0, 2, 1);
	check_cpu(h, 7, 0, 3, 1);
	check_cpu(h, 5, 0, 1, 0);
	vcp_host_free(h);
}

/* What `virsh -c test:///default capabilities` prints (libvirt 9.0). */
static void test_caps_test_driver(void **state)
{
	struct vcp_host *h = caps_file("test-default.xml");

	assert_int_equal(h->n_cpus, 16);
	assert_int_equal(h->n_packages, 2);
	assert_int_equal(h->n_nodes, 2);
	assert_int_equal(h->threads_per_core, 1);
	check_pkg(h, 0, 0, 0, "0-7", 8, 8);
	check_pkg(h, 1, 1, 1, "8-15", 8, 8);
	vcp_host_free(h);
}

static void caps_nodata(const char *xml)
{
	struct vcp_host *h = (struct vcp_host *)&h;	/* sentinel */
	char *err = NULL;

	assert_int_equal(vcp_topology_from_caps(xml, &h, &err), -ENODATA);
	assert_ptr_equal(h, (struct vcp_host *)&h);
	assert_null(err);
}

static void test_caps_nodata(void **state)
{
	char *a = t_slurp_must(CAPS_DIR "no-topology.xml");
	char *b = t_slurp_must(CAPS_DIR "no-socket-id.xml");

	caps_nodata(a);
	caps_nodata(b);
	caps_nodata("<capabilities><host><topology><cells num='0'/></topology></host></capabilities>");
	caps_nodata("<other/>");
	free(a);
	free(b);
}

static void caps_error(const char *xml, const char *msg)
{
	struct vcp_host *h = NULL;
	char *err = NULL;

	assert_int_equal(vcp_topology_from_caps(xml, &h, &err), -EINVAL);
	assert_null(h);
	assert_non_null(err);
	assert_string_equal(err, msg);
	free(err);
}

#define CELL(id, cpus)                                                      \
	"<capabilities><host><topology><cells num='1'><cell id=" id "><cpus>" \
	cpus "</cpus></cell></cells></topology></host></capabilities>"

static void test_caps_errors(void **state)
{
	struct vcp_host *h = NULL;
	char *err = NULL;

	assert_int_equal(vcp_topology_from_caps("<capabilities><host>", &h,
						&err), -EINVAL);
	assert_null(h);
	assert_non_null(err);
	assert_memory_equal(err, "capabilities XML is not well-formed: ", 37);
	free(err);
	caps_error(CELL("'0'", "<cpu id='0' socket_id='0' core_id='0'/><cpu id='1' socket_id='0'/>"),
		   "capabilities: cpu 1 has no core_id");
	caps_error(CELL("'0'", "<cpu id='0' socket_id='x' core_id='0'/>"),
		   "capabilities: cpu 0 has a bad socket_id");
	caps_error(CELL("'0'", "<cpu id='0' socket_id='0' die_id='' core_id='0'/>"),
		   "capabilities: cpu 0 has a bad die_id");
	caps_error(CELL("'0'", "<cpu socket_id='0' core_id='0'/>"),
		   "capabilities: cell 0 has a cpu with a bad or missing id");
	caps_error(CELL("'0'", "<cpu id='-1' socket_id='0' core_id='0'/>"),
		   "capabilities: cell 0 has a cpu with a bad or missing id");
	caps_error(CELL("'a'", "<cpu id='0' socket_id='0' core_id='0'/>"),
		   "capabilities: a cell has a bad or missing id");
	caps_error(
		CELL("'0'",
		     "<cpu id='0' socket_id='0' core_id='0'/><cpu id='0' socket_id='0' core_id='1'/>"),
		"capabilities XML lists a CPU twice or one numbered 16384 or more");
}

/* ---- node info ---- */

static void test_nodeinfo_smt(void **state)
{
	struct vcp_host *h = NULL;

	assert_int_equal(vcp_topology_from_nodeinfo(1, 2, 2, 2, &h, NULL), 0);
	assert_int_equal(h->n_cpus, 8);
	assert_int_equal(h->n_packages, 2);
	assert_int_equal(h->n_nodes, 1);
	assert_int_equal(h->threads_per_core, 2);
	assert_int_equal(h->max_cpus, 8);
	check_pkg(h, 0, 0, 0, "0-1,4-5", 2, 4);
	check_pkg(h, 1, 1, 0, "2-3,6-7", 2, 4);
	check_cpu(h, 5, 0, 1, 0);
	vcp_host_free(h);
}

static void test_nodeinfo_nodes(void **state)
{
	struct vcp_host *h = NULL;

	assert_int_equal(vcp_topology_from_nodeinfo(2, 2, 2, 2, &h, NULL), 0);
	assert_int_equal(h->n_cpus, 16);
	assert_int_equal(h->n_packages, 4);
	assert_int_equal(h->n_nodes, 2);
	check_pkg(h, 0, 0, 0, "0-1,8-9", 2, 4);
	check_pkg(h, 1, 1, 0, "2-3,10-11", 2, 4);
	check_pkg(h, 2, 2, 1, "4-5,12-13", 2, 4);
	check_pkg(h, 3, 3, 1, "6-7,14-15", 2, 4);
	vcp_host_free(h);
	h = NULL;
	assert_int_equal(vcp_topology_from_nodeinfo(1, 1, 4, 1, &h, NULL), 0);
	assert_int_equal(h->n_packages, 1);
	assert_int_equal(h->threads_per_core, 1);
	check_pkg(h, 0, 0, 0, "0-3", 4, 4);
	vcp_host_free(h);
}

static void test_nodeinfo_bad(void **state)
{
	struct vcp_host *h = NULL;

	assert_int_equal(vcp_topology_from_nodeinfo(0, 1, 1, 1, &h, NULL),
			 -EINVAL);
	assert_int_equal(vcp_topology_from_nodeinfo(1, 1, 0, 1, &h, NULL),
			 -EINVAL);
	assert_int_equal(vcp_topology_from_nodeinfo(1, 1, 1, 0, &h, NULL),
			 -EINVAL);
	assert_null(h);
}

/* Hosts past 2,048 CPUs load, up to libvirt's own 16,384; past that the
 * limit is said by name. */
static void test_nodeinfo_wide(void **state)
{
	struct vcp_host *h = NULL;
	char *err = NULL;

	assert_int_equal(vcp_topology_from_nodeinfo(1, 2, 1025, 1, &h, &err),
			 0);
	assert_int_equal(h->n_cpus, 2050);
	assert_int_equal(h->max_cpus, 2050);
	check_pkg(h, 1, 1, 0, "1025-2049", 1025, 1025);
	vcp_host_free(h);
	h = NULL;
	assert_int_equal(vcp_topology_from_nodeinfo(2, 1, 2048, 2, &h, &err),
			 0);
	assert_int_equal(h->n_cpus, 8192);
	assert_int_equal(h->n_packages, 2);
	assert_int_equal(h->threads_per_core, 2);
	check_pkg(h, 1, 1, 1, "2048-4095,6144-8191", 2048, 4096);
	check_cpu(h, 8191, 1, 2047, 1);
	vcp_host_free(h);
	h = NULL;
	assert_int_equal(vcp_topology_from_nodeinfo(2, 1, 8192, 1, &h, &err),
			 0);
	assert_int_equal(h->n_cpus, 16384);
	assert_int_equal(h->too_wide, 0);
	assert_int_equal(vcp_host_fits(h, &err), 0);
	vcp_host_free(h);
	h = NULL;
	assert_null(err);
	/* wider: the CPUs below the limit, enough to restore pins; anything
	 * else asks vcp_host_fits, which names the limit */
	assert_int_equal(vcp_topology_from_nodeinfo(2, 1, 8193, 1, &h, &err),
			 0);
	assert_int_equal(h->n_cpus, 16384);
	assert_int_equal(h->max_cpus, 16386);
	assert_int_equal(h->too_wide, 16386);
	check_pkg(h, 1, 1, 1, "8193-16383", 8191, 8191);
	assert_int_equal(vcp_host_fits(h, &err), -E2BIG);
	assert_string_equal(
		err, "host has 16386 CPUs; vcpack supports at most 16384");
	free(err);
	err = NULL;
	vcp_host_free(h);
	h = NULL;
	/* past 2^20 CPUs not even that */
	assert_int_equal(vcp_topology_from_nodeinfo(65536, 65536, 65536, 1, &h,
						    &err),
			 -E2BIG);
	assert_string_equal(
		err,
		"host has 281474976710656 CPUs; vcpack supports at most 16384");
	free(err);
	err = NULL;
	/* 2^64: no overflow to a small count */
	assert_int_equal(vcp_topology_from_nodeinfo(65536, 65536, 65536, 65536,
						    &h, &err),
			 -E2BIG);
	free(err);
	assert_null(h);
}

static void test_caps_wide(void **state)
{
	struct vcp_host *h = NULL;
	char *err = NULL;

	assert_int_equal(
		vcp_topology_from_caps(
			CELL("'0'",
			     "<cpu id='0' socket_id='0' core_id='0'/><cpu id='8191' socket_id='1' core_id='0'/>"),
			&h, &err),
		0);
	assert_int_equal(h->n_cpus, 2);
	assert_int_equal(h->max_cpus, 8192);
	check_pkg(h, 1, 1, 0, "8191", 1, 1);
	assert_int_equal(vcp_host_fits(h, &err), 0);
	vcp_host_free(h);
	h = NULL;
	assert_int_equal(
		vcp_topology_from_caps(
			CELL("'0'",
			     "<cpu id='0' socket_id='0' core_id='0'/><cpu id='16399' socket_id='1' core_id='0'/>"),
			&h, &err),
		0);
	assert_int_equal(h->n_cpus, 1);
	assert_int_equal(h->max_cpus, 16400);
	assert_int_equal(vcp_host_fits(h, &err), -E2BIG);
	assert_string_equal(
		err, "host has 16400 CPUs; vcpack supports at most 16384");
	free(err);
	err = NULL;
	vcp_host_free(h);
	h = NULL;
	assert_int_equal(
		vcp_topology_from_caps(
			CELL("'0'",
			     "<cpu id='0' socket_id='0' core_id='0'/><cpu id='1048576' socket_id='1' core_id='0'/>"),
			&h, &err),
		-E2BIG);
	assert_null(h);
	assert_string_equal(
		err, "host has 1048577 CPUs; vcpack supports at most 16384");
	free(err);
}

/* ---- sysfs ---- */

static struct vcp_host *sysfs_case(const char *name)
{
	char root[512];
	struct vcp_host *h = NULL;
	char *err = NULL;

	snprintf(root, sizeof(root), "%s%s", SYSFS_DIR, name);
	assert_int_equal(vcp_topology_load(root, &h, &err), 0);
	assert_null(err);
	assert_non_null(h);
	return h;
}

static void test_sysfs_one_pkg(void **state)
{
	struct vcp_host *h = sysfs_case("one-pkg-nosmt");

	assert_int_equal(h->n_cpus, 4);
	assert_int_equal(h->n_packages, 1);
	assert_int_equal(h->n_nodes, 1);
	assert_int_equal(h->threads_per_core, 1);
	assert_int_equal(h->max_cpus, 4);
	check_pkg(h, 0, 0, 0, "0-3", 4, 4);
	check_cpu(h, 3, 0, 3, 0);
	assert_int_equal(cpu_of(h, 2)->die, 0);
	vcp_host_free(h);
}

static void test_sysfs_two_pkg_smt(void **state)
{
	struct vcp_host *h = sysfs_case("two-pkg-smt");

	assert_int_equal(h->n_cpus, 8);
	assert_int_equal(h->n_packages, 2);
	assert_int_equal(h->n_nodes, 1);
	assert_int_equal(h->threads_per_core, 2);
	check_pkg(h, 0, 0, 0, "0-1,4-5", 2, 4);
	check_pkg(h, 1, 1, 0, "2-3,6-7", 2, 4);
	check_cpu(h, 6, 1, 0, 0);
	vcp_host_free(h);
}

static void test_sysfs_offline(void **state)
{
	struct vcp_host *h = sysfs_case("two-pkg-offline");

	assert_int_equal(h->n_cpus, 6);
	assert_string_equal(fmt(&h->online), "0-2,4-6");
	assert_int_equal(h->max_cpus, 8);	/* from present: 0-7 */
	assert_int_equal(h->n_packages, 2);
	assert_int_equal(h->threads_per_core, 1);
	check_pkg(h, 0, 0, 0, "0-2", 3, 3);
	check_pkg(h, 1, 1, 0, "4-6", 3, 3);
	assert_int_equal(vcp_host_package_of(h, 3), -1);
	assert_int_equal(vcp_host_package_of(h, 7), -1);
	vcp_host_free(h);
}

static void test_sysfs_four_pkg(void **state)
{
	struct vcp_host *h = sysfs_case("four-pkg");

	assert_int_equal(h->n_cpus, 16);
	assert_int_equal(h->n_packages, 4);
	assert_int_equal(h->n_nodes, 4);
	assert_int_equal(h->threads_per_core, 2);
	check_pkg(h, 0, 0, 0, "0-1,8-9", 2, 4);
	check_pkg(h, 1, 1, 1, "2-3,10-11", 2, 4);
	check_pkg(h, 2, 2, 2, "4-5,12-13", 2, 4);
	check_pkg(h, 3, 3, 3, "6-7,14-15", 2, 4);
	check_cpu(h, 15, 3, 1, 3);
	vcp_host_free(h);
}

static void test_sysfs_two_node(void **state)
{
	struct vcp_host *h = sysfs_case("two-node");

	assert_int_equal(h->n_cpus, 8);
	assert_int_equal(h->n_packages, 2);
	assert_int_equal(h->n_nodes, 2);
	check_pkg(h, 0, 0, 0, "0-1,4-5", 2, 4);
	check_pkg(h, 1, 1, 1, "2-3,6-7", 2, 4);
	check_cpu(h, 2, 1, 0, 1);
	check_cpu(h, 7, 1, 1, 1);
	check_cpu(h, 4, 0, 0, 0);
	vcp_host_free(h);
}

/* A node's cpulist as long as a 16,384-CPU host's is read whole: the
 * CPUs at its end are on that node. */
static void test_sysfs_wide_node_list(void **state)
{
	struct vcp_host *h = sysfs_case("wide-node-list");

	assert_int_equal(h->n_cpus, 8);
	check_pkg(h, 1, 1, 1, "2-3,6-7", 2, 4);
	check_cpu(h, 2, 1, 0, 1);
	check_cpu(h, 7, 1, 1, 1);
	check_cpu(h, 4, 0, 0, 0);
	vcp_host_free(h);
}

static void sysfs_error(const char *name, int code, const char *msg)
{
	char root[512], want[1024];
	struct vcp_host *h = NULL;
	char *err = NULL;

	snprintf(root, sizeof(root), "%s%s", SYSFS_DIR, name);
	snprintf(want, sizeof(want), msg, root);
	assert_int_equal(vcp_topology_load(root, &h, &err), code);
	assert_null(h);
	assert_non_null(err);
	assert_string_equal(err, want);
	free(err);
}

static void test_sysfs_errors(void **state)
{
	sysfs_error("no-such-case", -ENOENT,
		    "Failed to read '%s/devices/system/cpu/online': No such file or directory");
	sysfs_error("bad-core-id", -EINVAL,
		    "'%s/devices/system/cpu/cpu1/topology/core_id' is not a number: 'abc'");
	sysfs_error("missing-package", -ENOENT,
		    "Failed to read '%s/devices/system/cpu/cpu1/topology/physical_package_id': No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps_two_socket_smt),
		cmocka_unit_test(test_caps_host_cpu),
		cmocka_unit_test(test_caps_offline),
		cmocka_unit_test(test_caps_one_socket_two_cells),
		cmocka_unit_test(test_caps_test_driver),
		cmocka_unit_test(test_caps_nodata),
		cmocka_unit_test(test_caps_errors),
		cmocka_unit_test(test_nodeinfo_smt),
		cmocka_unit_test(test_nodeinfo_nodes),
		cmocka_unit_test(test_nodeinfo_bad),
		cmocka_unit_test(test_nodeinfo_wide),
		cmocka_unit_test(test_caps_wide),
		cmocka_unit_test(test_sysfs_one_pkg),
		cmocka_unit_test(test_sysfs_two_pkg_smt),
		cmocka_unit_test(test_sysfs_offline),
		cmocka_unit_test(test_sysfs_four_pkg),
		cmocka_unit_test(test_sysfs_two_node),
		cmocka_unit_test(test_sysfs_wide_node_list),
		cmocka_unit_test(test_sysfs_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
