/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * powerview.h - two reads of the power counters around something the
 * caller does (a probe), and the figures as text and JSON for `vcpack
 * status` (the JSON "power" object documented in vcpack(1)).
 */
#ifndef VCP_POWERVIEW_H
#define VCP_POWERVIEW_H

#include <stdio.h>

#include <json-c/json.h>

#include "power.h"
#include "powerread.h"

/*
 * Where the counters come from: NULL reads the running host ("/sys",
 * perf_event_open); "DIR" a fixture tree (powerread.h's file ops), read
 * twice; "DIR,DIR2" reads DIR first and DIR2 second (a fixture's two
 * moments).
 */
struct vcp_power_probe {
	struct vcp_power_ops *fops[2];
	struct vcp_power_reader *r[2];
	struct vcp_pwr_snap first;
	struct vcp_pwr_snap last;	/* the second read, after finish */
	uint64_t t0_ns;		/* real clock at the first read */
	char why[512]; /* why a read failed, or "" */
};

/* Open the reader(s) and take the first read. 0, -EINVAL (a bad spec,
 * or a fixture clock that is no clock: vcp_power_probe_why), -ENOENT or
 * -ENOTDIR (a root that is not a directory), -ENOMEM. */
int vcp_power_probe_start(const char *spec, struct vcp_power_probe *p);
/* Wait until @min_ms have passed since the first read, take the second
 * and compute the figures. 0 or -errno (as vcp_power_figures). */
int vcp_power_probe_finish(struct vcp_power_probe *p, unsigned int min_ms,
			   struct vcp_pwr_figs *ret);
void vcp_power_probe_clear(struct vcp_power_probe *p);
/* Why a read failed with -EINVAL when a fixture's clock gave no time
 * ("PATH/clock_ns: not a clock ..."), else NULL. */
const char *vcp_power_probe_why(const struct vcp_power_probe *p);

enum vcp_power_source { VCP_SRC_ENERGY, VCP_SRC_RESIDENCY, VCP_SRC_CPUIDLE };

/* Why a source gave no figure, one plain sentence in @buf; NULL for @err
 * 0. */
const char *vcp_power_missing(enum vcp_power_source what, int err, char *buf,
			      size_t len);

void vcp_power_text(FILE *out, const struct vcp_pwr_figs *f);
struct json_object *vcp_power_json(const struct vcp_pwr_figs *f);

#endif
