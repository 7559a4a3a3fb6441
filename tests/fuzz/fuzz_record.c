// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_record.c - libFuzzer harness for what vcpack keeps in a domain's
 * metadata and reads back (tags.c): the saved original pinning that
 * `vcpack restore` applies (<original>) and the host record `fleet
 * status` reads (<host>). Both live where anyone with write access to
 * the domain can change them. A refusal says why; a record that parses
 * formats to text that parses to the same record.
 */
#include <errno.h>

#include "fuzz.h"
#include "tags.h"

static void pins(const char *s)
{
	struct vcp_saved_pins p = { 0 }, back = { 0 };
	char *err = NULL, *text;
	int r = vcp_saved_pins_parse(s, &p, &err);

	if (r < 0) {
		FUZZ_CHECK(r == -ENOMEM || (r == -EINVAL && err && *err));
		FUZZ_CHECK(!p.vcpu && !p.n_vcpus);
		free(err);
		return;
	}
	FUZZ_CHECK(p.n_vcpus > 0 && p.vcpu);
	for (unsigned int i = 0; i < p.n_vcpus; i++)
		FUZZ_CHECK(!vcp_cpuset_empty(&p.vcpu[i]));
	text = vcp_saved_pins_format(&p);
	FUZZ_CHECK(text);
	FUZZ_CHECK(vcp_saved_pins_parse(text, &back, &err) == 0);
	FUZZ_CHECK(back.n_vcpus == p.n_vcpus);
	FUZZ_CHECK(back.has_emulator == p.has_emulator);
	for (unsigned int i = 0; i < p.n_vcpus; i++)
		FUZZ_CHECK(vcp_cpuset_equal(&p.vcpu[i], &back.vcpu[i]));
	FUZZ_CHECK(!p.has_emulator ||
		   vcp_cpuset_equal(&p.emulator, &back.emulator));
	FUZZ_CHECK(back.has_memory == p.has_memory);
	FUZZ_CHECK(!p.has_memory ||
		   (!vcp_cpuset_empty(&p.mem_nodes) &&
		    vcp_cpuset_equal(&p.mem_nodes, &back.mem_nodes)));
	free(text);
	vcp_saved_pins_clear(&p);
	vcp_saved_pins_clear(&back);
}

static void host(const char *s)
{
	struct vcp_host_rec h, back;
	char *err = NULL, *text;
	int r = vcp_host_rec_parse(s, &h, &err);

	if (r < 0) {
		FUZZ_CHECK(r == -ENOMEM || (r == -EINVAL && err && *err));
		free(err);
		return;
	}
	FUZZ_CHECK(h.level >= 0 && h.level <= 2);
	FUZZ_CHECK(h.mode == VCP_MODE_PIN || h.mode == VCP_MODE_KERNEL ||
		   h.mode == VCP_MODE_SCX);
	text = vcp_host_rec_format(&h);
	FUZZ_CHECK(text);
	FUZZ_CHECK(vcp_host_rec_parse(text, &back, &err) == 0);
	FUZZ_CHECK(back.mode == h.mode && back.level == h.level &&
		   back.at == h.at);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);

	pins(s);
	host(s);
	free(s);
	return 0;
}
