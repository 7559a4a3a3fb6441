/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scxstate.h - what sched_ext says about itself: whether the kernel has
 * it (/sys/kernel/sched_ext), whether a BPF scheduler is loaded (state
 * "enabled") and which one (root/ops), and whether scx_vcpack's control
 * maps are pinned. Read under a root directory ("/" in production, a
 * fixture tree in tests); nothing here writes, logs or prints.
 */
#ifndef VCP_SCXSTATE_H
#define VCP_SCXSTATE_H

#include <stdbool.h>

#define VCP_SCX_SYSFS "/sys/kernel/sched_ext"
#define VCP_SCX_PINDIR "/sys/fs/bpf/vcpack"
/* the name scx_vcpack's struct_ops carries (root/ops) */
#define VCP_SCX_OPS_NAME "vcpack"

enum vcp_scx_state {
	VCP_SCX_ABSENT = 0,	/* no /sys/kernel/sched_ext: not built in */
	VCP_SCX_DISABLED,	/* no BPF scheduler loaded */
	VCP_SCX_ENABLING,	/* one is being loaded */
	VCP_SCX_ENABLED,	/* one runs: see ops */
	VCP_SCX_DISABLING,	/* one is being unloaded or ejected */
};

struct vcp_scx_info {
	enum vcp_scx_state state;
	char ops[64];		/* root/ops: the loaded scheduler's name, or "" */
	bool maps_pinned;	/* PINDIR/ctl and PINDIR/classes exist */
};

/*
 * Reads ROOT/sys/kernel/sched_ext/{state,root/ops} and looks for
 * ROOT/PINDIR/{ctl,classes} (@pindir absolute; NULL: VCP_SCX_PINDIR).
 * An absent directory is VCP_SCX_ABSENT, not an error. -EBADMSG when
 * state holds a word sched_ext does not write, -EINVAL for an empty
 * root, other -errno from reading. *ret untouched on failure.
 */
int vcp_scx_read(const char *root, const char *pindir,
		 struct vcp_scx_info *ret);

/* "absent", "disabled", "enabling", "enabled", "disabling" */
const char *vcp_scx_state_name(enum vcp_scx_state s);

/* Is scx_vcpack the loaded scheduler, with its maps pinned? */
bool vcp_scx_is_ours(const struct vcp_scx_info *i);

#endif
