// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rdfile.c - opening a file to read it without ever blocking, and
 * refusing what is not a regular file by name (see rdfile.h).
 */
#include "rdfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"

const char *vcp_file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	return "not a plain file";
}

static int not_regular(const char *path, mode_t m, char **ret_err)
{
	return vcp_err(ret_err, -VCP_ENOTREG, "%s: not a regular file (%s)",
		       path, vcp_file_kind(m));
}

int vcp_open_regular(const char *path, int *ret_fd, char **ret_err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int e = errno;

	/* a socket (ENXIO) or some devices refuse the open itself */
	if (fd < 0 && (e == ENXIO || e == EOPNOTSUPP) && stat(path, &st) == 0 &&
	    !S_ISREG(st.st_mode))
		return not_regular(path, st.st_mode, ret_err);
	if (fd < 0)
		return vcp_err(ret_err, -e, "%s: %s", path, strerror(e));
	if (fstat(fd, &st) < 0) {
		e = errno;
		close(fd);
		return vcp_err(ret_err, -e, "%s: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return not_regular(path, st.st_mode, ret_err);
	}
	*ret_fd = fd;
	return 0;
}

int vcp_fopen_regular(const char *path, FILE **ret)
{
	FILE *f;
	int fd, r = vcp_open_regular(path, &fd, NULL);

	if (r < 0)
		return r;
	f = fdopen(fd, "re");
	if (!f) {
		r = -errno;
		close(fd);
		return r;
	}
	*ret = f;
	return 0;
}

int vcp_read_small(const char *path, char *buf, size_t len, bool whole,
		   char **ret_err)
{
	ssize_t n;
	int fd, r;

	if (len < 2)
		return -EINVAL;
	r = vcp_open_regular(path, &fd, ret_err);
	if (r < 0)
		return r;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	r = n < 0 ? -errno : 0;
	if (r == 0 && whole && (size_t)n == len - 1) {
		char more;

		if (read(fd, &more, 1) > 0)
			r = -EFBIG;
	}
	close(fd);
	if (r == -EFBIG)
		return vcp_err(ret_err, r, "%s: larger than %zu bytes", path,
			       len - 1);
	if (r < 0)
		return vcp_err(ret_err, r, "%s: read error: %s", path,
			       strerror(-r));
	buf[n] = '\0';
	return 0;
}

bool vcp_is_dir(const char *path, int *ret_err)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		*ret_err = -errno;
		return false;
	}
	*ret_err = S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	return *ret_err == 0;
}

const char *vcp_read_why(const char *path, int err, char *buf, size_t len)
{
	struct stat st;

	if (err == -VCP_ENOTREG && stat(path, &st) == 0)
		snprintf(buf, len, "%s: not a regular file (%s)", path,
			 vcp_file_kind(st.st_mode));
	else if (err == -VCP_ENOTREG)
		snprintf(buf, len, "%s: not a regular file", path);
	else
		snprintf(buf, len, "%s: %s", path, strerror(-err));
	return buf;
}

int vcp_parse_u64(const char *s, uint64_t *ret)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (d > 9)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*ret = v;
	return 0;
}
