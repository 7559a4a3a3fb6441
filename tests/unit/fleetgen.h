/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fleetgen.h - deterministic generated fleets (a snapshot in fleetjson.c's
 * format) for the fleet planner's tests and benchmark: @n hosts with about
 * @per VMs each, one in 50 unreachable, two CPU groups (Skylake guests run
 * on Icelake), one VM in 100 high priority. Header-only.
 */
#ifndef VCP_TEST_FLEETGEN_H
#define VCP_TEST_FLEETGEN_H

#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

struct gen {
	uint64_t s;
};

static inline unsigned int rnd(struct gen *g, unsigned int n)
{
	g->s = g->s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned int)((g->s >> 33) % n);
}

static inline struct json_object *gen_vm(struct gen *g, size_t h, size_t v)
{
	static const char *const prio[] = { "low", "normal", "normal", "low" };
	struct json_object *o = json_object_new_object();
	char name[64];

	snprintf(name, sizeof(name), "vm-%zu-%zu", h, v);
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "vcpus",
			       json_object_new_int(1 + (int)rnd(g, 8)));
	json_object_object_add(o, "demand", json_object_new_double(
			       0.02 + rnd(g, 40) / 100.0));
	json_object_object_add(o, "mem_mib",
			       json_object_new_int(1024 * (1 + (int)rnd(g, 12))));
	json_object_object_add(o, "priority", json_object_new_string(
			       rnd(g, 100) == 0 ? "high" : prio[rnd(g, 4)]));
	return o;
}

/* @n hosts with about @per VMs each, a few unreachable, two CPU groups. */
static inline struct json_object *gen_fleet(size_t n, size_t per, uint64_t seed)
{
	struct json_object *o = json_object_new_object();
	struct json_object *hosts = json_object_new_array();
	struct gen g = { seed };

	for (size_t i = 0; i < n; i++) {
		struct json_object *h = json_object_new_object();
		struct json_object *t = json_object_new_object();
		struct json_object *vms = json_object_new_array();
		size_t nv = per / 2 + rnd(&g, (unsigned int)per + 1);
		char name[64];

		snprintf(name, sizeof(name), "host%04zu", i);
		json_object_object_add(h, "name", json_object_new_string(name));
		if (n > 2 && rnd(&g, 50) == 0) {
			json_object_object_add(h, "reachable",
					       json_object_new_boolean(0));
			json_object_put(t);
			json_object_put(vms);
			json_object_array_add(hosts, h);
			continue;
		}
		json_object_object_add(h, "cpu", json_object_new_string(
				       i % 7 == 3 ? "Icelake" : "Skylake"));
		json_object_object_add(h, "mem_mib",
				       json_object_new_int(262144));
		json_object_object_add(t, "packages",
				       json_object_new_int(i % 5 ? 2 : 4));
		json_object_object_add(t, "cores", json_object_new_int(16));
		json_object_object_add(t, "threads", json_object_new_int(2));
		json_object_object_add(h, "host", t);
		for (size_t v = 0; v < nv; v++)
			json_object_array_add(vms, gen_vm(&g, i, v));
		json_object_object_add(h, "vms", vms);
		json_object_array_add(hosts, h);
	}
	json_object_object_add(o, "hosts", hosts);
	json_object_object_add(o, "options", json_tokener_parse(
		"{\"cpu_compat\": {\"Skylake\": [\"Icelake\"]}}"));
	return o;
}

#endif
