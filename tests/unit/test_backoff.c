// SPDX-License-Identifier: GPL-2.0-or-later
/* test_backoff.c - when vcpackd tries libvirt again (backoff.c), on a
 * fake clock: 1, 2, 4, 8, 10, 10 s between failed attempts; 1 s again
 * after a connection; one retry pending however often the loss is
 * reported; a first attempt that connects arms nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backoff.h"

/* The fake clock: one timer at most, attempts scripted. */
struct clock {
	unsigned int now; /* seconds */
	unsigned int due; /* the armed timer's time */
	int armed; /* timers armed and not fired */
	unsigned int waits[16]; /* what waiting() was told */
	size_t n_waits;
	unsigned int tries[16]; /* when attempts were made */
	size_t n_tries;
	unsigned int up_at; /* attempts from then on connect */
};

static void arm(struct vcp_backoff *b, unsigned int s)
{
	struct clock *c = b->opaque;

	c->armed++;
	c->due = c->now + s;
}

static int attempt(struct vcp_backoff *b)
{
	struct clock *c = b->opaque;

	assert_true(c->n_tries < 16);
	c->tries[c->n_tries++] = c->now;
	return c->now >= c->up_at ? 0 : -ECONNREFUSED;
}

static void waiting(struct vcp_backoff *b, unsigned int s)
{
	struct clock *c = b->opaque;

	assert_true(c->n_waits < 16);
	c->waits[c->n_waits++] = s;
}

static const struct vcp_backoff_ops ops = { arm, attempt, waiting };

/* Run the clock to @until, firing the timer when due. */
static void run(struct vcp_backoff *b, unsigned int until)
{
	struct clock *c = b->opaque;

	while (c->armed && c->due <= until) {
		assert_int_equal(c->armed, 1);
		c->now = c->due;
		c->armed--;
		vcp_backoff_fire(b);
	}
	c->now = until;
}

static void tries_are(const struct clock *c, const unsigned int *want, size_t n)
{
	assert_int_equal(c->n_tries, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(c->tries[i], want[i]);
}

/* libvirtd down at start, up at 30 s. */
static void test_doubling_to_cap(void **state)
{
	struct clock c = { .up_at = 30 };
	struct vcp_backoff b = VCP_BACKOFF_INIT(&ops, &c, 10);
	static const unsigned int tries[] = { 0, 1, 3, 7, 15, 25, 35 };
	static const unsigned int waits[] = { 1, 2, 4, 8, 10, 10 };

	assert_int_equal(vcp_backoff_try(&b), -ECONNREFUSED);
	assert_true(b.pending);
	run(&b, 100);
	tries_are(&c, tries, 7);
	assert_int_equal(c.n_waits, 6);
	assert_memory_equal(c.waits, waits, sizeof(waits));
	assert_false(b.pending);
	assert_int_equal(c.armed, 0);
	assert_int_equal(b.wait_s, 0);
}

/* Connected at once: nothing armed, nothing said. */
static void test_connects_at_once(void **state)
{
	struct clock c = { 0 };
	struct vcp_backoff b = VCP_BACKOFF_INIT(&ops, &c, 10);

	assert_int_equal(vcp_backoff_try(&b), 0);
	assert_int_equal(c.armed, 0);
	assert_int_equal(c.n_waits, 0);
	assert_false(b.pending);
}

/* Lost twice before the retry: one timer; lost after a connection: 1 s
 * again, not where the last run of failures left off. */
static void test_lost_and_reset(void **state)
{
	struct clock c = { .up_at = 1000 };
	struct vcp_backoff b = VCP_BACKOFF_INIT(&ops, &c, 10);
	static const unsigned int tries[] = { 1, 3, 7, 15, 51 };

	assert_int_equal(vcp_backoff_lost(&b), 1);
	assert_int_equal(vcp_backoff_lost(&b), 0);
	assert_int_equal(c.armed, 1);
	run(&b, 10); /* tries at 1, 3, 7; the next at 15 */
	assert_int_equal(b.wait_s, 8);
	c.up_at = 15;
	run(&b, 50); /* connects at 15 */
	assert_false(b.pending);
	assert_int_equal(vcp_backoff_lost(&b), 1);
	c.up_at = 51;
	run(&b, 60);
	tries_are(&c, tries, 5);
	assert_int_equal(b.wait_s, 0);
}

/* A cap of 2 s: 1 s, then 2 s for good. */
static void test_small_cap(void **state)
{
	struct clock c = { .up_at = 1000 };
	struct vcp_backoff b = VCP_BACKOFF_INIT(&ops, &c, 2);
	static const unsigned int waits[] = { 1, 2, 2, 2, 2 };

	assert_int_equal(vcp_backoff_lost(&b), 1);
	run(&b, 7); /* tries at 1, 3, 5, 7; the next at 9 */
	assert_int_equal(c.n_waits, 5);
	assert_memory_equal(c.waits, waits, sizeof(waits));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doubling_to_cap),
		cmocka_unit_test(test_connects_at_once),
		cmocka_unit_test(test_lost_and_reset),
		cmocka_unit_test(test_small_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
