// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mode.c - decides between kernel mode (the patched kernel's knobs are
 * there, on this host), scx mode (sched_ext, with scx_vcpack loaded or
 * for vcpackd to load) and pin mode (a stock kernel without either, a
 * remote host, or libvirt's test driver), and says why.
 */
#include "mode.h"

#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "scx.h"
#include "virt.h"

static bool local_qemu(const struct vcp_virt *v)
{
	return strcmp(vcp_virt_driver(v), "QEMU") == 0 &&
	       strstr(vcp_virt_uri(v), ":///") != NULL;
}

/* sched_ext is there: scx mode if scx_vcpack runs or may be started. */
static bool decide_scx(const struct vcp_mode_facts *f,
		       struct vcp_mode_choice *c)
{
	const struct vcp_scx_info *i = f->scx;
	size_t n = sizeof(c->reason);

	if (f->scx_failed) {
		snprintf(c->reason, n, "sched_ext: scx_vcpack %s; pins carry the plan (restart vcpackd to try sched_ext again)",
			 f->scx_failed);
	} else if (vcp_scx_is_ours(i)) {
		c->mode = VCP_MODE_SCX;
		snprintf(c->reason, n, "sched_ext: scx_vcpack is loaded; it packs by each VM's class and the level, and only spread VMs are pinned");
	} else if (i->state == VCP_SCX_DISABLED && f->may_start) {
		c->mode = VCP_MODE_SCX;
		c->start_scx = true;
		snprintf(c->reason, n, "sched_ext: no BPF scheduler was loaded; vcpackd loads scx_vcpack, which packs by each VM's class and the level, and only spread VMs are pinned");
	} else if (i->state == VCP_SCX_DISABLED) {
		snprintf(c->reason, n, "sched_ext is there but scx_vcpack is not loaded (vcpackd loads it); pins carry the plan");
	} else if (strcmp(i->ops, VCP_SCX_OPS_NAME) != 0) {
		snprintf(c->reason, n, "sched_ext: another BPF scheduler ('%s', %s) is loaded; vcpack leaves it alone and pins carry the plan",
			 *i->ops ? i->ops : "?", vcp_scx_state_name(i->state));
	} else if (i->state != VCP_SCX_ENABLED) {
		snprintf(c->reason, n, "sched_ext: scx_vcpack is %s; pins carry the plan",
			 vcp_scx_state_name(i->state));
	} else {
		snprintf(c->reason, n, "sched_ext: scx_vcpack runs but its control maps are not pinned; pins carry the plan");
	}
	return c->mode == VCP_MODE_SCX;
}

/* Why forced mode @m cannot run here (NULL: it can). */
static const char *cannot_force(const struct vcp_mode_facts *f, enum vcp_mode m)
{
	if (m == VCP_MODE_PIN)
		return NULL;
	if (!f->local)
		return f->test_driver ?
			       "libvirt's test driver has no kernel to tune" :
			       "a remote host's kernel is not reachable through libvirt";
	if (m == VCP_MODE_KERNEL && !f->knobs)
		return f->kernel_missing ? f->kernel_missing :
					   "this kernel has no vcpack knobs";
	if (m == VCP_MODE_SCX && (!f->scx || f->scx->state == VCP_SCX_ABSENT))
		return "this kernel has no sched_ext (CONFIG_SCHED_CLASS_EXT)";
	if (m == VCP_MODE_SCX && !f->cpu_cgroup)
		return "no cgroup hierarchy has the cpu controller";
	return NULL;
}

static void force_mode(const struct vcp_mode_facts *f,
		       struct vcp_mode_choice *c)
{
	const char *why;

	if (f->force < 0 || (enum vcp_mode)f->force == c->mode)
		return;
	why = cannot_force(f, (enum vcp_mode)f->force);
	if (why) {
		c->refused = true;
		snprintf(c->reason, sizeof(c->reason), "--mode %s: %s",
			 vcp_mode_name((enum vcp_mode)f->force), why);
		return;
	}
	c->mode = (enum vcp_mode)f->force;
	c->start_scx = c->mode == VCP_MODE_SCX && f->scx && f->may_start &&
		       f->scx->state == VCP_SCX_DISABLED;
	snprintf(c->reason, sizeof(c->reason), "forced with --mode");
}

void vcp_mode_decide(const struct vcp_mode_facts *f,
		     struct vcp_mode_choice *ret)
{
	struct vcp_mode_choice c = { .mode = VCP_MODE_PIN };
	size_t n = sizeof(c.reason);

	if (!f->local && f->test_driver) {
		snprintf(c.reason, n, "libvirt's test driver: a simulated host with no kernel to tune, so pins alone carry the plan");
	} else if (!f->local) {
		snprintf(c.reason, n, "remote host: its kernel knobs are not reachable through libvirt (vcpackd on that host uses them); pins alone carry the plan");
	} else if (f->knobs) {
		c.mode = VCP_MODE_KERNEL;
		snprintf(c.reason, n, "%s", f->kernel_reason ? f->kernel_reason : "");
	} else if (f->scx && f->scx->state != VCP_SCX_ABSENT && f->cpu_cgroup) {
		decide_scx(f, &c);
	} else {
		snprintf(c.reason, n, "%s%s", f->kernel_reason ? f->kernel_reason : "",
			 !f->scx ? "" : f->scx->state == VCP_SCX_ABSENT ?
			 "; no sched_ext either (CONFIG_SCHED_CLASS_EXT)" :
			 "; sched_ext is there but no cgroup hierarchy has the cpu controller");
	}
	force_mode(f, &c);
	*ret = c;
}

int vcp_mode_detect_full(const struct vcp_virt *v, const char *root,
			 int force, const struct vcp_scx_conf *conf,
			 bool may_start, const char *scx_failed,
			 struct vcp_kernel **ret_k,
			 struct vcp_mode_choice *ret)
{
	struct vcp_mode_facts f = { .force = force, .may_start = may_start,
				    .scx_failed = scx_failed };
	struct vcp_mode_choice c;
	struct vcp_kernel *k = NULL;
	struct vcp_scx_info si;
	struct vcp_scx *s;
	int r;

	f.local = (root || local_qemu(v)) &&
		  vcp_kernel_open(root ? root : "/", &k) == 0;
	f.test_driver = vcp_virt_is_test_driver(v);
	if (k) {
		f.knobs = vcp_kernel_mode(k) == VCP_MODE_KERNEL;
		f.cpu_cgroup = k->cpu_mount != NULL;
		f.kernel_reason = k->reason;
		f.kernel_missing = k->missing;
		if (vcp_scx_read(k->root, conf ? conf->pindir : NULL, &si) == 0)
			f.scx = &si;
	}
	vcp_mode_decide(&f, &c);
	if (c.mode == VCP_MODE_SCX && k) {
		r = vcp_scx_new(conf ? conf->bin : NULL,
				conf ? conf->pindir : NULL, &s);
		if (r < 0) {
			vcp_kernel_free(k);
			return r;
		}
		vcp_kernel_use_scx(k, s);
	}
	*ret_k = k;
	*ret = c;
	return 0;
}

enum vcp_mode vcp_mode_detect(const struct vcp_virt *v, const char *root,
			      int force, struct vcp_kernel **ret_k,
			      char *reason, size_t len, bool *ret_refused)
{
	struct vcp_mode_choice c;

	*ret_refused = false;
	if (vcp_mode_detect_full(v, root, force, NULL, false, NULL, ret_k,
				 &c) < 0) {
		*ret_k = NULL;
		snprintf(reason, len, "out of memory");
		return VCP_MODE_PIN;
	}
	snprintf(reason, len, "%s", c.reason);
	*ret_refused = c.refused;
	return c.mode;
}

int vcp_mode_parse(const char *s)
{
	if (strcmp(s, "auto") == 0)
		return -1;
	if (strcmp(s, "pin") == 0)
		return VCP_MODE_PIN;
	if (strcmp(s, "kernel") == 0)
		return VCP_MODE_KERNEL;
	if (strcmp(s, "scx") == 0)
		return VCP_MODE_SCX;
	return -2;
}
