/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fleetwatts.h - what consolidation saves on a fleet host, per vendor:
 * an emptied package on a host that still runs guests, a host left idle,
 * a host in standby; measured where the operator gave the host's idle
 * draw, modelled otherwise and labelled so. Pure.
 */
#ifndef VCP_FLEETWATTS_H
#define VCP_FLEETWATTS_H

#include <stdbool.h>
#include <stddef.h>

enum vcp_vendor {
	VCP_VENDOR_UNKNOWN = 0,
	VCP_VENDOR_INTEL,
	VCP_VENDOR_AMD,
};

/* "intel", "amd": the vendor; anything else -1. */
int vcp_vendor_from_name(const char *s);
/* From libvirt's host CPU key ("Intel Skylake-Server ...", "AMD ..."). */
enum vcp_vendor vcp_vendor_from_cpu_key(const char *key);
const char *vcp_vendor_name(enum vcp_vendor v);

struct vcp_watts {
	double watts;
	bool measured;		/* from the operator's idle_watts */
	const char *basis;	/* one line: where the figure comes from */
};

/* @n packages emptied on a host that still runs guests. @package_watts:
 * the fleet file's figure, used for an unknown vendor. */
struct vcp_watts vcp_watts_packages(enum vcp_vendor v, size_t n,
				    double package_watts);
/*
 * A host emptied of guests with @packages packages: in standby
 * (@standby) it saves its whole idle draw, @idle_watts if measured (>= 0)
 * or modelled (packages awake-idle plus @host_watts for the rest of the
 * platform); left on and idle it saves what its packages save asleep
 * (on Intel Xeon package C6 needs the whole host idle, which it now is).
 */
struct vcp_watts vcp_watts_host(enum vcp_vendor v, size_t packages,
				bool standby, double idle_watts,
				double package_watts, double host_watts);

#endif
