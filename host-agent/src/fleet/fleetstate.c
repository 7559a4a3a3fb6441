// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleetstate.c - the fleet loop's state file: read through the strict
 * JSON reader (jsonfile.c, jsonstrict.c) and standbystate.c's checks,
 * written whole or not at all (a temporary file in the same directory,
 * fsync, rename, then the directory fsync'd), so that a crash or a full
 * disk never leaves the loop without its memory of sleeping hosts.
 */
#include "fleetstate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "errmsg.h"
#include "jsonfile.h"
#include "sysfile.h"

#define MAX_STATE (16 << 20)

const char *vcp_fleet_state_path(const char *given)
{
	const char *e = getenv("VCPACK_FLEET_STATE");

	if (given)
		return given;
	return e && *e ? e : VCP_FLEET_STATE;
}

int vcp_fleet_state_load(const char *path, const char *const *names,
			 size_t n, struct vcp_sb_state *ret, char **ret_err)
{
	struct json_object *o = NULL;
	char *text = NULL;
	int r = vcp_file_read(path, MAX_STATE, &text, ret_err);

	if (r == -ENOENT) {
		free(*ret_err);
		*ret_err = NULL;
		return vcp_sb_state_init(names, n, ret);
	}
	if (r < 0)
		return r;
	r = vcp_json_parse(text, path, &o, ret_err);
	free(text);
	if (r < 0)
		return r;
	r = vcp_sb_state_from_json(o, path, names, n, ret, ret_err);
	json_object_put(o);
	return r;
}

static int sync_dir(const char *path)
{
	char *d = strdup(path), *slash;
	int fd;

	if (!d)
		return -ENOMEM;
	slash = strrchr(d, '/');
	if (slash)
		*(slash == d ? slash + 1 : slash) = '\0';
	fd = open(slash ? d : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(d);
	if (fd < 0)
		return -errno;
	fsync(fd);
	close(fd);
	return 0;
}

int vcp_fleet_state_save(const char *path, const struct vcp_sb_state *s)
{
	const int flags = JSON_C_TO_STRING_PRETTY |
			  JSON_C_TO_STRING_NOSLASHESCAPE;
	struct json_object *o = vcp_sb_state_to_json(s);
	int r;

	if (!o)
		return -ENOMEM;
	r = vcp_state_file_put(path, json_object_to_json_string_ext(o, flags));
	json_object_put(o);
	return r < 0 ? r : sync_dir(path);
}

int vcp_fleet_state_lock(const char *path, int *ret_fd)
{
	char lk[4096];
	int fd, r = vcp_mkdir_parents(path);

	if (r < 0)
		return r;
	if (snprintf(lk, sizeof(lk), "%s.lock", path) >= (int)sizeof(lk))
		return -ENAMETOOLONG;
	fd = open(lk, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			r = -errno;
			close(fd);
			return r;
		}
	}
	*ret_fd = fd;
	return 0;
}

int vcp_fleet_state_run_lock(const char *path, int *ret_fd, long *ret_pid)
{
	char lk[4096], buf[32];
	int fd, r = vcp_mkdir_parents(path);
	ssize_t n;

	*ret_pid = 0;
	if (r < 0)
		return r;
	if (snprintf(lk, sizeof(lk), "%s.run", path) >= (int)sizeof(lk))
		return -ENAMETOOLONG;
	fd = open(lk, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		if (r == -EBUSY && n > 0) {
			buf[n] = '\0';
			*ret_pid = strtol(buf, NULL, 10);
		}
		close(fd);
		return r;
	}
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n) {
		r = -errno;
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

void vcp_fleet_state_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}
