/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metricspub.h - vcpackd's rolling metrics: at each sample, read the
 * power counters again (figures over the time since the previous
 * sample), render everything with metrics.c and write DIR/vcpack.prom
 * for node_exporter's textfile collector. Energy counters are totals
 * since the daemon first read each zone, with the zone's wraps folded
 * in, so that they only go up while it runs.
 */
#ifndef VCP_METRICSPUB_H
#define VCP_METRICSPUB_H

#include <stddef.h>

#include "model.h"
#include "virt.h"

struct vcp_metrics_pub;

/*
 * Publish into @dir. @power_root NULL reads this host ("/sys", perf);
 * a directory reads a fixture tree (powerread.h's file ops). @here false
 * (the VMs' host is not this machine: the test driver, a remote URI)
 * and no @power_root: no power figures at all, never this machine's.
 * 0, -ENOMEM, or -errno when @dir is not a writable directory.
 */
int vcp_metrics_pub_new(const char *dir, const char *power_root, bool here,
			struct vcp_metrics_pub **ret);
/* The VMs (classes, vCPUs, wait) and the level of the last plan. The
 * figures are copied. 0 or -ENOMEM. */
int vcp_metrics_pub_plan(struct vcp_metrics_pub *p, const struct vcp_vm *vms,
			 size_t n_vms, const struct vcp_policy *policy,
			 int level);
/* At a sample (@s: cumulative vCPU times, may be NULL): read the power
 * counters, write the file. 0 or -errno (the file is left as it was);
 * -EINVAL when the counters' clock gave no time (a fixture clock_ns
 * that is no clock): the file is written without power figures, and
 * vcp_metrics_pub_why() says why. */
int vcp_metrics_pub_sample(struct vcp_metrics_pub *p,
			   const struct vcp_sample *s);
/* Why the last read of the power counters failed, naming the file, or
 * NULL. */
const char *vcp_metrics_pub_why(const struct vcp_metrics_pub *p);
void vcp_metrics_pub_free(struct vcp_metrics_pub *p);

#endif
