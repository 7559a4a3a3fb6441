// SPDX-License-Identifier: GPL-2.0-or-later
/* test_migprog.c - a watched live migration's arithmetic (migprog.c):
 * the progress line's figures (percent of memory no longer to send,
 * MiB left, the rate libvirt gives or bytes over time, before libvirt
 * knows the size), the timeout (0: none; the wait before the next look
 * never oversleeps it), plain lines every N s, the reason given for an
 * abort; and vcp_mig_run() on libvirt's test driver, which cannot
 * migrate: libvirt's error comes back as a failure, not an abort. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "migprog.h"
#include "migwatch.h"

#define MIB (1024ULL * 1024ULL)

static void test_text(void **state)
{
	struct vcp_job_progress p = { .active = true, .total = 1024 * MIB,
				      .processed = 700 * MIB,
				      .remaining = 389 * MIB,
				      .bps = 31 * MIB + MIB / 5,
				      .elapsed_ms = 12000 };
	char buf[160];

	(void)state;
	vcp_mig_progress_text(buf, sizeof(buf), &p, 12.4);
	assert_string_equal(buf, "62% of 1024 MiB, 389 MiB left, 31.2 MiB/s, 12 s");
	/* no rate from libvirt: bytes processed over the job's time */
	p.bps = 0;
	vcp_mig_progress_text(buf, sizeof(buf), &p, 12.4);
	assert_string_equal(buf, "62% of 1024 MiB, 389 MiB left, 58.3 MiB/s, 12 s");
	/* a second pass re-sends dirtied pages: processed > total, the
	 * percent stays that of what is left */
	p.processed = 1500 * MIB;
	p.remaining = 0;
	vcp_mig_progress_text(buf, sizeof(buf), &p, 30);
	assert_string_equal(buf, "100% of 1024 MiB, 0 MiB left, 125.0 MiB/s, 30 s");
	/* nonsense from below: remaining above total counts as all left */
	p.remaining = 2048 * MIB;
	vcp_mig_progress_text(buf, sizeof(buf), &p, 30);
	assert_string_equal(buf, "0% of 1024 MiB, 1024 MiB left, 125.0 MiB/s, 30 s");
}

static void test_text_starting(void **state)
{
	struct vcp_job_progress p = { .active = true };
	char buf[64];

	(void)state;
	vcp_mig_progress_text(buf, sizeof(buf), &p, 0.6);
	assert_string_equal(buf, "starting, 1 s");
	vcp_mig_progress_text(buf, sizeof(buf), &p, -1);
	assert_string_equal(buf, "starting, 0 s");
}

static void test_timeout(void **state)
{
	(void)state;
	assert_false(vcp_mig_past(0, 1e9));	/* 0: never */
	assert_false(vcp_mig_past(4, 3.99));
	assert_true(vcp_mig_past(4, 4.0));
	assert_true(vcp_mig_past(4, 40));
	/* the wait: a tick, cut short at the timeout, never negative */
	assert_true(vcp_mig_wait_s(0, 100, 0.25) == 0.25);
	assert_true(vcp_mig_wait_s(10, 2, 0.25) == 0.25);
	assert_true(vcp_mig_wait_s(10, 9.875, 0.25) == 0.125);
	assert_true(vcp_mig_wait_s(10, 11, 0.25) == 0);
}

static void test_line_due(void **state)
{
	(void)state;
	/* the first plain line after 5 s of the migration, then every 5 s */
	assert_false(vcp_mig_line_due(0, -1, 4.9, 5));
	assert_true(vcp_mig_line_due(0, -1, 5, 5));
	assert_false(vcp_mig_line_due(0, 5.1, 10, 5));
	assert_true(vcp_mig_line_due(0, 5.1, 10.1, 5));
}

static void test_abort_due(void **state)
{
	(void)state;
	/* at once the first time, then again every second until the
	 * migration answers (an abort taken before QEMU's migration began
	 * is lost) */
	assert_true(vcp_mig_abort_due(-1, 0, 1));
	assert_true(vcp_mig_abort_due(-1, 7.3, 1));
	assert_false(vcp_mig_abort_due(7.3, 7.55, 1));
	assert_false(vcp_mig_abort_due(7.3, 8.29, 1));
	assert_true(vcp_mig_abort_due(7.3, 8.3, 1));
}

static void test_why(void **state)
{
	struct vcp_mig_result res = { .end = VCP_MIG_TIMED_OUT,
				      .source_known = true, .on_source = true };
	char buf[160];

	(void)state;
	vcp_mig_why(buf, sizeof(buf), &res, 4, "a");
	assert_string_equal(buf, "timed out after 4 s: migration aborted; the guest stays running on a");
	res.end = VCP_MIG_STOPPED;
	res.on_source = false;
	vcp_mig_why(buf, sizeof(buf), &res, 4, "a");
	assert_string_equal(buf, "interrupted: migration aborted; the guest is NOT running on a");
	res.source_known = false;
	vcp_mig_why(buf, sizeof(buf), &res, 4, "a");
	assert_string_equal(buf, "interrupted: migration aborted; a did not answer: where the guest runs is not known");
}

/* The test driver cannot migrate: libvirt's refusal is a failure with
 * its message, even with a stop flag already set (nothing to abort). */
static void test_run_test_driver(void **state)
{
	struct vcp_virt *a = NULL, *b = NULL;
	struct vcp_migrate_opts o = { 0 };
	volatile sig_atomic_t stop = 1;
	struct vcp_mig_watch w = { .timeout_s = 1, .stop = &stop,
				   .tick_ms = 10 };
	struct vcp_mig_result res = { .end = VCP_MIG_MOVED };
	char *err = NULL;
	int r;

	(void)state;
	assert_int_equal(vcp_virt_open("test:///default", false, &a, &err), 0);
	assert_int_equal(vcp_virt_open("test:///default", false, &b, &err), 0);
	r = vcp_mig_run(a, b, "test", &o, &w, &res, &err);
	assert_true(r < 0 && r != -ECANCELED);
	assert_int_equal(res.end, VCP_MIG_FAILED);
	assert_non_null(err);
	assert_non_null(strstr(err, "Failed to migrate 'test'"));
	free(err);
	err = NULL;
	/* a domain that is not there: -ENOENT, named */
	r = vcp_mig_run(a, b, "nosuch", &o, &w, &res, &err);
	assert_int_equal(r, -ENOENT);
	assert_non_null(err);
	free(err);
	vcp_virt_close(a);
	vcp_virt_close(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_text_starting),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_line_due),
		cmocka_unit_test(test_abort_due),
		cmocka_unit_test(test_why),
		cmocka_unit_test(test_run_test_driver),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
