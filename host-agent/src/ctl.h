/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctl.h - the client side of vcpackd's control socket (a UNIX stream
 * socket, root only): one request line, then the reply until the daemon
 * closes. The hook notifies through it and `vcpack status` asks it what
 * the daemon measured, so that both see the same state. Every call has a
 * deadline: a missing or stuck daemon never blocks the caller for long.
 */
#ifndef VCP_CTL_H
#define VCP_CTL_H

#include <stddef.h>

#define VCP_CTL_SOCKET "/run/vcpack/vcpackd.sock"

/* Send @line (with its newline) and hang up. 0 or -errno (-ENOENT and
 * -ECONNREFUSED: no daemon; -ETIMEDOUT). */
int vcp_ctl_send(const char *path, const char *line, unsigned int timeout_ms);
/* Send @line and read the whole reply (at most @max bytes) into a
 * NUL-terminated *ret_reply. 0 or -errno as above, -EFBIG past @max. */
int vcp_ctl_request(const char *path, const char *line,
		    unsigned int timeout_ms, size_t max, char **ret_reply);

#endif
