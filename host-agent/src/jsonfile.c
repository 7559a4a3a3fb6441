// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jsonfile.c - whole-file reads and JSON parsing with messages that say
 * where (see jsonfile.h).
 */
#include "jsonfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"

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

static int grow(char **buf, size_t *cap, size_t len)
{
	char *t;

	if (*cap - len >= 4096)
		return 0;
	t = realloc(*buf, *cap + 65536);
	if (!t)
		return -ENOMEM;
	*buf = t;
	*cap += 65536;
	return 0;
}

int vcp_file_read(const char *path, size_t max, char **ret, char **ret_err)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int r;

	if (!f)
		return vcp_err(ret_err, -errno, "%s: %s", path, strerror(errno));
	do {
		r = grow(&buf, &cap, len);
		if (r < 0)
			break;
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (len > max)
			r = vcp_err(ret_err, -EFBIG, "%s: larger than %zu bytes",
				    path, max);
	} while (n > 0 && r == 0);
	if (r == 0 && ferror(f))
		r = vcp_err(ret_err, -EIO, "%s: read error", path);
	fclose(f);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret = buf;
	return 0;
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
