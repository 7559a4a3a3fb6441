/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * golden.h - helpers shared by the unit tests (header-only: each test is
 * one binary): read a file, compare text with a golden file, regenerate it
 * with VCP_TEST_REGENERATE_OUTPUT=1 (review such changes line by line),
 * and print JSON the way the golden files hold it. Include after cmocka.h.
 */
#ifndef VCP_TEST_GOLDEN_H
#define VCP_TEST_GOLDEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

static inline char *t_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* As t_slurp(), failing the test when the file cannot be read. */
static inline char *t_slurp_must(const char *path)
{
	char *s = t_slurp(path);

	if (!s)
		fail_msg("%s: cannot read", path);
	return s;
}

/* Pretty JSON text with a final newline; consumes @o. */
static inline char *t_json_text(struct json_object *o)
{
	char *s = NULL;

	assert_non_null(o);
	assert_int_not_equal(asprintf(&s, "%s\n", json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
		JSON_C_TO_STRING_NOSLASHESCAPE)), -1);
	json_object_put(o);
	return s;
}

/* Fail unless @got equals the content of @path. */
static inline void t_golden(const char *path, const char *got)
{
	char *want;

	if (getenv("VCP_TEST_REGENERATE_OUTPUT")) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs(got, f);
		fclose(f);
	}
	want = t_slurp(path);
	if (!want)
		fail_msg("%s: missing (run with VCP_TEST_REGENERATE_OUTPUT=1)",
			 path);
	if (strcmp(got, want))
		fail_msg("%s: differs; got:\n%s", path, got);
	free(want);
}

#endif
