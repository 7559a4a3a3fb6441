// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * takeover.c - after a (re)connect, vcpackd's first pass waits until the
 * VMs it placed before have measured demand (see takeover.h), so that a
 * restart or an upgrade re-pins nothing that its plan would keep.
 */
#include "takeover.h"

void vcp_takeover_start(struct vcp_takeover *t, bool measurable, long long now,
			unsigned int sample_s)
{
	t->on = measurable;
	t->until = now + (long long)VCP_TAKEOVER_SAMPLES * sample_s;
}

/* A VM vcpack placed before whose demand is not measured yet. */
static bool unmeasured(const struct vcp_vm *vm)
{
	if (!vm->running || !vm->managed || !vm->has_saved)
		return false;
	for (unsigned int c = 0; c < vm->n_vcpus; c++)
		if (!vm->demand || vm->demand[c] < 0)
			return true;
	return false;
}

bool vcp_takeover_wait(struct vcp_takeover *t, const struct vcp_vm *vms,
		       size_t n_vms, long long now, size_t *ret_n)
{
	size_t n = 0;

	if (t->on && now < t->until)
		for (size_t i = 0; i < n_vms; i++)
			n += unmeasured(&vms[i]);
	if (ret_n)
		*ret_n = n;
	if (!n)
		t->on = false;
	return n > 0;
}
