/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sdnotify.h - the service manager's notification protocol (sd_notify(3))
 * without libsystemd: one datagram of "KEY=VALUE\n..." lines to the
 * AF_UNIX socket named by $NOTIFY_SOCKET ("/path", or "@name" for an
 * abstract socket). Outside systemd (no $NOTIFY_SOCKET) every call is a
 * successful no-op.
 */
#ifndef VCP_SDNOTIFY_H
#define VCP_SDNOTIFY_H

#include <stdint.h>
#include <sys/types.h>

/* Send @state to the socket @path ("/..." or "@abstract"). 0 or -errno
 * (-EAFNOSUPPORT for any other form, -ENAMETOOLONG). */
int vcp_sd_notify_to(const char *path, const char *state);
/* Send @state to $NOTIFY_SOCKET; 0 when it is unset, else as above. */
int vcp_sd_notify(const char *state);
/* The watchdog period from $WATCHDOG_USEC and $WATCHDOG_PID as given
 * (@pid may be NULL; when set it must be @self): 0 and *ret_usec, or
 * -ENODATA (no watchdog, or meant for another process), -EINVAL. */
int vcp_sd_watchdog_parse(const char *usec, const char *pid, pid_t self,
			  uint64_t *ret_usec);
/* The same for this process's environment. */
int vcp_sd_watchdog_usec(uint64_t *ret_usec);

#endif
