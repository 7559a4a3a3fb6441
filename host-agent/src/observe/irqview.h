/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * irqview.h - interrupts per package per second for `vcpack status`:
 * a read of ROOT/proc/interrupts before the status is gathered, another
 * after it (at least VCP_IRQVIEW_MIN_MS apart), shown as one short line
 * per package, or one plain line saying why not.
 */
#ifndef VCP_IRQVIEW_H
#define VCP_IRQVIEW_H

#include <stdio.h>

#include <json-c/json.h>

#include "irq.h"

#define VCP_IRQVIEW_MIN_MS 250

struct vcp_irqview {
	const char *root;	/* NULL: the host is not this machine */
	int error;		/* -errno of the first failed read */
	struct vcp_irq_counts first;
	double t0, seconds;
	size_t n_packages;
	double *all, *dev;	/* per package, per second */
};

/* Take the first read under @root (NULL: nothing to read). */
void vcp_irqview_begin(struct vcp_irqview *v, const char *root);
/* The second read (waiting for the rest of VCP_IRQVIEW_MIN_MS) and the
 * rates for @host's packages. */
void vcp_irqview_end(struct vcp_irqview *v, const struct vcp_host *host);
void vcp_irqview_clear(struct vcp_irqview *v);

/* "irqs:   package 0: 1017/s, 15/s from devices" lines, or one line
 * saying why there are none; nothing when the host is not this machine
 * (vcp_placers_text() says that once). */
void vcp_irqview_text(FILE *f, const struct vcp_irqview *v,
		      const struct vcp_host *host);
/* {"seconds": S, "packages": [{"id", "per_s", "device_per_s"}]} or
 * {"error": "..."}. */
struct json_object *vcp_irqview_json(const struct vcp_irqview *v,
				     const struct vcp_host *host);

/* What vcp_irq_follow() did, in one or two "irqs:" lines / an object.
 * Nothing when it did not act. */
void vcp_irq_report_text(FILE *f, const struct vcp_irq_report *r);
/* Where irqbalance runs, what the "irqs:" line says of it (what it was
 * asked, or how to ask it by hand), malloc'd; NULL when out of memory. */
char *vcp_irqbalance_said(const struct vcp_irq_report *r);
struct json_object *vcp_irq_report_json(const struct vcp_irq_report *r);

#endif
