// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * explain.c - one VM's story for `vcpack explain`: its tag and the class
 * it gives (tag class, priority through the policy's map, or the
 * default), its demand and delay, where the plan puts it and why (the
 * placement, the package, the planner's level and its reason), and what
 * would move it, and where its memory goes (or why it cannot follow).
 * Pure: reads the world and the plan, builds JSON.
 */
#include "explain.h"

#include <stdio.h>
#include <string.h>

#include "cpuset.h"
#include "demand.h"
#include "diff.h"
#include "policy.h"

static struct json_object *str(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *cpus_json(const struct vcp_cpuset *pins,
				     unsigned int n)
{
	struct vcp_cpuset all;
	char buf[1024];

	vcp_cpuset_zero(&all);
	for (unsigned int i = 0; i < n; i++)
		vcp_cpuset_or(&all, &pins[i]);
	if (vcp_cpuset_format(&all, buf, sizeof(buf)) < 0)
		return NULL;
	return json_object_new_string(buf);
}

static const char *issue_of(const struct vcp_world *w, const char *name)
{
	for (size_t i = 0; i < w->n_issues; i++)
		if (strcmp(w->issues[i].vm, name) == 0)
			return w->issues[i].msg;
	return NULL;
}

static void class_part(struct json_object *o, const struct vcp_world *w,
		       const struct vcp_vm *vm, const struct vcp_vm_plan *vp,
		       const struct vcp_policy *pol)
{
	struct json_object *tag = NULL;
	char why[512];

	if (vm->has_tag) {
		tag = json_object_new_object();
		if (vm->tag.has_priority)
			json_object_object_add(tag, "priority", str(
				vcp_priority_name(vm->tag.priority)));
		if (vm->tag.has_class)
			json_object_object_add(tag, "class",
					       str(vcp_class_name(vm->tag.class)));
	}
	if (!vm->managed)
		snprintf(why, sizeof(why), "left exactly as it is: %s",
			 issue_of(w, vm->name) ? issue_of(w, vm->name) :
			 vm->unmanaged_why ? vm->unmanaged_why :
			 "not managed");
	else if (vm->has_tag && vm->tag.has_class)
		snprintf(why, sizeof(why), "its tag says class %s",
			 vcp_class_name(vm->tag.class));
	else if (vm->has_tag && vm->tag.has_priority)
		snprintf(why, sizeof(why), "its tag says priority %s, which the policy's priority map makes %s",
			 vcp_priority_name(vm->tag.priority),
			 vcp_class_name(pol->prio_class[vm->tag.priority]));
	else
		snprintf(why, sizeof(why), "no vcpack tag: balanced, the default");
	json_object_object_add(o, "managed", json_object_new_boolean(vm->managed));
	json_object_object_add(o, "tag", tag);
	json_object_object_add(o, "class", str(vm->managed ?
			       vcp_class_name(vp->class) : "untouched"));
	json_object_object_add(o, "class_reason", str(why));
}

static void demand_part(struct json_object *o, const struct vcp_vm *vm,
			const struct vcp_vm_plan *vp)
{
	bool assumed;

	vcp_vm_demand(vm, NULL, &assumed);
	json_object_object_add(o, "vcpus", json_object_new_int((int)vm->n_vcpus));
	json_object_object_add(o, "demand", vcp_json_double3(vp->demand));
	json_object_object_add(o, "demand_assumed",
			       json_object_new_boolean(assumed));
	json_object_object_add(o, "delay", vm->delay >= 0 ?
			       vcp_json_double3(vm->delay) : NULL);
}

static const char *const place_names[] = {
	[VCP_PLACE_GATHERED] = "gathered", [VCP_PLACE_EXCLUSIVE] = "exclusive",
	[VCP_PLACE_FREE] = "free", [VCP_PLACE_UNMANAGED] = "unmanaged",
};

/* Why these CPUs, and what would move the VM. */
/* Do all of @vm's vCPUs run inside package @pk now? */
static bool runs_inside(const struct vcp_host *h, const struct vcp_vm *vm,
			int pk)
{
	for (unsigned int c = 0; c < vm->n_vcpus; c++)
		if (vcp_cpuset_empty(&vm->vcpu_pins[c]) ||
		    !vcp_cpuset_subset(&vm->vcpu_pins[c], &h->packages[pk].cpus))
			return false;
	return vm->n_vcpus > 0;
}

static void place_part(struct json_object *o, const struct vcp_host *h,
		       const struct vcp_plan *pl, const struct vcp_vm *vm,
		       const struct vcp_vm_plan *vp)
{
	struct json_object *mv = json_object_new_array();
	int pk = vp->package;
	char why[512];

	switch (vp->placement) {
	case VCP_PLACE_GATHERED:
		snprintf(why, sizeof(why), "level %d gathers %s VMs: placed whole on package %d, %s for its %.2f CPUs (planned there: %.2f of %.2f usable CPUs)",
			 pl->level, vcp_class_name(vp->class),
			 pk >= 0 ? h->packages[pk].id : -1,
			 pk >= 0 && runs_inside(h, vm, pk) ?
			 "where it already runs and still fits (a placed VM stays)" :
			 pk >= 0 ? "the first active package with room, in the planner's order (packages with exclusive cores first, then those VMs already run inside, then by id)" :
			 "spanning packages, as no single one has room",
			 vp->demand,
			 pk >= 0 ? pl->pkg_demand[pk] : 0,
			 pk >= 0 ? pl->pkg_capacity[pk] : 0);
		json_object_array_add(mv, str("its demand outgrowing the room left on its package (it moves, or another package wakes)"));
		json_object_array_add(mv, str("a level that does not gather its class ('vcpack level 0', or level 1 for a balanced VM)"));
		json_object_array_add(mv, str("a tag with class spread (exclusive cores)"));
		break;
	case VCP_PLACE_EXCLUSIVE:
		snprintf(why, sizeof(why), "class spread: whole cores of its own, kept while it runs (an incumbent is never displaced by a newcomer)");
		json_object_array_add(mv, str("a tag with another class or priority"));
		json_object_array_add(mv, str("reserved_cpus in the policy covering its cores"));
		break;
	case VCP_PLACE_FREE:
		snprintf(why, sizeof(why), "not gathered at level %d (%s): every CPU left for VMs",
			 pl->level, pl->level_reason ? pl->level_reason : "");
		json_object_array_add(mv, str(vp->class == VCP_CLASS_PACK ?
			"a plan at level 1 or 2 that idles a package (no VM left free elsewhere, demand that fits fewer packages)" :
			"a plan at level 2 that idles a package ('vcpack level 2', demand that fits fewer packages)"));
		json_object_array_add(mv, str("a tag with class pack (gathered from level 1) or spread (exclusive cores)"));
		break;
	case VCP_PLACE_UNMANAGED:
		if (vm->managed) {
			/* level 0: hands off */
			snprintf(why, sizeof(why), "level 0 is hands off (%s): vcpack leaves it as it is%s",
				 pl->level_reason ? pl->level_reason : "",
				 vp->restore ? ", once it is put back to the pins it had before vcpack first changed it" : "");
			json_object_array_add(mv, str("a plan at level 1 or 2 that idles a package ('vcpack level 2', demand that fits fewer packages)"));
		} else if (vm->has_tag && vm->tag.unmanaged) {
			snprintf(why, sizeof(why), "vcpack leaves it exactly as it is");
			json_object_array_add(
				mv,
				str("a tag with another class or a priority ('vcpack tag DOMAIN --priority normal')"));
		} else if (vm->unmanaged_why) {
			snprintf(why, sizeof(why), "vcpack leaves it exactly as it is");
			json_object_array_add(mv, str("a vcpack tag ('vcpack tag DOMAIN --priority normal'): a tagged VM is vcpack's to place, its own pins included"));
		} else {
			snprintf(why, sizeof(why), "vcpack leaves it exactly as it is");
			json_object_array_add(mv, str("a valid vcpack tag (virsh metadata DOMAIN --uri urn:vcpack:metadata:1 --key vcpack --set '<consolidation priority=\"normal\"/>' --live --config)"));
		}
		break;
	}
	json_object_object_add(o, "placement", str(place_names[vp->placement]));
	json_object_object_add(o, "package", pk >= 0 ?
			       json_object_new_int(h->packages[pk].id) : NULL);
	json_object_object_add(o, "cpus", cpus_json(vp->vcpu_pins, vp->n_vcpus));
	json_object_object_add(o, "level", json_object_new_int(pl->level));
	json_object_object_add(o, "level_reason", str(pl->level_reason));
	json_object_object_add(o, "why_cpus", str(why));
	json_object_object_add(o, "degraded", str(vp->degraded));
	json_object_object_add(o, "would_move", mv);
}

/* Where its memory goes: "memory" is stays, there, moves or cannot. */
static void memory_part(struct json_object *o, const struct vcp_host *h,
			const struct vcp_vm *vm, const struct vcp_vm_plan *vp,
			const struct vcp_policy *pol)
{
	const char *why = NULL;
	enum vcp_mem_follow f = vcp_mem_follow(vm, vp, &why);
	char buf[256], nodes[128];

	if (vcp_cpuset_format(&vm->mem_nodes, nodes, sizeof(nodes)) < 0)
		nodes[0] = '\0';
	switch (f) {
	case VCP_MEMF_STAYS:
		why = h->n_nodes < 2 ?
			      "this host has one NUMA node: memory has nowhere to go" :
		      !pol->memory_follows ?
			      "the policy's memory_follows is false: no VM's memory is moved" :
			      "the plan places it on no single package, so its memory stays where it is";
		break;
	case VCP_MEMF_THERE:
		why = "already on its package's node";
		break;
	case VCP_MEMF_MOVES:
		snprintf(
			buf, sizeof(buf),
			"follows its vCPUs to node %d (its package's), live through libvirt's numatune (%s mode); restore puts nodes %s back",
			vp->mem_node, vcp_mem_mode_name(vm->mem_mode),
			nodes[0] ? nodes : "?");
		why = buf;
		break;
	case VCP_MEMF_CANNOT:
		break;
	}
	json_object_object_add(o, "memory", str(vcp_mem_follow_name(f)));
	json_object_object_add(
		o, "memory_node",
		vp->mem_node >= 0 ? json_object_new_int(vp->mem_node) : NULL);
	json_object_object_add(o, "memory_mode",
			       str(vcp_mem_mode_name(vm->mem_mode)));
	json_object_object_add(o, "memory_nodes_now",
			       nodes[0] ? str(nodes) : NULL);
	json_object_object_add(o, "memory_reason", str(why));
}

struct json_object *vcp_explain_json(const struct vcp_world *w,
				     const struct vcp_plan *plan,
				     const struct vcp_policy *policy, size_t i)
{
	const struct vcp_vm *vm = &w->vms[i];
	const struct vcp_vm_plan *vp = &plan->vms[i];
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "vm", str(vm->name));
	json_object_object_add(o, "uuid", str(vm->uuid));
	class_part(o, w, vm, vp, policy);
	demand_part(o, vm, vp);
	json_object_object_add(o, "pins_now", cpus_json(vm->vcpu_pins,
							vm->n_vcpus));
	place_part(o, w->host, plan, vm, vp);
	memory_part(o, w->host, vm, vp, policy);
	return o;
}
