// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_ctlserver.c - the control socket's server on a GLib main context
 * driven by the test, clients in the same process on a socket in
 * $TMPDIR: replies both versions, a split request, pipelined requests, a
 * line past the cap (the error line arrives before the close), a
 * client that never reads its large reply while another is served, the
 * client limit (a silent client makes room; with none, newcomers wait
 * in the backlog, and a burst of clients that all sent a request is
 * served in turn), the idle deadline, and out of descriptors: the
 * accept pauses instead of spinning, then serves.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>
#include <glib.h>

#include "ctlserver.h"

#define BIG (1u << 20)

struct fixture {
	char dir[256], path[300];
	int listen_fd;
	struct vcp_ctl_server *s;
	char notes[512];
};

static struct json_object *handle(void *opaque, const struct vcp_req *req,
				  char **ret_error)
{
	struct json_object *o = json_object_new_object();
	char *big;

	switch (req->op) {
	case VCP_REQ_STATUS:	/* larger than any socket buffer */
		big = malloc(BIG + 1);
		memset(big, 'x', BIG);
		big[BIG] = '\0';
		json_object_object_add(o, "status", json_object_new_string(big));
		free(big);
		break;
	case VCP_REQ_REPLAN:
		json_object_put(o);
		*ret_error = strdup("not now");
		return NULL;
	default:
		json_object_object_add(o, "connected", json_object_new_boolean(1));
		json_object_object_add(o, "mode", json_object_new_string("pin"));
		json_object_object_add(o, "replans", json_object_new_int(7));
	}
	return o;
}

static void note(void *opaque, const char *msg)
{
	struct fixture *f = opaque;

	snprintf(f->notes + strlen(f->notes), sizeof(f->notes) - strlen(f->notes),
		 "%s\n", msg);
}

static int start(void **state, size_t max, unsigned int idle_ms)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct vcp_ctl_server_conf conf = { .max_clients = max,
		.idle_ms = idle_ms, .pause_ms = 200, .handle = handle,
		.note = note, .opaque = f };
	const char *tmp = getenv("TMPDIR");

	snprintf(f->dir, sizeof(f->dir), "%s/ctlsrv.XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/s", f->dir);
	assert_int_equal(vcp_ctl_listen(f->path, &f->listen_fd), 0);
	assert_int_equal(vcp_ctl_server_new(f->listen_fd, &conf, &f->s), 0);
	*state = f;
	return 0;
}

static int start_default(void **state) { return start(state, 4, 10000); }
static int start_short(void **state) { return start(state, 4, 100); }

static int stop(void **state)
{
	struct fixture *f = *state;

	vcp_ctl_server_free(f->s);
	close(f->listen_fd);
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* Run the loop for @ms; how many sources were dispatched. */
static unsigned int pump(unsigned int ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)ms * 1000;
	unsigned int n = 0;

	while (g_get_monotonic_time() < end) {
		if (g_main_context_iteration(NULL, FALSE))
			n++;
		else
			g_usleep(1000);
	}
	return n;
}

static int client(struct fixture *f)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strcpy(sa.sun_path, f->path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

static void say(int fd, const char *s)
{
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
}

/* What the client has been sent since the last call, reading while the
 * loop runs @ms ("EOF" appended at the end of the stream, "RESET" when
 * the connection was reset instead). */
static char *got_within(int fd, unsigned int ms, const char *want)
{
	static char buf[8192];
	gint64 end = g_get_monotonic_time() + (gint64)ms * 1000;
	size_t len = 0;
	bool eof = false;
	ssize_t n = 0;

	buf[0] = '\0';
	do {
		pump(5);
		while (!eof && len < sizeof(buf) - 8 &&
		       (n = read(fd, buf + len, sizeof(buf) - 8 - len)) >= 0) {
			if (n == 0) {
				eof = true;
				len += (size_t)sprintf(buf + len, "EOF");
			}
			len += n > 0 ? (size_t)n : 0;
		}
		if (!eof && n < 0 && errno == ECONNRESET) {
			eof = true;
			len += (size_t)sprintf(buf + len, "RESET");
		}
		buf[len] = '\0';
	} while (g_get_monotonic_time() < end && (!want || strcmp(buf, want)));
	return buf;
}

/* The client gets @want, soon (seconds under valgrind). */
static void expect(int fd, const char *want)
{
	assert_string_equal(got_within(fd, 5000, want), want);
}

/* Nothing came in @ms. */
static void expect_none(int fd, unsigned int ms)
{
	assert_string_equal(got_within(fd, ms, NULL), "");
}

static void test_ping_both_versions(void **state)
{
	struct fixture *f = *state;
	int c = client(f);

	say(c, "ping\n{\"v\":1,\"op\":\"ping\"}\n{\"v\":1,\"op\":\"replan\"}\nfly\n");
	expect(c,
		"ok connected mode=pin replans=7\n"
		"{\"v\":1,\"ok\":true,\"connected\":true,\"mode\":\"pin\",\"replans\":7}\n"
		"{\"v\":1,\"ok\":false,\"error\":\"not now\"}\n"
		"error unknown request\n");
	shutdown(c, SHUT_WR);
	expect(c, "EOF");
	close(c);
}

static void test_split_request(void **state)
{
	struct fixture *f = *state;
	int c = client(f);

	say(c, "pi");
	expect_none(c, 100);
	say(c, "ng\n");
	expect(c, "ok connected mode=pin replans=7\n");
	close(c);
}

static void test_line_too_long(void **state)
{
	struct fixture *f = *state;
	int c = client(f);
	char big[6000];

	/* past the cap, and more input the server will not read: the error
	 * line still arrives whole, then our EOF (closing with unread input
	 * would reset the connection and could lose the line) */
	memset(big, 'x', sizeof(big));
	assert_int_equal(write(c, big, sizeof(big)), (ssize_t)sizeof(big));
	pump(50);
	assert_int_equal(write(c, big, sizeof(big)), (ssize_t)sizeof(big));
	expect(c, "{\"v\":1,\"ok\":false,\"error\":\"request line longer than 4096 bytes\"}\nEOF");
	close(c);
}

static void test_stalled_client(void **state)
{
	struct fixture *f = *state;
	int stalled = client(f), other;
	size_t total = 0;
	ssize_t n;
	char buf[65536];

	say(stalled, "status\n");	/* and never reads, for now */
	pump(100);
	other = client(f);
	say(other, "ping\n");
	expect(other, "ok connected mode=pin replans=7\n");
	close(other);
	/* the stalled client still gets all of it once it reads */
	for (int k = 0; k < 2000 && total < BIG + 3; k++) {
		while ((n = read(stalled, buf, sizeof(buf))) > 0)
			total += (size_t)n;
		pump(2);
	}
	assert_int_equal(total, BIG + 3);	/* "x..x" quoted, newline */
	close(stalled);
}

static void test_limit_idle_makes_room(void **state)
{
	struct fixture *f = *state;
	int c[5];

	for (int i = 0; i < 4; i++)
		c[i] = client(f);
	/* c[0] has spoken (and is in the middle of another request): not
	 * a victim; the other three said nothing, c[1] the longest */
	say(c[0], "ping\npi");
	expect(c[0], "ok connected mode=pin replans=7\n");
	c[4] = client(f);
	expect(c[1], "{\"v\":1,\"ok\":false,\"error\":\"too many clients; try again\"}\nEOF");
	say(c[4], "ping\n");
	say(c[0], "ng\n");
	expect(c[4], "ok connected mode=pin replans=7\n");
	expect(c[0], "ok connected mode=pin replans=7\n");
	assert_non_null(strstr(f->notes, "client limit reached"));
	for (int i = 0; i < 5; i++)
		close(c[i]);
}

static void test_limit_all_busy(void **state)
{
	struct fixture *f = *state;
	int c[5];

	for (int i = 0; i < 4; i++) {
		c[i] = client(f);
		say(c[i], "ping\npi");	/* heard, and mid-request */
		expect(c[i], "ok connected mode=pin replans=7\n");
	}
	/* the newcomer waits in the backlog, without the loop spinning on
	 * the readable listening socket, and is served once a place frees */
	c[4] = client(f);
	say(c[4], "ping\n");
	expect_none(c[4], 50);
	assert_true(pump(100) < 5);
	for (int i = 0; i < 4; i++)
		expect_none(c[i], 20);
	close(c[0]);
	expect(c[4], "ok connected mode=pin replans=7\n");
	for (int i = 1; i < 5; i++)
		close(c[i]);
}

/* A burst of clients that send their request at once (the hook when a
 * host starts many guests): none is taken for a silent one and turned
 * away; past the limit they wait their turn. */
static void test_limit_burst(void **state)
{
	struct fixture *f = *state;
	int c[10];

	for (int i = 0; i < 10; i++) {
		c[i] = client(f);
		say(c[i], "{\"v\":1,\"op\":\"ping\"}\n");
	}
	for (int i = 0; i < 10; i++) {
		expect(c[i], "{\"v\":1,\"ok\":true,\"connected\":true,\"mode\":\"pin\",\"replans\":7}\n");
		close(c[i]);
	}
}

static void test_idle_deadline(void **state)
{
	struct fixture *f = *state;
	int c = client(f);

	expect_none(c, 50);
	expect(c, "EOF");	/* idle 100 ms; checked every 500 ms */
	close(c);
}

static void test_out_of_fds_pauses(void **state)
{
	struct fixture *f = *state;
	struct rlimit old, low;
	unsigned int dispatched;
	int c;

	/* valgrind keeps descriptors of its own and emulates the limit */
	if (getenv("VCP_VALGRIND"))
		skip();
	c = client(f);
	/* no descriptor left for accept() */
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = (rlim_t)c + 1;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	for (int k = 0; k < 400 && !strstr(f->notes, "out of file descriptors"); k++)
		pump(5);
	assert_non_null(strstr(f->notes, "out of file descriptors"));
	/* paused: the still-readable listening socket is not polled */
	dispatched = pump(100);
	assert_true(dispatched < 5);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	say(c, "ping\n");
	expect(c, "ok connected mode=pin replans=7\n");
	close(c);
}

/* A server answers on the socket: a second one is refused and the
 * first keeps its socket file. */
static void test_listen_in_use(void **state)
{
	struct fixture *f = *state;
	int fd = -1, c;

	assert_int_equal(vcp_ctl_listen(f->path, &fd), -EADDRINUSE);
	assert_int_equal(fd, -1);
	c = client(f);
	say(c, "ping\n");
	expect(c, "ok connected mode=pin replans=7\n");
	close(c);
}

/* A socket file left by a server that is gone is replaced; a missing
 * directory is made (0700), the socket is 0600 and non-blocking. */
static void test_listen_stale(void **state)
{
	char dir[256], sub[300], path[320];
	const char *tmp = getenv("TMPDIR");
	struct stat st;
	int fd;

	snprintf(dir, sizeof(dir), "%s/ctllis.XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/run", dir);
	snprintf(path, sizeof(path), "%s/s", sub);
	assert_int_equal(vcp_ctl_listen(path, &fd), 0);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	/* the file stays, nobody answers: taken over */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(vcp_ctl_listen(path, &fd), 0);
	close(fd);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* A path longer than a socket address holds; a directory that cannot
 * be made; a path that is a directory. */
static void test_listen_refused(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char path[200], dir[256], sub[300];
	int fd = -1;

	memset(path, 'x', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	assert_int_equal(vcp_ctl_listen(path, &fd), -ENAMETOOLONG);
	assert_int_equal(vcp_ctl_listen("/nonexistent-vcp/a/s", &fd), -ENOENT);
	/* a directory where the socket goes: not removed, bind refused */
	snprintf(dir, sizeof(dir), "%s/ctllis.XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/s", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(vcp_ctl_listen(sub, &fd), -EADDRINUSE);
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(fd, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ping_both_versions, start_default, stop),
		cmocka_unit_test_setup_teardown(test_split_request, start_default, stop),
		cmocka_unit_test_setup_teardown(test_line_too_long, start_default, stop),
		cmocka_unit_test_setup_teardown(test_stalled_client, start_default, stop),
		cmocka_unit_test_setup_teardown(test_limit_idle_makes_room, start_default, stop),
		cmocka_unit_test_setup_teardown(test_limit_all_busy, start_default, stop),
		cmocka_unit_test_setup_teardown(test_limit_burst, start_default, stop),
		cmocka_unit_test_setup_teardown(test_idle_deadline, start_short, stop),
		cmocka_unit_test_setup_teardown(test_out_of_fds_pauses, start_default, stop),
	};

	/* vcp_ctl_listen (the first beside a running server) */
	const struct CMUnitTest listening[] = {
		cmocka_unit_test_setup_teardown(test_listen_in_use,
						start_default, stop),
		cmocka_unit_test(test_listen_stale),
		cmocka_unit_test(test_listen_refused),
	};

	signal(SIGPIPE, SIG_IGN);	/* as vcpackd: a closed peer is an error */
	return cmocka_run_group_tests(tests, NULL, NULL) |
	       cmocka_run_group_tests(listening, NULL, NULL);
}
