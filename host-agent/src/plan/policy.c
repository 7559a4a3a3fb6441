// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * policy.c - the policy file: JSON (json-c) into struct vcp_policy and
 * back, and the schedule-window lookup.
 *
 * Promises: a file overlays vcp_policy_defaults(), so a partial file is
 * fine; every unknown key, wrong type and out-of-range value is refused
 * with its key path ("policy.json: windows[1].days[0]: unknown day
 * 'Mun'"), and a refused file changes nothing. A "_comment" key is
 * accepted and ignored in the top-level object and in window objects
 * (JSON has no comments; host-agent/policy.example.json uses them to
 * document the format). Nothing here logs; level_at is pure.
 */
#include "policy.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "jsonfile.h"

struct pctx {
	const char *source;
	char **ret_err;
};

static const char *const day_names[7] = {
	"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat",
};

/* Set *ret_err to "SOURCE: PATH: MESSAGE" and return -EINVAL. */
__attribute__((format(printf, 3, 4)))
static int fail(const struct pctx *c, const char *path, const char *fmt, ...)
{
	char where[256];
	va_list ap;
	int r;

	if (path && *path)
		snprintf(where, sizeof(where), "%s: %s", c->source, path);
	else
		snprintf(where, sizeof(where), "%s", c->source);
	va_start(ap, fmt);
	r = vcp_verr_at(c->ret_err, -EINVAL, where, fmt, ap);
	va_end(ap);
	return r;
}

static int get_fraction(const struct pctx *c, const char *key,
			struct json_object *v, double max, double *ret)
{
	if (vcp_json_number_in(v, 0, max, ret))
		return 0;
	return fail(c, key, "must be a number from 0 to %g, got %s", max,
		    vcp_json_shown(v));
}

static int get_uint(const struct pctx *c, const char *key,
		    struct json_object *v, int64_t min, int64_t max,
		    unsigned int *ret)
{
	int64_t n;

	if (vcp_json_int_in(v, min, max, &n)) {
		*ret = (unsigned int)n;
		return 0;
	}
	return fail(c, key, "must be a whole number from %lld to %lld, got %s",
		    (long long)min, (long long)max, vcp_json_shown(v));
}

/* 0, 1, 2 or "auto" (a number or the string). */
static int get_level(const struct pctx *c, const char *key,
		     struct json_object *v, int *ret)
{
	if (json_object_is_type(v, json_type_int)) {
		int64_t n = json_object_get_int64(v);

		if (n >= 0 && n <= 2) {
			*ret = (int)n;
			return 0;
		}
	} else if (json_object_is_type(v, json_type_string) &&
		   strcmp(json_object_get_string(v), "auto") == 0) {
		*ret = VCP_LEVEL_AUTO;
		return 0;
	}
	return fail(c, key, "must be 0, 1, 2 or \"auto\", got %s", vcp_json_shown(v));
}

static int parse_priorities(const struct pctx *c, struct json_object *v,
			    struct vcp_policy *p)
{
	char path[64];

	if (!json_object_is_type(v, json_type_object))
		return fail(c, "priorities", "must be an object, got %s",
			    vcp_json_shown(v));
	json_object_object_foreach(v, key, val) {
		enum vcp_priority prio;
		enum vcp_class cls;

		snprintf(path, sizeof(path), "priorities.%s", key);
		if (vcp_priority_from_name(key, &prio) < 0)
			return fail(c, path, "unknown priority (expected high, normal or low)");
		if (!json_object_is_type(val, json_type_string) ||
		    vcp_class_from_name(json_object_get_string(val), &cls) < 0)
			return fail(c, path, "must be \"spread\", \"balanced\" or \"pack\", got %s",
				    vcp_json_shown(val));
		p->prio_class[prio] = cls;
	}
	return 0;
}

static int parse_days(const struct pctx *c, const char *wpath,
		      struct json_object *v, uint8_t *ret)
{
	char path[64];
	uint8_t days = 0;
	size_t at[7];

	snprintf(path, sizeof(path), "%s.days", wpath);
	if (!json_object_is_type(v, json_type_array) ||
	    json_object_array_length(v) == 0)
		return fail(c, path, "must be a non-empty array of days (\"Mon\" ... \"Sun\"), got %s",
			    vcp_json_shown(v));
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		struct json_object *d = json_object_array_get_idx(v, i);
		int k;

		snprintf(path, sizeof(path), "%s.days[%zu]", wpath, i);
		if (!json_object_is_type(d, json_type_string))
			return fail(c, path, "must be a day name such as \"Mon\", got %s",
				    vcp_json_shown(d));
		for (k = 0; k < 7; k++)
			if (strcmp(json_object_get_string(d), day_names[k]) == 0)
				break;
		if (k == 7)
			return fail(c, path, "unknown day '%s'",
				    json_object_get_string(d));
		if (days & (1u << k))
			return fail(c, path, "'%s' is also days[%zu]",
				    day_names[k], at[k]);
		days |= (uint8_t)(1u << k);
		at[k] = i;
	}
	*ret = days;
	return 0;
}

static bool two_digits(const char *s)
{
	return s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9';
}

/* "HH:MM" (digits only), 00:00 to 24:00, into minutes of the day. */
static int parse_time(const struct pctx *c, const char *wpath,
		      const char *key, struct json_object *v, uint16_t *ret)
{
	char path[64];
	unsigned int h, m;
	const char *s;

	snprintf(path, sizeof(path), "%s.%s", wpath, key);
	if (!json_object_is_type(v, json_type_string))
		goto bad;
	s = json_object_get_string(v);
	if (strlen(s) != 5 || !two_digits(s) || s[2] != ':' ||
	    !two_digits(s + 3))
		goto bad;
	h = (unsigned int)((s[0] - '0') * 10 + (s[1] - '0'));
	m = (unsigned int)((s[3] - '0') * 10 + (s[4] - '0'));
	if (m > 59 || h > 24 || (h == 24 && m))
		goto bad;
	*ret = (uint16_t)(h * 60 + m);
	return 0;
bad:
	return fail(c, path, "must be a time \"HH:MM\" from \"00:00\" to \"24:00\", got %s",
		    vcp_json_shown(v));
}

static int parse_window(const struct pctx *c, size_t idx,
			struct json_object *v, struct vcp_window *w)
{
	struct json_object *from = NULL, *to = NULL, *level = NULL;
	char path[32], kpath[64];
	int r;

	snprintf(path, sizeof(path), "windows[%zu]", idx);
	if (!json_object_is_type(v, json_type_object))
		return fail(c, path, "must be an object, got %s", vcp_json_shown(v));
	w->days = 0x7f;
	json_object_object_foreach(v, key, val) {
		snprintf(kpath, sizeof(kpath), "%s.%s", path, key);
		if (strcmp(key, "days") == 0) {
			r = parse_days(c, path, val, &w->days);
			if (r < 0)
				return r;
		} else if (strcmp(key, "from") == 0) {
			from = val;
		} else if (strcmp(key, "to") == 0) {
			to = val;
		} else if (strcmp(key, "level") == 0) {
			level = val;
			r = get_level(c, kpath, val, &w->level);
			if (r < 0)
				return r;
		} else if (strcmp(key, "_comment") != 0) {
			return fail(c, kpath, "unknown key (expected days, from, to, level)");
		}
	}
	if (!from || !to || !level)
		return fail(c, path, "needs \"from\", \"to\" and \"level\"");
	r = parse_time(c, path, "from", from, &w->start);
	if (r == 0)
		r = parse_time(c, path, "to", to, &w->end);
	if (r < 0)
		return r;
	if (w->start == w->end) {
		snprintf(kpath, sizeof(kpath), "%s.to", path);
		return fail(c, kpath, "must differ from \"from\" (use \"00:00\" to \"24:00\" for a whole day)");
	}
	return 0;
}

static int parse_windows(const struct pctx *c, struct json_object *v,
			 struct vcp_policy *p)
{
	struct vcp_window *ws;
	size_t n;
	int r;

	if (!json_object_is_type(v, json_type_array))
		return fail(c, "windows", "must be an array, got %s", vcp_json_shown(v));
	n = json_object_array_length(v);
	ws = calloc(n ? n : 1, sizeof(*ws));
	if (!ws)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		r = parse_window(c, i, json_object_array_get_idx(v, i), &ws[i]);
		if (r < 0) {
			free(ws);
			return r;
		}
	}
	free(p->windows);
	p->windows = ws;
	p->n_windows = n;
	return 0;
}

static int get_foreign(const struct pctx *c, const char *key,
		       struct json_object *v, struct vcp_policy *p)
{
	const char *s = json_object_get_string(v);

	if (json_object_is_type(v, json_type_string) && !strcmp(s, "restate"))
		p->respect_foreign_pins = false;
	else if (json_object_is_type(v, json_type_string) &&
		 !strcmp(s, "respect"))
		p->respect_foreign_pins = true;
	else
		return fail(c, key, "must be \"restate\" or \"respect\", got %s",
			    vcp_json_shown(v));
	return 0;
}

/* A cpulist ("0-1,32-33"); "" is none. Whether the CPUs exist is the
 * planner's check (vcp_plan_check_reserved()): it knows the host. */
static int get_cpulist(const struct pctx *c, const char *key,
		       struct json_object *v, struct vcp_cpuset *ret)
{
	/* digits, '-' and ',' only: no white space around or inside, as
	 * strict as the times (vcp_cpuset_parse also reads sysfs files,
	 * which end in a newline) */
	if (json_object_is_type(v, json_type_string) &&
	    strspn(json_object_get_string(v), "0123456789-,") ==
		    strlen(json_object_get_string(v)) &&
	    vcp_cpuset_parse(json_object_get_string(v), ret) == 0)
		return 0;
	return fail(c, key, "must be a CPU list such as \"0-1,32-33\" (CPUs 0-%d), got %s",
		    VCP_MAX_CPUS - 1, vcp_json_shown(v));
}

static int get_bool(const struct pctx *c, const char *key,
		    struct json_object *v, bool *ret)
{
	if (!json_object_is_type(v, json_type_boolean))
		return fail(c, key, "must be true or false, got %s",
			    vcp_json_shown(v));
	*ret = json_object_get_boolean(v);
	return 0;
}

static int get_onoff(const struct pctx *c, const char *key,
		     struct json_object *v, bool *ret)
{
	const char *s = json_object_get_string(v);

	if (json_object_is_type(v, json_type_string) &&
	    (!strcmp(s, "on") || !strcmp(s, "off"))) {
		*ret = !strcmp(s, "on");
		return 0;
	}
	return fail(c, key, "must be \"on\" or \"off\", got %s",
		    vcp_json_shown(v));
}

static int parse_key(const struct pctx *c, const char *key,
		     struct json_object *v, struct vcp_policy *p)
{
	if (strcmp(key, "priorities") == 0)
		return parse_priorities(c, v, p);
	if (strcmp(key, "level") == 0)
		return get_level(c, key, v, &p->level);
	if (strcmp(key, "windows") == 0)
		return parse_windows(c, v, p);
	if (strcmp(key, "headroom") == 0)
		return get_fraction(c, key, v, 0.9, &p->headroom);
	if (strcmp(key, "default_vcpu_demand") == 0)
		return get_fraction(c, key, v, 1, &p->default_vcpu_demand);
	if (strcmp(key, "busy_vcpu_demand") == 0)
		return get_fraction(c, key, v, 1, &p->busy_vcpu_demand);
	if (strcmp(key, "smt_yield") == 0)
		return get_fraction(c, key, v, 1, &p->smt_yield);
	if (strcmp(key, "sample_interval") == 0)
		return get_uint(c, key, v, 1, 3600, &p->sample_interval_s);
	if (strcmp(key, "shrink_after") == 0)
		return get_uint(c, key, v, 0, 86400, &p->shrink_after_s);
	if (strcmp(key, "max_vcpu_delay") == 0)
		return get_fraction(c, key, v, 1, &p->max_vcpu_delay);
	if (strcmp(key, "foreign_pins") == 0)
		return get_foreign(c, key, v, p);
	if (strcmp(key, "reserved_cpus") == 0)
		return get_cpulist(c, key, v, &p->reserved_cpus);
	if (strcmp(key, "irq_affinity") == 0)
		return get_onoff(c, key, v, &p->irq_affinity);
	if (strcmp(key, "strict_tags") == 0)
		return get_bool(c, key, v, &p->strict_tags);
	if (strcmp(key, "enabled") == 0)
		return get_bool(c, key, v, &p->enabled);
	if (strcmp(key, "exclusive_cores") == 0)
		return get_bool(c, key, v, &p->exclusive_cores);
	if (strcmp(key, "require_trial") == 0)
		return get_bool(c, key, v, &p->require_trial);
	if (strcmp(key, "memory_follows") == 0)
		return get_bool(c, key, v, &p->memory_follows);
	if (strcmp(key, "_comment") == 0)
		return 0;
	return fail(c, key, "unknown key");
}

int vcp_policy_from_json(struct json_object *obj, const char *source,
			 struct vcp_policy *ret, char **ret_err)
{
	struct pctx c = { source ? source : "policy", ret_err };
	struct vcp_policy p;
	int r;

	vcp_policy_defaults(&p);
	if (!json_object_is_type(obj, json_type_object))
		return fail(&c, NULL, "must be a JSON object, got %s",
			    vcp_json_shown(obj));
	json_object_object_foreach(obj, key, val) {
		r = parse_key(&c, key, val, &p);
		if (r < 0) {
			vcp_policy_clear(&p);
			return r;
		}
	}
	*ret = p;
	return 0;
}

int vcp_policy_parse(const char *text, const char *source,
		     struct vcp_policy *ret, char **ret_err)
{
	struct json_object *obj = NULL;
	int r = vcp_json_parse(text, source ? source : "policy", &obj,
			       ret_err);

	if (r < 0)
		return r;
	r = vcp_policy_from_json(obj, source, ret, ret_err);
	json_object_put(obj);
	return r;
}

int vcp_policy_load(const char *path, struct vcp_policy *ret,
		    char **ret_err)
{
	char *text = NULL;
	int r = vcp_file_read(path, VCP_POLICY_MAX_BYTES, &text, ret_err);

	if (r < 0)
		return r;
	r = vcp_policy_parse(text, path, ret, ret_err);
	free(text);
	return r;
}

int vcp_policy_load_or(const char *path, const char *fallback,
		       struct vcp_policy *ret, const char **ret_path,
		       char **ret_err)
{
	int r;

	*ret_path = path ? path : fallback;
	vcp_policy_defaults(ret);
	r = vcp_policy_load(*ret_path, ret, ret_err);
	if (r == -ENOENT && !path) {
		free(*ret_err);
		*ret_err = NULL;
		r = 0;
	}
	return r;
}

int vcp_policy_load_host(const char *path, struct vcp_policy *ret,
			 const char **ret_path, char **ret_err)
{
	return vcp_policy_load_or(path, VCP_POLICY_PATH, ret, ret_path,
				  ret_err);
}

static bool window_matches(const struct vcp_window *w, int wday, int min)
{
	int prev = (wday + 6) % 7;

	if (w->start < w->end)
		return (w->days & (1u << wday)) && min >= w->start &&
		       min < w->end;
	/* Wraps past midnight: the part before midnight belongs to today,
	 * the part after it to the day before. */
	if ((w->days & (1u << wday)) && min >= w->start)
		return true;
	return (w->days & (1u << prev)) && min < w->end;
}

int vcp_policy_level_at(const struct vcp_policy *p, const struct tm *tm)
{
	int wday = ((tm->tm_wday % 7) + 7) % 7;
	int min = tm->tm_hour * 60 + tm->tm_min;

	for (size_t i = 0; i < p->n_windows; i++)
		if (window_matches(&p->windows[i], wday, min))
			return p->windows[i].level;
	return p->level;
}

struct json_object *vcp_json_double3(double d)
{
	double r = round(d * 1000.0) / 1000.0;
	char buf[64];
	size_t n;

	if (r == 0)
		r = 0;	/* no "-0" */
	snprintf(buf, sizeof(buf), "%.3f", r);
	n = strlen(buf);
	while (n > 1 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 1 && buf[n - 1] == '.')
		buf[--n] = '\0';
	return json_object_new_double_s(r, buf);
}

static struct json_object *level_json(int level)
{
	if (level == VCP_LEVEL_AUTO)
		return json_object_new_string("auto");
	return json_object_new_int(level);
}

static struct json_object *window_json(const struct vcp_window *w)
{
	struct json_object *o = json_object_new_object();
	struct json_object *days = json_object_new_array();
	char buf[8];

	/* Monday first, as people write weeks. */
	for (int k = 1; k <= 7; k++)
		if (w->days & (1u << (k % 7)))
			json_object_array_add(days, json_object_new_string(
				day_names[k % 7]));
	json_object_object_add(o, "days", days);
	snprintf(buf, sizeof(buf), "%02u:%02u", w->start / 60u, w->start % 60u);
	json_object_object_add(o, "from", json_object_new_string(buf));
	snprintf(buf, sizeof(buf), "%02u:%02u", w->end / 60u, w->end % 60u);
	json_object_object_add(o, "to", json_object_new_string(buf));
	json_object_object_add(o, "level", level_json(w->level));
	return o;
}

struct json_object *vcp_policy_to_json(const struct vcp_policy *p)
{
	struct json_object *o = json_object_new_object();
	struct json_object *prio = json_object_new_object();
	struct json_object *ws = json_object_new_array();
	char *text;

	for (int i = 0; i < VCP_PRIO__COUNT; i++)
		json_object_object_add(prio, vcp_priority_name(i),
				       json_object_new_string(vcp_class_name(
					       p->prio_class[i])));
	for (size_t i = 0; i < p->n_windows; i++)
		json_object_array_add(ws, window_json(&p->windows[i]));
	json_object_object_add(o, "priorities", prio);
	json_object_object_add(o, "level", level_json(p->level));
	json_object_object_add(o, "windows", ws);
	json_object_object_add(o, "headroom", vcp_json_double3(p->headroom));
	json_object_object_add(o, "default_vcpu_demand",
			       vcp_json_double3(p->default_vcpu_demand));
	json_object_object_add(o, "busy_vcpu_demand",
			       vcp_json_double3(p->busy_vcpu_demand));
	json_object_object_add(o, "smt_yield", vcp_json_double3(p->smt_yield));
	json_object_object_add(o, "sample_interval",
			       json_object_new_int((int)p->sample_interval_s));
	json_object_object_add(o, "shrink_after",
			       json_object_new_int((int)p->shrink_after_s));
	json_object_object_add(o, "enabled",
			       json_object_new_boolean(p->enabled));
	json_object_object_add(o, "exclusive_cores",
			       json_object_new_boolean(p->exclusive_cores));
	json_object_object_add(o, "strict_tags",
			       json_object_new_boolean(p->strict_tags));
	json_object_object_add(o, "max_vcpu_delay",
			       vcp_json_double3(p->max_vcpu_delay));
	json_object_object_add(o, "foreign_pins", json_object_new_string(
			       p->respect_foreign_pins ? "respect" : "restate"));
	/* whole, however long (every other CPU of 16,384: 43,596 bytes) */
	text = vcp_cpuset_format_alloc(&p->reserved_cpus);
	if (text)
		json_object_object_add(o, "reserved_cpus",
				       json_object_new_string(text));
	free(text);
	json_object_object_add(o, "irq_affinity", json_object_new_string(
			       p->irq_affinity ? "on" : "off"));
	json_object_object_add(o, "require_trial",
			       json_object_new_boolean(p->require_trial));
	json_object_object_add(o, "memory_follows",
			       json_object_new_boolean(p->memory_follows));
	return o;
}
