/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * esc.h - the one escaping of outside strings on their way to a
 * terminal or a log: VM names, host names and URIs, libvirt's error
 * messages, what a file or a power command said. A control byte in one
 * of them would drive the operator's terminal (clear it, retitle it,
 * move the cursor over earlier lines) or forge a log line; escaped, it
 * shows as text, the way `ls -b` and systemd show such names:
 *
 *   backslash             \\
 *   ESC, CR, LF, TAB      \e  \r  \n  \t
 *   other C0 bytes, DEL   \xNN (two lowercase hex digits)
 *   C1 (U+0080..U+009F)   \xc2\xNN (its two UTF-8 bytes)
 *   a byte that is not    \xNN
 *   valid UTF-8
 *
 * Every other character (printable ASCII, valid UTF-8 from U+00A0 on)
 * is kept. The escaped form is printable UTF-8, and the escaping is
 * one-to-one (a literal backslash doubles), so two names never show
 * alike. Column widths count the escaped form: escape first, then
 * measure and cut.
 *
 * A message (an error, a log line, a reason: vcpack's words with names
 * in them) is escaped the same way but keeps its backslashes single
 * (vcp_esc_msg()): where a name starts and ends is not told in it
 * anyway, and vcpack's own words may hold one ("\u0000 in a string").
 *
 * Strings flow raw inside vcpack (a name is looked up as it is); they
 * are escaped once, where they are printed: the tables, reports and
 * fleet printers, the CLI's error line, vcpackd's log function, the
 * hook's messages. JSON output is JSON (json-c escapes C0 bytes);
 * vcp_esc_json_fputs() escapes the rest that json-c leaves raw.
 */
#ifndef VCP_ESC_H
#define VCP_ESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether @s prints as it is (nothing to escape). */
bool vcp_esc_clean(const char *s);

/* The bytes of @s's escaped form (without its NUL). */
size_t vcp_esc_len(const char *s);

/* @s escaped, malloc'd; NULL when out of memory. */
char *vcp_esc_dup(const char *s);

/*
 * @s escaped into @buf of @len bytes, cut short (never inside an escape
 * or a UTF-8 character) when it does not fit; returns @buf. A NULL @s
 * gives "(null)".
 */
const char *vcp_esc_to(const char *s, char *buf, size_t len);

/*
 * @s as printed: @s itself when clean, else its escaped form in one of
 * VCP_ESC_RING buffers of this thread, reused in turn: valid until this
 * thread's VCP_ESC_RING-th call after, long enough for one printf's
 * arguments; copy it to keep it. Out of memory: "(?)". NULL: "(null)".
 */
#define VCP_ESC_RING 16
const char *vcp_esc(const char *s);

/* vcp_esc() for a message: the same, a backslash kept single. */
const char *vcp_esc_msg(const char *s);

/* @s escaped onto @f. */
void vcp_esc_fputs(const char *s, FILE *f);

/*
 * JSON text @json onto @f with what json-c leaves raw inside strings
 * made safe for a terminal and valid: DEL and C1 characters as \u007f,
 * \u0080..\u009f (the same string), a byte that is not valid UTF-8 as
 * \ufffd (JSON cannot hold it). The rest as it is.
 */
void vcp_esc_json_fputs(const char *json, FILE *f);

#endif
