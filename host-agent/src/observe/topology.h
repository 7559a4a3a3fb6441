/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology.h - the host's CPU topology (packages, dies, cores, threads,
 * NUMA nodes) into struct vcp_host, from libvirt's capabilities XML, from
 * virNodeGetInfo's counts, or from sysfs under a root directory.
 *
 * Each loader lists online CPUs only and ends with vcp_host_finish().
 * *ret is set only on success (free it with vcp_host_free()); messages
 * in *ret_err are malloc'd (free() them).
 */
#ifndef VCP_TOPOLOGY_H
#define VCP_TOPOLOGY_H

#include "model.h"

/*
 * libvirt capabilities XML (virConnectGetCapabilities): per-cell <cpu id
 * socket_id die_id core_id siblings>; CPUs listed without socket_id and
 * CPUs not listed are offline. -ENODATA (no message) when there are no
 * cells or no CPU with socket_id, so the caller falls back to node info;
 * -EINVAL with a message for malformed XML or attributes; -ENOMEM.
 */
int vcp_topology_from_caps(const char *caps_xml, struct vcp_host **ret,
			   char **ret_err);
/*
 * A host wider than VCP_MAX_CPUS (up to VCP_TOPOLOGY_MAX_WIDE CPUs) loads
 * from capabilities or node info with only its CPUs below VCP_MAX_CPUS
 * and host->too_wide set: enough to restore a VM's recorded pins (libvirt
 * pins to no CPU past 16,383). Everything else asks first: 0, or -E2BIG
 * with "host has N CPUs; vcpack supports at most 16384".
 */
#define VCP_TOPOLOGY_MAX_WIDE (1u << 20)
int vcp_host_fits(const struct vcp_host *h, char **ret_err);
/*
 * virNodeGetInfo's fields: @nodes, @sockets per node, @cores per socket,
 * @threads per core. CPUs are numbered as Linux enumerates x86: the first
 * thread of every core of every package, then the second threads, ...
 * 0, -EINVAL (a zero count), -E2BIG with a message (more than
 * VCP_TOPOLOGY_MAX_WIDE CPUs: "host has N CPUs; vcpack supports at most
 * M"; past VCP_MAX_CPUS see vcp_host_fits) or -ENOMEM.
 */
int vcp_topology_from_nodeinfo(unsigned int nodes, unsigned int sockets,
			       unsigned int cores, unsigned int threads,
			       struct vcp_host **ret, char **ret_err);
/*
 * sysfs under @root ("/sys" in production): devices/system/cpu/online,
 * cpuN/topology/{physical_package_id,die_id,core_id} (die_id optional),
 * devices/system/node/nodeN/cpulist (optional: node 0 without it).
 * Offline CPUs are excluded. 0, -errno with a message naming the file.
 */
int vcp_topology_load(const char *root, struct vcp_host **ret,
		      char **ret_err);

/*
 * The host <cpu> of a capabilities XML: the element itself (*ret_xml, for
 * virConnectCompareCPU on another host) and a key that is equal for hosts
 * whose CPUs libvirt describes alike (*ret_key: vendor, model and the
 * sorted feature names; microcode, counters and such left out).
 * -ENODATA (with message) when there is no host <cpu>.
 */
int vcp_caps_host_cpu(const char *caps_xml, char **ret_xml, char **ret_key,
		      char **ret_err);

#endif
