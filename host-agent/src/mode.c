// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mode.c - decides between kernel mode (the patched kernel's knobs are
 * there, on this host) and pin mode (stock kernel, a remote host, or
 * libvirt's test driver), and says why.
 */
#include "mode.h"

#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "virt.h"

static bool local_qemu(const struct vcp_virt *v)
{
	return strcmp(vcp_virt_driver(v), "QEMU") == 0 &&
	       strstr(vcp_virt_uri(v), ":///") != NULL;
}

enum vcp_mode vcp_mode_detect(const struct vcp_virt *v, const char *root,
			      int force, struct vcp_kernel **ret_k,
			      char *reason, size_t len)
{
	enum vcp_mode mode = VCP_MODE_PIN;
	struct vcp_kernel *k = NULL;

	if ((root || local_qemu(v)) &&
	    vcp_kernel_open(root ? root : "/", &k) == 0) {
		mode = vcp_kernel_mode(k);
		snprintf(reason, len, "%s", k->reason ? k->reason : "");
	} else if (vcp_virt_is_test_driver(v)) {
		snprintf(reason, len,
			 "libvirt's test driver: a simulated host with no kernel to tune, so pins alone carry the plan");
	} else {
		snprintf(reason, len,
			 "remote host: its kernel knobs are not reachable through libvirt (vcpackd on that host uses them); pins alone carry the plan");
	}
	if (force >= 0 && (enum vcp_mode)force != mode) {
		mode = (enum vcp_mode)force;
		snprintf(reason, len, "forced with --mode");
	}
	*ret_k = k;
	return mode;
}

int vcp_mode_parse(const char *s)
{
	if (strcmp(s, "auto") == 0)
		return -1;
	if (strcmp(s, "pin") == 0)
		return VCP_MODE_PIN;
	if (strcmp(s, "kernel") == 0)
		return VCP_MODE_KERNEL;
	return -2;
}
