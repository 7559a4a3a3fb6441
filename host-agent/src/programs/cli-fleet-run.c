// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cli-fleet-run.c - `vcpack fleet run`, `fleet apply` with a "standby"
 * object (one round) and `fleet clear HOST`: the standby loop
 * (fleetloop.c) given its observation (the fleet as `fleet plan` sees
 * it, with each host's power now) and its log lines (stdout, folded on
 * a terminal unless --wide).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli-fleet.h"
#include "errmsg.h"
#include "esc.h"
#include "fleetloop.h"
#include "fleetstate.h"
#include "fold.h"

/* ---- the standby loop: run, apply with "standby", clear ---- */

struct loopobs {
	struct fctx *f;
	struct fleet_in in;
	const char **errs;
	size_t stuck; /* workers abandoned in all rounds so far */
	/* this round's power_command readings, and the fleet's measured
	 * power from them for the round's line */
	struct power_read pr;
	char *note;
};

/* The round's note: the fleet's measured power where hosts report it. */
static void loop_power_note(struct loopobs *lo)
{
	struct power_sum s;

	free(lo->note);
	lo->note = NULL;
	if (!lo->pr.started)
		return;
	s = vcp_fleet_cli_power_sum(lo->f, lo->pr.p);
	if (asprintf(&lo->note,
		     "; measured %.1f W on %zu of %zu hosts (power_command)",
		     s.watts, s.measured, lo->f->cfg.n_hosts) < 0)
		lo->note = NULL;
}

static void loop_power_clear(struct loopobs *lo)
{
	vcp_fleet_power_clear(lo->pr.p, lo->f ? lo->f->cfg.n_hosts : 0);
	free(lo->pr.p);
	lo->pr.p = NULL;
	free(lo->note);
	lo->note = NULL;
}

/* The loop's observe op: the fleet as `fleet plan` sees it. */
static int loop_observe(void *opaque, struct vcp_loop_obs *ret, char **ret_err)
{
	struct loopobs *lo = opaque;
	struct fctx *f = lo->f;
	size_t n = f->cfg.n_hosts;
	int r;

	if (f->res)
		vcp_fleet_results_clear(f->res, n, vcp_fleet_view_free);
	free(f->res);
	if (!lo->stuck) /* stuck workers may still read them */
		free(f->uris);
	f->res = NULL;
	f->uris = NULL;
	vcp_fleet_cli_in_clear(&lo->in);
	memset(&lo->in, 0, sizeof(lo->in));
	loop_power_clear(lo);
	vcp_fleet_cli_power_start(f, &lo->pr);
	r = vcp_fleet_cli_collect(f, f->sample_ms);
	vcp_fleet_cli_power_wait(f, &lo->pr);
	loop_power_note(lo);
	/* vcp_fleet_cli_collect() counts this round's; the earlier ones still run */
	f->abandoned += lo->stuck;
	lo->stuck = f->abandoned;
	if (r)
		return vcp_err(ret_err, -EIO, "cannot query the hosts");
	r = vcp_fleet_cli_input(f, &lo->in);
	lo->stuck = f->abandoned;
	if (r < 0)
		return vcp_err(ret_err, r, "cannot group the hosts' CPUs: %s",
			       strerror(-r));
	for (size_t i = 0; i < n; i++)
		lo->errs[i] = f->res[i].err;
	*ret = (struct vcp_loop_obs){ lo->in.hosts,
				      n,
				      { .move_spread = f->cfg.move_spread,
					.mem_reserve = f->cfg.mem_reserve,
					.n_groups = lo->in.n_groups,
					.compat = lo->in.compat },
				      lo->errs,
				      lo->note };
	return 0;
}

static void loop_log(void *opaque, bool error, const char *line)
{
	char ts[32], *text;
	time_t t = time(NULL);
	struct tm tm;
	size_t lead;

	(void)opaque;
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	/* folded under the text (names, URIs) on a terminal unless --wide;
	 * whole where it is kept (the journal, a file): one entry a line,
	 * what came from outside in it escaped */
	if (asprintf(&text, "%s fleet: %s%s", ts, error ? "error: " : "",
		     vcp_esc_msg(line)) < 0)
		return;
	lead = strlen(ts) + strlen(" fleet: ");
	vcp_fold_line(stdout, text, lead, lead,
		      vcp_cli_cols_for(STDOUT_FILENO));
	free(text);
	fflush(stdout);
}

static const struct vcp_loop_ops loop_ops = {
	.observe = loop_observe,
	.log = loop_log,
};

/* the signal that stopped the loop, and a second one (kills a power
 * command in flight) */
static volatile sig_atomic_t loop_stop, loop_kill;

static int loop_setup(struct fctx *f, struct vcp_loop *l, struct loopobs *lo)
{
	if (!f->cfg.standby.enabled)
		return vcp_cli_err(
			EXIT_USAGE,
			"fleet %s: the fleet file has no \"standby\" object (see vcpack(1), Host standby)",
			f->o.arg ? "clear" : "run");
	lo->f = f;
	lo->errs = calloc(f->cfg.n_hosts + 1, sizeof(*lo->errs));
	*l = (struct vcp_loop){ .cfg = &f->cfg,
				.policy = f->c->policy,
				.state_path = vcp_fleet_state_path(f->o.state),
				.ops = &loop_ops,
				.opaque = lo,
				.stop = &loop_stop,
				.kill = &loop_kill };
	if (!lo->errs || vcp_loop_init(l) < 0)
		return vcp_cli_err(EXIT_PARTIAL, "out of memory");
	return 0;
}

/* `fleet run` (@rounds 0: until stopped), or one round for apply. */
int vcp_fleet_cli_cmd_run(struct fctx *f, unsigned int rounds)
{
	struct loopobs lo = { 0 };
	struct vcp_loop l;
	unsigned int every = f->o.interval > 0 ? (unsigned int)f->o.interval :
						 f->cfg.standby.interval_s;
	char *err = NULL;
	int r = loop_setup(f, &l, &lo), lock = -1;
	long holder;

	if (r)
		return r;
	/* one loop acts on a state file: a second would take turns with
	 * the first, each acting on what the other just decided */
	r = vcp_fleet_state_run_lock(l.state_path, &lock, &holder);
	if (r == -EBUSY && holder > 0)
		r = vcp_cli_err(
			EXIT_USAGE,
			"fleet: another 'vcpack fleet run' or 'fleet apply' (pid %ld) acts on the state file %s; nothing done (stop it first, or give this one another --state)",
			holder, l.state_path);
	else if (r == -EBUSY)
		r = vcp_cli_err(
			EXIT_USAGE,
			"fleet: another 'vcpack fleet run' or 'fleet apply' acts on the state file %s; nothing done",
			l.state_path);
	else if (r < 0)
		r = vcp_cli_err(EXIT_PARTIAL, "fleet: cannot lock %s.run: %s",
				l.state_path, strerror(-r));
	if (r) {
		vcp_loop_clear(&l);
		free(lo.errs);
		return r;
	}
	vcp_loop_catch_signals(&loop_stop, &loop_kill);
	if (rounds != 1)
		loop_log(NULL, false, "standby loop started");
	r = vcp_loop_run(&l, every, rounds, &err);
	if (r < 0) {
		r = vcp_cli_err(EXIT_USAGE, "fleet: %s",
				err ? err : strerror(-r));
	} else if (loop_stop) {
		/* as apply's migrations: 130 (SIGINT) or 143 (SIGTERM);
		 * 129 (SIGHUP) */
		char said[96];

		snprintf(
			said, sizeof(said),
			"stopped by %s; the state file says where each host is",
			vcp_loop_sig_name(loop_stop));
		loop_log(NULL, false, said);
		r = 128 + loop_stop;
	} else
		r = l.failures ? EXIT_PARTIAL : 0;
	free(err);
	/* probes stuck past their deadline hold the fleet file's URIs:
	 * vcp_cli_fleet() then exits without freeing */
	f->abandoned += l.abandoned;
	vcp_loop_clear(&l);
	vcp_fleet_cli_in_clear(&lo.in);
	loop_power_clear(&lo);
	free(lo.errs);
	vcp_fleet_state_unlock(lock);
	return r;
}

int vcp_fleet_cli_cmd_clear(struct fctx *f)
{
	struct loopobs lo = { 0 };
	const char *power = NULL;
	struct vcp_loop l;
	char *err = NULL;
	int r = loop_setup(f, &l, &lo);

	if (r)
		return r;
	r = vcp_loop_clear_host(&l, f->o.arg, &power, &err);
	if (r == -ENOENT)
		r = vcp_cli_err(EXIT_USAGE,
				"fleet clear: no host '%s' in the fleet file",
				f->o.arg);
	else if (r == -EALREADY)
		r = vcp_cli_err(
			EXIT_USAGE,
			"fleet clear: '%s' is not failed (it is %s): nothing to clear",
			f->o.arg, power);
	else if (r < 0)
		r = vcp_cli_err(EXIT_USAGE, "fleet clear: %s",
				err ? err : strerror(-r));
	else
		printf("fleet clear: '%s' is on again and may be chosen like any other host\n",
		       vcp_esc(f->o.arg));
	free(err);
	vcp_loop_clear(&l);
	free(lo.errs);
	return r;
}
