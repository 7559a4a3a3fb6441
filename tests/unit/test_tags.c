// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_tags.c - vcp_tag_parse/format and vcp_saved_pins_parse/format:
 * accepted forms (unqualified as virDomainGetMetadata returns them,
 * namespaced, prefixed), every refusal's exact message, round trips, and
 * agreement with the RelaxNG schemas: every xml/examples file is parsed
 * and exactly the non-"-invalid" ones are accepted.
 */
#include <dirent.h>
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

#include "cpuset.h"
#include "tags.h"

#define EXAMPLES VCP_SRCDIR "/xml/examples"

static struct vcp_tag parse_ok(const char *xml)
{
	struct vcp_tag t = { 0 };
	char *err = NULL;

	assert_int_equal(vcp_tag_parse(xml, &t, &err), 0);
	assert_null(err);
	return t;
}

static void test_tag_forms(void **state)
{
	struct vcp_tag t;

	t = parse_ok("<consolidation priority=\"high\"/>");
	assert_true(t.has_priority);
	assert_int_equal(t.priority, VCP_PRIO_HIGH);
	assert_false(t.has_class);

	t = parse_ok("<consolidation xmlns=\"" VCP_TAG_NS "\" class='pack'/>");
	assert_false(t.has_priority);
	assert_true(t.has_class);
	assert_int_equal(t.class, VCP_CLASS_PACK);

	t = parse_ok("<vcpack:consolidation xmlns:vcpack=\"" VCP_TAG_NS
		     "\" priority=\"low\"/>");
	assert_int_equal(t.priority, VCP_PRIO_LOW);
	assert_false(t.has_class);

	t = parse_ok("<?xml version=\"1.0\"?>\n<x:consolidation xmlns:x=\""
		     VCP_TAG_NS "\" class=\"spread\" priority=\"normal\">\n"
		     "  <!-- a comment -->\n</x:consolidation>\n");
	assert_true(t.has_priority);
	assert_int_equal(t.priority, VCP_PRIO_NORMAL);
	assert_true(t.has_class);
	assert_int_equal(t.class, VCP_CLASS_SPREAD);

	t = parse_ok("  <consolidation class=\"balanced\"></consolidation>\n");
	assert_int_equal(t.class, VCP_CLASS_BALANCED);
}

static void tag_refused(const char *xml, const char *msg)
{
	struct vcp_tag t = {
		.has_priority = true, .priority = VCP_PRIO_NORMAL,
		.has_class = false, .class = VCP_CLASS_SPREAD,
	};
	char *err = NULL;

	assert_int_equal(vcp_tag_parse(xml, &t, &err), -EINVAL);
	assert_non_null(err);
	assert_string_equal(err, msg);
	/* untouched on failure */
	assert_true(t.has_priority);
	assert_int_equal(t.priority, VCP_PRIO_NORMAL);
	assert_false(t.has_class);
	free(err);
}

static void test_tag_errors(void **state)
{
	tag_refused("<consolidation priority=\"urgent\"/>",
		    "priority 'urgent' is not one of high, normal, low");
	tag_refused("<consolidation priority=\"High\"/>",
		    "priority 'High' is not one of high, normal, low");
	tag_refused("<consolidation priority=\"\"/>",
		    "priority '' is not one of high, normal, low");
	tag_refused("<consolidation class=\"packed\"/>",
		    "class 'packed' is not one of spread, balanced, pack, unmanaged");
	tag_refused("<consolidation priority=\"low\" colour=\"red\"/>",
		    "unknown attribute 'colour'");
	tag_refused("<v:consolidation xmlns:v=\"" VCP_TAG_NS
		    "\" v:priority=\"low\"/>",
		    "unknown attribute 'v:priority'");
	tag_refused("<foo/>", "unexpected element 'foo'");
	tag_refused("<consolidation priority=\"low\"/><foo/>",
		    "unexpected element 'foo'");
	tag_refused("<consolidation priority=\"low\"/>"
		    "<consolidation class=\"pack\"/>",
		    "duplicate element 'consolidation'");
	tag_refused("<consolidation priority=\"low\"><foo/></consolidation>",
		    "unexpected element 'foo' inside 'consolidation'");
	tag_refused("<consolidation priority=\"low\">x</consolidation>",
		    "unexpected text inside 'consolidation'");
	tag_refused("low <consolidation priority=\"low\"/>",
		    "unexpected text outside 'consolidation'");
	tag_refused("<consolidation/>",
		    "'consolidation' needs a priority or a class attribute");
	tag_refused("", "no element 'consolidation'");
	tag_refused("<!-- only a comment -->", "no element 'consolidation'");
	tag_refused("<consolidation xmlns=\"urn:vcpack:metadata:2\" "
		    "priority=\"low\"/>",
		    "wrong namespace 'urn:vcpack:metadata:2'");
	tag_refused("<c:consolidation xmlns:c=\"" VCP_STATE_NS
		    "\" priority=\"low\"/>",
		    "wrong namespace 'urn:vcpack:state:1'");
}

static void tag_malformed(const char *xml)
{
	struct vcp_tag t = { 0 };
	char *err = NULL;

	assert_int_equal(vcp_tag_parse(xml, &t, &err), -EINVAL);
	assert_non_null(err);
	assert_memory_equal(err, "not well-formed XML: ", 21);
	assert_true(strlen(err) > 21);
	assert_null(strchr(err, '\n'));
	assert_false(t.has_priority || t.has_class);
	free(err);
}

static void test_tag_malformed(void **state)
{
	tag_malformed("<consolidation priority=\"low\"");
	tag_malformed("<consolidation priority=low/>");
	tag_malformed("<consolidation priority=\"low\" priority=\"high\"/>");
	tag_malformed("<vcpack:consolidation priority=\"low\"/>");
	/* no DTD, no entities */
	tag_malformed("<!DOCTYPE c [<!ENTITY e \"low\">]>"
		      "<consolidation priority=\"&e;\"/>");
	tag_malformed("<consolidation priority=\"&e;\"/>");
}

static void test_tag_size(void **state)
{
	const char *head = "<consolidation priority=\"low\"/>";
	char *big = malloc(5001);
	struct vcp_tag t = { 0 };

	assert_non_null(big);
	memset(big, ' ', 5000);
	memcpy(big, head, strlen(head));
	big[5000] = '\0';
	tag_refused(big, "tag is 5000 bytes, over the 4096 limit");
	/* exactly the limit is fine */
	big[VCP_TAG_MAX_BYTES] = '\0';
	assert_int_equal(vcp_tag_parse(big, &t, NULL), 0);
	assert_int_equal(t.priority, VCP_PRIO_LOW);
	free(big);
	/* a NULL ret_err is allowed */
	assert_int_equal(vcp_tag_parse("<foo/>", &t, NULL), -EINVAL);
}

/* The whole domain XML, as the hook and (through virDomainGetXMLDesc)
 * vcpack and vcpackd read it: one function, one answer. */
#define DOM(meta)                                            \
	"<domain type='kvm'><name>vm1</name><metadata>" meta \
	"<o:x xmlns:o='urn:example:other'/></metadata></domain>"
#define TAG(attr) \
	"<vcpack:consolidation xmlns:vcpack='urn:vcpack:metadata:1' " attr "/>"

static void from_domain(const char *xml, int want, const char *msg)
{
	struct vcp_tag t;
	char *err = NULL;

	memset(&t, 0x5a, sizeof(t));
	assert_int_equal(vcp_tag_from_domain_xml(xml, &t, &err), want);
	if (msg) {
		assert_non_null(err);
		assert_string_equal(err, msg);
	} else {
		assert_null(err);
	}
	free(err);
}

static void test_tag_from_domain(void **state)
{
	struct vcp_tag t;

	assert_int_equal(vcp_tag_from_domain_xml(DOM(TAG("priority='low'")), &t,
						 NULL),
			 0);
	assert_true(t.has_priority);
	assert_int_equal(t.priority, VCP_PRIO_LOW);
	assert_int_equal(
		vcp_tag_from_domain_xml(
			"<domain><metadata xmlns:v='urn:vcpack:metadata:1'>"
			"<v:consolidation class='pack'/></metadata></domain>",
			&t, NULL),
		0);
	assert_true(t.has_class);
	assert_int_equal(t.class, VCP_CLASS_PACK);
	from_domain(DOM(""), -ENOENT, NULL);
	from_domain("<domain><name>vm1</name></domain>", -ENOENT, NULL);
	/* two elements: the hook refused, vcpack took the first */
	from_domain(DOM(TAG("priority='low'") TAG("priority='high'")), -EINVAL,
		    "duplicate element 'consolidation'");
	from_domain(
		DOM(TAG("priority='low'") "<consolidation xmlns='urn:vcpack:metadata:1' priority='low'/>"),
		-EINVAL, "duplicate element 'consolidation'");
	from_domain(
		DOM("<vcpack:consolidation xmlns:vcpack='urn:vcpack:metadata:1'"
		    " priority='low'><vcpack:consolidation priority='high'/>"
		    "</vcpack:consolidation>"),
		-EINVAL,
		"unexpected element 'consolidation' inside 'consolidation'");
	from_domain(DOM(TAG("priority='urgent'")), -EINVAL,
		    "priority 'urgent' is not one of high, normal, low");
	from_domain("<domain><metadata>", -EINVAL,
		    "the domain XML cannot be read, so neither can its tag");
}

/* A saved record against the VM it is for and the host it is on. */
static void test_pins_fit(void **state)
{
	struct vcp_cpuset sets[3];
	struct vcp_saved_pins s = { .n_vcpus = 2, .vcpu = sets };
	struct vcp_vm vm = { .name = "vm", .n_vcpus = 2 };
	struct vcp_host host = { 0 };
	char *err = NULL;

	assert_int_equal(vcp_cpuset_parse("0-15", &host.online), 0);
	assert_int_equal(vcp_cpuset_parse("0-3", &sets[0]), 0);
	assert_int_equal(vcp_cpuset_parse("8-15", &sets[1]), 0);
	assert_int_equal(vcp_cpuset_parse("0", &sets[2]), 0);
	assert_int_equal(vcp_saved_pins_fit(&s, &vm, &host, &err), 0);
	assert_null(err);

	assert_int_equal(vcp_cpuset_parse("15-16", &sets[1]), 0);
	assert_int_equal(vcp_saved_pins_fit(&s, &vm, &host, &err), -EINVAL);
	assert_string_equal(
		err,
		"vCPU 1's recorded CPUs 15-16 are not all online on this host (online: 0-15)");
	free(err);
	err = NULL;
	/* an offline CPU inside the host's range is no better */
	assert_int_equal(vcp_cpuset_parse("8-15", &sets[1]), 0);
	assert_int_equal(vcp_cpuset_parse("0-7,9-15", &host.online), 0);
	assert_int_equal(vcp_saved_pins_fit(&s, &vm, &host, &err), -EINVAL);
	assert_string_equal(
		err,
		"vCPU 1's recorded CPUs 8-15 are not all online on this host (online: 0-7,9-15)");
	free(err);
	err = NULL;
	assert_int_equal(vcp_cpuset_parse("0-15", &host.online), 0);

	s.has_emulator = true;
	assert_int_equal(vcp_cpuset_parse("16", &s.emulator), 0);
	assert_int_equal(vcp_saved_pins_fit(&s, &vm, &host, &err), -EINVAL);
	assert_string_equal(
		err,
		"the emulator's recorded CPUs 16 are not all online on this host (online: 0-15)");
	free(err);
	err = NULL;
	s.has_emulator = false;

	s.n_vcpus = 3;
	assert_int_equal(vcp_saved_pins_fit(&s, &vm, &host, &err), -EINVAL);
	assert_string_equal(err, "the record is for 3 vCPUs, the VM has 2");
	free(err);
	err = NULL;
	s.n_vcpus = 1;
	assert_int_equal(vcp_saved_pins_fit(&s, &vm, &host, &err), -EINVAL);
	assert_string_equal(err, "the record is for 1 vCPU, the VM has 2");
	free(err);
}

/* A recorded nodeset: only nodes the host has, only on a VM whose
 * memory mode lets libvirt change it live. */
static void test_pins_fit_memory(void **state)
{
	struct vcp_cpuset sets[1];
	struct vcp_saved_pins s = { .n_vcpus = 1,
				    .vcpu = sets,
				    .has_memory = true };
	struct vcp_vm vm = { .name = "vm",
			     .n_vcpus = 1,
			     .mem_mode = VCP_MEM_STRICT };
	struct vcp_cpu cpus[2] = { { .id = 0, .node = 0 },
				   { .id = 1, .node = 1 } };
	struct vcp_host host = { .cpus = cpus, .n_cpus = 2 };
	char *err = NULL;

	assert_int_equal(vcp_cpuset_parse("0-1", &host.online), 0);
	assert_int_equal(vcp_cpuset_parse("0-1", &sets[0]), 0);
	assert_int_equal(vcp_cpuset_parse("0-1", &s.mem_nodes), 0);
	assert_int_equal(vcp_saved_pins_fit(&s, &vm, &host, &err), 0);
	vm.mem_mode = VCP_MEM_RESTRICTIVE;
	assert_int_equal(vcp_saved_pins_fit(&s, &vm, &host, &err), 0);
	assert_null(err);

	assert_int_equal(vcp_cpuset_parse("1-3", &s.mem_nodes), 0);
	assert_int_equal(vcp_saved_pins_fit(&s, &vm, &host, &err), -EINVAL);
	assert_string_equal(
		err,
		"the recorded memory nodes 1-3 are not all on this host (nodes: 0-1)");
	free(err);
	err = NULL;

	assert_int_equal(vcp_cpuset_parse("1", &s.mem_nodes), 0);
	vm.mem_mode = VCP_MEM_PREFERRED;
	assert_int_equal(vcp_saved_pins_fit(&s, &vm, &host, &err), -EINVAL);
	assert_string_equal(
		err,
		"the record holds memory nodes, but the VM's memory mode is preferred, whose nodeset libvirt cannot change while it runs");
	free(err);
}

static void test_tag_format(void **state)
{
	struct vcp_tag t = { .has_class = true, .class = VCP_CLASS_PACK };
	char *s = vcp_tag_format(&t);

	assert_string_equal(s, "<consolidation class=\"pack\"/>");
	free(s);
	t = (struct vcp_tag){ .has_priority = true, .priority = VCP_PRIO_LOW };
	s = vcp_tag_format(&t);
	assert_string_equal(s, "<consolidation priority=\"low\"/>");
	free(s);
	t.has_class = true;
	t.class = VCP_CLASS_SPREAD;
	s = vcp_tag_format(&t);
	assert_string_equal(s,
		"<consolidation priority=\"low\" class=\"spread\"/>");
	free(s);

	t = (struct vcp_tag){ 0 };
	errno = 0;
	assert_null(vcp_tag_format(&t));
	assert_int_equal(errno, EINVAL);
	t = (struct vcp_tag){ .has_class = true, .class = VCP_CLASS__COUNT };
	assert_null(vcp_tag_format(&t));
}

/* Every combination of priority (or none) and class (or none). */
static void test_tag_roundtrip(void **state)
{
	for (int p = -1; p < VCP_PRIO__COUNT; p++) {
		for (int c = -1; c < VCP_CLASS__COUNT; c++) {
			struct vcp_tag t = {
				.has_priority = p >= 0,
				.priority = p >= 0 ? (enum vcp_priority)p : 0,
				.has_class = c >= 0,
				.class = c >= 0 ? (enum vcp_class)c : 0,
			};
			struct vcp_tag back = { 0 };
			char *s;

			if (p < 0 && c < 0)
				continue;
			s = vcp_tag_format(&t);
			assert_non_null(s);
			assert_int_equal(vcp_tag_parse(s, &back, NULL), 0);
			assert_int_equal(back.has_priority, t.has_priority);
			assert_int_equal(back.has_class, t.has_class);
			if (p >= 0)
				assert_int_equal(back.priority, p);
			if (c >= 0)
				assert_int_equal(back.class, c);
			free(s);
		}
	}
}

/* ---- saved pins ---- */

static const char *fmt(const struct vcp_cpuset *s)
{
	static char buf[256];

	assert_int_equal(vcp_cpuset_format(s, buf, sizeof(buf)), 0);
	return buf;
}

static void test_pins_parse(void **state)
{
	struct vcp_saved_pins s = { 0 };
	char *err = NULL;

	/* as libvirt 9.0 returns it: unqualified, reindented */
	assert_int_equal(vcp_saved_pins_parse("<original>\n  <vcpu id=\"0\" cpuset=\"0-3\"/>\n</original>",
					      &s, &err), 0);
	assert_null(err);
	assert_int_equal(s.n_vcpus, 1);
	assert_string_equal(fmt(&s.vcpu[0]), "0-3");
	assert_false(s.has_emulator);
	vcp_saved_pins_clear(&s);
	assert_null(s.vcpu);
	assert_int_equal(s.n_vcpus, 0);

	assert_int_equal(vcp_saved_pins_parse("<s:original xmlns:s=\"" VCP_STATE_NS "\" version=\"1\">"
					      "<s:vcpu id=\"0\" cpuset=\"0-7\"/>"
					      "<s:emulator cpuset=\"8,10-11\"/>"
					      "<vcpu id=\"1\" cpuset=\"2047\"/>"
					      "</s:original>", &s, &err), 0);
	assert_int_equal(s.n_vcpus, 2);
	assert_string_equal(fmt(&s.vcpu[0]), "0-7");
	assert_string_equal(fmt(&s.vcpu[1]), "2047");
	assert_true(s.has_emulator);
	assert_string_equal(fmt(&s.emulator), "8,10-11");
	vcp_saved_pins_clear(&s);
	vcp_saved_pins_clear(NULL);
}

static void pins_refused(const char *xml, const char *msg)
{
	struct vcp_saved_pins s = { .n_vcpus = 77 };
	char *err = NULL;

	assert_int_equal(vcp_saved_pins_parse(xml, &s, &err), -EINVAL);
	assert_non_null(err);
	assert_string_equal(err, msg);
	assert_int_equal(s.n_vcpus, 77);
	assert_null(s.vcpu);
	free(err);
}

#define V0 "<vcpu id=\"0\" cpuset=\"0-3\"/>"

static void test_pins_errors(void **state)
{
	pins_refused("<original>" V0 V0 "</original>", "duplicate vcpu id 0");
	pins_refused("<original>" V0 "<vcpu id=\"2\" cpuset=\"1\"/></original>",
		     "vcpu id 2 out of order (expected 1)");
	pins_refused("<original><vcpu id=\"1\" cpuset=\"1\"/>" V0 "</original>",
		     "vcpu id 1 out of order (expected 0)");
	pins_refused("<original><vcpu id=\"x\" cpuset=\"1\"/></original>",
		     "vcpu id 'x' is not a number");
	pins_refused("<original><vcpu id=\"-1\" cpuset=\"1\"/></original>",
		     "vcpu id '-1' is not a number");
	pins_refused("<original><vcpu id=\"0\" cpuset=\"0-3,\"/></original>",
		     "vcpu 0: bad cpuset '0-3,'");
	pins_refused("<original><vcpu id=\"0\" cpuset=\" 1\"/></original>",
		     "vcpu 0: bad cpuset ' 1'");
	pins_refused("<original><vcpu id=\"0\" cpuset=\"1-2-3\"/></original>",
		     "vcpu 0: bad cpuset '1-2-3'");
	pins_refused("<original><vcpu id=\"0\" cpuset=\"3-1\"/></original>",
		     "vcpu 0: bad cpuset '3-1'");
	pins_refused("<original><vcpu id=\"0\" cpuset=\"1,,2\"/></original>",
		     "vcpu 0: bad cpuset '1,,2'");
	pins_refused("<original><vcpu id=\"0\" cpuset=\"16384\"/></original>",
		     "vcpu 0: bad cpuset '16384'");
	pins_refused("<original><vcpu id=\"0\" cpuset=\"\"/></original>",
		     "vcpu 0: bad cpuset ''");
	pins_refused("<original><vcpu id=\"0\"/></original>",
		     "'vcpu' without a cpuset");
	pins_refused("<original><vcpu cpuset=\"1\"/></original>",
		     "'vcpu' without an id");
	pins_refused("<original><vcpu id=\"0\" cpuset=\"1\" pin=\"2\"/></original>",
		     "unknown attribute 'pin'");
	pins_refused("<original>" V0 "<emulator cpuset=\"x\"/></original>",
		     "emulator: bad cpuset 'x'");
	pins_refused("<original>" V0 "<emulator cpuset=\"1\"/><emulator cpuset=\"1\"/></original>",
		     "duplicate element 'emulator'");
	pins_refused(
		"<original>" V0
		"<memory nodeset=\"1\"/><memory nodeset=\"1\"/></original>",
		"duplicate element 'memory'");
	pins_refused("<original>" V0 "<memory nodeset=\"\"/></original>",
		     "memory: bad nodeset ''");
	pins_refused("<original>" V0 "<memory nodeset=\"0,x\"/></original>",
		     "memory: bad nodeset '0,x'");
	pins_refused("<original>" V0 "<memory/></original>",
		     "'memory' without a nodeset");
	pins_refused("<original>" V0
		     "<memory nodeset=\"0\" mode=\"strict\"/></original>",
		     "unknown attribute 'mode'");
	pins_refused("<original>" V0
		     "<memory nodeset=\"0\"><x/></memory></original>",
		     "unexpected element 'x' inside 'memory'");
	pins_refused("<original>" V0 "<iothread id=\"1\" cpuset=\"0\"/></original>",
		     "unexpected element 'iothread' inside 'original'");
	pins_refused("<original><vcpu id=\"0\" cpuset=\"1\"><x/></vcpu></original>",
		     "unexpected element 'x' inside 'vcpu'");
	pins_refused("<original>" V0 "junk</original>",
		     "unexpected text inside 'original'");
	pins_refused("<original><emulator cpuset=\"1\"/></original>",
		     "'original' records no vcpu");
	pins_refused("<original version=\"2\">" V0 "</original>",
		     "unsupported version '2' (vcpack reads 1)");
	pins_refused("<original when=\"now\">" V0 "</original>",
		     "unknown attribute 'when'");
	pins_refused("<original xmlns=\"" VCP_TAG_NS "\">" V0 "</original>",
		     "wrong namespace 'urn:vcpack:metadata:1'");
	pins_refused("<s:original xmlns:s=\"" VCP_STATE_NS "\" xmlns:o=\"urn:other\">"
		     "<o:vcpu id=\"0\" cpuset=\"1\"/></s:original>",
		     "wrong namespace 'urn:other'");
	pins_refused("<original>" V0 "</original><original>" V0 "</original>",
		     "duplicate element 'original'");
	pins_refused("<consolidation priority=\"low\"/>",
		     "unexpected element 'consolidation'");
	pins_refused("", "no element 'original'");
}

static void test_pins_size(void **state)
{
	size_t len = VCP_STATE_MAX_BYTES + 10;
	char *big = malloc(len + 1);
	const char *head = "<original>" V0 "</original>";
	struct vcp_saved_pins s = { 0 };

	assert_non_null(big);
	memset(big, '\n', len);
	memcpy(big, head, strlen(head));
	big[len] = '\0';
	pins_refused(big, "record is 1048586 bytes, over the 1048576 limit");
	big[VCP_STATE_MAX_BYTES] = '\0';
	assert_int_equal(vcp_saved_pins_parse(big, &s, NULL), 0);
	assert_int_equal(s.n_vcpus, 1);
	vcp_saved_pins_clear(&s);
	free(big);
}

/* A record of pins as wide as a 16,384-CPU host has is read back whole;
 * one past what vcpack reads back is not written (errno EFBIG). */
static void test_pins_wide(void **state)
{
	struct vcp_cpuset v[26];
	struct vcp_saved_pins s = { .n_vcpus = 4, .vcpu = v };
	struct vcp_saved_pins back = { 0 };
	char *x;

	for (unsigned int i = 0; i < 26; i++) {
		vcp_cpuset_zero(&v[i]);
		for (unsigned int c = i % 2; c < 16384; c += 2)
			vcp_cpuset_set(&v[i], c);
	}
	s.emulator = v[1];
	s.has_emulator = true;
	x = vcp_saved_pins_format(&s);
	assert_non_null(x);
	assert_true(strlen(x) > 200000);
	assert_int_equal(vcp_saved_pins_parse(x, &back, NULL), 0);
	assert_int_equal(back.n_vcpus, 4);
	for (unsigned int i = 0; i < 4; i++)
		assert_true(vcp_cpuset_equal(&back.vcpu[i], &v[i]));
	assert_true(vcp_cpuset_equal(&back.emulator, &v[1]));
	vcp_saved_pins_clear(&back);
	free(x);
	/* 26 such lists: over a MiB */
	s.n_vcpus = 26;
	errno = 0;
	assert_null(vcp_saved_pins_format(&s));
	assert_int_equal(errno, EFBIG);
}

static void test_pins_format(void **state)
{
	struct vcp_cpuset v[3];
	struct vcp_saved_pins s = { .n_vcpus = 3, .vcpu = v };
	struct vcp_saved_pins back = { 0 };
	char *x;

	assert_int_equal(vcp_cpuset_parse("0-7", &v[0]), 0);
	assert_int_equal(vcp_cpuset_parse("8-15", &v[1]), 0);
	assert_int_equal(vcp_cpuset_parse("1,3,5,2047", &v[2]), 0);
	assert_int_equal(vcp_cpuset_parse("0-15", &s.emulator), 0);
	s.has_emulator = true;
	x = vcp_saved_pins_format(&s);
	assert_string_equal(x,
		"<original version=\"1\">\n"
		"  <vcpu id=\"0\" cpuset=\"0-7\"/>\n"
		"  <vcpu id=\"1\" cpuset=\"8-15\"/>\n"
		"  <vcpu id=\"2\" cpuset=\"1,3,5,2047\"/>\n"
		"  <emulator cpuset=\"0-15\"/>\n"
		"</original>\n");
	assert_int_equal(vcp_saved_pins_parse(x, &back, NULL), 0);
	assert_int_equal(back.n_vcpus, 3);
	for (unsigned int i = 0; i < 3; i++)
		assert_true(vcp_cpuset_equal(&back.vcpu[i], &v[i]));
	assert_true(back.has_emulator);
	assert_true(vcp_cpuset_equal(&back.emulator, &s.emulator));
	vcp_saved_pins_clear(&back);
	free(x);

	/* the memory nodeset goes last and comes back */
	s.has_memory = true;
	assert_int_equal(vcp_cpuset_parse("0,2-3", &s.mem_nodes), 0);
	x = vcp_saved_pins_format(&s);
	assert_non_null(strstr(x, "  <emulator cpuset=\"0-15\"/>\n"
				  "  <memory nodeset=\"0,2-3\"/>\n"
				  "</original>\n"));
	assert_int_equal(vcp_saved_pins_parse(x, &back, NULL), 0);
	assert_true(back.has_memory);
	assert_true(vcp_cpuset_equal(&back.mem_nodes, &s.mem_nodes));
	vcp_saved_pins_clear(&back);
	free(x);
	s.has_memory = false;

	s.has_emulator = false;
	s.n_vcpus = 1;
	x = vcp_saved_pins_format(&s);
	assert_string_equal(x, "<original version=\"1\">\n"
			       "  <vcpu id=\"0\" cpuset=\"0-7\"/>\n"
			       "</original>\n");
	free(x);
}

/* ---- parser and schema agree on xml/examples ---- */

/* The message each *-invalid.xml example must get. */
static const struct {
	const char *file;
	const char *msg;
} invalid_examples[] = {
	{ "child-element-invalid.xml",
	  "unexpected element 'foo' inside 'consolidation'" },
	{ "class-bad-value-invalid.xml",
	  "class 'packed' is not one of spread, balanced, pack, unmanaged" },
	{ "namespaced-attribute-invalid.xml",
	  "unknown attribute 'vcpack:priority'" },
	{ "no-attributes-invalid.xml",
	  "'consolidation' needs a priority or a class attribute" },
	{ "other-element-invalid.xml", "unexpected element 'policy'" },
	{ "padded-value-invalid.xml",
	  "priority ' low' is not one of high, normal, low" },
	{ "priority-bad-value-invalid.xml",
	  "priority 'urgent' is not one of high, normal, low" },
	{ "host-bad-mode-invalid.xml",
	  "mode 'turbo' is not one of pin, kernel, scx" },
	{ "host-no-level-invalid.xml", "'host' needs mode, level and at" },
	{ "host-bad-time-invalid.xml", "at '-5' is not a time in seconds" },
	{ "host-child-invalid.xml", "unexpected element 'vm' inside 'host'" },
	{ "state-bad-cpuset-invalid.xml", "vcpu 0: bad cpuset '0-3,'" },
	{ "state-memory-bad-nodeset-invalid.xml", "memory: bad nodeset '0-'" },
	{ "state-no-vcpu-invalid.xml", "'original' records no vcpu" },
	{ "state-unknown-element-invalid.xml",
	  "unexpected element 'iothread' inside 'original'" },
	{ "state-version-2-invalid.xml",
	  "unsupported version '2' (vcpack reads 1)" },
	{ "state-wrong-namespace-invalid.xml",
	  "wrong namespace 'urn:vcpack:metadata:1'" },
	{ "text-content-invalid.xml",
	  "unexpected text inside 'consolidation'" },
	{ "unknown-attribute-invalid.xml", "unknown attribute 'colour'" },
	{ "wrong-namespace-invalid.xml",
	  "wrong namespace 'urn:vcpack:metadata:2'" },
};

#define N_INVALID (sizeof(invalid_examples) / sizeof(invalid_examples[0]))

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && strcmp(s + a - b, tail) == 0;
}

/* Parse one example with the parser its name selects; 0 or -errno. */
static int parse_example(const char *name, const char *xml, char **err)
{
	struct vcp_saved_pins s = { 0 };
	struct vcp_host_rec h;
	struct vcp_tag t;
	int r;

	if (strncmp(name, "host-", 5) == 0)
		return vcp_host_rec_parse(xml, &h, err);
	if (strncmp(name, "state-", 6) != 0)
		return vcp_tag_parse(xml, &t, err);
	r = vcp_saved_pins_parse(xml, &s, err);
	vcp_saved_pins_clear(&s);
	return r;
}

static void check_example(const char *name, bool *seen)
{
	char path[1024], *xml, *err = NULL;
	bool invalid = ends_with(name, "-invalid.xml");
	size_t i;
	int r;

	snprintf(path, sizeof(path), "%s/%s", EXAMPLES, name);
	xml = t_slurp_must(path);
	r = parse_example(name, xml, &err);
	free(xml);
	if (!invalid) {
		if (r != 0)
			fail_msg("%s: refused: %s", name, err ? err : "?");
		return;
	}
	if (r == 0)
		fail_msg("%s: accepted but must be refused", name);
	for (i = 0; i < N_INVALID; i++)
		if (strcmp(invalid_examples[i].file, name) == 0)
			break;
	if (i == N_INVALID)
		fail_msg("%s: no expected message in invalid_examples[]", name);
	assert_string_equal(err, invalid_examples[i].msg);
	seen[i] = true;
	free(err);
}

static void test_examples(void **state)
{
	bool seen[N_INVALID] = { false };
	DIR *d = opendir(EXAMPLES);
	struct dirent *e;
	unsigned int n_valid = 0, n_invalid = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (!ends_with(e->d_name, ".xml"))
			continue;
		check_example(e->d_name, seen);
		if (ends_with(e->d_name, "-invalid.xml"))
			n_invalid++;
		else
			n_valid++;
	}
	closedir(d);
	for (size_t i = 0; i < N_INVALID; i++)
		if (!seen[i])
			fail_msg("%s: listed but missing from %s",
				 invalid_examples[i].file, EXAMPLES);
	assert_int_equal(n_invalid, N_INVALID);
	assert_true(n_valid >= 10);
}

static void test_host_rec(void **state)
{
	struct vcp_host_rec h = { VCP_MODE_KERNEL, 2, 1796280062 }, back;
	char *xml = vcp_host_rec_format(&h), *err = NULL;

	assert_string_equal(xml, "<host mode=\"kernel\" level=\"2\" at=\"1796280062\"/>");
	/* as libvirt returns it: unqualified */
	assert_int_equal(vcp_host_rec_parse(xml, &back, &err), 0);
	assert_int_equal(back.mode, VCP_MODE_KERNEL);
	assert_int_equal(back.level, 2);
	assert_true(back.at == 1796280062);
	free(xml);
	assert_int_equal(vcp_host_rec_parse("<host mode=\"pin\" level=\"3\" at=\"1\"/>",
					    &back, &err), -EINVAL);
	assert_string_equal(err, "level '3' is not one of 0, 1, 2");
	free(err);
	h.level = 5;
	assert_null(vcp_host_rec_format(&h));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tag_forms),
		cmocka_unit_test(test_tag_errors),
		cmocka_unit_test(test_tag_malformed),
		cmocka_unit_test(test_tag_size),
		cmocka_unit_test(test_tag_from_domain),
		cmocka_unit_test(test_tag_format),
		cmocka_unit_test(test_pins_fit),
		cmocka_unit_test(test_pins_fit_memory),
		cmocka_unit_test(test_tag_roundtrip),
		cmocka_unit_test(test_pins_parse),
		cmocka_unit_test(test_pins_errors),
		cmocka_unit_test(test_pins_size),
		cmocka_unit_test(test_pins_format),
		cmocka_unit_test(test_pins_wide),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_host_rec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
