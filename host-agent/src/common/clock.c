// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * clock.c - the monotonic clock in ns, ms and s (clock.h).
 */
#include "clock.h"

#include <time.h>

uint64_t vcp_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

long long vcp_mono_ms(void)
{
	return (long long)(vcp_mono_ns() / 1000000u);
}

double vcp_mono_s(void)
{
	return (double)vcp_mono_ns() / 1e9;
}
