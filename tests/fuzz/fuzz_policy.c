// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_policy.c - libFuzzer harness for the policy file (policy.c, the
 * same vcp_policy_parse that vcp_policy_load runs on the file's text). A
 * refusal names the source and leaves the policy untouched; a policy
 * that is accepted serialises (vcp_policy_to_json) to text that parses
 * to a policy serialising the same, and resolves a level at every hour
 * of the week.
 */
#include <errno.h>

#include "fuzz.h"
#include "policy.h"

static void reload(const struct vcp_policy *p)
{
	struct json_object *a = vcp_policy_to_json(p), *b;
	struct vcp_policy q;
	char *err = NULL;
	const char *text;

	FUZZ_CHECK(a);
	text = json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN);
	vcp_policy_defaults(&q);
	if (vcp_policy_parse(text, "again", &q, &err) != 0) {
		fprintf(stderr, "%s\n%s\n", text, err);
		abort();
	}
	b = vcp_policy_to_json(&q);
	FUZZ_CHECK(b && json_object_equal(a, b));
	FUZZ_CHECK(q.n_windows == p->n_windows && q.level == p->level &&
		   q.strict_tags == p->strict_tags &&
		   vcp_cpuset_equal(&q.reserved_cpus, &p->reserved_cpus));
	json_object_put(a);
	json_object_put(b);
	vcp_policy_clear(&q);
}

static void levels(const struct vcp_policy *p)
{
	for (int d = 0; d < 7; d++)
		for (int h = 0; h < 24; h += 5) {
			struct tm tm = { .tm_wday = d, .tm_hour = h,
					 .tm_min = 59 - h };
			int l = vcp_policy_level_at(p, &tm);

			FUZZ_CHECK((l >= 0 && l <= 2) || l == VCP_LEVEL_AUTO);
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vcp_policy p, mark;
	char *s = fuzz_str(data, size), *err = NULL;
	int r;

	vcp_policy_defaults(&p);
	mark = p;
	r = vcp_policy_parse(s, "fuzz.json", &p, &err);
	if (r < 0) {
		FUZZ_CHECK(r == -ENOMEM || (r == -EINVAL && err &&
					    !strncmp(err, "fuzz.json", 9)));
		FUZZ_CHECK(!memcmp(&p, &mark, sizeof(p)));
	} else {
		FUZZ_CHECK(!fuzz_escaped_nul(s));
		reload(&p);
		levels(&p);
		vcp_policy_clear(&p);
	}
	free(err);
	free(s);
	return 0;
}
