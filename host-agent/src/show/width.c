// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * width.c - the columns text output is laid out for (width.h): the
 * choice is pure (vcp_width_choose(), vcp_width_frame()), the reads of
 * COLUMNS and of the terminal's size are apart, and the width chosen is
 * kept for the renderings, as stdout is.
 */
#include "width.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static size_t width_cols = VCP_WIDTH_FIXED;

static size_t at_least_min(size_t n)
{
	return n < VCP_WIDTH_MIN ? VCP_WIDTH_MIN : n;
}

/* COLUMNS as a number from 1 to VCP_WIDTH_MAX, else 0. */
static size_t columns_of(const char *s)
{
	size_t n = 0;

	if (!s || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 5)
		return 0;
	n = strtoul(s, NULL, 10);
	return n <= VCP_WIDTH_MAX ? n : 0;
}

size_t vcp_width_choose(bool wide, const char *columns, unsigned int tty_cols)
{
	size_t n = columns_of(columns);

	if (wide)
		return 0;
	if (n)
		return at_least_min(n);
	if (tty_cols)
		return at_least_min(tty_cols);
	return VCP_WIDTH_FIXED;
}

size_t vcp_width_frame(size_t cols, unsigned int tty_cols)
{
	if (!cols || !tty_cols)
		return cols;
	return at_least_min(tty_cols - 1);
}

unsigned int vcp_width_tty(int fd)
{
	struct winsize ws = { 0 };

	if (!isatty(fd) || ioctl(fd, TIOCGWINSZ, &ws) != 0)
		return 0;
	return ws.ws_col;
}

size_t vcp_width_of(int fd, bool wide)
{
	return vcp_width_choose(wide, getenv("COLUMNS"), vcp_width_tty(fd));
}

void vcp_width_set(size_t cols)
{
	width_cols = cols;
}

size_t vcp_width_cols(void)
{
	return width_cols;
}
