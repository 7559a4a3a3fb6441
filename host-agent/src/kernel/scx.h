/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scx.h - the one place that talks to scx_vcpack, the sched_ext
 * scheduler of kernel/scx/: it runs the loader's own command line
 * (`scx_vcpack [-d PINDIR] level N | class DIR CLASS | show`), which
 * reads and writes the maps the running loader pinned, and it starts,
 * watches and stops the loader itself for vcpackd.
 *
 * Plain C without GLib (a static test program in the sched_ext guest
 * links it). Functions return 0 or -errno, outputs are untouched on
 * failure, nothing logs or prints: a failed command is -EIO with its
 * first line of output in the handle (vcp_scx_last_error()).
 */
#ifndef VCP_SCX_H
#define VCP_SCX_H

#include <stdbool.h>
#include <sys/types.h>

#include "model.h"

/* vcpackd's default: the loader is looked up in PATH */
#define VCP_SCX_BIN "scx_vcpack"

struct vcp_scx;

/*
 * @bin: the loader (a name is looked up in PATH, NULL: VCP_SCX_BIN);
 * @pindir: where it pins its maps (NULL: its default, /sys/fs/bpf/vcpack).
 */
int vcp_scx_new(const char *bin, const char *pindir, struct vcp_scx **ret);
void vcp_scx_free(struct vcp_scx *s);
const char *vcp_scx_bin(const struct vcp_scx *s);
/* what the last failed command said, "" if nothing */
const char *vcp_scx_last_error(const struct vcp_scx *s);

/* -EINVAL for a level other than 0, 1, 2 (nothing run). */
int vcp_scx_set_level(struct vcp_scx *s, int level);
int vcp_scx_get_level(struct vcp_scx *s, int *ret_level);

/*
 * The class of the cgroup directory @dir (absolute, with the root); the
 * loader keys it by the directory's inode number, its cgroup id.
 */
int vcp_scx_set_class(struct vcp_scx *s, const char *dir, enum vcp_class c);
/*
 * The class in effect for @dir as the scheduler resolves it: its own
 * entry, else that of its nearest ancestor below @top (the cgroup
 * mount, which the scheduler never looks up), else balanced.
 */
int vcp_scx_get_class(struct vcp_scx *s, const char *dir, const char *top,
		      enum vcp_class *ret);

/*
 * Start the loader at @level as a child (`BIN -l LEVEL [-d PINDIR]`,
 * stdout to /dev/null, stderr inherited); *ret_pid is its pid.
 */
int vcp_scx_start(struct vcp_scx *s, int level, pid_t *ret_pid);
/*
 * Has child @pid exited? 0 and *ret_exited false while it runs; else
 * *ret_exited true and *ret_status its wait status (reaped).
 */
int vcp_scx_reap(pid_t pid, bool *ret_exited, int *ret_status);
/*
 * Wait up to @timeout_ms for the loader @pid (0: not ours) to have
 * loaded the scheduler, as ROOT's sched_ext and pinned maps show it.
 * -ECHILD when @pid exited first (*ret_status its wait status),
 * -ETIMEDOUT.
 */
int vcp_scx_wait_loaded(struct vcp_scx *s, const char *root, pid_t pid,
			int timeout_ms, int *ret_status);
/*
 * SIGINT to @pid (the loader unloads the scheduler and exits), then wait
 * up to @timeout_ms; SIGKILL after that. *ret_status its wait status.
 */
int vcp_scx_stop(pid_t pid, int timeout_ms, int *ret_status);
/* The loader's wait status in words: "unloaded", "ejected by the kernel
 * (see dmesg)", "exited with status N", "killed by signal N". */
const char *vcp_scx_status_text(int status, char *buf, size_t len);

#endif
