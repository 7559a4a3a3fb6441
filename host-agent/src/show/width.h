/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * width.h - how many columns the CLI's text is laid out for: --wide no
 * limit, else COLUMNS when it holds a sane number, else the terminal's
 * width when stdout is one, else the fixed 100 (a pipe, a file: the same
 * text as before, whatever the terminal the command ran from).
 */
#ifndef VCP_WIDTH_H
#define VCP_WIDTH_H

#include <stdbool.h>
#include <stddef.h>

#define VCP_WIDTH_FIXED 100 /* not a terminal, no COLUMNS */
#define VCP_WIDTH_MIN 60 /* a narrower COLUMNS or terminal: this */
#define VCP_WIDTH_MAX 10000 /* a COLUMNS above: not a width, ignored */

/*
 * Pure: the width from @wide (--wide: 0, no limit), @columns (COLUMNS
 * or NULL; used when it is a decimal number from 1 to VCP_WIDTH_MAX)
 * and @tty_cols (the terminal's columns, 0 when not a terminal), at
 * least VCP_WIDTH_MIN.
 */
size_t vcp_width_choose(bool wide, const char *columns, unsigned int tty_cols);

/*
 * Pure: the width of one `status --watch` frame on a terminal of
 * @tty_cols columns (re-read at each redraw) when @cols was chosen: 0
 * stays 0 (--wide), else one less than the terminal (a full last column
 * would leave the cursor waiting to wrap), at least VCP_WIDTH_MIN; @cols
 * when the terminal's size is unknown (@tty_cols 0).
 */
size_t vcp_width_frame(size_t cols, unsigned int tty_cols);

/* The terminal's columns on @fd (TIOCGWINSZ), 0 when not a terminal. */
unsigned int vcp_width_tty(int fd);

/* vcp_width_choose() for output to @fd, from this process's COLUMNS. */
size_t vcp_width_of(int fd, bool wide);

/*
 * The width this program lays its text out for (0: no limit), set once
 * it knows (from vcp_width_of(STDOUT_FILENO, ...)) and by each --watch
 * frame; VCP_WIDTH_FIXED until set. The renderings fold and cut their
 * lines to it.
 */
void vcp_width_set(size_t cols);
size_t vcp_width_cols(void);

#endif
