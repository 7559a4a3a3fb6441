// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * passnews.c - what of a re-plan pass vcpackd's log says (see
 * passnews.h): the last pass's level, active packages and failures
 * kept, each new pass compared with them. Pure.
 */
#include "passnews.h"

#include <glib.h>

/* The failures of a pass as one string, one per line. */
static char *failures_of(const struct vcp_world *w,
			 const struct vcp_apply_result *res)
{
	GString *s = g_string_new(NULL);

	for (size_t i = 0; i < res->n; i++)
		if ((res->e[i].outcome == VCP_FAILED ||
		     res->e[i].outcome == VCP_REFUSED) &&
		    res->e[i].msg)
			g_string_append_printf(s, "%s\n", res->e[i].msg);
	for (size_t i = 0; i < w->n_issues; i++)
		g_string_append_printf(s, "'%s': %s\n", w->issues[i].vm,
				       w->issues[i].msg);
	return g_string_free(s, FALSE);
}

void vcp_passnews_forget(struct vcp_passnews *n)
{
	n->level = -1;
}

void vcp_passnews_clear(struct vcp_passnews *n)
{
	g_free(n->failures);
	n->failures = NULL;
}

void vcp_passnews_update(struct vcp_passnews *n, const struct vcp_plan *p,
			 const struct vcp_world *w,
			 const struct vcp_apply_result *res, bool *ret_plan,
			 char ***ret_lines)
{
	char *fails = failures_of(w, res);
	GPtrArray *lines = g_ptr_array_new();

	*ret_plan = p->level != n->level || p->n_active != n->active || res->n;
	if (g_strcmp0(fails, n->failures) != 0 && *fails) {
		gchar **all = g_strsplit(fails, "\n", -1);

		for (gchar **l = all; *l; l++)
			if (**l)
				g_ptr_array_add(lines, g_strdup(*l));
		g_strfreev(all);
	}
	g_ptr_array_add(lines, NULL);
	*ret_lines = (char **)g_ptr_array_free(lines, FALSE);
	g_free(n->failures);
	n->failures = fails;
	n->level = p->level;
	n->active = p->n_active;
}
