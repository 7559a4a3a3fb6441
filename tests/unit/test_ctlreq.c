// SPDX-License-Identifier: GPL-2.0-or-later
/* test_ctlreq.c - a control request applied to vcpackd's run-time state
 * (ctlreq.c): a level overrides from the given time, "policy" drops the
 * override, a bad level is refused with the state untouched, pause
 * keeps its first time, resume clears it, other requests change
 * nothing; and the log line each says (a level always, pause and resume
 * only when they changed something). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ctlreq.h"
#include "model.h"

static struct vcp_req req(enum vcp_req_op op, const char *level)
{
	struct vcp_req r = { .op = op, .version = 1 };

	snprintf(r.level, sizeof(r.level), "%s", level);
	return r;
}

/* Every member of @n as given. */
static void state_is(const struct vcp_control *n, bool has_level, int level,
		     long long level_since, bool paused, long long paused_since)
{
	assert_int_equal(n->has_level, has_level);
	assert_int_equal(n->level, level);
	assert_int_equal(n->level_since, level_since);
	assert_int_equal(n->paused, paused);
	assert_int_equal(n->paused_since, paused_since);
}

static void test_level(void **state)
{
	struct vcp_control c = { .paused = true, .paused_since = 5 }, n;
	struct vcp_req r = req(VCP_REQ_LEVEL, "2");
	char buf[64];

	assert_int_equal(vcp_ctlreq_apply(&c, &r, 100, &n), 0);
	state_is(&n, true, 2, 100, true, 5); /* paused left as it was */
	assert_string_equal(vcp_ctlreq_news(&c, &n, r.op, buf, sizeof(buf)),
			    "level 2");
	r = req(VCP_REQ_LEVEL, "auto");
	assert_int_equal(vcp_ctlreq_apply(&n, &r, 200, &n), 0);
	state_is(&n, true, VCP_LEVEL_AUTO, 200, true, 5);
	assert_string_equal(vcp_ctlreq_news(&c, &n, r.op, buf, sizeof(buf)),
			    "level auto");
	/* the same level again is said again */
	assert_int_equal(vcp_ctlreq_apply(&n, &r, 300, &c), 0);
	assert_string_equal(vcp_ctlreq_news(&n, &c, r.op, buf, sizeof(buf)),
			    "level auto");
	r = req(VCP_REQ_LEVEL, "policy");
	assert_int_equal(vcp_ctlreq_apply(&n, &r, 400, &n), 0);
	state_is(&n, false, 0, 0, true, 5);
	assert_string_equal(vcp_ctlreq_news(&c, &n, r.op, buf, sizeof(buf)),
			    "level back to the policy's");
}

static void test_bad_level(void **state)
{
	static const char *const bad[] = { "3", "", "-1", "Auto", "1x" };
	struct vcp_control c = { .has_level = true, .level = 1 };
	struct vcp_control n = { .level = 7, .level_since = 9 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct vcp_req r = req(VCP_REQ_LEVEL, bad[i]);

		assert_int_equal(vcp_ctlreq_apply(&c, &r, 100, &n), -EINVAL);
		assert_int_equal(n.level, 7); /* untouched */
		assert_int_equal(n.level_since, 9);
	}
}

static void test_pause_resume(void **state)
{
	struct vcp_control c = { .has_level = true,
				 .level = 1,
				 .level_since = 3 },
			   p, q;
	struct vcp_req pause = req(VCP_REQ_PAUSE, "");
	struct vcp_req resume = req(VCP_REQ_RESUME, "");
	char buf[64];

	assert_int_equal(vcp_ctlreq_apply(&c, &pause, 100, &p), 0);
	state_is(&p, true, 1, 3, true, 100);
	assert_string_equal(vcp_ctlreq_news(&c, &p, pause.op, buf, sizeof(buf)),
			    "paused: nothing is changed until 'vcpack resume'");
	/* paused again: the first time stays, nothing to say */
	assert_int_equal(vcp_ctlreq_apply(&p, &pause, 200, &q), 0);
	state_is(&q, true, 1, 3, true, 100);
	assert_null(vcp_ctlreq_news(&p, &q, pause.op, buf, sizeof(buf)));
	assert_int_equal(vcp_ctlreq_apply(&q, &resume, 300, &p), 0);
	state_is(&p, true, 1, 3, false, 0);
	assert_string_equal(vcp_ctlreq_news(&q, &p, resume.op, buf,
					    sizeof(buf)),
			    "resumed");
	/* resumed again: nothing to say */
	assert_int_equal(vcp_ctlreq_apply(&p, &resume, 400, &q), 0);
	state_is(&q, true, 1, 3, false, 0);
	assert_null(vcp_ctlreq_news(&p, &q, resume.op, buf, sizeof(buf)));
}

/* enable/disable: said over the policy from @now (kept when said
 * again), the rest untouched; said when it changed something. */
static void test_enable_disable(void **state)
{
	struct vcp_control c = { .has_level = true, .level = 1,
				 .level_since = 3, .paused = true,
				 .paused_since = 4 }, e, f;
	struct vcp_req on = req(VCP_REQ_ENABLE, ""), off = req(VCP_REQ_DISABLE, "");
	char buf[64];

	assert_int_equal(vcp_ctlreq_apply(&c, &on, 100, &e), 0);
	state_is(&e, true, 1, 3, true, 4);
	assert_true(e.has_enabled);
	assert_true(e.enabled);
	assert_int_equal(e.enabled_since, 100);
	assert_string_equal(vcp_ctlreq_news(&c, &e, on.op, buf, sizeof(buf)),
			    "enabled: vcpackd carries out its plan");
	/* again: the first time stays, nothing to say */
	assert_int_equal(vcp_ctlreq_apply(&e, &on, 200, &f), 0);
	assert_int_equal(f.enabled_since, 100);
	assert_null(vcp_ctlreq_news(&e, &f, on.op, buf, sizeof(buf)));
	assert_int_equal(vcp_ctlreq_apply(&f, &off, 300, &e), 0);
	assert_true(e.has_enabled);
	assert_false(e.enabled);
	assert_int_equal(e.enabled_since, 300);
	assert_string_equal(vcp_ctlreq_news(&f, &e, off.op, buf, sizeof(buf)),
			    "disabled: vcpackd observes and plans but changes nothing until 'vcpack enable'");
	/* disable on a fresh state says so: it now wins over the policy */
	assert_int_equal(vcp_ctlreq_apply(&c, &off, 400, &f), 0);
	assert_true(f.has_enabled);
	assert_false(f.enabled);
	assert_non_null(vcp_ctlreq_news(&c, &f, off.op, buf, sizeof(buf)));
}

static void test_other_requests(void **state)
{
	static const enum vcp_req_op ops[] = { VCP_REQ_PING, VCP_REQ_STATUS,
					       VCP_REQ_REPLAN, VCP_REQ_HOOK };
	struct vcp_control c = { .has_level = true,
				 .level = 2,
				 .level_since = 7,
				 .paused = true,
				 .paused_since = 8 },
			   n;
	char buf[64];

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct vcp_req r = req(ops[i], "1");

		memset(&n, 0x5a, sizeof(n));
		assert_int_equal(vcp_ctlreq_apply(&c, &r, 100, &n), 0);
		state_is(&n, true, 2, 7, true, 8);
		assert_null(vcp_ctlreq_news(&c, &n, r.op, buf, sizeof(buf)));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level),
		cmocka_unit_test(test_bad_level),
		cmocka_unit_test(test_pause_resume),
		cmocka_unit_test(test_enable_disable),
		cmocka_unit_test(test_other_requests),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
