// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_fleet.c - the fleet pool's descriptor budget: how many hosts may
 * be in contact at once for a given descriptor limit, and the pool
 * keeping to it: with every allowed worker stuck, the hosts not started
 * are reported as not contacted instead of more workers piling up
 * (tests/integration/test-fleet-silent.sh runs the CLI against hosts
 * that never answer). The pool runs on libvirt's in-process test driver.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The host UUID `fleet plan --save` keeps: <host>'s own <uuid> only. */
static void test_caps_host_uuid(void **state)
{
	char *u = vcp_caps_host_uuid("<capabilities>\n  <host>\n    <uuid>8a3c1f2e-0000-4000-8000-00000000abcd</uuid>\n    <cpu/>\n  </host>\n</capabilities>");

	assert_non_null(u);
	assert_string_equal(u, "8a3c1f2e-0000-4000-8000-00000000abcd");
	free(u);
	/* none in <host> (the test driver's): NULL, not a guest's */
	assert_null(vcp_caps_host_uuid("<capabilities><host><cpu/></host><guest><uuid>x</uuid></guest></capabilities>"));
	assert_null(vcp_caps_host_uuid("<capabilities/>"));
	assert_null(vcp_caps_host_uuid("<capabilities><host><uuid>unterminated"));
}

static int release[2];

/* A host that never answers (until the test ends). */
static int stuck_job(struct vcp_virt *v, size_t i, void *arg,
		     void **ret_data, char **ret_err)
{
	char c;

	while (read(release[0], &c, 1) < 0 && errno == EINTR)
		;
	return -EIO;
}

static int quick_job(struct vcp_virt *v, size_t i, void *arg,
		     void **ret_data, char **ret_err)
{
	return 0;
}

#define N_HOSTS 10

static const char *const uris[N_HOSTS] = {
	"test:///default", "test:///default", "test:///default",
	"test:///default", "test:///default", "test:///default",
	"test:///default", "test:///default", "test:///default",
	"test:///default",
};

static void test_pool_keeps_budget(void **state)
{
	struct vcp_fleet_pool p = { .concurrency = 4, .timeout_s = 1,
				    .max_live = 3, .job = stuck_job };
	struct vcp_fleet_result res[N_HOSTS];
	size_t abandoned = 0, timed_out = 0, not_contacted = 0;

	assert_int_equal(pipe(release), 0);
	assert_int_equal(vcp_fleet_run(uris, N_HOSTS, &p, res, &abandoned), 0);
	/* three workers (the budget, not the concurrency) got stuck; the
	 * other hosts were never tried */
	assert_int_equal(abandoned, 3);
	for (size_t i = 0; i < N_HOSTS; i++) {
		if (res[i].r == -ETIMEDOUT)
			timed_out++;
		if (res[i].r == -EMFILE) {
			not_contacted++;
			assert_non_null(strstr(res[i].err, "not contacted"));
		}
	}
	assert_int_equal(timed_out, 3);
	assert_int_equal(not_contacted, N_HOSTS - 3);
	vcp_fleet_results_clear(res, N_HOSTS, NULL);
	/* let the stuck workers end */
	close(release[1]);
	usleep(200 * 1000);
	close(release[0]);
}

static void test_pool_within_budget(void **state)
{
	struct vcp_fleet_pool p = { .concurrency = 4, .timeout_s = 10,
				    .max_live = 2, .job = quick_job };
	struct vcp_fleet_result res[N_HOSTS];
	size_t abandoned = 1;

	assert_int_equal(vcp_fleet_run(uris, N_HOSTS, &p, res, &abandoned), 0);
	assert_int_equal(abandoned, 0);
	for (size_t i = 0; i < N_HOSTS; i++)
		assert_int_equal(res[i].r, 0);
	vcp_fleet_results_clear(res, N_HOSTS, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_caps_host_uuid),
		cmocka_unit_test(test_pool_keeps_budget),
		cmocka_unit_test(test_pool_within_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
