/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pinmemo.h - what vcpackd last set on each VM, to tell its own pins from
 * someone else's (a TUNABLE event alone cannot: our pins raise it too).
 * Soft state: after a restart the daemon starts with an empty memo and
 * restates its plan, as it would anyway. Pure.
 */
#ifndef VCP_PINMEMO_H
#define VCP_PINMEMO_H

#include <stdbool.h>
#include <stddef.h>

#include "apply.h"
#include "diff.h"
#include "model.h"

struct vcp_pin_memo;

int vcp_pin_memo_new(struct vcp_pin_memo **ret);
void vcp_pin_memo_free(struct vcp_pin_memo *m);

/*
 * Before planning: a VM whose pins are not what vcpackd last set was
 * re-pinned by someone else. Those seen so for the first time go to
 * @ret_names (up to @max; borrowed from @vms), for the caller to say so
 * once. With @respect such a VM is marked unmanaged (vm->managed =
 * false), and stays so while its pins stay as found. Returns the count
 * put in @ret_names.
 */
size_t vcp_pin_memo_check(struct vcp_pin_memo *m, struct vcp_vm *vms,
			  size_t n_vms, bool respect, const char **ret_names,
			  size_t max);
/*
 * After applying: remember, per VM, the pins now set: the observed ones
 * with every PIN action that was done laid over, and whether libvirt
 * refused to move its memory (a SET_MEMORY REFUSED): vcp_pin_memo_check()
 * then marks it vm->mem_refused, so the move is not asked for again
 * every pass, until the VM is forgotten. VMs no longer listed are
 * forgotten. 0 or -ENOMEM.
 */
int vcp_pin_memo_record(struct vcp_pin_memo *m, const struct vcp_vm *vms,
			size_t n_vms, const struct vcp_actions *acts,
			const struct vcp_apply_result *res);
/* Forget one VM (its tag changed, it stopped or started): it is planned
 * afresh, and a respected foreign pinning ends. */
void vcp_pin_memo_forget(struct vcp_pin_memo *m, const char *name);

#endif
