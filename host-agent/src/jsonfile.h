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

#endif
