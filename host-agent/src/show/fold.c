// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fold.c - fit text to a width (fold.h): lines over the width broken at
 * spaces, the rest of a line under its text's start, an over-long word
 * (a connection URI, a path) shortened in the middle with "..."; lines
 * that fit untouched, so tables already cut to the width pass as they
 * are. The capture swaps glibc's stdout (a plain variable) for a memory
 * stream while a command prints, as the status --watch frames do.
 */
#include "fold.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "render.h"

/* Characters (not bytes) of @s[0..n). */
static size_t width(const char *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* Where the text after a label of one or two words at the start of
 * @line starts ("host:   x" -> 8, "migration options: x" -> 19), or 0. */
static size_t after_label(const char *line, size_t n)
{
	size_t k = 0;

	for (int words = 0; words < 2; words++) {
		while (k < n && line[k] != ' ' && line[k] != ':')
			k++;
		if (k + 1 < n && line[k] == ':' && line[k + 1] == ' ')
			return k + 1 + strspn(line + k + 1, " ");
		if (k >= n || line[k] != ' ' || line[k + 1] == ' ')
			return 0;
		k++;
	}
	return 0;
}

/* Where the text of @line starts (*ret_lead: after its leading spaces,
 * or after a label, after_label) and where its rest goes: under that
 * text, or 4 further in for an indented line (a table row: its rest
 * under it, not a new row). */
static size_t indent_of(const char *line, size_t n, size_t cols,
			size_t *ret_lead)
{
	size_t i = strspn(line, " "), ind = i + 4;

	if (i == 0)
		ind = i = after_label(line, n);
	if (i >= n || ind > cols / 2)
		i = ind = 0;
	*ret_lead = i;
	return ind;
}

/* One word of @n bytes onto @out, shortened to @room characters. */
static void put_word(FILE *out, const char *w, size_t n, size_t room)
{
	char *s, *buf;
	size_t len = n * 4 + 8;

	if (width(w, n) <= room) {
		fwrite(w, 1, n, out);
		return;
	}
	s = strndup(w, n);
	buf = malloc(len);
	if (s && buf)
		fputs(vcp_render_shorten(s, room, buf, len), out);
	else
		fwrite(w, 1, n, out);
	free(s);
	free(buf);
}

/* Is the word @w[0..n) a unit after a number ("s", "W", "MiB", "%"; a
 * comma or the like after it)? 1 to 3 letters or a '%'. */
static bool is_unit(const char *w, size_t n)
{
	while (n && strchr(",;:)", w[n - 1]))
		n--;
	if (n == 1 && w[0] == '%')
		return true;
	if (n < 1 || n > 3)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((w[i] >= 'a' && w[i] <= 'z') ||
		      (w[i] >= 'A' && w[i] <= 'Z')))
			return false;
	return true;
}

/* The columns the word @p[0..wn) needs on its line: its own, or with a
 * unit after it when it ends in a digit ("12 s" is not split). */
static size_t need_of(const char *p, size_t wn, const char *end)
{
	const char *q = p + wn;
	size_t gap = strspn(q, " "), qn;

	if (!wn || p[wn - 1] < '0' || p[wn - 1] > '9' || q + gap >= end)
		return width(p, wn);
	q += gap;
	qn = strcspn(q, " ");
	if (q + qn > end)
		qn = (size_t)(end - q);
	if (!is_unit(q, qn))
		return width(p, wn);
	return width(p, wn) + gap + width(q, qn);
}

/* @line's @n bytes: those before @lead as they are, the words after
 * folded to @cols, the further lines indented by @ind; a number and its
 * unit kept on one line. */
static void fold_words(FILE *out, const char *line, size_t n, size_t lead,
		       size_t ind, size_t cols)
{
	size_t col = width(line, lead);
	size_t first = col; /* where the words of this output line start */
	size_t gap = 0;		/* the spaces before the next word */
	const char *p = line + lead, *end = line + n;

	if (!cols || width(line, n) <= cols) {
		fwrite(line, 1, n, out);
		return;
	}
	fwrite(line, 1, lead, out);
	while (p < end) {
		const char *sp = memchr(p, ' ', (size_t)(end - p));
		size_t wn = sp ? (size_t)(sp - p) : (size_t)(end - p);
		size_t ww = width(p, wn);

		if (col > first && col + gap + need_of(p, wn, end) > cols) {
			fprintf(out, "\n%*s", (int)ind, "");
			col = first = ind;
		} else if (col > first) {
			/* the spaces as they were: aligned columns stay so */
			fprintf(out, "%*s", (int)gap, "");
			col += gap;
		}
		put_word(out, p, wn, cols > col ? cols - col : 0);
		col += ww < cols - col ? ww : cols - col;
		p += wn;
		gap = strspn(p, " ");
		p += gap;
	}
}

static void fold_line(FILE *out, const char *line, size_t n, size_t cols)
{
	size_t lead, ind = indent_of(line, n, cols, &lead);

	fold_words(out, line, n, lead, ind, cols);
}

size_t vcp_fold_prefix(const char *s, size_t cols)
{
	size_t n = strlen(s), i, fit = 0, w = 0;

	if (!cols || width(s, n) <= cols)
		return n;
	for (i = 0; i < n; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			if (w == cols)
				break;
			w++;
		}
		if (s[i] != ' ' && (i + 1 == n || s[i + 1] == ' '))
			fit = i + 1;
	}
	/* a first word wider than the row: cut, whole characters */
	return fit ? fit : i;
}

void vcp_fold_line(FILE *out, const char *line, size_t lead, size_t ind,
		   size_t cols)
{
	size_t n = strlen(line);

	fold_words(out, line, n, lead < n ? lead : n, ind, cols);
	fputc('\n', out);
}

char *vcp_fold(const char *text, size_t cols)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);

		fold_line(out, l, n, cols);
		if (nl)
			fputc('\n', out);
		l += n + (nl != NULL);
	}
	if (fclose(out) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

void vcp_fold_vprintf(FILE *f, size_t cols, const char *fmt, va_list ap)
{
	char *text = NULL, *folded;

	if (vasprintf(&text, fmt, ap) < 0) {
		fputs(fmt, f); /* out of memory: as it is */
		return;
	}
	folded = cols ? vcp_fold(text, cols) : NULL;
	fputs(folded ? folded : text, f);
	free(folded);
	free(text);
}

void vcp_fold_printf(FILE *f, size_t cols, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcp_fold_vprintf(f, cols, fmt, ap);
	va_end(ap);
}

int vcp_fold_err(int code, const char *prog, size_t cols, const char *fmt,
		 va_list ap)
{
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	/* one line: names, URIs and libvirt's words in it escaped */
	vcp_fold_printf(stderr, cols, "%s: %s\n", prog,
			msg ? vcp_esc_msg(msg) : "out of memory");
	free(msg);
	return code;
}

int vcp_fold_begin(struct vcp_fold_capture *c, size_t cols)
{
	*c = (struct vcp_fold_capture){ .cols = cols };
	if (!cols)
		return 0;
	fflush(stdout);
	c->mem = open_memstream(&c->buf, &c->len);
	if (!c->mem)
		return -errno;
	c->saved = stdout;
	stdout = c->mem;
	return 0;
}

void vcp_fold_end(struct vcp_fold_capture *c)
{
	char *folded;

	if (!c->saved)
		return;
	stdout = c->saved;
	c->saved = NULL;
	if (fclose(c->mem) != 0) {
		free(c->buf);
		return;
	}
	folded = vcp_fold(c->buf, c->cols);
	fputs(folded ? folded : c->buf, stdout);
	free(folded);
	free(c->buf);
	c->buf = NULL;
}
