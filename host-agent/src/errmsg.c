// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * errmsg.c - error messages for callers (see errmsg.h). Never prints.
 */
#include "errmsg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int vcp_err(char **ret_err, int r, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	int n;

	if (!ret_err)
		return r;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	free(*ret_err);
	*ret_err = msg;
	return r;
}
