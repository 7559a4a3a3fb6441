// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * errmsg.c - error messages for callers (see errmsg.h). Never prints.
 */
#include "errmsg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int vcp_verr_at(char **ret_err, int r, const char *where, const char *fmt,
		va_list ap)
{
	char *msg = NULL, *full = NULL;

	if (!ret_err)
		return r;
	if (vasprintf(&msg, fmt, ap) < 0)
		return -ENOMEM;
	if (where && *where) {
		if (asprintf(&full, "%s: %s", where, msg) < 0)
			full = NULL;
		free(msg);
		if (!full)
			return -ENOMEM;
		msg = full;
	}
	free(*ret_err);
	*ret_err = msg;
	return r;
}

int vcp_err(char **ret_err, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	r = vcp_verr_at(ret_err, r, NULL, fmt, ap);
	va_end(ap);
	return r;
}
