// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cli-fleet-apply.c - `vcpack fleet apply`: the plan's live migrations,
 * one at a time, after asking on a terminal (or with --yes). Each is
 * watched (its progress on stderr, aborted past --migration-timeout or
 * on SIGINT/SIGTERM, which also stop the rest) and checked on both hosts
 * after libvirt says done; a host whose migration fails moves no more
 * VMs. `apply --plan FILE` carries out a saved plan as saved, refused
 * when a host or VM it names is no longer what it was.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli-fleet.h"
#include "clock.h"
#include "esc.h"
#include "fleetplan.h"
#include "fleetsaved.h"
#include "fold.h"
#include "migprog.h"
#include "migwatch.h"
#include "policy.h"
#include "virt.h"
#include "width.h"

/* ---- apply: the plan's migrations, one at a time ---- */

struct mover {
	struct fctx *f;
	struct vcp_virt **conn; /* by host, opened when first needed */
	bool *failed; /* by host: stop its migrations */
	struct json_object *steps;
	size_t moved, n_failed, skipped;
	size_t k, n; /* the step under way, of n */
	const struct step *cur;
	bool drawn; /* a progress line is on the terminal */
	double last_line; /* s: the last plain progress line */
};

/* SIGINT/SIGTERM while apply migrates: the signal's number. The
 * migration in flight is aborted and no other starts. */
static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

static struct vcp_virt *conn_of(struct mover *mv, size_t h, char **err)
{
	if (!mv->conn[h] && vcp_virt_open(mv->f->cfg.hosts[h].uri, false,
					  &mv->conn[h], err) < 0)
		mv->conn[h] = NULL;
	return mv->conn[h];
}

/* One migration's outcome, folded to the width unless --wide (a
 * libvirt error can be long); printed as it happens. */
static void step_text(const struct mover *mv, const char *vm, size_t from,
		      size_t to, const char *outcome, const char *msg,
		      double secs)
{
	const struct fctx *f = mv->f;
	struct vcp_fold_capture fc;
	struct cell hc, tc, vc;

	vcp_fold_begin(&fc, wide(f) ? 0 : vcp_width_cols());
	printf("  %zu/%zu %-24s %s -> %s: %s", mv->k + 1, mv->n,
	       vcp_fleet_cli_cut(f, vm, VM_W, &vc), host_cell(f, from, &hc),
	       host_cell(f, to, &tc), outcome);
	if (secs > 0)
		printf(" (%.1f s)", secs);
	printf("%s%s\n", msg ? ": " : "", msg ? vcp_esc_msg(msg) : "");
	vcp_fold_end(&fc);
	fflush(stdout);
}

static void step_out(struct mover *mv, const char *vm, size_t from, size_t to,
		     const char *outcome, const char *msg, double secs)
{
	const struct vcp_fleet_cfg *cfg = &mv->f->cfg;
	struct json_object *o;

	if (mv->drawn) {
		fputs("\r\033[K", stderr); /* the progress line */
		fflush(stderr);
		mv->drawn = false;
	}
	if (!mv->f->json) {
		step_text(mv, vm, from, to, outcome, msg, secs);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "vm", json_object_new_string(vm));
	json_object_object_add(o, "from",
			       json_object_new_string(cfg->hosts[from].name));
	json_object_object_add(o, "to",
			       json_object_new_string(cfg->hosts[to].name));
	json_object_object_add(o, "outcome", json_object_new_string(outcome));
	json_object_object_add(o, "message",
			       msg ? json_object_new_string(msg) : NULL);
	json_object_object_add(o, "seconds", vcp_json_double3(secs));
	json_object_array_add(mv->steps, o);
}

/* After libvirt said done: running on @to and gone from @from? */
static const char *check_moved(struct mover *mv, size_t from, size_t to,
			       const char *vm)
{
	bool run_to = false, run_from = false;
	int a = vcp_virt_domain_state(mv->conn[to], vm, &run_to);
	int b = vcp_virt_domain_state(mv->conn[from], vm, &run_from);

	if (a < 0 || !run_to)
		return "libvirt reported success but it is not running on the destination";
	if (b == 0 && run_from)
		return "libvirt reported success but it still runs on the source";
	return NULL;
}

/* One migration to carry out: fleet file host indices. */
struct step {
	const char *vm;
	size_t from, to;
};

/* The migration's own progress on stderr: one line kept up to date on
 * a terminal, else a plain line every 5 s. */
static void on_progress(void *opaque, const struct vcp_job_progress *p,
			double secs)
{
	struct mover *mv = opaque;
	const struct step *st = mv->cur;
	bool tty = isatty(STDERR_FILENO);
	struct cell hc, tc, vc;
	char txt[160], line[320];
	unsigned int row = tty ? vcp_width_tty(STDERR_FILENO) : 0;

	if (!tty && !vcp_mig_line_due(0, mv->last_line, secs, 5))
		return;
	vcp_mig_progress_text(txt, sizeof(txt), p, secs);
	/* names cut: a progress line redrawn in place must fit one row, so
	 * on a terminal the words that do not fit its width are left out */
	snprintf(line, sizeof(line), "  %zu/%zu %s %s -> %s: %s", mv->k + 1,
		 mv->n, vcp_fleet_cli_cut(mv->f, st->vm, VM_W, &vc),
		 host_cell(mv->f, st->from, &hc), host_cell(mv->f, st->to, &tc),
		 txt);
	fprintf(stderr, "%s%.*s%s", tty ? "\r\033[K" : "",
		(int)vcp_fold_prefix(line, row > 1 ? row - 1 : 0), line,
		tty ? "" : "\n");
	fflush(stderr);
	mv->drawn = tty;
	mv->last_line = secs;
}

static void one_move(struct mover *mv, const struct step *st)
{
	const char *vm = st->vm;
	struct vcp_migrate_opts o = vcp_fleet_cli_migrate_opts(mv->f, st->to);
	struct vcp_mig_watch w = { .timeout_s = mv->f->cfg.migration_timeout_s,
				   .stop = &stop_sig,
				   .progress = on_progress,
				   .opaque = mv };
	struct vcp_mig_result res = { 0 };
	char *err = NULL, why[256] = "";
	const char *bad = NULL;
	double t0 = vcp_mono_s();
	int r = 0;

	if (mv->failed[st->from]) {
		step_out(mv, vm, st->from, st->to, "skipped",
			 "an earlier step from this host failed", 0);
		mv->skipped++;
		return;
	}
	if (!conn_of(mv, st->from, &err) || !conn_of(mv, st->to, &err))
		r = -EIO;
	mv->cur = st;
	mv->last_line = -1;
	if (r == 0)
		r = vcp_mig_run(mv->conn[st->from], mv->conn[st->to], vm, &o,
				&w, &res, &err);
	if (r == 0)
		bad = check_moved(mv, st->from, st->to, vm);
	if (r == 0 && !bad && res.too_late)
		snprintf(why, sizeof(why),
			 "%s, but it completed before the abort took effect",
			 res.asked == VCP_MIG_STOPPED ? "interrupted" :
							"past its timeout");
	if (r == -ECANCELED) {
		vcp_mig_why(why, sizeof(why), &res, w.timeout_s,
			    mv->f->cfg.hosts[st->from].name);
		step_out(mv, vm, st->from, st->to, "aborted", why,
			 vcp_mono_s() - t0);
		mv->failed[st->from] = true;
		mv->n_failed++;
	} else if (r < 0 || bad) {
		step_out(mv, vm, st->from, st->to, "failed",
			 bad ? bad :
			 err ? err :
			       strerror(-r),
			 vcp_mono_s() - t0);
		mv->failed[st->from] = true;
		mv->n_failed++;
	} else {
		step_out(mv, vm, st->from, st->to, "moved", *why ? why : NULL,
			 vcp_mono_s() - t0);
		mv->moved++;
	}
	free(err);
}

/* On a terminal: list the migrations on stderr (stdout stays the
 * report) and ask. True only for an answer starting with y or Y. */
static bool confirmed(const struct fctx *f, const struct step *st, size_t n)
{
	struct cell hc, tc, vc;
	char line[64];

	fprintf(stderr, "fleet apply: %zu live migrations, one at a time:\n",
		n);
	for (size_t k = 0; k < n; k++)
		fprintf(stderr, "  %zu/%zu %-24s %s -> %s\n", k + 1, n,
			vcp_fleet_cli_cut(f, st[k].vm, VM_W, &vc),
			host_cell(f, st[k].from, &hc),
			host_cell(f, st[k].to, &tc));
	vcp_fleet_cli_migration_text(f, stderr);
	fputs("Proceed? [y/N] ", stderr);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return line[0] == 'y' || line[0] == 'Y';
}

static int mover_init(struct mover *mv, struct fctx *f)
{
	size_t n = f->cfg.n_hosts;

	mv->f = f;
	mv->conn = calloc(n ? n : 1, sizeof(*mv->conn));
	mv->failed = calloc(n ? n : 1, sizeof(*mv->failed));
	if (!mv->conn || !mv->failed)
		return vcp_cli_err(EXIT_PARTIAL, "out of memory");
	return 0;
}

static void mover_clear(struct mover *mv)
{
	for (size_t i = 0; mv->conn && i < mv->f->cfg.n_hosts; i++)
		vcp_virt_close(mv->conn[i]);
	free(mv->conn);
	free(mv->failed);
}

/* SIGINT and SIGTERM set stop_sig while @on (no SA_RESTART); then back
 * to what they were. */
static void catch_stop(bool on)
{
	static struct sigaction old_int, old_term;
	struct sigaction sa = { .sa_handler = on_stop };

	if (on) {
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, &old_int);
		sigaction(SIGTERM, &sa, &old_term);
	} else {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
	}
}

/* Ask (unless --yes), then carry @st out in order and report. */
static int run_steps(struct mover *mv, const struct step *st, size_t n)
{
	struct fctx *f = mv->f;

	if (n && !f->o.yes && !confirmed(f, st, n)) {
		vcp_cli_err(0, "fleet apply: not confirmed; nothing done");
		return EXIT_PARTIAL;
	}
	mv->steps = json_object_new_array();
	if (!f->json)
		printf("fleet apply: %zu migrations, one at a time\n", n);
	catch_stop(true);
	mv->n = n;
	for (mv->k = 0; mv->k < n && !stop_sig; mv->k++)
		one_move(mv, &st[mv->k]);
	catch_stop(false);
	if (stop_sig && !f->json)
		printf("fleet apply: stopped by %s: %zu migrations not started\n",
		       stop_sig == SIGTERM ? "SIGTERM" : "SIGINT", n - mv->k);
	if (f->json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(
			o, "stopped_by",
			!stop_sig ? NULL :
				    json_object_new_string(stop_sig == SIGTERM ?
								   "SIGTERM" :
								   "SIGINT"));
		json_object_object_add(o, "not_started",
				       json_object_new_int((int)(n - mv->k)));

		json_object_object_add(o, "moved",
				       json_object_new_int((int)mv->moved));
		json_object_object_add(o, "failed",
				       json_object_new_int((int)mv->n_failed));
		json_object_object_add(o, "skipped",
				       json_object_new_int((int)mv->skipped));
		json_object_object_add(o, "steps", mv->steps);
		vcp_cli_json(o);
	} else {
		json_object_put(mv->steps);
		printf("fleet apply: %zu moved, %zu failed, %zu skipped\n",
		       mv->moved, mv->n_failed, mv->skipped);
	}
	if (stop_sig)
		return 128 + stop_sig;
	return mv->n_failed ? EXIT_PARTIAL : 0;
}

int vcp_fleet_cli_cmd_apply(struct fctx *f)
{
	struct fleet_in in = { 0 };
	struct vcp_fleet_plan *p = NULL;
	struct mover mv = { .f = f };
	struct step *st = NULL;
	int r = vcp_fleet_cli_plan(f, &in, &p);

	if (!r)
		r = mover_init(&mv, f);
	if (!r) {
		st = calloc(p->n_moves ? p->n_moves : 1, sizeof(*st));
		if (!st)
			r = vcp_cli_err(EXIT_PARTIAL, "out of memory");
	}
	for (size_t k = 0; !r && k < p->n_moves; k++)
		st[k] = (struct step){
			in.hosts[p->moves[k].from].vms[p->moves[k].vm].name,
			p->moves[k].from, p->moves[k].to
		};
	if (!r) {
		r = run_steps(&mv, st, p->n_moves);
		r = r ? r : p->hosts_unreachable ? EXIT_PARTIAL : 0;
	}
	free(st);
	mover_clear(&mv);
	vcp_fleet_plan_free(p);
	vcp_fleet_cli_in_clear(&in);
	return r;
}

/* ---- apply --plan FILE: a saved plan, as saved ---- */

__attribute__((format(printf, 2, 3))) static void changed(size_t *n,
							  const char *fmt, ...)
{
	char *line;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	/* URIs: folded as the error lines are */
	vcp_fold_printf(stderr, vcp_cli_cols_for(STDERR_FILENO),
			"  changed: %s\n", line ? vcp_esc_msg(line) : "?");
	free(line);
	(*n)++;
}

static int cfg_index(const struct fctx *f, const char *name, size_t *ret)
{
	for (size_t i = 0; i < f->cfg.n_hosts; i++)
		if (!strcmp(f->cfg.hosts[i].name, name)) {
			*ret = i;
			return 0;
		}
	return -ENOENT;
}

/* Is the saved host still the same host? Sets *ret_i (fleet file
 * index) when it is; counts what changed in *n. */
static bool same_host(struct mover *mv, const struct vcp_saved_host *sh,
		      size_t *ret_i, size_t *n)
{
	const struct vcp_fleet_cfg *cfg = &mv->f->cfg;
	char *err = NULL, *caps, *uuid;
	size_t i, before = *n;

	if (cfg_index(mv->f, sh->name, &i) < 0) {
		changed(n, "host %s: no longer in the fleet file", sh->name);
		return false;
	}
	if (strcmp(cfg->hosts[i].uri, sh->uri)) {
		changed(n, "host %s: its URI is now %s (saved: %s)", sh->name,
			cfg->hosts[i].uri, sh->uri);
		return false;
	}
	if (!conn_of(mv, i, &err)) {
		changed(n, "host %s: unreachable: %s", sh->name,
			err ? err : "?");
		free(err);
		return false;
	}
	if (sh->hostname &&
	    strcmp(vcp_virt_hostname(mv->conn[i]), sh->hostname))
		changed(n, "host %s: its hostname is now %s (saved: %s)",
			sh->name, vcp_virt_hostname(mv->conn[i]), sh->hostname);
	if (sh->host_uuid) {
		caps = vcp_virt_capabilities(mv->conn[i]);
		uuid = caps ? vcp_caps_host_uuid(caps) : NULL;
		if (!uuid || strcmp(uuid, sh->host_uuid))
			changed(n,
				"host %s: its host UUID is now %s (saved: %s)",
				sh->name, uuid ? uuid : "unknown",
				sh->host_uuid);
		free(uuid);
		free(caps);
	}
	*ret_i = i;
	return *n == before;
}

/* Is the saved move's VM still running on its source as the same domain? */
static void same_vm(struct mover *mv, const struct vcp_saved_move *sm,
		    const char *from, size_t from_i, size_t *n)
{
	char uuid[37];
	bool running = false;
	int r = vcp_virt_domain_uuid(mv->conn[from_i], sm->vm, uuid, &running);

	if (r == -ENOENT)
		changed(n, "VM %s: no longer on %s (moved or gone)", sm->vm,
			from);
	else if (r < 0)
		changed(n, "VM %s on %s: cannot be read: %s", sm->vm, from,
			strerror(-r));
	else if (strcmp(uuid, sm->uuid))
		changed(n,
			"VM %s on %s: another domain now (UUID %s, saved: %s)",
			sm->vm, from, uuid, sm->uuid);
	else if (!running)
		changed(n, "VM %s on %s: not running", sm->vm, from);
}

/* Map the saved plan onto the fleet file as it is now: @st filled, the
 * number of changes returned (each on stderr). */
static size_t saved_steps(struct mover *mv, const struct vcp_saved_plan *sp,
			  size_t *idx, bool *ok, struct step *st)
{
	size_t n = 0;

	for (size_t k = 0; k < sp->n_moves; k++) {
		size_t h[2] = { sp->moves[k].from, sp->moves[k].to };

		for (int j = 0; j < 2; j++)
			if (idx[h[j]] == SIZE_MAX && !ok[h[j]]) {
				ok[h[j]] = true; /* checked */
				if (!same_host(mv, &sp->hosts[h[j]], &idx[h[j]],
					       &n))
					idx[h[j]] = SIZE_MAX;
			}
		if (idx[h[0]] != SIZE_MAX)
			same_vm(mv, &sp->moves[k], sp->hosts[h[0]].name,
				idx[h[0]], &n);
		st[k] = (struct step){ sp->moves[k].vm, idx[h[0]], idx[h[1]] };
	}
	return n;
}

int vcp_fleet_cli_cmd_apply_saved(struct fctx *f)
{
	struct vcp_saved_plan sp = { 0 };
	struct mover mv = { .f = f };
	struct step *st = NULL;
	size_t *idx = NULL, n_changed = 0;
	bool *checked = NULL;
	char *err = NULL;
	int r = vcp_saved_plan_load(f->o.plan, &sp, &err);

	if (r < 0) {
		r = vcp_cli_err(EXIT_USAGE, "Refusing saved plan: %s",
				err ? err : strerror(-r));
		free(err);
		return r;
	}
	r = mover_init(&mv, f);
	idx = malloc((sp.n_hosts ? sp.n_hosts : 1) * sizeof(*idx));
	checked = calloc(sp.n_hosts ? sp.n_hosts : 1, sizeof(*checked));
	st = calloc(sp.n_moves ? sp.n_moves : 1, sizeof(*st));
	if (!r && (!idx || !checked || !st))
		r = vcp_cli_err(EXIT_PARTIAL, "out of memory");
	for (size_t i = 0; !r && i < sp.n_hosts; i++)
		idx[i] = SIZE_MAX;
	if (!r)
		n_changed = saved_steps(&mv, &sp, idx, checked, st);
	if (!r && n_changed)
		r = vcp_cli_err(
			EXIT_USAGE,
			"fleet apply: the saved plan %s no longer holds (%zu changes above); nothing done; make a new one with 'vcpack fleet plan --save'",
			f->o.plan, n_changed);
	if (!r)
		r = run_steps(&mv, st, sp.n_moves);
	free(st);
	free(idx);
	free(checked);
	mover_clear(&mv);
	vcp_saved_plan_clear(&sp);
	return r;
}
