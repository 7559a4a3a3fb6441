// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_powerfixture.c - the "!watts" computed energy counters of fixture
 * trees (powerfixture.c): the value at given times for a fixed rate and
 * for a rate that follows a condition file, malformed specs, and the
 * same counter read through powerread.c's file ops on a small tree whose
 * clock is its clock_ns file (so the snapshot's time and energy agree).
 */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "powerfixture.h"
#include "powerread.h"

#define S 1000000000ull		/* one second in ns */

static char dir[4096];

static void put(const char *rel, const char *text)
{
	char path[4300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", text);
	assert_int_equal(fclose(f), 0);
}

static void mkdirs(const char *rel)
{
	char path[4300];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (char *p = path + strlen(dir) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	assert_int_equal(mkdir(path, 0755), 0);
}

static int setup(void **state)
{
	const char *t = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	snprintf(dir, sizeof(dir), "%s/test_powerfixture.XXXXXX", t);
	return mkdtemp(dir) ? 0 : -1;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

static int teardown(void **state)
{
	return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static uint64_t rd(struct vcp_fixture_counters *fc, const char *line,
		   uint64_t now)
{
	uint64_t uj = 7;

	assert_int_equal(vcp_fixture_watts_read(fc, "e", line, now, &uj), 0);
	return uj;
}

static void test_is_watts(void **state)
{
	assert_true(vcp_fixture_is_watts("!watts"));
	assert_true(vcp_fixture_is_watts("!watts 100"));
	assert_false(vcp_fixture_is_watts("!wattsx 100"));
	assert_false(vcp_fixture_is_watts("!EACCES"));
	assert_false(vcp_fixture_is_watts("123"));
}

/* 100 W: 0 at the first read, 200 J two seconds later, a fraction of
 * a watt exact to the microjoule; the clock going back adds nothing. */
static void test_fixed(void **state)
{
	struct vcp_fixture_counters fc = { 0 };

	assert_int_equal(rd(&fc, "!watts 100", 1 * S), 0);
	assert_int_equal(rd(&fc, "!watts 100", 3 * S), 200000000);
	assert_int_equal(rd(&fc, "!watts 100", 3 * S + 1500), 200000150);
	assert_int_equal(rd(&fc, "!watts 100", 2 * S), 200000150);
	assert_int_equal(rd(&fc, "!watts 0.25", 7 * S + 1500), 201000150);
	vcp_fixture_counters_clear(&fc);
	assert_int_equal(fc.n, 0);
}

/* The rate in force at a read counts since the previous read. */
static void test_condition(void **state)
{
	struct vcp_fixture_counters fc = { 0 };
	char spec[4400];

	snprintf(spec, sizeof(spec), "!watts 100 %s/level 2=50 3=10", dir);
	put("level", "1");
	assert_int_equal(rd(&fc, spec, 10 * S), 0);
	assert_int_equal(rd(&fc, spec, 12 * S), 200000000);
	put("level", "2");
	assert_int_equal(rd(&fc, spec, 13 * S), 250000000);
	assert_int_equal(rd(&fc, spec, 17 * S), 450000000);
	put("level", "3");
	assert_int_equal(rd(&fc, spec, 18 * S), 460000000);
	put("level", "0");
	assert_int_equal(rd(&fc, spec, 19 * S), 560000000);
	vcp_fixture_counters_clear(&fc);
}

/* Each file is its own counter. */
static void test_two(void **state)
{
	struct vcp_fixture_counters fc = { 0 };
	uint64_t a = 0, b = 0;

	assert_int_equal(vcp_fixture_watts_read(&fc, "a", "!watts 10", S, &a), 0);
	assert_int_equal(vcp_fixture_watts_read(&fc, "a", "!watts 10", 2 * S, &a), 0);
	assert_int_equal(vcp_fixture_watts_read(&fc, "b", "!watts 10", 2 * S, &b), 0);
	assert_int_equal(a, 10000000);
	assert_int_equal(b, 0);
	assert_int_equal(fc.n, 2);
	vcp_fixture_counters_clear(&fc);
}

static void test_bad(void **state)
{
	static const char *const bad[] = {
		"!watts", "!watts x", "!watts -1", "!watts 1e999", "!watts 5W",
		"!watts 100 %s/level", "!watts 100 %s/level 2",
		"!watts 100 %s/level =5", "!watts 100 %s/level 2=x",
		"!watts 100 %s/level 2=-3", "!wattage 100",
	};
	struct vcp_fixture_counters fc = { 0 };
	char spec[4400];
	uint64_t uj = 7;

	put("level", "2");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(spec, sizeof(spec), bad[i], dir);
		assert_int_equal(vcp_fixture_watts_read(&fc, "e", spec, S, &uj),
				 -EINVAL);
	}
	snprintf(spec, sizeof(spec), "!watts 100 %s/none 2=5", dir);
	assert_int_equal(vcp_fixture_watts_read(&fc, "e", spec, S, &uj),
			 -ENOENT);
	assert_int_equal(uj, 7);
	assert_int_equal(fc.n, 0);
}

/* Through the file ops: the snapshot's energy is the counter at the
 * snapshot's own time. */
static void test_file_ops(void **state)
{
	struct vcp_power_ops *ops;
	struct vcp_power_reader *r;
	struct vcp_pwr_snap s[3];
	char spec[4400];

	mkdirs("class/powercap/intel-rapl:0");
	mkdirs("vcpack-counters");
	put("class/powercap/intel-rapl:0/name", "package-0");
	put("class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850");
	snprintf(spec, sizeof(spec), "!watts 100 %s/level 2=50", dir);
	put("class/powercap/intel-rapl:0/energy_uj", spec);
	put("level", "1");
	assert_int_equal(vcp_power_file_ops_new(dir, &ops), 0);
	assert_int_equal(vcp_power_reader_open(dir, ops, &r), 0);
	for (int i = 0; i < 3; i++) {
		char now[32];

		snprintf(now, sizeof(now), "%llu", (1 + 2 * i) * S);
		put("vcpack-counters/clock_ns", now);
		if (i == 2)
			put("level", "2");
		assert_int_equal(vcp_power_read(r, &s[i]), 0);
		assert_int_equal(s[i].t_ns, (1 + 2 * i) * S);
		assert_int_equal(s[i].n_zones, 1);
		assert_int_equal(s[i].zones[0].err, 0);
		assert_int_equal(s[i].zones[0].package, 0);
	}
	assert_int_equal(s[0].zones[0].energy_uj, 0);
	assert_int_equal(s[1].zones[0].energy_uj, 200000000);
	assert_int_equal(s[2].zones[0].energy_uj, 300000000);
	for (int i = 0; i < 3; i++)
		vcp_pwr_snap_clear(&s[i]);
	/* a malformed spec: the zone is unreadable, said as -EINVAL */
	put("class/powercap/intel-rapl:0/energy_uj", "!watts lots");
	assert_int_equal(vcp_power_read(r, &s[0]), 0);
	assert_int_equal(s[0].zones[0].err, -EINVAL);
	vcp_pwr_snap_clear(&s[0]);
	vcp_power_reader_close(r);
	vcp_power_file_ops_free(ops);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_is_watts),
		cmocka_unit_test(test_fixed),
		cmocka_unit_test_setup_teardown(test_condition, setup, teardown),
		cmocka_unit_test(test_two),
		cmocka_unit_test_setup_teardown(test_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_ops, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
