// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cli-list.c - `vcpack list [--all|--inactive] [--name]`, as virsh list:
 * the running domains (--all: and the defined ones that are shut off;
 * --inactive: only those) in a table with each one's state, class, tag,
 * vCPUs and the CPUs it is pinned to; a shut-off domain has its tag and
 * class (from its persistent definition) and no placement. --name: the
 * names only, one a line (`virsh list --name`; the bash completion's
 * DOMAIN words). With --json an array of objects (--name: of names).
 * Changes nothing.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "fold.h"
#include "planner.h"
#include "render.h"
#include "virt.h"

struct lopts {
	bool active, inactive, names;
};

static int parse_list(int argc, char **argv, struct lopts *o)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "inactive", no_argument, NULL, 'i' },
		{ "name", no_argument, NULL, 'n' },
		{ 0 }
	};
	int c;

	*o = (struct lopts){ .active = true };
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (c == 'a')
			o->inactive = true;
		else if (c == 'i')
			o->inactive = true, o->active = false;
		else if (c == 'n')
			o->names = true;
		else
			return vcp_cli_err(EXIT_USAGE, "list takes --all, --inactive and --name, got '%s'",
					   argv[optind - 1]);
	}
	if (optind < argc)
		return vcp_cli_err(EXIT_USAGE, "list takes no DOMAIN, got '%s'",
				   argv[optind]);
	return 0;
}

/* The running domains, then the shut-off ones (per @o), as one array:
 * each part sorted by name. */
static int gather(struct vcp_virt *v, const struct lopts *o,
		  struct vcp_vm **ret, size_t *ret_n)
{
	struct vcp_vm *run = NULL, *off = NULL, *all;
	struct vcp_vm_issue *is = NULL;
	size_t n_run = 0, n_off = 0, n_is = 0;
	struct vcp_host *host = NULL;
	char *err = NULL;
	int r = 0;

	if (o->active) {
		r = vcp_virt_host(v, &host, &err);
		if (r == 0)
			r = vcp_virt_list_vms(v, host, &run, &n_run, &is, &n_is,
					      &err);
		vcp_vm_issues_free(is, n_is);
		vcp_host_free(host);
	}
	if (r == 0 && o->inactive) {
		r = vcp_virt_list_inactive(v, &off, &n_off, &is, &n_is, &err);
		if (r == 0)
			vcp_vm_issues_free(is, n_is);
	}
	all = r == 0 ? calloc(n_run + n_off + 1, sizeof(*all)) : NULL;
	if (r == 0 && !all)
		r = -ENOMEM;
	if (r < 0) {
		vcp_cli_err(0, "%s", err ? err : strerror(-r));
		free(err);
		vcp_vms_free(run, n_run);
		vcp_vms_free(off, n_off);
		return EXIT_PARTIAL;
	}
	/* the structs move; their contents are now all's */
	if (n_run)
		memcpy(all, run, n_run * sizeof(*all));
	if (n_off)
		memcpy(all + n_run, off, n_off * sizeof(*all));
	free(run);
	free(off);
	*ret = all;
	*ret_n = n_run + n_off;
	return 0;
}

static const char *class_of(const struct vcp_vm *vm,
			    const struct vcp_policy *pol)
{
	return vm->managed ? vcp_class_name(vcp_plan_vm_class(vm, pol)) :
			     "untouched";
}

/* "class=pack", "priority=high", "-" (none) or "invalid". */
static const char *tag_of(const struct vcp_vm *vm, char *buf, size_t len)
{
	if (!vm->managed)
		return "invalid";
	if (!vm->has_tag)
		return "-";
	if (vm->tag.has_class)
		snprintf(buf, len, "class=%s", vcp_class_name(vm->tag.class));
	else
		snprintf(buf, len, "priority=%s",
			 vcp_priority_name(vm->tag.priority));
	return buf;
}

static void pins_of(const struct vcp_vm *vm, char *buf, size_t len)
{
	struct vcp_cpuset all;

	vcp_cpuset_zero(&all);
	for (unsigned int i = 0; i < vm->n_vcpus; i++)
		vcp_cpuset_or(&all, &vm->vcpu_pins[i]);
	if (vcp_cpuset_format(&all, buf, len) < 0)
		snprintf(buf, len, "(%u CPUs)", vcp_cpuset_count(&all));
	if (!buf[0])
		snprintf(buf, len, "-");
}

static struct json_object *vm_json(const struct vcp_vm *vm,
				   const struct vcp_policy *pol)
{
	struct json_object *o = json_object_new_object();
	struct json_object *tag = NULL, *pins = NULL;

	if (vm->has_tag) {
		tag = json_object_new_object();
		if (vm->tag.has_priority)
			json_object_object_add(tag, "priority", json_object_new_string(
				vcp_priority_name(vm->tag.priority)));
		if (vm->tag.has_class)
			json_object_object_add(tag, "class", json_object_new_string(
				vcp_class_name(vm->tag.class)));
	}
	if (vm->running) {
		pins = json_object_new_array();
		for (unsigned int i = 0; i < vm->n_vcpus; i++)
			json_object_array_add(pins, vcp_render_cpuset_json(
				&vm->vcpu_pins[i]));
	}
	json_object_object_add(o, "name", json_object_new_string(vm->name));
	json_object_object_add(o, "uuid", json_object_new_string(vm->uuid));
	json_object_object_add(o, "state", json_object_new_string(
			       vm->running ? "running" : "shut off"));
	json_object_object_add(o, "persistent",
			       json_object_new_boolean(vm->persistent));
	json_object_object_add(o, "class",
			       json_object_new_string(class_of(vm, pol)));
	json_object_object_add(o, "managed",
			       json_object_new_boolean(vm->managed));
	json_object_object_add(o, "tag", tag);
	json_object_object_add(o, "vcpus", json_object_new_int((int)vm->n_vcpus));
	json_object_object_add(o, "vcpu_pins", pins);
	return o;
}

/* NAME is cut to fit (name...end) unless @wide; 2+20+1+8+1+10+1+16+1+5+1
 * = 66 columns before PINNED TO, which is shortened to the rest (or,
 * on a narrow terminal, folded under the row by the caller). */
static void table(const struct vcp_vm *vms, size_t n,
		  const struct vcp_policy *pol, bool wide)
{
	size_t nw = VCP_RENDER_NAME_W;
	char tb[64], pb[1024], sb[64];
	struct vcp_names nm;

	for (size_t i = 0; wide && i < n; i++)
		if (strlen(vms[i].name) > nw)
			nw = strlen(vms[i].name);
	vcp_names_init(&nm, VCP_RENDER_NAME_W, wide);
	for (size_t i = 0; i < n; i++)
		vcp_names_add(&nm, vms[i].name);
	printf("  %-*s %-8s %-10s %-16s %5s %s\n", (int)nw, "NAME", "STATE",
	       "CLASS", "TAG", "VCPUS", "PINNED TO");
	for (size_t i = 0; i < n; i++) {
		const struct vcp_vm *vm = &vms[i];
		const char *pins = "-";

		if (vm->running) {
			pins_of(vm, pb, sizeof(pb));
			pins = wide ? pb :
				      vcp_render_shorten(pb,
							 vcp_render_rest(66),
							 sb, sizeof(sb));
		}
		printf("  %-*s %-8s %-10s %-16s %5u %s\n", (int)nw,
		       vcp_render_cut(&nm, vm->name),
		       vm->running ? "running" : "shut off", class_of(vm, pol),
		       tag_of(vm, tb, sizeof(tb)), vm->n_vcpus, pins);
	}
	vcp_names_clear(&nm);
}

int vcp_cli_list(int argc, char **argv, const struct vcp_cli_list *l)
{
	struct vcp_vm *vms = NULL;
	struct lopts o;
	size_t n = 0;
	int r = parse_list(argc, argv, &o);

	if (!r)
		r = gather(l->v, &o, &vms, &n);
	if (!r && l->json) {
		struct json_object *a = json_object_new_array();

		for (size_t i = 0; i < n; i++)
			json_object_array_add(a, o.names ?
				json_object_new_string(vms[i].name) :
				vm_json(&vms[i], l->policy));
		vcp_cli_json(a);
	} else if (!r && o.names) {
		for (size_t i = 0; i < n; i++)
			puts(vms[i].name);
	} else if (!r) {
		struct vcp_fold_capture fc;

		vcp_fold_begin(&fc, l->wide ? 0 : vcp_width_cols());
		table(vms, n, l->policy, l->wide);
		vcp_fold_end(&fc);
	}
	vcp_vms_free(vms, n);
	return r;
}
