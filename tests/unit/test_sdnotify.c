// SPDX-License-Identifier: GPL-2.0-or-later
/* test_sdnotify.c - the sd_notify datagrams, received on sockets made
 * here (a path and an abstract name), and the watchdog's environment. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "sdnotify.h"

/* A datagram socket bound to @name ("/path" or "@abstract"). */
static int listener(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	memcpy(sa.sun_path, name, n);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	else
		len++;
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, len), 0);
	return fd;
}

/* The next datagram on @fd (which must be there already). */
static void expect(int fd, const char *want)
{
	char buf[512];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

static void expect_none(int fd)
{
	char buf[16];

	assert_int_equal(recv(fd, buf, sizeof(buf), MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
}

static char *tmp_path(const char *leaf)
{
	const char *t = getenv("TMPDIR");
	char *p = NULL;

	assert_true(asprintf(&p, "%s/%s.%d", t && *t ? t : "/tmp", leaf,
			     (int)getpid()) > 0);
	unlink(p);
	return p;
}

static void test_path_socket(void **state)
{
	char *path = tmp_path("vcp-notify");
	int fd = listener(path);

	assert_int_equal(vcp_sd_notify_to(path, "READY=1\nSTATUS=pin mode, level 2"), 0);
	expect(fd, "READY=1\nSTATUS=pin mode, level 2");
	/* through the environment, as under systemd */
	setenv("NOTIFY_SOCKET", path, 1);
	assert_int_equal(vcp_sd_notify("WATCHDOG=1"), 0);
	expect(fd, "WATCHDOG=1");
	assert_int_equal(vcp_sd_notify("STOPPING=1"), 0);
	expect(fd, "STOPPING=1");
	expect_none(fd);
	unsetenv("NOTIFY_SOCKET");
	close(fd);
	unlink(path);
	free(path);
}

static void test_abstract_socket(void **state)
{
	char name[64];
	int fd;

	snprintf(name, sizeof(name), "@vcp-test-notify-%d", (int)getpid());
	fd = listener(name);
	setenv("NOTIFY_SOCKET", name, 1);
	assert_int_equal(vcp_sd_notify("RELOADING=1"), 0);
	expect(fd, "RELOADING=1");
	unsetenv("NOTIFY_SOCKET");
	close(fd);
}

static void test_no_socket(void **state)
{
	char *path = tmp_path("vcp-notify-none");

	/* outside systemd: nothing to do, and no error */
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(vcp_sd_notify("READY=1"), 0);
	setenv("NOTIFY_SOCKET", "", 1);
	assert_int_equal(vcp_sd_notify("READY=1"), 0);
	/* a socket that is not there, and names that are not sockets */
	assert_int_equal(vcp_sd_notify_to(path, "READY=1"), -ENOENT);
	assert_int_equal(vcp_sd_notify_to("relative", "READY=1"), -EAFNOSUPPORT);
	assert_int_equal(vcp_sd_notify_to("vsock:2:1", "READY=1"), -EAFNOSUPPORT);
	assert_int_equal(vcp_sd_notify_to("@", "READY=1"), -EINVAL);
	unsetenv("NOTIFY_SOCKET");
	free(path);
}

static void test_watchdog(void **state)
{
	uint64_t u = 7;

	assert_int_equal(vcp_sd_watchdog_parse("30000000", NULL, 42, &u), 0);
	assert_int_equal(u, 30000000);
	assert_int_equal(vcp_sd_watchdog_parse("500", "42", 42, &u), 0);
	assert_int_equal(u, 500);
	u = 7;
	/* meant for another process, or not set: no watchdog, u untouched */
	assert_int_equal(vcp_sd_watchdog_parse("500", "43", 42, &u), -ENODATA);
	assert_int_equal(vcp_sd_watchdog_parse(NULL, NULL, 42, &u), -ENODATA);
	assert_int_equal(vcp_sd_watchdog_parse("", "42", 42, &u), -ENODATA);
	assert_int_equal(vcp_sd_watchdog_parse("0", NULL, 42, &u), -EINVAL);
	assert_int_equal(vcp_sd_watchdog_parse("12s", NULL, 42, &u), -EINVAL);
	assert_int_equal(vcp_sd_watchdog_parse("-5", NULL, 42, &u), -EINVAL);
	assert_int_equal(vcp_sd_watchdog_parse("5", "x", 42, &u), -EINVAL);
	assert_int_equal(u, 7);
	/* this process's environment */
	setenv("WATCHDOG_USEC", "2000000", 1);
	setenv("WATCHDOG_PID", "1", 1);
	assert_int_equal(vcp_sd_watchdog_usec(&u), -ENODATA);
	unsetenv("WATCHDOG_PID");
	assert_int_equal(vcp_sd_watchdog_usec(&u), 0);
	assert_int_equal(u, 2000000);
	unsetenv("WATCHDOG_USEC");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_socket),
		cmocka_unit_test(test_abstract_socket),
		cmocka_unit_test(test_no_socket),
		cmocka_unit_test(test_watchdog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
