// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_fleet.c - the fleet pool's descriptor budget: how many hosts may
 * be in contact at once for a given descriptor limit (what a host that
 * never answers keeps is bounded by it; tests/integration/
 * test-fleet-silent.sh runs the pool against such hosts).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fleet.h"

static void test_budget(void **state)
{
	/* (limit - in use - reserve) / per host */
	assert_int_equal(vcp_fleet_fd_budget(1024, 10),
			 (1024 - 10 - VCP_FLEET_FD_RESERVE) / VCP_FLEET_FDS_PER_HOST);
	assert_int_equal(vcp_fleet_fd_budget(256, 8), (256 - 8 - 64) / 4);
	/* nothing left: none */
	assert_int_equal(vcp_fleet_fd_budget(64, 0), 0);
	assert_int_equal(vcp_fleet_fd_budget(100, 40), 0);
	assert_int_equal(vcp_fleet_fd_budget(100, 500), 0);
	/* exactly one host's worth */
	assert_int_equal(vcp_fleet_fd_budget(10 + 64 + 4, 10), 1);
	/* a huge limit is capped, not wrapped */
	assert_int_equal(vcp_fleet_fd_budget(1ULL << 40, 10), 100000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
