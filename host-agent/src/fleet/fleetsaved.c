// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleetsaved.c - read back a fleet plan saved by `vcpack fleet plan
 * --save`: the plan's JSON with each host's identity (uri, hostname,
 * host_uuid) and each move's VM UUID. Only what apply needs is read, and
 * checked strictly: a wrong type or a move naming no saved host refuses
 * the file, naming the key.
 */
#include "fleetsaved.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "errmsg.h"
#include "jsonfile.h"

#define SAVED_MAX (16u << 20)

static int bad(char **ret_err, const char *path, const char *what,
	       size_t i, const char *key)
{
	return vcp_err(ret_err, -EINVAL, "%s: %s[%zu].%s: missing or not a string",
		       path, what, i, key);
}

/* @o's @key as a copy: a string, or (when @null_ok) null/absent. */
static int str_of(struct json_object *o, const char *key, bool null_ok,
		  char **ret)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) || !v) {
		*ret = NULL;
		return null_ok ? 0 : -EINVAL;
	}
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;
	*ret = strdup(json_object_get_string(v));
	return *ret ? 0 : -ENOMEM;
}

static int host_index(const struct vcp_saved_plan *sp, const char *name,
		      size_t *ret)
{
	for (size_t i = 0; i < sp->n_hosts; i++)
		if (!strcmp(sp->hosts[i].name, name)) {
			*ret = i;
			return 0;
		}
	return -ENOENT;
}

static int read_hosts(struct json_object *arr, const char *path,
		      struct vcp_saved_plan *sp, char **ret_err)
{
	size_t n = json_object_array_length(arr);

	sp->hosts = calloc(n ? n : 1, sizeof(*sp->hosts));
	if (!sp->hosts)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *h = json_object_array_get_idx(arr, i);
		struct vcp_saved_host *sh = &sp->hosts[i];

		sp->n_hosts = i + 1;
		if (str_of(h, "name", false, &sh->name))
			return bad(ret_err, path, "hosts", i, "name");
		if (str_of(h, "uri", false, &sh->uri))
			return bad(ret_err, path, "hosts", i, "uri");
		if (str_of(h, "hostname", true, &sh->hostname))
			return bad(ret_err, path, "hosts", i, "hostname");
		if (str_of(h, "host_uuid", true, &sh->host_uuid))
			return bad(ret_err, path, "hosts", i, "host_uuid");
	}
	return 0;
}

static int read_moves(struct json_object *arr, const char *path,
		      struct vcp_saved_plan *sp, char **ret_err)
{
	size_t n = json_object_array_length(arr);
	char *from = NULL, *to = NULL;
	int r = 0;

	sp->moves = calloc(n ? n : 1, sizeof(*sp->moves));
	if (!sp->moves)
		return -ENOMEM;
	for (size_t k = 0; r == 0 && k < n; k++) {
		struct json_object *m = json_object_array_get_idx(arr, k);
		struct vcp_saved_move *sm = &sp->moves[k];

		sp->n_moves = k + 1;
		if (str_of(m, "vm", false, &sm->vm))
			return bad(ret_err, path, "moves", k, "vm");
		if (str_of(m, "uuid", false, &sm->uuid))
			return bad(ret_err, path, "moves", k, "uuid");
		if (str_of(m, "from", false, &from) ||
		    host_index(sp, from, &sm->from))
			r = vcp_err(ret_err, -EINVAL, "%s: moves[%zu].from: no saved host '%s'",
				       path, k, from ? from : "");
		else if (str_of(m, "to", false, &to) ||
			 host_index(sp, to, &sm->to))
			r = vcp_err(ret_err, -EINVAL, "%s: moves[%zu].to: no saved host '%s'",
				       path, k, to ? to : "");
		free(from);
		free(to);
		from = to = NULL;
	}
	return r;
}

static int read_plan(struct json_object *o, const char *path,
		     struct vcp_saved_plan *sp, char **ret_err)
{
	struct json_object *fmt = NULL, *hs = NULL, *ms = NULL;
	int r;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "format", &fmt) ||
	    !json_object_is_type(fmt, json_type_string) ||
	    strcmp(json_object_get_string(fmt), VCP_SAVED_FORMAT)) {
		return vcp_err(ret_err, -EINVAL, "%s: not a plan saved by 'vcpack fleet plan --save' (format is not \"%s\")",
			       path, VCP_SAVED_FORMAT);
	}
	if (!json_object_object_get_ex(o, "hosts", &hs) ||
	    !json_object_is_type(hs, json_type_array) ||
	    !json_object_object_get_ex(o, "moves", &ms) ||
	    !json_object_is_type(ms, json_type_array)) {
		return vcp_err(ret_err, -EINVAL, "%s: hosts and moves must be arrays",
			       path);
	}
	r = read_hosts(hs, path, sp, ret_err);
	return r ? r : read_moves(ms, path, sp, ret_err);
}

int vcp_saved_plan_load(const char *path, struct vcp_saved_plan *ret,
			char **ret_err)
{
	struct vcp_saved_plan sp = { 0 };
	struct json_object *o = NULL;
	char *text = NULL;
	int r = vcp_file_read(path, SAVED_MAX, &text, ret_err);

	if (r == 0)
		r = vcp_json_parse(text, path, &o, ret_err);
	free(text);
	if (r == 0)
		r = read_plan(o, path, &sp, ret_err);
	json_object_put(o);
	if (r < 0) {
		vcp_saved_plan_clear(&sp);
		return r;
	}
	*ret = sp;
	return 0;
}

void vcp_saved_plan_clear(struct vcp_saved_plan *sp)
{
	for (size_t i = 0; sp->hosts && i < sp->n_hosts; i++) {
		free(sp->hosts[i].name);
		free(sp->hosts[i].uri);
		free(sp->hosts[i].hostname);
		free(sp->hosts[i].host_uuid);
	}
	for (size_t k = 0; sp->moves && k < sp->n_moves; k++) {
		free(sp->moves[k].vm);
		free(sp->moves[k].uuid);
	}
	free(sp->hosts);
	free(sp->moves);
	*sp = (struct vcp_saved_plan){ 0 };
}
