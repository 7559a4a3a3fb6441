// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysfile.c - one read() of a small kernel file, paths under a root,
 * and a state file's directories (see sysfile.h).
 */
#include "sysfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int vcp_read_line(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, r = 0;

	if (len < 2)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		r = -errno;
	close(fd);
	if (r < 0)
		return r;
	buf[n] = '\0';
	n = (ssize_t)strcspn(buf, "\n");
	while (n > 0 && strchr(" \t", buf[n - 1]))
		n--;
	buf[n] = '\0';
	return 0;
}

char *vcp_root_path(const char *root, const char *fmt, ...)
{
	char *rel, *s;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&rel, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	if (asprintf(&s, "%s%s", strcmp(root, "/") ? root : "", rel) < 0)
		s = NULL;
	free(rel);
	return s;
}

static int mkdir_one(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0755) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int vcp_mkdir_parents(const char *path)
{
	char *d = strdup(path), *p;
	int r = 0;

	if (!d)
		return -ENOMEM;
	p = d + (*d == '/');
	while (r == 0 && (p = strchr(p, '/'))) {
		*p = '\0';
		r = mkdir_one(d);
		*p++ = '/';
	}
	free(d);
	return r;
}
