/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysfile.h - reading the one-line files of sysfs, procfs and cgroupfs
 * (or a fixture tree standing in for them), naming a file under such a
 * root, finding a daemon's process under it, and writing a state file
 * (with the directories it goes in) or removing it.
 */
#ifndef VCP_SYSFILE_H
#define VCP_SYSFILE_H

#include <stddef.h>

/* The first line of @path, trailing white space cut, in @buf (@len
 * bytes, longer content truncated). Never blocks: opened as
 * vcp_open_regular() does (rdfile.h). 0 or -errno (-VCP_ENOTREG: not a
 * regular file, a FIFO say). */
int vcp_read_line(const char *path, char *buf, size_t len);

/* ROOT followed by the printf-formatted absolute path @fmt ("/" as root
 * adds nothing), malloc'd; NULL when out of memory. */
char *vcp_root_path(const char *root, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A pid under ROOT/proc whose comm is @comm (the first found), or 0. */
int vcp_proc_find_comm(const char *root, const char *comm);

/*
 * The pid of the daemon @comm under @root: the one ROOT@pidfile names
 * when ROOT/proc/PID/comm reads @comm (a stale file naming a pid that is
 * gone, or one taken by another program, does not count), else
 * vcp_proc_find_comm()'s. 0 when none runs.
 */
int vcp_proc_find_daemon(const char *root, const char *pidfile,
			 const char *comm);

/*
 * Make the directories above @path, as `mkdir -p` of its dirname does
 * (mode 0755; those there already are fine). 0, or -errno of the first
 * that cannot be made (-ENOTDIR when one is not a directory); the
 * directories made before it stay.
 */
int vcp_mkdir_parents(const char *path);

/* Replace @path by @text and a newline, atomically: written to
 * PATH.tmp.PID, fsync'd, renamed over @path; the temporary file is
 * removed on failure. 0 or -errno. */
int vcp_file_replace(const char *path, const char *text);

/*
 * A small state file's new content: @text and a newline replace @path
 * atomically (vcp_file_replace()), its directories made first
 * (vcp_mkdir_parents()); a NULL @text removes @path (one that is not
 * there is fine). 0 or -errno.
 */
int vcp_state_file_put(const char *path, const char *text);

#endif
