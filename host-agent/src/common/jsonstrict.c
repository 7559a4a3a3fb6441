// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jsonstrict.c - a recursive-descent check of RFC 8259 JSON (see
 * jsonstrict.h). It builds nothing: it walks the text once, keeps the
 * key path for messages, and per object sorts the decoded keys to find a
 * duplicate in O(k log k). Nesting is capped, so the recursion is too.
 */
#include "jsonstrict.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"

struct scan {
	const char *s;
	size_t len, pos;
	unsigned int depth;
	const char *why; /* syntax error: reason, at pos */
	char path[256]; /* key path of the value being read */
	size_t plen;
	char *dup; /* duplicate key: its path and lines */
	bool nomem;
};

struct key {
	char *text;
	size_t n, off;
};

static int bad(struct scan *sc, const char *why)
{
	if (!sc->why && !sc->dup)
		sc->why = why;
	return -EINVAL;
}

static void skip_ws(struct scan *sc)
{
	while (sc->pos < sc->len && strchr(" \t\r\n", sc->s[sc->pos]) &&
	       sc->s[sc->pos])
		sc->pos++;
}

static int peek(const struct scan *sc)
{
	return sc->pos < sc->len ? (unsigned char)sc->s[sc->pos] : -1;
}

static unsigned int line_at(const struct scan *sc, size_t off)
{
	unsigned int line = 1;

	for (size_t i = 0; i < off && i < sc->len; i++)
		if (sc->s[i] == '\n')
			line++;
	return line;
}

/* ---- strings ---- */

static int hex4(struct scan *sc, unsigned int *ret)
{
	unsigned int v = 0;

	for (int i = 0; i < 4; i++, sc->pos++) {
		int c = peek(sc);

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned int)(c - 'A' + 10);
		else
			return bad(sc, "\\u needs four hex digits");
	}
	*ret = v;
	return 0;
}

static void put_utf8(char *out, size_t *n, unsigned int cp)
{
	if (cp < 0x80) {
		out[(*n)++] = (char)cp;
	} else if (cp < 0x800) {
		out[(*n)++] = (char)(0xc0 | (cp >> 6));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		out[(*n)++] = (char)(0xe0 | (cp >> 12));
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		out[(*n)++] = (char)(0xf0 | (cp >> 18));
		out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	}
}

/* \uXXXX, with a surrogate pair as one code point. */
static int unicode_escape(struct scan *sc, char *out, size_t *n)
{
	unsigned int cp, lo;
	int r = hex4(sc, &cp);

	if (r < 0)
		return r;
	if (cp >= 0xd800 && cp < 0xdc00 && peek(sc) == '\\' &&
	    sc->pos + 1 < sc->len && sc->s[sc->pos + 1] == 'u') {
		sc->pos += 2;
		r = hex4(sc, &lo);
		if (r < 0)
			return r;
		if (lo >= 0xdc00 && lo < 0xe000) {
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		} else {
			if (out)
				put_utf8(out, n, cp);
			cp = lo;
		}
	}
	/* json-c would cut the key or value there: "op\u0000" became a
	 * second "op" past the duplicate check. No file of ours takes one. */
	if (cp == 0)
		return bad(sc, "\\u0000 in a string (a NUL byte, which no key or value may hold)");
	if (out)
		put_utf8(out, n, cp);
	return 0;
}

/* An escape; sc->pos at its backslash. */
static int escape_at(struct scan *sc, char *out, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *p;
	int c;

	sc->pos++;
	c = peek(sc);
	p = c > 0 ? strchr(from, c) : NULL;
	sc->pos++;
	if (c == 'u')
		return unicode_escape(sc, out, n);
	if (!p)
		return bad(sc, "invalid escape in a string");
	if (out)
		out[(*n)++] = to[p - from];
	return 0;
}

/* Bytes up to the closing quote of the string starting at sc->pos. */
static size_t raw_length(const struct scan *sc)
{
	size_t i = sc->pos;

	while (i < sc->len && sc->s[i] != '"')
		i += sc->s[i] == '\\' ? 2 : 1;
	return i - sc->pos;
}

/* A string at sc->pos ('"'); its decoded text into *ret when @ret. */
static int string(struct scan *sc, char **ret, size_t *ret_n)
{
	char *out = NULL;
	size_t n = 0;
	int c, r = 0;

	sc->pos++;
	if (ret) {
		/* decoding never grows the text: \uXXXX (6 bytes) gives at
		 * most 3 bytes, a surrogate pair (12) 4 */
		out = malloc(raw_length(sc) + 1);
		if (!out) {
			sc->nomem = true;
			return -ENOMEM;
		}
	}
	while (r == 0 && (c = peek(sc)) != '"') {
		if (c < 0)
			r = bad(sc, "unterminated string");
		else if (c < 0x20)
			r = bad(sc,
				"control character in a string (escape it)");
		else if (c == '\\')
			r = escape_at(sc, out, &n);
		else if (out)
			out[n++] = sc->s[sc->pos++];
		else
			sc->pos++;
	}
	if (r < 0) {
		free(out);
		return r;
	}
	sc->pos++;
	if (ret) {
		*ret = out;
		*ret_n = n;
	}
	return 0;
}

/* ---- numbers and words ---- */

static bool digits(struct scan *sc)
{
	size_t start = sc->pos;

	while (peek(sc) >= '0' && peek(sc) <= '9')
		sc->pos++;
	return sc->pos > start;
}

static int number(struct scan *sc)
{
	if (peek(sc) == '-')
		sc->pos++;
	if (peek(sc) == '0') {
		sc->pos++;
		if (peek(sc) >= '0' && peek(sc) <= '9')
			return bad(sc, "a number may not start with 0");
	} else if (!digits(sc)) {
		return bad(sc, "invalid number");
	}
	if (peek(sc) == '.') {
		sc->pos++;
		if (!digits(sc))
			return bad(sc,
				   "invalid number (digits must follow '.')");
	}
	if (peek(sc) == 'e' || peek(sc) == 'E') {
		sc->pos++;
		if (peek(sc) == '+' || peek(sc) == '-')
			sc->pos++;
		if (!digits(sc))
			return bad(sc,
				   "invalid number (exponent without digits)");
	}
	return 0;
}

static int word(struct scan *sc)
{
	static const char *const words[] = { "true", "false", "null" };

	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(words[i]);

		if (sc->len - sc->pos >= n &&
		    !memcmp(sc->s + sc->pos, words[i], n)) {
			sc->pos += n;
			return 0;
		}
	}
	return bad(sc, "unexpected word (only true, false and null)");
}

/* ---- containers ---- */

static int value(struct scan *sc);

static void path_push(struct scan *sc, const char *fmt, const char *key,
		      size_t idx)
{
	size_t room = sizeof(sc->path) - sc->plen;
	int n;

	if (key)
		n = snprintf(sc->path + sc->plen, room, sc->plen ? ".%s" : "%s",
			     key);
	else
		n = snprintf(sc->path + sc->plen, room, fmt, idx);
	sc->plen = n < 0 || (size_t)n >= room ? sizeof(sc->path) - 1 :
						sc->plen + (size_t)n;
}

static int by_text(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	size_t n = x->n < y->n ? x->n : y->n;
	int c = memcmp(x->text, y->text, n);

	if (c)
		return c;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static bool same_text(const struct key *x, const struct key *y)
{
	return x->n == y->n && !memcmp(x->text, y->text, x->n);
}

/* After an object's last member: a duplicate key is an error naming it
 * (the earliest second occurrence, so the message is stable). */
static int check_dups(struct scan *sc, struct key *keys, size_t n)
{
	const struct key *first = NULL, *second = NULL;
	size_t keep = sc->plen;
	char name[128];

	qsort(keys, n, sizeof(*keys), by_text);
	for (size_t i = 1; i < n; i++)
		if (same_text(&keys[i - 1], &keys[i]) &&
		    (!second || keys[i].off < second->off)) {
			first = &keys[i - 1];
			second = &keys[i];
		}
	if (!second)
		return 0;
	snprintf(name, sizeof(name), "%.*s",
		 (int)(second->n < 120 ? second->n : 120), second->text);
	path_push(sc, NULL, name, 0);
	if (asprintf(&sc->dup, "%s: duplicate key (lines %u and %u)", sc->path,
		     line_at(sc, first->off), line_at(sc, second->off)) < 0) {
		sc->dup = NULL;
		sc->nomem = true;
	}
	sc->plen = keep;
	sc->path[keep] = '\0';
	return -EINVAL;
}

/* One "key": value member; the decoded key is added to @keys. */
static int member(struct scan *sc, struct key *k)
{
	size_t keep = sc->plen;
	char name[128];
	int r;

	skip_ws(sc);
	if (peek(sc) < 0)
		return bad(sc, "unexpected end of text");
	if (peek(sc) == '\'')
		return bad(sc, "single quotes are not JSON (use \")");
	if (peek(sc) == '/')
		return bad(sc, "comments are not JSON");
	if (peek(sc) != '"')
		return bad(sc, "a key (a string in \") expected");
	k->off = sc->pos;
	r = string(sc, &k->text, &k->n);
	if (r < 0)
		return r;
	skip_ws(sc);
	if (peek(sc) != ':')
		return bad(sc, "':' expected after a key");
	sc->pos++;
	snprintf(name, sizeof(name), "%.*s", (int)(k->n < 120 ? k->n : 120),
		 k->text);
	path_push(sc, NULL, name, 0);
	r = value(sc);
	sc->plen = keep;
	sc->path[keep] = '\0';
	return r;
}

static void free_keys(struct key *keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(keys[i].text);
	free(keys);
}

/* Between members: ',' (not before '}') or the end '}'. 1 at the end. */
static int next_member(struct scan *sc, int close)
{
	size_t comma;

	skip_ws(sc);
	if (peek(sc) == close) {
		sc->pos++;
		return 1;
	}
	if (peek(sc) == '/')
		return bad(sc, "comments are not JSON");
	if (peek(sc) < 0)
		return bad(sc, "unexpected end of text");
	if (peek(sc) != ',')
		return bad(sc, close == '}' ? "',' or '}' expected" :
					      "',' or ']' expected");
	comma = sc->pos++;
	skip_ws(sc);
	if (peek(sc) == close) {
		sc->pos = comma;
		return bad(sc, "trailing comma");
	}
	return 0;
}

static int object(struct scan *sc)
{
	struct key *keys = NULL, *t;
	size_t n = 0, cap = 0;
	int r = 0;

	sc->pos++;
	skip_ws(sc);
	if (peek(sc) == '}') {
		sc->pos++;
		return 0;
	}
	while (r == 0) {
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			t = realloc(keys, cap * sizeof(*keys));
			if (!t) {
				sc->nomem = true;
				r = -ENOMEM;
				break;
			}
			keys = t;
		}
		memset(&keys[n], 0, sizeof(keys[n]));
		r = member(sc, &keys[n++]);
		if (r == 0)
			r = next_member(sc, '}');
	}
	if (r == 1)
		r = check_dups(sc, keys, n);
	free_keys(keys, n);
	return r;
}

static int array(struct scan *sc)
{
	size_t keep = sc->plen;
	int r = 0;

	sc->pos++;
	skip_ws(sc);
	if (peek(sc) == ']') {
		sc->pos++;
		return 0;
	}
	for (size_t i = 0; r == 0; i++) {
		path_push(sc, "[%zu]", NULL, i);
		r = value(sc);
		sc->plen = keep;
		sc->path[keep] = '\0';
		if (r == 0)
			r = next_member(sc, ']');
	}
	return r == 1 ? 0 : r;
}

static int value(struct scan *sc)
{
	int c, r;

	skip_ws(sc);
	c = peek(sc);
	if (c == '{' || c == '[') {
		if (sc->depth == VCP_JSON_MAX_DEPTH)
			return bad(sc, "nested too deep");
		sc->depth++;
		r = c == '{' ? object(sc) : array(sc);
		sc->depth--;
		return r;
	}
	if (c == '"')
		return string(sc, NULL, NULL);
	if (c == '-' || (c >= '0' && c <= '9'))
		return number(sc);
	if (c == 't' || c == 'f' || c == 'n')
		return word(sc);
	if (c == '\'')
		return bad(sc, "single quotes are not JSON (use \")");
	if (c == '/')
		return bad(sc, "comments are not JSON");
	if (c < 0)
		return bad(sc, "unexpected end of text");
	if (c == 0)
		return bad(sc, "NUL byte");
	return bad(sc, "unexpected character");
}

static const char *trailing_why(char c)
{
	if (c == '/')
		return "comments are not JSON";
	return c ? "unexpected text after the value" : "NUL byte";
}

int vcp_json_strict_check(const char *text, size_t len, const char *source,
			  char **ret_err)
{
	struct scan sc = { .s = text, .len = len };
	int r = value(&sc);

	if (r == 0) {
		skip_ws(&sc);
		if (sc.pos < sc.len)
			r = bad(&sc, trailing_why(sc.s[sc.pos]));
	}
	if (sc.nomem) {
		free(sc.dup);
		return -ENOMEM;
	}
	if (sc.dup) {
		r = vcp_err(ret_err, -EINVAL, "%s: %s", source, sc.dup);
		free(sc.dup);
		return r;
	}
	if (r < 0)
		return vcp_err(ret_err, -EINVAL,
			       "%s: not valid JSON at line %u: %s", source,
			       line_at(&sc, sc.pos), sc.why);
	return 0;
}
