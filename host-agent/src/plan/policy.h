/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.h - the host policy file (/etc/vcpack/policy.json): parse,
 * validate, serialise, and resolve schedule windows to a level.
 * The format is documented in host-agent/policy.example.json.
 */
#ifndef VCP_POLICY_H
#define VCP_POLICY_H

#include <time.h>

#include <json-c/json.h>

#include "model.h"

/*
 * Parse policy JSON text; @source names it in messages ("policy.json").
 * Starts from vcp_policy_defaults() and overlays what the file says.
 * 0 or -EINVAL/-ENOMEM; on failure *ret_err (malloc'd, may be NULL on
 * -ENOMEM) says what is wrong with the key's path, e.g.
 * "policy.json: headroom: must be a number from 0 to 0.9, got 1.5", and
 * *ret is untouched. On success *ret is overwritten (not cleared first:
 * call vcp_policy_clear() on a policy you reuse).
 */
int vcp_policy_parse(const char *text, const char *source,
		     struct vcp_policy *ret, char **ret_err);
int vcp_policy_from_json(struct json_object *obj, const char *source,
			 struct vcp_policy *ret, char **ret_err);
/* Read and parse a file; -ENOENT is returned (with message) if missing. */
#define VCP_POLICY_MAX_BYTES (1 << 20)
int vcp_policy_load(const char *path, struct vcp_policy *ret,
		    char **ret_err);

/* The host's policy file when none is named (vcpack-policy(5)). */
#define VCP_POLICY_PATH VCP_SYSCONFDIR "/vcpack/policy.json"
/*
 * The rule vcpack, vcpackd and the hook share: the built-in defaults,
 * overlaid with @path when one is named (missing, it is -ENOENT like any
 * other failure), else with @fallback when that file exists (when it does
 * not: the defaults alone, and 0). *ret_path names the file tried, for
 * messages. On failure *ret holds the defaults and *ret_err says why, as
 * vcp_policy_load() does.
 */
int vcp_policy_load_or(const char *path, const char *fallback,
		       struct vcp_policy *ret, const char **ret_path,
		       char **ret_err);
/* vcp_policy_load_or() with VCP_POLICY_PATH as the fallback. */
int vcp_policy_load_host(const char *path, struct vcp_policy *ret,
			 const char **ret_path, char **ret_err);
/*
 * The configured level (0, 1, 2 or VCP_LEVEL_AUTO) in force at local
 * time @tm (tm_wday, tm_hour, tm_min): the first matching window, else
 * p->level. A window whose end is before its start runs past midnight and
 * belongs to the day it starts on. Pure.
 */
int vcp_policy_level_at(const struct vcp_policy *p, const struct tm *tm);
/* Serialise (for `vcpack status --json` and tests); every key present. */
struct json_object *vcp_policy_to_json(const struct vcp_policy *p);

/* A JSON number rounded to 3 decimals that prints as such ("0.25"), so
 * golden files are stable. Shared by the JSON writers. */
struct json_object *vcp_json_double3(double d);

#endif
