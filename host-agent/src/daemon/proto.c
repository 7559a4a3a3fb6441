// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * proto.c - the control protocol without sockets (see proto.h): request
 * and reply lines, the status object checked member by member, framing
 * over per-client buffers, and the client table with its limit and
 * deadlines. Pure: no I/O, no clock (callers pass the time).
 */
#include "proto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "cpuset.h"
#include "errmsg.h"
#include "jsonfile.h"

/* ---- requests ---- */

static const char *const op_names[] = {
	[VCP_REQ_PING] = "ping", [VCP_REQ_STATUS] = "status",
	[VCP_REQ_REPLAN] = "replan", [VCP_REQ_HOOK] = "hook",
	[VCP_REQ_LEVEL] = "level", [VCP_REQ_PAUSE] = "pause",
	[VCP_REQ_RESUME] = "resume", [VCP_REQ_ENABLE] = "enable",
	[VCP_REQ_DISABLE] = "disable", [VCP_REQ_RELOAD] = "reload",
};

const char *vcp_req_op_name(enum vcp_req_op op)
{
	return (size_t)op < sizeof(op_names) / sizeof(op_names[0]) &&
			       op_names[op] ?
		       op_names[op] :
		       "?";
}

int vcp_req_op_of(const char *s, enum vcp_req_op *ret)
{
	for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
		if (s && strcmp(s, op_names[i]) == 0) {
			*ret = (enum vcp_req_op)i;
			return 0;
		}
	return -EINVAL;
}

/* Copy a string member into @buf; -EINVAL when missing, not a string,
 * empty or too long. */
static int str_member(struct json_object *o, const char *key, char *buf,
		      size_t size)
{
	struct json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return -EINVAL;
	s = json_object_get_string(v);
	if (!*s || strlen(s) >= size || strchr(s, '\n'))
		return -EINVAL;
	strcpy(buf, s);
	return 0;
}

/* "hook EVENT SUB NAME": the name is the rest of the line. */
static int parse_text_hook(const char *line, struct vcp_req *r)
{
	const char *p = line + 5, *sp;
	size_t n;

	for (int k = 0; k < 2; k++) {
		char *dst = k ? r->sub : r->event;

		sp = strchr(p, ' ');
		n = sp ? (size_t)(sp - p) : 0;
		if (!sp || !n || n >= sizeof(r->event))
			return -EINVAL;
		memcpy(dst, p, n);
		dst[n] = '\0';
		p = sp + 1;
	}
	if (!*p || strlen(p) >= sizeof(r->vm))
		return -EINVAL;
	strcpy(r->vm, p);
	return 0;
}

static int parse_text(const char *line, struct vcp_req *r, char **ret_err)
{
	if (strncmp(line, "hook ", 5) == 0) {
		r->op = VCP_REQ_HOOK;
		if (parse_text_hook(line, r) < 0)
			return vcp_err(ret_err, -EINVAL,
				       "malformed hook request");
		return 0;
	}
	/* version 0 knows ping, status, replan and hook only */
	if (strcmp(line, "hook") == 0 || vcp_req_op_of(line, &r->op) < 0 ||
	    r->op > VCP_REQ_HOOK)
		return vcp_err(ret_err, -EINVAL, "unknown request");
	return 0;
}

static int parse_json(const char *line, struct vcp_req *r, char **ret_err)
{
	struct json_object *o = NULL, *v, *op;
	int64_t ver;
	int e = 0;

	if (vcp_json_parse(line, "request", &o, ret_err) < 0)
		return -EINVAL;
	if (!json_object_is_type(o, json_type_object))
		e = vcp_err(ret_err, -EINVAL, "request: not a JSON object");
	else if (!json_object_object_get_ex(o, "v", &v) ||
		 !vcp_json_int_in(v, 0, INT32_MAX, &ver))
		e = vcp_err(ret_err, -EINVAL, "request: \"v\" (the protocol version) is missing or not an integer");
	else if (ver != VCP_PROTO_VERSION)
		e = vcp_err(ret_err, -EPROTONOSUPPORT, "request: protocol version %lld is not supported (this vcpackd speaks %d)",
			    (long long)ver, VCP_PROTO_VERSION);
	else if (!json_object_object_get_ex(o, "op", &op) ||
		 !json_object_is_type(op, json_type_string) ||
		 vcp_req_op_of(json_object_get_string(op), &r->op) < 0)
		e = vcp_err(ret_err, -EINVAL, "request: unknown \"op\" %s",
			    vcp_json_shown(op));
	else if (r->op == VCP_REQ_HOOK &&
		 (str_member(o, "event", r->event, sizeof(r->event)) < 0 ||
		  str_member(o, "sub", r->sub, sizeof(r->sub)) < 0 ||
		  str_member(o, "vm", r->vm, sizeof(r->vm)) < 0))
		e = vcp_err(ret_err, -EINVAL, "request: a hook needs the strings \"event\", \"sub\" and \"vm\"");
	else if (r->op == VCP_REQ_LEVEL &&
		 str_member(o, "level", r->level, sizeof(r->level)) < 0)
		e = vcp_err(ret_err, -EINVAL, "request: \"level\" needs the string \"level\" (0, 1, 2, auto or policy)");
	json_object_put(o);
	r->version = VCP_PROTO_VERSION;
	return e;
}

int vcp_req_parse(const char *line, struct vcp_req *ret, char **ret_err)
{
	struct vcp_req r = { 0 };
	const char *p = line;
	int e;

	while (*p == ' ' || *p == '\t')
		p++;
	e = *p == '{' ? parse_json(p, &r, ret_err) : parse_text(p, &r, ret_err);
	if (e < 0)
		return e;
	*ret = r;
	return 0;
}

static char *line_of_object(struct json_object *o)
{
	const char *s = json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	char *line = s ? malloc(strlen(s) + 2) : NULL;

	if (line)
		sprintf(line, "%s\n", s);
	return line;
}

char *vcp_req_format(const struct vcp_req *req)
{
	struct json_object *o = json_object_new_object();
	char *line;

	if (!o)
		return NULL;
	json_object_object_add(o, "v", json_object_new_int(VCP_PROTO_VERSION));
	json_object_object_add(o, "op", json_object_new_string(op_names[req->op]));
	if (req->op == VCP_REQ_HOOK) {
		json_object_object_add(o, "event", json_object_new_string(req->event));
		json_object_object_add(o, "sub", json_object_new_string(req->sub));
		json_object_object_add(o, "vm", json_object_new_string(req->vm));
	}
	if (req->op == VCP_REQ_LEVEL)
		json_object_object_add(o, "level",
				       json_object_new_string(req->level));
	line = line_of_object(o);
	json_object_put(o);
	return line;
}

/* ---- replies ---- */

static char *text_reply(const struct vcp_req *req, struct json_object *f,
			const char *error)
{
	struct json_object *v;
	char *line = NULL;
	int n = -1;

	if (error)
		n = asprintf(&line, "error %s\n", error);
	else if (req->op == VCP_REQ_PING)
		n = asprintf(&line, "ok %s mode=%s replans=%lld\n",
			     json_object_get_boolean(json_object_object_get(
				     f, "connected")) ? "connected" : "disconnected",
			     json_object_get_string(json_object_object_get(f, "mode")),
			     (long long)json_object_get_int64(
				     json_object_object_get(f, "replans")));
	else if (req->op == VCP_REQ_REPLAN)
		n = asprintf(&line, "ok replans=%lld\n",
			     (long long)json_object_get_int64(
				     json_object_object_get(f, "replans")));
	else if (req->op == VCP_REQ_STATUS &&
		 json_object_object_get_ex(f, "status", &v))
		return line_of_object(v);
	return n < 0 ? NULL : line;
}

char *vcp_reply_format(const struct vcp_req *req, struct json_object *fields,
		       const char *error, bool *ret_nomem)
{
	struct json_object *o;
	char *line = NULL;

	*ret_nomem = false;
	if (req->version == 0) {
		if (req->op != VCP_REQ_HOOK || error)
			line = text_reply(req, fields, error);
		json_object_put(fields);
		*ret_nomem = !line && (req->op != VCP_REQ_HOOK || error);
		return line;
	}
	o = json_object_new_object();
	if (o) {
		json_object_object_add(o, "v", json_object_new_int(VCP_PROTO_VERSION));
		json_object_object_add(o, "ok", json_object_new_boolean(!error));
		if (error)
			json_object_object_add(o, "error", json_object_new_string(error));
		if (fields && !error) {
			json_object_object_foreach(fields, k, val)
				json_object_object_add(o, k,
						       json_object_get(val));
		}
		line = line_of_object(o);
	}
	json_object_put(o);
	json_object_put(fields);
	*ret_nomem = !line;
	return line;
}

int vcp_reply_parse(const char *line, struct json_object **ret,
		    char **ret_err)
{
	struct json_object *o = NULL, *v, *ok;
	int64_t ver;

	if (vcp_json_parse(line, "reply", &o, ret_err) < 0)
		return -EBADMSG;
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "v", &v) ||
	    !vcp_json_int_in(v, 0, INT32_MAX, &ver) ||
	    !json_object_object_get_ex(o, "ok", &ok) ||
	    !json_object_is_type(ok, json_type_boolean)) {
		json_object_put(o);
		return vcp_err(ret_err, -EBADMSG, "reply: not a vcpackd reply (no \"v\" and \"ok\")");
	}
	if (ver != VCP_PROTO_VERSION || !json_object_get_boolean(ok)) {
		const char *why = json_object_get_string(
			json_object_object_get(o, "error"));
		int e = ver != VCP_PROTO_VERSION ?
			vcp_err(ret_err, -EBADMSG, "reply: protocol version %lld, expected %d",
				(long long)ver, VCP_PROTO_VERSION) :
			vcp_err(ret_err, -EPROTO, "%s", why ? why : "vcpackd refused the request");

		json_object_put(o);
		return e;
	}
	*ret = o;
	return 0;
}

/* ---- the status object ---- */

static bool member(struct json_object *o, const char *key, enum json_type t,
		   struct json_object **ret)
{
	return json_object_object_get_ex(o, key, ret) &&
	       json_object_is_type(*ret, t);
}

static bool number_or_null(struct json_object *v, double *ret)
{
	if (!v) {
		*ret = -1;
		return true;
	}
	return vcp_json_number_in(v, 0, 1e9, ret);
}

static int status_vm(struct json_object *o, struct vcp_status_vm *vm)
{
	struct json_object *v, *dem, *del;
	size_t n;

	if (!json_object_is_type(o, json_type_object) ||
	    !member(o, "name", json_type_string, &v) ||
	    !member(o, "demand", json_type_array, &dem) ||
	    !json_object_object_get_ex(o, "delay", &del) ||
	    !number_or_null(del, &vm->delay))
		return -EBADMSG;
	n = json_object_array_length(dem);
	if (n > 65536)
		return -EBADMSG;
	vm->relieved = member(o, "relieved", json_type_boolean, &v) &&
		       json_object_get_boolean(v);
	vm->name = strdup(json_object_get_string(
		json_object_object_get(o, "name")));
	vm->demand = calloc(n ? n : 1, sizeof(*vm->demand));
	if (!vm->name || !vm->demand)
		return -ENOMEM;
	vm->n_vcpus = (unsigned int)n;
	for (size_t c = 0; c < n; c++)
		if (!number_or_null(json_object_array_get_idx(dem, c),
				    &vm->demand[c]))
			return -EBADMSG;
	return 0;
}

static int status_last(struct json_object *last, struct vcp_status *s,
		       char **ret_err)
{
	struct json_object *v, *vms;
	int64_t at, level, active;
	size_t n;

	if (!json_object_is_type(last, json_type_object) ||
	    !json_object_object_get_ex(last, "at", &v) ||
	    !vcp_json_int_in(v, 0, INT64_MAX, &at) ||
	    !json_object_object_get_ex(last, "level", &v) ||
	    !vcp_json_int_in(v, 0, 2, &level) ||
	    !json_object_object_get_ex(last, "active", &v) ||
	    !vcp_json_int_in(v, 0, INT32_MAX, &active) ||
	    !member(last, "vms", json_type_array, &vms))
		return vcp_err(ret_err, -EBADMSG, "status: \"last\" is not {at, level, active, vms}");
	s->has_last = true;
	s->at = at;
	s->level = (int)level;
	s->active = (int)active;
	n = json_object_array_length(vms);
	s->vms = calloc(n ? n : 1, sizeof(*s->vms));
	if (!s->vms)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *one = json_object_array_get_idx(vms, i);
		int r = status_vm(one, &s->vms[i]);

		s->n_vms = i + 1;
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return vcp_err(ret_err, r, "status: VM %zu of \"last\" is not {name, demand, delay, relieved}", i);
	}
	return 0;
}

/* "level" ("0".."2", "auto") and "level_reason", where given. */
static void status_level(struct json_object *o, struct vcp_status *s)
{
	struct json_object *v, *why;
	bool policy;

	if (!member(o, "level", json_type_string, &v) ||
	    !member(o, "level_reason", json_type_string, &why) ||
	    vcp_control_level_parse(json_object_get_string(v), &s->cfg_level,
				    &policy) < 0 ||
	    policy)
		return;
	s->has_level = true;
	snprintf(s->level_reason, sizeof(s->level_reason), "%s",
		 json_object_get_string(why));
}

/* ---- every member of a status object, checked ---- */

/* @o's member @key at "status.@path" (@path names it in messages): 0
 * with *ret, or -EBADMSG "missing". */
static int need(struct json_object *o, const char *path, const char *key,
		struct json_object **ret, char **ret_err)
{
	if (!json_object_object_get_ex(o, key, ret))
		return vcp_err(ret_err, -EBADMSG, "status.%s: missing", path);
	return 0;
}

static int need_int(struct json_object *o, const char *path, const char *key,
		    int64_t min, int64_t max, const char *what, int64_t *ret,
		    char **ret_err)
{
	struct json_object *v;
	int r = need(o, path, key, &v, ret_err);

	if (r == 0 && !vcp_json_int_in(v, min, max, ret))
		r = vcp_err(
			ret_err, -EBADMSG,
			"status.%s: must be an integer %lld..%lld%s, got %s",
			path, (long long)min, (long long)max, what,
			vcp_json_shown(v));
	return r;
}

static int need_type(struct json_object *o, const char *path, const char *key,
		     enum json_type t, char **ret_err)
{
	static const char *const names[] = {
		[json_type_boolean] = "true or false",
		[json_type_string] = "a string",
		[json_type_object] = "an object",
		[json_type_array] = "an array",
	};
	struct json_object *v;
	int r = need(o, path, key, &v, ret_err);

	if (r == 0 && !json_object_is_type(v, t))
		r = vcp_err(ret_err, -EBADMSG, "status.%s: must be %s, got %s",
			    path, names[t], vcp_json_shown(v));
	return r;
}

/* A string member that is one of @words (NULL-terminated; @shown lists
 * them for the message). */
static int need_word(struct json_object *o, const char *path, const char *key,
		     const char *const *words, const char *shown,
		     char **ret_err)
{
	struct json_object *v;
	int r = need(o, path, key, &v, ret_err);

	for (size_t i = 0;
	     r == 0 && json_object_is_type(v, json_type_string) && words[i];
	     i++)
		if (!strcmp(json_object_get_string(v), words[i]))
			return 0;
	return r ? r :
		   vcp_err(ret_err, -EBADMSG, "status.%s: must be %s, got %s",
			   path, shown, vcp_json_shown(v));
}

static int check_number(struct json_object *v, const char *path, char **ret_err)
{
	double d;

	if (!v || vcp_json_number_in(v, 0, 1e9, &d))
		return 0;
	return vcp_err(ret_err, -EBADMSG,
		       "status.%s: must be null or a number 0..1e+09, got %s",
		       path, vcp_json_shown(v));
}

/* last.vms[i]: {name, demand: [number|null...], delay, relieved} */
static int check_last_vm(struct json_object *o, size_t i, char **ret_err)
{
	struct json_object *dem, *del;
	char p[96];
	int r;

	snprintf(p, sizeof(p), "last.vms[%zu]", i);
	if (!json_object_is_type(o, json_type_object))
		return vcp_err(ret_err, -EBADMSG,
			       "status.%s: must be an object, got %s", p,
			       vcp_json_shown(o));
	snprintf(p, sizeof(p), "last.vms[%zu].name", i);
	r = need_type(o, p, "name", json_type_string, ret_err);
	snprintf(p, sizeof(p), "last.vms[%zu].relieved", i);
	if (r == 0)
		r = need_type(o, p, "relieved", json_type_boolean, ret_err);
	snprintf(p, sizeof(p), "last.vms[%zu].delay", i);
	if (r == 0 && !(r = need(o, p, "delay", &del, ret_err)))
		r = check_number(del, p, ret_err);
	snprintf(p, sizeof(p), "last.vms[%zu].demand", i);
	if (r == 0)
		r = need_type(o, p, "demand", json_type_array, ret_err);
	if (r < 0)
		return r;
	dem = json_object_object_get(o, "demand");
	if (json_object_array_length(dem) > 65536)
		return vcp_err(ret_err, -EBADMSG,
			       "status.%s: more than 65536 vCPUs", p);
	for (size_t c = 0; r == 0 && c < json_object_array_length(dem); c++) {
		snprintf(p, sizeof(p), "last.vms[%zu].demand[%zu]", i, c);
		r = check_number(json_object_array_get_idx(dem, c), p, ret_err);
	}
	return r;
}

/* last.plan.vms[i]: what `vcpack verify` compares: {name, placement,
 * vcpus: [CPU list...]} */
static int check_plan_vm(struct json_object *o, size_t i, char **ret_err)
{
	static const char *const places[] = { "gathered", "exclusive", "free",
					      "unmanaged", NULL };
	struct json_object *a;
	struct vcp_cpuset cs;
	char p[96];
	int r;

	snprintf(p, sizeof(p), "last.plan.vms[%zu]", i);
	if (!json_object_is_type(o, json_type_object))
		return vcp_err(ret_err, -EBADMSG,
			       "status.%s: must be an object, got %s", p,
			       vcp_json_shown(o));
	snprintf(p, sizeof(p), "last.plan.vms[%zu].name", i);
	r = need_type(o, p, "name", json_type_string, ret_err);
	snprintf(p, sizeof(p), "last.plan.vms[%zu].placement", i);
	if (r == 0)
		r = need_word(
			o, p, "placement", places,
			"\"gathered\", \"exclusive\", \"free\" or \"unmanaged\"",
			ret_err);
	snprintf(p, sizeof(p), "last.plan.vms[%zu].vcpus", i);
	if (r == 0)
		r = need_type(o, p, "vcpus", json_type_array, ret_err);
	if (r < 0)
		return r;
	a = json_object_object_get(o, "vcpus");
	for (size_t c = 0; c < json_object_array_length(a); c++) {
		struct json_object *v = json_object_array_get_idx(a, c);

		/* null: a list too long for the daemon to write */
		if (!v ||
		    (json_object_is_type(v, json_type_string) &&
		     (!*json_object_get_string(v) ||
		      vcp_cpuset_parse(json_object_get_string(v), &cs) == 0)))
			continue;
		return vcp_err(
			ret_err, -EBADMSG,
			"status.last.plan.vms[%zu].vcpus[%zu]: must be null or a CPU list, got %s",
			i, c, vcp_json_shown(v));
	}
	return 0;
}

static int check_plan(struct json_object *plan, char **ret_err)
{
	struct json_object *vms;
	int64_t n;
	int r = need_int(plan, "last.plan.level", "level", 0, 2, "", &n,
			 ret_err);

	if (r == 0)
		r = need_type(plan, "last.plan.vms", "vms", json_type_array,
			      ret_err);
	vms = json_object_object_get(plan, "vms");
	for (size_t i = 0; r == 0 && i < json_object_array_length(vms); i++)
		r = check_plan_vm(json_object_array_get_idx(vms, i), i,
				  ret_err);
	return r;
}

static int check_last(struct json_object *last, char **ret_err)
{
	struct json_object *vms;
	int64_t n, pk;
	int r;

	if (!json_object_is_type(last, json_type_object))
		return vcp_err(ret_err, -EBADMSG,
			       "status.last: must be null or an object, got %s",
			       vcp_json_shown(last));
	r = need_int(last, "last.at", "at", 0, INT64_MAX, "", &n, ret_err);
	if (r == 0)
		r = need_int(last, "last.level", "level", 0, 2, "", &n,
			     ret_err);
	if (r == 0)
		r = need_int(last, "last.packages", "packages", 1, VCP_MAX_CPUS,
			     "", &pk, ret_err);
	if (r == 0)
		r = need_int(last, "last.active", "active", 0, pk,
			     " (its packages)", &n, ret_err);
	if (r == 0)
		r = need_type(last, "last.carried_out", "carried_out",
			      json_type_boolean, ret_err);
	if (r == 0)
		r = need_int(last, "last.changes", "changes", 0, INT32_MAX, "",
			     &n, ret_err);
	if (r == 0)
		r = need_type(last, "last.level_reason", "level_reason",
			      json_type_string, ret_err);
	if (r == 0)
		r = need_type(last, "last.plan", "plan", json_type_object,
			      ret_err);
	if (r == 0)
		r = check_plan(json_object_object_get(last, "plan"), ret_err);
	if (r == 0)
		r = need_type(last, "last.vms", "vms", json_type_array,
			      ret_err);
	vms = json_object_object_get(last, "vms");
	for (size_t i = 0; r == 0 && i < json_object_array_length(vms); i++)
		r = check_last_vm(json_object_array_get_idx(vms, i), i,
				  ret_err);
	return r;
}

static int check_control(struct json_object *o, char **ret_err)
{
	struct vcp_control ctl;
	struct json_object *v;
	int r = need_type(o, "control", "control", json_type_object, ret_err);

	if (r < 0)
		return r;
	v = json_object_object_get(o, "control");
	r = vcp_control_from_json(v, "status.control", &ctl, ret_err);
	if (r == 0 && need_type(v, "control.paused", "paused",
				json_type_boolean, ret_err) < 0)
		r = -EBADMSG;
	return r < 0 ? -EBADMSG : 0;
}

/* "busy" (optional): the daemon answered while its loop was busy. */
static int check_busy(struct json_object *o, char **ret_err)
{
	struct json_object *b;
	int64_t n;
	int r;

	if (!json_object_object_get_ex(o, "busy", &b))
		return 0;
	if (!json_object_is_type(b, json_type_object))
		return vcp_err(ret_err, -EBADMSG,
			       "status.busy: must be an object, got %s",
			       vcp_json_shown(b));
	r = need_int(b, "busy.for_ms", "for_ms", 0, INT64_MAX, "", &n, ret_err);
	if (r == 0)
		r = need_int(b, "busy.since", "since", 0, INT64_MAX, "", &n,
			     ret_err);
	if (r == 0)
		r = need_type(b, "busy.in", "in", json_type_string, ret_err);
	if (r == 0)
		r = need_type(b, "busy.waiting", "waiting", json_type_boolean,
			      ret_err);
	if (r == 0)
		r = need_type(b, "busy.uri", "uri", json_type_string, ret_err);
	return r;
}

int vcp_status_check(struct json_object *o, char **ret_err)
{
	/* vcp_mode_name's words */
	static const char *const modes[] = { "pin", "kernel", "scx", NULL };
	static const char *const levels[] = { "0", "1", "2", "auto", NULL };
	static const char *const strs[] = { "uri", "mode_reason",
					    "level_reason", "enabled_reason",
					    "state_file" };
	struct json_object *last;
	int64_t n;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return vcp_err(ret_err, -EBADMSG,
			       "status: must be an object, got %s",
			       vcp_json_shown(o));
	r = need_int(o, "pid", "pid", 1, INT32_MAX, "", &n, ret_err);
	for (size_t i = 0; r == 0 && i < sizeof(strs) / sizeof(*strs); i++)
		r = need_type(o, strs[i], strs[i], json_type_string, ret_err);
	if (r == 0)
		r = need_type(o, "connected", "connected", json_type_boolean,
			      ret_err);
	if (r == 0)
		r = need_word(o, "mode", "mode", modes,
			      "\"pin\", \"kernel\" or \"scx\"", ret_err);
	if (r == 0)
		r = need_int(o, "replans", "replans", 0, INT64_MAX, "", &n,
			     ret_err);
	if (r == 0)
		r = need_word(o, "level", "level", levels,
			      "\"0\", \"1\", \"2\" or \"auto\"", ret_err);
	if (r == 0)
		r = need_type(o, "enabled", "enabled", json_type_boolean,
			      ret_err);
	if (r == 0)
		r = check_control(o, ret_err);
	if (r == 0)
		r = check_busy(o, ret_err);
	if (r == 0)
		r = need(o, "last", "last", &last, ret_err);
	if (r == 0 && last)
		r = check_last(last, ret_err);
	return r;
}

int vcp_status_from_json(struct json_object *o, struct vcp_status *ret,
			 char **ret_err)
{
	struct vcp_status s = { 0 };
	struct json_object *v, *uri, *con, *mode, *last;
	int64_t pid, replans;
	int r = vcp_status_check(o, ret_err);

	if (r < 0)
		return r;
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "pid", &v) ||
	    !vcp_json_int_in(v, 1, INT32_MAX, &pid) ||
	    !member(o, "uri", json_type_string, &uri) ||
	    !member(o, "connected", json_type_boolean, &con) ||
	    !member(o, "mode", json_type_string, &mode) ||
	    !json_object_object_get_ex(o, "replans", &v) ||
	    !vcp_json_int_in(v, 0, INT64_MAX, &replans) ||
	    !json_object_object_get_ex(o, "last", &last))
		return vcp_err(ret_err, -EBADMSG, "status: not {pid, uri, connected, mode, replans, last}");
	s.pid = (int)pid;
	s.connected = json_object_get_boolean(con);
	s.replans = (unsigned long long)replans;
	status_level(o, &s);
	s.uri = strdup(json_object_get_string(uri));
	s.mode = strdup(json_object_get_string(mode));
	if (!s.uri || !s.mode)
		r = -ENOMEM;
	if (r == 0 && last)
		r = status_last(last, &s, ret_err);
	if (r < 0) {
		vcp_status_clear(&s);
		return r;
	}
	*ret = s;
	return 0;
}

void vcp_status_clear(struct vcp_status *s)
{
	for (size_t i = 0; i < s->n_vms; i++) {
		free(s->vms[i].name);
		free(s->vms[i].demand);
	}
	free(s->vms);
	free(s->uri);
	free(s->mode);
	memset(s, 0, sizeof(*s));
}

/* ---- one client's buffers ---- */

size_t vcp_conn_room(const struct vcp_conn *c)
{
	return c->in_len < VCP_CONN_MAX_IN ? VCP_CONN_MAX_IN - c->in_len : 0;
}

int vcp_conn_feed(struct vcp_conn *c, const char *data, size_t n)
{
	if (n)
		c->heard = true;
	if (n > vcp_conn_room(c))
		return -EMSGSIZE;
	if (c->in_len + n > c->in_cap) {
		size_t cap = c->in_cap ? c->in_cap : 512;
		char *t;

		while (cap < c->in_len + n)
			cap *= 2;
		t = realloc(c->in, cap);
		if (!t)
			return -ENOMEM;
		c->in = t;
		c->in_cap = cap;
	}
	memcpy(c->in + c->in_len, data, n);
	c->in_len += n;
	return 0;
}

int vcp_conn_next_line(struct vcp_conn *c, char **ret_line)
{
	char *nl = c->in_len ? memchr(c->in, '\n', c->in_len) : NULL;
	size_t len;
	char *line;

	if (!nl)
		return c->in_len >= VCP_PROTO_MAX_LINE ? -EMSGSIZE : 0;
	len = (size_t)(nl - c->in);
	if (len + 1 > VCP_PROTO_MAX_LINE)
		return -EMSGSIZE;
	line = malloc(len + 1);
	if (!line)
		return -ENOMEM;
	memcpy(line, c->in, len);
	line[len] = '\0';
	if (len && line[len - 1] == '\r')
		line[len - 1] = '\0';
	/* a NUL inside a line would end it early: refuse, not guess */
	if (memchr(c->in, '\0', len)) {
		free(line);
		return -EBADMSG;
	}
	memmove(c->in, nl + 1, c->in_len - len - 1);
	c->in_len -= len + 1;
	*ret_line = line;
	return 1;
}

int vcp_conn_queue(struct vcp_conn *c, const char *s, size_t n)
{
	size_t live = c->out_len - c->out_off;
	char *t;

	if (live + n > VCP_PROTO_MAX_OUT)
		return -ENOBUFS;
	if (c->out_off) {
		memmove(c->out, c->out + c->out_off, live);
		c->out_off = 0;
		c->out_len = live;
	}
	t = realloc(c->out, live + n ? live + n : 1);
	if (!t)
		return -ENOMEM;
	memcpy(t + live, s, n);
	c->out = t;
	c->out_len = live + n;
	return 0;
}

size_t vcp_conn_pending(const struct vcp_conn *c, const char **ret)
{
	*ret = c->out + c->out_off;
	return c->out_len - c->out_off;
}

void vcp_conn_sent(struct vcp_conn *c, size_t n)
{
	c->out_off += n;
	if (c->out_off >= c->out_len)
		c->out_off = c->out_len = 0;
}

enum vcp_conn_step vcp_conn_step(const struct vcp_conn *c)
{
	if (c->out_len != c->out_off)
		return VCP_CONN_WRITE;
	if (c->eof)
		return VCP_CONN_CLOSE;
	return c->closing ? VCP_CONN_LINGER : VCP_CONN_READ;
}

void vcp_conn_progress(struct vcp_conn *c, long long now_ms,
		       unsigned int idle_ms)
{
	c->deadline_ms = now_ms + idle_ms;
}

/* ---- the table ---- */

size_t vcp_proto_client_limit(unsigned long long nofile)
{
	unsigned long long spare = nofile > 64 ? (nofile - 64) / 2 : 0;

	if (spare < 4)
		return 4;
	return spare < VCP_PROTO_MAX_CLIENTS ? (size_t)spare :
					       VCP_PROTO_MAX_CLIENTS;
}

int vcp_conn_table_init(struct vcp_conn_table *t, size_t max,
			unsigned int idle_ms)
{
	struct vcp_conn **v = calloc(max ? max : 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	*t = (struct vcp_conn_table){ .v = v, .max = max, .idle_ms = idle_ms };
	return 0;
}

int vcp_conn_table_add(struct vcp_conn_table *t, int fd, long long now_ms,
		       struct vcp_conn **ret)
{
	struct vcp_conn *c;

	if (t->n >= t->max)
		return -EMFILE;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->fd = fd;
	c->born_ms = now_ms;
	vcp_conn_progress(c, now_ms, t->idle_ms);
	t->v[t->n++] = c;
	*ret = c;
	return 0;
}

/* Clients are kept in the order they came, so the first fits. */
struct vcp_conn *vcp_conn_table_victim(const struct vcp_conn_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (!t->v[i]->heard && !t->v[i]->closing)
			return t->v[i];
	return NULL;
}

size_t vcp_conn_table_expired(const struct vcp_conn_table *t, long long now_ms,
			      struct vcp_conn **ret, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n && n < max; i++)
		if (t->v[i]->deadline_ms <= now_ms ||
		    now_ms - t->v[i]->born_ms >= VCP_PROTO_MAX_LIFE_MS)
			ret[n++] = t->v[i];
	return n;
}

void vcp_conn_table_drop(struct vcp_conn_table *t, struct vcp_conn *c)
{
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i] != c)
			continue;
		memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof(*t->v));
		t->n--;
		break;
	}
	free(c->in);
	free(c->out);
	free(c);
}

void vcp_conn_table_clear(struct vcp_conn_table *t)
{
	while (t->n)
		vcp_conn_table_drop(t, t->v[0]);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
