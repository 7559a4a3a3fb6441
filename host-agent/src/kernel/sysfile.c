// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysfile.c - one read() of a small kernel file (never blocking, regular
 * files only: rdfile.h), paths under a root, a
 * daemon's pid, and a state file with its directories (see sysfile.h).
 */
#include "sysfile.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdfile.h"

int vcp_read_line(const char *path, char *buf, size_t len)
{
	size_t n;
	int r = vcp_read_small(path, buf, len, false, NULL);

	if (r < 0)
		return r;
	n = strcspn(buf, "\n");
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

/* Does ROOT/proc/@pid/comm read @comm? */
static bool pid_has_comm(const char *root, long pid, const char *comm)
{
	char *path = vcp_root_path(root, "/proc/%ld/comm", pid), buf[32];
	bool yes = path && vcp_read_line(path, buf, sizeof(buf)) == 0 &&
		   strcmp(buf, comm) == 0;

	free(path);
	return yes;
}

int vcp_proc_find_comm(const char *root, const char *comm)
{
	char *dir = vcp_root_path(root, "/proc");
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *e;
	int found = 0;

	while (d && !found && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end || pid <= 0 || pid > 1 << 30)
			continue;
		if (pid_has_comm(root, pid, comm))
			found = (int)pid;
	}
	if (d)
		closedir(d);
	free(dir);
	return found;
}

/* The pid ROOT@pidfile names if its comm is @comm, else 0. */
static int pidfile_pid(const char *root, const char *pidfile, const char *comm)
{
	char *path = vcp_root_path(root, "%s", pidfile);
	char buf[32], *end;
	long pid = 0;

	if (path && vcp_read_line(path, buf, sizeof(buf)) == 0) {
		pid = strtol(buf, &end, 10);
		if (end == buf || *end || pid <= 0 || pid >= 1 << 30 ||
		    !pid_has_comm(root, pid, comm))
			pid = 0;
	}
	free(path);
	return (int)pid;
}

int vcp_proc_find_daemon(const char *root, const char *pidfile,
			 const char *comm)
{
	int pid = pidfile_pid(root, pidfile, comm);

	return pid ? pid : vcp_proc_find_comm(root, comm);
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

/* Write all @len bytes of @s to @fd. 0 or -errno. */
static int write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t w = write(fd, s, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		s += w;
		len -= (size_t)w;
	}
	return 0;
}

int vcp_file_replace(const char *path, const char *text)
{
	char *tmp = NULL;
	int fd, r;

	if (asprintf(&tmp, "%s.tmp.%ld", path, (long)getpid()) < 0)
		return -ENOMEM;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	r = fd < 0 ? -errno : write_all(fd, text, strlen(text));
	if (r == 0)
		r = write_all(fd, "\n", 1);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (fd >= 0 && close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0 && fd >= 0)
		unlink(tmp);
	free(tmp);
	return r;
}

int vcp_state_file_put(const char *path, const char *text)
{
	int r;

	if (!text)
		return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	r = vcp_mkdir_parents(path);
	return r < 0 ? r : vcp_file_replace(path, text);
}
