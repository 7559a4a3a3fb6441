// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_fleet.c - libFuzzer harness for the fleet file (fleetcfg.c, the
 * vcp_fleet_cfg_parse that vcp_fleet_cfg_load runs on the file's text).
 * A refusal names the source and leaves the result untouched; a fleet
 * that is accepted has at least one host, every host a URI and a name,
 * no name twice, and limits that a run can use.
 */
#include <errno.h>

#include "fleetcfg.h"
#include "fuzz.h"

static void check(const struct vcp_fleet_cfg *c)
{
	char **names = malloc(c->n_hosts * sizeof(*names));
	size_t a, b;

	FUZZ_CHECK(c->n_hosts > 0 && c->n_hosts <= VCP_FLEET_MAX_HOSTS);
	FUZZ_CHECK(names);
	for (size_t i = 0; i < c->n_hosts; i++) {
		FUZZ_CHECK(c->hosts[i].uri && *c->hosts[i].uri);
		FUZZ_CHECK(c->hosts[i].name && *c->hosts[i].name);
		names[i] = c->hosts[i].name;
	}
	FUZZ_CHECK(vcp_first_duplicate(names, c->n_hosts, &a, &b) == 0);
	FUZZ_CHECK(c->concurrency > 0 && c->timeout_s > 0);
	FUZZ_CHECK(c->mem_reserve >= 0 && c->mem_reserve < 1);
	free(names);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vcp_fleet_cfg c, mark;
	char *s = fuzz_str(data, size), *err = NULL;
	int r;

	memset(&mark, 0x5a, sizeof(mark));
	c = mark;
	r = vcp_fleet_cfg_parse(s, "fleet.json", &c, &err);
	if (r < 0) {
		FUZZ_CHECK(r == -ENOMEM || (r == -EINVAL && err &&
					    !strncmp(err, "fleet.json", 10)));
		FUZZ_CHECK(!memcmp(&c, &mark, sizeof(c)));
	} else {
		FUZZ_CHECK(!fuzz_escaped_nul(s));
		check(&c);
		vcp_fleet_cfg_clear(&c);
	}
	free(err);
	free(s);
	return 0;
}
