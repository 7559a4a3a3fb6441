/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics.h - vcpack's figures in the Prometheus text exposition format
 * (0.0.4), for `vcpack metrics` and for vcpackd's node_exporter textfile
 * (--metrics-dir). Names follow Prometheus conventions: base units,
 * _total for counters, _seconds, _joules, _watts, _hertz, _ratio; labels
 * package, zone, scope, state, vm, class, source.
 */
#ifndef VCP_METRICS_H
#define VCP_METRICS_H

#include <stddef.h>

#include "model.h"
#include "power.h"
#include "virt.h"

struct vcp_metrics_in {
	const struct vcp_vm *vms;	/* VMs and their classes, may be NULL */
	size_t n_vms;
	const struct vcp_policy *policy;
	const struct vcp_sample *sample;	/* cumulative vCPU times, NULL */
	int level;			/* level in force, -1 unknown */
	const struct vcp_pwr_snap *snap;	/* latest power read, NULL */
	const struct vcp_pwr_figs *figs;	/* last interval, NULL */
};

/* Render everything known in @in. Pure. *ret_text is malloc'd.
 * 0 or -ENOMEM. */
int vcp_metrics_render(const struct vcp_metrics_in *in, char **ret_text);

/* Write @text to DIR/NAME.prom atomically (NAME.prom.PID, then rename),
 * as node_exporter's textfile collector expects. 0 or -errno. */
int vcp_metrics_write(const char *dir, const char *name, const char *text);

#endif
