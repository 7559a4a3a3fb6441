// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * passnews.c - what of a re-plan pass vcpackd's log says (see
 * passnews.h): the last pass's level, active packages and failures
 * kept, each new pass compared with them. Pure.
 */
#include "passnews.h"

#include <glib.h>

/* The failures of a pass, one a line (a VM's name or a message may
 * hold a newline itself: each is one line all the same). */
static char **failures_of(const struct vcp_world *w,
			  const struct vcp_apply_result *res)
{
	GPtrArray *a = g_ptr_array_new();

	for (size_t i = 0; i < res->n; i++)
		if ((res->e[i].outcome == VCP_FAILED ||
		     res->e[i].outcome == VCP_REFUSED) &&
		    res->e[i].msg)
			g_ptr_array_add(a, g_strdup(res->e[i].msg));
	for (size_t i = 0; i < w->n_issues; i++)
		g_ptr_array_add(a, g_strdup_printf("'%s': %s", w->issues[i].vm,
						   w->issues[i].msg));
	g_ptr_array_add(a, NULL);
	return (char **)g_ptr_array_free(a, FALSE);
}

void vcp_passnews_forget(struct vcp_passnews *n)
{
	n->level = -1;
}

void vcp_passnews_clear(struct vcp_passnews *n)
{
	g_strfreev(n->failures);
	n->failures = NULL;
}

void vcp_passnews_update(struct vcp_passnews *n, const struct vcp_plan *p,
			 const struct vcp_world *w,
			 const struct vcp_apply_result *res, bool *ret_plan,
			 char ***ret_lines)
{
	char **fails = failures_of(w, res);
	bool news = *fails &&
		    !(n->failures &&
		      g_strv_equal((const gchar *const *)fails,
				   (const gchar *const *)n->failures));

	*ret_plan = p->level != n->level || p->n_active != n->active || res->n;
	*ret_lines = news ? g_strdupv(fails) : g_new0(char *, 1);
	g_strfreev(n->failures);
	n->failures = fails;
	n->level = p->level;
	n->active = p->n_active;
}
