// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hostrec.c - when vcpackd rewrites the host record (hostrec.h).
 */
#include "hostrec.h"

bool vcp_host_rec_due(const struct vcp_vm *vm, const struct vcp_host_rec *h)
{
	if (!vm->managed)
		return false;
	return !vm->has_host_rec || vm->host_rec_mode != h->mode ||
	       vm->host_rec_level != h->level || vm->host_rec_at > h->at ||
	       h->at - vm->host_rec_at >= VCP_HOST_REC_REFRESH_S;
}
