// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hyst.c - vcpackd's hysteresis (see hyst.h): the hold window from the
 * policy, news gating with a periodic resync, and what a reload changes.
 * Pure arithmetic on the clock the caller passes.
 */
#include "hyst.h"

unsigned int vcp_hyst_sample_s(const struct vcp_policy *p)
{
	return p->sample_interval_s ? p->sample_interval_s : 10;
}

unsigned int vcp_hyst_window(const struct vcp_policy *p)
{
	unsigned int s = vcp_hyst_sample_s(p);
	unsigned int w = p->shrink_after_s / s + (p->shrink_after_s % s != 0);

	return w ? w : 1;
}

void vcp_hyst_init(struct vcp_hyst *h, const struct vcp_policy *p)
{
	*h = (struct vcp_hyst){ .sample_s = vcp_hyst_sample_s(p),
				.window = vcp_hyst_window(p) };
}

void vcp_hyst_planned(struct vcp_hyst *h, uint64_t fp, long long now)
{
	h->last_fp = fp;
	h->last_plan = now;
	h->planned = true;
}

bool vcp_hyst_due(struct vcp_hyst *h, uint64_t fp, long long now)
{
	if (h->planned && fp == h->last_fp &&
	    now - h->last_plan < VCP_HYST_RESYNC_S)
		return false;
	h->last_fp = fp;
	return true;
}

unsigned int vcp_hyst_reload(struct vcp_hyst *h, const struct vcp_policy *p)
{
	unsigned int s = vcp_hyst_sample_s(p), w = vcp_hyst_window(p);
	unsigned int changed = (s != h->sample_s ? VCP_HYST_RESAMPLE : 0) |
			       (w != h->window ? VCP_HYST_REWINDOW : 0);

	h->sample_s = s;
	h->window = w;
	return changed;
}
