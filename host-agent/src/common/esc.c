// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * esc.c - outside strings escaped for a terminal or a log (esc.h): one
 * step reads one character of the input (a byte, or a whole UTF-8
 * character) and says what it prints as; every function here is that
 * step in a loop. The ring of vcp_esc() is per thread, freed when the
 * thread ends.
 */
#include "esc.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 character (of 2 to 4 bytes) that @s
 * starts, 0 when it starts none (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF). */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

static const char hex[] = "0123456789abcdef";

static size_t put_hex(char *out, unsigned char c)
{
	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 0xf];
	return 4;
}

/*
 * One step at @s (not at its NUL): its printed form in @out (at most 8
 * bytes, not NUL-terminated), its length in *ret_n; returns the input
 * bytes it stands for. @msg: a backslash stays one (vcp_esc_msg()).
 */
static size_t step(const unsigned char *s, char out[8], size_t *ret_n, bool msg)
{
	static const char named[][2] = {
		['\\'] = "\\\\", [0x1b] = "\\e", ['\r'] = "\\r",
		['\n'] = "\\n",	 ['\t'] = "\\t",
	};
	size_t n;

	if (s[0] < sizeof(named) / sizeof(named[0]) && named[s[0]][0] &&
	    !(msg && s[0] == '\\')) {
		memcpy(out, named[s[0]], 2);
		*ret_n = 2;
		return 1;
	}
	if (s[0] < 0x20 || s[0] == 0x7f) {
		*ret_n = put_hex(out, s[0]);
		return 1;
	}
	if (s[0] < 0x80) {
		out[0] = (char)s[0];
		*ret_n = 1;
		return 1;
	}
	n = utf8_len(s);
	if (!n) {
		*ret_n = put_hex(out, s[0]);
		return 1;
	}
	if (s[0] == 0xc2 && s[1] < 0xa0) { /* C1: U+0080..U+009F */
		*ret_n = put_hex(out, s[0]) + put_hex(out + 4, s[1]);
		return 2;
	}
	memcpy(out, s, n);
	*ret_n = n;
	return n;
}

bool vcp_esc_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char out[8];
	size_t n, k;

	while (*p) {
		k = step(p, out, &n, false);
		if (n != k || memcmp(out, p, n))
			return false;
		p += k;
	}
	return true;
}

static size_t esc_len(const char *s, bool msg)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0, n;
	char out[8];

	while (*p) {
		p += step(p, out, &n, msg);
		len += n;
	}
	return len;
}

size_t vcp_esc_len(const char *s)
{
	return esc_len(s, false);
}

/* @s escaped into @buf (@len > 0): as much as fits, whole steps. */
static void esc_into(const char *s, char *buf, size_t len, bool msg)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t at = 0, n;
	char out[8];

	while (*p) {
		size_t k = step(p, out, &n, msg);

		if (at + n >= len)
			break;
		memcpy(buf + at, out, n);
		at += n;
		p += k;
	}
	buf[at] = '\0';
}

static char *esc_dup(const char *s, bool msg)
{
	size_t len = esc_len(s, msg) + 1;
	char *buf = malloc(len);

	if (buf)
		esc_into(s, buf, len, msg);
	return buf;
}

char *vcp_esc_dup(const char *s)
{
	return esc_dup(s, false);
}

const char *vcp_esc_to(const char *s, char *buf, size_t len)
{
	if (!len)
		return buf;
	esc_into(s ? s : "(null)", buf, len, false);
	return buf;
}

/* The ring of vcp_esc(), per thread; the key frees it at thread end. */
static __thread char *ring[VCP_ESC_RING];
static __thread unsigned int ring_next;
static __thread bool ring_keyed;
static pthread_key_t ring_key;
static pthread_once_t ring_once = PTHREAD_ONCE_INIT;

static void ring_free(void *unused)
{
	for (size_t i = 0; i < VCP_ESC_RING; i++) {
		free(ring[i]);
		ring[i] = NULL;
	}
	ring_keyed = false;
}

static void ring_init(void)
{
	pthread_key_create(&ring_key, ring_free);
}

/* @s escaped (@msg: vcp_esc_msg()'s way) in the ring, or @s. */
static const char *ring_esc(const char *s, bool msg)
{
	char *e;

	if (!s)
		return "(null)";
	if (esc_len(s, msg) == strlen(s)) /* nothing to escape */
		return s;
	e = esc_dup(s, msg);
	if (!e)
		return "(?)";
	if (!ring_keyed) {
		pthread_once(&ring_once, ring_init);
		/* any non-NULL value: the destructor runs at thread exit */
		ring_keyed = pthread_setspecific(ring_key, &ring_keyed) == 0;
	}
	free(ring[ring_next]);
	ring[ring_next] = e;
	ring_next = (ring_next + 1) % VCP_ESC_RING;
	return e;
}

const char *vcp_esc(const char *s)
{
	return ring_esc(s, false);
}

const char *vcp_esc_msg(const char *s)
{
	return ring_esc(s, true);
}

void vcp_esc_fputs(const char *s, FILE *f)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;
	char out[8];

	while (*p) {
		p += step(p, out, &n, false);
		fwrite(out, 1, n, f);
	}
}

void vcp_esc_json_fputs(const char *json, FILE *f)
{
	const unsigned char *p = (const unsigned char *)json;
	size_t n;

	while (*p) {
		if (*p == 0x7f) {
			fputs("\\u007f", f);
			p++;
		} else if (*p < 0x80) {
			fputc(*p++, f);
		} else if (!(n = utf8_len(p))) {
			fputs("\\ufffd", f);
			p++;
		} else if (p[0] == 0xc2 && p[1] < 0xa0) {
			fprintf(f, "\\u00%02x", p[1]);
			p += 2;
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
}
