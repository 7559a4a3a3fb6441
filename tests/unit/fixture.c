// SPDX-License-Identifier: GPL-2.0-or-later
/* fixture.c - set-up shared by the cmocka unit tests (see fixture.h):
 * scratch directories, files, fleet observations. Each helper asserts
 * what it needs, so a set-up that fails fails the test that asked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "fixture.h"

void t_tmpdir(char *dir, size_t size, const char *what)
{
	const char *base = getenv("TMPDIR");
	int n;

	n = snprintf(dir, size, "%s/vcp-%s.XXXXXX",
		     base && *base ? base : "/tmp", what);
	assert_true(n > 0 && (size_t)n < size);
	assert_non_null(mkdtemp(dir));
}

void t_rmtree(const char *dir)
{
	size_t size = strlen(dir) + 16;
	char *cmd = malloc(size);

	assert_non_null(cmd);
	assert_null(strchr(dir, '\''));
	snprintf(cmd, size, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

void t_copy(const char *src, const char *dir)
{
	size_t size = strlen(src) + strlen(dir) + 16;
	char *cmd = malloc(size);

	assert_non_null(cmd);
	assert_null(strchr(src, '\''));
	assert_null(strchr(dir, '\''));
	snprintf(cmd, size, "cp -a '%s' '%s/'", src, dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

void t_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fail_msg("%s: cannot write", path);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

void t_slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		fail_msg("%s: cannot read", path);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	assert_int_equal(fclose(f), 0);
}

struct vcp_fleet_input *t_fleet_input(const char *hosts)
{
	struct vcp_fleet_input *in = NULL;
	struct json_object *o;
	char *text = NULL, *err = NULL;

	assert_true(asprintf(&text,
			     "{\"policy\": {\"headroom\": 0},"
			     " \"hosts\": [%s]}",
			     hosts) > 0);
	o = json_tokener_parse(text);
	if (!o)
		fail_msg("not JSON: %s", text);
	free(text);
	if (vcp_fleet_input_from_json(o, &in, &err))
		fail_msg("%s", err);
	json_object_put(o);
	return in;
}
