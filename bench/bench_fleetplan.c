// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_fleetplan.c - how long the pure fleet planner takes on generated
 * fleets (tests/unit/fleetgen.h, fixed seeds): 100 hosts x 20 VMs, 1000 x
 * 20 (20,000 VMs) and 1000 x 40. Median, min and max of repeated runs;
 * the baseline in the same run
 * is the host planner alone over every host (what any fleet plan must
 * do at least once), so the ratio shows the fleet logic's own cost.
 * Target: < 1 s for 1000 hosts and 20,000 VMs. Then the fleet file's
 * duplicate-name check at 1000, 10,000 and 100,000 hosts, as ratios to
 * the 1000-host file. Figures: exits 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "../tests/unit/fleetgen.h"
#include "clock.h"
#include "fleetcfg.h"
#include "fleetjson.h"
#include "fleetplan.h"
#include "planner.h"

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double host_plans_once(const struct vcp_fleet_input *in)
{
	double t0 = vcp_mono_s();

	for (size_t i = 0; i < in->n_hosts; i++) {
		struct vcp_plan *p = NULL;

		if (!in->hosts[i].reachable)
			continue;
		if (vcp_plan_compute(in->hosts[i].host, in->hosts[i].vms,
				     in->hosts[i].n_vms, &in->policy, &p) == 0)
			vcp_plan_free(p);
	}
	return vcp_mono_s() - t0;
}

static void one(size_t hosts, size_t per, int runs)
{
	struct json_object *o = gen_fleet(hosts, per, 42 + hosts);
	struct vcp_fleet_input *in = NULL;
	double t[64], b[64];
	size_t vms = 0, moves = 0;
	char *err = NULL;

	if (vcp_fleet_input_from_json(o, &in, &err)) {
		fprintf(stderr, "bench_fleetplan: %s\n", err);
		exit(1);
	}
	json_object_put(o);
	for (size_t i = 0; i < in->n_hosts; i++)
		vms += in->hosts[i].n_vms;
	for (int r = 0; r < runs; r++) {
		struct vcp_fleet_plan *p = NULL;
		double t0 = vcp_mono_s();

		vcp_fleet_plan_compute(in->hosts, in->n_hosts, &in->policy,
				       &in->opts, &p);
		t[r] = vcp_mono_s() - t0;
		moves = p ? p->n_moves : 0;
		vcp_fleet_plan_free(p);
		b[r] = host_plans_once(in);
	}
	qsort(t, (size_t)runs, sizeof(double), cmp_d);
	qsort(b, (size_t)runs, sizeof(double), cmp_d);
	printf("%5zu hosts %6zu VMs: median %8.1f ms (min %.1f, max %.1f, %d runs), %zu moves; host planner alone %.1f ms: x%.1f\n",
	       hosts, vms, t[runs / 2] * 1e3, t[0] * 1e3, t[runs - 1] * 1e3,
	       runs, moves, b[runs / 2] * 1e3, t[runs / 2] / b[runs / 2]);
	vcp_fleet_input_free(in);
}

/* A fleet file of @n hosts whose second-to-last repeats a name from
 * 70% of the way down: refused by the duplicate-name check. */
static char *dup_fleet_file(size_t n)
{
	size_t cap = n * 48 + 64, len = 0;
	char *text = malloc(cap);

	if (!text)
		exit(1);
	len += (size_t)snprintf(text, cap, "{\"hosts\": [");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(
			text + len, cap - len,
			"%s{\"uri\": \"qemu+ssh://h%zu/system\"}", i ? "," : "",
			i == n - 2 ? n * 7 / 10 : i);
	snprintf(text + len, cap - len, "]}");
	return text;
}

/* Median time to refuse it; the baseline is the 1000-host file, so the
 * ratio shows the growth (x100 is linear; the quadratic check was
 * about x10,000: 76 s for 100,000 hosts). */
static double refuse_fleet_file(size_t n, int runs)
{
	char *text = dup_fleet_file(n);
	double t[64];

	for (int r = 0; r < runs; r++) {
		struct vcp_fleet_cfg c;
		char *err = NULL;
		double t0 = vcp_mono_s();

		if (vcp_fleet_cfg_parse(text, "f", &c, &err) != -EINVAL) {
			fprintf(stderr,
				"bench_fleetplan: duplicate not found\n");
			exit(1);
		}
		t[r] = vcp_mono_s() - t0;
		free(err);
	}
	free(text);
	qsort(t, (size_t)runs, sizeof(double), cmp_d);
	return t[runs / 2];
}

static void fleet_files(void)
{
	double base = refuse_fleet_file(1000, 11);

	printf("fleet file, a duplicate name near the end refused:\n");
	for (size_t n = 1000; n <= 100000; n *= 10) {
		double t = n == 1000 ? base : refuse_fleet_file(n, 5);

		printf("%7zu hosts: median %8.1f ms, x%.0f the 1000-host file\n",
		       n, t * 1e3, t / base);
	}
}

int main(void)
{
	one(100, 20, 21);
	one(1000, 20, 11);
	one(1000, 40, 5);
	printf("target: 1000 hosts x 20,000 VMs < 1000 ms\n");
	fleet_files();
	return 0;
}
