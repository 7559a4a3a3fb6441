// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * metricspub.c - the daemon's side of the metrics (see metricspub.h): a
 * power reader kept open, the previous snapshot, a copy of what the last
 * plan knew about each VM, and the textfile written at each sample.
 */
#include "metricspub.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metrics.h"
#include "power.h"
#include "powerread.h"

struct vcp_metrics_pub {
	char *dir;
	struct vcp_power_ops *fops;
	struct vcp_power_reader *reader;
	struct vcp_pwr_snap prev;
	bool have_prev;
	struct vcp_pwr_figs figs;	/* over the last interval that passed */
	bool have_figs;
	struct vcp_vm *vms;
	size_t n_vms;
	struct vcp_policy policy;	/* classes only (prio_class) */
	int level;
};

int vcp_metrics_pub_new(const char *dir, const char *power_root,
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
	if (!r)
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

int vcp_metrics_pub_sample(struct vcp_metrics_pub *p,
			   const struct vcp_sample *s)
{
	struct vcp_pwr_thresholds th = VCP_PWR_THRESHOLDS_DEFAULT;
	struct vcp_pwr_figs figs;
	struct vcp_pwr_snap now;
	char *text = NULL;
	int r = vcp_power_read(p->reader, &now);

	if (r < 0)
		return r;
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
	struct vcp_metrics_in in = {
		.vms = p->vms, .n_vms = p->n_vms, .policy = &p->policy,
		.sample = s, .level = p->level, .snap = &now,
		.figs = p->have_figs ? &p->figs : NULL,
	};
	r = vcp_metrics_render(&in, &text);
	if (r == 0)
		r = vcp_metrics_write(p->dir, "vcpack", text);
	free(text);
	vcp_pwr_snap_clear(&p->prev);
	p->prev = now;
	p->have_prev = true;
	return r;
}

void vcp_metrics_pub_free(struct vcp_metrics_pub *p)
{
	if (!p)
		return;
	vcp_power_reader_close(p->reader);
	vcp_power_file_ops_free(p->fops);
	vcp_pwr_snap_clear(&p->prev);
	vcp_pwr_figs_clear(&p->figs);
	vcp_vms_free(p->vms, p->n_vms);
	free(p->dir);
	free(p);
}
