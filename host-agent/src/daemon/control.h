/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control.h - what an operator told vcpackd at run time (`vcpack level`,
 * `vcpack pause`, `vcpack enable`), kept in a small state file so that it
 * outlives a restart and an upgrade: whether vcpack is enabled (said by
 * `vcpack enable`/`disable`; wins over the policy's "enabled"), a level
 * that overrides the policy's (and its schedule windows) until `vcpack
 * level policy`, and whether vcpackd is paused. The file is JSON:
 * {"enabled": null|bool, "enabled_since": T, "level": null|0|1|2|"auto",
 * "level_since": T, "paused": bool, "paused_since": T}; written whole to
 * FILE.tmp, then renamed over FILE.
 */
#ifndef VCP_CONTROL_H
#define VCP_CONTROL_H

#include <stdbool.h>
#include <time.h>

#include <json-c/json.h>

#include "model.h"

#define VCP_CONTROL_STATE "/var/lib/vcpack/state.json"
#define VCP_CONTROL_MAX_BYTES 4096

struct vcp_control {
	bool has_enabled;	/* `vcpack enable`/`disable` said so */
	bool enabled;
	long long enabled_since;
	bool has_level;		/* a level overrides the policy's */
	int level;		/* then 0, 1, 2 or VCP_LEVEL_AUTO */
	long long level_since;
	bool paused;
	long long paused_since;
};

/* "0", "1", "2", "auto" -> 0, 1, 2, VCP_LEVEL_AUTO; "policy" -> 0 with
 * *ret_policy true. -EINVAL for anything else. */
int vcp_control_level_parse(const char *s, int *ret_level, bool *ret_policy);
const char *vcp_control_level_name(int level);

/* The state file as JSON and back. -EINVAL with *ret_err naming the
 * member. */
struct json_object *vcp_control_to_json(const struct vcp_control *c);
int vcp_control_from_json(struct json_object *o, const char *source,
			  struct vcp_control *ret, char **ret_err);
/* Read @path: 0; a missing file is the empty state (nothing overridden,
 * not paused); -EINVAL (bad content) or -errno with *ret_err. */
int vcp_control_load(const char *path, struct vcp_control *ret,
		     char **ret_err);
/* Write @c to @path atomically (PATH.tmp, fsync, rename). 0 or -errno. */
int vcp_control_save(const char *path, const struct vcp_control *c);

/*
 * The configured level in force at local time @tm: the override, else
 * the first matching schedule window, else the policy's level; @why
 * (@len bytes) says which. Pure.
 */
int vcp_control_level_at(const struct vcp_control *c,
			 const struct vcp_policy *p, const struct tm *tm,
			 char *why, size_t len);

/*
 * Is vcpack enabled (may vcpackd change anything)? What `vcpack
 * enable`/`disable` said, else the policy's "enabled" (default false);
 * @why (@len bytes; NULL with 0 for none) says which. Pure.
 */
bool vcp_control_enabled(const struct vcp_control *c,
			 const struct vcp_policy *p, char *why, size_t len);

/* The policy a plan is made with: @p with @c's level laid over it (and
 * then no schedule windows). A shallow copy that borrows @p's arrays;
 * never cleared. Pure. */
struct vcp_policy vcp_control_policy(const struct vcp_control *c,
				     const struct vcp_policy *p);

#endif
