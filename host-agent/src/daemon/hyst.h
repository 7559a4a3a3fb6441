/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hyst.h - vcpackd's hysteresis in one place: how long a demand peak is
 * held, when a new sample is news worth a re-plan, how often the host is
 * re-planned anyway, and what a reloaded policy changes of these.
 *
 * - Hold: demand is the peak over shrink_after / sample_interval samples
 *   (rounded up: the package set shrinks only after the load stayed low
 *   for at least shrink_after seconds; at least one sample). A VM
 *   relieved for waiting (max_vcpu_delay) keeps a whole CPU per vCPU for
 *   as many samples (demand.c applies both).
 * - News: after a sample, a re-plan is due when what the planner would
 *   see moved by VCP_HYST_STEPS_PER_CPU-ths of a CPU on some vCPU, a VM
 *   was relieved or no longer, or VCP_HYST_RESYNC_S passed since the
 *   last plan (of any cause: events re-plan at once, and restart that
 *   count and set the figure that later samples are compared with).
 * - Events: those within VCP_HYST_COALESCE_MS re-plan once.
 * - Place: the planner's own preference for where a VM already runs
 *   (incumbent cores and packages first, planner.c steps 1, 4, 5) is the
 *   spatial half; it needs no clock and stays in the pure planner.
 * Pure: the caller passes the clock (a monotonic count of seconds).
 */
#ifndef VCP_HYST_H
#define VCP_HYST_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

/* Demand steps of 1/20 CPU: noise below that is no news. */
#define VCP_HYST_STEPS_PER_CPU 20
/* Re-plan at least this often even when nothing seems to change. */
#define VCP_HYST_RESYNC_S 600
/* Events (a VM stopping, tags, re-pins) this close re-plan once. */
#define VCP_HYST_COALESCE_MS 100

struct vcp_hyst {
	unsigned int sample_s;	/* seconds between samples */
	unsigned int window;	/* samples a peak (and a relief) is held */
	uint64_t last_fp;	/* the demand fingerprint last planned on */
	long long last_plan;	/* when the last plan was made */
	bool planned;		/* one was */
};

/* Seconds between samples, and the samples a peak is held, for @p. */
unsigned int vcp_hyst_sample_s(const struct vcp_policy *p);
unsigned int vcp_hyst_window(const struct vcp_policy *p);

void vcp_hyst_init(struct vcp_hyst *h, const struct vcp_policy *p);

/* A plan was made at @now (whatever asked for it) on demand whose
 * fingerprint is @fp: the next sample is news only if it differs. */
void vcp_hyst_planned(struct vcp_hyst *h, uint64_t fp, long long now);

/* After a sample whose demand fingerprint is @fp (demand.h), at @now:
 * is a re-plan due? When it is, @fp is taken as planned on. */
bool vcp_hyst_due(struct vcp_hyst *h, uint64_t fp, long long now);

/* What a reload of @p changed (the rest of a policy applies at the next
 * plan by itself): the sample timer must be re-armed, the tracker's
 * window resized. */
#define VCP_HYST_RESAMPLE 1u
#define VCP_HYST_REWINDOW 2u
unsigned int vcp_hyst_reload(struct vcp_hyst *h, const struct vcp_policy *p);

#endif
