// SPDX-License-Identifier: GPL-2.0-or-later
/* test_hostrec.c - when vcpackd rewrites the host record in a VM
 * (hostrec.c): never in an unmanaged VM; in a managed one when it has
 * none, when it says another mode or level, once it is an hour old, and
 * when it is dated after now. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hostrec.h"

static struct vcp_vm vm_with(bool managed, bool has, enum vcp_mode mode,
			     int level, long long at)
{
	return (struct vcp_vm){ .name = "a",
				.managed = managed,
				.has_host_rec = has,
				.host_rec_mode = mode,
				.host_rec_level = level,
				.host_rec_at = at };
}

static void test_due(void **state)
{
	const struct vcp_host_rec h = { VCP_MODE_PIN, 1, 100000 };
	static const struct {
		bool managed, has;
		enum vcp_mode mode;
		int level;
		long long at;
		bool due;
	} cases[] = {
		/* unmanaged: never, whatever its record says */
		{ false, false, VCP_MODE_PIN, 1, 0, false },
		{ false, true, VCP_MODE_KERNEL, 2, 0, false },
		/* managed: no record yet */
		{ true, false, VCP_MODE_PIN, 1, 100000, true },
		/* the same, written now or within the hour */
		{ true, true, VCP_MODE_PIN, 1, 100000, false },
		{ true, true, VCP_MODE_PIN, 1, 100000 - 3599, false },
		/* an hour old */
		{ true, true, VCP_MODE_PIN, 1, 100000 - 3600, true },
		/* dated after now (the clock was stepped back, or the VM
		 * came from a host whose clock runs ahead): its age says
		 * nothing, so it is written again now */
		{ true, true, VCP_MODE_PIN, 1, 100000 + 1, true },
		{ true, true, VCP_MODE_PIN, 1, 100000 + 86400 * 365, true },
		/* another mode or level: at once */
		{ true, true, VCP_MODE_KERNEL, 1, 100000, true },
		{ true, true, VCP_MODE_SCX, 1, 100000, true },
		{ true, true, VCP_MODE_PIN, 2, 100000, true },
		{ true, true, VCP_MODE_PIN, 0, 100000, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vcp_vm vm = vm_with(cases[i].managed, cases[i].has,
					   cases[i].mode, cases[i].level,
					   cases[i].at);

		if (vcp_host_rec_due(&vm, &h) != cases[i].due)
			fail_msg("case %zu: due %d, want %d", i, !cases[i].due,
				 cases[i].due);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_due),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
