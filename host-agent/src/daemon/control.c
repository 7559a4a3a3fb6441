// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * control.c - the run-time control state of vcpackd (see control.h):
 * parse and format it, read and atomically write its file, and say
 * which level is in force and why. Only the load and save do I/O, on
 * the one path they are given.
 */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "jsonfile.h"
#include "policy.h"
#include "sysfile.h"

int vcp_control_level_parse(const char *s, int *ret_level, bool *ret_policy)
{
	static const char *const names[] = { "0", "1", "2" };

	*ret_policy = false;
	if (!s)
		return -EINVAL;
	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			*ret_level = i;
			return 0;
		}
	if (strcmp(s, "auto") == 0) {
		*ret_level = VCP_LEVEL_AUTO;
		return 0;
	}
	if (strcmp(s, "policy") == 0) {
		*ret_level = 0;
		*ret_policy = true;
		return 0;
	}
	return -EINVAL;
}

const char *vcp_control_level_name(int level)
{
	static const char *const names[] = { "0", "1", "2" };

	return level >= 0 && level <= 2 ? names[level] : "auto";
}

static struct json_object *level_json(int level)
{
	return level == VCP_LEVEL_AUTO ? json_object_new_string("auto") :
					 json_object_new_int(level);
}

struct json_object *vcp_control_to_json(const struct vcp_control *c)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "enabled", c->has_enabled ?
			       json_object_new_boolean(c->enabled) : NULL);
	json_object_object_add(o, "enabled_since", c->has_enabled ?
			       json_object_new_int64(c->enabled_since) : NULL);
	json_object_object_add(o, "level", c->has_level ?
			       level_json(c->level) : NULL);
	json_object_object_add(o, "level_since", c->has_level ?
			       json_object_new_int64(c->level_since) : NULL);
	json_object_object_add(o, "paused", json_object_new_boolean(c->paused));
	json_object_object_add(o, "paused_since", c->paused ?
			       json_object_new_int64(c->paused_since) : NULL);
	return o;
}

static int since_of(struct json_object *o, const char *key, long long *ret)
{
	struct json_object *v;
	int64_t t = 0;

	if (json_object_object_get_ex(o, key, &v) && v &&
	    !vcp_json_int_in(v, 0, INT64_MAX, &t))
		return -EINVAL;
	*ret = t;
	return 0;
}

int vcp_control_from_json(struct json_object *o, const char *source,
			  struct vcp_control *ret, char **ret_err)
{
	struct vcp_control c = { 0 };
	struct json_object *v;
	int64_t n;
	bool pol;

	if (!json_object_is_type(o, json_type_object))
		return vcp_err(ret_err, -EINVAL, "%s: not a JSON object", source);
	if (json_object_object_get_ex(o, "level", &v) && v) {
		if (json_object_is_type(v, json_type_string) ?
		    vcp_control_level_parse(json_object_get_string(v), &c.level,
					    &pol) < 0 || pol :
		    !vcp_json_int_in(v, 0, 2, &n))
			return vcp_err(ret_err, -EINVAL, "%s: level: must be null, 0, 1, 2 or \"auto\", got %s",
				       source, vcp_json_shown(v));
		if (!json_object_is_type(v, json_type_string))
			c.level = (int)n;
		c.has_level = true;
	}
	if (json_object_object_get_ex(o, "enabled", &v) && v) {
		if (!json_object_is_type(v, json_type_boolean))
			return vcp_err(ret_err, -EINVAL, "%s: enabled: must be null, true or false, got %s",
				       source, vcp_json_shown(v));
		c.has_enabled = true;
		c.enabled = json_object_get_boolean(v);
	}
	if (since_of(o, "enabled_since", &c.enabled_since) < 0)
		return vcp_err(ret_err, -EINVAL, "%s: enabled_since must be null or seconds since the epoch",
			       source);
	if (json_object_object_get_ex(o, "paused", &v) &&
	    !json_object_is_type(v, json_type_boolean))
		return vcp_err(ret_err, -EINVAL, "%s: paused: must be true or false, got %s",
			       source, vcp_json_shown(v));
	c.paused = v && json_object_get_boolean(v);
	if (since_of(o, "level_since", &c.level_since) < 0 ||
	    since_of(o, "paused_since", &c.paused_since) < 0)
		return vcp_err(ret_err, -EINVAL, "%s: level_since and paused_since must be null or seconds since the epoch",
			       source);
	*ret = c;
	return 0;
}

int vcp_control_load(const char *path, struct vcp_control *ret,
		     char **ret_err)
{
	struct json_object *o = NULL;
	char *text = NULL;
	int r = vcp_file_read(path, VCP_CONTROL_MAX_BYTES, &text, ret_err);

	if (r == -ENOENT) {
		free(*ret_err);
		*ret_err = NULL;
		*ret = (struct vcp_control){ 0 };
		return 0;
	}
	if (r < 0)
		return r;
	r = vcp_json_parse(text, path, &o, ret_err);
	if (r == 0)
		r = vcp_control_from_json(o, path, ret, ret_err);
	json_object_put(o);
	free(text);
	return r;
}

int vcp_control_save(const char *path, const struct vcp_control *c)
{
	struct json_object *o = vcp_control_to_json(c);
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
	int r = s ? vcp_file_replace(path, s) : -ENOMEM;

	json_object_put(o);
	return r;
}

int vcp_control_level_at(const struct vcp_control *c,
			 const struct vcp_policy *p, const struct tm *tm,
			 char *why, size_t len)
{
	int level = vcp_policy_level_at(p, tm);

	if (c && c->has_level) {
		snprintf(why, len, "set with 'vcpack level %s' (overrides the policy until 'vcpack level policy')",
			 vcp_control_level_name(c->level));
		return c->level;
	}
	for (size_t i = 0; i < p->n_windows; i++) {
		struct tm t = *tm;
		struct vcp_policy one = { .level = -2, .windows = p->windows + i,
					  .n_windows = 1 };

		if (vcp_policy_level_at(&one, &t) != -2) {
			const struct vcp_window *w = &p->windows[i];

			snprintf(why, len, "policy schedule window %zu (%02u:%02u-%02u:%02u)",
				 i, w->start / 60, w->start % 60, w->end / 60,
				 w->end % 60);
			return level;
		}
	}
	snprintf(why, len, "the policy's level");
	return level;
}

struct vcp_policy vcp_control_policy(const struct vcp_control *c,
				     const struct vcp_policy *p)
{
	struct vcp_policy r = *p;

	if (c->has_level) {
		r.level = c->level;
		r.n_windows = 0;
	}
	return r;
}

bool vcp_control_enabled(const struct vcp_control *c,
			 const struct vcp_policy *p, char *why, size_t len)
{
	if (c->has_enabled)
		snprintf(why, len, "%s with 'vcpack %s'",
			 c->enabled ? "enabled" : "disabled",
			 c->enabled ? "enable" : "disable");
	else if (p->enabled)
		snprintf(why, len, "enabled by the policy (\"enabled\": true)");
	else
		snprintf(why, len, "not enabled yet: vcpackd observes and plans but changes nothing until 'vcpack enable'");
	return c->has_enabled ? c->enabled : p->enabled;
}
