// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_esc.c - outside strings escaped for a terminal or a log (esc.c):
 * each class of byte (backslash, ESC, CR, LF, TAB, other C0, DEL), C1
 * characters U+0080..U+009F in UTF-8, bytes that are not valid UTF-8
 * (stray continuations, overlong forms, surrogates, past U+10FFFF, a
 * character cut by the string's end), printable UTF-8 kept, the length
 * and width of the escaped form, long strings, a cut buffer, the ring
 * of vcp_esc(), a message's backslashes kept single (vcp_esc_msg())
 * and the JSON filter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "esc.h"

/* @in escaped is @want, by every function that escapes. */
static void check(const char *in, const char *want)
{
	char *d = vcp_esc_dup(in), *mem = NULL, buf[256];
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);

	assert_non_null(d);
	assert_string_equal(d, want);
	assert_int_equal(vcp_esc_len(in), strlen(want));
	assert_string_equal(vcp_esc(in), want);
	assert_string_equal(vcp_esc_to(in, buf, sizeof(buf)), want);
	assert_true(vcp_esc_clean(in) == (strcmp(in, want) == 0));
	assert_non_null(f);
	vcp_esc_fputs(in, f);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(mem, want);
	free(mem);
	free(d);
}

/* @s is UTF-8 with no control character in it (C0, DEL, C1): what a
 * terminal shows as text. */
static void assert_printable(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = *p < 0x80		    ? 1 :
			   *p >= 0xc2 && *p <= 0xdf ? 2 :
			   *p >= 0xe0 && *p <= 0xef ? 3 :
			   *p >= 0xf0 && *p <= 0xf4 ? 4 :
						      0;

		assert_int_not_equal(n, 0);
		assert_true(n > 1 || (*p >= 0x20 && *p != 0x7f));
		assert_false(*p == 0xc2 && p[1] < 0xa0);
		for (size_t i = 1; i < n; i++)
			assert_true(p[i] >= 0x80 && p[i] <= 0xbf);
		p += n;
	}
}

static void test_plain(void **state)
{
	(void)state;
	check("", "");
	check("web-01", "web-01");
	check("a b ~!@#$%^&*()_+{}|:\"<>?`-=[];',./",
	      "a b ~!@#$%^&*()_+{}|:\"<>?`-=[];',./");
	assert_true(vcp_esc_clean("web-01"));
}

static void test_named(void **state)
{
	(void)state;
	check("a\\b", "a\\\\b");
	check("\\x1b", "\\\\x1b"); /* a name spelling an escape shows apart */
	check("a\x1b[2Jb", "a\\e[2Jb");
	check("a\rb", "a\\rb");
	check("a\nb", "a\\nb");
	check("a\tb", "a\\tb");
	check("\x1b]0;owned\x07", "\\e]0;owned\\x07");
}

static void test_c0_del(void **state)
{
	char in[2] = { 0 }, want[8];

	(void)state;
	for (int c = 1; c < 0x20; c++) {
		if (c == '\t' || c == '\n' || c == '\r' || c == 0x1b)
			continue;
		in[0] = (char)c;
		snprintf(want, sizeof(want), "\\x%02x", c);
		check(in, want);
	}
	check("del\x7f", "del\\x7f");
}

static void test_c1(void **state)
{
	char in[3] = { (char)0xc2, 0, 0 }, want[16];

	(void)state;
	for (int c = 0x80; c < 0xa0; c++) {
		in[1] = (char)c;
		snprintf(want, sizeof(want), "\\xc2\\x%02x", c);
		check(in, want);
	}
	check("csi\xc2\x9b"
	      "2J",
	      "csi\\xc2\\x9b2J");
	/* U+00A0 on is printable: kept */
	check("\xc2\xa0\xc3\xa9", "\xc2\xa0\xc3\xa9");
}

static void test_utf8_kept(void **state)
{
	(void)state;
	check("caf\xc3\xa9", "caf\xc3\xa9"); /* é */
	check("\xe2\x82\xac", "\xe2\x82\xac"); /* € */
	check("\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac");
	check("\xf0\x9f\x90\xa7", "\xf0\x9f\x90\xa7"); /* U+1F427 */
	check("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"); /* U+10FFFF */
	check("\xed\x9f\xbf", "\xed\x9f\xbf"); /* U+D7FF */
}

static void test_invalid_utf8(void **state)
{
	(void)state;
	check("\x9b"
	      "2J",
	      "\\x9b2J"); /* a raw 8-bit CSI */
	check("a\xff"
	      "b",
	      "a\\xffb");
	check("\x80", "\\x80"); /* a stray continuation */
	check("\xc0\xaf", "\\xc0\\xaf"); /* overlong '/' */
	check("\xc1\xbf", "\\xc1\\xbf");
	check("\xe0\x80\xaf", "\\xe0\\x80\\xaf"); /* overlong */
	check("\xed\xa0\x80", "\\xed\\xa0\\x80"); /* a surrogate */
	check("\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf");
	check("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* > U+10FFFF */
	check("\xf5\x80\x80\x80", "\\xf5\\x80\\x80\\x80");
	/* cut by the end, or by another character */
	check("x\xe2\x82", "x\\xe2\\x82");
	check("\xe2\x82"
	      "a",
	      "\\xe2\\x82a");
	check("\xc3", "\\xc3");
	check("\xc3\x1b", "\\xc3\\e");
}

/* Every byte value, in every position among others: printable after. */
static void test_every_byte(void **state)
{
	unsigned char in[4];
	char *d;

	(void)state;
	for (int a = 1; a < 256; a++) {
		for (int b = 1; b < 256; b += 7) {
			in[0] = (unsigned char)a;
			in[1] = (unsigned char)b;
			in[2] = 0xa9;
			in[3] = 0;
			d = vcp_esc_dup((const char *)in);
			assert_non_null(d);
			assert_printable(d);
			assert_int_equal(strlen(d),
					 vcp_esc_len((const char *)in));
			free(d);
		}
	}
}

static void test_long(void **state)
{
	size_t n = 100000;
	char *in = malloc(n + 1), *d;

	(void)state;
	assert_non_null(in);
	for (size_t i = 0; i < n; i++)
		in[i] = i % 2 ? 'a' : '\x1b';
	in[n] = '\0';
	d = vcp_esc_dup(in);
	assert_non_null(d);
	assert_int_equal(strlen(d), n / 2 * 3);
	assert_int_equal(vcp_esc_len(in), n / 2 * 3);
	assert_memory_equal(d, "\\ea\\ea", 6);
	assert_string_equal(d + strlen(d) - 3, "\\ea");
	/* the ring holds it whole too */
	assert_string_equal(vcp_esc(in), d);
	free(d);
	free(in);
}

static void test_cut(void **state)
{
	char buf[6];

	(void)state;
	/* never inside an escape or a UTF-8 character */
	assert_string_equal(vcp_esc_to("ab\x1b"
				       "cd",
				       buf, sizeof(buf)),
			    "ab\\ec");
	assert_string_equal(vcp_esc_to("abcd\x1b", buf, sizeof(buf)), "abcd");
	assert_string_equal(vcp_esc_to("abc\xe2\x82\xac", buf, sizeof(buf)),
			    "abc");
	assert_string_equal(vcp_esc_to("ab\x07", buf, sizeof(buf)), "ab");
	assert_string_equal(vcp_esc_to(NULL, buf, sizeof(buf)), "(null");
	assert_string_equal(vcp_esc(NULL), "(null)");
}

static void test_width(void **state)
{
	char *d;

	(void)state;
	/* a table lays the escaped form out: its columns are its bytes
	 * (ASCII), a kept UTF-8 character one column */
	d = vcp_esc_dup("vm\x1b[2J\r\xc2\x9b");
	assert_non_null(d);
	assert_string_equal(d, "vm\\e[2J\\r\\xc2\\x9b");
	assert_int_equal(vcp_esc_len("vm\x1b[2J\r\xc2\x9b"), 17);
	free(d);
}

/* Several in one printf's arguments, each its own; a clean string is
 * itself. */
static void test_ring(void **state)
{
	const char *s[VCP_ESC_RING];
	char in[VCP_ESC_RING][16], want[24];

	(void)state;
	for (int i = 0; i < VCP_ESC_RING; i++) {
		snprintf(in[i], sizeof(in[i]), "\t%d", i);
		s[i] = vcp_esc(in[i]);
	}
	for (int i = 0; i < VCP_ESC_RING; i++) {
		snprintf(want, sizeof(want), "\\t%d", i);
		assert_string_equal(s[i], want);
	}
	assert_ptr_equal(vcp_esc(in[0] + 1), in[0] + 1);
}

static void test_msg(void **state)
{
	const char *m = "x.json: \\u0000 in a string";

	(void)state;
	/* vcpack's own backslash stays; control characters as vcp_esc() */
	assert_ptr_equal(vcp_esc_msg(m), m);
	assert_string_equal(vcp_esc(m), "x.json: \\\\u0000 in a string");
	assert_string_equal(
		vcp_esc_msg("no domain 'a\x1b[2J\\b\r\n\xc2\x9b\xff'"),
		"no domain 'a\\e[2J\\b\\r\\n\\xc2\\x9b\\xff'");
	assert_string_equal(vcp_esc_msg(NULL), "(null)");
}

static void check_json(const char *in, const char *want)
{
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);

	assert_non_null(f);
	vcp_esc_json_fputs(in, f);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(mem, want);
	free(mem);
}

static void test_json(void **state)
{
	(void)state;
	check_json("{\"a\": \"x\\u001by\"}", "{\"a\": \"x\\u001by\"}");
	check_json("[\"del\x7f\"]", "[\"del\\u007f\"]");
	check_json("[\"csi\xc2\x9b"
		   "2J\"]",
		   "[\"csi\\u009b2J\"]");
	check_json("[\"\xc2\x80\xc2\x9f\xc2\xa0\"]",
		   "[\"\\u0080\\u009f\xc2\xa0\"]");
	check_json("[\"a\xff\x9b"
		   "b\"]",
		   "[\"a\\ufffd\\ufffdb\"]");
	check_json("[\"caf\xc3\xa9 \xf0\x9f\x90\xa7\"]",
		   "[\"caf\xc3\xa9 \xf0\x9f\x90\xa7\"]");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_named),
		cmocka_unit_test(test_c0_del),
		cmocka_unit_test(test_c1),
		cmocka_unit_test(test_utf8_kept),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_every_byte),
		cmocka_unit_test(test_long),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_msg),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
