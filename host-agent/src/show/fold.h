/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fold.h - text output that fits a width: the header lines of status,
 * plan and fleet status ("host:   NAME (URI, ...)", "mode:   ...") folded
 * at spaces under the text's start, a word too long for a line (a long
 * connection URI) cut in its middle with "..." so that the cut shows.
 */
#ifndef VCP_FOLD_H
#define VCP_FOLD_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * @text (lines ending in '\n') with every line wider than @cols
 * characters (UTF-8 characters, not bytes) folded: broken at spaces,
 * each further line indented to where the first line's text starts
 * after a "label:" (of one or two words: "migration options:") and the
 * spaces that follow it, or 4 further in than
 * an indented line (at most @cols / 2), a word wider than the room left cut in
 * the middle ("qemu+ssh://user@very...keyfile=/k"). Lines that fit are
 * kept as they are. malloc'd; NULL when out of memory.
 */
char *vcp_fold(const char *text, size_t cols);

/*
 * One line @line (no '\n') onto @out with its '\n': the bytes before
 * @lead as they are, the words from @lead on folded as vcp_fold() folds
 * them to @cols (whole when @cols is 0), the further lines indented by
 * @ind. vcp_fold() is this for each line, with @lead and @ind found in it.
 */
void vcp_fold_line(FILE *out, const char *line, size_t lead, size_t ind,
		   size_t cols);

/* @fmt's text (its lines ending in '\n') on @f, folded as vcp_fold()
 * folds to @cols (whole when @cols is 0): error and log lines, which a
 * long name or URI can make longer than a terminal. */
__attribute__((format(printf, 3, 4))) void
vcp_fold_printf(FILE *f, size_t cols, const char *fmt, ...);
__attribute__((format(printf, 3, 0))) void
vcp_fold_vprintf(FILE *f, size_t cols, const char *fmt, va_list ap);
/* "PROG: MESSAGE" on stderr, folded to @cols under the message's start
 * (whole when @cols is 0); returns @code (a program's error exit). */
__attribute__((format(printf, 4, 0))) int
vcp_fold_err(int code, const char *prog, size_t cols, const char *fmt,
	     va_list ap);

/* The bytes of @s's longest start within @cols characters that ends
 * where a word ends (spaces after it dropped): a line redrawn in place
 * on one terminal row. All of @s when it fits or @cols is 0; a first
 * word wider than @cols: its first @cols characters. */
size_t vcp_fold_prefix(const char *s, size_t cols);

/* What a command prints on stdout between begin and end, folded to
 * @cols at the end (begin with @cols 0, as --wide or --json ask: not
 * captured, printed as it goes). */
struct vcp_fold_capture {
	FILE *saved;		/* stdout before begin, NULL: not capturing */
	FILE *mem;
	char *buf;
	size_t len;
	size_t cols;
};

/* 0, or -errno (nothing captured: end then does nothing). */
int vcp_fold_begin(struct vcp_fold_capture *c, size_t cols);
void vcp_fold_end(struct vcp_fold_capture *c);

#endif
