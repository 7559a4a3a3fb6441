/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctl.h - the client side of vcpackd's control socket (a UNIX stream
 * socket, root only): one request line, then one reply line (proto.h has
 * the messages). The hook notifies through it and `vcpack status` asks it what
 * the daemon measured, so that both see the same state. Every call has a
 * deadline: a missing or stuck daemon never blocks the caller for long.
 */
#ifndef VCP_CTL_H
#define VCP_CTL_H

#include <stddef.h>

#include <json-c/json.h>

#include "proto.h"

#define VCP_CTL_SOCKET "/run/vcpack/vcpackd.sock"
#define VCP_CTL_MAX_REPLY (64u << 20)

/* Send @line (with its newline) and hang up. 0 or -errno (-ENOENT and
 * -ECONNREFUSED: no daemon; -ETIMEDOUT). */
int vcp_ctl_send(const char *path, const char *line, unsigned int timeout_ms);
/* Send @line and read the reply line (at most @max bytes) into a
 * NUL-terminated *ret_reply, without its newline. 0 or -errno as above,
 * -EFBIG past @max. */
int vcp_ctl_request(const char *path, const char *line,
		    unsigned int timeout_ms, size_t max, char **ret_reply);
/* A version 1 request: the reply object (its "ok" was true) in *ret, or
 * -errno with *ret_err (-EPROTO: the daemon's own error). */
int vcp_ctl_call(const char *path, const struct vcp_req *req,
		 unsigned int timeout_ms, size_t max,
		 struct json_object **ret, char **ret_err);
/* "status", checked and copied into *ret (vcp_status_clear() it). */
int vcp_ctl_status(const char *path, unsigned int timeout_ms,
		   struct vcp_status *ret, char **ret_err);
/* The hook's notification: send and hang up, without waiting for the
 * reply. 0 or -errno as vcp_ctl_send(). */
int vcp_ctl_notify(const char *path, const char *event, const char *sub,
		   const char *vm, unsigned int timeout_ms);

#endif
