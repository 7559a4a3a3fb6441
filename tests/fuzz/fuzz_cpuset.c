// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_cpuset.c - libFuzzer harness for the kernel's cpu-list syntax
 * (cpuset.c), as read from sysfs, cgroupfs, policy files and saved
 * records: a list that parses prints to a list that parses to the same
 * set, and printing that again gives the same text; a refusal leaves the
 * output untouched; vcp_cpuset_format_alloc gives the same text in a
 * string of its own length. The input's bytes are also read as a
 * libvirt cpumap, which must survive set -> map -> set.
 */
#include <errno.h>

#include "cpuset.h"
#include "fuzz.h"

static void list(const char *s)
{
	static char buf[VCP_MAX_CPUS * 6], again[VCP_MAX_CPUS * 6];
	struct vcp_cpuset a, b, mark;
	char *text;
	int r;

	memset(&mark, 0xa5, sizeof(mark));
	a = mark;
	r = vcp_cpuset_parse(s, &a);
	if (r < 0) {
		FUZZ_CHECK(r == -EINVAL || r == -ERANGE);
		FUZZ_CHECK(!memcmp(&a, &mark, sizeof(a)));
		return;
	}
	FUZZ_CHECK(vcp_cpuset_format(&a, buf, sizeof(buf)) == 0);
	text = vcp_cpuset_format_alloc(&a);
	FUZZ_CHECK(text && !strcmp(text, buf));
	free(text);
	FUZZ_CHECK(vcp_cpuset_parse(buf, &b) == 0);
	FUZZ_CHECK(vcp_cpuset_equal(&a, &b));
	FUZZ_CHECK(vcp_cpuset_format(&b, again, sizeof(again)) == 0);
	FUZZ_CHECK(!strcmp(buf, again));
	FUZZ_CHECK(vcp_cpuset_empty(&a) == (vcp_cpuset_count(&a) == 0));
	FUZZ_CHECK(vcp_cpuset_last(&a) < VCP_MAX_CPUS);
}

static void map(const uint8_t *data, size_t size)
{
	unsigned char back[VCP_MAX_CPUS / 8];
	size_t n = size < sizeof(back) ? size : sizeof(back);
	struct vcp_cpuset s;

	vcp_cpuset_from_map(&s, data, n);
	vcp_cpuset_to_map(&s, back, n);
	FUZZ_CHECK(!memcmp(back, data, n));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);

	list(s);
	free(s);
	map(data, size);
	return 0;
}
