/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * powerfixture.h - energy counters of a fixture tree computed at read
 * time, for tests only (powerread.c's file ops, never the production
 * ops on /sys): a fixture file whose first line is
 *
 *     !watts W [FILE VALUE=W2 [VALUE=W3 ...]]
 *
 * reads as a counter in microjoules that starts at 0 at its first read
 * by the process and advances by W watts of the reader's own clock (W2
 * while the first line of FILE is VALUE, and so on; the rate in force at
 * a read counts since the previous read of that file). A test thus gets
 * exact watts per arm of `vcpack trial` however late its own processes
 * run on a loaded machine: nothing has to keep pace with the reader. The
 * counter does not wrap.
 */
#ifndef VCP_POWERFIXTURE_H
#define VCP_POWERFIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vcp_fixture_counter {
	char *path;
	uint64_t t_ns;		/* the time of the last read */
	double uj;		/* the counter then */
};

struct vcp_fixture_counters {
	struct vcp_fixture_counter *c;
	size_t n;
};

/* Whether @line (a fixture file's first line) is a computed counter. */
bool vcp_fixture_is_watts(const char *line);

/*
 * The value at @now_ns of the counter of @path whose spec is @line
 * ("!watts ..."): 0 and *ret_uj, -EINVAL (a spec not as above), -ENOMEM,
 * or the -errno of reading FILE.
 */
int vcp_fixture_watts_read(struct vcp_fixture_counters *fc, const char *path,
			   const char *line, uint64_t now_ns,
			   uint64_t *ret_uj);

void vcp_fixture_counters_clear(struct vcp_fixture_counters *fc);

#endif
