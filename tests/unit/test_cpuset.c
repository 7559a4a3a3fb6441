// SPDX-License-Identifier: GPL-2.0-or-later
/* test_cpuset.c - cpulist parsing/formatting, set algebra, cpumaps. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
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
	/* hosts of up to 16,384 CPUs: libvirt's own cpumask limit */
	roundtrip("8191", "8191", 1);
	roundtrip("2048,8190-8191", "2048,8190-8191", 3);
	roundtrip("16383", "16383", 1);
	roundtrip("0-16383", "0-16383", 16384);
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
	assert_int_equal(vcp_cpuset_parse("16384", &s), -ERANGE);
	assert_int_equal(vcp_cpuset_parse("0-16384", &s), -ERANGE);
	assert_int_equal(vcp_cpuset_parse("8191,99999", &s), -ERANGE);
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

/* The largest sets: every other CPU of 16,384, formatted whole. */
static void test_wide_sets(void **state)
{
	struct vcp_cpuset s, t;
	unsigned char map[2048];
	char *text, *p;
	int cpu, n = 0;

	vcp_cpuset_zero(&s);
	for (unsigned int c = 0; c < 16384; c += 2)
		vcp_cpuset_set(&s, c);
	assert_int_equal(vcp_cpuset_count(&s), 8192);
	assert_int_equal(vcp_cpuset_last(&s), 16382);
	assert_int_equal(vcp_cpuset_next(&s, 8191), 8192);
	text = vcp_cpuset_format_alloc(&s);
	assert_non_null(text);
	/* 5 one-digit, 45 two-, 450 three-, 4500 four-, 3192 five-digit
	 * numbers and 8191 commas */
	assert_int_equal(strlen(text), 5 + 90 + 1350 + 18000 + 15960 + 8191);
	assert_memory_equal(text, "0,2,4,", 6);
	p = strrchr(text, ',');
	assert_string_equal(p, ",16382");
	assert_int_equal(vcp_cpuset_parse(text, &t), 0);
	assert_true(vcp_cpuset_equal(&s, &t));
	free(text);
	vcp_cpuset_foreach(cpu, &t)
		n++;
	assert_int_equal(n, 8192);
	/* libvirt's cpumap of a 16,384-CPU host: 2,048 bytes */
	vcp_cpuset_zero(&s);
	vcp_cpuset_set(&s, 8191);
	vcp_cpuset_set(&s, 16383);
	vcp_cpuset_to_map(&s, map, sizeof(map));
	assert_int_equal(map[1023], 0x80);
	assert_int_equal(map[2047], 0x80);
	vcp_cpuset_from_map(&t, map, sizeof(map));
	assert_true(vcp_cpuset_equal(&s, &t));
	/* clearing the high CPU leaves a set equal to one never holding it */
	vcp_cpuset_clear(&t, 16383);
	vcp_cpuset_zero(&s);
	vcp_cpuset_set(&s, 8191);
	assert_true(vcp_cpuset_equal(&s, &t));
	assert_true(vcp_cpuset_subset(&t, &s) && vcp_cpuset_subset(&s, &t));
	assert_int_equal(vcp_cpuset_last(&t), 8191);
	text = vcp_cpuset_format_alloc(&t);
	assert_string_equal(text, "8191");
	free(text);
	vcp_cpuset_zero(&t);
	text = vcp_cpuset_format_alloc(&t);
	assert_string_equal(text, "");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_format),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_format_small_buffer),
		cmocka_unit_test(test_algebra),
		cmocka_unit_test(test_foreach_and_maps),
		cmocka_unit_test(test_wide_sets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
