/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gsrc.h - GLib sources on a given main context. GLib's g_timeout_add()
 * and friends attach to the global default context, which vcpackd
 * leaves to libvirt's event loop (its own thread: keepalive, domain
 * events); the daemon's loop and the control socket's each run on a
 * context of their own. @ctx NULL is the default context.
 */
#ifndef VCP_GSRC_H
#define VCP_GSRC_H

#include <glib-unix.h>
#include <glib.h>

guint vcp_gsrc_fd(GMainContext *ctx, int fd, GIOCondition cond,
		  GUnixFDSourceFunc fn, void *data);
guint vcp_gsrc_timeout(GMainContext *ctx, unsigned int ms, GSourceFunc fn,
		       void *data);
guint vcp_gsrc_seconds(GMainContext *ctx, unsigned int s, GSourceFunc fn,
		       void *data);
guint vcp_gsrc_signal(GMainContext *ctx, int signum, GSourceFunc fn,
		      void *data);
/* Remove source @id of @ctx (0 or an id gone already: nothing). */
void vcp_gsrc_remove(GMainContext *ctx, guint id);

#endif
