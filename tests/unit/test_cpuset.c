// SPDX-License-Identifier: GPL-2.0-or-later
/* test_cpuset.c - cpulist parsing/formatting, set algebra, cpumaps. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cpuset.h"

static void roundtrip(const char *in, const char *out, unsigned int count)
{
	struct vcp_cpuset s;
	char buf[256];

	assert_int_equal(vcp_cpuset_parse(in, &s), 0);
	assert_int_equal(vcp_cpuset_count(&s), count);
	assert_int_equal(vcp_cpuset_format(&s, buf, sizeof(buf)), 0);
	assert_string_equal(buf, out);
}

static void test_parse_format(void **state)
{
	roundtrip("0-3,8,10-11", "0-3,8,10-11", 7);
	roundtrip("", "", 0);
	roundtrip("5", "5", 1);
	roundtrip("3,1,2,0", "0-3", 4);
	roundtrip("0-7\n", "0-7", 8);
	roundtrip("2047", "2047", 1);
	roundtrip("63-65", "63-65", 3);
}

static void test_parse_errors(void **state)
{
	struct vcp_cpuset s;

	vcp_cpuset_zero(&s);
	vcp_cpuset_set(&s, 9);
	assert_int_equal(vcp_cpuset_parse("3-1", &s), -EINVAL);
	assert_int_equal(vcp_cpuset_parse("a", &s), -EINVAL);
	assert_int_equal(vcp_cpuset_parse("1,,2", &s), -EINVAL);
	assert_int_equal(vcp_cpuset_parse("1-", &s), -EINVAL);
	assert_int_equal(vcp_cpuset_parse("-1", &s), -EINVAL);
	assert_int_equal(vcp_cpuset_parse("2048", &s), -ERANGE);
	assert_int_equal(vcp_cpuset_parse("0-99999999999999999999", &s), -ERANGE);
	assert_int_equal(vcp_cpuset_parse("0-3,", &s), -EINVAL);
	assert_int_equal(vcp_cpuset_parse("0-3\nrubbish", &s), -EINVAL);
	/* untouched on failure */
	assert_int_equal(vcp_cpuset_count(&s), 1);
	assert_true(vcp_cpuset_test(&s, 9));
	assert_int_equal(vcp_cpuset_parse("0-3\n", &s), 0);
	assert_int_equal(vcp_cpuset_count(&s), 4);
}

static void test_format_small_buffer(void **state)
{
	struct vcp_cpuset s;
	char buf[4];

	assert_int_equal(vcp_cpuset_parse("0,2,4,6", &s), 0);
	assert_int_equal(vcp_cpuset_format(&s, buf, sizeof(buf)), -ENOBUFS);
	assert_true(strlen(buf) < sizeof(buf));
}

static void test_algebra(void **state)
{
	struct vcp_cpuset a, b, c;

	vcp_cpuset_parse("0-7", &a);
	vcp_cpuset_parse("4-11", &b);
	assert_true(vcp_cpuset_intersects(&a, &b));
	c = a;
	vcp_cpuset_and(&c, &b);
	assert_int_equal(vcp_cpuset_count(&c), 4);
	assert_int_equal(vcp_cpuset_next(&c, 0), 4);
	assert_int_equal(vcp_cpuset_last(&c), 7);
	c = a;
	vcp_cpuset_andnot(&c, &b);
	assert_int_equal(vcp_cpuset_last(&c), 3);
	assert_true(vcp_cpuset_subset(&c, &a));
	assert_false(vcp_cpuset_subset(&a, &c));
	vcp_cpuset_or(&c, &b);
	assert_int_equal(vcp_cpuset_count(&c), 12);
	vcp_cpuset_clear(&c, 0);
	assert_int_equal(vcp_cpuset_next(&c, 0), 1);
	vcp_cpuset_zero(&c);
	assert_true(vcp_cpuset_empty(&c));
	assert_int_equal(vcp_cpuset_next(&c, 0), -1);
	assert_int_equal(vcp_cpuset_last(&c), -1);
	assert_false(vcp_cpuset_equal(&a, &b));
}

static void test_foreach_and_maps(void **state)
{
	struct vcp_cpuset s, t;
	unsigned char map[3];
	int cpu, n = 0, sum = 0;

	vcp_cpuset_parse("1,9,17,23", &s);
	vcp_cpuset_foreach(cpu, &s) {
		n++;
		sum += cpu;
	}
	assert_int_equal(n, 4);
	assert_int_equal(sum, 50);
	vcp_cpuset_to_map(&s, map, sizeof(map));
	assert_int_equal(map[0], 0x02);
	assert_int_equal(map[1], 0x02);
	assert_int_equal(map[2], 0x82);
	vcp_cpuset_from_map(&t, map, sizeof(map));
	assert_true(vcp_cpuset_equal(&s, &t));
	/* a map shorter than the set truncates */
	vcp_cpuset_to_map(&s, map, 1);
	vcp_cpuset_from_map(&t, map, 1);
	assert_int_equal(vcp_cpuset_count(&t), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_format),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_format_small_buffer),
		cmocka_unit_test(test_algebra),
		cmocka_unit_test(test_foreach_and_maps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
