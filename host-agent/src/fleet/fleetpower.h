/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fleetpower.h - each fleet host's power now, as its operator reads it:
 * the fleet file's power_command run for every host that has one, in
 * parallel (fleet.c's pool: the fleet's concurrency), each with its own
 * timeout, whether the host's libvirt answers or not (a BMC reads a host
 * in standby too). No output.
 */
#ifndef VCP_FLEETPOWER_H
#define VCP_FLEETPOWER_H

#include <stddef.h>

#include "fleetcfg.h"
#include "powerreading.h"

enum vcp_fpower_state {
	VCP_FPOWER_NONE = 0, /* no power_command */
	VCP_FPOWER_MEASURED, /* a reading */
	VCP_FPOWER_FAILED, /* could not run, exit not 0, killed */
	VCP_FPOWER_TIMED_OUT, /* past its power_timeout */
	VCP_FPOWER_UNPARSEABLE, /* exit 0, output not understood */
};

/* Bytes of a power_command's stdout read (vcpack metrics text of a host
 * with many VMs is long; its power figures come last). */
#define VCP_FPOWER_MAX_OUTPUT (4u << 20)

struct vcp_fleet_power {
	enum vcp_fpower_state state;
	struct vcp_reading reading; /* when measured */
	/* Why there is no reading ("power_command ipmitool: exit 1:
	 * FIRST LINE"), NULL when measured. */
	char *why;
	double seconds; /* the command ran this long */
};

/*
 * Run the power_command of each of @cfg's hosts (the fleet file's
 * @uris, which must stay valid while *ret_abandoned workers run, as for
 * vcp_fleet_run()) with VCPACK_HOST, VCPACK_URI and VCPACK_ACTION=power
 * in its environment, at most @cfg->concurrency at once and @max_live
 * alive (0: no bound), and fill @ret (n_hosts entries). 0 or -ENOMEM,
 * -EAGAIN (no thread); @ret is filled either way.
 */
int vcp_fleet_power_read(const struct vcp_fleet_cfg *cfg,
			 const char *const *uris, unsigned int max_live,
			 struct vcp_fleet_power *ret, size_t *ret_abandoned);
void vcp_fleet_power_clear(struct vcp_fleet_power *p, size_t n);
/* "none", "measured", "failed", "timed_out", "unparseable". */
const char *vcp_fpower_state_name(enum vcp_fpower_state s);

#endif
