// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * standbystate.c - the fleet loop's memory: which hosts vcpack put in
 * standby, since when and why, which are waking, draining or failed,
 * the band timers and each host's recent migrations; the vcp_sb_note_*()
 * records, and the state to and from JSON (the loop writes it to a state
 * file atomically; that I/O is not here).
 *
 *   {"version": 1, "below_since": T|null, "above_since": T|null,
 *    "last_wake": T|null,
 *    "hosts": [{"name": "h1", "power": "standby", "since": T,
 *               "why": "..."|null, "capacity": 30.4, "packages": 2,
 *               "moves": [T, ...],
 *               "last_action": "..."|null, "output": "..."|null}]}
 *
 * T: seconds since the epoch the loop keeps to. Hosts are matched by name
 * when read back.
 */
#include "standby.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "fleetcfg.h"
#include "jsonfile.h"
#include "policy.h"

void vcp_sb_state_clear(struct vcp_sb_state *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_hosts; i++) {
		free(s->hosts[i].name);
		free(s->hosts[i].why);
		free(s->hosts[i].last_action);
		free(s->hosts[i].output);
	}
	free(s->hosts);
	memset(s, 0, sizeof(*s));
}

int vcp_sb_state_init(const char *const *names, size_t n,
		      struct vcp_sb_state *ret)
{
	struct vcp_sb_state s = { VCP_SB_NO_TIME, VCP_SB_NO_TIME,
				  VCP_SB_NO_TIME, NULL, n };

	s.hosts = calloc(n ? n : 1, sizeof(*s.hosts));
	if (!s.hosts)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		s.hosts[i].since = VCP_SB_NO_TIME;
		s.hosts[i].name = strdup(names[i]);
		if (!s.hosts[i].name) {
			vcp_sb_state_clear(&s);
			return -ENOMEM;
		}
	}
	*ret = s;
	return 0;
}

static int set(struct vcp_sb_state *s, size_t i, enum vcp_sb_power p,
	       long long now, const char *why)
{
	struct vcp_sb_host_state *h = &s->hosts[i];
	char *w = NULL;

	if (why && !(w = strdup(why)))
		return -ENOMEM;
	free(h->why);
	h->why = w;
	h->power = p;
	h->since = now;
	h->seen_asleep = false;
	return 0;
}

void vcp_sb_note_asleep(struct vcp_sb_state *s, size_t host)
{
	if (s->hosts[host].power == VCP_SB_STANDBY)
		s->hosts[host].seen_asleep = true;
}

int vcp_sb_note_drain(struct vcp_sb_state *s, size_t host, long long now)
{
	return set(s, host, VCP_SB_DRAINING, now, NULL);
}

void vcp_sb_note_undrain(struct vcp_sb_state *s, size_t host, long long now)
{
	set(s, host, VCP_SB_ON, now, NULL);
}

void vcp_sb_note_cleared(struct vcp_sb_state *s, size_t host, long long now)
{
	set(s, host, VCP_SB_ON, now, NULL);
}

static void ring_push(struct vcp_sb_host_state *h, long long now)
{
	h->moves[h->n_moves % VCP_SB_MAX_HOST_BUDGET] = now;
	h->n_moves++;
}

void vcp_sb_note_move(struct vcp_sb_state *s, size_t from, size_t to,
		      long long now)
{
	ring_push(&s->hosts[from], now);
	ring_push(&s->hosts[to], now);
}

int vcp_sb_note_standby(struct vcp_sb_state *s, size_t host, long long now,
			const char *why)
{
	return set(s, host, VCP_SB_STANDBY, now, why);
}

void vcp_sb_note_wake(struct vcp_sb_state *s, size_t host, long long now)
{
	set(s, host, VCP_SB_WAKING, now, NULL);
	s->last_wake = now;
}

static int set_str(char **at, const char *v)
{
	char *c = NULL;

	if (v && !(c = strdup(v)))
		return -ENOMEM;
	free(*at);
	*at = c;
	return 0;
}

int vcp_sb_note_action(struct vcp_sb_state *s, size_t host,
		       const char *action, const char *output)
{
	struct vcp_sb_host_state *h = &s->hosts[host];
	int r = set_str(&h->last_action, action);

	return r < 0 ? r : set_str(&h->output, output);
}

int vcp_sb_note_failed(struct vcp_sb_state *s, size_t host, long long now,
		       const char *why)
{
	return set(s, host, VCP_SB_FAILED, now, why);
}

/* ---- JSON ---- */

static struct json_object *time_json(long long t)
{
	return t == VCP_SB_NO_TIME ? NULL : json_object_new_int64(t);
}

static struct json_object *host_json(const struct vcp_sb_host_state *h)
{
	struct json_object *o = json_object_new_object();
	struct json_object *m = json_object_new_array();
	unsigned int n = h->n_moves < VCP_SB_MAX_HOST_BUDGET ?
			 h->n_moves : VCP_SB_MAX_HOST_BUDGET;

	if (!o || !m) {
		json_object_put(o);
		json_object_put(m);
		return NULL;
	}
	/* oldest first */
	for (unsigned int k = 0; k < n; k++)
		json_object_array_add(m, json_object_new_int64(
			h->moves[(h->n_moves - n + k) % VCP_SB_MAX_HOST_BUDGET]));
	json_object_object_add(o, "name", json_object_new_string(h->name));
	json_object_object_add(o, "power", json_object_new_string(
			       vcp_sb_power_name(h->power)));
	json_object_object_add(o, "since", time_json(h->since));
	json_object_object_add(o, "why", h->why ?
			       json_object_new_string(h->why) : NULL);
	json_object_object_add(o, "seen_asleep",
			       json_object_new_boolean(h->seen_asleep));
	json_object_object_add(o, "capacity", vcp_json_double3(h->capacity));
	json_object_object_add(o, "packages", json_object_new_int((int)h->packages));
	json_object_object_add(o, "moves", m);
	json_object_object_add(o, "last_action", h->last_action ?
			       json_object_new_string(h->last_action) : NULL);
	json_object_object_add(o, "output", h->output ?
			       json_object_new_string(h->output) : NULL);
	return o;
}

struct json_object *vcp_sb_state_to_json(const struct vcp_sb_state *s)
{
	struct json_object *o = json_object_new_object();
	struct json_object *a = json_object_new_array();

	if (!o || !a) {
		json_object_put(o);
		json_object_put(a);
		return NULL;
	}
	json_object_object_add(o, "version", json_object_new_int(1));
	json_object_object_add(o, "below_since", time_json(s->below_since));
	json_object_object_add(o, "above_since", time_json(s->above_since));
	json_object_object_add(o, "last_wake", time_json(s->last_wake));
	for (size_t i = 0; i < s->n_hosts; i++) {
		struct json_object *h = host_json(&s->hosts[i]);

		if (!h) {
			json_object_put(o);
			json_object_put(a);
			return NULL;
		}
		json_object_array_add(a, h);
	}
	json_object_object_add(o, "hosts", a);
	return o;
}

struct rctx {
	const char *src;
	char **err;
};

static int get_time(const struct rctx *c, const char *path,
		    struct json_object *v, long long *ret)
{
	int64_t t;

	if (!v) {
		*ret = VCP_SB_NO_TIME;
		return 0;
	}
	if (!vcp_json_int_in(v, 0, INT64_MAX / 2, &t))
		return vcp_err(c->err, -EINVAL,
			       "%s: %s: must be null or a time in seconds, got %s",
			       c->src, path, vcp_json_shown(v));
	*ret = t;
	return 0;
}

static int get_power(const struct rctx *c, const char *path,
		     struct json_object *v, enum vcp_sb_power *ret)
{
	const char *s = json_object_get_string(v);

	for (unsigned int p = 0; json_object_is_type(v, json_type_string) &&
	     p < 5; p++)
		if (!strcmp(s, vcp_sb_power_name((enum vcp_sb_power)p))) {
			*ret = (enum vcp_sb_power)p;
			return 0;
		}
	return vcp_err(c->err, -EINVAL,
		       "%s: %s: must be on, draining, standby, waking or failed, got %s",
		       c->src, path, vcp_json_shown(v));
}

static int get_moves(const struct rctx *c, const char *hp,
		     struct json_object *a, struct vcp_sb_host_state *h)
{
	size_t n = json_object_array_length(a);
	char path[160];
	long long t;
	int r;

	if (!json_object_is_type(a, json_type_array) ||
	    n > VCP_SB_MAX_HOST_BUDGET)
		return vcp_err(c->err, -EINVAL,
			       "%s: %s.moves: must be an array of at most %d times",
			       c->src, hp, VCP_SB_MAX_HOST_BUDGET);
	for (size_t k = 0; k < n; k++) {
		struct json_object *v = json_object_array_get_idx(a, k);

		snprintf(path, sizeof(path), "%s.moves[%zu]", hp, k);
		r = v ? get_time(c, path, v, &t) :
			vcp_err(c->err, -EINVAL, "%s: %s: null", c->src, path);
		if (r < 0)
			return r;
		ring_push(h, t);
	}
	return 0;
}

/* Key @key of @o, null or a string, into *@at. */
static int opt_str(const struct rctx *c, const char *hp, struct json_object *o,
		   const char *key, char **at)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return vcp_err(c->err, -EINVAL,
			       "%s: %s.%s: must be null or a string, got %s",
			       c->src, hp, key, vcp_json_shown(v));
	return set_str(at, json_object_get_string(v));
}

/* hosts[k] of the file into @h (name already checked). */
static int host_from(const struct rctx *c, const char *hp,
		     struct json_object *o, struct vcp_sb_host_state *h)
{
	struct json_object *v;
	char path[160];
	double cap;
	int r = 0;

	json_object_object_foreach(o, key, val) {
		(void)val;
		if (strcmp(key, "name") && strcmp(key, "power") &&
		    strcmp(key, "since") && strcmp(key, "why") &&
		    strcmp(key, "capacity") && strcmp(key, "moves") &&
		    strcmp(key, "packages") && strcmp(key, "seen_asleep") &&
		    strcmp(key, "last_action") && strcmp(key, "output"))
			return vcp_err(c->err, -EINVAL, "%s: %s.%s: unknown key",
				       c->src, hp, key);
	}
	snprintf(path, sizeof(path), "%s.power", hp);
	if (json_object_object_get_ex(o, "power", &v))
		r = get_power(c, path, v, &h->power);
	snprintf(path, sizeof(path), "%s.since", hp);
	if (r == 0 && json_object_object_get_ex(o, "since", &v))
		r = get_time(c, path, v, &h->since);
	if (r == 0 && json_object_object_get_ex(o, "capacity", &v)) {
		if (!vcp_json_number_in(v, 0, 1e9, &cap))
			r = vcp_err(c->err, -EINVAL,
				    "%s: %s.capacity: must be a number of CPUs, got %s",
				    c->src, hp, vcp_json_shown(v));
		h->capacity = cap;
	}
	if (r == 0 && json_object_object_get_ex(o, "packages", &v)) {
		int64_t np;

		if (!vcp_json_int_in(v, 0, 4096, &np))
			r = vcp_err(c->err, -EINVAL,
				    "%s: %s.packages: must be a number of packages, got %s",
				    c->src, hp, vcp_json_shown(v));
		else
			h->packages = (unsigned int)np;
	}
	if (r == 0 && json_object_object_get_ex(o, "seen_asleep", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			r = vcp_err(
				c->err, -EINVAL,
				"%s: %s.seen_asleep: must be true or false, got %s",
				c->src, hp, vcp_json_shown(v));
		else
			h->seen_asleep = json_object_get_boolean(v) &&
					 h->power == VCP_SB_STANDBY;
	}
	if (r == 0)
		r = opt_str(c, hp, o, "why", &h->why);
	if (r == 0)
		r = opt_str(c, hp, o, "last_action", &h->last_action);
	if (r == 0)
		r = opt_str(c, hp, o, "output", &h->output);
	if (r == 0 && json_object_object_get_ex(o, "moves", &v))
		r = get_moves(c, hp, v, h);
	return r;
}

static int one_host(const struct rctx *c, size_t k, struct json_object *o,
		    const char *const *names, size_t n, struct vcp_sb_state *s)
{
	struct vcp_sb_host_state tmp = { 0 };
	struct json_object *nm;
	char hp[96];
	size_t i;
	int r;

	snprintf(hp, sizeof(hp), "hosts[%zu]", k);
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "name", &nm) ||
	    !json_object_is_type(nm, json_type_string))
		return vcp_err(c->err, -EINVAL,
			       "%s: %s: must be an object with a \"name\"",
			       c->src, hp);
	/* the record named in every message about it */
	snprintf(hp, sizeof(hp), "hosts[%zu] (%.60s)", k,
		 json_object_get_string(nm));
	for (i = 0; i < n && strcmp(names[i], json_object_get_string(nm)); i++)
		;
	r = host_from(c, hp, o, i < n ? &s->hosts[i] : &tmp);
	free(tmp.why);
	free(tmp.last_action);
	free(tmp.output);
	if (r == 0 && i == n && tmp.power != VCP_SB_ON)
		r = vcp_err(c->err, -EINVAL,
			    "%s: %s: '%s' is %s (by vcpack) but not in the fleet file: list it again, or wake it by hand and drop it from the state",
			    c->src, hp, json_object_get_string(nm),
			    vcp_sb_power_name(tmp.power));
	return r;
}

static const char *name_of(struct json_object *o)
{
	struct json_object *nm;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "name", &nm) ||
	    !json_object_is_type(nm, json_type_string))
		return NULL;
	return json_object_get_string(nm);
}

/* One record a host: a second (a later "on" after "failed") would
 * silently override the first, and a failed host's latch with it.
 * Records without a name are one_host()'s to refuse. */
static int no_twins(const struct rctx *c, struct json_object *a)
{
	size_t n = json_object_array_length(a), m = 0, j, i;
	char **nm = calloc(n ? n : 1, sizeof(*nm));
	size_t *at = calloc(n ? n : 1, sizeof(*at));
	int r = nm && at ? 0 : -ENOMEM;

	for (size_t k = 0; r == 0 && k < n; k++) {
		const char *s = name_of(json_object_array_get_idx(a, k));

		if (s) {
			nm[m] = (char *)s;
			at[m++] = k;
		}
	}
	if (r == 0)
		r = vcp_first_duplicate(nm, m, &j, &i);
	if (r > 0)
		r = vcp_err(
			c->err, -EINVAL,
			"%s: hosts[%zu] (%.60s): host '%s' is also hosts[%zu]: one record a host (the file is left as it is; drop one)",
			c->src, at[i], nm[i], nm[i], at[j]);
	free(nm);
	free(at);
	return r;
}

static int state_from(const struct rctx *c, struct json_object *o,
		      const char *const *names, size_t n,
		      struct vcp_sb_state *s)
{
	struct json_object *v, *a;
	int64_t ver;
	int r;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "version", &v) ||
	    !vcp_json_int_in(v, 1, 1, &ver))
		return vcp_err(c->err, -EINVAL,
			       "%s: must be an object with \"version\": 1",
			       c->src);
	r = get_time(c, "below_since", json_object_object_get(o, "below_since"),
		     &s->below_since);
	if (r == 0)
		r = get_time(c, "above_since",
			     json_object_object_get(o, "above_since"),
			     &s->above_since);
	if (r == 0)
		r = get_time(c, "last_wake",
			     json_object_object_get(o, "last_wake"),
			     &s->last_wake);
	if (r < 0)
		return r;
	if (!json_object_object_get_ex(o, "hosts", &a) ||
	    !json_object_is_type(a, json_type_array))
		return vcp_err(c->err, -EINVAL, "%s: hosts: must be an array",
			       c->src);
	r = no_twins(c, a);
	for (size_t k = 0; k < json_object_array_length(a) && r == 0; k++)
		r = one_host(c, k, json_object_array_get_idx(a, k), names, n,
			     s);
	return r;
}

int vcp_sb_state_from_json(struct json_object *o, const char *src,
			   const char *const *names, size_t n,
			   struct vcp_sb_state *ret, char **ret_err)
{
	struct rctx c = { src ? src : "state", ret_err };
	struct vcp_sb_state s;
	int r = vcp_sb_state_init(names, n, &s);

	if (r < 0)
		return r;
	r = state_from(&c, o, names, n, &s);
	if (r < 0) {
		vcp_sb_state_clear(&s);
		return r;
	}
	*ret = s;
	return 0;
}
