// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_jsonstrict.c - the strict JSON check of the files people write:
 * RFC 8259 accepted, everything json-c would also take refused with its
 * line and reason, duplicate keys named with their path.
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

#include "jsonstrict.h"

static void accepted(const char *text)
{
	char *err = NULL;
	int r = vcp_json_strict_check(text, strlen(text), "f.json", &err);

	if (r)
		fail_msg("refused %s: %s", text, err ? err : "(no message)");
	assert_null(err);
}

static void refused(const char *text, size_t len, const char *msg)
{
	char *err = NULL;
	int r = vcp_json_strict_check(text, len, "f.json", &err);

	if (r != -EINVAL)
		fail_msg("accepted (%d): %s", r, text);
	assert_non_null(err);
	if (strcmp(err, msg))
		fail_msg("for %s\n got: %s\nwant: %s", text, err, msg);
	free(err);
}

#define REFUSED(text, msg) refused(text, strlen(text), msg)

static void test_accepts_json(void **state)
{
	accepted("{}");
	accepted(" [ ] ");
	accepted(
		"{\"a\": [1, -0, 0.5, 1e5, -2.5E-3, true, false, null, \"x\"]}");
	accepted("{\"a\": {\"b\": {}}, \"b\": {\"a\": 1}}");
	accepted(
		"{\"s\": \"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ud83d\\ude00\"}");
	accepted("\n{\r\n\t\"level\" : 1\n}\n");
	/* the same key in different objects is no duplicate */
	accepted("[{\"a\": 1}, {\"a\": 2}]");
}

static void test_refuses_extensions(void **state)
{
	REFUSED("{'level': 1}",
		"f.json: not valid JSON at line 1: single quotes are not JSON (use \")");
	REFUSED("{\"level\": 'auto'}",
		"f.json: not valid JSON at line 1: single quotes are not JSON (use \")");
	REFUSED("{\"level\": 1,}",
		"f.json: not valid JSON at line 1: trailing comma");
	REFUSED("[1, 2,\n]",
		"f.json: not valid JSON at line 1: trailing comma");
	REFUSED("/* c */ {}",
		"f.json: not valid JSON at line 1: comments are not JSON");
	REFUSED("{\"level\": 1 /* c */}",
		"f.json: not valid JSON at line 1: comments are not JSON");
	REFUSED("{\n\"level\": 1, // c\n\"headroom\": 0}",
		"f.json: not valid JSON at line 2: comments are not JSON");
	REFUSED("{} // c",
		"f.json: not valid JSON at line 1: comments are not JSON");
	REFUSED("{} x",
		"f.json: not valid JSON at line 1: unexpected text after the value");
	REFUSED("{}{}",
		"f.json: not valid JSON at line 1: unexpected text after the value");
	refused("{}\0{}", 5, "f.json: not valid JSON at line 1: NUL byte");
	refused("{\"a\": \"x\0\"}", 10,
		"f.json: not valid JSON at line 1: control character in a string (escape it)");
	REFUSED("{\"a\": NaN}",
		"f.json: not valid JSON at line 1: unexpected character");
	REFUSED("{\"a\": Infinity}",
		"f.json: not valid JSON at line 1: unexpected character");
	REFUSED("{\"a\": 01}",
		"f.json: not valid JSON at line 1: a number may not start with 0");
	REFUSED("{\"a\": 1.}",
		"f.json: not valid JSON at line 1: invalid number (digits must follow '.')");
	REFUSED("{\"a\": .5}",
		"f.json: not valid JSON at line 1: unexpected character");
	REFUSED("{\"a\": +1}",
		"f.json: not valid JSON at line 1: unexpected character");
	REFUSED("{\"a\": 1e}",
		"f.json: not valid JSON at line 1: invalid number (exponent without digits)");
	REFUSED("{\"a\": TRUE}",
		"f.json: not valid JSON at line 1: unexpected character");
	REFUSED("{\"a\": nul}",
		"f.json: not valid JSON at line 1: unexpected word (only true, false and null)");
	REFUSED("{\"a\": \"\t\"}",
		"f.json: not valid JSON at line 1: control character in a string (escape it)");
	REFUSED("{\"a\": \"\\x\"}",
		"f.json: not valid JSON at line 1: invalid escape in a string");
	REFUSED("{\"a\": \"\\u12\"}",
		"f.json: not valid JSON at line 1: \\u needs four hex digits");
	REFUSED("{a: 1}",
		"f.json: not valid JSON at line 1: a key (a string in \") expected");
	REFUSED("{\"a\" 1}",
		"f.json: not valid JSON at line 1: ':' expected after a key");
	REFUSED("{\"a\": 1 \"b\": 2}",
		"f.json: not valid JSON at line 1: ',' or '}' expected");
	REFUSED("", "f.json: not valid JSON at line 1: unexpected end of text");
	REFUSED("{\"a\": \"x",
		"f.json: not valid JSON at line 1: unterminated string");
	REFUSED("[1,\n",
		"f.json: not valid JSON at line 2: unexpected end of text");
	REFUSED("\xef\xbb\xbf{}",
		"f.json: not valid JSON at line 1: unexpected character");
}

static void test_depth(void **state)
{
	char deep[2 * VCP_JSON_MAX_DEPTH + 8];
	size_t n = 0;

	for (int i = 0; i < VCP_JSON_MAX_DEPTH; i++)
		deep[n++] = '[';
	for (int i = 0; i < VCP_JSON_MAX_DEPTH; i++)
		deep[n++] = ']';
	deep[n] = '\0';
	accepted(deep);
	memmove(deep + 1, deep, n + 1);
	deep[0] = '[';
	deep[n + 1] = ']';
	deep[n + 2] = '\0';
	REFUSED(deep, "f.json: not valid JSON at line 1: nested too deep");
}

static void test_duplicates(void **state)
{
	REFUSED("{\"level\":5,\"level\":1}",
		"f.json: level: duplicate key (lines 1 and 1)");
	REFUSED("{\n\"hosts\": [],\n\"defaults\": {},\n\"hosts\": 5\n}",
		"f.json: hosts: duplicate key (lines 2 and 4)");
	REFUSED("{\"windows\": [{\"from\": \"08:00\"},\n{\"to\": \"1\", \"to\": \"2\"}]}",
		"f.json: windows[1].to: duplicate key (lines 2 and 2)");
	REFUSED("{\"a\": {\"b\": {\"c\": 1, \"d\": 2, \"c\": 3}}}",
		"f.json: a.b.c: duplicate key (lines 1 and 1)");
	/* the same key spelt with an escape is the same key */
	REFUSED("{\"level\": 1, \"lev\\u0065l\": 2}",
		"f.json: level: duplicate key (lines 1 and 1)");
	/* the earliest second occurrence is named */
	REFUSED("{\"b\": 1, \"a\": 1, \"a\": 2, \"b\": 2}",
		"f.json: a: duplicate key (lines 1 and 1)");
	/* a prefix is not a duplicate */
	accepted("{\"a\": 1, \"ab\": 2, \"abc\": 3}");
}

/* An escaped NUL: json-c would cut the key there ("op\u0000" a second
 * "op", past the duplicate check) or the value. Refused anywhere. */
static void test_escaped_nul(void **state)
{
	REFUSED("{\"v\":1,\"op\":\"ping\",\"op\\u0000\":\"pause\"}",
		"f.json: not valid JSON at line 1: \\u0000 in a string (a NUL byte, which no key or value may hold)");
	REFUSED("{\"level\":0,\n\"level\\u0000\":2}",
		"f.json: not valid JSON at line 2: \\u0000 in a string (a NUL byte, which no key or value may hold)");
	REFUSED("{\"name\": \"h1\\u0000evil\"}",
		"f.json: not valid JSON at line 1: \\u0000 in a string (a NUL byte, which no key or value may hold)");
	REFUSED("[\"\\u0000\"]",
		"f.json: not valid JSON at line 1: \\u0000 in a string (a NUL byte, which no key or value may hold)");
	/* other escapes, a surrogate pair and U+0001 stay accepted */
	accepted("{\"a\\u0001\": \"\\ud83d\\ude00\", \"b\": \"\\u00e9\"}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepts_json),
		cmocka_unit_test(test_refuses_extensions),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_escaped_nul),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
