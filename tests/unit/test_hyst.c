// SPDX-License-Identifier: GPL-2.0-or-later
/* test_hyst.c - vcpackd's hysteresis on a fake clock: the hold window
 * from the policy, news gating with the periodic resync, a reload. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hyst.h"
#include "policy.h"

static struct vcp_policy pol(unsigned int sample_s, unsigned int shrink_s)
{
	struct vcp_policy p;

	vcp_policy_defaults(&p);
	p.sample_interval_s = sample_s;
	p.shrink_after_s = shrink_s;
	return p;
}

/* The peak is held at least shrink_after: rounded up, at least one. */
static void test_window(void **state)
{
	struct vcp_policy p = pol(10, 300);

	assert_int_equal(vcp_hyst_sample_s(&p), 10);
	assert_int_equal(vcp_hyst_window(&p), 30);
	p = pol(10, 25); /* was 2 samples (20 s < 25 s) */
	assert_int_equal(vcp_hyst_window(&p), 3);
	p = pol(10, 0);
	assert_int_equal(vcp_hyst_window(&p), 1);
	p = pol(10, 5);
	assert_int_equal(vcp_hyst_window(&p), 1);
	p = pol(0, 30); /* no interval: the default 10 s */
	assert_int_equal(vcp_hyst_sample_s(&p), 10);
	assert_int_equal(vcp_hyst_window(&p), 3);
	p = pol(3600, 86400);
	assert_int_equal(vcp_hyst_window(&p), 24);
}

/* News: the first sample, a changed fingerprint, or a resync. */
static void test_due(void **state)
{
	struct vcp_policy p = pol(10, 300);
	struct vcp_hyst h;
	long long t = 1000;

	vcp_hyst_init(&h, &p);
	assert_true(vcp_hyst_due(&h, 42, t)); /* nothing planned yet */
	vcp_hyst_planned(&h, 42, t);
	assert_false(vcp_hyst_due(&h, 42, t + 10));
	assert_true(vcp_hyst_due(&h, 43, t + 20)); /* news */
	vcp_hyst_planned(&h, 43, t + 20);
	assert_false(vcp_hyst_due(&h, 43, t + 30));
	/* nothing new: a resync once VCP_HYST_RESYNC_S passed */
	assert_false(vcp_hyst_due(&h, 43, t + 20 + VCP_HYST_RESYNC_S - 1));
	assert_true(vcp_hyst_due(&h, 43, t + 20 + VCP_HYST_RESYNC_S));
	/* an event's re-plan restarts the count */
	vcp_hyst_planned(&h, 43, t + 700);
	assert_false(vcp_hyst_due(&h, 43, t + 700 + VCP_HYST_RESYNC_S - 1));
	/* back to an older figure is news too */
	assert_true(vcp_hyst_due(&h, 42, t + 710));
	assert_false(vcp_hyst_due(&h, 42, t + 711));
	/* an event's re-plan on demand that moved (44) since the last
	 * sample: a sample with that figure is no news */
	vcp_hyst_planned(&h, 44, t + 720);
	assert_false(vcp_hyst_due(&h, 44, t + 730));
}

/* A reload says what must change now. */
static void test_reload(void **state)
{
	struct vcp_policy p = pol(10, 300);
	struct vcp_hyst h;

	vcp_hyst_init(&h, &p);
	vcp_hyst_planned(&h, 9, 5);
	assert_int_equal(vcp_hyst_reload(&h, &p), 0);
	p = pol(10, 120);
	assert_int_equal(vcp_hyst_reload(&h, &p), VCP_HYST_REWINDOW);
	assert_int_equal(h.window, 12);
	p = pol(20, 240); /* same window, new timer */
	assert_int_equal(vcp_hyst_reload(&h, &p), VCP_HYST_RESAMPLE);
	assert_int_equal(h.sample_s, 20);
	p = pol(5, 300);
	assert_int_equal(vcp_hyst_reload(&h, &p),
			 VCP_HYST_RESAMPLE | VCP_HYST_REWINDOW);
	assert_int_equal(h.window, 60);
	/* the planned state survives a reload */
	assert_true(h.planned);
	assert_int_equal(h.last_plan, 5);
	assert_true(h.last_fp == 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_due),
		cmocka_unit_test(test_reload),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
