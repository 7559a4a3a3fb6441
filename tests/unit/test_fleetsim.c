// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_fleetsim.c - the fleet simulator's arithmetic on a fleet small
 * enough to work by hand: two 10-CPU hosts (headroom 0), one 5-vCPU
 * guest on each, 0.2 per vCPU for an hour then 0.9; power 100 W per host
 * + 40 W per package idle, + 100 W at full load, 10 W in standby. The
 * expected figures are worked out in the comments. Also: the diurnal
 * trace's shape and determinism.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fleetsim.h"

#define TINY "{\"policy\": {\"headroom\": 0}, \"hosts\": [" \
	"{\"name\": \"h1\", \"cpu\": \"c\", \"mem_mib\": 65536," \
	" \"host\": {\"packages\": 1, \"cores\": 10}," \
	" \"vms\": [{\"name\": \"a\", \"vcpus\": 5, \"mem_mib\": 1024}]}," \
	"{\"name\": \"h2\", \"cpu\": \"c\", \"mem_mib\": 65536," \
	" \"host\": {\"packages\": 1, \"cores\": 10}," \
	" \"vms\": [{\"name\": \"b\", \"vcpus\": 5, \"mem_mib\": 1024}]}]}"

static double step(const void *arg, size_t vm, unsigned int minute)
{
	return minute < 60 ? 0.2 : 0.9;
}

static void assert_near(double a, double b)
{
	if (a < b - 1e-6 || a > b + 1e-6)
		fail_msg("%.9g is not %.9g", a, b);
}

static struct vcp_sim_result run_w(enum vcp_sim_mode mode, unsigned int warm)
{
	const char *names[] = { "h1", "h2" };
	struct json_object *o = json_tokener_parse(TINY);
	struct json_object *empty = json_object_new_object();
	struct vcp_fleet_input *in = NULL;
	struct vcp_sim_result res;
	struct vcp_sb_cfg cfg;
	struct vcp_sim_params p = {
		.mode = mode, .minutes = 120 - warm, .warmup_min = warm,
		.interval_min = 1,
		.wake_latency_min = 5, .host_watts = 100, .package_watts = 40,
		.busy_watts = 100, .standby_watts = 10, .cfg = &cfg,
		.demand = step,
	};
	char *err = NULL;

	assert_int_equal(vcp_fleet_input_from_json(o, &in, &err), 0);
	assert_int_equal(vcp_sb_cfg_parse(empty, "t", names, 2, &cfg, NULL),
			 0);
	cfg.low_hold_s = 600;
	cfg.min_spare_hosts = 0;
	cfg.hosts[0].action = cfg.hosts[1].action = VCP_SB_ACTION_LIBVIRT;
	memset(&res, 0, sizeof(res));
	assert_int_equal(vcp_sim_run(in, &p, &res), 0);
	vcp_sb_cfg_clear(&cfg);
	vcp_fleet_input_free(in);
	json_object_put(o);
	json_object_put(empty);
	return res;
}

static struct vcp_sim_result run(enum vcp_sim_mode mode)
{
	return run_w(mode, 0);
}

/* Every host on all the time: 2 x (140 + 100 x 1/10) = 300 W for 60
 * minutes, then 2 x (140 + 100 x 4.5/10) = 370 W: 670 Wh. */
static void test_none(void **state)
{
	struct vcp_sim_result r = run(VCP_SIM_NONE);

	assert_near(r.energy_wh, 670);
	assert_near(r.standby_host_hours, 0);
	assert_near(r.demand_cpu_hours, (2.0 * 60 + 9.0 * 60) / 60);
	assert_int_equal(r.migrations, 0);
	assert_int_equal(r.wakeups, 0);
	assert_int_equal(r.shortfall_minutes, 0);
	assert_int_equal(r.min_hosts_on, 2);
}

/*
 * util 2/20 from minute 0; after low_hold (10 min) at minute 10 the
 * lighter host (a tie: the first, h1) is drained: a moves to h2; at 11
 * the empty h1 goes to standby. At 60 demand is 9 of 10 on (90% > 81%);
 * after high_hold (5 min) h1 is woken at 65 and answers at 70.
 *   0-9    both on, 1 CPU each      2 x 150         = 300 W x 10
 *   10     h1 empty, h2 2 CPUs      140 + 160       = 300 W x 1
 *   11-59  h1 standby               10 + 160        = 170 W x 49
 *   60-64  h2 9 CPUs                10 + 230        = 240 W x 5
 *   65-69  h1 booting (idle draw)   140 + 230       = 370 W x 5
 *   70-119 h1 on, empty             140 + 230       = 370 W x 50
 * (3300 + 8330 + 1200 + 20350) / 60 = 553 Wh; standby minutes 11-64: 54.
 */
static void test_vcpack(void **state)
{
	struct vcp_sim_result r = run(VCP_SIM_VCPACK);

	assert_near(r.energy_wh, 553);
	assert_near(r.standby_host_hours, 54.0 / 60);
	assert_int_equal(r.migrations, 1);
	assert_int_equal(r.spread_migrations, 0);
	assert_int_equal(r.standbys, 1);
	assert_int_equal(r.wakeups, 1);
	assert_int_equal(r.shortfall_minutes, 0);
	assert_int_equal(r.overload_host_minutes, 0);
	assert_int_equal(r.min_hosts_on, 1);
	/* the same replay counted from minute 60 on: (240 x 5 + 370 x 55)
	 * / 60 Wh, standby minutes 60-64, the wake at 65; the move (10) and
	 * the standby (11) were before */
	r = run_w(VCP_SIM_VCPACK, 60);
	assert_near(r.energy_wh, (240.0 * 5 + 370.0 * 55) / 60);
	assert_near(r.standby_host_hours, 5.0 / 60);
	assert_int_equal(r.migrations, 0);
	assert_int_equal(r.standbys, 0);
	assert_int_equal(r.wakeups, 1);
}

/*
 * First fit at minute 0, no hold: the least loaded host (a tie: the
 * last in busiest-first order, h2) is emptied onto h1 and sleeps at
 * once; 9 CPUs still fit h1, so nothing wakes:
 *   0-59: 160 + 10 = 170 W; 60-119: 230 + 10 = 240 W: 410 Wh, 2 h.
 */
static void test_firstfit(void **state)
{
	struct vcp_sim_result r = run(VCP_SIM_FIRSTFIT);

	assert_near(r.energy_wh, 410);
	assert_near(r.standby_host_hours, 2);
	assert_int_equal(r.migrations, 1);
	assert_int_equal(r.standbys, 1);
	assert_int_equal(r.wakeups, 0);
	assert_int_equal(r.shortfall_minutes, 0);
}

static void test_diurnal(void **state)
{
	double peak[2] = { 0.5, 1.0 };
	struct vcp_sim_diurnal d = { 7, peak, 0.2, 0, 840, 0 };
	struct vcp_sim_diurnal n = { 7, peak, 0.2, 0.1, 840, 60 };

	assert_near(vcp_sim_diurnal_demand(&d, 0, 840), 0.5);
	assert_near(vcp_sim_diurnal_demand(&d, 1, 840), 1.0);
	assert_near(vcp_sim_diurnal_demand(&d, 1, 840 - 720), 0.2);
	assert_near(vcp_sim_diurnal_demand(&d, 0, 840 + 360), 0.5 * 0.6);
	for (unsigned int t = 0; t < 1440; t += 7) {
		double v = vcp_sim_diurnal_demand(&n, 0, t);

		assert_true(v >= 0 && v <= 0.5 * 1.1 + 1e-9);
		assert_true(v == vcp_sim_diurnal_demand(&n, 0, t));
	}
}

static void test_refused(void **state)
{
	struct vcp_sim_result r;
	struct vcp_sim_params p = { .minutes = 1 };

	assert_int_equal(vcp_sim_run(NULL, &p, &r), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_vcpack),
		cmocka_unit_test(test_firstfit),
		cmocka_unit_test(test_diurnal),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
