// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleetloop.c - the fleet standby loop: `vcpack fleet run` is rounds of
 * it at the standby interval, `fleet apply` with a "standby" object is
 * one. A round holds the state file's lock, reads the state, has the
 * caller observe the fleet, decides with standby.c (which also applies
 * what the observation says: a waking host that answers is on, one past
 * the wake deadline failed) and carries the decision out one step at a
 * time, writing the state after every step, so a stop or a crash between
 * steps never loses a sleeping host:
 *   wakes:   every wake action (command, or none for a libvirt-suspended
 *            host whose RTC wakes it), then those hosts' libvirt probed
 *            together until each answers (on) or wake_deadline passes
 *            (failed);
 *   moves:   live migrations one at a time, each checked on both hosts;
 *            the first failure stops that host's drain, everything is
 *            left running where libvirt left it;
 *   standby: only a host whose libvirt reports no running domain right
 *            before the action; the action (command, or
 *            virNodeSuspendForDuration through virt.c), then the host
 *            must stop answering within wake_deadline. A failed action,
 *            or a host that goes on answering, is failed.
 * A failed host is never chosen again (standby.c) until `fleet clear`.
 * SIGTERM/SIGINT set the stop flag: the loop aborts a migration in flight
 * (virDomainAbortJob: the guest stays on its source), or lets a power
 * command in flight finish (up to its timeout; it says so with the pid),
 * and stops before the next step, saying what was not started; a second
 * signal kills that command (its process group, by its pid). A host
 * whose standby or wake command was killed, or whose standby was not
 * yet seen to take, is recorded in standby with why: asleep or not, the
 * next round's look settles it (one that answers is on again), so a
 * host that did go to sleep is never forgotten. A migration past
 * defaults.migration_timeout is aborted the same way (migwatch.c, shared
 * with `fleet apply`); while one runs, its progress is logged every 10 s.
 * The loop does not print: every line goes to the caller's log op.
 */
#include "fleetloop.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "errmsg.h"
#include "fleet.h"
#include "fleetstate.h"
#include "migprog.h"
#include "migwatch.h"
#include "powercmd.h"
#include "virt.h"

struct rnd {
	struct vcp_loop *l;
	struct vcp_sb_state st;
	const struct vcp_loop_obs *obs;
	struct vcp_virt **conn;		/* by host, opened when needed */
	bool *stopped;			/* by host: its moves stopped */
	/* what a stop left out: steps started of the decision's */
	size_t wakes_started, moves_started;
	bool standby_started;
};

static volatile sig_atomic_t *sig_flag, *kill_flag;

static void on_signal(int sig)
{
	if (sig_flag && *sig_flag && kill_flag)
		*kill_flag = sig;
	else if (sig_flag)
		*sig_flag = sig;
}

void vcp_loop_catch_signals(volatile sig_atomic_t *flag,
			    volatile sig_atomic_t *kill)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sig_flag = flag;
	kill_flag = kill;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

__attribute__((format(printf, 3, 4)))
static void say(struct vcp_loop *l, bool error, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	if (error)
		l->failures++;
	if (l->ops->log)
		l->ops->log(l->opaque, error, line ? line : "(out of memory)");
	free(line);
}

/* A formatted string, malloc'd; NULL only when out of memory. */
__attribute__((format(printf, 1, 2)))
static char *strf(const char *f, ...)
{
	char *s = NULL;
	va_list ap;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static bool stopping(const struct vcp_loop *l)
{
	return l->stop && *l->stop;
}

static long long wall(void)
{
	return (long long)time(NULL);
}

/* Sleep @s seconds in short naps; false when a stop came. */
static bool nap(const struct vcp_loop *l, unsigned int s)
{
	for (unsigned int k = 0; k < s * 10 && !stopping(l); k++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	return !stopping(l);
}

int vcp_loop_init(struct vcp_loop *l)
{
	l->uris = calloc(l->cfg->n_hosts + 1, sizeof(*l->uris));
	if (!l->uris)
		return -ENOMEM;
	for (size_t i = 0; i < l->cfg->n_hosts; i++)
		l->uris[i] = l->cfg->hosts[i].uri;
	if (!l->probe_s)
		l->probe_s = 5;
	return 0;
}

void vcp_loop_clear(struct vcp_loop *l)
{
	if (!l->abandoned)
		free(l->uris);
	l->uris = NULL;
}

/* ---- probes ---- */

static int probe_job(struct vcp_virt *v, size_t i, void *arg,
		     void **ret_data, char **ret_err)
{
	(void)v;
	(void)i;
	(void)arg;
	(void)ret_err;
	*ret_data = NULL;
	return 0;
}

/* Does host @i's libvirt answer within the fleet's per-host timeout? */
static bool answers(struct vcp_loop *l, size_t i)
{
	struct vcp_fleet_pool p = { .concurrency = 1,
		.timeout_s = l->cfg->timeout_s, .readonly = true,
		.job = probe_job, .free_data = free };
	struct vcp_fleet_result res = { 0 };
	size_t ab = 0;
	bool ok;

	if (vcp_fleet_run(&l->uris[i], 1, &p, &res, &ab) < 0)
		return false;
	l->abandoned += ab;
	ok = res.r == 0;
	vcp_fleet_results_clear(&res, 1, free);
	return ok;
}

/* Probe @i until it answers (@want true) or not, or @deadline (wall
 * seconds) passes. 1 reached, 0 deadline, -EINTR stop. */
static int await(struct vcp_loop *l, size_t i, bool want, long long deadline)
{
	for (;;) {
		if (answers(l, i) == want)
			return 1;
		if (wall() >= deadline)
			return 0;
		if (!nap(l, l->probe_s))
			return -EINTR;
	}
}

/* ---- power actions ---- */

static char *env_kv(const char *k, const char *v)
{
	return strf("%s=%s", k, v);
}

static const char *sig_name(int sig)
{
	return sig == SIGTERM ? "SIGTERM" :
	       sig == SIGINT  ? "SIGINT" :
				"a signal";
}

struct cmd_ctx {
	struct rnd *rd;
	size_t host;
	const char *verb;
	const char *prog;
};

/* A stop came while the command runs: it finishes; say so once. */
static void cmd_stopping(void *opaque, pid_t pid)
{
	struct cmd_ctx *cc = opaque;
	struct vcp_loop *l = cc->rd->l;
	const char *sig = sig_name(*l->stop);

	say(l, false, "%s: %s: finishing its %s command %s (pid %d, up to its %u s timeout) before stopping; another %s kills it",
	    sig, l->cfg->hosts[cc->host].name, cc->verb, cc->prog, (int)pid,
	    l->cfg->standby.hosts[cc->host].command_timeout_s, sig);
}

/* Run @argv for host @i; 0 when it exited 0 in time, -EINTR when it was
 * killed on a second signal. *ret_what says how it ended, *ret_out what
 * it printed. */
static int run_cmd(struct rnd *rd, size_t i, char **argv, const char *verb,
		   char **ret_what, char **ret_out)
{
	const struct vcp_sb_host_cfg *h = &rd->l->cfg->standby.hosts[i];
	char *env[4] = { env_kv("VCPACK_HOST", rd->l->cfg->hosts[i].name),
			 env_kv("VCPACK_URI", rd->l->cfg->hosts[i].uri),
			 env_kv("VCPACK_ACTION", verb), NULL };
	struct cmd_ctx cc = { rd, i, verb, argv[0] };
	struct vcp_cmd_watch w = { .stop = rd->l->stop,
				   .stopping = cmd_stopping,
				   .kill = rd->l->kill, .opaque = &cc };
	struct vcp_cmd_result res = { 0 };
	char how[96];
	int r = -ENOMEM;

	if (env[0] && env[1] && env[2])
		r = vcp_cmd_run_watched(argv, env, h->command_timeout_s, &w,
					&res);
	for (int k = 0; k < 3; k++)
		free(env[k]);
	if (r < 0 && r != -ENOENT) {
		*ret_what = strf("%s: command %s could not be started: %s",
			 verb, argv[0], strerror(-r));
		return r;
	}
	if (r == 0 && res.killed)
		snprintf(how, sizeof(how),
			 "killed (pid %d, its process group) on a second %s",
			 (int)res.pid, sig_name(*rd->l->kill));
	else if (r == 0)
		vcp_cmd_outcome(&res, how, sizeof(how), h->command_timeout_s);
	*ret_what = strf("%s: command %s: %s", verb, argv[0],
		 r == 0 ? how : res.output);
	*ret_out = res.output;
	res.output = NULL;
	if (r == 0 && res.killed)
		r = -EINTR;
	else if (r == 0 && (res.timed_out || res.status != 0))
		r = -EIO;
	return r;
}

static struct vcp_virt *conn_of(struct rnd *rd, size_t i, char **err)
{
	if (!rd->conn[i] && vcp_virt_open(rd->l->cfg->hosts[i].uri, false,
					  &rd->conn[i], err) < 0)
		rd->conn[i] = NULL;
	return rd->conn[i];
}

static int suspend(struct rnd *rd, size_t i, char **ret_what)
{
	const struct vcp_sb_host_cfg *h = &rd->l->cfg->standby.hosts[i];
	char *err = NULL;
	int r = conn_of(rd, i, &err) ? 0 : -EIO;

	if (r == 0)
		r = vcp_virt_node_suspend(rd->conn[i], h->suspend_duration_s,
					  &err);
	if (r < 0)
		*ret_what = strf("standby: libvirt-suspend: %s",
			 err ? err : strerror(-r));
	else
		*ret_what = strf("standby: libvirt-suspend for %u s",
			 h->suspend_duration_s);
	free(err);
	/* the connection dies with the host */
	vcp_virt_close(rd->conn[i]);
	rd->conn[i] = NULL;
	return r;
}

static size_t olen(const char *s)
{
	return strlen(s);
}

/* The host's standby (@wake false) or wake action; 0 when it worked.
 * What it did and printed go to the state. */
static int power(struct rnd *rd, size_t i, bool wake)
{
	const struct vcp_sb_host_cfg *h = &rd->l->cfg->standby.hosts[i];
	char *what = NULL, *out = NULL;
	int r;

	if (wake && h->wake_command)
		r = run_cmd(rd, i, h->wake_command, "wake", &what, &out);
	else if (wake)
		r = (what = strf("wake: no wake_command (%s wakes by its RTC after %u s)",
				vcp_sb_action_name(h->action),
				h->suspend_duration_s)) ? 0 : -ENOMEM;
	else if (h->action == VCP_SB_ACTION_COMMAND)
		r = run_cmd(rd, i, h->standby_command, "standby", &what, &out);
	else if (h->action == VCP_SB_ACTION_LIBVIRT)
		r = suspend(rd, i, &what);
	else
		r = (what = strf("standby: action none")) ? -EPERM : -ENOMEM;
	vcp_sb_note_action(&rd->st, i, what ? what : "?", out);
	while (out && olen(out) && isspace((unsigned char)out[olen(out) - 1]))
		out[olen(out) - 1] = '\0';	/* the state kept it whole */
	say(rd->l, r < 0, "%s: %s%s%s", rd->l->cfg->hosts[i].name,
	    what ? what : "?", out && *out ? "; output: " : "",
	    out && *out ? out : "");
	free(what);
	free(out);
	return r;
}

/* ---- steps ---- */

static void save(struct rnd *rd)
{
	int r = vcp_fleet_state_save(rd->l->state_path, &rd->st);

	if (r < 0)
		say(rd->l, true, "cannot write the state file %s: %s",
		    rd->l->state_path, strerror(-r));
}

static const char *name(const struct rnd *rd, size_t i)
{
	return rd->l->cfg->hosts[i].name;
}

/* The wake action of host @i; true when it ran (the host is waking). */
static bool wake_action(struct rnd *rd, size_t i, long long t0)
{
	int r = power(rd, i, true);

	rd->wakes_started++;
	if (r == -EINTR) {
		/* asleep still, or waking: the next round's look settles it */
		say(rd->l, false, "%s: its wake command was killed: left in standby (if it answers, the next round has it on)",
		    name(rd, i));
		save(rd);
		return false;
	}
	if (r < 0) {
		vcp_sb_note_failed(&rd->st, i, wall(), "its wake action failed");
		say(rd->l, true, "%s: failed: its wake action failed; not chosen again until 'vcpack fleet clear %s'",
		    name(rd, i), name(rd, i));
		save(rd);
		return false;
	}
	vcp_sb_note_wake(&rd->st, i, t0);
	save(rd);
	return true;
}

static void wake_timeout(struct rnd *rd, size_t i)
{
	char why[128];

	snprintf(why, sizeof(why), "did not answer within the wake deadline (%u s)",
		 rd->l->cfg->standby.wake_deadline_s);
	vcp_sb_note_failed(&rd->st, i, wall(), why);
	say(rd->l, true, "%s: failed: %s; not chosen again until 'vcpack fleet clear %s'",
	    name(rd, i), why, name(rd, i));
}

/*
 * Wake the hosts of @d: every wake action first, then all of them
 * probed together until each answers (on) or the deadline passes
 * (failed), so that the capacity comes back as soon as the slowest
 * host boots, not after the sum of their boots. A stop leaves them
 * waking (the next round's observation settles them).
 */
static void wake_all(struct rnd *rd, const struct vcp_sb_decision *d)
{
	struct vcp_loop *l = rd->l;
	long long t0 = wall(), deadline = t0 + l->cfg->standby.wake_deadline_s;
	bool *wait = calloc(rd->st.n_hosts + 1, sizeof(*wait));
	size_t left = 0;

	if (!wait) {
		say(l, true, "out of memory");
		return;
	}
	for (size_t k = 0; k < d->n_wake && !stopping(l); k++)
		if (wake_action(rd, d->wake[k], t0)) {
			wait[d->wake[k]] = true;
			left++;
		}
	while (left && !stopping(l)) {
		for (size_t i = 0; i < rd->st.n_hosts; i++) {
			if (!wait[i] || !answers(l, i))
				continue;
			wait[i] = false;
			left--;
			vcp_sb_note_undrain(&rd->st, i, wall());	/* on */
			say(l, false, "%s: woken: its libvirt answers again after %lld s",
			    name(rd, i), wall() - t0);
			save(rd);
		}
		if (left && wall() >= deadline) {
			for (size_t i = 0; i < rd->st.n_hosts; i++)
				if (wait[i])
					wake_timeout(rd, i);
			save(rd);
			break;
		}
		if (left)
			nap(l, l->probe_s);
	}
	free(wait);
}

static struct vcp_migrate_opts mopts(const struct vcp_fleet_cfg *c, size_t to)
{
	return (struct vcp_migrate_opts){ .p2p = c->p2p,
		.address = c->hosts[to].migration_address, .tls = c->tls,
		.auto_converge = c->auto_converge,
		.bandwidth_mib = c->bandwidth_mib };
}

struct mig_log {
	struct rnd *rd;
	const char *vm;
	size_t from, to;
	double last;		/* s: the last progress line */
};

static void mig_progress(void *opaque, const struct vcp_job_progress *p,
			 double secs)
{
	struct mig_log *ml = opaque;
	char txt[160];

	if (!vcp_mig_line_due(0, ml->last, secs, 10))
		return;
	ml->last = secs;
	vcp_mig_progress_text(txt, sizeof(txt), p, secs);
	say(ml->rd->l, false, "%s: migrating %s -> %s: %s", ml->vm,
	    name(ml->rd, ml->from), name(ml->rd, ml->to), txt);
}

/* 0 moved, -ECANCELED aborted (timeout, stop: *err says why and where
 * the guest is), else failed. */
static int migrate(struct rnd *rd, const char *vm, size_t from, size_t to,
		   char **err)
{
	struct vcp_migrate_opts o = mopts(rd->l->cfg, to);
	struct mig_log ml = { rd, vm, from, to, -1 };
	struct vcp_mig_watch w = { .timeout_s = rd->l->cfg->migration_timeout_s,
				   .stop = rd->l->stop, .progress = mig_progress,
				   .opaque = &ml };
	struct vcp_mig_result res;
	bool run_to = false, run_from = false;
	char why[256];
	int r;

	if (!conn_of(rd, from, err) || !conn_of(rd, to, err))
		return -EIO;
	r = vcp_mig_run(rd->conn[from], rd->conn[to], vm, &o, &w, &res, err);
	if (r == -ECANCELED) {
		vcp_mig_why(why, sizeof(why), &res, w.timeout_s, name(rd, from));
		return (*err = strf("%s", why)) ? r : -ENOMEM;
	}
	if (r < 0)
		return r;
	if (vcp_virt_domain_state(rd->conn[to], vm, &run_to) < 0 || !run_to)
		return (*err = strf("libvirt reported success but it is not running on %s",
				   name(rd, to))) ? -EIO : -ENOMEM;
	if (vcp_virt_domain_state(rd->conn[from], vm, &run_from) == 0 &&
	    run_from)
		return (*err = strf("libvirt reported success but it still runs on %s",
				   name(rd, from))) ? -EIO : -ENOMEM;
	return 0;
}

static void moves(struct rnd *rd, const struct vcp_sb_decision *d)
{
	struct vcp_loop *l = rd->l;

	if (d->drain >= 0 && rd->st.hosts[d->drain].power != VCP_SB_DRAINING) {
		vcp_sb_note_drain(&rd->st, (size_t)d->drain, wall());
		say(l, false, "%s: draining towards standby", name(rd, d->drain));
		save(rd);
	}
	for (size_t k = 0; k < d->n_moves && !stopping(l); k++) {
		const struct vcp_fleet_move *m = &d->moves[k];
		const char *vm = rd->obs->hosts[m->from].vms[m->vm].name;
		char *err = NULL;
		int r;

		if (rd->stopped[m->from])
			continue;
		rd->moves_started++;
		r = migrate(rd, vm, m->from, m->to, &err);
		if (r == 0) {
			vcp_sb_note_move(&rd->st, m->from, m->to, wall());
			say(l, false, "%s: moved %s -> %s", vm, name(rd, m->from),
			    name(rd, m->to));
		} else {
			rd->stopped[m->from] = true;
			if (rd->st.hosts[m->from].power == VCP_SB_DRAINING)
				vcp_sb_note_undrain(&rd->st, m->from, wall());
			say(l, true, "%s: migration %s -> %s failed: %s; no more moves from %s, everything left running",
			    vm, name(rd, m->from), name(rd, m->to),
			    err ? err : strerror(-r), name(rd, m->from));
		}
		free(err);
		save(rd);
	}
}

/* Right before a standby: does the host's libvirt say it runs nothing? */
static bool runs_nothing(struct rnd *rd, size_t i)
{
	unsigned int n = 1;
	char *err = NULL;
	bool ok = conn_of(rd, i, &err) &&
		  vcp_virt_count_running(rd->conn[i], &n, &err) == 0;

	if (!ok || n)
		say(rd->l, true, "%s: not put in standby: %s", name(rd, i),
		    !ok ? (err ? err : "cannot ask its libvirt") :
		    "it runs a domain again");
	free(err);
	return ok && !n;
}

static void standby_one(struct rnd *rd, const struct vcp_sb_decision *d)
{
	struct vcp_loop *l = rd->l;
	size_t i = (size_t)d->standby;
	long long t0;
	char why[256];
	int r;

	if (!runs_nothing(rd, i)) {
		vcp_sb_note_undrain(&rd->st, i, wall());
		save(rd);
		return;
	}
	t0 = wall();
	rd->standby_started = true;
	r = power(rd, i, false);
	if (r == -EINTR) {
		snprintf(
			why, sizeof(why),
			"its standby command was killed on a second %s: asleep or not, the next round's look settles it",
			sig_name(*l->kill));
		vcp_sb_note_standby(&rd->st, i, t0, why);
		say(l, false, "%s: recorded in standby: %s", name(rd, i), why);
		save(rd);
		return;
	}
	if (r < 0) {
		vcp_sb_note_failed(&rd->st, i, wall(), "its standby action failed");
		say(l, true, "%s: failed: its standby action failed (it stays on; not chosen again until 'vcpack fleet clear %s')",
		    name(rd, i), name(rd, i));
		save(rd);
		return;
	}
	snprintf(why, sizeof(why), "%s (fleet at %.0f%% of %.1f CPUs on)",
		 d->why, d->util * 100, d->capacity_on);
	vcp_sb_note_standby(&rd->st, i, t0, why);
	save(rd);
	r = await(l, i, false, t0 + l->cfg->standby.wake_deadline_s);
	if (r == 1) {
		say(l, false, "%s: in standby: %s", name(rd, i), why);
	} else if (r == 0) {
		vcp_sb_note_failed(&rd->st, i, wall(),
				   "still answers after its standby action");
		say(l, true, "%s: failed: still answers %u s after its standby action; not chosen again until 'vcpack fleet clear %s'",
		    name(rd, i), l->cfg->standby.wake_deadline_s, name(rd, i));
	} else {
		say(l, false,
		    "%s: its standby action ran; stopped by %s before it was seen asleep: recorded in standby (if it answers, the next round has it on)",
		    name(rd, i), sig_name(*l->stop));
	}
	save(rd);
}

/* ---- the round ---- */

static void report_failed(struct rnd *rd)
{
	for (size_t i = 0; i < rd->st.n_hosts; i++) {
		const struct vcp_sb_host_state *h = &rd->st.hosts[i];
		time_t t = (time_t)h->since;
		char ts[32] = "?";
		struct tm tm;

		if (h->power != VCP_SB_FAILED)
			continue;
		if (gmtime_r(&t, &tm))
			strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
		say(rd->l, false, "%s: failed since %s: %s (clear with 'vcpack fleet clear %s')",
		    name(rd, i), ts, h->why ? h->why : "?", name(rd, i));
	}
}

static const char **host_names(const struct vcp_fleet_cfg *c)
{
	const char **n = calloc(c->n_hosts + 1, sizeof(*n));

	for (size_t i = 0; n && i < c->n_hosts; i++)
		n[i] = c->hosts[i].name;
	return n;
}

static int load(struct vcp_loop *l, struct vcp_sb_state *st, char **ret_err)
{
	const char **names = host_names(l->cfg);
	int r;

	if (!names)
		return -ENOMEM;
	r = vcp_fleet_state_load(l->state_path, names, l->cfg->n_hosts, st,
				 ret_err);
	free(names);
	return r;
}

/* Stopped: which of the round's steps were not started. */
static void report_stop(struct rnd *rd, const struct vcp_sb_decision *d)
{
	size_t moves = d->n_moves > rd->moves_started ?
		       d->n_moves - rd->moves_started : 0;
	size_t wakes = d->n_wake > rd->wakes_started ?
		       d->n_wake - rd->wakes_started : 0;
	bool sb = d->standby >= 0 && !rd->standby_started;

	say(rd->l, false,
	    "stopped by %s: not started: %zu of %zu migrations, %zu of %zu wakes, %s%s%s",
	    sig_name(*rd->l->stop), moves, d->n_moves, wakes, d->n_wake,
	    sb ? "the standby of " : "no standby left",
	    sb ? name(rd, (size_t)d->standby) : "", sb ? " (it stays on)" : "");
}

static void act(struct rnd *rd, const struct vcp_sb_decision *d)
{
	struct vcp_loop *l = rd->l;

	say(l, false,
	    "demand %.2f of %.2f CPUs on (%.0f%%), band %.0f%%-%.0f%%: %s%s",
	    d->demand, d->capacity_on, d->util * 100, l->cfg->standby.low * 100,
	    l->cfg->standby.high * 100, d->why ? d->why : "-",
	    rd->obs->note ? rd->obs->note : "");
	if (d->n_wake && !stopping(l))
		wake_all(rd, d);
	if (!stopping(l))
		moves(rd, d);
	if (d->standby >= 0 && !stopping(l))
		standby_one(rd, d);
	if (stopping(l))
		report_stop(rd, d);
	report_failed(rd);
}

static int decide_and_act(struct rnd *rd, long long now, char **ret_err)
{
	struct vcp_loop *l = rd->l;
	struct vcp_loop_obs obs = { 0 };
	struct vcp_sb_decision *d = NULL;
	struct vcp_sb_round r;
	int e = l->ops->observe(l->opaque, &obs, ret_err);

	if (e < 0)
		return e;
	if (obs.n_hosts != l->cfg->n_hosts)
		return vcp_err(ret_err, -EINVAL, "observed %zu hosts of %zu",
			       obs.n_hosts, l->cfg->n_hosts);
	rd->obs = &obs;
	r = (struct vcp_sb_round){ obs.hosts, obs.n_hosts, l->policy,
				   &obs.opts, &l->cfg->standby, now };
	e = vcp_sb_decide(&r, &rd->st, &d);
	if (e < 0)
		return vcp_err(ret_err, e, "the standby decision failed: %s",
			       strerror(-e));
	save(rd);	/* what the observation changed */
	act(rd, d);
	vcp_sb_decision_free(d);
	return 0;
}

int vcp_loop_round(struct vcp_loop *l, long long now, char **ret_err)
{
	size_t n = l->cfg->n_hosts;
	struct rnd rd = { .l = l };
	int fd = -1, e;

	l->failures = 0;
	e = vcp_fleet_state_lock(l->state_path, &fd);
	if (e < 0)
		return vcp_err(ret_err, e, "cannot lock the state file %s: %s",
			       l->state_path, strerror(-e));
	e = load(l, &rd.st, ret_err);
	rd.conn = calloc(n + 1, sizeof(*rd.conn));
	rd.stopped = calloc(n + 1, sizeof(*rd.stopped));
	if (e == 0 && (!rd.conn || !rd.stopped))
		e = -ENOMEM;
	if (e == 0)
		e = decide_and_act(&rd, now, ret_err);
	for (size_t i = 0; rd.conn && i < n; i++)
		vcp_virt_close(rd.conn[i]);
	free(rd.conn);
	free(rd.stopped);
	vcp_sb_state_clear(&rd.st);
	vcp_fleet_state_unlock(fd);
	return e;
}

int vcp_loop_run(struct vcp_loop *l, unsigned int interval_s,
		 unsigned int max_rounds, char **ret_err)
{
	for (unsigned int k = 0; !stopping(l) &&
	     (!max_rounds || k < max_rounds); k++) {
		char *err = NULL;
		int r;

		if (k && !nap(l, interval_s))
			break;
		r = vcp_loop_round(l, wall(), &err);
		if (r < 0 && k == 0) {
			*ret_err = err;
			return r;
		}
		if (r < 0)
			say(l, true, "round failed: %s", err ? err : strerror(-r));
		free(err);
	}
	return 0;
}

int vcp_loop_clear_host(struct vcp_loop *l, const char *hname,
			const char **ret_power, char **ret_err)
{
	struct vcp_sb_state st = { 0 };
	size_t i;
	int fd = -1, e = vcp_fleet_state_lock(l->state_path, &fd);

	if (e < 0)
		return vcp_err(ret_err, e, "cannot lock the state file %s: %s",
			       l->state_path, strerror(-e));
	e = load(l, &st, ret_err);
	for (i = 0; e == 0 && i < st.n_hosts; i++)
		if (!strcmp(st.hosts[i].name, hname))
			break;
	if (e == 0 && i == st.n_hosts)
		e = -ENOENT;
	else if (e == 0 && st.hosts[i].power != VCP_SB_FAILED) {
		*ret_power = vcp_sb_power_name(st.hosts[i].power);
		e = -EALREADY;
	} else if (e == 0) {
		vcp_sb_note_cleared(&st, i, wall());
		vcp_sb_note_action(&st, i, "cleared by an operator", NULL);
		e = vcp_fleet_state_save(l->state_path, &st);
		if (e < 0)
			vcp_err(ret_err, e, "cannot write the state file %s: %s",
				l->state_path, strerror(-e));
	}
	vcp_sb_state_clear(&st);
	vcp_fleet_state_unlock(fd);
	return e;
}
