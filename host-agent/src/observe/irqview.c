// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * irqview.c - interrupts per package per second for `vcpack status`
 * (see irqview.h). The reads are irq.c's, the arithmetic
 * vcp_irq_rates(); this file times the two reads and words the result.
 * A host that is not this machine (libvirt's test driver, a remote URI)
 * has no /proc here: that is said, not guessed from this machine's
 * counts.
 */
#include "irqview.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "policy.h"

void vcp_irqview_begin(struct vcp_irqview *v, const char *root)
{
	memset(v, 0, sizeof(*v));
	v->root = root;
	if (!root)
		return;
	v->error = vcp_irq_counts_read(root, &v->first);
	v->t0 = vcp_mono_s();
}

void vcp_irqview_end(struct vcp_irqview *v, const struct vcp_host *host)
{
	struct vcp_irq_counts second = { 0 };
	double left;

	if (!v->root || v->error || !host)
		return;
	left = VCP_IRQVIEW_MIN_MS / 1000.0 - (vcp_mono_s() - v->t0);
	if (left > 0) {
		struct timespec ts = { 0, (long)(left * 1e9) };

		nanosleep(&ts, NULL);
	}
	v->error = vcp_irq_counts_read(v->root, &second);
	v->seconds = vcp_mono_s() - v->t0;
	v->n_packages = host->n_packages;
	v->all = calloc(host->n_packages ? host->n_packages : 1,
			sizeof(*v->all));
	v->dev = calloc(host->n_packages ? host->n_packages : 1,
			sizeof(*v->dev));
	if (!v->error && (!v->all || !v->dev))
		v->error = -ENOMEM;
	if (!v->error)
		v->error = vcp_irq_rates(host, &v->first, &second, v->seconds,
					 v->all, v->dev);
	vcp_irq_counts_clear(&second);
}

void vcp_irqview_clear(struct vcp_irqview *v)
{
	if (!v)
		return;
	vcp_irq_counts_clear(&v->first);
	free(v->all);
	free(v->dev);
	memset(v, 0, sizeof(*v));
}

static bool shown(const struct vcp_irqview *v, const struct vcp_host *host)
{
	return v->root && !v->error && v->all && host &&
	       v->n_packages == host->n_packages;
}

void vcp_irqview_text(FILE *f, const struct vcp_irqview *v,
		      const struct vcp_host *host)
{
	if (!v->root)
		return;	/* vcp_placers_text() says it once for both */
	if (!shown(v, host)) {
		fprintf(f,
			"irqs:   not shown: cannot read %s/proc/interrupts: %s\n",
			strcmp(v->root, "/") ? v->root : "",
			strerror(v->error ? -v->error : EINVAL));
		return;
	}
	for (size_t p = 0; p < host->n_packages; p++)
		fprintf(f, "irqs:   package %d: %.0f/s, %.0f/s from devices\n",
			host->packages[p].id, v->all[p], v->dev[p]);
}

struct json_object *vcp_irqview_json(const struct vcp_irqview *v,
				     const struct vcp_host *host)
{
	struct json_object *o = json_object_new_object(), *arr;

	char msg[1024];

	if (!shown(v, host)) {
		if (!v->root)
			snprintf(msg, sizeof(msg), "this host's /proc is not on this machine");
		else
			snprintf(msg, sizeof(msg), "cannot read %s/proc/interrupts: %s",
				 strcmp(v->root, "/") ? v->root : "",
				 strerror(v->error ? -v->error : EINVAL));
		json_object_object_add(o, "error", json_object_new_string(msg));
		return o;
	}
	arr = json_object_new_array();
	for (size_t p = 0; p < host->n_packages; p++) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "id", json_object_new_int(
					       host->packages[p].id));
		json_object_object_add(e, "per_s", vcp_json_double3(v->all[p]));
		json_object_object_add(e, "device_per_s",
				       vcp_json_double3(v->dev[p]));
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "seconds", vcp_json_double3(v->seconds));
	json_object_object_add(o, "packages", arr);
	return o;
}

static const char *list_or(const struct vcp_cpuset *s, char *buf, size_t len,
			   const char *none)
{
	if (vcp_cpuset_empty(s))
		return none;
	if (vcp_cpuset_format(s, buf, len) < 0)
		snprintf(buf, len, "(%u CPUs)", vcp_cpuset_count(s));
	return buf;
}

/* Where irqbalance runs: what it was asked, or how to ask it by hand. */
static void irqbalance_text(FILE *f, const struct vcp_irq_report *r)
{
	const struct vcp_irqbalance *b = &r->irqbalance;
	const struct vcp_irqbal_result *t = &r->told;
	char want[1024], now[1024];
	const char *own =
		b->has_banned ? list_or(&b->banned, now, sizeof(now), "\"\"") :
				"unset";

	list_or(&t->ban, want, sizeof(want), "");
	if (t->error && vcp_cpuset_empty(&t->ban)) {
		fprintf(f,
			"irqbalance (pid %d) steers IRQs; giving it its own banned CPUs back failed (%s): restart irqbalance to drop the ban vcpack asked for",
			b->pid, strerror(-t->error));
	} else if (t->error) {
		char why[128];

		if (t->error == -ENOENT)
			snprintf(
				why, sizeof(why),
				"it has no socket /run/irqbalance/irqbalance%d.sock",
				b->pid);
		else
			snprintf(why, sizeof(why), "%s", strerror(-t->error));
		fprintf(f,
			"irqbalance (pid %d) steers IRQs; asking it to keep them off the idle packages failed (%s), and vcpack writes no affinity. Set IRQBALANCE_BANNED_CPULIST=\"%s\" in /etc/default/irqbalance (now %s) and restart irqbalance",
			b->pid, why, want, own);
	} else if (t->gave_back) {
		fprintf(f,
			"irqbalance (pid %d) %s its own banned CPUs back (%s)%s%s",
			b->pid, r->dry_run ? "would be given" : "given", own,
			vcp_cpuset_empty(&r->idle) ?
				": no package idles" :
				", which cover the idle packages",
			r->dry_run ? " (dry run, nothing asked)" : "");
	} else if (t->in_force && t->asked) {
		fprintf(f,
			"irqbalance (pid %d) %s to keep IRQs off CPUs %s (the idle packages'%s)%s",
			b->pid, r->dry_run ? "would be asked" : "asked", want,
			b->has_banned ? " and its own banned ones" : "",
			r->dry_run ?
				" (dry run, nothing asked)" :
				", from its next rescan (every 10 s by default)");
	} else if (t->in_force) {
		fprintf(f,
			"irqbalance (pid %d) keeps IRQs off CPUs %s (the idle packages'%s), as vcpack asked",
			b->pid, want,
			b->has_banned ? " and its own banned ones" : "");
	} else if (!vcp_cpuset_empty(&r->idle)) {
		fprintf(f,
			"irqbalance (pid %d) steers IRQs and already bans CPUs '%s' (the idle packages'); nothing to ask",
			b->pid, own);
	} else {
		fprintf(f,
			"irqbalance (pid %d) steers IRQs; %s, nothing asked (vcpack writes no affinity, nor puts back what it moved before irqbalance started)",
			b->pid,
			r->enabled ? "no package idles" :
				     "irq_affinity is off");
	}
}

char *vcp_irqbalance_said(const struct vcp_irq_report *r)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return NULL;
	irqbalance_text(f, r);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

void vcp_irq_report_text(FILE *f, const struct vcp_irq_report *r)
{
	char want[1024];

	if (!r->acted)
		return;
	if (r->irqbalance.running) {
		fputs("irqs:   ", f);
		irqbalance_text(f, r);
		fputc('\n', f);
		return;
	}
	if (r->dry_run)
		fprintf(f, "irqs:   %zu device IRQs: %zu would move off idle packages (CPUs %s), %zu would be restored, %zu already in place (dry run, nothing changed)",
			r->n_irqs, r->res.moved,
			list_or(&r->idle, want, sizeof(want), "none"),
			r->res.restored, r->kept);
	else
		fprintf(f, "irqs:   %zu device IRQs: %zu moved off idle packages (CPUs %s), %zu restored, %zu managed by the kernel left alone, %zu already in place",
			r->n_irqs, r->res.moved,
			list_or(&r->idle, want, sizeof(want), "none"),
			r->res.restored, r->res.managed, r->kept);
	if (r->res.failed)
		fprintf(f, ", %zu failed (IRQ %u: %s)", r->res.failed,
			r->res.first_failed_irq, strerror(-r->res.first_error));
	fputc('\n', f);
}

/* {cpus, asked, in_force, gave_back, error}: what irqbalance was asked. */
static struct json_object *told_json(const struct vcp_irqbal_result *t)
{
	struct json_object *o = json_object_new_object();
	char buf[1024];

	json_object_object_add(o, "cpus",
			       vcp_cpuset_empty(&t->ban) ?
				       NULL :
				       json_object_new_string(list_or(
					       &t->ban, buf, sizeof(buf), "")));
	json_object_object_add(o, "asked", json_object_new_boolean(t->asked));
	json_object_object_add(o, "in_force",
			       json_object_new_boolean(t->in_force));
	json_object_object_add(o, "gave_back",
			       json_object_new_boolean(t->gave_back));
	json_object_object_add(
		o, "error",
		t->error ? json_object_new_string(strerror(-t->error)) : NULL);
	return o;
}

struct json_object *vcp_irq_report_json(const struct vcp_irq_report *r)
{
	struct json_object *o = json_object_new_object();
	const struct vcp_irqbalance *b = &r->irqbalance;
	char buf[1024];

	json_object_object_add(o, "enabled",
			       json_object_new_boolean(r->enabled));
	json_object_object_add(o, "dry_run",
			       json_object_new_boolean(r->dry_run));
	json_object_object_add(o, "idle_cpus", json_object_new_string(
		list_or(&r->idle, buf, sizeof(buf), "")));
	json_object_object_add(o, "irqbalance_pid", b->running ?
			       json_object_new_int(b->pid) : NULL);
	if (b->running) {
		json_object_object_add(o, "irqbalance_banned", b->has_banned ?
			json_object_new_string(list_or(&b->banned, buf,
						       sizeof(buf), "")) : NULL);
		json_object_object_add(o, "irqbalance_request",
				       told_json(&r->told));
		return o;
	}
	json_object_object_add(o, "irqs", json_object_new_int((int)r->n_irqs));
	json_object_object_add(o, "moved",
			       json_object_new_int((int)r->res.moved));
	json_object_object_add(o, "restored",
			       json_object_new_int((int)r->res.restored));
	json_object_object_add(o, "managed",
			       json_object_new_int((int)r->res.managed));
	json_object_object_add(o, "kept", json_object_new_int((int)r->kept));
	json_object_object_add(o, "failed",
			       json_object_new_int((int)r->res.failed));
	return o;
}
