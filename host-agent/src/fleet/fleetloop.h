/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fleetloop.h - `vcpack fleet run` (rounds at the standby interval until
 * SIGTERM/SIGINT) and `fleet apply` with a standby object (one round):
 * observe the fleet, decide with standby.c, carry the decision out one
 * step at a time (migrations, a standby, wakes), keep the state file.
 */
#ifndef VCP_FLEETLOOP_H
#define VCP_FLEETLOOP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "fleetcfg.h"
#include "fleetplan.h"
#include "standby.h"

struct vcp_policy;

/* One look at the fleet: hosts as the fleet planner takes them (an
 * unreachable one has reachable false and its reason in errs[i]). */
struct vcp_loop_obs {
	const struct vcp_fleet_host *hosts;
	size_t n_hosts;
	struct vcp_fleet_opts opts;
	const char *const *errs;
	/* Appended to the round's line (the fleet's measured power), or
	 * NULL. */
	const char *note;
};

/* What the caller provides: how to look at the fleet, and where the
 * loop's lines go (the loop decides what to say; the program prints). */
struct vcp_loop_ops {
	/* Look at every host of the fleet file now; valid until the next
	 * call. 0 or -errno with *ret_err. */
	int (*observe)(void *opaque, struct vcp_loop_obs *ret,
		       char **ret_err);
	/* One line, no newline. @error: a failure (the round reports it). */
	void (*log)(void *opaque, bool error, const char *line);
};

struct vcp_loop {
	const struct vcp_fleet_cfg *cfg;
	const struct vcp_policy *policy;
	const char *state_path;
	const struct vcp_loop_ops *ops;
	void *opaque;
	/* set (to the signal's number) by SIGTERM/SIGINT
	 * (vcp_loop_catch_signals) or the caller: a migration in flight is
	 * aborted, a power command in flight finishes, nothing more starts */
	volatile sig_atomic_t *stop;
	/* set by a second SIGTERM/SIGINT: a power command in flight is
	 * killed (its process group, by its pid); NULL: never */
	volatile sig_atomic_t *kill;
	/* how often a host is probed while waiting for it (s; tests: 1) */
	unsigned int probe_s;
	/* internal */
	const char **uris;	/* per host: kept while probes may run */
	size_t abandoned;	/* probes stuck past their deadline */
	size_t failures;	/* in the last round */
};

/* SIGTERM, SIGINT and SIGHUP set *@flag to their number (no SA_RESTART: waits
 * end early); once it is set, the next one sets *@kill (may be NULL). */
void vcp_loop_catch_signals(volatile sig_atomic_t *flag,
			    volatile sig_atomic_t *kill);

/* "SIGTERM", "SIGINT", "SIGHUP" (or "a signal"). */
const char *vcp_loop_sig_name(int sig);

/* 0 or -ENOMEM. */
int vcp_loop_init(struct vcp_loop *l);
/* Free what can be freed (nothing while probes may still run). */
void vcp_loop_clear(struct vcp_loop *l);

/*
 * One round: lock and read the state file, observe, decide, act step by
 * step (the state written after each), unlock. 0 when the round ran (its
 * failures counted in l->failures and logged), or -errno with *ret_err
 * when it could not (state file refused, observation failed).
 */
int vcp_loop_round(struct vcp_loop *l, long long now, char **ret_err);
/*
 * Rounds every @interval_s until *l->stop, or @max_rounds (0: no
 * limit). 0 when stopped cleanly, or the first round's -errno.
 */
int vcp_loop_run(struct vcp_loop *l, unsigned int interval_s,
		 unsigned int max_rounds, char **ret_err);
/* `fleet clear NAME`: a failed host back to on, chosen again. 0,
 * -ENOENT (no such host), -EALREADY (not failed: *ret_power says what
 * it is), or -errno with *ret_err. */
int vcp_loop_clear_host(struct vcp_loop *l, const char *name,
			const char **ret_power, char **ret_err);

#endif
