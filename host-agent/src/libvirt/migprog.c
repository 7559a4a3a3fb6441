// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * migprog.c - the arithmetic of a watched live migration: its progress
 * as one line of text (bytes, what is left, the rate) and its timeout.
 * Pure: migwatch.c and the printers call it, the unit tests check it.
 */
#include "migprog.h"

#include <stdio.h>

#define MIB (1024.0 * 1024.0)

int vcp_mig_progress_text(char *buf, size_t n,
			  const struct vcp_job_progress *p, double secs)
{
	unsigned long long left = p->remaining < p->total ? p->remaining :
				  p->total;
	double rate = (double)p->bps;

	if (secs < 0)
		secs = 0;
	if (!p->total)
		return snprintf(buf, n, "starting, %.0f s", secs);
	if (!rate && p->elapsed_ms)
		rate = (double)p->processed * 1000.0 / (double)p->elapsed_ms;
	return snprintf(buf, n, "%llu%% of %.0f MiB, %.0f MiB left, %.1f MiB/s, %.0f s",
			(p->total - left) * 100 / p->total,
			(double)p->total / MIB, (double)left / MIB, rate / MIB,
			secs);
}

bool vcp_mig_past(unsigned int timeout_s, double secs)
{
	return timeout_s && secs >= (double)timeout_s;
}

double vcp_mig_wait_s(unsigned int timeout_s, double secs, double tick_s)
{
	double w = tick_s;

	if (timeout_s && (double)timeout_s - secs < w)
		w = (double)timeout_s - secs;
	return w > 0 ? w : 0;
}

bool vcp_mig_line_due(double t0, double last, double now, double every_s)
{
	return now - (last < 0 ? t0 : last) >= every_s;
}

bool vcp_mig_abort_due(double last, double now, double every_s)
{
	return last < 0 || now - last >= every_s;
}

int vcp_mig_why(char *buf, size_t n, const struct vcp_mig_result *res,
		unsigned int timeout_s, const char *source)
{
	char why[32];

	if (res->end == VCP_MIG_TIMED_OUT)
		snprintf(why, sizeof(why), "timed out after %u s", timeout_s);
	else if (res->end == VCP_MIG_STOPPED)
		snprintf(why, sizeof(why), "interrupted");
	else
		return snprintf(buf, n, "%s", "");
	if (!res->source_known)
		return snprintf(buf, n, "%s: migration aborted; %s did not answer: where the guest runs is not known",
				why, source);
	return snprintf(buf, n, "%s: migration aborted; the guest %s on %s", why,
			res->on_source ? "stays running" : "is NOT running",
			source);
}
