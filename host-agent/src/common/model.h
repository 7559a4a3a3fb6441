/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model.h - the in-memory model every module shares: host topology,
 * VMs with their tags and measurements, the policy, and the plan.
 *
 * Observers (topology.c, tags.c, policy.c, virt.c) fill these; the pure
 * planner (planner.c) turns host + VMs + policy into a plan; apply.c carries
 * out the difference between a plan and what is there. Nothing here does
 * I/O. Arrays are owned by the struct that points at them and freed by the
 * matching *_free() function; all destructors accept NULL.
 */
#ifndef VCP_MODEL_H
#define VCP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuset.h"

/* ---- classes and priorities (the words a VM owner writes) ---- */

enum vcp_class {
	VCP_CLASS_SPREAD = 0,	/* latency-critical: never gathered */
	VCP_CLASS_BALANCED,	/* default: gathered at level 2 only */
	VCP_CLASS_PACK,		/* gathered at levels 1 and 2 */
	VCP_CLASS__COUNT,
};

enum vcp_priority {
	VCP_PRIO_HIGH = 0,
	VCP_PRIO_NORMAL,
	VCP_PRIO_LOW,
	VCP_PRIO__COUNT,
};

/* "spread" etc.; NULL for out-of-range values. */
const char *vcp_class_name(enum vcp_class c);
const char *vcp_priority_name(enum vcp_priority p);
/* Exact, case-sensitive match. 0 or -EINVAL; @ret untouched on failure. */
int vcp_class_from_name(const char *s, enum vcp_class *ret);
int vcp_priority_from_name(const char *s, enum vcp_priority *ret);

/* ---- host topology ---- */

struct vcp_cpu {
	unsigned int id;	/* logical CPU number */
	int package;		/* physical_package_id / socket_id */
	int die;		/* die_id, 0 where unknown */
	int core;		/* core_id, unique within (package, die) */
	int node;		/* NUMA node, 0 where unknown */
};

struct vcp_package {
	int id;			/* physical package id */
	int node;		/* NUMA node of its first CPU */
	struct vcp_cpuset cpus;	/* online CPUs of this package */
	unsigned int n_cpus;	/* online hardware threads */
	unsigned int n_cores;	/* distinct (die, core) pairs online */
};

enum vcp_mode {
	VCP_MODE_PIN = 0,	/* stock kernel: vcpupin alone carries the plan */
	VCP_MODE_KERNEL,	/* patched kernel: classes + level carry it */
	VCP_MODE_SCX,		/* sched_ext: scx_vcpack carries classes + level */
};

/* "pin", "kernel", "scx" */
const char *vcp_mode_name(enum vcp_mode m);
/*
 * The mode the planner plans for: scx mode plans as kernel mode (classes
 * and the level carry the plan, only spread VMs are pinned); only where
 * they are written differs (kernel.c hands them to scx.c).
 */
enum vcp_mode vcp_mode_plan(enum vcp_mode m);

struct vcp_host {
	/* Online CPUs only, sorted by id. Offline CPUs are not listed. */
	struct vcp_cpu *cpus;
	size_t n_cpus;
	/* Packages with at least one online CPU, sorted by id. */
	struct vcp_package *packages;
	size_t n_packages;
	size_t n_nodes;
	unsigned int threads_per_core;	/* max over cores; 1 = no SMT */
	struct vcp_cpuset online;
	/* The highest CPU number the host has (online or not) plus one:
	 * the length libvirt's cpumaps need. */
	unsigned int max_cpus;
	enum vcp_mode mode;
};

void vcp_host_free(struct vcp_host *h);
/*
 * Fill packages, n_nodes, threads_per_core and online from cpus[]
 * (sorts cpus[] by id). Used by every topology loader.
 * 0, -EINVAL (duplicate CPU id, id >= VCP_MAX_CPUS) or -ENOMEM.
 */
int vcp_host_finish(struct vcp_host *h);
/* Index into h->packages of the package of @cpu, or -1. */
int vcp_host_package_of(const struct vcp_host *h, unsigned int cpu);

/* ---- VMs ---- */

/* The mode of a domain's <numatune><memory>. libvirt's QEMU driver
 * changes a running domain's nodeset only in strict and restrictive mode
 * (there cpuset.mems of its cgroup carries it); the mode itself never
 * changes while it runs. */
enum vcp_mem_mode {
	VCP_MEM_NONE = 0, /* no <numatune><memory>: nothing to change */
	VCP_MEM_STRICT,
	VCP_MEM_RESTRICTIVE,
	VCP_MEM_PREFERRED,
	VCP_MEM_INTERLEAVE,
};

/* "none", "strict", ...; NULL for out-of-range values. */
const char *vcp_mem_mode_name(enum vcp_mem_mode m);

struct vcp_tag {
	bool has_priority;
	enum vcp_priority priority;
	bool has_class;
	enum vcp_class class;
	/* class="unmanaged": the owner's opt-out, vcpack never changes it
	 * (has_class is then false: no kernel class) */
	bool unmanaged;
};

struct vcp_vm {
	char *name;
	char uuid[37];
	unsigned int n_vcpus;
	/* Parsed tag; without one the VM is balanced. */
	bool has_tag;
	struct vcp_tag tag;
	/*
	 * false: leave the VM exactly as it is (bad tag, or the operator
	 * said so). The planner keeps its current pins and counts its
	 * demand where it runs.
	 */
	bool managed;
	/* Why not managed, when it is not for a bad tag (those are the
	 * world's issues): a static sentence, or NULL. */
	const char *unmanaged_why;
	/* Measured demand per vCPU, in CPUs (0.0-1.0); < 0 = unknown. */
	double *demand;
	/* Fraction of the time its vCPUs waited for a host CPU (mean of
	 * vcpu.N.delay over the sample; what the guest sees as steal);
	 * < 0 = unknown. */
	double delay;
	/* Current pinning per vCPU and of the emulator threads. */
	struct vcp_cpuset *vcpu_pins;
	struct vcp_cpuset emulator_pins;
	int mem_node;		/* NUMA node of its memory, -1 unknown */
	unsigned long long mem_kib;	/* guest memory, 0 unknown */
	bool running;
	bool persistent;
	/* Observed, for apply's diff (zero = unknown). */
	int pid;		/* QEMU process id, 0 unknown */
	bool has_cur_class;	/* cpu.consolidate read from its cgroup */
	enum vcp_class cur_class;
	bool has_saved; /* original pins already recorded */
	/* The recorded original pins (n_vcpus, malloc'd) and emulator
	 * pins, when the record was read and is for this many vCPUs; NULL
	 * otherwise. What level 0 puts back. */
	struct vcp_cpuset *orig_pins;
	struct vcp_cpuset orig_emulator;
	bool has_orig_emulator;
	/* What its host's vcpackd last recorded here (urn:vcpack:host:1). */
	bool has_host_rec;
	enum vcp_mode host_rec_mode;
	int host_rec_level;
	long long host_rec_at;
	/* Its domain XML asks libvirt for NUMA placement: <vcpu
	 * placement='auto'>, <numatune>. */
	bool placement_auto;
	bool numatune;
	/* Its <numatune><memory> as running: mode, nodeset (nodes as a
	 * cpuset of node ids; empty where none is given) and whether
	 * placement='auto' (numad chooses the nodeset). */
	enum vcp_mem_mode mem_mode;
	struct vcp_cpuset mem_nodes;
	bool mem_auto;
	bool has_saved_mem; /* its record holds the original nodeset */
	/* libvirt refused to move its memory while it runs (vcpackd's
	 * memo, pinmemo.h): not asked again until it restarts or its tag
	 * changes. */
	bool mem_refused;
};

void vcp_vm_clear(struct vcp_vm *vm);
/* Frees every VM's members and the array. */
void vcp_vms_free(struct vcp_vm *vms, size_t n);
/* Allocate demand[] (all -1) and vcpu_pins[] (all empty). 0 or -ENOMEM. */
int vcp_vm_alloc_vcpus(struct vcp_vm *vm, unsigned int n_vcpus);

/* ---- policy ---- */

#define VCP_LEVEL_AUTO (-1)

/* A schedule window: on @days (bit 0 = Sunday ... bit 6 = Saturday),
 * from minute @start to minute @end of the day (end exclusive; end < start
 * wraps past midnight), the level is @level. */
struct vcp_window {
	uint8_t days;
	uint16_t start;
	uint16_t end;
	int level;		/* 0, 1, 2 or VCP_LEVEL_AUTO */
};

struct vcp_policy {
	enum vcp_class prio_class[VCP_PRIO__COUNT];
	int level;		/* 0, 1, 2 or VCP_LEVEL_AUTO */
	struct vcp_window *windows;
	size_t n_windows;
	/* Fraction of each active package's capacity kept free (0-0.9). */
	double headroom;
	/* Demand assumed for a vCPU whose use was never measured. */
	double default_vcpu_demand;
	/* A spread VM is "busy" (auto picks level 1) above this per-vCPU
	 * mean demand. */
	double busy_vcpu_demand;
	/* What the second and further SMT threads of a core add, as a
	 * fraction of a core (0-1). */
	double smt_yield;
	unsigned int sample_interval_s;
	unsigned int shrink_after_s;	/* hysteresis: shrink only after */
	/* The hook refuses to start a VM with a bad tag (only while vcpack
	 * is enabled). Off by default: the VM starts untouched. */
	bool strict_tags;
	/* vcpackd changes VMs only when enabled: by `vcpack enable` (its
	 * state file, which wins) or this key. Off by default: a new
	 * install observes, plans and reports, and changes nothing. */
	bool enabled;
	/* Spread VMs get exclusive cores at level 0 too (the other VMs
	 * re-pinned off them): the operator's choice of isolation over
	 * hands off. Levels 1 and 2 always give them (packing must keep
	 * off a spread VM's cores). Off by default. */
	bool exclusive_cores;
	/* The cost bound: a VM whose vCPUs wait for a host CPU more than
	 * this fraction of the time is given room at once (0: never). */
	double max_vcpu_delay;
	/* Someone else re-pinned a VM: leave it so (true) or restate the
	 * plan (false, the default). Said once either way. */
	bool respect_foreign_pins;
	/* CPUs kept for the host (IRQs, libvirtd, vcpackd): no VM is
	 * pinned there and no exclusive core comes from there. Empty:
	 * none. */
	struct vcp_cpuset reserved_cpus;
	/* Keep device IRQs off the packages the plan idles (by writing
	 * /proc/irq/N/smp_affinity_list, or by telling what irqbalance
	 * should ban where it runs). Off by default. */
	bool irq_affinity;
	/* `auto` packs only after `vcpack trial` recorded "saves" (its
	 * state file); level 0 until then. Off by default. */
	bool require_trial;
	/* Memory follows a VM packed onto another node's package (its
	 * numatune nodeset, where libvirt can change it live). On by
	 * default; off: every plan's mem_node is -1. */
	bool memory_follows;
};

void vcp_policy_defaults(struct vcp_policy *p);
void vcp_policy_clear(struct vcp_policy *p);

/* ---- plan ---- */

enum vcp_vm_placement {
	VCP_PLACE_GATHERED = 0,	/* pinned to its package(s) */
	VCP_PLACE_EXCLUSIVE,	/* spread VM on exclusive cores */
	VCP_PLACE_FREE,		/* not gathered: any non-exclusive CPU */
	VCP_PLACE_UNMANAGED,	/* left exactly as it was */
};

struct vcp_vm_plan {
	const char *name;	/* borrowed from the input VM */
	enum vcp_class class;
	enum vcp_vm_placement placement;
	/* Index into host->packages of the package it lives on, or -1 when
	 * it spans packages or is free. */
	int package;
	struct vcp_cpuset *vcpu_pins;	/* n_vcpus entries */
	unsigned int n_vcpus;
	struct vcp_cpuset emulator_pins;
	/* Node to move memory to, -1 = leave: the node of its package
	 * when the host has several nodes and the VM is placed inside one
	 * package (gathered or exclusive); whether it can follow is
	 * vcp_mem_follow() (diff.h). */
	int mem_node;
	double demand;		/* demand the planner used, in CPUs */
	/* Why the VM did not get what its class asks, or NULL. Static
	 * string. */
	const char *degraded;
	/* Level 0 (hands off): put it back as `vcpack restore` would (it
	 * has a record of its original pins); then left alone. Its pins
	 * are the recorded ones where the VM carries them (orig_pins). */
	bool restore;
};

struct vcp_plan {
	enum vcp_mode mode;
	int level;		/* resolved: 0, 1 or 2 */
	/* Level 0 and every VM left as it is (or put back): nothing of
	 * vcpack's to hold on the host. */
	bool hands_off;
	/* Why this level (a static string): the policy's level as given,
	 * or what `auto` saw. Not in the plan's JSON (golden files). */
	const char *level_reason;
	size_t n_packages;
	bool *pkg_active;	/* per host->packages index */
	double *pkg_demand;	/* planned demand per package, in CPUs */
	double *pkg_capacity;	/* usable capacity per package, in CPUs */
	size_t n_active;
	struct vcp_vm_plan *vms;	/* same order as the input VMs */
	size_t n_vms;
	double demand;		/* total demand, in CPUs */
	double capacity;	/* total capacity, in CPUs */
	/* Demand the host cannot carry within headroom (0 if none). */
	double overcommit;
	/* policy->reserved_cpus that are online, and the packages they
	 * cover whole: those are for the host, never active for VMs (not
	 * counted in n_active, nor offered to VMs). */
	struct vcp_cpuset reserved;
	size_t n_reserved_pkgs;
};

void vcp_plan_free(struct vcp_plan *p);

#endif
