/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * migprog.h - the arithmetic of a watched live migration (migprog.c):
 * its progress as one line of text, and its timeout. Pure: no I/O.
 */
#ifndef VCP_MIGPROG_H
#define VCP_MIGPROG_H

#include <stdbool.h>
#include <stddef.h>

#include "migwatch.h"
#include "virt.h"

/*
 * @p as "62% of 1024 MiB, 389 MiB left, 31.2 MiB/s, 12 s" (the percent
 * is of memory no longer to send, so a pass re-sending dirtied pages
 * does not run past 100%; the rate is libvirt's when it gives one, else
 * bytes processed over the job's time). Before libvirt knows the size:
 * "starting, 0 s". Returns what snprintf returns.
 */
int vcp_mig_progress_text(char *buf, size_t n,
			  const struct vcp_job_progress *p, double secs);

/* Past a timeout of @timeout_s (0: none) @secs into the migration? */
bool vcp_mig_past(unsigned int timeout_s, double secs);

/* How long to wait before looking again, @secs into the migration: a
 * tick of @tick_s, shortened so a timeout is not overslept; never < 0. */
double vcp_mig_wait_s(unsigned int timeout_s, double secs, double tick_s);

/* A plain progress line (not a terminal's) every @every_s: due at @now
 * when the last was at @last (< 0: none yet, the first after @every_s
 * of the migration, which started at @t0)? */
bool vcp_mig_line_due(double t0, double last, double now, double every_s);

/* Ask libvirt to abort (again) at @now? @last: when it was last asked
 * (< 0: not yet). Once due, every @every_s until the migration answers:
 * an abort that libvirt takes before QEMU's migration has begun (its
 * Begin and Prepare phases) cancels nothing, and the migration then
 * runs to its end. */
bool vcp_mig_abort_due(double last, double now, double every_s);

/* "timed out after 4 s: migration aborted; the guest stays running on
 * a" and the like for a result that is not MOVED/FAILED. */
int vcp_mig_why(char *buf, size_t n, const struct vcp_mig_result *res,
		unsigned int timeout_s, const char *source);

#endif
