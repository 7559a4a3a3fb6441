// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_render.c - names with control characters in the tables
 * (render.c): shown escaped (esc.h), whole with --wide and cut to the
 * column on their escaped form otherwise, never alike for two
 * different names (a control character and its spelling out), and the
 * columns after them aligned on the escaped width, never cut inside an
 * escape; an action's libvirt message escaped too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render.h"

/* No byte below 0x20 (newline aside) or DEL in @s. */
static void assert_no_ctl(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		assert_true((*p >= 0x20 && *p != 0x7f) || *p == '\n');
}

static void test_names_wide(void **state)
{
	struct vcp_names nm;

	(void)state;
	vcp_names_init(&nm, VCP_RENDER_NAME_W, true);
	vcp_names_add(&nm, "a\x1b[2Jb");
	assert_string_equal(vcp_render_cut(&nm, "a\x1b[2Jb"), "a\\e[2Jb");
	assert_string_equal(vcp_render_cut(&nm, "plain"), "plain");
	vcp_names_clear(&nm);
}

/* A cut keeps each escape whole, as it keeps UTF-8 characters: head
 * and tail end before and start after "\\x07" and "\\x1b", not in them. */
static void test_cut_whole_escapes(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(
		vcp_render_shorten("abcdefg\\x07XYZ-long-name\\x1bendxy", 20,
				   buf, sizeof(buf)),
		"abcdefg...endxy");
	/* an escaped backslash then an 'e': no "\\e" unit across them */
	assert_string_equal(vcp_render_shorten("abcdefg\\\\e-long-name-of-it",
					       20, buf, sizeof(buf)),
			    "abcdefg\\\\...me-of-it");
	/* the names table cuts names so */
	{
		struct vcp_names nm;
		const char *c;

		vcp_names_init(&nm, VCP_RENDER_NAME_W, false);
		c = vcp_render_cut(&nm, "abcdefg\x07XYZ-long-name\x1b"
					"endxy");
		assert_string_equal(c, "abcdefg...e\\eendxy");
		vcp_names_clear(&nm);
	}
}

static void test_names_cut(void **state)
{
	const char *long_name =
		"vm\x1b]0;PWNED\x07-of-the-accounting-department";
	struct vcp_names nm;
	const char *s;

	(void)state;
	vcp_names_init(&nm, VCP_RENDER_NAME_W, false);
	vcp_names_add(&nm, long_name);
	vcp_names_add(&nm, "a\tb");
	vcp_names_add(&nm, "a\\tb");
	s = vcp_render_cut(&nm, long_name);
	assert_no_ctl(s);
	assert_true(strlen(s) <= VCP_RENDER_NAME_W);
	assert_memory_equal(s, "vm\\e]0;PW", 9);
	/* a TAB and a name that spells "\t" show apart */
	assert_string_equal(vcp_render_cut(&nm, "a\tb"), "a\\tb");
	assert_string_equal(vcp_render_cut(&nm, "a\\tb"), "a\\\\tb");
	vcp_names_clear(&nm);
}

/* The column of "untouched" (CLASS) in each line of @text. */
static void assert_class_column(const char *text, size_t want)
{
	size_t lines = 0;

	for (const char *l = text; *l; lines++) {
		const char *nl = strchr(l, '\n');
		const char *c = strstr(l, lines ? "untouched" : "CLASS");

		assert_non_null(c);
		assert_true(!nl || c < nl);
		assert_int_equal((size_t)(c - l), want);
		l = nl ? nl + 1 : l + strlen(l);
	}
	assert_int_equal(lines, 3);
}

static void vms_text(bool wide, char **ret)
{
	struct vcp_vm vms[2] = {
		{ .name = "plain", .delay = -1 },
		{ .name = "x\x1b[2J\r\xc2\x9by", .delay = -1 },
	};
	struct vcp_host host = { 0 };
	struct vcp_policy pol = { 0 };
	size_t len = 0;
	FILE *f = open_memstream(ret, &len);

	assert_non_null(f);
	vcp_render_vms_fit(f, &host, vms, 2, &pol, wide);
	assert_int_equal(fclose(f), 0);
}

static void test_vms_table(void **state)
{
	char *text = NULL;

	(void)state;
	vms_text(false, &text);
	assert_no_ctl(text);
	assert_non_null(strstr(text, "  x\\e[2J\\r\\xc2\\x9by "));
	assert_class_column(text, 2 + VCP_RENDER_NAME_W + 1);
	free(text);
	vms_text(true, &text);
	assert_no_ctl(text);
	assert_class_column(text, 2 + VCP_RENDER_NAME_W + 1);
	free(text);
}

static void test_vms_table_wide_long(void **state)
{
	struct vcp_vm vms[1] = {
		{ .name = "long\x1b[2J\x1b[2J\x1b[2J\x1b[2J\x1b[2J-name",
		  .delay = -1 },
	};
	struct vcp_host host = { 0 };
	struct vcp_policy pol = { 0 };
	char *text = NULL;
	size_t len = 0,
	       w = strlen("long") + 5 * strlen("\\e[2J") + strlen("-name");
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	vcp_render_vms_fit(f, &host, vms, 1, &pol, true);
	assert_int_equal(fclose(f), 0);
	assert_no_ctl(text);
	/* the column as wide as the escaped name */
	assert_int_equal(strstr(text, "CLASS") - text, 2 + w + 1);
	assert_int_equal(strstr(strchr(text, '\n'), "untouched") -
				 strchr(text, '\n') - 1,
			 2 + w + 1);
	free(text);
}

static void test_action_message(void **state)
{
	struct vcp_cpuset pins[1];
	struct vcp_vm vms[1] = {
		{ .name = "v\x1b"
			  "1",
		  .n_vcpus = 1,
		  .vcpu_pins = pins,
		  .delay = -1 },
	};
	struct vcp_action a = { .kind = VCP_ACT_PIN_VCPU, .vm = 0 };
	struct vcp_actions acts = { .a = &a, .n = 1 };
	struct vcp_outcome_entry e = {
		.outcome = VCP_FAILED,
		.msg = "Failed to pin vCPU 0 of 'v\x1b"
		       "1': no\r\x9b",
	};
	struct vcp_apply_result res = { .e = &e, .n = 1 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	memset(pins, 0, sizeof(pins));
	assert_non_null(f);
	vcp_render_actions_fit(f, vms, &acts, &res, true);
	assert_int_equal(fclose(f), 0);
	assert_no_ctl(text);
	assert_non_null(strstr(text, " v\\e1 "));
	assert_non_null(strstr(text, "of 'v\\e1': no\\r\\x9b"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_wide),
		cmocka_unit_test(test_names_cut),
		cmocka_unit_test(test_cut_whole_escapes),
		cmocka_unit_test(test_vms_table),
		cmocka_unit_test(test_vms_table_wide_long),
		cmocka_unit_test(test_action_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
