// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_reading.c - libFuzzer harness for what a fleet host's
 * power_command prints (powerreading.c, vcp_reading_parse). A refusal
 * says why and leaves the result untouched; a reading that is accepted
 * is a finite number of watts from 0 to VCP_READING_MAX_WATTS in one of
 * the known formats.
 */
#include <errno.h>
#include <math.h>

#include "fuzz.h"
#include "powerreading.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vcp_reading r = { -1, 99 };
	char *s = fuzz_str(data, size), *err = NULL;
	int e = vcp_reading_parse(s, &r, &err);

	if (e < 0) {
		FUZZ_CHECK(e == -ENOMEM || (e == -EINVAL && err && *err));
		FUZZ_CHECK(r.watts == -1 && r.format == 99);
	} else {
		FUZZ_CHECK(e == 0 && !err);
		FUZZ_CHECK(isfinite(r.watts) && r.watts >= 0 &&
			   r.watts <= VCP_READING_MAX_WATTS);
		FUZZ_CHECK(r.format <= VCP_READING_PROM_ZONES);
		FUZZ_CHECK(*vcp_reading_format_name(r.format));
	}
	free(err);
	free(s);
	return 0;
}
