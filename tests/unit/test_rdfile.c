// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_rdfile.c - rdfile.c, the one way vcpack opens a file to read it:
 * a regular file is read; a FIFO (with no writer: a blocking open would
 * wait forever), a directory and a socket are refused by name without
 * blocking; the size cap; the one counter parser.
 */
#include <errno.h>
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

#include "rdfile.h"
#include "sysfile.h"

static char dir[] = "/tmp/vcp-rdfile.XXXXXX";

static void path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static int setup(void **state)
{
	char p[256];
	FILE *f;

	if (!mkdtemp(dir))
		return -1;
	path(p, sizeof(p), "plain");
	f = fopen(p, "w");
	if (!f)
		return -1;
	fputs("12345\nsecond line\n", f);
	fclose(f);
	path(p, sizeof(p), "fifo");
	return mkfifo(p, 0600);
}

static int teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void test_regular(void **state)
{
	char p[256], buf[64], *err = NULL;

	path(p, sizeof(p), "plain");
	assert_int_equal(vcp_read_small(p, buf, sizeof(buf), true, &err), 0);
	assert_string_equal(buf, "12345\nsecond line\n");
	assert_int_equal(vcp_read_line(p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "12345");
	/* the cap: a whole read refuses more, a first-bytes read cuts */
	assert_int_equal(vcp_read_small(p, buf, 6, true, &err), -EFBIG);
	assert_non_null(strstr(err, "plain: larger than 5 bytes"));
	assert_int_equal(vcp_read_small(p, buf, 6, false, NULL), 0);
	assert_string_equal(buf, "12345");
	free(err);
}

static void test_not_regular(void **state)
{
	char p[256], buf[64], why[512], *err = NULL;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, s;

	/* a FIFO with no writer: refused at once, by name */
	path(p, sizeof(p), "fifo");
	assert_int_equal(vcp_open_regular(p, &fd, &err), -VCP_ENOTREG);
	assert_non_null(strstr(err, "/fifo: not a regular file (a FIFO)"));
	assert_int_equal(vcp_read_line(p, buf, sizeof(buf)), -VCP_ENOTREG);
	assert_non_null(strstr(vcp_read_why(p, -VCP_ENOTREG, why, sizeof(why)),
			       "/fifo: not a regular file (a FIFO)"));
	assert_int_equal(vcp_read_small(p, buf, sizeof(buf), true, &err),
			 -VCP_ENOTREG);
	/* a directory */
	assert_int_equal(vcp_open_regular(dir, &fd, &err), -VCP_ENOTREG);
	assert_non_null(strstr(err, "not a regular file (a directory)"));
	/* a socket (open() itself refuses it) */
	path(sa.sun_path, sizeof(sa.sun_path), "sock");
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(s >= 0);
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(vcp_open_regular(sa.sun_path, &fd, &err),
			 -VCP_ENOTREG);
	assert_non_null(strstr(err, "not a regular file (a socket)"));
	close(s);
	/* absent: the errno, named */
	path(p, sizeof(p), "absent");
	assert_int_equal(vcp_open_regular(p, &fd, &err), -ENOENT);
	assert_non_null(strstr(err, "/absent: No such file or directory"));
	assert_non_null(strstr(vcp_read_why(p, -ENOENT, why, sizeof(why)),
			       "/absent: No such file or directory"));
	free(err);
}

static void test_parse_u64(void **state)
{
	static const char *const bad[] = { "-5", " 5",	 "+5", "5x",
					   "",	 "0x10", "5 " };
	uint64_t v = 7;

	assert_int_equal(vcp_parse_u64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(vcp_parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	v = 7;
	assert_int_equal(vcp_parse_u64("18446744073709551616", &v), -ERANGE);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(vcp_parse_u64(bad[i], &v), -EINVAL);
	assert_int_equal(v, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test(test_parse_u64),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
