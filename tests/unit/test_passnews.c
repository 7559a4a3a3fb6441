// SPDX-License-Identifier: GPL-2.0-or-later
/* test_passnews.c - what of a re-plan pass vcpackd logs (passnews.c):
 * the first plan line always, then only when the level or the active
 * packages change or actions were applied, again after forget(); the
 * failures (failed and refused actions with a message, then VMs left
 * untouched) when they differ from the last pass's, all of them then,
 * nothing when they are the same or none; a name or message with a
 * newline in it still one line (the log escapes it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <glib.h>

#include "passnews.h"

struct pass {
	struct vcp_plan p;
	struct vcp_world w;
	struct vcp_apply_result res;
	struct vcp_outcome_entry e[4];
	struct vcp_vm_issue issues[2];
};

static void pass_init(struct pass *s, int level, size_t active)
{
	memset(s, 0, sizeof(*s));
	s->p.level = level;
	s->p.n_active = active;
	s->res.e = s->e;
	s->w.issues = s->issues;
}

static void add_outcome(struct pass *s, enum vcp_outcome o, char *msg)
{
	s->e[s->res.n++] =
		(struct vcp_outcome_entry){ .outcome = o, .msg = msg };
}

static void add_issue(struct pass *s, char *vm, char *msg)
{
	s->issues[s->w.n_issues++] = (struct vcp_vm_issue){ vm, msg };
}

/* The pass's news: the plan line or not, and its lines joined by '|'. */
static void news_is(struct vcp_passnews *n, struct pass *s, bool plan,
		    const char *want)
{
	char **lines;
	gchar *got;
	bool p = !plan;

	vcp_passnews_update(n, &s->p, &s->w, &s->res, &p, &lines);
	got = g_strjoinv("|", lines);
	assert_int_equal(p, plan);
	assert_string_equal(got, want);
	g_free(got);
	g_strfreev(lines);
}

static void test_plan_line(void **state)
{
	struct vcp_passnews n = VCP_PASSNEWS_INIT;
	struct pass s;

	pass_init(&s, 0, 2);
	news_is(&n, &s, true, ""); /* the first */
	news_is(&n, &s, false, ""); /* nothing changed */
	s.p.level = 1;
	news_is(&n, &s, true, "");
	s.p.n_active = 1;
	news_is(&n, &s, true, "");
	news_is(&n, &s, false, "");
	add_outcome(&s, VCP_DONE, NULL); /* an action applied */
	news_is(&n, &s, true, "");
	news_is(&n, &s, true, "");
	s.res.n = 0;
	news_is(&n, &s, false, "");
	vcp_passnews_forget(&n); /* reconnected */
	news_is(&n, &s, true, "");
	vcp_passnews_clear(&n);
	assert_null(n.failures);
}

static void test_failures(void **state)
{
	struct vcp_passnews n = VCP_PASSNEWS_INIT;
	struct pass s;

	pass_init(&s, 1, 1);
	add_outcome(&s, VCP_DONE, "done, not said");
	add_outcome(&s, VCP_FAILED, "Failed to pin vCPU 0 of 'a'");
	add_outcome(&s, VCP_REFUSED, "Failed to move the memory of 'b'");
	add_outcome(&s, VCP_FAILED, NULL); /* nothing to say */
	add_issue(&s, "c", "bad tag");
	news_is(&n, &s, true,
		"Failed to pin vCPU 0 of 'a'|"
		"Failed to move the memory of 'b'|'c': bad tag");
	/* the same failures again: said once */
	news_is(&n, &s, true, "");
	/* one goes away: all that remain are said */
	s.res.n = 1;
	news_is(&n, &s, true, "'c': bad tag");
	s.res.n = 0;
	news_is(&n, &s, false, "");
	/* none: nothing said, and the same issue later is news again */
	s.w.n_issues = 0;
	news_is(&n, &s, false, "");
	add_issue(&s, "c", "bad tag");
	news_is(&n, &s, false, "'c': bad tag");
	vcp_passnews_clear(&n);
}

static void test_newline_in_name(void **state)
{
	struct vcp_passnews n = VCP_PASSNEWS_INIT;
	struct pass s;
	char **lines;
	bool plan;

	pass_init(&s, 1, 1);
	add_outcome(&s, VCP_FAILED, "Failed to pin vCPU 0 of 'x\ny'");
	add_issue(&s, "lf\nvm", "bad tag");
	vcp_passnews_update(&n, &s.p, &s.w, &s.res, &plan, &lines);
	assert_int_equal(g_strv_length(lines), 2);
	assert_string_equal(lines[0], "Failed to pin vCPU 0 of 'x\ny'");
	assert_string_equal(lines[1], "'lf\nvm': bad tag");
	g_strfreev(lines);
	vcp_passnews_clear(&n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_line),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_newline_in_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
