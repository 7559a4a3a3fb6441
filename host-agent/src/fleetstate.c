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
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "jsonfile.h"

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

static int mkdir_parent(const char *path)
{
	char *d = strdup(path), *slash;
	int r = 0;

	if (!d)
		return -ENOMEM;
	slash = strrchr(d, '/');
	if (slash && slash != d) {
		*slash = '\0';
		if (mkdir(d, 0755) < 0 && errno != EEXIST)
			r = -errno;
	}
	free(d);
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

int vcp_fleet_state_save(const char *path, const struct vcp_sb_state *s)
{
	struct json_object *o = vcp_sb_state_to_json(s);
	char tmp[4096];
	const char *text;
	int fd, r;

	if (!o)
		return -ENOMEM;
	r = mkdir_parent(path);
	if (r == 0 && snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path,
			       (long)getpid()) >= (int)sizeof(tmp))
		r = -ENAMETOOLONG;
	fd = r == 0 ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			   0644) : -1;
	if (r == 0 && fd < 0)
		r = -errno;
	if (r == 0) {
		text = json_object_to_json_string_ext(o,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
		r = write_all(fd, text, strlen(text));
		if (r == 0)
			r = write_all(fd, "\n", 1);
		if (r == 0 && fsync(fd) < 0)
			r = -errno;
		if (close(fd) < 0 && r == 0)
			r = -errno;
		if (r == 0 && rename(tmp, path) < 0)
			r = -errno;
		if (r < 0)
			unlink(tmp);
	}
	json_object_put(o);
	return r < 0 ? r : sync_dir(path);
}

int vcp_fleet_state_lock(const char *path, int *ret_fd)
{
	char lk[4096];
	int fd, r = mkdir_parent(path);

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

void vcp_fleet_state_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}
