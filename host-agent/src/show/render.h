/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * render.h - text and JSON renderings of the package map, the VM table,
 * actions and their outcomes. The JSON shapes are the CLI's stable
 * --json interface (documented in host-agent/man/vcpack.1.md).
 */
#ifndef VCP_RENDER_H
#define VCP_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "apply.h"
#include "diff.h"
#include "model.h"
#include "report.h"
#include "width.h"

void vcp_render_map_text(FILE *f, const struct vcp_host *host,
			 const struct vcp_vm *vms,
			 const struct vcp_pkg_map *map);
void vcp_render_vms_text(FILE *f, const struct vcp_host *host,
			 const struct vcp_vm *vms, size_t n_vms,
			 const struct vcp_policy *policy);
void vcp_render_actions_text(FILE *f, const struct vcp_vm *vms,
			     const struct vcp_actions *acts,
			     const struct vcp_apply_result *res);

/*
 * The same tables cut to fit vcp_width_cols() columns (width.h; @wide
 * false): a VM name longer than VCP_RENDER_NAME_W loses its middle to
 * "...", a package's VM names wrap under each other, a long cpulist in
 * the VM table is shortened likewise. @wide: names and cpulists whole (the
 * _text functions above are these with @wide true). The actions: the
 * vCPUs of a VM pinned from the same CPUs (with the same outcome) in one
 * line, "vcpus 0-7 FROM -> TO", or "-> TO0 | TO1 | ..." when each goes
 * elsewhere (_text: one line per vCPU).
 */
/* The fixed width (pipes, files); the width in force: vcp_width_cols() */
#define VCP_RENDER_COLS VCP_WIDTH_FIXED
#define VCP_RENDER_NAME_W 20
void vcp_render_map_fit(FILE *f, const struct vcp_host *host,
			const struct vcp_vm *vms, const struct vcp_pkg_map *map,
			bool wide);
void vcp_render_vms_fit(FILE *f, const struct vcp_host *host,
			const struct vcp_vm *vms, size_t n_vms,
			const struct vcp_policy *policy, bool wide);
void vcp_render_actions_fit(FILE *f, const struct vcp_vm *vms,
			    const struct vcp_actions *acts,
			    const struct vcp_apply_result *res, bool wide);
/*
 * Rows of a table that pin one vCPU each (plan's actions, verify's
 * differences), folded: @same(@ctx, i, j) says whether row j pins
 * another vCPU of row i's VM from the same CPUs (and ends alike), @vcpu
 * is row j's vCPU, @to where row j pins it (a cpulist, in @buf or not).
 */
struct vcp_vcpu_rows {
	const void *ctx;
	size_t n;
	bool (*same)(const void *ctx, size_t i, size_t j);
	unsigned int (*vcpu)(const void *ctx, size_t j);
	const char *(*to)(const void *ctx, size_t j, char *buf, size_t len);
};

/* Row @i with the rows right after it that go with it (@same): their
 * vCPUs as a cpulist in @ids ("0-7"); returns the last of them. */
size_t vcp_render_vcpu_run(const struct vcp_vcpu_rows *r, size_t i, char *ids,
			   size_t len);
/* Where rows @i..@last pin their vCPUs: one cpulist when it is the same
 * for all, else each one's in turn ("0,64 | 1,65"). */
void vcp_render_vcpu_to(FILE *f, const struct vcp_vcpu_rows *r, size_t i,
			size_t last);

/* The room for a table's last column (a cpulist) after @used columns
 * at vcp_width_cols(): the rest of the line, or when that is under
 * VCP_RENDER_REST_MIN a line of its own (the fold moves it there,
 * indented by 6); 0 (whole) with no limit. */
#define VCP_RENDER_REST_MIN 12
size_t vcp_render_rest(size_t used);

/* @s in at most @w bytes, its middle replaced by "..." when longer
 * (whole when @w < 5 or @len <= @w); returns @buf. */
const char *vcp_render_shorten(const char *s, size_t w, char *buf, size_t len);

/*
 * The names of one table as it shows them, in a column @w bytes wide: a
 * name whole when it fits (or with @wide), else cut in the middle as
 * vcp_render_shorten() cuts it ("batch-a-0...arehouse"). A table never
 * shows two different names alike: names whose cuts would read the same
 * keep the part where they differ instead, "batch-a-02-...ehouse" (near
 * the start) or "bat...nner-17-...use" (further in); names that would
 * still read alike end in "~N" (the Nth such in the table). The names
 * added before the first vcp_render_cut() are told apart from each
 * other; a name first met by vcp_render_cut() from those shown before.
 */
struct vcp_names {
	size_t w;
	bool wide;
	size_t n, cap;
	size_t k; /* the last "~N" given */
	struct vcp_name *e;
};

void vcp_names_init(struct vcp_names *t, size_t w, bool wide);
void vcp_names_add(struct vcp_names *t, const char *name);
/* @name as @t shows it (whole when out of memory); lives as long as @t. */
const char *vcp_render_cut(struct vcp_names *t, const char *name);
void vcp_names_clear(struct vcp_names *t);

struct json_object *vcp_render_map_json(const struct vcp_host *host,
					const struct vcp_vm *vms,
					const struct vcp_pkg_map *map);
struct json_object *vcp_render_vms_json(const struct vcp_host *host,
					const struct vcp_vm *vms,
					size_t n_vms,
					const struct vcp_policy *policy);
struct json_object *vcp_render_actions_json(const struct vcp_vm *vms,
					    const struct vcp_actions *acts,
					    const struct vcp_apply_result *res);
/* A cpulist string as a JSON string. */
struct json_object *vcp_render_cpuset_json(const struct vcp_cpuset *s);

/*
 * Where memory cannot follow the plan (vcp_mem_follow() says CANNOT):
 * "  memory stays: 'VM' (planned node N): REASON" per VM that has a
 * <numatune><memory> (wrapped within vcp_width_cols() unless @wide), then
 * one line counting the VMs that have none (on a multi-node host where
 * no VM has one, that is every gathered VM: one line, not one each);
 * nothing where all memory follows or stays by plan. The JSON form is
 * an array of {"vm", "node", "memory": stays|there|moves|cannot,
 * "reason"} for every VM with a planned node.
 */
void vcp_render_memory_text(FILE *f, const struct vcp_vm *vms,
			    const struct vcp_plan *plan, bool wide);
struct json_object *vcp_render_memory_json(const struct vcp_vm *vms,
					   const struct vcp_plan *plan);

#endif
