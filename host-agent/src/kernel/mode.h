/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mode.h - kernel mode, scx mode or pin mode, and why: decided at start
 * by the CLI and the daemon alike (and again by the daemon when
 * scx_vcpack goes away).
 *
 * The decision is a pure function of what was found
 * (vcp_mode_decide()): the patched kernel's knobs first, then sched_ext
 * with scx_vcpack, then pins.
 */
#ifndef VCP_MODE_H
#define VCP_MODE_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "scxstate.h"

struct vcp_virt;
struct vcp_kernel;

/* What the decision is made from; no I/O behind any of it. */
struct vcp_mode_facts {
	int force;		/* -1 detect, else an enum vcp_mode (--mode) */
	bool local;		/* this host's kernel is reachable (a local
				 * QEMU driver, or a --root tree) */
	bool test_driver;	/* libvirt's test driver */
	bool knobs;		/* sched_mc_power_savings and cpu.consolidate */
	bool cpu_cgroup;	/* a hierarchy has the cpu controller */
	const char *kernel_reason; /* kernel.c's words on the knobs */
	const char *kernel_missing; /* ... on what kernel mode lacks */
	const struct vcp_scx_info *scx;	/* NULL: not looked at */
	bool may_start;		/* the caller would start scx_vcpack */
	const char *scx_failed;	/* scx_vcpack failed or was ejected: why */
};

struct vcp_mode_choice {
	enum vcp_mode mode;
	bool start_scx;		/* scx mode, and scx_vcpack is to be started */
	/* --mode asked for a mode this host cannot run (kernel without the
	 * knobs, scx without sched_ext): @reason says why, @mode is what
	 * was found instead; callers refuse to go on */
	bool refused;
	char reason[512];
};

/* Patched kernel > scx_vcpack on sched_ext > pins, with the reason. */
void vcp_mode_decide(const struct vcp_mode_facts *f,
		     struct vcp_mode_choice *ret);

/* How to reach scx_vcpack (NULL members: the defaults of scx.h). */
struct vcp_scx_conf {
	const char *bin;
	const char *pindir;
};

/*
 * Gather the facts and decide. Kernel knobs and sched_ext are looked at
 * only for a local QEMU driver (qemu:///..., qemu+unix:///...) or when
 * @root names a tree (tests). *ret_k is the opened kernel or NULL; in
 * scx mode it carries a driver of scx_vcpack (@conf), so that classes
 * and the level written through kernel.h go there.
 */
int vcp_mode_detect_full(const struct vcp_virt *v, const char *root,
			 int force, const struct vcp_scx_conf *conf,
			 bool may_start, const char *scx_failed,
			 struct vcp_kernel **ret_k,
			 struct vcp_mode_choice *ret);

/*
 * The CLI's detection: never starts scx_vcpack (drives one that runs);
 * @reason (of @len bytes) says why in words; *@ret_refused as in struct
 * vcp_mode_choice.
 */
enum vcp_mode vcp_mode_detect(const struct vcp_virt *v, const char *root,
			      int force, struct vcp_kernel **ret_k,
			      char *reason, size_t len, bool *ret_refused);

/* "auto", "pin", "kernel", "scx" -> -1, VCP_MODE_*; else -2. */
int vcp_mode_parse(const char *s);

#endif
