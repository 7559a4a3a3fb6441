/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * clock.h - the monotonic clock (CLOCK_MONOTONIC: never jumps with the
 * wall clock), read in the unit each caller counts in. The one place
 * vcpack reads it; a module whose tests fix the time keeps its own
 * injected clock and uses these as the default. libc only (the static
 * scx driver links it too).
 */
#ifndef VCP_CLOCK_H
#define VCP_CLOCK_H

#include <stdint.h>

/* Nanoseconds since an arbitrary start (boot, on Linux). */
uint64_t vcp_mono_ns(void);
/* Whole milliseconds of the same clock (vcp_mono_ns() / 1000000). */
long long vcp_mono_ms(void);
/* Seconds of the same clock, with the fraction. */
double vcp_mono_s(void);

#endif
