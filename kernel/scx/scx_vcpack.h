/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_vcpack.h - what the BPF scheduler (scx_vcpack.bpf.c) and its loader
 * (scx_vcpack.c) share: limits, class values and the control map's value.
 */
#ifndef __SCX_VCPACK_H
#define __SCX_VCPACK_H

#define VCP_MAX_CPUS	512
#define VCP_MAX_PKGS	64

/* values of the classes map (cgroup id -> class) */
enum vcp_class { VCP_SPREAD = 0, VCP_BALANCED = 1, VCP_PACK = 2 };

/* ctl[0], pinned as PINDIR/ctl */
struct vcp_ctl {
	__u32 level;	/* 0, 1 or 2 */
	__u32 gen;	/* bumped after every change of the classes map */
};

/* how the scheduler ended: kind 0 while it runs (scx_exit_kind else) */
struct vcp_exit {
	__s32 kind;
	__s64 exit_code;
};

#endif /* __SCX_VCPACK_H */
