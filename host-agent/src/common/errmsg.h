/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * errmsg.h - the one way library code hands an error message to its
 * caller: a malloc'd string in *ret_err next to a negative errno.
 * A message holds names as they are (a VM's name, libvirt's words), so
 * that messages nest without escaping twice; whoever prints it to a
 * terminal or a log escapes it there (esc.h; vcp_fold_err() does).
 */
#ifndef VCP_ERRMSG_H
#define VCP_ERRMSG_H

#include <stdarg.h>

/*
 * Format a message into *ret_err (when ret_err is not NULL; *ret_err
 * must be NULL or an earlier message, which is freed) and return @r, or
 * -ENOMEM when even the message cannot be allocated. Usage: return vcp_err(ret_err, -EINVAL,
 * "%s: unknown key", path);
 */
__attribute__((format(printf, 3, 4)))
int vcp_err(char **ret_err, int r, const char *fmt, ...);
/* The same from a va_list, prefixed "WHERE: " when @where is neither
 * NULL nor empty (a key path, a file name). */
__attribute__((format(printf, 4, 0)))
int vcp_verr_at(char **ret_err, int r, const char *where, const char *fmt,
		va_list ap);

#endif
