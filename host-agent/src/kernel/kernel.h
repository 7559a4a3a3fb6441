/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel.h - the only module that writes to the kernel: the host level
 * (/sys/devices/system/cpu/sched_mc_power_savings: 0, 1, 2) and the class
 * of a cgroup (cpu.consolidate: spread, balanced, pack) of the vcpack
 * kernel patches, plus moving a process into a cpu cgroup and pointing a
 * device interrupt at CPUs (/proc/irq/N/smp_affinity_list).
 *
 * Every path is taken relative to a root ("/" in production, a fixture
 * tree in tests). Functions return 0 or -errno (a value the kernel
 * rejects comes back as its -EINVAL); ret_* outputs are untouched on
 * failure. Nothing here logs or prints. Cgroup paths are relative to the
 * cpu controller's mount point, start with '/' and never contain a ".."
 * component (-EINVAL otherwise).
 */
#ifndef VCP_KERNEL_H
#define VCP_KERNEL_H

#include <stdbool.h>

#include "model.h"

struct vcp_scx;

#define VCP_KERNEL_LEVEL_PATH "/sys/devices/system/cpu/sched_mc_power_savings"
#define VCP_KERNEL_CLASS_FILE "cpu.consolidate"

struct vcp_kernel {
	char *root;		/* "/" or a fixture dir */
	bool has_level;		/* sched_mc_power_savings exists */
	/*
	 * cpu.consolidate exists in the cpu cgroup root (or, where the root
	 * group has none, in the caller's own cpu cgroup or in a group right
	 * below the root)
	 */
	bool has_class;
	bool cgroup_v2;		/* cpu controller on the unified hierarchy */
	/*
	 * e.g. "/sys/fs/cgroup/cpu" (v1) or "/sys/fs/cgroup" (v2), from
	 * ROOT/proc/self/mountinfo; NULL when no hierarchy has the cpu
	 * controller
	 */
	char *cpu_mount;
	/* the cgroup that mount shows as its top (mountinfo field 4): "/" */
	char *cpu_mount_root;
	char *reason;		/* human text: why kernel or pin mode */
	/* human text: what kernel mode lacks here ("stock kernel: no ...,
	 * no ..."), the start of @reason; NULL with both knobs */
	char *missing;
	/*
	 * scx mode: the level and classes go to scx_vcpack through this
	 * driver (scx.h) instead of the patched kernel's files
	 */
	struct vcp_scx *scx;
};

/*
 * Detect; never fails for absent knobs (that is pin mode), only for
 * -EINVAL (empty root), -ENOMEM or an unreadable mountinfo.
 */
int vcp_kernel_open(const char *root, struct vcp_kernel **ret);
void vcp_kernel_free(struct vcp_kernel *k);
/*
 * From now on the level and classes of @k are scx_vcpack's (@s, which
 * @k owns and frees); the cgroup paths stay those of the cpu controller.
 */
void vcp_kernel_use_scx(struct vcp_kernel *k, struct vcp_scx *s);
/* VCP_MODE_KERNEL iff both knobs are there; NULL gives pin mode. */
enum vcp_mode vcp_kernel_mode(const struct vcp_kernel *k);

/* -EBADMSG when the file holds something other than 0, 1 or 2. */
int vcp_kernel_get_level(const struct vcp_kernel *k, int *ret_level);
/*
 * Writes only when different from the current value; -EINVAL for a level
 * other than 0, 1, 2 (nothing written).
 */
int vcp_kernel_set_level(const struct vcp_kernel *k, int level);

/*
 * The cpu-controller cgroup of @pid (0: the caller, ROOT/proc/self) from
 * ROOT/proc/PID/cgroup (v1: the line with "cpu" among its controllers;
 * v2: the "0::" line), relative to cpu_mount and to the mount's own root
 * (mountinfo field 4), e.g. "/user.slice". *ret_path is malloc()ed.
 * -ENODEV when no hierarchy has the cpu controller, -ENOENT when the
 * process is gone or has no such line.
 */
int vcp_kernel_task_cgroup(const struct vcp_kernel *k, int pid,
			   char **ret_path);
/*
 * The same, but the group that classes a whole libvirt guest: libvirt
 * keeps a guest's threads in per-thread children ("emulator", "vcpuN",
 * "iothreadN") of the guest's group ("NAME.libvirt-qemu",
 * "machine-*.scope" or its "libvirt" child on v2), and the QEMU process
 * itself sits in "emulator"; such a leaf is dropped, so
 * ".../qemu-1-web.libvirt-qemu/vcpu0" gives ".../qemu-1-web.libvirt-qemu".
 * Any other path is returned as vcp_kernel_task_cgroup() gives it.
 */
int vcp_kernel_cgroup_of_pid(const struct vcp_kernel *k, int pid,
			     char **ret_path);

/* -EBADMSG when the file holds an unknown class. */
int vcp_kernel_get_class(const struct vcp_kernel *k, const char *cgroup,
			 enum vcp_class *ret);
/* Writes only when different from the current value. */
int vcp_kernel_set_class(const struct vcp_kernel *k, const char *cgroup,
			 enum vcp_class c);

/*
 * mkdir the group @cgroup: 1 when made, 0 when it was there already (its
 * parent must exist). On a fixture tree (not a cgroup file system) a new
 * group gets what cgroupfs would give it: an empty cgroup.procs and the
 * parent's cpu.consolidate.
 */
int vcp_kernel_make_group(const struct vcp_kernel *k, const char *cgroup);
/* The directory of @cgroup (ROOT, cpu mount, @cgroup), malloc()ed. */
int vcp_kernel_group_dir(const struct vcp_kernel *k, const char *cgroup,
			 char **ret_dir);

/*
 * Move @pid (its whole thread group) into @cgroup by writing its
 * cgroup.procs, making the group first if @create, as
 * vcp_kernel_make_group() (an existing group is fine).
 */
int vcp_kernel_move_pid(const struct vcp_kernel *k, const char *cgroup,
			int pid, bool create);

/*
 * cgroup v2 only: enable the cpu controller for the children of @cgroup
 * ("+cpu" into its cgroup.subtree_control), so that they get
 * cpu.consolidate. The kernel refuses (-EBUSY) while @cgroup itself holds
 * processes. 0 without writing on v1.
 */
int vcp_kernel_enable_children(const struct vcp_kernel *k,
			       const char *cgroup);

/*
 * Undo vcp_kernel_enable_children(): "-cpu" into @cgroup's
 * cgroup.subtree_control. The kernel refuses (-EBUSY) while a child
 * enables cpu for its own children. 0 without writing on v1.
 */
int vcp_kernel_disable_children(const struct vcp_kernel *k, const char *cgroup);

/*
 * rmdir the (empty) group @cgroup: -EBUSY while in use, -EINVAL for the
 * root group. On a fixture tree as on cgroupfs: its files go with it,
 * but not while it has child groups (-EBUSY).
 */
int vcp_kernel_remove_group(const struct vcp_kernel *k, const char *cgroup);

/*
 * Point device interrupt @irq at @cpus: its cpulist into
 * ROOT/proc/irq/IRQ/smp_affinity_list, only when the file says
 * otherwise now. The kernel refuses a managed IRQ (one it spreads over
 * the CPUs itself) with -EIO; callers count those and leave them. On a
 * fixture tree (not procfs) a file "vcp-managed" in the IRQ's directory
 * stands for that refusal. -EINVAL for an empty set.
 */
int vcp_kernel_set_irq_affinity(const char *root, unsigned int irq,
				const struct vcp_cpuset *cpus);

#endif
