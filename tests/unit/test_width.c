// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_width.c - the width text is laid out for (width.c): --wide no
 * limit whatever else; COLUMNS first when it is a sane number, then the
 * terminal's width, then the fixed 100 (a pipe, a file); never under
 * the minimum; a --watch frame one less than the terminal, re-read each
 * time, and no limit still with --wide; the width kept for renderings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "width.h"

static void test_wide(void **state)
{
	(void)state;
	assert_int_equal(vcp_width_choose(true, NULL, 0), 0);
	assert_int_equal(vcp_width_choose(true, "80", 120), 0);
	assert_int_equal(vcp_width_choose(true, NULL, 200), 0);
}

static void test_columns_first(void **state)
{
	(void)state;
	assert_int_equal(vcp_width_choose(false, "80", 0), 80);
	assert_int_equal(vcp_width_choose(false, "200", 0), 200);
	/* COLUMNS wins over the terminal's width */
	assert_int_equal(vcp_width_choose(false, "80", 132), 80);
	assert_int_equal(vcp_width_choose(false, "10000", 132), 10000);
}

static void test_columns_not_sane(void **state)
{
	(void)state;
	/* ignored: the terminal's width, else the fixed 100 */
	assert_int_equal(vcp_width_choose(false, "", 90), 90);
	assert_int_equal(vcp_width_choose(false, "0", 90), 90);
	assert_int_equal(vcp_width_choose(false, "abc", 0), 100);
	assert_int_equal(vcp_width_choose(false, "80x", 0), 100);
	assert_int_equal(vcp_width_choose(false, "-80", 0), 100);
	assert_int_equal(vcp_width_choose(false, " 80", 0), 100);
	assert_int_equal(vcp_width_choose(false, "10001", 0), 100);
	assert_int_equal(vcp_width_choose(false, "99999999999999999999", 0),
			 100);
}

static void test_terminal_then_fixed(void **state)
{
	(void)state;
	assert_int_equal(vcp_width_choose(false, NULL, 80), 80);
	assert_int_equal(vcp_width_choose(false, NULL, 200), 200);
	assert_int_equal(vcp_width_choose(false, NULL, 0), VCP_WIDTH_FIXED);
	assert_int_equal(VCP_WIDTH_FIXED, 100);
}

static void test_minimum(void **state)
{
	(void)state;
	assert_int_equal(VCP_WIDTH_MIN, 60);
	assert_int_equal(vcp_width_choose(false, "20", 0), 60);
	assert_int_equal(vcp_width_choose(false, "1", 0), 60);
	assert_int_equal(vcp_width_choose(false, NULL, 40), 60);
	assert_int_equal(vcp_width_choose(false, "59", 0), 60);
	assert_int_equal(vcp_width_choose(false, "61", 0), 61);
}

static void test_frame(void **state)
{
	(void)state;
	assert_int_equal(vcp_width_frame(100, 80), 79);
	assert_int_equal(vcp_width_frame(80, 200), 199);
	/* resized narrower than the minimum: the minimum, then cut */
	assert_int_equal(vcp_width_frame(100, 30), 60);
	/* --wide: still no limit */
	assert_int_equal(vcp_width_frame(0, 80), 0);
	/* the size unknown: as chosen */
	assert_int_equal(vcp_width_frame(80, 0), 80);
}

static void test_kept(void **state)
{
	(void)state;
	assert_int_equal(vcp_width_cols(), VCP_WIDTH_FIXED);
	vcp_width_set(80);
	assert_int_equal(vcp_width_cols(), 80);
	vcp_width_set(0);
	assert_int_equal(vcp_width_cols(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wide),
		cmocka_unit_test(test_columns_first),
		cmocka_unit_test(test_columns_not_sane),
		cmocka_unit_test(test_terminal_then_fixed),
		cmocka_unit_test(test_minimum),
		cmocka_unit_test(test_frame),
		cmocka_unit_test(test_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
