// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * powerfixture.c - the "!watts" energy counters of fixture trees (see
 * powerfixture.h): parses the spec, picks the rate in force from its
 * condition file, and integrates it over the reader's clock between two
 * reads. Test-only: reached through powerread.c's file ops alone.
 */
#include "powerfixture.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sysfile.h"

#define WATTS_TAG "!watts"

bool vcp_fixture_is_watts(const char *line)
{
	size_t n = strlen(WATTS_TAG);

	return !strncmp(line, WATTS_TAG, n) && (!line[n] || line[n] == ' ');
}

static bool parse_watts(const char *s, double *ret)
{
	char *end;
	double v;

	if (!*s)
		return false;
	v = strtod(s, &end);
	if (*end || !isfinite(v) || v < 0)
		return false;
	*ret = v;
	return true;
}

/* The rate of the spec in @copy (cut up here) now. 0 or -errno. */
static int rate_now(char *copy, double *ret_w)
{
	char *save = NULL, *tok, *file, cur[256];
	unsigned int n_values = 0;
	bool hit = false;
	double w, w2, w_hit = 0;
	int r;

	strtok_r(copy, " ", &save);	/* "!watts" */
	tok = strtok_r(NULL, " ", &save);
	if (!tok || !parse_watts(tok, &w))
		return -EINVAL;
	file = strtok_r(NULL, " ", &save);
	if (!file) {
		*ret_w = w;
		return 0;
	}
	r = vcp_read_line(file, cur, sizeof(cur));
	if (r < 0)
		return r;
	while ((tok = strtok_r(NULL, " ", &save))) {
		char *eq = strrchr(tok, '=');

		if (!eq || eq == tok || !parse_watts(eq + 1, &w2))
			return -EINVAL;
		*eq = '\0';
		n_values++;
		if (!hit && !strcmp(tok, cur)) {
			w_hit = w2;
			hit = true;
		}
	}
	/* a condition file with no VALUE=W after it is a typo */
	if (!n_values)
		return -EINVAL;
	*ret_w = hit ? w_hit : w;
	return 0;
}

static struct vcp_fixture_counter *find(struct vcp_fixture_counters *fc,
					const char *path, uint64_t now_ns)
{
	struct vcp_fixture_counter *c;

	for (size_t i = 0; i < fc->n; i++)
		if (!strcmp(fc->c[i].path, path))
			return &fc->c[i];
	c = realloc(fc->c, (fc->n + 1) * sizeof(*c));
	if (!c)
		return NULL;
	fc->c = c;
	c = &fc->c[fc->n];
	c->path = strdup(path);
	if (!c->path)
		return NULL;
	c->t_ns = now_ns;
	c->uj = 0;
	fc->n++;
	return c;
}

int vcp_fixture_watts_read(struct vcp_fixture_counters *fc, const char *path,
			   const char *line, uint64_t now_ns,
			   uint64_t *ret_uj)
{
	struct vcp_fixture_counter *c;
	char *copy;
	double w;
	int r;

	if (!vcp_fixture_is_watts(line))
		return -EINVAL;
	copy = strdup(line);
	if (!copy)
		return -ENOMEM;
	r = rate_now(copy, &w);
	free(copy);
	if (r < 0)
		return r;
	c = find(fc, path, now_ns);
	if (!c)
		return -ENOMEM;
	if (now_ns > c->t_ns) {
		c->uj += w * (double)(now_ns - c->t_ns) / 1e3;
		c->t_ns = now_ns;
	}
	*ret_uj = (uint64_t)llround(c->uj);
	return 0;
}

void vcp_fixture_counters_clear(struct vcp_fixture_counters *fc)
{
	for (size_t i = 0; i < fc->n; i++)
		free(fc->c[i].path);
	free(fc->c);
	fc->c = NULL;
	fc->n = 0;
}
