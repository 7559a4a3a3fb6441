// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_irqbal.c - telling irqbalance which CPUs to keep device IRQs off:
 * the ban it is asked for (the idle packages' CPUs plus its own list),
 * the request's exact text, the bytes that reach a socket where
 * irqbalance keeps its own (ROOT/run/irqbalance/irqbalancePID.sock, a
 * listener the test makes under a scratch root), the record of what was
 * told, and following the plan: asked once, asked again after irqbalance
 * restarts, its own list given back when the packages wake.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "irqbal.h"
#include "sysfile.h"

static struct vcp_cpuset set(const char *list)
{
	struct vcp_cpuset s;

	assert_int_equal(vcp_cpuset_parse(list, &s), 0);
	return s;
}

static const char *fmt(const struct vcp_cpuset *s)
{
	static char buf[256];

	if (vcp_cpuset_empty(s))
		return "";
	assert_int_equal(vcp_cpuset_format(s, buf, sizeof(buf)), 0);
	return buf;
}

static void test_want(void **state)
{
	struct vcp_irqbalance b = { .running = true, .pid = 1 };
	struct vcp_cpuset idle = set("4-7"), none, w;

	vcp_cpuset_zero(&none);
	vcp_irqbal_want(&b, &idle, &w);
	assert_string_equal(fmt(&w), "4-7");
	b.has_banned = true;
	b.banned = set("0");
	vcp_irqbal_want(&b, &idle, &w);
	assert_string_equal(fmt(&w), "0,4-7"); /* its own list kept */
	vcp_irqbal_want(&b, &none, &w);
	assert_string_equal(fmt(&w), ""); /* nothing idles */
	b.banned = set("4-7,12");
	vcp_irqbal_want(&b, &idle, &w);
	assert_string_equal(fmt(&w), ""); /* its list covers them */
}

static void test_request(void **state)
{
	struct vcp_cpuset s = set("4-7,12-15"), none;
	char buf[64];

	vcp_cpuset_zero(&none);
	assert_int_equal(vcp_irqbal_request(&s, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "settings cpus 4-7,12-15");
	assert_int_equal(vcp_irqbal_request(&none, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "settings cpus NULL");
	assert_int_equal(vcp_irqbal_request(&s, buf, 18), -ENOSPC);
}

/* ---- a socket where irqbalance @pid keeps its own ---- */

struct fake {
	char root[64]; /* short: a socket path has 108 bytes */
	int fd; /* listening, non-blocking */
};

static void fake_listen(struct fake *f, int pid)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char dir[300];

	snprintf(dir, sizeof(dir), "%s/run", f->root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/run/irqbalance", f->root);
	mkdir(dir, 0755);
	snprintf(a.sun_path, sizeof(a.sun_path),
		 "%s/run/irqbalance/irqbalance%d.sock", f->root, pid);
	f->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	assert_true(f->fd >= 0);
	assert_int_equal(bind(f->fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(f->fd, 8), 0);
}

/* The next request that reached the socket, whole ("" for none). */
static const char *fake_got(struct fake *f)
{
	static char buf[512];
	size_t len = 0;
	ssize_t n;
	int c = accept(f->fd, NULL, NULL);

	if (c < 0) {
		assert_int_equal(errno, EAGAIN);
		return "";
	}
	fcntl(c, F_SETFL, 0);
	while ((n = read(c, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(c);
	buf[len] = '\0';
	return buf;
}

static int setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));

	t_tmpdir(f->root, sizeof(f->root), "irqbal");
	f->fd = -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fake *f = *state;

	if (f->fd >= 0)
		close(f->fd);
	t_rmtree(f->root);
	free(f);
	return 0;
}

static void test_send(void **state)
{
	struct fake *f = *state;
	char path[300];
	int stale;
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	fake_listen(f, 4242);
	assert_int_equal(vcp_irqbal_send(f->root, 4242, "settings cpus 1"), 0);
	assert_string_equal(fake_got(f), "settings cpus 1");
	assert_string_equal(fake_got(f), "");
	/* no socket for that pid: an irqbalance without one */
	assert_int_equal(vcp_irqbal_send(f->root, 4243, "x"), -ENOENT);
	/* a socket file nobody listens on (irqbalance died): the same */
	snprintf(a.sun_path, sizeof(a.sun_path),
		 "%s/run/irqbalance/irqbalance77.sock", f->root);
	stale = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(stale, (struct sockaddr *)&a, sizeof(a)), 0);
	close(stale);
	assert_int_equal(vcp_irqbal_send(f->root, 77, "x"), -ENOENT);
	snprintf(path, sizeof(path), "%s/run/irqbalance/irqbalance77.sock",
		 f->root);
	assert_int_equal(access(path, F_OK), 0);
}

static const char *record(const struct fake *f)
{
	static char buf[256];
	char path[300];

	snprintf(path, sizeof(path), "%s" VCP_IRQBAL_TOLD_PATH, f->root);
	if (vcp_read_line(path, buf, sizeof(buf)) < 0)
		return "(none)";
	return buf;
}

static void test_record(void **state)
{
	struct fake *f = *state;
	struct vcp_irqbal_told t = { .pid = 321, .ban = set("4-7") }, u;
	char path[300];

	assert_int_equal(vcp_irqbal_told_load(f->root, &u), 0);
	assert_int_equal(u.pid, 0);
	/* ROOT/run a file: refused; its directories are made otherwise
	 * (as for the IRQ record beside it) */
	snprintf(path, sizeof(path), "%s/run", f->root);
	t_put(path, "x\n");
	assert_int_equal(vcp_irqbal_told_store(f->root, &t), -ENOTDIR);
	unlink(path);
	assert_int_equal(vcp_irqbal_told_store(f->root, &t), 0);
	assert_string_equal(record(f), "321 4-7");
	assert_int_equal(vcp_irqbal_told_load(f->root, &u), 0);
	assert_int_equal(u.pid, 321);
	assert_string_equal(fmt(&u.ban), "4-7");
	t.pid = 0;
	assert_int_equal(vcp_irqbal_told_store(f->root, &t), 0);
	assert_string_equal(record(f), "(none)");
	snprintf(path, sizeof(path), "%s" VCP_IRQBAL_TOLD_PATH, f->root);
	t_put(path, "321\n");
	assert_int_equal(vcp_irqbal_told_load(f->root, &u), -EBADMSG);
	t_put(path, "x 4-7\n");
	assert_int_equal(vcp_irqbal_told_load(f->root, &u), -EBADMSG);
}

static void test_follow(void **state)
{
	struct fake *f = *state;
	struct vcp_irqbalance b = { .running = true, .pid = 4242 };
	struct vcp_cpuset idle = set("4-7"), none;
	struct vcp_irqbal_result r;
	char path[300];

	vcp_cpuset_zero(&none);
	fake_listen(f, 4242);
	/* the package idles: asked once, recorded */
	assert_int_equal(vcp_irqbal_follow(f->root, &b, &idle, false, &r), 0);
	assert_true(r.asked && r.in_force && !r.gave_back);
	assert_int_equal(r.error, 0);
	assert_string_equal(fmt(&r.ban), "4-7");
	assert_string_equal(fake_got(f), "settings cpus 4-7");
	assert_string_equal(record(f), "4242 4-7");
	/* again: in force, nothing asked */
	assert_int_equal(vcp_irqbal_follow(f->root, &b, &idle, false, &r), 0);
	assert_true(!r.asked && r.in_force);
	assert_string_equal(fmt(&r.ban), "4-7");
	assert_string_equal(fake_got(f), "");
	/* a dry run with another ban: would ask, asks nothing */
	idle = set("4-7,12-15");
	assert_int_equal(vcp_irqbal_follow(f->root, &b, &idle, true, &r), 0);
	assert_true(r.asked && r.in_force);
	assert_string_equal(fmt(&r.ban), "4-7,12-15");
	assert_string_equal(fake_got(f), "");
	assert_string_equal(record(f), "4242 4-7");
	/* with its own list: the union */
	b.has_banned = true;
	b.banned = set("0");
	assert_int_equal(vcp_irqbal_follow(f->root, &b, &idle, false, &r), 0);
	assert_string_equal(fake_got(f), "settings cpus 0,4-7,12-15");
	assert_string_equal(record(f), "4242 0,4-7,12-15");
	/* the packages wake: its own list back, record gone */
	assert_int_equal(vcp_irqbal_follow(f->root, &b, &none, false, &r), 0);
	assert_true(r.asked && r.gave_back && !r.in_force);
	assert_string_equal(fake_got(f), "settings cpus NULL");
	assert_string_equal(record(f), "(none)");
	assert_int_equal(vcp_irqbal_follow(f->root, &b, &none, false, &r), 0);
	assert_false(r.asked);
	assert_string_equal(fake_got(f), "");
	/* irqbalance restarted as 4243, without a socket: asked, failed,
	 * the stale record of 4242 dropped */
	b.has_banned = false;
	idle = set("4-7");
	assert_int_equal(vcp_irqbal_follow(f->root, &b, &idle, false, &r), 0);
	assert_string_equal(fake_got(f), "settings cpus 4-7");
	b.pid = 4243;
	assert_int_equal(vcp_irqbal_follow(f->root, &b, &idle, false, &r), 0);
	assert_true(r.asked && !r.in_force);
	assert_int_equal(r.error, -ENOENT);
	assert_string_equal(record(f), "(none)");
	/* a torn record: asked again */
	b.pid = 4242;
	snprintf(path, sizeof(path), "%s" VCP_IRQBAL_TOLD_PATH, f->root);
	t_put(path, "4242\n");
	assert_int_equal(vcp_irqbal_follow(f->root, &b, &idle, false, &r), 0);
	assert_true(r.asked && r.in_force);
	assert_string_equal(fake_got(f), "settings cpus 4-7");
	assert_string_equal(record(f), "4242 4-7");
	/* irqbalance gone: nothing to tell, the record dropped */
	b.running = false;
	assert_int_equal(vcp_irqbal_follow(f->root, &b, &idle, false, &r), 0);
	assert_false(r.asked);
	assert_string_equal(record(f), "(none)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_want),
		cmocka_unit_test(test_request),
		cmocka_unit_test_setup_teardown(test_send, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
