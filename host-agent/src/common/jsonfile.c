// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jsonfile.c - whole-file reads and JSON parsing with messages that say
 * where (see jsonfile.h).
 */
#include "jsonfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "jsonstrict.h"
#include "rdfile.h"

const char *vcp_json_shown(struct json_object *v)
{
	return v ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN) :
		   "null";
}

bool vcp_json_int_in(struct json_object *v, int64_t min, int64_t max,
		     int64_t *ret)
{
	int64_t n;

	if (!json_object_is_type(v, json_type_int))
		return false;
	n = json_object_get_int64(v);
	if (n < min || n > max)
		return false;
	*ret = n;
	return true;
}

bool vcp_json_number_in(struct json_object *v, double min, double max,
			double *ret)
{
	double d;

	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return false;
	d = json_object_get_double(v);
	if (!(d >= min && d <= max))
		return false;
	*ret = d;
	return true;
}

/*
 * Open @path as vcp_open_regular() does (never blocking, only a regular
 * file), no larger than @max.
 */
static int open_regular(const char *path, size_t max, int *ret_fd,
			size_t *ret_size, char **ret_err)
{
	struct stat st;
	int fd, r = vcp_open_regular(path, &fd, ret_err);

	if (r == -VCP_ENOTREG)
		r = -EINVAL; /* as documented for vcp_file_read() */
	if (r < 0)
		return r;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return vcp_err(ret_err, r, "%s: %s", path, strerror(-r));
	}
	if ((uint64_t)st.st_size > max) {
		close(fd);
		return vcp_err(ret_err, -EFBIG, "%s: larger than %zu bytes",
			       path, max);
	}
	*ret_fd = fd;
	*ret_size = (size_t)st.st_size;
	return 0;
}

/* Read all of @fd, at most @max bytes (the file may have grown since
 * fstat: one byte more than @max says so). */
static int read_all(int fd, const char *path, size_t max, size_t hint,
		    char **ret, char **ret_err)
{
	size_t cap = hint + 1 < max + 1 ? hint + 1 : max + 1, len = 0;
	char *buf = malloc(cap + 1), *t;
	ssize_t n;
	int r;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			if (cap > max)
				break;
			cap = cap * 2 < max + 1 ? cap * 2 : max + 1;
			t = realloc(buf, cap + 1);
			if (!t) {
				free(buf);
				return -ENOMEM;
			}
			buf = t;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return vcp_err(ret_err, -EIO, "%s: read error: %s",
				       path, strerror(errno));
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		free(buf);
		return vcp_err(ret_err, -EFBIG, "%s: larger than %zu bytes",
			       path, max);
	}
	t = memchr(buf, '\0', len);
	if (t) {
		unsigned int line = 1;

		for (char *p = buf; p < t; p++)
			line += *p == '\n';
		r = vcp_err(ret_err, -EINVAL,
			    "%s: not valid JSON at line %u: NUL byte", path,
			    line);
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret = buf;
	return 0;
}

int vcp_file_read(const char *path, size_t max, char **ret, char **ret_err)
{
	size_t size = 0;
	int fd = -1, r;

	r = open_regular(path, max, &fd, &size, ret_err);
	if (r < 0)
		return r;
	r = read_all(fd, path, max, size, ret, ret_err);
	close(fd);
	return r;
}

/* Line number of byte @off in @text (1-based). */
static unsigned int line_of(const char *text, size_t off)
{
	unsigned int line = 1;

	for (size_t i = 0; i < off && text[i]; i++)
		if (text[i] == '\n')
			line++;
	return line;
}

static const char *error_desc(enum json_tokener_error e)
{
	if (e == json_tokener_success)
		return "unexpected text after the object";
	if (e == json_tokener_continue)
		return "unexpected end of text";
	return json_tokener_error_desc(e);
}

int vcp_json_parse(const char *text, const char *source,
		   struct json_object **ret, char **ret_err)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *obj;
	size_t len = strlen(text), end;
	enum json_tokener_error e;

	int r = vcp_json_strict_check(text, len, source, ret_err);

	if (r < 0) {
		json_tokener_free(tok);
		return r;
	}
	if (!tok)
		return -ENOMEM;
	obj = json_tokener_parse_ex(tok, text, (int)len);
	end = json_tokener_get_parse_end(tok);
	e = json_tokener_get_error(tok);
	json_tokener_free(tok);
	if (obj && e == json_tokener_success) {
		while (end < len && strchr(" \t\r\n", text[end]))
			end++;
		if (end == len) {
			*ret = obj;
			return 0;
		}
	}
	json_object_put(obj);
	return vcp_err(ret_err, -EINVAL, "%s: not valid JSON at line %u: %s",
		       source, line_of(text, end), error_desc(e));
}

int vcp_jget_str(const struct vcp_jkey *k, const char *path,
		 struct json_object *v, size_t max, char **ret)
{
	const char *s = json_object_get_string(v);
	char *dup;

	if (!json_object_is_type(v, json_type_string) || !*s ||
	    strlen(s) > max)
		return vcp_err(k->err, -EINVAL,
			       "%s: %s: must be a non-empty string (at most %zu bytes), got %s",
			       k->src, path, max, vcp_json_shown(v));
	dup = strdup(s);
	if (!dup)
		return -ENOMEM;
	free(*ret);
	*ret = dup;
	return 0;
}

int vcp_jget_argv(const struct vcp_jkey *c, const char *path,
		  struct json_object *v, char ***ret)
{
	size_t n = json_object_is_type(v, json_type_array) ?
			   json_object_array_length(v) :
			   0;
	char **a;
	int r = 0;

	if (!n || n > VCP_MAX_ARGS)
		return vcp_err(
			c->err, -EINVAL,
			"%s: %s: must be an array of 1 to %d strings (the program and its arguments; no shell), got %s",
			c->src, path, VCP_MAX_ARGS, vcp_json_shown(v));
	a = calloc(n + 1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	for (size_t k = 0; k < n && r == 0; k++) {
		char p[600];

		snprintf(p, sizeof(p), "%.500s[%zu]", path, k);
		r = vcp_jget_str(c, p, json_object_array_get_idx(v, k),
				 VCP_MAX_ARG_LEN, &a[k]);
	}
	if (r < 0) {
		vcp_argv_free(a);
		return r;
	}
	vcp_argv_free(*ret);
	*ret = a;
	return 0;
}

void vcp_argv_free(char **argv)
{
	for (size_t k = 0; argv && argv[k]; k++)
		free(argv[k]);
	free(argv);
}

int vcp_jget_bool(const struct vcp_jkey *k, const char *path,
		  struct json_object *v, bool *ret)
{
	if (!json_object_is_type(v, json_type_boolean))
		return vcp_err(k->err, -EINVAL,
			       "%s: %s: must be true or false, got %s", k->src,
			       path, vcp_json_shown(v));
	*ret = json_object_get_boolean(v);
	return 0;
}

int vcp_jget_uint(const struct vcp_jkey *k, const char *path,
		  struct json_object *v, unsigned int lo, unsigned int hi,
		  unsigned int *ret)
{
	int64_t n;

	if (!vcp_json_int_in(v, lo, hi, &n))
		return vcp_err(k->err, -EINVAL,
			       "%s: %s: must be a whole number from %u to %u, got %s",
			       k->src, path, lo, hi, vcp_json_shown(v));
	*ret = (unsigned int)n;
	return 0;
}

int vcp_jget_num(const struct vcp_jkey *k, const char *path,
		 struct json_object *v, double lo, double hi, double *ret)
{
	if (!vcp_json_number_in(v, lo, hi, ret))
		return vcp_err(k->err, -EINVAL,
			       "%s: %s: must be a number from %g to %g, got %s",
			       k->src, path, lo, hi, vcp_json_shown(v));
	return 0;
}
