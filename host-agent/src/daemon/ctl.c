// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctl.c - control-socket client with deadlines (see ctl.h): non-blocking
 * connect, poll for every step against one deadline; the messages are
 * proto.c's. No output.
 */
#include "ctl.h"

#include "clock.h"
#include "errmsg.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Wait for @events on @fd until @deadline: 0, -ETIMEDOUT or -errno. */
static int wait_for(int fd, short events, long long deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	long long left = deadline - vcp_mono_ms();
	int n;

	if (left <= 0)
		return -ETIMEDOUT;
	n = poll(&p, 1, (int)left);
	if (n < 0)
		return -errno;
	return n ? 0 : -ETIMEDOUT;
}

static int open_conn(const char *path, long long deadline)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, r = 0, err = 0;
	socklen_t len = sizeof(err);

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = errno == EINPROGRESS || errno == EAGAIN ?
		    wait_for(fd, POLLOUT, deadline) : -errno;
		if (r == 0 && (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err,
					  &len) < 0 || err))
			r = err ? -err : -errno;
	}
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

static int send_line(int fd, const char *line, long long deadline)
{
	size_t len = strlen(line), off = 0;

	while (off < len) {
		ssize_t n = write(fd, line + off, len - off);

		if (n < 0 && errno == EAGAIN) {
			int r = wait_for(fd, POLLOUT, deadline);

			if (r < 0)
				return r;
			continue;
		}
		if (n < 0)
			return -errno;
		off += (size_t)n;
	}
	return 0;
}

int vcp_ctl_send(const char *path, const char *line, unsigned int timeout_ms)
{
	long long deadline = vcp_mono_ms() + timeout_ms;
	int fd = open_conn(path, deadline), r;

	if (fd < 0)
		return fd;
	r = send_line(fd, line, deadline);
	close(fd);
	return r;
}

/* Read up to the reply's newline (or the daemon's hang-up), at most
 * @max bytes, into a NUL-terminated *ret without the newline. */
static int read_line(int fd, size_t max, long long deadline, char **ret)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *nl = NULL;
	int r = 0;

	while (buf && r == 0 && !nl) {
		ssize_t n;

		if (len + 1 >= cap) {
			char *t = cap * 2 > max + 1 ? NULL : realloc(buf, cap * 2);

			if (!t) {
				r = cap * 2 > max + 1 ? -EFBIG : -ENOMEM;
				break;
			}
			buf = t;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n == 0)
			break;
		if (n > 0) {
			nl = memchr(buf + len, '\n', (size_t)n);
			len += (size_t)n;
		} else if (errno == EAGAIN) {
			r = wait_for(fd, POLLIN, deadline);
		} else {
			r = -errno;
		}
	}
	if (!buf)
		return -ENOMEM;
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[nl ? (size_t)(nl - buf) : len] = '\0';
	*ret = buf;
	return 0;
}

int vcp_ctl_request(const char *path, const char *line,
		    unsigned int timeout_ms, size_t max, char **ret_reply)
{
	long long deadline = vcp_mono_ms() + timeout_ms;
	int fd = open_conn(path, deadline), r;

	if (fd < 0)
		return fd;
	r = send_line(fd, line, deadline);
	if (r == 0)
		r = read_line(fd, max, deadline, ret_reply);
	close(fd);
	return r;
}

int vcp_ctl_call(const char *path, const struct vcp_req *req,
		 unsigned int timeout_ms, size_t max,
		 struct json_object **ret, char **ret_err)
{
	char *line = vcp_req_format(req), *reply = NULL;
	int r;

	if (!line)
		return -ENOMEM;
	r = vcp_ctl_request(path, line, timeout_ms, max, &reply);
	free(line);
	if (r < 0)
		return vcp_err(ret_err, r, "%s: %s", path, strerror(-r));
	r = vcp_reply_parse(reply, ret, ret_err);
	free(reply);
	return r;
}

int vcp_ctl_status(const char *path, unsigned int timeout_ms,
		   struct vcp_status *ret, char **ret_err)
{
	struct vcp_req req = { .op = VCP_REQ_STATUS };
	struct json_object *o = NULL, *st;
	int r = vcp_ctl_call(path, &req, timeout_ms, VCP_CTL_MAX_REPLY, &o,
			     ret_err);

	if (r < 0)
		return r;
	if (!json_object_object_get_ex(o, "status", &st))
		r = vcp_err(ret_err, -EBADMSG, "reply: no \"status\"");
	else
		r = vcp_status_from_json(st, ret, ret_err);
	json_object_put(o);
	return r;
}

int vcp_ctl_notify(const char *path, const char *event, const char *sub,
		   const char *vm, unsigned int timeout_ms)
{
	struct vcp_req req = { .op = VCP_REQ_HOOK };
	char *line;
	int r;

	if (strlen(event) >= sizeof(req.event) ||
	    strlen(sub) >= sizeof(req.sub) || strlen(vm) >= sizeof(req.vm))
		return -ENAMETOOLONG;
	strcpy(req.event, event);
	strcpy(req.sub, sub);
	strcpy(req.vm, vm);
	line = vcp_req_format(&req);
	if (!line)
		return -ENOMEM;
	r = vcp_ctl_send(path, line, timeout_ms);
	free(line);
	return r;
}
