// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * daemon.c - vcpackd, the host agent, and the owner of the main loop.
 *
 * A GLib main loop with libvirt-glib's event implementation. vcpackd
 * re-plans when a VM starts or stops, when a VM's vcpack tag changes,
 * when the hook says so, and on a timer after each utilisation sample;
 * demand is the windowed peak (demand.c), so the active package set grows
 * at once and shrinks only after the load stayed low for shrink_after
 * seconds. It keeps no state that libvirt does not hold: after its own
 * restart, a kill -9 or a libvirtd restart it re-reads everything, and
 * the original pins live in each VM's metadata. Logging: once per
 * decision (a changed plan, a failure), never per tick.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <glib-unix.h>
#include <glib.h>
#include <json-c/json.h>
#include <libvirt-glib/libvirt-glib-event.h>

#include "apply.h"
#include "backoff.h"
#include "clock.h"
#include "control.h"
#include "ctl.h"
#include "ctlreq.h"
#include "ctlserver.h"
#include "gsrc.h"
#include "cycle.h"
#include "daemonstatus.h"
#include "declog.h"
#include "demand.h"
#include "esc.h"
#include "hostrec.h"
#include "hyst.h"
#include "irq.h"
#include "irqview.h"
#include "kernel.h"
#include "metricspub.h"
#include "mode.h"
#include "passcut.h"
#include "passnews.h"
#include "pinmemo.h"
#include "placers.h"
#include "policy.h"
#include "render.h"
#include "scxrun.h"
#include "rdfile.h"
#include "sdnotify.h"
#include "tags.h"
#include "takeover.h"
#include "virt.h"

#define REPLAN_COALESCE_MS VCP_HYST_COALESCE_MS
#define BACKOFF_MAX_S 10
/* A control client that neither sends nor reads for this long is closed. */
#define CTL_IDLE_MS 10000
#ifndef VCP_VERSION
#define VCP_VERSION "0.1"
#endif

struct daemon {
	const char *uri;
	const char *policy_path;
	const char *socket_path;
	const char *root;
	int force_mode;
	int exit_status; /* main's, once the loop ends */
	bool log_stderr, debug, restore_on_exit;

	GMainLoop *loop;
	struct vcp_virt *v;
	struct vcp_kernel *k;
	enum vcp_mode mode;
	char mode_reason[512];
	struct vcp_policy policy;
	struct vcp_tracker *tracker;
	struct vcp_pin_memo *memo;	/* the pins we set, per VM */
	struct vcp_hyst hyst;		/* hold window, news, resync */
	struct vcp_takeover takeover; /* VMs placed before, not measured */
	bool takeover_said; /* the wait logged since the connect */
	struct json_object *last_status; /* the last plan, for "status" */
	struct vcp_ctl_server *server;
	guint replan_src, sample_src;
	struct vcp_backoff reconnect; /* when to try libvirt again */
	int listen_fd;
	bool irq_advised; /* irqbalance failure logged */
	char *placers_said; /* other placers as last logged; NULL: none */
	struct vcp_passnews news; /* the last decision, to log changes */
	struct vcp_declog *declog;	/* one line per VM decision */
	unsigned long n_replans;
	/* --metrics-dir: the textfile written at each sample */
	const char *metrics_dir, *power_root;
	struct vcp_metrics_pub *metrics;
	int metrics_err;
	bool ready;			/* READY=1 sent to systemd */
	/* `vcpack level` / `pause` (control.h), kept in state_path */
	const char *state_path;
	struct vcp_control ctl;
	/* not enabled: what the log last said it would do */
	char observed_said[256];
	/* scx mode: the scx_vcpack loader started or driven (scxrun.h) */
	struct vcp_scx_run scx;
	/*
	 * Three threads, a main context each: the daemon's loop (d->ctx,
	 * the main thread: every pass, every libvirt call), libvirt's event
	 * loop (the default context: keepalive, domain events; it must run
	 * while a call waits, or keepalive never fires) and the control
	 * socket (ctl_ctx: answers even while the loop waits for libvirt).
	 */
	GMainContext *ctx, *ctl_ctx;
	struct side_loop {
		GMainContext *ctx;
		atomic_bool stop;
	} ev_loop, ctl_loop;
	GThread *ev_thread, *ctl_thread;
	clockid_t main_cpu; /* the main thread's CPU clock */
	/* written by the main thread, read by the control thread: since
	 * when the loop is busy (0: waiting for its next event), its CPU
	 * time then, in what (a static string) */
	_Atomic int64_t busy_since_ms, busy_cpu_ns;
	_Atomic(const char *) busy_in;
	bool stall_said; /* control thread's */
	atomic_bool quitting; /* the loop ends: nobody waits for it */
	unsigned int watchdog_busy_ms; /* WATCHDOG=1 while busy less */
	/* the replies to status and ping when the loop last waited */
	pthread_mutex_t snap_mu;
	char *snap_status, *snap_ping;
};

static struct daemon *the_daemon;

/* One log line: what came from outside in it (VM names, URIs, libvirt's
 * and power commands' words) escaped (esc.h), so that no name ends the
 * line early, forges another or drives the terminal that shows it. */
static void vlog(int prio, const char *fmt, va_list ap)
{
	char *line = NULL;
	const char *shown;

	if (prio == LOG_DEBUG && !the_daemon->debug)
		return;
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	shown = line ? vcp_esc_msg(line) : "out of memory (a log line lost)";
	if (the_daemon->log_stderr) {
		fputs(shown, stderr);
		fputc('\n', stderr);
	} else {
		syslog(prio, "%s", shown);
	}
	free(line);
}

static void log_msg(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void log_msg(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(prio, fmt, ap);
	va_end(ap);
}

static void schedule_replan(struct daemon *d, unsigned int delay_ms);

static void schedule_reconnect(struct daemon *d);
static int reload_policy(struct daemon *d, char *why, size_t len);
static void watch_scx(struct daemon *d);
static void busy_in(struct daemon *d, const char *what);

/* ---- systemd's view (sdnotify.c: no-ops outside systemd) ---- */

/* STATUS=@status, with READY=1 the first time: vcpackd is ready once it
 * has applied a plan or knows it must wait for libvirt. */
__attribute__((format(printf, 2, 3)))
static void notify_status(struct daemon *d, const char *fmt, ...)
{
	char s[512];
	int n = snprintf(s, sizeof(s), "%sSTATUS=", d->ready ? "" : "READY=1\n");
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s + n, sizeof(s) - (size_t)n, fmt, ap);
	va_end(ap);
	vcp_sd_notify(s);
	d->ready = true;
}

static void notify_plan(struct daemon *d, const struct vcp_cycle *cy)
{
	size_t managed = 0;

	for (size_t i = 0; i < cy->w.n_vms; i++)
		managed += cy->w.vms[i].managed;
	notify_status(d, "%s mode, level %d, %zu of %zu packages active, %zu of %zu VMs managed",
		      vcp_mode_name(d->mode),
		      cy->plan->level, cy->plan->n_active, cy->plan->n_packages,
		      managed, cy->w.n_vms);
}

/* ---- the cycle ---- */

static void log_decision(struct daemon *d, const struct vcp_cycle *cy,
			 const struct vcp_apply_result *res)
{
	const struct vcp_plan *p = cy->plan;
	char **lines;
	bool plan;

	vcp_passnews_update(&d->news, p, &cy->w, res, &plan, &lines);
	if (plan)
		log_msg(LOG_INFO, "plan: level %d, %zu of %zu packages active (demand %.2f of %.2f CPUs%s); %zu changes, %zu done, %zu failed",
			p->level, p->n_active, p->n_packages, p->demand,
			p->capacity, p->overcommit > 0 ? ", OVERCOMMITTED" : "",
			res->n, res->n_done, res->n_failed);
	for (char **l = lines; *l; l++)
		log_msg(LOG_WARNING, "%s", *l);
	g_strfreev(lines);
}

/* One line per VM whose decision changed (declog.c). */
static void log_vm_decisions(struct daemon *d, const struct vcp_cycle *cy)
{
	char **lines = NULL;

	if (!d->declog ||
	    vcp_declog_update(d->declog, &cy->w, cy->plan, &lines) < 0)
		return;
	for (char **l = lines; *l; l++)
		log_msg(LOG_INFO, "vm %s", *l);
	g_strfreev(lines);
}

/* --debug: every action of this pass and its outcome, one per line. */
static void log_actions(struct daemon *d, const struct vcp_cycle *cy,
			const struct vcp_apply_result *res)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!d->debug || !cy->acts.n)
		return;
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	vcp_render_actions_text(f, cy->w.vms, &cy->acts, res);
	fclose(f);
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		log_msg(LOG_DEBUG, "apply:%s", l);
	free(buf);
}

/* What the last plan was made from, for `vcpack status` (see answer()). */
static void remember_status(struct daemon *d, const struct vcp_cycle *cy,
			    bool enabled)
{
	json_object_put(d->last_status);
	d->last_status =
		vcp_dstatus_last(&cy->w, cy->plan, d->tracker, time(NULL));
	json_object_object_add(d->last_status, "carried_out",
			       json_object_new_boolean(enabled));
	json_object_object_add(d->last_status, "changes",
			       json_object_new_int((int)cy->acts.n));
}

/* Tell the fleet the mode and level: the host record in each managed VM
 * where it is due (hostrec.h). Failures are not worth a message: the
 * next pass tries again. */
static void record_host(struct daemon *d, const struct vcp_cycle *cy)
{
	struct vcp_host_rec h = { d->mode, cy->plan->level, time(NULL) };

	for (size_t i = 0; i < cy->w.n_vms; i++) {
		char *err = NULL;

		if (!vcp_host_rec_due(&cy->w.vms[i], &h))
			continue;
		vcp_virt_set_host_rec(d->v, cy->w.vms[i].name, &h, &err);
		free(err);
	}
}

/* Someone else re-pinned a VM: say so once, then restate the plan or
 * leave the VM as it is, as the policy says. */
static void foreign_pins(struct daemon *d, struct vcp_cycle *cy)
{
	const char *names[32];
	bool respect = d->policy.respect_foreign_pins;
	size_t n = vcp_pin_memo_check(d->memo, cy->w.vms, cy->w.n_vms, respect,
				      names, 32);

	for (size_t i = 0; i < n; i++)
		log_msg(LOG_NOTICE, "'%s' was re-pinned by someone else; %s",
			names[i], respect ?
			"leaving it as it is (foreign_pins: respect)" :
			"restating the plan (foreign_pins: restate)");
}

/* The root whose /proc/irq is the host's: --root, or "/" for a local
 * QEMU host; NULL otherwise. */
static const char *irq_root(const struct daemon *d)
{
	return d->root ? d->root : d->k ? d->k->root : NULL;
}

/* Device IRQs after the pins (policy irq_affinity); @plan NULL puts
 * back everything recorded. Logs what changed and what irqbalance was
 * asked (a failed request once, until one works). */
static void follow_irqs(struct daemon *d, const struct vcp_host *host,
			const struct vcp_plan *plan, bool enabled)
{
	struct vcp_irq_report rep;
	const struct vcp_irqbalance *b = &rep.irqbalance;
	int r;

	if (!irq_root(d))
		return;
	r = vcp_irq_follow(irq_root(d), host, plan, enabled, &rep);
	if (r < 0) {
		log_msg(LOG_WARNING, "Failed to steer device IRQs: %s",
			strerror(-r));
		return;
	}
	/* what irqbalance was asked; a failure said once until it works */
	if (b->running && (rep.told.asked || rep.told.error) &&
	    !(rep.told.error && d->irq_advised)) {
		char *said = vcp_irqbalance_said(&rep);

		if (said)
			log_msg(rep.told.error ? LOG_NOTICE : LOG_INFO, "%s",
				said);
		free(said);
	}
	d->irq_advised = b->running && rep.told.error;
	if (rep.res.moved || rep.res.restored || rep.res.failed)
		log_msg(rep.res.failed ? LOG_WARNING : LOG_INFO,
			"device IRQs: %zu moved off idle packages, %zu restored, %zu managed left alone, %zu failed",
			rep.res.moved, rep.res.restored, rep.res.managed,
			rep.res.failed);
}

/* numad, tuned's profile, VMs asking libvirt for NUMA placement
 * (placers.h): logged at the first pass that finds one, and again when
 * what is found changes. */
static void say_placers(struct daemon *d, const struct vcp_cycle *cy)
{
	struct vcp_placers p;
	char *said;

	vcp_placers_detect(irq_root(d), &p);
	said = vcp_placers_say(&p, cy->w.vms, cy->w.n_vms);
	if (!said)
		return;
	if (!*said) {
		free(said);
		said = NULL;
	}
	if (said && (!d->placers_said || strcmp(said, d->placers_said)))
		log_msg(LOG_NOTICE, "%s", said);
	else if (!said && d->placers_said)
		log_msg(LOG_NOTICE, "other placers: none found any more");
	free(d->placers_said);
	d->placers_said = said;
}

static bool connection_alive(void *opaque)
{
	return vcp_virt_alive(opaque);
}

/* A pass the connection cut short (passcut.h): what was done is logged
 * without the connection's own errors, and it is planned again once
 * reconnected (connect_libvirt re-plans). */
static void log_interrupted(struct daemon *d, struct vcp_cycle *cy,
			    struct vcp_apply_result *res)
{
	vcp_passcut_settle(&cy->acts, cy->w.vms, res, d->memo);
	log_actions(d, cy, res);
	log_msg(LOG_NOTICE, "re-plan interrupted: the connection to '%s' closed (%zu of %zu changes done); planning again once reconnected",
		d->uri, res->n_done, res->n);
	notify_status(d, "re-plan interrupted: the connection to libvirt closed");
}

/*
 * Not enabled (control.h): the plan is made and shown, nothing is
 * changed. Said when what it would do changes, not at every pass.
 */
static void observe_only(struct daemon *d, const struct vcp_cycle *cy)
{
	char said[256];

	snprintf(said, sizeof(said), "level %d, %zu of %zu packages active, %zu changes",
		 cy->plan->level, cy->plan->n_active, cy->plan->n_packages,
		 cy->acts.n);
	if (strcmp(said, d->observed_said) != 0)
		log_msg(LOG_NOTICE, "not enabled, changing nothing: the plan would be %s ('vcpack plan' lists them; 'vcpack enable' carries it out)",
			said);
	snprintf(d->observed_said, sizeof(d->observed_said), "%s", said);
	notify_status(d, "not enabled: observing only; planned %s", said);
}

/* The pins this pass set, to tell a foreign re-pin later (pinmemo.h).
 * A hands-off plan (level 0) holds none: what an operator pins by hand
 * then is theirs, so the memo starts afresh. */
static int remember_pins(struct daemon *d, const struct vcp_cycle *cy,
			 const struct vcp_apply_result *res)
{
	struct vcp_pin_memo *m;

	if (!cy->plan->hands_off)
		return vcp_pin_memo_record(d->memo, cy->w.vms, cy->w.n_vms,
					   &cy->acts, res);
	if (vcp_pin_memo_new(&m) < 0)
		return -ENOMEM;
	vcp_pin_memo_free(d->memo);
	d->memo = m;
	return 0;
}

/* After a (re)connect, VMs placed before are left as they are until
 * their demand is measured (takeover.h): said once, and to systemd. */
static bool takeover_wait(struct daemon *d, const struct vcp_cycle *cy)
{
	size_t n;

	if (!vcp_takeover_wait(&d->takeover, cy->w.vms, cy->w.n_vms,
			       vcp_mono_ms() / 1000, &n))
		return false;
	if (d->takeover_said)
		return true;
	log_msg(LOG_INFO,
		"taking over %zu VMs placed before as they are: the first plan waits for their measured demand (%us)",
		n, d->hyst.sample_s);
	notify_status(
		d,
		"taking over %zu VMs placed before; planning once their demand is measured",
		n);
	d->takeover_said = true;
	return true;
}

static void replan(struct daemon *d)
{
	struct vcp_cycle cy = { 0 };
	struct vcp_apply_result res = { 0 };
	struct vcp_policy pol = vcp_control_policy(&d->ctl, &d->policy);
	char *err = NULL;
	bool enabled = vcp_control_enabled(&d->ctl, &d->policy, NULL, 0);
	int r;

	if (!d->v || d->ctl.paused)
		return;
	busy_in(d, "a re-plan");
	d->n_replans++;
	vcp_hyst_planned(&d->hyst, vcp_tracker_fingerprint(d->tracker),
			 vcp_mono_ms() / 1000);
	r = vcp_cycle_observe(d->v, d->k, d->mode, 0, d->tracker, &cy, &err);
	if (r == 0 && takeover_wait(d, &cy))
		goto out;
	if (r == 0) {
		foreign_pins(d, &cy);
		say_placers(d, &cy);
		r = vcp_cycle_finish(&pol, time(NULL), &cy, &err);
	}
	if (r == 0 && d->metrics)
		vcp_metrics_pub_plan(d->metrics, cy.w.vms, cy.w.n_vms,
				     &d->policy, cy.plan->level);
	if (r == 0)
		remember_status(d, &cy, enabled);
	if (r == 0 && !enabled) {
		observe_only(d, &cy);
		goto out;
	}
	d->observed_said[0] = '\0';
	if (r == 0)
		r = vcp_apply_actions(d->v, d->k, cy.w.host, cy.w.vms, &cy.acts,
				      &res);
	if (r == 0 && remember_pins(d, &cy, &res) < 0)
		r = -ENOMEM;
	if (r != -ENOMEM &&
	    vcp_passcut_is(r, &res, cy.w.n_issues, connection_alive, d->v)) {
		log_interrupted(d, &cy, &res);
		goto out;
	}
	if (r == 0)
		record_host(d, &cy);
	if (r == 0)
		follow_irqs(d, cy.w.host, cy.plan, d->policy.irq_affinity);
	if (r == 0) {
		log_actions(d, &cy, &res);
		log_decision(d, &cy, &res);
		log_vm_decisions(d, &cy);
		notify_plan(d, &cy);
	} else {
		log_msg(LOG_WARNING, "re-plan failed: %s",
			err ? err : strerror(-r));
		notify_status(d, "re-plan failed: %s", err ? err : strerror(-r));
	}
out:
	free(err);
	vcp_apply_result_clear(&res);
	vcp_cycle_clear(&cy);
}

static gboolean on_replan(gpointer data)
{
	struct daemon *d = data;

	d->replan_src = 0;
	replan(d);
	return G_SOURCE_REMOVE;
}

static void schedule_replan(struct daemon *d, unsigned int delay_ms)
{
	if (d->replan_src)
		return;
	d->replan_src = vcp_gsrc_timeout(d->ctx, delay_ms, on_replan, d);
}

/*
 * After a sample: re-plan on news (hyst.h). An idle host is left alone
 * between: events (start, stop, tags, re-pins) re-plan at once anyway.
 */
static void resync_or_news(struct daemon *d)
{
	if (vcp_hyst_due(&d->hyst, vcp_tracker_fingerprint(d->tracker),
			 vcp_mono_ms() / 1000))
		schedule_replan(d, 0);
}

/* The cost of packing: VMs waiting too long for a host CPU get room. */
static void relieve(struct daemon *d)
{
	const char *names[32];
	size_t n = vcp_tracker_relieve(d->tracker, names, 32);

	for (size_t i = 0; i < n; i++)
		log_msg(LOG_NOTICE, "'%s' waits %.0f%% of the time for a host CPU (max_vcpu_delay %.0f%%): giving it a whole CPU per vCPU",
			names[i], 100 * vcp_tracker_delay(d->tracker, names[i]),
			100 * d->policy.max_vcpu_delay);
}

/* Write the metrics file (metricspub.c); say so once when that fails. */
static void publish(struct daemon *d, const struct vcp_sample *s)
{
	int r = d->metrics ? vcp_metrics_pub_sample(d->metrics, s) : 0;

	if (r < 0 && r != d->metrics_err && vcp_metrics_pub_why(d->metrics))
		log_msg(LOG_ERR, "Power counters not read: %s",
			vcp_metrics_pub_why(d->metrics));
	else if (r < 0 && r != d->metrics_err)
		log_msg(LOG_ERR, "Failed to write metrics to '%s': %s",
			d->metrics_dir, strerror(-r));
	d->metrics_err = r;
}

static gboolean on_sample(gpointer data)
{
	struct daemon *d = data;
	struct vcp_sample *s = NULL;
	char *err = NULL;

	if (!d->v)
		return G_SOURCE_CONTINUE;
	busy_in(d, "a sample");
	watch_scx(d);
	if (vcp_virt_sample(d->v, &s, &err) == 0) {
		if (s->have_vcpu_time && vcp_tracker_update(d->tracker, s) < 0)
			log_msg(LOG_ERR, "out of memory tracking demand");
		else if (s->have_vcpu_time)
			relieve(d);
		publish(d, s);
		vcp_sample_free(s);
		resync_or_news(d);
		/* a pass that waited for this measurement */
		if (d->takeover.on)
			schedule_replan(d, 0);
	} else {
		log_msg(LOG_DEBUG, "sampling failed: %s", err ? err : "?");
	}
	free(err);
	return G_SOURCE_CONTINUE;
}

/* ---- libvirt connection ---- */

/* Run @fn(@data) on the daemon's loop, never at once (libvirt's
 * callbacks come from its event thread, or from inside a call on the
 * loop's own thread, where re-entering libvirt is not safe); @done frees
 * @data afterwards. */
static void on_loop(struct daemon *d, GSourceFunc fn, void *data,
		    GDestroyNotify done)
{
	GSource *src = g_timeout_source_new(0);

	g_source_set_callback(src, fn, data, done);
	g_source_attach(src, d->ctx);
	g_source_unref(src);
}

struct domain_news {
	struct daemon *d;
	enum vcp_virt_event what;
	char name[];
};

static gboolean on_domain_news(gpointer data)
{
	struct domain_news *n = data;
	struct daemon *d = n->d;
	static const char *const names[] = { "started", "stopped",
					     "metadata changed", "re-pinned",
					     "changed" };

	log_msg(LOG_DEBUG, "domain '%s' %s", n->name, names[n->what]);
	if (n->what == VCP_EV_OTHER)
		return G_SOURCE_REMOVE;
	if (n->what != VCP_EV_TUNABLE)
		vcp_pin_memo_forget(d->memo, n->name);
	/* A re-pin by someone else is restated by the next plan; our own
	 * pins raise the same event and re-plan to no change. */
	schedule_replan(d, REPLAN_COALESCE_MS);
	return G_SOURCE_REMOVE;
}

/* On libvirt's event thread: handed to the loop. */
static void on_domain(void *opaque, const char *name, enum vcp_virt_event what)
{
	size_t len = strlen(name) + 1;
	struct domain_news *n = malloc(sizeof(*n) + len);

	if (!n)
		return;
	n->d = opaque;
	n->what = what;
	memcpy(n->name, name, len);
	on_loop(n->d, on_domain_news, n, free);
}

/* Out of libvirt's close callback: closing the connection from inside
 * it would re-enter libvirt on a connection it is tearing down. */
static gboolean on_lost(gpointer data)
{
	struct daemon *d = data;

	schedule_reconnect(d);
	return G_SOURCE_REMOVE;
}

static void on_closed(void *opaque)
{
	struct daemon *d = opaque;

	log_msg(LOG_WARNING, "connection to '%s' closed; reconnecting", d->uri);
	on_loop(d, on_lost, d, NULL);
}

/* The mode and why (mode.h); in scx mode scx_vcpack is loaded now.
 * False: --mode asked for a mode this host cannot run (the reason says
 * why). */
static bool detect_mode(struct daemon *d)
{
	struct vcp_mode_choice c;

	vcp_kernel_free(d->k);
	d->k = NULL;
	d->mode = VCP_MODE_PIN;
	if (vcp_scx_run_detect(&d->scx, d->v, d->root, d->force_mode, &d->k,
			       &c) < 0) {
		snprintf(d->mode_reason, sizeof(d->mode_reason), "out of memory");
		return true;
	}
	d->mode = c.mode;
	snprintf(d->mode_reason, sizeof(d->mode_reason), "%s", c.reason);
	return !c.refused;
}

/* scx mode, and scx_vcpack is gone (ejected, exited): pin mode now. */
static void watch_scx(struct daemon *d)
{
	if (d->mode != VCP_MODE_SCX || !d->k ||
	    vcp_scx_run_alive(&d->scx, d->k->root))
		return;
	detect_mode(d);
	log_msg(LOG_WARNING, "scx_vcpack %s; %s mode: %s", d->scx.failed,
		vcp_mode_name(d->mode), d->mode_reason);
	vcp_passnews_forget(&d->news);
	schedule_replan(d, 0);
}

/*
 * Connected: a sample now, so that demand is measured one interval from
 * now (the next sample a whole interval after it), and the passes until
 * then may wait for the VMs placed before (takeover.h).
 */
static void first_sample(struct daemon *d)
{
	struct vcp_sample *s = NULL;
	char *err = NULL;
	bool measurable = false;

	if (vcp_virt_sample(d->v, &s, &err) == 0) {
		measurable = s->have_vcpu_time &&
			     vcp_tracker_update(d->tracker, s) == 0;
		vcp_sample_free(s);
	}
	free(err);
	vcp_takeover_start(&d->takeover, measurable, vcp_mono_ms() / 1000,
			   d->hyst.sample_s);
	d->takeover_said = false;
	if (d->sample_src)
		vcp_gsrc_remove(d->ctx, d->sample_src);
	d->sample_src =
		vcp_gsrc_seconds(d->ctx, d->hyst.sample_s, on_sample, d);
}

static int connect_libvirt(struct daemon *d)
{
	struct vcp_virt_watch w = { .domain = on_domain, .closed = on_closed,
				    .opaque = d };
	char *err = NULL;
	int r;

	busy_in(d, "connecting");
	r = vcp_virt_open(d->uri, false, &d->v, &err);

	if (r == 0)
		r = vcp_virt_watch(d->v, &w, &err);
	if (r < 0) {
		log_msg(LOG_WARNING, "%s", err ? err : strerror(-r));
		free(err);
		vcp_virt_close(d->v);
		d->v = NULL;
		return r;
	}
	vcp_virt_keepalive(d->v, VCP_VIRT_KEEPALIVE_S,
			   VCP_VIRT_KEEPALIVE_COUNT);
	if (!detect_mode(d)) {
		/* as a bad option: nothing touched, the unit fails */
		log_msg(LOG_ERR, "%s; vcpackd stops, nothing changed",
			d->mode_reason);
		d->exit_status = 1;
		g_main_loop_quit(d->loop);
		return -EINVAL;
	}
	log_msg(LOG_INFO, "connected to '%s'; %s mode: %s", vcp_virt_uri(d->v),
		vcp_mode_name(d->mode), d->mode_reason);
	vcp_passnews_forget(&d->news);
	first_sample(d);
	schedule_replan(d, 0);
	return 0;
}

static gboolean on_reconnect(gpointer data)
{
	vcp_backoff_fire(data);
	return G_SOURCE_REMOVE;
}

/* The reconnect backoff's clock and attempt (backoff.h). */
static void arm_reconnect(struct vcp_backoff *b, unsigned int s)
{
	struct daemon *d = b->opaque;

	vcp_gsrc_seconds(d->ctx, s, on_reconnect, b);
}

static int attempt_connect(struct vcp_backoff *b)
{
	return connect_libvirt(b->opaque);
}

static void say_waiting(struct vcp_backoff *b, unsigned int s)
{
	struct daemon *d = b->opaque;

	notify_status(d, "waiting for libvirt at '%s' (retry in %us)", d->uri,
		      s);
}

static const struct vcp_backoff_ops reconnect_ops = {
	.arm = arm_reconnect,
	.attempt = attempt_connect,
	.waiting = say_waiting,
};

/* The connection is gone: close it, try again after the backoff. */
static void schedule_reconnect(struct daemon *d)
{
	vcp_virt_close(d->v);
	d->v = NULL;
	vcp_backoff_lost(&d->reconnect);
}

/* ---- the control socket (hook notifications, queries) ---- */

/* Change the control state (a request), keep it in the state file, then
 * re-plan unless paused. NULL, or why it was refused (nothing changed). */
static const char *control_set(struct daemon *d, const struct vcp_req *req)
{
	struct vcp_control c;
	struct vcp_pin_memo *m;
	const char *news;
	char buf[64];
	int r;

	if (vcp_ctlreq_apply(&d->ctl, req, time(NULL), &c) < 0)
		return "level: must be 0, 1, 2, auto or policy";
	r = vcp_control_save(d->state_path, &c);
	if (r < 0) {
		log_msg(LOG_ERR, "Failed to write '%s': %s", d->state_path,
			strerror(-r));
		return "vcpackd could not write its state file (see its log); nothing changed";
	}
	news = vcp_ctlreq_news(&d->ctl, &c, req->op, buf, sizeof(buf));
	if (news)
		log_msg(LOG_NOTICE, "%s", news);
	/* what changed while paused was the operator's doing, not a
	 * foreign re-pin: start the memo afresh */
	if (d->ctl.paused && !c.paused && vcp_pin_memo_new(&m) == 0) {
		vcp_pin_memo_free(d->memo);
		d->memo = m;
	}
	d->ctl = c;
	if (!c.paused)
		replan(d);
	else
		notify_status(d, "paused: nothing is changed until 'vcpack resume'");
	return NULL;
}

/* The daemon's state as a status reply is made of, at local time @tm. */
static void status_now(const struct daemon *d, struct tm *tm,
		       struct vcp_dstatus *ret)
{
	time_t now = time(NULL);

	localtime_r(&now, tm);
	*ret = (struct vcp_dstatus){
		.pid = getpid(),
		.uri = d->v ? vcp_virt_uri(d->v) : d->uri,
		.connected = d->v != NULL,
		.mode = d->mode,
		.mode_reason = d->mode_reason,
		.replans = d->n_replans,
		.ctl = &d->ctl,
		.policy = &d->policy,
		.tm = tm,
		.state_path = d->state_path,
		.last = d->last_status,
	};
}

/* Do what one request asks, then answer it (daemonstatus.h). */
static struct json_object *answer(void *opaque, const struct vcp_req *req,
				  char **ret_error)
{
	struct daemon *d = opaque;
	const char *why = NULL;
	static char reload_why[1024];
	struct vcp_dstatus s;
	struct tm tm;

	switch (req->op) {
	case VCP_REQ_HOOK:
		log_msg(LOG_DEBUG, "hook: %s %s %s", req->event, req->sub, req->vm);
		schedule_replan(d, strcmp(req->event, "started") == 0 ?
				0 : REPLAN_COALESCE_MS);
		break;
	case VCP_REQ_REPLAN:
		replan(d);
		break;
	case VCP_REQ_RELOAD:
		if (reload_policy(d, reload_why, sizeof(reload_why)) < 0)
			why = reload_why;
		break;
	case VCP_REQ_LEVEL:
	case VCP_REQ_PAUSE:
	case VCP_REQ_RESUME:
	case VCP_REQ_ENABLE:
	case VCP_REQ_DISABLE:
		why = control_set(d, req);
		break;
	case VCP_REQ_STATUS:
	case VCP_REQ_PING:
		break;
	}
	if (why) {
		*ret_error = strdup(why);
		return NULL;
	}
	status_now(d, &tm, &s);
	return vcp_dstatus_reply(req->op, &s);
}

/* ---- the loop busy: what the control thread knows of it ---- */

/* The main thread's CPU time, from any thread (ns; 0 if unreadable). */
static int64_t main_cpu_ns(const struct daemon *d)
{
	struct timespec ts;

	if (clock_gettime(d->main_cpu, &ts) < 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The loop's phase, shown while it is busy (a static string). */
static void busy_in(struct daemon *d, const char *what)
{
	atomic_store(&d->busy_in, what);
}

/* What status and ping would answer now, kept for the control thread to
 * answer with while the loop is busy. */
static void snapshot(struct daemon *d)
{
	struct json_object *st, *pg;
	struct vcp_dstatus s;
	struct tm tm;
	char *a, *b;

	status_now(d, &tm, &s);
	st = vcp_dstatus_reply(VCP_REQ_STATUS, &s);
	pg = vcp_dstatus_reply(VCP_REQ_PING, &s);
	a = strdup(json_object_to_json_string_ext(st, JSON_C_TO_STRING_PLAIN));
	b = strdup(json_object_to_json_string_ext(pg, JSON_C_TO_STRING_PLAIN));
	json_object_put(st);
	json_object_put(pg);
	pthread_mutex_lock(&d->snap_mu);
	if (a && b) {
		free(d->snap_status);
		free(d->snap_ping);
		d->snap_status = a;
		d->snap_ping = b;
		a = b = NULL;
	}
	pthread_mutex_unlock(&d->snap_mu);
	free(a);
	free(b);
}

static GPollFunc base_poll;

/* The loop's poll: idle from here until an event, busy after. */
static gint loop_poll(GPollFD *fds, guint n, gint timeout)
{
	struct daemon *d = the_daemon;
	struct timespec ts;
	gint r;

	snapshot(d);
	busy_in(d, "a pass");
	atomic_store(&d->busy_since_ms, 0);
	r = base_poll(fds, n, timeout);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	atomic_store(&d->busy_cpu_ns,
		     (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
	atomic_store(&d->busy_since_ms, (int64_t)vcp_mono_ms());
	return r;
}

/*
 * How long the loop has been busy (ms; 0: not busy) and whether it is
 * waiting rather than working: its thread used under a fifth of that
 * time on a CPU, so it sits in a call (libvirt's, in a pass).
 */
static int64_t busy_ms(const struct daemon *d, bool *waiting)
{
	int64_t since = atomic_load(&d->busy_since_ms);
	int64_t cpu = main_cpu_ns(d) - atomic_load(&d->busy_cpu_ns);
	int64_t ms = since ? (int64_t)vcp_mono_ms() - since : 0;

	if (ms < 0)
		ms = 0;
	*waiting = ms > 0 && cpu / 1000000 * 5 < ms;
	return ms;
}

/*
 * The control thread serves one request at a time: one that needs the
 * loop (replan, pause, level, ...) waits for it while it works, but not
 * once it has waited for libvirt this long (then others would wait
 * behind it); status, ping and hook notifications wait CTL_QUICK_MS at
 * most (`vcpack status` gives vcpackd a second). Past STALL_MS of
 * waiting the log says so.
 */
#define CTL_WAIT_MS 1000
#define CTL_QUICK_MS 400
#define STALL_MS 3000

/* The "busy" member of an answer given without the loop. */
static struct json_object *busy_json(struct daemon *d, int64_t ms, bool waiting)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "for_ms", json_object_new_int64(ms));
	json_object_object_add(
		o, "since",
		json_object_new_int64((int64_t)time(NULL) - ms / 1000));
	json_object_object_add(
		o, "in", json_object_new_string(atomic_load(&d->busy_in)));
	json_object_object_add(o, "waiting", json_object_new_boolean(waiting));
	json_object_object_add(o, "uri", json_object_new_string(d->uri));
	return o;
}

/* Answer @op from the snapshot, with what keeps the loop: status and
 * ping only; anything else is refused saying so. */
static struct json_object *answer_busy(struct daemon *d, enum vcp_req_op op,
				       char **ret_error)
{
	bool waiting;
	int64_t ms = busy_ms(d, &waiting);
	struct json_object *o = NULL, *st;
	char *text;

	if (op != VCP_REQ_STATUS && op != VCP_REQ_PING) {
		if (asprintf(ret_error,
			     "vcpackd is busy: %s for %" PRId64 ".%" PRId64
			     " s, %s%s%s; it carries out '%s' once that ends",
			     (const char *)atomic_load(&d->busy_in), ms / 1000,
			     ms % 1000 / 100,
			     waiting ? "waiting for libvirt at '" : "working",
			     waiting ? d->uri : "", waiting ? "'" : "",
			     vcp_req_op_name(op)) < 0)
			*ret_error = NULL;
		return NULL;
	}
	pthread_mutex_lock(&d->snap_mu);
	text = strdup(op == VCP_REQ_STATUS ? d->snap_status : d->snap_ping);
	pthread_mutex_unlock(&d->snap_mu);
	if (text)
		o = json_tokener_parse(text);
	free(text);
	if (!o)
		return NULL;
	st = o;
	if (op == VCP_REQ_STATUS &&
	    !json_object_object_get_ex(o, "status", &st)) {
		json_object_put(o);
		return NULL;
	}
	json_object_object_add(st, "busy", busy_json(d, ms, waiting));
	return o;
}

/* A request handed from the control thread to the loop. */
struct job {
	struct daemon *d;
	struct vcp_req req;
	struct json_object *fields;
	char *error;
	bool done, dropped;
	gint refs;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* CLOCK_MONOTONIC */
};

/* pthread's, not GLib's, so that ThreadSanitizer sees them */
static int job_init(struct job *j)
{
	pthread_condattr_t ca;
	int r;

	if (pthread_condattr_init(&ca))
		return -ENOMEM;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	r = pthread_cond_init(&j->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (r)
		return -ENOMEM;
	pthread_mutex_init(&j->mu, NULL);
	return 0;
}

static void job_unref(gpointer data)
{
	struct job *j = data;

	if (!g_atomic_int_dec_and_test(&j->refs))
		return;
	json_object_put(j->fields);
	free(j->error);
	pthread_mutex_destroy(&j->mu);
	pthread_cond_destroy(&j->cv);
	free(j);
}

/* On the loop: do what it asks (answer()); the answer to a client that
 * stopped waiting is dropped (what it asked is done all the same). */
static gboolean run_job(gpointer data)
{
	struct job *j = data;
	char *err = NULL;
	struct json_object *f;

	busy_in(j->d, "a control request");
	f = answer(j->d, &j->req, &err);
	pthread_mutex_lock(&j->mu);
	j->fields = f;
	j->error = err;
	j->done = true;
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
	return G_SOURCE_REMOVE;
}

/*
 * The control socket's handler, on its own thread: the loop answers
 * (answer()), unless it is busy too long: status and ping then answer
 * from the last snapshot with a "busy" member, and other requests are
 * refused once the loop has waited STALL_MS (they are carried out when
 * it is free again).
 */
static struct json_object *ctl_answer(void *opaque, const struct vcp_req *req,
				      char **ret_error)
{
	struct daemon *d = opaque;
	struct job *j = calloc(1, sizeof(*j));
	int64_t start = g_get_monotonic_time();
	struct json_object *f = NULL;
	bool quick = req->op == VCP_REQ_STATUS || req->op == VCP_REQ_PING ||
		     req->op == VCP_REQ_HOOK;
	bool done;

	if (!j)
		return NULL;
	j->d = d;
	j->req = *req;
	j->refs = 2;
	if (job_init(j) < 0) {
		free(j);
		return NULL;
	}
	on_loop(d, run_job, j, job_unref);
	pthread_mutex_lock(&j->mu);
	while (!j->done) {
		struct timespec ts;
		bool waiting;
		int64_t ms;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 50 * 1000 * 1000;
		ts.tv_sec += ts.tv_nsec / 1000000000;
		ts.tv_nsec %= 1000000000;
		pthread_cond_timedwait(&j->cv, &j->mu, &ts);
		if (j->done || atomic_load(&d->quitting))
			break;
		ms = busy_ms(d, &waiting);
		if (quick ? (g_get_monotonic_time() - start) / 1000 >=
				    CTL_QUICK_MS :
			    ms >= CTL_WAIT_MS && waiting)
			break;
	}
	done = j->done;
	if (done) {
		f = j->fields;
		*ret_error = j->error;
		j->fields = NULL;
		j->error = NULL;
	}
	pthread_mutex_unlock(&j->mu);
	job_unref(j);
	return done ? f : answer_busy(d, req->op, ret_error);
}

/* Said once a stall passes STALL_MS, and when it ends (control thread). */
static gboolean on_ctl_tick(gpointer data)
{
	struct daemon *d = data;
	bool waiting;
	int64_t ms = busy_ms(d, &waiting);

	if (!d->stall_said && ms >= STALL_MS && waiting) {
		log_msg(LOG_WARNING,
			"libvirt at '%s' has not answered for %" PRId64
			" s (in %s): the control socket answers from the last status until it does or the connection gives up (keepalive)",
			d->uri, ms / 1000,
			(const char *)atomic_load(&d->busy_in));
		d->stall_said = true;
	} else if (d->stall_said && ms < STALL_MS) {
		log_msg(LOG_NOTICE, "vcpackd's loop is answering again");
		d->stall_said = false;
	}
	return G_SOURCE_CONTINUE;
}

/* WatchdogSec=: WATCHDOG=1 at half the period (control thread), unless
 * the loop has been busy a whole period: past libvirt's keepalive bound
 * (~20 s) it is stuck, and systemd may restart vcpackd. */
static gboolean on_watchdog(gpointer data)
{
	struct daemon *d = data;
	bool waiting;

	if (busy_ms(d, &waiting) < d->watchdog_busy_ms)
		vcp_sd_notify("WATCHDOG=1");
	return G_SOURCE_CONTINUE;
}

/*
 * A thread's loop, until stop_loop(). A flag and a wakeup, not
 * g_main_loop_quit(): a quit that comes before the thread runs its loop
 * would be lost (g_main_loop_run starts by setting it running again), and
 * vcpackd, refusing its --mode at the first connect, then hung in the
 * join, deaf to SIGTERM.
 */
static gpointer run_loop(gpointer data)
{
	struct side_loop *sl = data;

	g_main_context_push_thread_default(sl->ctx);
	while (!atomic_load(&sl->stop))
		g_main_context_iteration(sl->ctx, TRUE);
	g_main_context_pop_thread_default(sl->ctx);
	return NULL;
}

static void stop_loop(struct side_loop *sl, GThread *t)
{
	atomic_store(&sl->stop, true);
	g_main_context_wakeup(sl->ctx);
	if (t)
		g_thread_join(t);
}

static void on_server_note(void *opaque, const char *msg)
{
	log_msg(LOG_WARNING, "%s", msg);
}

static int serve(struct daemon *d)
{
	struct rlimit rl = { 0 };
	struct vcp_ctl_server_conf conf = {
		.idle_ms = CTL_IDLE_MS,
		.handle = ctl_answer,
		.note = on_server_note,
		.opaque = d,
		.ctx = d->ctl_ctx,
	};

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		rl.rlim_cur = 1024;
	conf.max_clients = vcp_proto_client_limit(rl.rlim_cur);
	return vcp_ctl_server_new(d->listen_fd, &conf, &d->server);
}

static int listen_socket(struct daemon *d)
{
	int r = vcp_ctl_listen(d->socket_path, &d->listen_fd);

	return r < 0 ? r : serve(d);
}

/* ---- signals ---- */

static void restore_all(struct daemon *d)
{
	struct vcp_world w = { 0 };
	struct vcp_restore_result res = { 0 };
	char *err = NULL;

	if (!d->v ||
	    vcp_observe_to_restore(d->v, d->k, d->mode, &w, &err) < 0) {
		log_msg(LOG_ERR, "restore on exit failed: %s",
			err ? err : "not connected");
		free(err);
		return;
	}
	follow_irqs(d, w.host, NULL, false);
	if (vcp_apply_restore(d->v, d->k, w.host, w.vms, w.n_vms, NULL, &res) == 0)
		log_msg(res.n_failed ? LOG_WARNING : LOG_INFO,
			"restored %zu VMs to their original pins (%zu failed)",
			res.n - res.n_failed, res.n_failed);
	vcp_restore_result_clear(&res);
	vcp_world_clear(&w);
}

static gboolean on_term(gpointer data)
{
	struct daemon *d = data;

	log_msg(LOG_INFO, "terminating%s",
		d->restore_on_exit ? "; restoring every VM" : "");
	vcp_sd_notify("STOPPING=1");
	if (d->restore_on_exit)
		restore_all(d);
	g_main_loop_quit(d->loop);
	return G_SOURCE_CONTINUE;
}

/* Read the policy; a refusal is logged and, with @why, said there
 * (@len bytes). */
static int load_policy(struct daemon *d, struct vcp_policy *ret, char *why,
		       size_t len)
{
	const char *path;
	char *err = NULL;
	int r = vcp_policy_load_host(d->policy_path, ret, &path, &err);

	if (r < 0) {
		log_msg(LOG_ERR, "Refusing policy '%s': %s", path,
			err ? err : strerror(-r));
		if (why)
			snprintf(why, len, "refusing policy '%s': %s; keeping the previous policy",
				 path, err ? err : strerror(-r));
	}
	free(err);
	return r;
}

static int load_control(struct daemon *d)
{
	char *err = NULL;
	int r = vcp_control_load(d->state_path, &d->ctl, &err);

	if (r < 0)
		log_msg(LOG_ERR, "Refusing the state file '%s': %s", d->state_path,
			err ? err : strerror(-r));
	else if (d->ctl.paused)
		log_msg(LOG_NOTICE, "paused (since %lld): nothing is changed until 'vcpack resume'",
			d->ctl.paused_since);
	free(err);
	return r;
}

static gboolean on_sample(gpointer data);

/* A reload's sample_interval and shrink_after take effect now: the
 * timer re-armed, the held demand re-windowed (hyst.h). Every other key
 * is read at the next plan. */
static void rehold(struct daemon *d, unsigned int changed)
{
	if (changed & VCP_HYST_RESAMPLE) {
		vcp_gsrc_remove(d->ctx, d->sample_src);
		d->sample_src = vcp_gsrc_seconds(d->ctx, d->hyst.sample_s,
						 on_sample, d);
	}
	if ((changed & VCP_HYST_REWINDOW) &&
	    vcp_tracker_set_window(d->tracker, d->hyst.window) < 0)
		log_msg(LOG_ERR,
			"out of memory: demand still held over the old window");
	log_msg(LOG_INFO, "policy reloaded: sampling every %us, demand held %u samples; every key applies",
		d->hyst.sample_s, d->hyst.window);
}

/* Re-read the policy (SIGHUP, `vcpack reload`): 0, or -EINVAL with
 * @why saying why the previous one stays. */
static int reload_policy(struct daemon *d, char *why, size_t len)
{
	struct vcp_policy p;
	char s[64];

	snprintf(s, sizeof(s), "RELOADING=1\nMONOTONIC_USEC=%" PRIu64,
		 vcp_mono_ns() / 1000u);
	vcp_sd_notify(s);
	if (load_policy(d, &p, why, len) < 0) {
		log_msg(LOG_WARNING, "keeping the previous policy");
		vcp_sd_notify("READY=1");
		return -EINVAL;
	}
	vcp_policy_clear(&d->policy);
	d->policy = p;
	vcp_tracker_set_max_delay(d->tracker, d->policy.max_vcpu_delay);
	rehold(d, vcp_hyst_reload(&d->hyst, &d->policy));
	vcp_sd_notify("READY=1");
	schedule_replan(d, 0);
	return 0;
}

static gboolean on_hup(gpointer data)
{
	reload_policy(data, NULL, 0);
	return G_SOURCE_CONTINUE;
}

/* ---- main ---- */

static const char *const usage_text =
	"Usage: vcpackd [OPTIONS]\n"
	"The vcpack host agent: keeps KVM guests on as few CPU packages as\n"
	"the load allows, reacting to libvirt events and measured load.\n\n"
	"  -c, --connect URI      libvirt URI (default qemu:///system)\n"
	"  -p, --policy FILE      policy (default " VCP_POLICY_PATH ")\n"
	"  -s, --socket PATH      control socket (default " VCP_CTL_SOCKET ")\n"
	"      --restore-on-exit  on SIGTERM put every VM back as it was\n"
	"      --mode auto|pin|kernel|scx\n"
	"      --scx-loader PATH  scx_vcpack, loaded in scx mode (default: from PATH)\n"
	"      --scx-pindir DIR   where scx_vcpack pins its maps\n"
	"                         (default " VCP_SCX_PINDIR ")\n"
	"      --metrics-dir DIR  write DIR/vcpack.prom (Prometheus text) at\n"
	"                         each sample, for node_exporter's textfile collector\n"
	"      --power-root DIR   read power counters from a fixture tree\n"
	"      --state FILE       run-time control state (vcpack level, pause)\n"
	"                         (default " VCP_CONTROL_STATE ")\n"
	"  -f, --log-stderr       log to stderr instead of syslog (vcpackd never\n"
	"                         forks: --foreground is an old name of this)\n"
	"  -d, --debug            log every event too\n"
	"  -h, --help\n"
	"  -V, --version\n";

static int parse_args(struct daemon *d, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "connect", required_argument, NULL, 'c' },
		{ "policy", required_argument, NULL, 'p' },
		{ "socket", required_argument, NULL, 's' },
		{ "restore-on-exit", no_argument, NULL, 'R' },
		{ "mode", required_argument, NULL, 'm' },
		{ "root", required_argument, NULL, 'r' },
		{ "metrics-dir", required_argument, NULL, 'M' },
		{ "power-root", required_argument, NULL, 'P' },
		{ "log-stderr", no_argument, NULL, 'f' },
		/* the old name: vcpackd never forks, -f only picks the log */
		{ "foreground", no_argument, NULL, 'f' },
		{ "debug", no_argument, NULL, 'd' },
		{ "state", required_argument, NULL, 'S' },
		{ "scx-loader", required_argument, NULL, 'X' },
		{ "scx-pindir", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	int o;

	opterr = 0; /* said below, "vcpackd:" first, not argv[0] */
	while ((o = getopt_long(argc, argv, ":c:p:s:fdhV", opts, NULL)) != -1) {
		switch (o) {
		case 'c': d->uri = optarg; break;
		case 'p': d->policy_path = optarg; break;
		case 's': d->socket_path = optarg; break;
		case 'R': d->restore_on_exit = true; break;
		case 'r': d->root = optarg; break;
		case 'M': d->metrics_dir = optarg; break;
		case 'P': d->power_root = optarg; break;
		case 'f':
			d->log_stderr = true;
			break;
		case 'd': d->debug = true; break;
		case 'm':
			d->force_mode = vcp_mode_parse(optarg);
			if (d->force_mode == -2) {
				fprintf(stderr,
					"vcpackd: --mode '%s' is not one of auto, pin, kernel, scx\n",
					vcp_esc(optarg));
				return 2;
			}
			break;
		case 'S': d->state_path = optarg; break;
		case 'X': d->scx.conf.bin = optarg; break;
		case 'D': d->scx.conf.pindir = optarg; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': puts("vcpackd " VCP_VERSION); exit(0);
		case ':':
			fprintf(stderr,
				"vcpackd: missing the argument of option '%s' (see 'vcpackd --help')\n",
				vcp_esc(argv[optind - 1]));
			return 2;
		default:
			if (optopt && strncmp(argv[optind - 1], "--", 2))
				fprintf(stderr,
					"vcpackd: unknown option '-%c' (see 'vcpackd --help')\n",
					optopt);
			else
				fprintf(stderr,
					"vcpackd: unknown option '%s' (see 'vcpackd --help')\n",
					vcp_esc(argv[optind - 1]));
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vcpackd: unexpected argument '%s'\n",
			vcp_esc(argv[optind]));
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct daemon d = { .uri = "qemu:///system",
			    .force_mode = -1,
			    .socket_path = VCP_CTL_SOCKET,
			    .state_path = VCP_CONTROL_STATE,
			    .listen_fd = -1,
			    .reconnect = VCP_BACKOFF_INIT(&reconnect_ops, &d,
							  BACKOFF_MAX_S),
			    .news = VCP_PASSNEWS_INIT };
	uint64_t wd_usec;
	int r;

	the_daemon = &d;
	r = parse_args(&d, argc, argv);
	if (r)
		return r;
	if (!d.log_stderr)
		openlog("vcpackd", LOG_PID, LOG_DAEMON);
	/* a client that hangs up before our reply must not kill us */
	signal(SIGPIPE, SIG_IGN);
	if (load_policy(&d, &d.policy, NULL, 0) < 0 || load_control(&d) < 0)
		return 2;
	vcp_hyst_init(&d.hyst, &d.policy);
	if (vcp_tracker_new(d.hyst.window, &d.tracker) < 0 ||
	    vcp_pin_memo_new(&d.memo) < 0 || vcp_declog_new(&d.declog) < 0)
		return 1;
	vcp_tracker_set_max_delay(d.tracker, d.policy.max_vcpu_delay);
	/* a wrong --power-root is said as such, not as a bad --metrics-dir */
	if (d.metrics_dir && d.power_root && !vcp_is_dir(d.power_root, &r)) {
		log_msg(LOG_ERR, "Refusing --power-root '%s': %s", d.power_root,
			strerror(-r));
		return 2;
	}
	r = d.metrics_dir ? vcp_metrics_pub_new(d.metrics_dir, d.power_root,
						!vcp_uri_not_here(d.uri),
						&d.metrics) : 0;
	if (r < 0) {
		log_msg(LOG_ERR, "Refusing --metrics-dir '%s': %s",
			d.metrics_dir, strerror(-r));
		return 2;
	}
	/* libvirt's events on the default context, run by a thread of their
	 * own; the daemon's loop on its own context, on this thread */
	gvir_event_register();
	d.ev_loop.ctx = g_main_context_default();
	d.ctx = g_main_context_new();
	g_main_context_push_thread_default(d.ctx);
	d.loop = g_main_loop_new(d.ctx, FALSE);
	base_poll = g_main_context_get_poll_func(d.ctx);
	g_main_context_set_poll_func(d.ctx, loop_poll);
	if (pthread_getcpuclockid(pthread_self(), &d.main_cpu) != 0)
		d.main_cpu = CLOCK_THREAD_CPUTIME_ID;
	pthread_mutex_init(&d.snap_mu, NULL);
	d.ctl_ctx = g_main_context_new();
	d.ctl_loop.ctx = d.ctl_ctx;
	d.ev_thread = g_thread_new("vcpackd-libvirt", run_loop, &d.ev_loop);
	r = listen_socket(&d);
	if (r < 0) {
		log_msg(LOG_ERR, "Failed to listen on '%s': %s", d.socket_path,
			strerror(-r));
		return 1;
	}
	snapshot(&d);
	if (vcp_sd_watchdog_usec(&wd_usec) == 0) {
		d.watchdog_busy_ms = MAX(wd_usec / 1000, 1);
		vcp_gsrc_timeout(d.ctl_ctx, MAX(wd_usec / 2000, 1), on_watchdog,
				 &d);
	}
	vcp_gsrc_timeout(d.ctl_ctx, 1000, on_ctl_tick, &d);
	d.ctl_thread = g_thread_new("vcpackd-control", run_loop, &d.ctl_loop);
	vcp_backoff_try(&d.reconnect);
	if (!d.sample_src) /* (a first connect made it) */
		d.sample_src =
			vcp_gsrc_seconds(d.ctx, d.hyst.sample_s, on_sample, &d);
	vcp_gsrc_signal(d.ctx, SIGTERM, on_term, &d);
	vcp_gsrc_signal(d.ctx, SIGINT, on_term, &d);
	vcp_gsrc_signal(d.ctx, SIGHUP, on_hup, &d);
	/* a refusal at the first connection came before the loop ran */
	if (!d.exit_status) {
		log_msg(LOG_INFO,
			"vcpackd started (policy sample every %us, shrink after %us)",
			d.policy.sample_interval_s, d.policy.shrink_after_s);
		g_main_loop_run(d.loop);
	}
	vcp_scx_run_stop(&d.scx);
	atomic_store(&d.quitting, true);
	stop_loop(&d.ctl_loop, d.ctl_thread);
	vcp_ctl_server_free(d.server);
	unlink(d.socket_path);
	close(d.listen_fd);
	vcp_virt_close(d.v);
	vcp_kernel_free(d.k);
	vcp_tracker_free(d.tracker);
	vcp_pin_memo_free(d.memo);
	vcp_declog_free(d.declog);
	vcp_metrics_pub_free(d.metrics);
	vcp_policy_clear(&d.policy);
	vcp_passnews_clear(&d.news);
	json_object_put(d.last_status);
	free(d.placers_said);
	g_main_loop_unref(d.loop);
	stop_loop(&d.ev_loop, d.ev_thread);
	g_main_context_unref(d.ctl_ctx);
	free(d.snap_status);
	free(d.snap_ping);
	return d.exit_status;
}
