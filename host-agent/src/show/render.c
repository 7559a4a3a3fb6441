// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * render.c - human tables and machine JSON for what vcpack observes and
 * does. Text is for people (aligned columns, one line per thing); JSON
 * keys never change meaning once released.
 */
#include "render.h"

#include <stdlib.h>
#include <string.h>

#include "demand.h"
#include "fold.h"
#include "diff.h"
#include "planner.h"
#include "policy.h"

static const char *fmt_set(const struct vcp_cpuset *s, char *buf, size_t len)
{
	if (vcp_cpuset_format(s, buf, len) < 0)
		snprintf(buf, len, "(%u cpus)", vcp_cpuset_count(s));
	return buf[0] ? buf : "-";
}

const char *vcp_render_shorten(const char *s, size_t w, char *buf, size_t len)
{
	size_t n = strlen(s), head, tail;

	if (n <= w || w < 5 || len <= w) {
		snprintf(buf, len, "%s", s);
		return buf;
	}
	head = (w - 3 + 1) / 2;
	tail = n - (w - 3 - head);
	/* never cut a UTF-8 character in two */
	while (head > 0 && ((unsigned char)s[head] & 0xc0) == 0x80)
		head--;
	while (tail < n && ((unsigned char)s[tail] & 0xc0) == 0x80)
		tail++;
	snprintf(buf, len, "%.*s...%s", (int)head, s, s + tail);
	return buf;
}

size_t vcp_render_rest(size_t used)
{
	size_t cols = vcp_width_cols();

	if (!cols)
		return 0;
	if (cols >= used + VCP_RENDER_REST_MIN)
		return cols - used;
	return cols > 6 ? cols - 6 : 0;
}

/* A byte of a UTF-8 character after its first */
static bool utf8_more(const char *s, size_t i)
{
	return ((unsigned char)s[i] & 0xc0) == 0x80;
}

/* @s's bytes [0, @h), [@a, @b) and [@c, end) with "..." between (no
 * middle piece when @a == @b), each piece's ends moved inwards to whole
 * UTF-8 characters. */
static void put_pieces(const char *s, size_t h, size_t a, size_t b, size_t c,
		       char *buf, size_t len)
{
	while (h > 0 && utf8_more(s, h))
		h--;
	while (s[a] && a < b && utf8_more(s, a))
		a++;
	while (b > a && utf8_more(s, b))
		b--;
	while (s[c] && utf8_more(s, c))
		c++;
	if (a == b)
		snprintf(buf, len, "%.*s...%s", (int)h, s, s + c);
	else
		snprintf(buf, len, "%.*s...%.*s...%s", (int)h, s, (int)(b - a),
			 s + a, s + c);
}

/* @s in @w bytes, cut so that byte @d (where it differs from a name that
 * cuts alike) shows with the bytes around it (a number's other digits):
 * in a longer head or tail where that leaves 4 bytes to the other end,
 * else in a window between two cuts. */
static void cut_at(const char *s, size_t w, size_t d, char *buf, size_t len)
{
	size_t n = strlen(s), h = (w - 2) / 2, t, win;

	if (n <= w || w < 14 || d >= n) {
		vcp_render_shorten(s, w, buf, len);
	} else if (d + 2 + 3 + 4 <= w) { /* a longer head */
		h = d + 2 > h ? d + 2 : h;
		put_pieces(s, h, 0, 0, n - (w - 3 - h), buf, len);
	} else if (n - d + 2 + 3 + 4 <= w) { /* a longer tail */
		t = n - d + 2;
		put_pieces(s, w - 3 - t, 0, 0, n - t, buf, len);
	} else {
		h = t = (w - 6) / 4;
		win = w - 6 - h - t;
		put_pieces(s, h, d - (win - 2), d + 2, n - t, buf, len);
	}
}

struct vcp_name {
	char *name;
	char *cut; /* as vcp_render_shorten() cuts it */
	char *shown; /* NULL: not yet shown */
};

void vcp_names_init(struct vcp_names *t, size_t w, bool wide)
{
	*t = (struct vcp_names){ .w = w, .wide = wide };
}

static struct vcp_name *name_entry(struct vcp_names *t, const char *name)
{
	struct vcp_name *e;

	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].name, name))
			return &t->e[i];
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;

		e = realloc(t->e, cap * sizeof(*e));
		if (!e)
			return NULL;
		t->e = e;
		t->cap = cap;
	}
	e = &t->e[t->n];
	*e = (struct vcp_name){ strdup(name), malloc(t->w + 1), NULL };
	if (!e->name || !e->cut) {
		free(e->name);
		free(e->cut);
		return NULL;
	}
	vcp_render_shorten(name, t->w, e->cut, t->w + 1);
	t->n++;
	return e;
}

void vcp_names_add(struct vcp_names *t, const char *name)
{
	if (!t->wide)
		name_entry(t, name);
}

static bool shown_by_other(const struct vcp_names *t, const struct vcp_name *e,
			   const char *s)
{
	for (size_t i = 0; i < t->n; i++)
		if (&t->e[i] != e && t->e[i].shown && !strcmp(t->e[i].shown, s))
			return true;
	return false;
}

/* How @e shows: its cut; where other names cut alike, cut where it
 * differs from the nearest of them; "~N" at its end where that is shown
 * already. */
static void name_show(struct vcp_names *t, struct vcp_name *e)
{
	size_t len = t->w + 32, d = 0;
	char *buf = malloc(len), sfx[24];
	const char *s = e->cut;

	for (size_t i = 0; buf && i < t->n; i++) {
		const char *o = t->e[i].name;
		size_t k = 0;

		if (&t->e[i] == e || strcmp(t->e[i].cut, e->cut))
			continue;
		while (o[k] && o[k] == e->name[k])
			k++;
		d = k > d ? k : d;
		s = buf;
	}
	if (s == buf)
		cut_at(e->name, t->w, d, buf, len);
	while (buf && shown_by_other(t, e, s)) {
		size_t sl = (size_t)snprintf(sfx, sizeof(sfx), "~%zu", ++t->k);

		vcp_render_shorten(e->name, t->w > sl ? t->w - sl : 0, buf,
				   len - sizeof(sfx));
		strcat(buf, sfx);
		s = buf;
	}
	e->shown = strdup(s);
	free(buf);
}

const char *vcp_render_cut(struct vcp_names *t, const char *name)
{
	struct vcp_name *e = t->wide ? NULL : name_entry(t, name);

	if (!e)
		return name;
	for (size_t i = 0; !e->shown && i < t->n; i++)
		if (!t->e[i].shown)
			name_show(t, &t->e[i]);
	return e->shown ? e->shown : name;
}

void vcp_names_clear(struct vcp_names *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->e[i].name);
		free(t->e[i].cut);
		free(t->e[i].shown);
	}
	free(t->e);
	vcp_names_init(t, t->w, t->wide);
}

/* Union of a VM's vCPU pins. */
static void vm_pins(const struct vcp_vm *vm, struct vcp_cpuset *ret)
{
	vcp_cpuset_zero(ret);
	for (unsigned int i = 0; i < vm->n_vcpus; i++)
		vcp_cpuset_or(ret, &vm->vcpu_pins[i]);
}

static double vm_demand(const struct vcp_vm *vm, bool *known)
{
	bool assumed;
	double d = vcp_vm_demand(vm, NULL, &assumed);

	*known = vm->n_vcpus > 0 && !assumed;
	return d;
}

/* The names of @v's VMs from column @col on (as @nm shows them), wrapped
 * under each other within vcp_width_cols() (@nm wide: on one line), then
 * @tail. */
static void map_names(FILE *f, const struct vcp_vm *vms,
		      const struct vcp_pkg_view *v, size_t col,
		      const char *tail, struct vcp_names *nm)
{
	const size_t indent = col, cols = vcp_width_cols();
	const bool wide = nm->wide || !cols;

	if (!v->n_vms) {
		fputs("(no VMs)", f);
		col += 8;
	}
	for (size_t i = 0; i < v->n_vms; i++) {
		const char *name = vcp_render_cut(nm, vms[v->vms[i]].name);
		size_t n = strlen(name) + (i + 1 < v->n_vms);

		if (i && !wide && col + 1 + n > cols) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (i) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%s%s", name, i + 1 < v->n_vms ? "," : "");
		col += n;
	}
	if (!wide && *tail && col + strlen(tail) > cols)
		fprintf(f, "\n%*s", (int)indent - 2, "");
	fprintf(f, "%s\n", tail);
}

void vcp_render_map_fit(FILE *f, const struct vcp_host *host,
			const struct vcp_vm *vms, const struct vcp_pkg_map *map,
			bool wide)
{
	struct vcp_names nm;
	char buf[256];

	vcp_names_init(&nm, VCP_RENDER_NAME_W, wide);
	for (size_t p = 0; p < map->n; p++)
		for (size_t i = 0; i < map->p[p].n_vms; i++)
			vcp_names_add(&nm, vms[map->p[p].vms[i]].name);
	for (size_t p = 0; p < map->n; p++) {
		const struct vcp_pkg_view *v = &map->p[p];
		int col = fprintf(
			f, "  package %-3d cpus %-12s %-6s %3u vCPUs  ", v->id,
			fmt_set(&host->packages[p].cpus, buf, sizeof(buf)),
			v->awake ? "awake" : "idle", v->n_vcpus);

		map_names(f, vms, v, col > 0 ? (size_t)col : 0,
			  v->reserved ? "  (reserved for the host)" :
			  v->by_free  ? "  (not gathered at this level)" :
			  v->awake    ? "" :
					"  -> can sleep",
			  &nm);
	}
	fprintf(f, "  %zu of %zu packages awake\n", map->n_awake, map->n);
	vcp_names_clear(&nm);
}

void vcp_render_map_text(FILE *f, const struct vcp_host *host,
			 const struct vcp_vm *vms,
			 const struct vcp_pkg_map *map)
{
	vcp_render_map_fit(f, host, vms, map, true);
}

static const char *vm_class_label(const struct vcp_vm *vm,
				  const struct vcp_policy *policy)
{
	if (!vm->managed)
		return "untouched";
	return vcp_class_name(vcp_plan_vm_class(vm, policy));
}

/* The widest name of @vms (at least that of the heading "VM"). */
static int names_width(const struct vcp_vm *vms, size_t n_vms)
{
	size_t w = VCP_RENDER_NAME_W;

	for (size_t i = 0; i < n_vms; i++)
		if (strlen(vms[i].name) > w)
			w = strlen(vms[i].name);
	return (int)w;
}

void vcp_render_vms_fit(FILE *f, const struct vcp_host *host,
			const struct vcp_vm *vms, size_t n_vms,
			const struct vcp_policy *policy, bool wide)
{
	int nw = wide ? names_width(vms, n_vms) : VCP_RENDER_NAME_W;
	char buf[256], pb[256];
	struct vcp_names nm;

	vcp_names_init(&nm, VCP_RENDER_NAME_W, wide);
	for (size_t i = 0; i < n_vms; i++)
		vcp_names_add(&nm, vms[i].name);

	fprintf(f, "  %-*s %-10s %-7s %5s %-8s %-6s %s\n", nw, "VM", "CLASS",
		"TAG", "VCPUS", "DEMAND", "DELAY", "PINNED TO");
	for (size_t i = 0; i < n_vms; i++) {
		const struct vcp_vm *vm = &vms[i];
		struct vcp_cpuset all;
		char dem[16], del[16];
		bool known;
		double d = vm_demand(vm, &known);
		const char *pins;

		vm_pins(vm, &all);
		if (known)
			snprintf(dem, sizeof(dem), "%.2f", d);
		else
			snprintf(dem, sizeof(dem), "?");
		if (vm->delay >= 0)
			snprintf(del, sizeof(del), "%.0f%%", 100 * vm->delay);
		else
			snprintf(del, sizeof(del), "?");
		/* 64 columns before PINNED TO */
		pins = fmt_set(&all, buf, sizeof(buf));
		if (!wide)
			pins = vcp_render_shorten(pins, vcp_render_rest(64), pb,
						  sizeof(pb));
		fprintf(f, "  %-*s %-10s %-7s %5u %-8s %-6s %s\n", nw,
			vcp_render_cut(&nm, vm->name),
			vm_class_label(vm, policy),
			!vm->has_tag	  ? "-" :
			vm->tag.has_class ? "class" :
					    "prio",
			vm->n_vcpus, dem, del, pins);
	}
	vcp_names_clear(&nm);
	(void)host;
}

void vcp_render_vms_text(FILE *f, const struct vcp_host *host,
			 const struct vcp_vm *vms, size_t n_vms,
			 const struct vcp_policy *policy)
{
	vcp_render_vms_fit(f, host, vms, n_vms, policy, true);
}

size_t vcp_render_vcpu_run(const struct vcp_vcpu_rows *r, size_t i, char *ids,
			   size_t len)
{
	struct vcp_cpuset set;
	size_t j = i;

	vcp_cpuset_zero(&set);
	vcp_cpuset_set(&set, r->vcpu(r->ctx, i));
	while (j + 1 < r->n && r->same(r->ctx, i, j + 1))
		vcp_cpuset_set(&set, r->vcpu(r->ctx, ++j));
	fmt_set(&set, ids, len);
	return j;
}

void vcp_render_vcpu_to(FILE *f, const struct vcp_vcpu_rows *r, size_t i,
			size_t last)
{
	char a[256], b[256];
	const char *first = r->to(r->ctx, i, a, sizeof(a));
	bool alike = true;

	for (size_t j = i + 1; j <= last; j++)
		alike = alike && !strcmp(first, r->to(r->ctx, j, b, sizeof(b)));
	fputs(first, f);
	for (size_t j = i + 1; !alike && j <= last; j++)
		fprintf(f, " | %s", r->to(r->ctx, j, b, sizeof(b)));
}

/* The actions as vCPU rows (vcp_vcpu_rows): an action's outcome too. */
struct act_rows {
	const struct vcp_actions *acts;
	const struct vcp_apply_result *res;
};

/* Whether action @j pins another vCPU of action @i's VM from the same
 * CPUs, with the same outcome. */
static bool same_but_vcpu(const void *ctx, size_t i, size_t j)
{
	const struct act_rows *ar = ctx;
	const struct vcp_apply_result *res = ar->res;
	const struct vcp_action *x = &ar->acts->a[i], *y = &ar->acts->a[j];
	const char *mx, *my;

	if (y->kind != VCP_ACT_PIN_VCPU || y->vm != x->vm ||
	    !vcp_cpuset_equal(&x->from, &y->from))
		return false;
	if (!res || (i >= res->n && j >= res->n))
		return true;
	if (i >= res->n || j >= res->n ||
	    res->e[i].outcome != res->e[j].outcome)
		return false;
	mx = res->e[i].msg ? res->e[i].msg : "";
	my = res->e[j].msg ? res->e[j].msg : "";
	return strcmp(mx, my) == 0;
}

static unsigned int act_vcpu(const void *ctx, size_t j)
{
	return ((const struct act_rows *)ctx)->acts->a[j].vcpu;
}

static const char *act_to(const void *ctx, size_t j, char *buf, size_t len)
{
	return fmt_set(&((const struct act_rows *)ctx)->acts->a[j].to, buf,
		       len);
}

/* Action @i, a vCPU's pins, with the vCPUs of the actions after it that
 * pin the same VM from the same CPUs (@ranges) as one "vcpus 0-7"
 * action; returns the index of the last action it stands for. */
static size_t put_vcpus(FILE *f, const struct vcp_actions *acts,
			const struct vcp_apply_result *res, size_t i,
			bool ranges)
{
	const struct act_rows ar = { acts, res };
	const struct vcp_vcpu_rows rows = { &ar, acts->n, same_but_vcpu,
					    act_vcpu, act_to };
	const struct vcp_action *x = &acts->a[i];
	char a[256], v[256];
	size_t j = ranges ? vcp_render_vcpu_run(&rows, i, v, sizeof(v)) : i;

	if (j == i)
		fprintf(f, "vcpu %-3u", x->vcpu);
	else
		fprintf(f, "vcpus %s", v);
	fprintf(f, " %s -> ", fmt_set(&x->from, a, sizeof(a)));
	vcp_render_vcpu_to(f, &rows, i, j);
	return j;
}

/* What action @x does, after its kind and VM (not a vCPU's pins). */
static void put_change(FILE *f, const struct vcp_action *x)
{
	char a[256], b[256];

	switch (x->kind) {
	case VCP_ACT_SAVE:
		fputs("record original pins in metadata", f);
		break;
	case VCP_ACT_PIN_VCPU:
		break;
	case VCP_ACT_PIN_EMULATOR:
		fprintf(f, "emulator %s -> %s", fmt_set(&x->from, a, sizeof(a)),
			fmt_set(&x->to, b, sizeof(b)));
		break;
	case VCP_ACT_SET_CLASS:
		fprintf(f, "cpu.consolidate %s -> %s",
			x->has_from_class ? vcp_class_name(x->from_class) : "?",
			vcp_class_name(x->to_class));
		break;
	case VCP_ACT_SET_LEVEL:
		fprintf(f, "sched_mc_power_savings %d -> %d", x->from_level,
			x->to_level);
		break;
	case VCP_ACT_SET_MEMORY:
		fprintf(f, "memory nodes %s -> %s",
			fmt_set(&x->from, a, sizeof(a)),
			fmt_set(&x->to, b, sizeof(b)));
		break;
	case VCP_ACT_RESTORE:
		fputs("back to its recorded original pins (level 0: hands off)", f);
		break;
	}
}

/* Whom action @x changes: its VM, or "host". */
static const char *act_who(const struct vcp_vm *vms, const struct vcp_action *x)
{
	return x->kind == VCP_ACT_SET_LEVEL ? "host" : vms[x->vm].name;
}

/* The actions, one a line; @wide: names whole; @ranges: a VM's vCPUs
 * pinned alike in one line. */
static void put_actions(FILE *f, const struct vcp_vm *vms,
			const struct vcp_actions *acts,
			const struct vcp_apply_result *res, bool wide,
			bool ranges)
{
	struct vcp_names nm;

	vcp_names_init(&nm, VCP_RENDER_NAME_W, wide);
	for (size_t i = 0; i < acts->n; i++)
		vcp_names_add(&nm, act_who(vms, &acts->a[i]));
	if (!acts->n)
		fputs("  nothing to change\n", f);
	for (size_t i = 0; i < acts->n; i++) {
		const struct vcp_action *x = &acts->a[i];
		size_t last = i;

		fprintf(f, "  %-14s %-20s ", vcp_act_kind_name(x->kind),
			vcp_render_cut(&nm, act_who(vms, x)));
		if (x->kind == VCP_ACT_PIN_VCPU)
			last = put_vcpus(f, acts, res, i, ranges);
		else
			put_change(f, x);
		if (res && i < res->n)
			fprintf(f, "  [%s]%s%s",
				vcp_outcome_name(res->e[i].outcome),
				res->e[i].msg ? " " : "",
				res->e[i].msg ? res->e[i].msg : "");
		fputc('\n', f);
		i = last;
	}
	vcp_names_clear(&nm);
}

void vcp_render_actions_text(FILE *f, const struct vcp_vm *vms,
			     const struct vcp_actions *acts,
			     const struct vcp_apply_result *res)
{
	put_actions(f, vms, acts, res, true, false);
}

void vcp_render_actions_fit(FILE *f, const struct vcp_vm *vms,
			    const struct vcp_actions *acts,
			    const struct vcp_apply_result *res, bool wide)
{
	put_actions(f, vms, acts, res, wide, true);
}

struct json_object *vcp_render_cpuset_json(const struct vcp_cpuset *s)
{
	char buf[4096];

	if (vcp_cpuset_format(s, buf, sizeof(buf)) < 0)
		return json_object_new_string("");
	return json_object_new_string(buf);
}

struct json_object *vcp_render_map_json(const struct vcp_host *host,
					const struct vcp_vm *vms,
					const struct vcp_pkg_map *map)
{
	struct json_object *arr = json_object_new_array();

	for (size_t p = 0; p < map->n; p++) {
		struct json_object *o = json_object_new_object();
		struct json_object *names = json_object_new_array();
		const struct vcp_pkg_view *v = &map->p[p];

		for (size_t i = 0; i < v->n_vms; i++)
			json_object_array_add(names,
				json_object_new_string(vms[v->vms[i]].name));
		json_object_object_add(o, "id", json_object_new_int(v->id));
		json_object_object_add(o, "cpus",
			vcp_render_cpuset_json(&host->packages[p].cpus));
		json_object_object_add(o, "awake",
				       json_object_new_boolean(v->awake));
		json_object_object_add(o, "not_gathered",
				       json_object_new_boolean(v->by_free));
		if (v->reserved)
			json_object_object_add(o, "reserved",
					       json_object_new_boolean(true));
		json_object_object_add(o, "vcpus",
				       json_object_new_int((int)v->n_vcpus));
		json_object_object_add(o, "vms", names);
		json_object_array_add(arr, o);
	}
	return arr;
}

static struct json_object *vm_json(const struct vcp_vm *vm,
				   const struct vcp_policy *policy)
{
	struct json_object *o = json_object_new_object();
	struct json_object *pins = json_object_new_array();
	struct json_object *tag = NULL;
	bool known;
	double d = vm_demand(vm, &known);

	for (unsigned int i = 0; i < vm->n_vcpus; i++)
		json_object_array_add(pins,
				      vcp_render_cpuset_json(&vm->vcpu_pins[i]));
	if (vm->has_tag) {
		tag = json_object_new_object();
		if (vm->tag.has_priority)
			json_object_object_add(tag, "priority",
				json_object_new_string(vcp_priority_name(vm->tag.priority)));
		if (vm->tag.has_class)
			json_object_object_add(tag, "class",
				json_object_new_string(vcp_class_name(vm->tag.class)));
	}
	json_object_object_add(o, "name", json_object_new_string(vm->name));
	json_object_object_add(o, "uuid", json_object_new_string(vm->uuid));
	json_object_object_add(o, "class",
		json_object_new_string(vm_class_label(vm, policy)));
	json_object_object_add(o, "managed", json_object_new_boolean(vm->managed));
	json_object_object_add(o, "unmanaged_reason", vm->unmanaged_why ?
			       json_object_new_string(vm->unmanaged_why) : NULL);
	json_object_object_add(o, "tag", tag);
	json_object_object_add(o, "vcpus", json_object_new_int((int)vm->n_vcpus));
	json_object_object_add(o, "demand", known ?
		vcp_json_double3(d) : NULL);
	json_object_object_add(o, "delay", vm->delay >= 0 ?
		vcp_json_double3(vm->delay) : NULL);
	json_object_object_add(o, "pins", pins);
	json_object_object_add(o, "emulator",
			       vcp_render_cpuset_json(&vm->emulator_pins));
	json_object_object_add(o, "original_recorded",
			       json_object_new_boolean(vm->has_saved));
	json_object_object_add(
		o, "memory_mode",
		json_object_new_string(vcp_mem_mode_name(vm->mem_mode)));
	json_object_object_add(o, "memory_nodes",
			       vcp_render_cpuset_json(&vm->mem_nodes));
	return o;
}

struct json_object *vcp_render_vms_json(const struct vcp_host *host,
					const struct vcp_vm *vms,
					size_t n_vms,
					const struct vcp_policy *policy)
{
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; i < n_vms; i++)
		json_object_array_add(arr, vm_json(&vms[i], policy));
	(void)host;
	return arr;
}

struct json_object *vcp_render_actions_json(const struct vcp_vm *vms,
					    const struct vcp_actions *acts,
					    const struct vcp_apply_result *res)
{
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; i < acts->n; i++) {
		const struct vcp_action *x = &acts->a[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "action",
			json_object_new_string(vcp_act_kind_name(x->kind)));
		json_object_object_add(o, "vm", x->kind == VCP_ACT_SET_LEVEL ?
			NULL : json_object_new_string(vms[x->vm].name));
		if (x->kind == VCP_ACT_PIN_VCPU)
			json_object_object_add(o, "vcpu",
				json_object_new_int((int)x->vcpu));
		if (x->kind == VCP_ACT_PIN_VCPU ||
		    x->kind == VCP_ACT_PIN_EMULATOR ||
		    x->kind == VCP_ACT_SET_MEMORY) {
			json_object_object_add(o, "from",
					       vcp_render_cpuset_json(&x->from));
			json_object_object_add(o, "to",
					       vcp_render_cpuset_json(&x->to));
		}
		if (x->kind == VCP_ACT_SET_CLASS)
			json_object_object_add(o, "to",
				json_object_new_string(vcp_class_name(x->to_class)));
		if (x->kind == VCP_ACT_SET_LEVEL)
			json_object_object_add(o, "to",
				json_object_new_int(x->to_level));
		if (res && i < res->n) {
			json_object_object_add(o, "outcome",
				json_object_new_string(vcp_outcome_name(res->e[i].outcome)));
			json_object_object_add(o, "message", res->e[i].msg ?
				json_object_new_string(res->e[i].msg) : NULL);
		}
		json_object_array_add(arr, o);
	}
	return arr;
}

/* @head, a space, then @text word by word, lines after the first
 * indented by 4, within vcp_width_cols() unless @wide. */
static void put_wrapped(FILE *f, const char *head, const char *text, bool wide)
{
	char *line;

	if (asprintf(&line, "%s %s", head, text) < 0)
		return;
	vcp_fold_line(f, line, strlen(head) + 1, 4,
		      wide ? 0 : vcp_width_cols());
	free(line);
}

void vcp_render_memory_text(FILE *f, const struct vcp_vm *vms,
			    const struct vcp_plan *plan, bool wide)
{
	char head[128], why_none[256];
	size_t none = 0;
	const char *why;
	struct vcp_names nm;

	vcp_names_init(&nm, VCP_RENDER_NAME_W, wide);
	for (size_t i = 0; i < plan->n_vms; i++)
		vcp_names_add(&nm, vms[i].name);
	for (size_t i = 0; i < plan->n_vms; i++) {
		if (vcp_mem_follow(&vms[i], &plan->vms[i], &why) !=
		    VCP_MEMF_CANNOT)
			continue;
		if (vms[i].mem_mode == VCP_MEM_NONE) {
			none++;
			continue;
		}
		snprintf(head, sizeof(head),
			 "  memory stays: '%s' (planned node %d):",
			 vcp_render_cut(&nm, vms[i].name),
			 plan->vms[i].mem_node);
		put_wrapped(f, head, why, wide);
	}
	vcp_names_clear(&nm);
	if (!none)
		return;
	snprintf(
		why_none, sizeof(why_none),
		"%zu VM%s planned on one node %s no <numatune><memory>: libvirt moves a running VM's memory only in strict or restrictive mode ('vcpack explain VM')",
		none, none == 1 ? "" : "s", none == 1 ? "has" : "have");
	put_wrapped(f, "  memory stays:", why_none, wide);
}

struct json_object *vcp_render_memory_json(const struct vcp_vm *vms,
					   const struct vcp_plan *plan)
{
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; i < plan->n_vms; i++) {
		const char *why = NULL;
		enum vcp_mem_follow m =
			vcp_mem_follow(&vms[i], &plan->vms[i], &why);
		struct json_object *o;

		if (plan->vms[i].mem_node < 0)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "vm",
				       json_object_new_string(vms[i].name));
		json_object_object_add(
			o, "node", json_object_new_int(plan->vms[i].mem_node));
		json_object_object_add(
			o, "memory",
			json_object_new_string(vcp_mem_follow_name(m)));
		json_object_object_add(o, "reason",
				       m == VCP_MEMF_CANNOT ?
					       json_object_new_string(why) :
					       NULL);
		json_object_array_add(arr, o);
	}
	return arr;
}
