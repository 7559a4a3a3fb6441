/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * placers.h - other placers on the host, so that vcpack never fights
 * one silently: numad running, tuned's active profile, and VMs whose
 * domain XML asks libvirt (and numad) to place them (<vcpu
 * placement='auto'>, <numatune>). Said in `vcpack status`, `plan`,
 * `apply` and vcpackd's log.
 */
#ifndef VCP_PLACERS_H
#define VCP_PLACERS_H

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "model.h"

/*
 * From a domain's XML: does <vcpu> say placement='auto', is there a
 * <numatune> element? Pure (libxml2). 0, -EINVAL (not a domain XML) or
 * -ENOMEM; outputs untouched on failure.
 */
/*
 * Does a domain XML pin the VM itself: <vcpu cpuset=...>, a <vcpupin> or
 * an <emulatorpin> in <cputune>? 1 with *ret_what naming the first found
 * ("vcpupin", "emulatorpin", "vcpu cpuset"), 0 when none, -EINVAL for XML
 * that is not a domain. Pure.
 */
int vcp_domxml_own_pins(const char *xml, const char **ret_what);
int vcp_domxml_placement(const char *xml, bool *ret_auto,
			 bool *ret_numatune);

/*
 * From a domain's XML: its <numatune><memory mode= nodeset= placement=>
 * (mode absent: strict, libvirt's default; no <memory>: VCP_MEM_NONE and
 * an empty nodeset). Pure (libxml2). 0, -EINVAL (not a domain XML, an
 * unknown mode or a bad nodeset) or -ENOMEM; outputs untouched on
 * failure.
 */
int vcp_domxml_numatune(const char *xml, enum vcp_mem_mode *ret_mode,
			struct vcp_cpuset *ret_nodes, bool *ret_auto);

struct vcp_placers {
	bool checked;		/* root given: this machine is the host */
	int numad_pid;		/* 0: not running */
	char tuned_profile[128];	/* "" when none */
};

/* Under @root (NULL: not this machine; nothing checked): numad from
 * ROOT/var/run/numad.pid naming a process whose comm is numad, else a
 * ROOT/proc/N/comm reading so (vcp_proc_find_daemon());
 * ROOT/etc/tuned/active_profile. Never fails. */
void vcp_placers_detect(const char *root, struct vcp_placers *ret);

/* "numad:", "tuned:" and "numa:" lines (the VMs' flags come from
 * virt.c: struct vcp_vm placement_auto, numatune); where the host is not
 * this machine one "local:" line says that IRQ rates, numad and tuned
 * are not shown, instead of the first two. */
void vcp_placers_text(FILE *f, const struct vcp_placers *p,
		      const struct vcp_vm *vms, size_t n_vms);
/* One line for vcpackd's log and the plan's warning: "other placers: "
 * then each one found (numad's pid, tuned's profile, the VMs asking for
 * NUMA placement, the first 8 by name) and what vcpack does beside it,
 * ". " between them; "" when none is found. NULL: out of memory; the
 * caller frees. Pure. */
char *vcp_placers_say(const struct vcp_placers *p, const struct vcp_vm *vms,
		      size_t n_vms);
struct json_object *vcp_placers_json(const struct vcp_placers *p,
				     const struct vcp_vm *vms, size_t n_vms);

#endif
