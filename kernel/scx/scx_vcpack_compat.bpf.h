/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_vcpack_compat.bpf.h - the sched_ext interface scx_vcpack.bpf.c uses,
 * resolved when the object is loaded, so that one object runs on every
 * kernel with sched_ext from 6.12 on, whatever kernel's BTF it was built
 * against.
 *
 * kfuncs that were renamed or changed their arguments are declared once
 * per variant as weak ksyms; the wrappers below call the newest the
 * running kernel has (bpf_ksym_exists(): an absent weak ksym reads 0, and
 * the verifier drops the branches that call it). libbpf resolves a ksym
 * by its name up to the last "___", so "scx_bpf_dispatch___vcp" binds to
 * the kernel's scx_bpf_dispatch; the suffix keeps these declarations from
 * clashing with the strong ones of the headers the object builds with
 * (the kernel tree's tools/sched_ext or sched-ext/scx's).
 *
 *   inserting into a DSQ   6.12 scx_bpf_dispatch
 *                          6.13 scx_bpf_dsq_insert (6.17 drops the old name)
 *                          6.19 scx_bpf_dsq_insert___v2 (returns bool)
 *   ... with a vtime       6.12 scx_bpf_dispatch_vtime
 *                          6.13 scx_bpf_dsq_insert_vtime
 *                          6.19 __scx_bpf_dsq_insert_vtime (an args struct)
 *   consuming a DSQ        6.12 scx_bpf_consume
 *                          6.13 scx_bpf_dsq_move_to_local
 *                          7.1  scx_bpf_dsq_move_to_local___v2 (enq_flags)
 *   a task's vtime         6.12 written to p->scx.dsq_vtime
 *                          6.19 scx_bpf_task_set_dsq_vtime
 *
 * Enum values are CO-RE relocations (bpf_core_enum_value()): the running
 * kernel's values, not those of the BTF the object was built against.
 * The ops flags are a struct_ops field, which a relocation cannot reach:
 * the loader reads SCX_OPS_ENQ_LAST from the running kernel's BTF.
 */
#ifndef __SCX_VCPACK_COMPAT_BPF_H
#define __SCX_VCPACK_COMPAT_BPF_H

#define VCP_DSQ_LOCAL \
	bpf_core_enum_value(enum scx_dsq_id_flags, SCX_DSQ_LOCAL)
#define VCP_DSQ_LOCAL_ON \
	bpf_core_enum_value(enum scx_dsq_id_flags, SCX_DSQ_LOCAL_ON)
#define VCP_SLICE_DFL \
	bpf_core_enum_value(enum scx_public_consts, SCX_SLICE_DFL)
#define VCP_KICK_IDLE \
	bpf_core_enum_value(enum scx_kick_flags, SCX_KICK_IDLE)
#define VCP_ENQ_LAST \
	bpf_core_enum_value(enum scx_enq_flags, SCX_ENQ_LAST)
#define VCP_WAKE_FORK \
	bpf_core_enum_value(enum scx_wake_flags, SCX_WAKE_FORK)

/* the layout of 6.19's struct scx_bpf_dsq_insert_vtime_args */
struct vcp_insert_vtime_args {
	u64 dsq_id;
	u64 slice;
	u64 vtime;
	u64 enq_flags;
};

bool scx_bpf_dsq_insert___v2___vcp(struct task_struct *p, u64 dsq_id,
				   u64 slice, u64 enq_flags) __ksym __weak;
void scx_bpf_dsq_insert___vcp(struct task_struct *p, u64 dsq_id, u64 slice,
			      u64 enq_flags) __ksym __weak;
void scx_bpf_dispatch___vcp(struct task_struct *p, u64 dsq_id, u64 slice,
			    u64 enq_flags) __ksym __weak;

bool __scx_bpf_dsq_insert_vtime___vcp(struct task_struct *p,
				      struct vcp_insert_vtime_args *args)
	__ksym __weak;
void scx_bpf_dsq_insert_vtime___vcp(struct task_struct *p, u64 dsq_id,
				    u64 slice, u64 vtime, u64 enq_flags)
	__ksym __weak;
void scx_bpf_dispatch_vtime___vcp(struct task_struct *p, u64 dsq_id,
				  u64 slice, u64 vtime, u64 enq_flags)
	__ksym __weak;

bool scx_bpf_dsq_move_to_local___v2___vcp(u64 dsq_id, u64 enq_flags)
	__ksym __weak;
bool scx_bpf_dsq_move_to_local___vcp(u64 dsq_id) __ksym __weak;
bool scx_bpf_consume___vcp(u64 dsq_id) __ksym __weak;

bool scx_bpf_task_set_dsq_vtime___vcp(struct task_struct *p, u64 vtime)
	__ksym __weak;

/* @p into DSQ @dsq_id (FIFO) */
static __always_inline void vcp_dsq_insert(struct task_struct *p, u64 dsq_id,
					   u64 slice, u64 enq_flags)
{
	if (bpf_ksym_exists(scx_bpf_dsq_insert___v2___vcp))
		scx_bpf_dsq_insert___v2___vcp(p, dsq_id, slice, enq_flags);
	else if (bpf_ksym_exists(scx_bpf_dsq_insert___vcp))
		scx_bpf_dsq_insert___vcp(p, dsq_id, slice, enq_flags);
	else
		scx_bpf_dispatch___vcp(p, dsq_id, slice, enq_flags);
}

/* @p into DSQ @dsq_id ordered by @vtime */
static __always_inline void vcp_dsq_insert_vtime(struct task_struct *p,
						 u64 dsq_id, u64 slice,
						 u64 vtime, u64 enq_flags)
{
	struct vcp_insert_vtime_args args = {
		.dsq_id = dsq_id,
		.slice = slice,
		.vtime = vtime,
		.enq_flags = enq_flags,
	};

	if (bpf_ksym_exists(__scx_bpf_dsq_insert_vtime___vcp))
		__scx_bpf_dsq_insert_vtime___vcp(p, &args);
	else if (bpf_ksym_exists(scx_bpf_dsq_insert_vtime___vcp))
		scx_bpf_dsq_insert_vtime___vcp(p, dsq_id, slice, vtime,
					       enq_flags);
	else
		scx_bpf_dispatch_vtime___vcp(p, dsq_id, slice, vtime,
					     enq_flags);
}

/* the first task of DSQ @dsq_id to this CPU's local DSQ; false if none */
static __always_inline bool vcp_dsq_move_to_local(u64 dsq_id)
{
	if (bpf_ksym_exists(scx_bpf_dsq_move_to_local___v2___vcp))
		return scx_bpf_dsq_move_to_local___v2___vcp(dsq_id, 0);
	if (bpf_ksym_exists(scx_bpf_dsq_move_to_local___vcp))
		return scx_bpf_dsq_move_to_local___vcp(dsq_id);
	return scx_bpf_consume___vcp(dsq_id);
}

static __always_inline void vcp_set_dsq_vtime(struct task_struct *p, u64 vtime)
{
	if (bpf_ksym_exists(scx_bpf_task_set_dsq_vtime___vcp))
		scx_bpf_task_set_dsq_vtime___vcp(p, vtime);
	else
		p->scx.dsq_vtime = vtime;
}

#endif /* __SCX_VCPACK_COMPAT_BPF_H */
