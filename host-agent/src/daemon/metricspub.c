// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * metricspub.c - the daemon's side of the metrics (see metricspub.h): a
 * power reader kept open, the previous snapshot, a copy of what the last
 * plan knew about each VM, and the textfile written at each sample.
 */
#include "metricspub.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metrics.h"
#include "power.h"
#include "powerread.h"

struct total {
	char id[VCP_PWR_NAME];
	uint64_t last_uj, total_uj;
	uint64_t last_ns; /* the time of last_uj */
};

struct vcp_metrics_pub {
	char *dir;
	struct vcp_power_ops *fops;
	struct vcp_power_reader *reader;
	struct vcp_pwr_snap prev;
	bool have_prev;
	struct vcp_pwr_figs figs;	/* over the last interval that passed */
	bool have_figs;
	struct total *totals;		/* energy per zone, wraps folded in */
	size_t n_totals;
	struct vcp_vm *vms;
	size_t n_vms;
	struct vcp_policy policy;	/* classes only (prio_class) */
	int level;
	char why[512]; /* why the last read of the counters failed */
};

int vcp_metrics_pub_new(const char *dir, const char *power_root, bool here,
			struct vcp_metrics_pub **ret)
{
	struct vcp_metrics_pub *p;
	int r = 0;

	if (access(dir, W_OK | X_OK) < 0)
		return -errno;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->level = -1;
	p->dir = strdup(dir);
	if (!p->dir)
		r = -ENOMEM;
	if (!r && power_root)
		r = vcp_power_file_ops_new(power_root, &p->fops);
	if (!r && (power_root || here))
		r = vcp_power_reader_open(power_root ? power_root : "/sys",
					  p->fops, &p->reader);
	if (r < 0) {
		vcp_metrics_pub_free(p);
		return r;
	}
	*ret = p;
	return 0;
}

int vcp_metrics_pub_plan(struct vcp_metrics_pub *p, const struct vcp_vm *vms,
			 size_t n_vms, const struct vcp_policy *policy,
			 int level)
{
	struct vcp_vm *copy = calloc(n_vms ? n_vms : 1, sizeof(*copy));

	if (!copy)
		return -ENOMEM;
	for (size_t i = 0; i < n_vms; i++) {
		copy[i].name = strdup(vms[i].name);
		if (!copy[i].name) {
			vcp_vms_free(copy, i);
			return -ENOMEM;
		}
		copy[i].n_vcpus = vms[i].n_vcpus;
		copy[i].has_tag = vms[i].has_tag;
		copy[i].tag = vms[i].tag;
		copy[i].managed = vms[i].managed;
		copy[i].delay = vms[i].delay;
		copy[i].mem_node = -1;
	}
	vcp_vms_free(p->vms, p->n_vms);
	p->vms = copy;
	p->n_vms = n_vms;
	memcpy(p->policy.prio_class, policy->prio_class,
	       sizeof(p->policy.prio_class));
	p->level = level;
	return 0;
}

/*
 * Replace each readable zone's energy_uj in @now by its total since the
 * daemon first saw it (the first raw value, then every delta across
 * wraps), so the exported counter only goes up. A zone read again after
 * longer than its wrap time (a pass that took long) may have wrapped
 * more than once: its delta is unknown, the total stays, and the zone is
 * marked unreadable for this read with why. 0 or -ENOMEM.
 */
static int fold_wraps(struct vcp_metrics_pub *p, struct vcp_pwr_snap *now)
{
	for (size_t i = 0; i < now->n_zones; i++) {
		struct vcp_pwr_zone *z = &now->zones[i];
		struct total *t = NULL;
		uint64_t d;

		for (size_t k = 0; k < p->n_totals; k++)
			if (!strcmp(p->totals[k].id, z->id))
				t = &p->totals[k];
		if (z->err)
			continue;
		if (!t) {
			t = realloc(p->totals, (p->n_totals + 1) * sizeof(*t));
			if (!t)
				return -ENOMEM;
			p->totals = t;
			t = &t[p->n_totals++];
			memcpy(t->id, z->id, sizeof(t->id));
			t->last_uj = t->total_uj = z->energy_uj;
			t->last_ns = now->t_ns;
		} else if ((double)(now->t_ns - t->last_ns) / 1e9 >
			   vcp_pwr_wrap_s(z->max_uj)) {
			snprintf(
				z->why, sizeof(z->why),
				"energy_uj: read %.0f s after the last read, longer than the counter's wrap time (%.0f s at %.0f W): the energy between is unknown and not counted",
				(double)(now->t_ns - t->last_ns) / 1e9,
				vcp_pwr_wrap_s(z->max_uj), VCP_PWR_ZONE_MAX_W);
			z->err = -ERANGE;
		} else if (vcp_counter_delta(t->last_uj, z->energy_uj,
					     z->max_uj, &d) == 0) {
			t->total_uj += d;
		}
		t->last_uj = z->energy_uj;
		t->last_ns = now->t_ns;
		z->energy_uj = t->total_uj;
	}
	return 0;
}

/* Render the VMs, the level and what power figures there are (@snap
 * NULL: none, the VMs' host is not this machine), then write the file. */
static int publish(struct vcp_metrics_pub *p, const struct vcp_sample *s,
		   const struct vcp_pwr_snap *snap)
{
	struct vcp_metrics_in in = {
		.vms = p->vms,
		.n_vms = p->n_vms,
		.policy = &p->policy,
		.sample = s,
		.level = p->level,
		.snap = snap,
		.figs = snap && p->have_figs ? &p->figs : NULL,
	};
	char *text = NULL;
	int r = vcp_metrics_render(&in, &text);

	if (r == 0)
		r = vcp_metrics_write(p->dir, "vcpack", text);
	free(text);
	return r;
}

int vcp_metrics_pub_sample(struct vcp_metrics_pub *p,
			   const struct vcp_sample *s)
{
	struct vcp_pwr_thresholds th = VCP_PWR_THRESHOLDS_DEFAULT;
	struct vcp_pwr_figs figs;
	struct vcp_pwr_snap now;
	int r;

	if (!p->reader)
		return publish(p, s, NULL);
	r = vcp_power_read(p->reader, &now);
	if (r == -EINVAL && p->fops && p->fops->clock_why &&
	    p->fops->clock_why(p->fops->data)) {
		snprintf(p->why, sizeof(p->why), "%s",
			 p->fops->clock_why(p->fops->data));
		r = publish(p, s, NULL);
		return r < 0 ? r : -EINVAL;
	}
	if (r < 0)
		return r;
	p->why[0] = '\0';
	/* no time passed (a fixture's clock): keep the last figures */
	if (p->have_prev && now.t_ns <= p->prev.t_ns) {
		vcp_pwr_snap_clear(&now);
		now = p->prev;
		memset(&p->prev, 0, sizeof(p->prev));
	} else if (p->have_prev &&
		   vcp_power_figures(&p->prev, &now, &th, &figs) == 0) {
		vcp_pwr_figs_clear(&p->figs);
		p->figs = figs;
		p->have_figs = true;
	}
	struct vcp_pwr_snap shown = now;

	shown.zones = malloc((now.n_zones ? now.n_zones : 1) *
			     sizeof(*shown.zones));
	r = shown.zones ? 0 : -ENOMEM;
	if (r == 0 && now.n_zones)
		memcpy(shown.zones, now.zones, now.n_zones * sizeof(*now.zones));
	if (r == 0)
		r = fold_wraps(p, &shown);
	if (r == 0)
		r = publish(p, s, &shown);
	free(shown.zones);
	vcp_pwr_snap_clear(&p->prev);
	p->prev = now;
	p->have_prev = true;
	return r;
}

const char *vcp_metrics_pub_why(const struct vcp_metrics_pub *p)
{
	return p && p->why[0] ? p->why : NULL;
}

void vcp_metrics_pub_free(struct vcp_metrics_pub *p)
{
	if (!p)
		return;
	vcp_power_reader_close(p->reader);
	vcp_power_file_ops_free(p->fops);
	vcp_pwr_snap_clear(&p->prev);
	vcp_pwr_figs_clear(&p->figs);
	free(p->totals);
	vcp_vms_free(p->vms, p->n_vms);
	free(p->dir);
	free(p);
}
