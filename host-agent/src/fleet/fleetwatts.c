// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleetwatts.c - the fleet's power figures per vendor. The per-package
 * figures are the benchmark's power model (bench/kernel/power-model.json:
 * published ranges and stated assumptions, not measurements):
 *   Intel Xeon: awake idle 40 W, all cores in C6 with the uncore at its
 *     floor 22 W, package C6 (PC6) 12 W; PC6 has system scope: it is
 *     entered only when every CPU of every socket is idle. So a package
 *     emptied on a host that still runs guests saves 40 - 22 = 18 W (not
 *     PC6), one of a host left all idle 40 - 12 = 28 W.
 *   AMD EPYC: awake idle 80 W, package C-state 48 W (the I/O die stays
 *     powered); whether a socket enters it while the other is busy is not
 *     publicly documented: the model assumes it does (per socket,
 *     UNVERIFIED), so an emptied package saves 32 W either way.
 *   Unknown vendor: the fleet file's package_watts and host_watts.
 * A host in standby saves its whole idle draw: the operator's measured
 * idle_watts where given, else packages x awake idle + host_watts.
 */
#include "fleetwatts.h"

#include <string.h>

struct vendor_model {
	double awake_idle_w, cc6_floor_w, sleep_w;
	bool system_scope;
};

static const struct vendor_model models[] = {
	[VCP_VENDOR_INTEL] = { 40, 22, 12, true },
	[VCP_VENDOR_AMD] = { 80, 48, 48, false },
};

int vcp_vendor_from_name(const char *s)
{
	if (s && !strcmp(s, "intel"))
		return VCP_VENDOR_INTEL;
	if (s && !strcmp(s, "amd"))
		return VCP_VENDOR_AMD;
	return -1;
}

enum vcp_vendor vcp_vendor_from_cpu_key(const char *key)
{
	if (key && !strncmp(key, "Intel ", 6))
		return VCP_VENDOR_INTEL;
	if (key && !strncmp(key, "AMD ", 4))
		return VCP_VENDOR_AMD;
	return VCP_VENDOR_UNKNOWN;
}

const char *vcp_vendor_name(enum vcp_vendor v)
{
	return v == VCP_VENDOR_INTEL ? "intel" :
	       v == VCP_VENDOR_AMD ? "amd" : "unknown";
}

struct vcp_watts vcp_watts_packages(enum vcp_vendor v, size_t n,
				    double package_watts)
{
	const struct vendor_model *m = &models[v];

	if (v == VCP_VENDOR_INTEL)
		return (struct vcp_watts){ n * (m->awake_idle_w - m->cc6_floor_w),
			false, "modelled, Intel: emptied packages of a busy host get core C6 and the uncore floor, not PC6 (18 W each)" };
	if (v == VCP_VENDOR_AMD)
		return (struct vcp_watts){ n * (m->awake_idle_w - m->sleep_w),
			false, "modelled, AMD: per-socket package C-state assumed, unverified (32 W each)" };
	return (struct vcp_watts){ n * package_watts, false,
		"modelled, vendor unknown: package_watts per package" };
}

static struct vcp_watts standby(enum vcp_vendor v, size_t packages,
				double idle_watts, double package_watts,
				double host_watts)
{
	if (idle_watts >= 0)
		return (struct vcp_watts){ idle_watts, true,
			"measured: the host's idle draw (idle_watts)" };
	if (v == VCP_VENDOR_UNKNOWN)
		return (struct vcp_watts){ packages * package_watts + host_watts,
			false, "modelled, vendor unknown: its idle draw, package_watts per package + host_watts" };
	return (struct vcp_watts){ packages * models[v].awake_idle_w + host_watts,
		false, v == VCP_VENDOR_INTEL ?
		"modelled, Intel: its idle draw, 40 W per package + host_watts" :
		"modelled, AMD: its idle draw, 80 W per package + host_watts" };
}

struct vcp_watts vcp_watts_host(enum vcp_vendor v, size_t packages,
				bool in_standby, double idle_watts,
				double package_watts, double host_watts)
{
	const struct vendor_model *m = &models[v];

	if (in_standby)
		return standby(v, packages, idle_watts, package_watts,
			       host_watts);
	if (v == VCP_VENDOR_INTEL)
		return (struct vcp_watts){ packages * (m->awake_idle_w - m->sleep_w),
			false, "modelled, Intel: the whole host idle, so every package reaches PC6 (28 W each)" };
	if (v == VCP_VENDOR_AMD)
		return (struct vcp_watts){ packages * (m->awake_idle_w - m->sleep_w),
			false, "modelled, AMD: package C-state per socket, unverified (32 W each)" };
	return (struct vcp_watts){ packages * package_watts + host_watts, false,
		"modelled, vendor unknown: package_watts per package + host_watts" };
}
