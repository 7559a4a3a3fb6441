/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jsonstrict.h - the strict JSON check run on the files people write
 * (policy.json, FLEET.json) before json-c builds objects from them.
 * json-c accepts comments, single quotes, trailing commas, NaN and keeps
 * the last of duplicate keys silently; this check accepts RFC 8259 JSON
 * only and refuses a duplicate key naming it and its path, and an escaped
 * NUL (\u0000: json-c cuts a key or value there, so "op\u0000" would be
 * a second "op"). Every JSON vcpack reads goes through it
 * (vcp_json_parse: files, state, control requests and replies). Pure.
 */
#ifndef VCP_JSONSTRICT_H
#define VCP_JSONSTRICT_H

#include <stddef.h>

/* Deepest nesting accepted (json-c's own default limit). */
#define VCP_JSON_MAX_DEPTH 32

/* Check @len bytes of @text: 0, or -EINVAL with "SOURCE: not valid JSON
 * at line N: reason" or "SOURCE: PATH: duplicate key (lines A and B)"
 * in *ret_err; -ENOMEM. */
int vcp_json_strict_check(const char *text, size_t len, const char *source,
			  char **ret_err);

#endif
