/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * apply.h - carry out a list of actions (diff.h) through libvirt and the
 * kernel, and put VMs back as they were.
 */
#ifndef VCP_APPLY_H
#define VCP_APPLY_H

#include <stdbool.h>
#include <stddef.h>

#include "diff.h"
#include "model.h"

struct vcp_virt;
struct vcp_kernel;

enum vcp_outcome {
	VCP_DONE = 0,
	VCP_FAILED, /* permanent: the VM is left as it was */
	VCP_RETRY, /* transient: try again next cycle */
	VCP_GONE, /* the domain went away: skipped */
	VCP_SKIPPED, /* not tried: an earlier step of its VM failed */
	VCP_ROLLED_BACK, /* done, then undone after a later failure */
	/* The driver will not do it (a memory move libvirt refuses:
	 * mode, a session daemon without cgroups): left as it was, said,
	 * and not a failure (counted neither done nor failed). */
	VCP_REFUSED,
};

struct vcp_outcome_entry {
	size_t action;		/* index into the actions */
	enum vcp_outcome outcome;
	int r;			/* -errno for failures */
	char *msg;		/* what went wrong, or NULL */
};

struct vcp_apply_result {
	struct vcp_outcome_entry *e;	/* one per action, in order */
	size_t n;
	size_t n_done, n_failed;	/* failed counts FAILED and RETRY */
	/* The connection to libvirt closed (-ENOTCONN, virt.h): that
	 * action is RETRY, nothing after it was tried (SKIPPED) nor rolled
	 * back; apply again once reconnected. */
	bool lost;
};

void vcp_apply_result_clear(struct vcp_apply_result *r);
const char *vcp_outcome_name(enum vcp_outcome o);

/*
 * Run @acts in order, VM by VM. A VM's pins are never changed before its
 * original pins are recorded; a failure part-way through a VM rolls its
 * earlier pin changes back, so every VM ends as it was or as planned
 * (but where the connection closes: see @lost). A VM that went away is
 * GONE, without a message: that says it all. A memory move (SET_MEMORY)
 * that fails leaves the VM's memory where it is and nothing else: its
 * pins stay, its class is still set; a refusal is REFUSED.
 * @k may be NULL (pin mode: class and level actions then fail -ENOTSUP).
 * Returns 0 when the result was filled (check n_failed), -ENOMEM else.
 */
int vcp_apply_actions(struct vcp_virt *v, const struct vcp_kernel *k,
		      const struct vcp_host *host, const struct vcp_vm *vms,
		      const struct vcp_actions *acts,
		      struct vcp_apply_result *ret);

struct vcp_restore_entry {
	const char *vm;		/* borrowed from the VM list */
	enum vcp_outcome outcome;
	bool had_record;	/* false: nothing recorded, nothing done */
	char *msg;
};

struct vcp_restore_result {
	struct vcp_restore_entry *e;
	size_t n;
	size_t n_failed;
};

void vcp_restore_result_clear(struct vcp_restore_result *r);

/*
 * Put every VM in @vms (only @only, if not NULL) back to its recorded
 * original pins and memory nodeset, then drop the record; in kernel mode its class goes back
 * to the kernel default (balanced). 0 or -ENOMEM.
 */
int vcp_apply_restore(struct vcp_virt *v, const struct vcp_kernel *k,
		      const struct vcp_host *host, const struct vcp_vm *vms,
		      size_t n_vms, const bool *only,
		      struct vcp_restore_result *ret);

#endif
