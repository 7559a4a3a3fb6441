// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_caps.c - libFuzzer harness for libvirt's capabilities XML as
 * vcpack reads it (topology.c): the topology (vcp_topology_from_caps)
 * and the host CPU's model key (vcp_caps_host_cpu, compared across a
 * fleet; the XML comes from remote hosts). A topology that loads is
 * consistent: CPUs sorted and unique, each in the package that lists it,
 * the online set their union.
 */
#include <errno.h>

#include "fuzz.h"
#include "topology.h"

static void check(const struct vcp_host *h)
{
	struct vcp_cpuset all;
	unsigned int n = 0;

	vcp_cpuset_zero(&all);
	FUZZ_CHECK(h->n_cpus > 0 && h->n_packages > 0);
	for (size_t i = 0; i < h->n_cpus; i++) {
		int k = vcp_host_package_of(h, h->cpus[i].id);

		FUZZ_CHECK(h->cpus[i].id < VCP_MAX_CPUS);
		FUZZ_CHECK(i == 0 || h->cpus[i - 1].id < h->cpus[i].id);
		FUZZ_CHECK(h->cpus[i].id < h->max_cpus);
		FUZZ_CHECK(k >= 0 && (size_t)k < h->n_packages);
		FUZZ_CHECK(h->packages[k].id == h->cpus[i].package);
		FUZZ_CHECK(vcp_cpuset_test(&h->packages[k].cpus,
					   h->cpus[i].id));
		vcp_cpuset_set(&all, h->cpus[i].id);
	}
	for (size_t k = 0; k < h->n_packages; k++)
		n += h->packages[k].n_cpus;
	FUZZ_CHECK(n == h->n_cpus);
	FUZZ_CHECK(vcp_cpuset_equal(&all, &h->online));
	FUZZ_CHECK(h->threads_per_core >= 1);
}

static void topology(const char *s)
{
	struct vcp_host *h = NULL;
	char *err = NULL;
	int r = vcp_topology_from_caps(s, &h, &err);

	if (r < 0) {
		FUZZ_CHECK(!h);
		FUZZ_CHECK(r == -ENODATA || r == -ENOMEM ||
			   (r == -EINVAL && err && *err));
	} else {
		check(h);
		vcp_host_free(h);
	}
	free(err);
}

static void host_cpu(const char *s)
{
	char *xml = NULL, *key = NULL, *err = NULL;
	int r = vcp_caps_host_cpu(s, &xml, &key, &err);

	if (r == 0)
		FUZZ_CHECK(xml && key);
	else
		FUZZ_CHECK(!xml && !key);
	free(xml);
	free(key);
	free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);

	topology(s);
	host_cpu(s);
	free(s);
	return 0;
}
