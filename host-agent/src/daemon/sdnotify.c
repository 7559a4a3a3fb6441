// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sdnotify.c - tells systemd how vcpackd is doing (READY, STATUS,
 * WATCHDOG, RELOADING, STOPPING) the way sd_notify(3) does, without
 * linking libsystemd: a datagram to $NOTIFY_SOCKET. A name starting with
 * '@' is an abstract socket (a leading NUL byte, no trailing one). Each
 * call opens, sends and closes its own socket: a few datagrams a minute
 * do not need more. No logging; errors are -errno.
 */
#include "sdnotify.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* @path as a sockaddr: 0 and its length, or -errno. */
static int notify_addr(const char *path, struct sockaddr_un *sa,
		       socklen_t *ret_len)
{
	size_t n = strlen(path);

	if (path[0] != '/' && path[0] != '@')
		return -EAFNOSUPPORT;
	if (n >= sizeof(sa->sun_path) || n < 2)
		return n < 2 ? -EINVAL : -ENAMETOOLONG;
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, path, n);
	if (path[0] == '@') {
		sa->sun_path[0] = '\0';
		*ret_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	} else {
		*ret_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	}
	return 0;
}

int vcp_sd_notify_to(const char *path, const char *state)
{
	struct sockaddr_un sa;
	socklen_t len;
	ssize_t n;
	int fd, r;

	r = notify_addr(path, &sa, &len);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, state, strlen(state), MSG_NOSIGNAL,
		   (struct sockaddr *)&sa, len);
	r = n < 0 ? -errno : (size_t)n == strlen(state) ? 0 : -EMSGSIZE;
	close(fd);
	return r;
}

int vcp_sd_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");

	if (!path || !*path)
		return 0;
	return vcp_sd_notify_to(path, state);
}

/* A whole decimal number of @s, or -EINVAL. */
static int parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int vcp_sd_watchdog_parse(const char *usec, const char *pid, pid_t self,
			  uint64_t *ret_usec)
{
	uint64_t u, p;

	if (!usec || !*usec)
		return -ENODATA;
	if (parse_u64(usec, &u) < 0 || u == 0)
		return -EINVAL;
	if (pid && *pid) {
		if (parse_u64(pid, &p) < 0)
			return -EINVAL;
		if (p != (uint64_t)self)
			return -ENODATA;
	}
	*ret_usec = u;
	return 0;
}

int vcp_sd_watchdog_usec(uint64_t *ret_usec)
{
	return vcp_sd_watchdog_parse(getenv("WATCHDOG_USEC"),
				     getenv("WATCHDOG_PID"), getpid(), ret_usec);
}
