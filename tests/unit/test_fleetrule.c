// SPDX-License-Identifier: GPL-2.0-or-later
/* test_fleetrule.c - `vcpack fleet --match` rules (fleetrule.c): terms
 * parsed, every refusal naming the term (not KEY=VALUE, unknown key,
 * bad class, priority or tagged value, no term at all), and matching on
 * names, hosts and groups by glob, class, priority (none when untagged)
 * and tagged; host terms alone select hosts. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <glib.h>

#include "fleetrule.h"

static void test_parse(void **state)
{
	struct vcp_rule r;
	char *err = NULL;

	assert_int_equal(vcp_rule_parse("name=web-*,host=h[12],class=pack,"
					"priority=none,tagged=yes,group=rack1",
					&r, &err),
			 0);
	assert_null(err);
	assert_int_equal(r.n_terms, 6);
	assert_int_equal(r.terms[0].key, VCP_RULE_NAME);
	assert_string_equal(r.terms[0].pat, "web-*");
	assert_int_equal(r.terms[1].key, VCP_RULE_HOST);
	assert_string_equal(r.terms[1].pat, "h[12]");
	assert_int_equal(r.terms[2].key, VCP_RULE_CLASS);
	assert_int_equal(r.terms[3].key, VCP_RULE_PRIORITY);
	assert_int_equal(r.terms[4].key, VCP_RULE_TAGGED);
	assert_int_equal(r.terms[5].key, VCP_RULE_GROUP);
	assert_true(vcp_rule_term_is_host(&r.terms[1]));
	assert_true(vcp_rule_term_is_host(&r.terms[5]));
	assert_false(vcp_rule_term_is_host(&r.terms[0]));
	assert_string_equal(vcp_rule_key_name(r.terms[4].key), "tagged");
	vcp_rule_clear(&r);
	assert_int_equal(r.n_terms, 0);
	/* a value may hold '=' */
	assert_int_equal(vcp_rule_parse("name=a=b", &r, &err), 0);
	assert_string_equal(r.terms[0].pat, "a=b");
	vcp_rule_clear(&r);
}

static void test_refusals(void **state)
{
	static const struct {
		const char *in, *err;
	} bad[] = {
		{ "name", "--match: 'name' is not KEY=VALUE" },
		{ "name=", "--match: 'name=' is not KEY=VALUE" },
		{ "=web", "--match: '=web' is not KEY=VALUE" },
		{ "host=h1,,", "--match: '' is not KEY=VALUE" },
		{ "vm=web",
		  "--match: unknown key 'vm' (name, host, group, class, priority, tagged)" },
		{ "host=h1,class=turbo",
		  "--match: class 'turbo' is not one of spread, balanced, pack, untouched" },
		{ "priority=urgent",
		  "--match: priority 'urgent' is not one of high, normal, low, none" },
		{ "tagged=maybe", "--match: tagged 'maybe' is not yes or no" },
		{ "", "--match needs at least one KEY=VALUE" },
	};
	struct vcp_rule r = { .n_terms = 42 };

	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		char *err = NULL;

		assert_int_equal(vcp_rule_parse(bad[i].in, &r, &err), -EINVAL);
		if (!err || strcmp(err, bad[i].err))
			fail_msg("'%s': got '%s'", bad[i].in, err);
		g_free(err);
		assert_int_equal(r.n_terms, 42); /* untouched */
	}
}

static bool matches(const char *rule, const struct vcp_rule_subject *s,
		    bool hosts_only)
{
	struct vcp_rule r;
	char *err = NULL;
	bool m;

	if (vcp_rule_parse(rule, &r, &err))
		fail_msg("%s: %s", rule, err);
	m = vcp_rule_matches(&r, s, hosts_only);
	vcp_rule_clear(&r);
	return m;
}

static void test_match(void **state)
{
	struct vcp_vm web = { .name = (char *)"web-1",
			      .has_tag = true,
			      .tag = { .has_priority = true,
				       .priority = VCP_PRIO_LOW } };
	struct vcp_vm db = { .name = (char *)"db" };
	struct vcp_rule_subject s = { "h1", "rack1", &web, "pack" };
	struct vcp_rule_subject u = { "h2", NULL, &db, "untouched" };

	assert_true(matches("name=web-*", &s, false));
	assert_false(matches("name=web-*", &u, false));
	assert_true(matches("host=h?,group=rack*", &s, false));
	assert_false(matches("group=*", &u, false)); /* no group */
	assert_true(matches("class=pack,priority=low,tagged=yes", &s, false));
	assert_false(matches("class=pack,priority=high", &s, false));
	assert_true(
		matches("priority=none,tagged=no,class=untouched", &u, false));
	assert_false(matches("priority=low", &u, false));
	/* a tag without a priority: none */
	db.has_tag = true;
	assert_true(matches("priority=none,tagged=yes", &u, false));
	/* hosts only: the VM terms are not looked at (no VM needed) */
	s.vm = NULL;
	s.class_name = NULL;
	assert_true(matches("host=h1,name=nothing,class=spread", &s, true));
	assert_false(matches("host=h2,name=web-1", &s, true));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
