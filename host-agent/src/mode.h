/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mode.h - kernel mode or pin mode, and why: decided once at start by the
 * CLI and the daemon alike.
 */
#ifndef VCP_MODE_H
#define VCP_MODE_H

#include <stddef.h>

#include "model.h"

struct vcp_virt;
struct vcp_kernel;

/*
 * Kernel knobs are used only for a local QEMU driver (qemu:///...,
 * qemu+unix:///...) or when @root names a kernel tree (tests). @force is
 * -1 (detect) or an enum vcp_mode. *ret_k is the opened kernel or NULL;
 * @reason (of @len bytes) says why in words.
 */
enum vcp_mode vcp_mode_detect(const struct vcp_virt *v, const char *root,
			      int force, struct vcp_kernel **ret_k,
			      char *reason, size_t len);

/* "auto", "pin", "kernel" -> -1, VCP_MODE_PIN, VCP_MODE_KERNEL; else -2. */
int vcp_mode_parse(const char *s);

#endif
