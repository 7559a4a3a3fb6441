/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdfile.h - the one way vcpack opens a file to read it: sysfs, procfs,
 * cgroupfs and the fixture trees standing in for them, the JSON files
 * people write, pid files. The open never blocks (O_NONBLOCK keeps it
 * from waiting for a FIFO's writer) and whatever is not a regular file
 * (a FIFO, directory, device or socket) is refused by name before any
 * read, so no file can stall a reader (or vcpackd past its SIGTERM).
 * Also the one parser of a counter's text (digits only).
 */
#ifndef VCP_RDFILE_H
#define VCP_RDFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* The error for "not a regular file" (Linux has no EFTYPE):
 * vcp_read_why() turns it into "PATH: not a regular file (a FIFO)". */
#define VCP_ENOTREG EMEDIUMTYPE

/*
 * Open @path read-only (O_NONBLOCK, O_NOCTTY, O_CLOEXEC) and check that
 * it is a regular file. 0 and *ret_fd, or -errno (-VCP_ENOTREG for a
 * FIFO, directory, device or socket) with "PATH: reason" in *ret_err
 * (@ret_err may be NULL).
 */
int vcp_open_regular(const char *path, int *ret_fd, char **ret_err);

/* The same as a stdio stream (fdopen "re"): for files read by line
 * (/proc/self/mountinfo). 0 and *ret, or -errno. */
int vcp_fopen_regular(const char *path, FILE **ret);

/*
 * The start of a small file: at most @len - 1 bytes of @path (one read
 * after vcp_open_regular()), NUL-terminated, in @buf. 0 or -errno (as
 * vcp_open_regular(); -EINVAL for @len < 2; -EFBIG when the file holds
 * @len bytes or more and @whole is set).
 */
int vcp_read_small(const char *path, char *buf, size_t len, bool whole,
		   char **ret_err);

/* Is @path a directory? false and -errno in *ret_err (-ENOTDIR when
 * it is something else). */
bool vcp_is_dir(const char *path, int *ret_err);

/* What @m is, for a message: "a FIFO", "a directory", ... */
const char *vcp_file_kind(mode_t m);

/* "PATH: reason" for an error of reading @path (-VCP_ENOTREG: "not a
 * regular file (a FIFO)", the kind looked up again), in @buf. */
const char *vcp_read_why(const char *path, int err, char *buf, size_t len);

/* A counter as sysfs and procfs write it: decimal digits only (no sign,
 * space or base prefix), at most UINT64_MAX. 0 or -EINVAL (-ERANGE past
 * UINT64_MAX). */
int vcp_parse_u64(const char *s, uint64_t *ret);

#endif
