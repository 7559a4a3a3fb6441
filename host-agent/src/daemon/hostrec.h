/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hostrec.h - when vcpackd rewrites the host record (tags.h) in a VM.
 * The fleet reaches a host only through libvirt, so vcpackd tells it its
 * mode and level in each managed VM: rewritten when they change, and at
 * least every VCP_HOST_REC_REFRESH_S so that `vcpack fleet status` can
 * tell how fresh it is. Pure: vcpackd writes what is due.
 */
#ifndef VCP_HOSTREC_H
#define VCP_HOSTREC_H

#include <stdbool.h>

#include "model.h"
#include "tags.h"

#define VCP_HOST_REC_REFRESH_S 3600

/* Whether @vm is to get the record @h (h->at: now): a managed VM whose
 * record is missing, says another mode or level, is older than
 * VCP_HOST_REC_REFRESH_S, or is dated after now (the clock was stepped
 * back, or the VM came from a host whose clock runs ahead: its age says
 * nothing then). */
bool vcp_host_rec_due(const struct vcp_vm *vm, const struct vcp_host_rec *h);

#endif
