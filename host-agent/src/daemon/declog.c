// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * declog.c - what vcpackd says about each VM: one line per decision (its
 * class, its placement and why, the CPUs of its vCPUs and emulator), and
 * nothing while that decision stays the same, however often it re-plans.
 * The lines carry no measured figure (a demand that moves by a hair would
 * repeat them); the last line per VM name is kept in a hash table. Pure:
 * builds strings, the caller logs them.
 */
#include "declog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "cpuset.h"
#include "policy.h"

struct vcp_declog {
	GHashTable *last; /* VM name -> its last line */
};

int vcp_declog_new(struct vcp_declog **ret)
{
	struct vcp_declog *l = g_try_new0(struct vcp_declog, 1);

	if (!l)
		return -ENOMEM;
	l->last =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	*ret = l;
	return 0;
}

void vcp_declog_free(struct vcp_declog *l)
{
	if (!l)
		return;
	g_hash_table_destroy(l->last);
	g_free(l);
}

static void cpus_text(const struct vcp_cpuset *pins, unsigned int n, char *buf,
		      size_t len)
{
	struct vcp_cpuset all;

	vcp_cpuset_zero(&all);
	for (unsigned int i = 0; i < n; i++)
		vcp_cpuset_or(&all, &pins[i]);
	if (vcp_cpuset_format(&all, buf, len) < 0)
		snprintf(buf, len, "%u CPUs", vcp_cpuset_count(&all));
	if (!buf[0])
		snprintf(buf, len, "no CPU");
}

/* Where the plan puts the VM, and why, in a few words. */
static void why_text(const struct vcp_host *h, const struct vcp_plan *pl,
		     const struct vcp_vm_plan *vp, char *buf, size_t len)
{
	switch (vp->placement) {
	case VCP_PLACE_GATHERED:
		if (vp->package >= 0)
			snprintf(
				buf, len,
				"gathered on package %d (level %d gathers %s VMs)",
				h->packages[vp->package].id, pl->level,
				vcp_class_name(vp->class));
		else
			snprintf(
				buf, len,
				"gathered across the active packages (level %d gathers %s VMs; no single package has room)",
				pl->level, vcp_class_name(vp->class));
		break;
	case VCP_PLACE_EXCLUSIVE:
		snprintf(buf, len, "exclusive cores (class spread)");
		break;
	case VCP_PLACE_FREE:
		snprintf(
			buf, len,
			"free on every CPU left for VMs (not gathered at level %d)",
			pl->level);
		break;
	case VCP_PLACE_UNMANAGED:
	default:
		/* a managed VM is left alone only by a hands-off plan; an
		 * unmanaged one is said by vcp_declog_line() */
		snprintf(
			buf, len, "%s",
			vp->restore ?
				"put back as it was found (level 0: hands off)" :
				"left as it is (level 0: hands off)");
		break;
	}
}

char *vcp_declog_line(const struct vcp_world *w, const struct vcp_plan *plan,
		      size_t i)
{
	const struct vcp_vm *vm = &w->vms[i];
	const struct vcp_vm_plan *vp = &plan->vms[i];
	bool unmanaged = vp->placement == VCP_PLACE_UNMANAGED || !vm->managed;
	char why[256], cpus[1024], emu[1024];

	why_text(w->host, plan, vp, why, sizeof(why));
	/* (a bad tag's reason is the pass's warning, said once already) */
	if (!vm->managed && !vm->unmanaged_why)
		snprintf(why, sizeof(why), "left as it is (not managed)");
	else if (!vm->managed)
		snprintf(why, sizeof(why), "left as it is: %s",
			 vm->unmanaged_why);
	if (unmanaged) {
		cpus_text(vm->vcpu_pins, vm->n_vcpus, cpus, sizeof(cpus));
		return g_strdup_printf("'%s': untouched, %s; vCPUs on %s",
				       vm->name, why, cpus);
	}
	cpus_text(vp->vcpu_pins, vp->n_vcpus, cpus, sizeof(cpus));
	cpus_text(&vp->emulator_pins, 1, emu, sizeof(emu));
	return g_strdup_printf("'%s': %s, %s; vCPUs on %s, emulator on %s%s%s",
			       vm->name, vcp_class_name(vp->class), why, cpus,
			       emu, vp->degraded ? "; degraded: " : "",
			       vp->degraded ? vp->degraded : "");
}

static bool in_world(const struct vcp_world *w, const char *name)
{
	for (size_t i = 0; i < w->n_vms; i++)
		if (strcmp(w->vms[i].name, name) == 0)
			return true;
	return false;
}

int vcp_declog_update(struct vcp_declog *l, const struct vcp_world *w,
		      const struct vcp_plan *plan, char ***ret_lines)
{
	GPtrArray *out = g_ptr_array_new();
	char **fresh = g_new0(char *, w->n_vms + 1);
	GHashTableIter it;
	gpointer key;

	/* build every line first: on -ENOMEM nothing is remembered */
	for (size_t i = 0; i < w->n_vms && i < plan->n_vms; i++) {
		fresh[i] = vcp_declog_line(w, plan, i);
		if (!fresh[i]) {
			g_strfreev(fresh);
			g_ptr_array_free(out, TRUE);
			return -ENOMEM;
		}
	}
	g_hash_table_iter_init(&it, l->last);
	while (g_hash_table_iter_next(&it, &key, NULL))
		if (!in_world(w, key))
			g_hash_table_iter_remove(&it);
	for (size_t i = 0; fresh[i]; i++) {
		const char *was = g_hash_table_lookup(l->last, w->vms[i].name);

		if (was && strcmp(was, fresh[i]) == 0)
			continue;
		g_ptr_array_add(out, g_strdup(fresh[i]));
		g_hash_table_replace(l->last, g_strdup(w->vms[i].name),
				     g_strdup(fresh[i]));
	}
	g_strfreev(fresh);
	g_ptr_array_add(out, NULL);
	*ret_lines = (char **)g_ptr_array_free(out, FALSE);
	return 0;
}
