// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleetrule.c - `vcpack fleet --match` rules (see fleetrule.h): parsed
 * and checked term by term, every refusal naming the term; matched
 * against a host and a VM. Pure.
 */
#include "fleetrule.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

static const char *const key_name[] = {
	"name", "host", "group", "class", "priority", "tagged",
};

const char *vcp_rule_key_name(enum vcp_rule_key k)
{
	return (size_t)k < G_N_ELEMENTS(key_name) ? key_name[k] : "?";
}

static char *check_term(const struct vcp_rule_term *t)
{
	enum vcp_class cls;
	enum vcp_priority pr;

	if (t->key == VCP_RULE_CLASS && strcmp(t->pat, "untouched") &&
	    vcp_class_from_name(t->pat, &cls) < 0)
		return g_strdup_printf(
			"--match: class '%s' is not one of spread, balanced, pack, untouched",
			t->pat);
	if (t->key == VCP_RULE_PRIORITY && strcmp(t->pat, "none") &&
	    vcp_priority_from_name(t->pat, &pr) < 0)
		return g_strdup_printf(
			"--match: priority '%s' is not one of high, normal, low, none",
			t->pat);
	if (t->key == VCP_RULE_TAGGED && strcmp(t->pat, "yes") &&
	    strcmp(t->pat, "no"))
		return g_strdup_printf("--match: tagged '%s' is not yes or no",
				       t->pat);
	return NULL;
}

/* One term of @len bytes at @s into *t: 0, or -EINVAL with *ret_err. */
static int parse_term(const char *s, size_t len, struct vcp_rule_term *t,
		      char **ret_err)
{
	const char *eq = memchr(s, '=', len);
	size_t klen = eq ? (size_t)(eq - s) : 0;

	if (!eq || !klen || klen + 1 == len) {
		*ret_err = g_strdup_printf("--match: '%.*s' is not KEY=VALUE",
					   (int)len, s);
		return -EINVAL;
	}
	for (size_t k = 0; k < G_N_ELEMENTS(key_name); k++) {
		if (strlen(key_name[k]) != klen ||
		    strncmp(s, key_name[k], klen))
			continue;
		t->key = (enum vcp_rule_key)k;
		t->pat = g_strndup(eq + 1, len - klen - 1);
		*ret_err = check_term(t);
		return *ret_err ? -EINVAL : 0;
	}
	*ret_err = g_strdup_printf(
		"--match: unknown key '%.*s' (name, host, group, class, priority, tagged)",
		(int)klen, s);
	return -EINVAL;
}

int vcp_rule_parse(const char *s, struct vcp_rule *ret, char **ret_err)
{
	struct vcp_rule r = { 0 };
	char *err = NULL;
	int rc = 0;

	while (rc == 0 && *s) {
		size_t len = strcspn(s, ",");

		r.terms = g_renew(struct vcp_rule_term, r.terms, r.n_terms + 1);
		memset(&r.terms[r.n_terms], 0, sizeof(*r.terms));
		rc = parse_term(s, len, &r.terms[r.n_terms++], &err);
		s += len + (s[len] == ',');
	}
	if (rc == 0 && !r.n_terms) {
		err = g_strdup("--match needs at least one KEY=VALUE");
		rc = -EINVAL;
	}
	if (rc < 0) {
		vcp_rule_clear(&r);
		*ret_err = err;
		return rc;
	}
	*ret = r;
	return 0;
}

void vcp_rule_clear(struct vcp_rule *r)
{
	for (size_t k = 0; k < r->n_terms; k++)
		g_free(r->terms[k].pat);
	g_free(r->terms);
	r->terms = NULL;
	r->n_terms = 0;
}

bool vcp_rule_term_is_host(const struct vcp_rule_term *t)
{
	return t->key == VCP_RULE_HOST || t->key == VCP_RULE_GROUP;
}

bool vcp_rule_term_matches(const struct vcp_rule_term *t,
			   const struct vcp_rule_subject *s)
{
	const struct vcp_vm *vm = s->vm;

	switch (t->key) {
	case VCP_RULE_NAME:
		return fnmatch(t->pat, vm->name, 0) == 0;
	case VCP_RULE_HOST:
		return fnmatch(t->pat, s->host, 0) == 0;
	case VCP_RULE_GROUP:
		return s->group && fnmatch(t->pat, s->group, 0) == 0;
	case VCP_RULE_CLASS:
		return !strcmp(t->pat, s->class_name);
	case VCP_RULE_PRIORITY:
		if (!vm->has_tag || !vm->tag.has_priority)
			return !strcmp(t->pat, "none");
		return !strcmp(t->pat, vcp_priority_name(vm->tag.priority));
	case VCP_RULE_TAGGED:
		return !strcmp(t->pat, vm->has_tag ? "yes" : "no");
	}
	return false;
}

bool vcp_rule_matches(const struct vcp_rule *r,
		      const struct vcp_rule_subject *s, bool hosts_only)
{
	for (size_t k = 0; k < r->n_terms; k++) {
		if (hosts_only && !vcp_rule_term_is_host(&r->terms[k]))
			continue;
		if (!vcp_rule_term_matches(&r->terms[k], s))
			return false;
	}
	return true;
}
