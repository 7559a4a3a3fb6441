/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jsonfile.h - reading the JSON files people write (policy.json,
 * FLEET.json): whole-file reads with a size limit, and parsing with the
 * line of the first error in the message. No other I/O.
 */
#ifndef VCP_JSONFILE_H
#define VCP_JSONFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* Read @path (at most @max bytes) into a NUL-terminated buffer (a NUL
 * byte inside is refused: -EINVAL), never blocking: -EINVAL "PATH: not a regular file (a FIFO)" for a FIFO,
 * directory, device or socket. 0, -errno with "PATH: reason" in
 * *ret_err, -EFBIG past @max, -ENOMEM. */
int vcp_file_read(const char *path, size_t max, char **ret, char **ret_err);
/* Parse one strict JSON value filling all of @text (white space may
 * follow; see jsonstrict.h: no comments, single quotes, trailing commas
 * or duplicate keys). -EINVAL with "SOURCE: not valid JSON at line N:
 * reason" or "SOURCE: PATH: duplicate key (lines A and B)". */
int vcp_json_parse(const char *text, const char *source,
		   struct json_object **ret, char **ret_err);
/* Is @v a JSON integer from @min to @max (then *ret holds it)? */
bool vcp_json_int_in(struct json_object *v, int64_t min, int64_t max,
		     int64_t *ret);
/* Is @v a JSON number (integer or not) from @min to @max? */
bool vcp_json_number_in(struct json_object *v, double min, double max,
			double *ret);
/* How a value looks in a message: its JSON text ("null" for NULL). */
const char *vcp_json_shown(struct json_object *v);

/*
 * Typed reads of one key of a file people write. Each refuses a value of
 * the wrong type or range with -EINVAL and "SRC: PATH: must be ..., got
 * VALUE" in *k->err, and leaves *ret untouched then.
 */
struct vcp_jkey {
	const char *src; /* the file's name, as messages show it */
	char **err;
};

int vcp_jget_str(const struct vcp_jkey *k, const char *path,
		 struct json_object *v, size_t max, char **ret);
int vcp_jget_bool(const struct vcp_jkey *k, const char *path,
		  struct json_object *v, bool *ret);
int vcp_jget_uint(const struct vcp_jkey *k, const char *path,
		  struct json_object *v, unsigned int lo, unsigned int hi,
		  unsigned int *ret);
int vcp_jget_num(const struct vcp_jkey *k, const char *path,
		 struct json_object *v, double lo, double hi, double *ret);

/* A command as the fleet file gives it (an argv run without a shell):
 * an array of 1 to VCP_MAX_ARGS non-empty strings of at most
 * VCP_MAX_ARG_LEN bytes, into a NULL-terminated, malloc'd *ret (an
 * earlier one freed). */
#define VCP_MAX_ARGS 64
#define VCP_MAX_ARG_LEN 4096
int vcp_jget_argv(const struct vcp_jkey *k, const char *path,
		  struct json_object *v, char ***ret);
/* Free a NULL-terminated argv (NULL: nothing). */
void vcp_argv_free(char **argv);

#endif
