// SPDX-License-Identifier: GPL-2.0-or-later
/* test_jsonfile.c - whole-file reads of the JSON files people write:
 * contents, the size limit (also for files whose size stat does not
 * know, as under /proc), a NUL byte, and everything that is not a
 * regular file refused by name without blocking; the parse errors'
 * wording; the number checks. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "jsonfile.h"

struct fx {
	char dir[256];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	t_tmpdir(f->dir, sizeof(f->dir), "jsonfile");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	t_rmtree(f->dir);
	free(f);
	return 0;
}

static void path_of(const struct fx *f, const char *name, char *buf)
{
	snprintf(buf, PATH_MAX, "%s/%s", f->dir, name);
}

static void write_file(const char *path, const char *s, size_t n)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_int_equal(fwrite(s, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
}

/* Fails with @r and an error that contains @want. */
static void expect_refused(const char *path, size_t max, int r,
			   const char *want)
{
	char *text = NULL, *err = NULL;

	assert_int_equal(vcp_file_read(path, max, &text, &err), r);
	assert_null(text);
	assert_non_null(err);
	if (!strstr(err, want) || !strstr(err, path))
		fail_msg("'%s' lacks '%s' or the path", err, want);
	free(err);
}

static void test_read(void **state)
{
	struct fx *f = *state;
	char p[PATH_MAX], *text = NULL, *err = NULL;

	path_of(f, "a.json", p);
	write_file(p, "{\"a\": 1}\n", 9);
	assert_int_equal(vcp_file_read(p, 64, &text, &err), 0);
	assert_string_equal(text, "{\"a\": 1}\n");
	free(text);
	text = NULL;
	expect_refused(p, 8, -EFBIG, "larger than 8 bytes");
	/* stat says 0 bytes under /proc: the read grows its buffer */
	assert_int_equal(
		vcp_file_read("/proc/self/status", 1 << 20, &text, &err), 0);
	assert_non_null(strstr(text, "Name:"));
	free(text);
	text = NULL;
	expect_refused("/proc/self/status", 16, -EFBIG, "larger than 16 bytes");
}

static void test_nul(void **state)
{
	struct fx *f = *state;
	char p[PATH_MAX];

	path_of(f, "nul.json", p);
	write_file(p, "{\n\"a\":\0 1}\n", 11);
	expect_refused(p, 64, -EINVAL, "not valid JSON at line 2: NUL byte");
}

static void test_not_regular(void **state)
{
	struct fx *f = *state;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char p[PATH_MAX];
	int fd;

	expect_refused(f->dir, 64, -EINVAL, "not a regular file (a directory)");
	path_of(f, "fifo", p);
	assert_int_equal(mkfifo(p, 0600), 0);
	expect_refused(p, 64, -EINVAL, "not a regular file (a FIFO)");
	expect_refused("/dev/null", 64, -EINVAL,
		       "not a regular file (a character device)");
	path_of(f, "sock", p);
	assert_true(strlen(p) < sizeof(sa.sun_path));
	strcpy(sa.sun_path, p);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	expect_refused(p, 64, -EINVAL, "not a regular file (a socket)");
	close(fd);
	path_of(f, "missing", p);
	expect_refused(p, 64, -ENOENT, "No such file");
}

static void expect_parse_error(const char *text, const char *want)
{
	struct json_object *o = NULL;
	char *err = NULL;

	assert_int_equal(vcp_json_parse(text, "SRC", &o, &err), -EINVAL);
	assert_null(o);
	assert_non_null(err);
	if (!strstr(err, want))
		fail_msg("'%s' lacks '%s'", err, want);
	free(err);
}

static void test_parse(void **state)
{
	struct json_object *o = NULL;
	char *err = NULL;
	int64_t n = 7;
	double d = 7;

	assert_int_equal(
		vcp_json_parse("{\"a\": [1, 2.5]}\n\n", "SRC", &o, &err), 0);
	assert_true(vcp_json_int_in(
		json_object_array_get_idx(json_object_object_get(o, "a"), 0), 0,
		1, &n));
	assert_int_equal(n, 1);
	assert_false(vcp_json_int_in(
		json_object_array_get_idx(json_object_object_get(o, "a"), 0), 2,
		3, &n));
	assert_false(vcp_json_int_in(
		json_object_array_get_idx(json_object_object_get(o, "a"), 1), 0,
		9, &n));
	assert_int_equal(n, 1);
	assert_true(vcp_json_number_in(
		json_object_array_get_idx(json_object_object_get(o, "a"), 1), 0,
		3, &d));
	assert_float_equal(d, 2.5, 0);
	assert_false(
		vcp_json_number_in(json_object_object_get(o, "a"), 0, 3, &d));
	assert_string_equal(vcp_json_shown(json_object_object_get(o, "a")),
			    "[1,2.5]");
	assert_string_equal(vcp_json_shown(NULL), "null");
	json_object_put(o);
	expect_parse_error("{\"a\": 1}\n{}", "SRC: not valid JSON at line 2");
	expect_parse_error("{\"a\":\n", "SRC: not valid JSON at line");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nul, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_regular, setup,
						teardown),
		cmocka_unit_test(test_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
