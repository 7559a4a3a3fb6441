// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gsrc.c - GLib sources on a given main context (see gsrc.h).
 */
#include "gsrc.h"

static guint attach(GMainContext *ctx, GSource *src, GSourceFunc fn, void *data)
{
	guint id;

	g_source_set_callback(src, fn, data, NULL);
	id = g_source_attach(src, ctx);
	g_source_unref(src);
	return id;
}

guint vcp_gsrc_fd(GMainContext *ctx, int fd, GIOCondition cond,
		  GUnixFDSourceFunc fn, void *data)
{
	GSource *src = g_unix_fd_source_new(fd, cond);
	guint id;

	/* GLib's own g_unix_fd_add_full() sets the callback so */
	g_source_set_callback(src, (GSourceFunc)(void (*)(void))fn, data, NULL);
	id = g_source_attach(src, ctx);
	g_source_unref(src);
	return id;
}

guint vcp_gsrc_timeout(GMainContext *ctx, unsigned int ms, GSourceFunc fn,
		       void *data)
{
	return attach(ctx, g_timeout_source_new(ms), fn, data);
}

guint vcp_gsrc_seconds(GMainContext *ctx, unsigned int s, GSourceFunc fn,
		       void *data)
{
	return attach(ctx, g_timeout_source_new_seconds(s), fn, data);
}

guint vcp_gsrc_signal(GMainContext *ctx, int signum, GSourceFunc fn, void *data)
{
	return attach(ctx, g_unix_signal_source_new(signum), fn, data);
}

void vcp_gsrc_remove(GMainContext *ctx, guint id)
{
	GSource *src = id ? g_main_context_find_source_by_id(ctx, id) : NULL;

	if (src)
		g_source_destroy(src);
}
