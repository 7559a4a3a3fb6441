// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctlserver.c - vcpackd's control socket on the GLib main loop (see
 * ctlserver.h): one fd watch per client, on input while it has nothing
 * queued and on output while it has; lines are framed and answered by
 * proto.c's rules, the owner's handler gives the answers. A client that
 * stops reading holds only its own queue (capped) until its deadline.
 */
#include "ctlserver.h"
#include "clock.h"
#include "ctl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <glib-unix.h>
#include <glib.h>

#define ACCEPT_BURST 64
#define TICK_MS 500

struct vcp_ctl_server {
	int listen_fd;
	guint listen_src, resume_src, tick_src;
	struct vcp_conn_table t;
	struct vcp_ctl_server_conf conf;
	bool full;		/* not accepting until a client leaves */
	bool told_full, told_nofd;
};

static const char refusal[] =
	"{\"v\":1,\"ok\":false,\"error\":\"too many clients; try again\"}\n";

static void note_once(struct vcp_ctl_server *s, bool *told, const char *msg)
{
	if (*told || !s->conf.note)
		return;
	*told = true;
	s->conf.note(s->conf.opaque, msg);
}

/* A one-line error, if the socket takes it at once, before the caller
 * closes it; what the client sent already is read first (closing a UNIX
 * socket with unread input resets it, and the client could lose the
 * line). */
static void refuse(int fd)
{
	char buf[4096];

	(void)!send(fd, refusal, sizeof(refusal) - 1,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
	shutdown(fd, SHUT_WR);
	for (int k = 0; k < 16 && recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0;
	     k++)
		;
}

static gboolean on_accept(gint fd, GIOCondition cond, gpointer data);

static void drop(struct vcp_ctl_server *s, struct vcp_conn *c)
{
	if (c->src)
		g_source_remove(c->src);
	close(c->fd);
	vcp_conn_table_drop(&s->t, c);
	if (s->full) {		/* a place is free: accept again */
		s->full = false;
		s->listen_src =
			g_unix_fd_add(s->listen_fd, G_IO_IN, on_accept, s);
	}
}

/* ---- answering ---- */

static void queue_line(struct vcp_conn *c, char *line, bool nomem)
{
	if (nomem || (line && vcp_conn_queue(c, line, strlen(line)) < 0))
		c->closing = true;	/* cannot answer: say no more */
	free(line);
}

static void answer_one(struct vcp_ctl_server *s, struct vcp_conn *c,
		       const char *line)
{
	struct vcp_req req = { 0 };
	struct json_object *f = NULL;
	char *err = NULL, *reply;
	bool nomem;

	if (vcp_req_parse(line, &req, &err) < 0) {
		req.version = line[strspn(line, " \t")] == '{' ?
			      VCP_PROTO_VERSION : 0;
		req.op = VCP_REQ_PING;
	} else {
		f = s->conf.handle(s->conf.opaque, &req, &err);
	}
	reply = vcp_reply_format(&req, f, err, &nomem);
	queue_line(c, reply, nomem);
	free(err);
}

/* Answer the requests that came, one at a time: the next only once the
 * last reply is sent, so a client that pipelines requests and does not
 * read holds one reply, not one per request. */
static void answer_lines(struct vcp_ctl_server *s, struct vcp_conn *c)
{
	struct vcp_req v1 = { .version = VCP_PROTO_VERSION };
	char *line = NULL;
	const char *p;
	bool nomem;
	int r = 0;

	while (!c->closing && !vcp_conn_pending(c, &p) &&
	       (r = vcp_conn_next_line(c, &line)) > 0) {
		answer_one(s, c, line);
		free(line);
	}
	if (r == -EMSGSIZE || r == -EBADMSG) {
		line = vcp_reply_format(&v1, NULL, r == -EMSGSIZE ?
			"request line longer than 4096 bytes" :
			"NUL byte in a request line", &nomem);
		queue_line(c, line, nomem);
		c->closing = true;
	} else if (r < 0) {
		c->closing = true;
	}
}

/* ---- moving bytes ---- */

/* Requests; or, while closing, the rest of the input until the EOF
 * (dropped, and no progress: the deadline still runs). */
static int take_input(struct vcp_ctl_server *s, struct vcp_conn *c)
{
	char buf[VCP_CONN_MAX_IN];
	ssize_t n = read(c->fd, buf, c->closing ? sizeof(buf) :
					   vcp_conn_room(c));

	if (n == 0) {
		c->eof = true;
		return 0;
	}
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (c->closing)
		return 0;
	vcp_conn_progress(c, vcp_mono_ms(), s->t.idle_ms);
	return vcp_conn_feed(c, buf, (size_t)n) < 0 ? -EMSGSIZE : 0;
}

static int flush(struct vcp_ctl_server *s, struct vcp_conn *c)
{
	const char *p;
	size_t n;

	while ((n = vcp_conn_pending(c, &p)) > 0) {
		ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		vcp_conn_sent(c, (size_t)w);
		vcp_conn_progress(c, vcp_mono_ms(), s->t.idle_ms);
	}
	return 0;
}

static gboolean on_client(gint fd, GIOCondition cond, gpointer data);

/* Output while something is queued, input otherwise. */
static unsigned int wanted(const struct vcp_conn *c)
{
	return vcp_conn_step(c) == VCP_CONN_WRITE ? G_IO_OUT : G_IO_IN;
}

static void watch(struct vcp_conn *c)
{
	c->watching = wanted(c);
	c->src = g_unix_fd_add(c->fd,
			       (GIOCondition)c->watching | G_IO_HUP | G_IO_ERR,
			       on_client, c);
}

static gboolean on_client(gint fd, GIOCondition cond, gpointer data)
{
	struct vcp_conn *c = data;
	struct vcp_ctl_server *s = c->owner;
	const char *p;
	size_t before;
	int r = 0;

	if (c->watching == G_IO_IN && !c->eof)
		r = take_input(s, c);
	/* answer and send until the socket is full or no request is left */
	do {
		answer_lines(s, c);
		before = vcp_conn_pending(c, &p);
		if (r == 0)
			r = flush(s, c);
	} while (r == 0 && before && !vcp_conn_pending(c, &p));
	if (r == 0 && vcp_conn_step(c) == VCP_CONN_LINGER && !c->shut) {
		shutdown(c->fd, SHUT_WR);	/* the client reads our EOF */
		c->shut = true;
	}
	if (r < 0 || vcp_conn_step(c) == VCP_CONN_CLOSE) {
		c->src = 0;	/* this source goes with the return */
		drop(s, c);
		return G_SOURCE_REMOVE;
	}
	if (wanted(c) == c->watching)
		return G_SOURCE_CONTINUE;
	watch(c);
	return G_SOURCE_REMOVE;
}

/* ---- clients coming and going ---- */

static gboolean on_tick(gpointer data)
{
	struct vcp_ctl_server *s = data;
	struct vcp_conn *late[64];
	size_t n;

	do {
		n = vcp_conn_table_expired(&s->t, vcp_mono_ms(), late, 64);
		for (size_t i = 0; i < n; i++)
			drop(s, late[i]);
	} while (n == 64);
	if (s->t.n)
		return G_SOURCE_CONTINUE;
	s->tick_src = 0;
	return G_SOURCE_REMOVE;
}

/* A client whose request is waiting unread has spoken: not a victim. */
static void hear_waiting(struct vcp_ctl_server *s)
{
	char b;

	for (size_t i = 0; i < s->t.n; i++) {
		struct vcp_conn *c = s->t.v[i];

		if (!c->heard &&
		    recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) > 0)
			c->heard = true;
	}
}

/*
 * Before accepting: with the table full, the oldest client that has said
 * nothing makes room (it gets the one-line error); with none, accepting
 * stops until a client leaves, and newcomers wait in the listen backlog
 * with what they sent (a burst of hook notifications loses nothing).
 * True when there is room.
 */
static bool make_room(struct vcp_ctl_server *s)
{
	struct vcp_conn *victim;

	if (s->t.n < s->t.max)
		return true;
	note_once(s, &s->told_full, "control socket: client limit reached; silent clients make room, others wait");
	hear_waiting(s);
	victim = vcp_conn_table_victim(&s->t);
	if (victim) {
		refuse(victim->fd);
		drop(s, victim);
		return true;
	}
	s->full = true;
	return false;
}

static void admit(struct vcp_ctl_server *s, int fd)
{
	struct vcp_conn *c;

	if (vcp_conn_table_add(&s->t, fd, vcp_mono_ms(), &c) < 0) {
		refuse(fd);
		close(fd);
		return;
	}
	c->owner = s;
	watch(c);
	if (!s->tick_src)
		s->tick_src = g_timeout_add(TICK_MS, on_tick, s);
}

static gboolean on_resume(gpointer data)
{
	struct vcp_ctl_server *s = data;

	s->resume_src = 0;
	s->listen_src = g_unix_fd_add(s->listen_fd, G_IO_IN, on_accept, s);
	return G_SOURCE_REMOVE;
}

static gboolean on_accept(gint fd, GIOCondition cond, gpointer data)
{
	struct vcp_ctl_server *s = data;

	for (int k = 0; k < ACCEPT_BURST; k++) {
		int c;

		if (!make_room(s)) {
			s->listen_src = 0;	/* drop() adds it back */
			return G_SOURCE_REMOVE;
		}
		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (c >= 0) {
			admit(s, c);
			continue;
		}
		if (errno != EMFILE && errno != ENFILE && errno != ENOBUFS &&
		    errno != ENOMEM)
			break;	/* EAGAIN, or a client that left */
		/* out of descriptors: the socket stays readable, so wait
		 * rather than spin until a client leaves */
		note_once(s, &s->told_nofd, "control socket: out of file descriptors; pausing accept");
		s->listen_src = 0;
		s->resume_src = g_timeout_add(s->conf.pause_ms, on_resume, s);
		return G_SOURCE_REMOVE;
	}
	return G_SOURCE_CONTINUE;
}

int vcp_ctl_server_new(int listen_fd, const struct vcp_ctl_server_conf *conf,
		       struct vcp_ctl_server **ret)
{
	struct vcp_ctl_server *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	if (vcp_conn_table_init(&s->t, conf->max_clients, conf->idle_ms) < 0) {
		free(s);
		return -ENOMEM;
	}
	s->conf = *conf;
	if (!s->conf.pause_ms)
		s->conf.pause_ms = 250;
	s->listen_fd = listen_fd;
	s->listen_src = g_unix_fd_add(listen_fd, G_IO_IN, on_accept, s);
	*ret = s;
	return 0;
}

void vcp_ctl_server_free(struct vcp_ctl_server *s)
{
	if (!s)
		return;
	s->full = false;	/* no watch is added back while closing */
	while (s->t.n)
		drop(s, s->t.v[0]);
	vcp_conn_table_clear(&s->t);
	if (s->listen_src)
		g_source_remove(s->listen_src);
	if (s->resume_src)
		g_source_remove(s->resume_src);
	if (s->tick_src)
		g_source_remove(s->tick_src);
	free(s);
}

int vcp_ctl_listen(const char *path, int *ret_fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	g_autofree char *dir = g_path_get_dirname(path);
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (vcp_ctl_send(path, "ping\n", 200) == 0) {
		close(fd);
		return -EADDRINUSE; /* another server answers there */
	}
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(path, 0600) < 0 || listen(fd, SOMAXCONN) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}
