// SPDX-License-Identifier: GPL-2.0-or-later
/* test_clock.c - the monotonic clock (clock.c): it is CLOCK_MONOTONIC
 * (read between two direct reads of it), never goes back, moves by what
 * a sleep took, and its ns, ms and s readings agree (each lies between
 * the ns readings taken around it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "clock.h"

static uint64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* CLOCK_MONOTONIC itself: not the wall clock, not another base. */
static void test_is_monotonic_clock(void **state)
{
	uint64_t a = raw_ns(), t = vcp_mono_ns(), b = raw_ns();

	(void)state;
	assert_true(t > 0);
	assert_true(a <= t);
	assert_true(t <= b);
}

static void test_never_back(void **state)
{
	uint64_t last = vcp_mono_ns();
	long long last_ms = vcp_mono_ms();
	double last_s = vcp_mono_s();

	(void)state;
	for (int i = 0; i < 100000; i++) {
		uint64_t t = vcp_mono_ns();
		long long ms = vcp_mono_ms();
		double s = vcp_mono_s();

		assert_true(t >= last);
		assert_true(ms >= last_ms);
		assert_true(s >= last_s);
		last = t;
		last_ms = ms;
		last_s = s;
	}
}

/* A 50 ms sleep moves each unit by 50 ms at least, and (on a loaded
 * 2-core machine) by less than 5 s. */
static void test_moves_with_sleep(void **state)
{
	uint64_t t0 = vcp_mono_ns();
	long long m0 = vcp_mono_ms();
	double s0 = vcp_mono_s();
	uint64_t dt;
	long long dm;
	double ds;

	(void)state;
	sleep_ms(50);
	dt = vcp_mono_ns() - t0;
	dm = vcp_mono_ms() - m0;
	ds = vcp_mono_s() - s0;
	assert_true(dt >= 50000000u);
	assert_true(dt < 5000000000u);
	assert_true(dm >= 50);
	assert_true(dm < 5000);
	assert_true(ds >= 0.05 - 1e-9);
	assert_true(ds < 5.0);
}

/* ms and s are the ns clock in other units: each falls between the ns
 * readings taken just before and just after it. */
static void test_units_agree(void **state)
{
	(void)state;
	for (int i = 0; i < 1000; i++) {
		uint64_t a = vcp_mono_ns();
		long long ms = vcp_mono_ms();
		uint64_t b = vcp_mono_ns();
		double s = vcp_mono_s();
		uint64_t c = vcp_mono_ns();

		assert_true((long long)(a / 1000000u) <= ms);
		assert_true(ms <= (long long)(b / 1000000u));
		assert_true((double)b / 1e9 - 1e-9 <= s);
		assert_true(s <= (double)c / 1e9 + 1e-9);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_is_monotonic_clock),
		cmocka_unit_test(test_never_back),
		cmocka_unit_test(test_moves_with_sleep),
		cmocka_unit_test(test_units_agree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
