// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_placers.c - placers.c: placement='auto' and numatune from domain
 * XML, numad and tuned found under fixture roots (tests/data/placers),
 * and the status lines that say them.
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

#include "placers.h"

#define DATA VCP_SRCDIR "/tests/data/placers/"

static void test_domxml(void **state)
{
	bool aut = true, numa = true;

	assert_int_equal(vcp_domxml_placement(
		"<domain type='kvm'><name>a</name><vcpu placement='auto'>4</vcpu></domain>",
		&aut, &numa), 0);
	assert_true(aut);
	assert_false(numa);
	assert_int_equal(vcp_domxml_placement(
		"<domain type='kvm'><name>b</name><vcpu placement='static' cpuset='0-3'>4</vcpu>"
		"<numatune><memory mode='strict' placement='auto'/></numatune></domain>",
		&aut, &numa), 0);
	assert_false(aut);
	assert_true(numa);
	assert_int_equal(vcp_domxml_placement(
		"<domain><vcpu>2</vcpu><cputune><vcpupin vcpu='0' cpuset='1'/></cputune></domain>",
		&aut, &numa), 0);
	assert_false(aut);
	assert_false(numa);
	aut = numa = true;
	assert_int_equal(vcp_domxml_placement("<network/>", &aut, &numa), -EINVAL);
	assert_int_equal(vcp_domxml_placement("<domain>", &aut, &numa), -EINVAL);
	assert_int_equal(vcp_domxml_placement(NULL, &aut, &numa), -EINVAL);
	assert_true(aut && numa);	/* untouched on failure */
}

/* <numatune><memory>: mode (strict when absent), nodeset, placement. */
/* A domain XML that pins the VM itself: which pin, or none. */
static void test_own_pins(void **state)
{
	const char *what = "x";

	assert_int_equal(vcp_domxml_own_pins(
		"<domain><vcpu>2</vcpu><cputune><vcpupin vcpu='0' cpuset='1'/></cputune></domain>",
		&what), 1);
	assert_string_equal(what, "vcpupin");
	assert_int_equal(vcp_domxml_own_pins(
		"<domain><cputune><shares>1024</shares><emulatorpin cpuset='1-2'/></cputune></domain>",
		&what), 1);
	assert_string_equal(what, "emulatorpin");
	assert_int_equal(vcp_domxml_own_pins(
		"<domain><vcpu placement='static' cpuset='3-4'>2</vcpu></domain>",
		&what), 1);
	assert_string_equal(what, "vcpu cpuset");
	/* shares, period, a NUMA placement: no pin */
	assert_int_equal(vcp_domxml_own_pins(
		"<domain><vcpu placement='auto'>2</vcpu><cputune><shares>10</shares></cputune><numatune><memory nodeset='0'/></numatune></domain>",
		&what), 0);
	assert_null(what);
	what = "kept";
	assert_int_equal(vcp_domxml_own_pins("<vm/>", &what), -EINVAL);
	assert_int_equal(vcp_domxml_own_pins("<domain>", &what), -EINVAL);
	assert_int_equal(vcp_domxml_own_pins(NULL, &what), -EINVAL);
	assert_string_equal(what, "kept");
}

static void test_numatune(void **state)
{
	enum vcp_mem_mode m = VCP_MEM_INTERLEAVE;
	struct vcp_cpuset n, want;
	bool aut = true;

	assert_int_equal(vcp_domxml_numatune("<domain><vcpu>2</vcpu></domain>",
					     &m, &n, &aut),
			 0);
	assert_int_equal(m, VCP_MEM_NONE);
	assert_true(vcp_cpuset_empty(&n));
	assert_false(aut);
	assert_int_equal(
		vcp_domxml_numatune(
			"<domain><numatune><memory nodeset='0-1'/></numatune></domain>",
			&m, &n, &aut),
		0);
	assert_int_equal(m, VCP_MEM_STRICT);
	assert_int_equal(vcp_cpuset_parse("0-1", &want), 0);
	assert_true(vcp_cpuset_equal(&n, &want));
	assert_int_equal(
		vcp_domxml_numatune(
			"<domain><numatune><memory mode='restrictive' nodeset='1'/>"
			"<memnode cellid='0' mode='strict' nodeset='0'/></numatune></domain>",
			&m, &n, &aut),
		0);
	assert_int_equal(m, VCP_MEM_RESTRICTIVE);
	assert_int_equal(
		vcp_domxml_numatune(
			"<domain><numatune><memory mode='interleave' placement='auto'/>"
			"</numatune></domain>",
			&m, &n, &aut),
		0);
	assert_int_equal(m, VCP_MEM_INTERLEAVE);
	assert_true(aut);
	assert_true(vcp_cpuset_empty(&n));
	assert_int_equal(
		vcp_domxml_numatune(
			"<domain><numatune><memory mode='preferred' nodeset='0'/>"
			"</numatune></domain>",
			&m, &n, &aut),
		0);
	assert_int_equal(m, VCP_MEM_PREFERRED);
	assert_string_equal(vcp_mem_mode_name(m), "preferred");
	/* untouched on failure */
	assert_int_equal(
		vcp_domxml_numatune(
			"<domain><numatune><memory mode='loose' nodeset='0'/>"
			"</numatune></domain>",
			&m, &n, &aut),
		-EINVAL);
	assert_int_equal(
		vcp_domxml_numatune(
			"<domain><numatune><memory nodeset='x'/></numatune></domain>",
			&m, &n, &aut),
		-EINVAL);
	assert_int_equal(vcp_domxml_numatune("<network/>", &m, &n, &aut),
			 -EINVAL);
	assert_int_equal(m, VCP_MEM_PREFERRED);
	assert_false(aut);
}

static void test_detect(void **state)
{
	struct vcp_placers p;

	vcp_placers_detect(DATA "numad-tuned", &p);
	assert_true(p.checked);
	assert_int_equal(p.numad_pid, 77);
	assert_string_equal(p.tuned_profile, "virtual-host");
	vcp_placers_detect(DATA "comm-only", &p);
	assert_int_equal(p.numad_pid, 90);
	assert_string_equal(p.tuned_profile, "");
	vcp_placers_detect(DATA "none", &p);
	assert_int_equal(p.numad_pid, 0);
	assert_string_equal(p.tuned_profile, "");
	vcp_placers_detect(NULL, &p);
	assert_false(p.checked);
}

static char *text_of(const struct vcp_placers *p, const struct vcp_vm *vms,
		     size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	vcp_placers_text(f, p, vms, n);
	fclose(f);
	return buf;
}

static void test_lines(void **state)
{
	struct vcp_vm vms[3] = {
		{ .name = "a", .placement_auto = true },
		{ .name = "b" },
		{ .name = "c", .numatune = true },
	};
	struct vcp_placers p;
	struct json_object *o;
	char *t;

	vcp_placers_detect(DATA "numad-tuned", &p);
	t = text_of(&p, vms, 3);
	assert_string_equal(
		t,
		"numad:  running (pid 77): it re-places VMs too; vcpack's pins override its CPU choices, so stop numad where vcpack manages the host (the two would move the same threads)\n"
		"tuned:  active profile 'virtual-host'\n"
		"numa:   2 VMs with placement='auto' or numatune (libvirt/numad place them; vcpack's pins override the CPU part): 'a', 'c'\n");
	free(t);
	o = vcp_placers_json(&p, vms, 3);
	assert_string_equal(json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PLAIN),
		"{\"checked\":true,\"numad_pid\":77,\"tuned_profile\":\"virtual-host\",\"numa_vms\":[\"a\",\"c\"]}");
	json_object_put(o);
	vcp_placers_detect(DATA "none", &p);
	t = text_of(&p, vms + 1, 1);
	assert_string_equal(t, "numad:  not running\ntuned:  no active profile\n"
			    "numa:   no VM asks for placement='auto' or numatune\n");
	free(t);
}

/* The one line for vcpackd's log and the plan: each placer found, the
 * VMs capped at 8 names; "" when none. */
static void test_say(void **state)
{
	struct vcp_vm vms[10] = { { .name = "a", .placement_auto = true },
				  { .name = "b" } };
	struct vcp_placers p;
	char *t;

	vcp_placers_detect(DATA "numad-tuned", &p);
	t = vcp_placers_say(&p, vms, 2);
	assert_string_equal(
		t,
		"other placers: numad running (pid 77): it re-places VMs too; vcpack's pins override its CPU choices, so stop numad where vcpack manages the host (the two would move the same threads). "
		"tuned profile 'virtual-host' active: the plan does not take it into account. "
		"1 VM with placement='auto' or numatune (libvirt/numad place them; vcpack's pins override the CPU part): 'a'");
	free(t);
	vcp_placers_detect(DATA "none", &p);
	t = vcp_placers_say(&p, vms + 1, 1);
	assert_string_equal(t, "");
	free(t);
	for (size_t i = 0; i < 10; i++)
		vms[i] = (struct vcp_vm){ .name = "v", .numatune = i != 1 };
	vms[8].name = "eighth";
	vms[9].name = "ninth";
	vcp_placers_detect(NULL, &p); /* not this machine: VMs only */
	t = vcp_placers_say(&p, vms, 10);
	assert_string_equal(
		t,
		"other placers: 9 VMs with placement='auto' or numatune (libvirt/numad place them; vcpack's pins override the CPU part): "
		"'v', 'v', 'v', 'v', 'v', 'v', 'v', 'eighth', ...");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_domxml), cmocka_unit_test(test_numatune),
		cmocka_unit_test(test_own_pins),
		cmocka_unit_test(test_detect), cmocka_unit_test(test_lines),
		cmocka_unit_test(test_say),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
