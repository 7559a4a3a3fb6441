/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctlserver.h - the server side of vcpackd's control socket, on the GLib
 * main loop the daemon runs (the protocol itself is proto.h). No client
 * can block the loop: sockets are non-blocking, replies are queued per
 * client and written when the socket is writable, every client has a
 * deadline, and the number of clients is bounded (past it the oldest
 * client that has not said anything makes room, with a one-line error;
 * with none, accepting stops until a client leaves and newcomers wait in
 * the listen backlog). Out of descriptors, accepting pauses for a moment
 * instead of spinning. No logging: the owner is told
 * through @note, once per condition.
 */
#ifndef VCP_CTLSERVER_H
#define VCP_CTLSERVER_H

#include <stddef.h>

#include <glib.h>
#include <json-c/json.h>

#include "proto.h"

/* Answer @req: a new object with the reply's members (or NULL for none),
 * or NULL with *ret_error (malloc'd) when the request fails. */
typedef struct json_object *(*vcp_ctl_handler)(void *opaque,
					      const struct vcp_req *req,
					      char **ret_error);

struct vcp_ctl_server_conf {
	size_t max_clients;
	unsigned int idle_ms;	/* per-client deadline after progress */
	unsigned int pause_ms;	/* accepting pauses this long on EMFILE */
	vcp_ctl_handler handle;
	void (*note)(void *opaque, const char *msg);
	void *opaque;
	GMainContext *ctx; /* the loop it runs on; NULL: the default */
};

struct vcp_ctl_server;

/*
 * The listening socket at @path (its directory made, 0700, when
 * missing): mode 0600, non-blocking, close-on-exec. A socket file no
 * server answers on is replaced. 0, -EADDRINUSE when a server answers
 * there, -ENAMETOOLONG, or -errno.
 */
int vcp_ctl_listen(const char *path, int *ret_fd);

/* Serve on @listen_fd (bound, listening, non-blocking; stays the
 * caller's). 0 or -ENOMEM. */
int vcp_ctl_server_new(int listen_fd, const struct vcp_ctl_server_conf *conf,
		       struct vcp_ctl_server **ret);
/* Close every client and remove every watch. NULL is fine. */
void vcp_ctl_server_free(struct vcp_ctl_server *s);

#endif
