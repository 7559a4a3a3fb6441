/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * standby.h - fleet host standby: the policy (the "standby" object of the
 * fleet file, standbycfg.c), the loop's memory (struct vcp_sb_state, to
 * and from JSON in standbystate.c) and the pure decision of one round
 * (standby.c): which guests to migrate, which host to put in standby,
 * which hosts to wake. No I/O anywhere here; time is passed in (seconds,
 * any epoch the caller keeps to).
 */
#ifndef VCP_STANDBY_H
#define VCP_STANDBY_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "fleetplan.h"

/* ---- policy (the fleet file's "standby" object) ---- */

enum vcp_sb_action {
	VCP_SB_ACTION_NONE = 0,		/* never sleeps (the default) */
	VCP_SB_ACTION_LIBVIRT,		/* virNodeSuspendForDuration */
	VCP_SB_ACTION_COMMAND,		/* the operator's commands */
};

struct vcp_sb_host_cfg {
	enum vcp_sb_action action;
	/* argv (NULL-terminated, no shell); NULL unless given */
	char **standby_command;
	char **wake_command;
	unsigned int command_timeout_s;
	unsigned int suspend_duration_s;	/* libvirt-suspend: RTC wake */
	bool stay_on;			/* never put in standby */
};

#define VCP_SB_MAX_HOST_BUDGET 64

struct vcp_sb_cfg {
	bool enabled;			/* the fleet file has "standby" */
	double low, high;		/* band, fractions of capacity on */
	unsigned int low_hold_s;	/* below low this long: standby */
	unsigned int high_hold_s;	/* above high this long: wake */
	unsigned int min_spare_hosts;
	unsigned int min_hosts_on; /* never fewer on (1 at least) */
	unsigned int host_migrations_per_hour;	/* per host, in or out */
	unsigned int migrations_per_round;
	unsigned int wake_cooldown_s;	/* no standby this long after a wake */
	unsigned int woken_grace_s; /* a host woken by someone else */
	unsigned int wake_deadline_s;	/* a wake not answered: failed */
	unsigned int interval_s;	/* how often the loop decides */
	struct vcp_sb_host_cfg *hosts;	/* parallel to the fleet's hosts */
	size_t n_hosts;
};

/* The defaults (a DPM user's: band 45%-81%, i.e. target 63% +- 18%,
 * 40 min below before a standby, 5 min above before a wake), no hosts. */
void vcp_sb_cfg_defaults(struct vcp_sb_cfg *c);
void vcp_sb_cfg_clear(struct vcp_sb_cfg *c);
/*
 * Parse the fleet file's "standby" object @o (NULL: absent, defaults and
 * disabled) for the @n hosts named @names (the fleet's, in its order).
 * @src names the file in messages. 0, -EINVAL with *ret_err naming the
 * key path ("fleet.json: standby.hosts.h1.action: ...") or -ENOMEM;
 * *ret untouched on failure.
 */
int vcp_sb_cfg_parse(struct json_object *o, const char *src,
		     const char *const *names, size_t n,
		     struct vcp_sb_cfg *ret, char **ret_err);
const char *vcp_sb_action_name(enum vcp_sb_action a);
struct vcp_fleet_cfg;
/* The fleet file's hook: "standby" of the fleet file's object @o into
 * @cfg->standby, for @cfg's hosts (already parsed). As above. */
int vcp_sb_cfg_parse_fleet(struct json_object *o, const char *src,
			   struct vcp_fleet_cfg *cfg, char **ret_err);

/* ---- the loop's memory ---- */

enum vcp_sb_power {
	VCP_SB_ON = 0,		/* on (or never touched by vcpack) */
	VCP_SB_DRAINING,	/* its guests are being migrated away */
	VCP_SB_STANDBY,		/* put in standby by vcpack */
	VCP_SB_WAKING,		/* woken, not yet answering */
	VCP_SB_FAILED,		/* did not come back or would not sleep */
};

#define VCP_SB_NO_TIME (-1LL)

struct vcp_sb_host_state {
	char *name;
	enum vcp_sb_power power;
	long long since;		/* when it entered @power */
	char *why;			/* why (for standby and failed) */
	/* in standby, and seen not answering since (a host that answers
	 * again then was woken by someone else) */
	bool seen_asleep;
	char *last_action;		/* e.g. "standby: command exit 0" */
	char *output;			/* that action's output, or NULL */
	double capacity;		/* CPUs, when last seen on */
	unsigned int packages;		/* CPU packages, when last seen on */
	/* Times of its last migrations (in or out), a ring. */
	long long moves[VCP_SB_MAX_HOST_BUDGET];
	unsigned int n_moves;		/* total ever, ring position */
};

struct vcp_sb_state {
	long long below_since, above_since;	/* VCP_SB_NO_TIME: not */
	long long last_wake;			/* last wake decided */
	struct vcp_sb_host_state *hosts;	/* parallel to the fleet */
	size_t n_hosts;
};

/* Fresh state: every host on. 0 or -ENOMEM; *ret untouched on failure. */
int vcp_sb_state_init(const char *const *names, size_t n,
		      struct vcp_sb_state *ret);
void vcp_sb_state_clear(struct vcp_sb_state *s);
const char *vcp_sb_power_name(enum vcp_sb_power p);
/* Stable JSON (standbystate.c); NULL on -ENOMEM. */
struct json_object *vcp_sb_state_to_json(const struct vcp_sb_state *s);
/*
 * Read a saved state back for the fleet's @n hosts @names (matched by
 * name; hosts new to the fleet start on). A host the state has in
 * standby, waking, draining or failed that the fleet no longer lists is
 * refused: the loop must never forget a host it put to sleep. 0, -EINVAL
 * with the key path in *ret_err, -ENOMEM; *ret untouched on failure.
 */
int vcp_sb_state_from_json(struct json_object *o, const char *src,
			   const char *const *names, size_t n,
			   struct vcp_sb_state *ret, char **ret_err);

/* ---- one round ---- */

struct vcp_sb_round {
	const struct vcp_fleet_host *hosts;	/* as observed now */
	size_t n_hosts;
	const struct vcp_policy *policy;
	const struct vcp_fleet_opts *opts;
	const struct vcp_sb_cfg *cfg;
	long long now;
};

struct vcp_sb_decision {
	long drain;			/* host to drain (moves from it), or -1 */
	struct vcp_fleet_move *moves;	/* from @drain, in this order */
	size_t n_moves;
	long standby;			/* host index, or -1 */
	size_t *wake;			/* host indices */
	size_t n_wake;
	double demand, capacity_on, util;	/* CPUs, CPUs, fraction */
	const char *why;		/* what the round does and why */
	const char **host_why;		/* per host: why it stays on, or NULL */
};

/*
 * Decide one round at @r->now from what is observed and @state (the
 * loop's memory). Observations update @state first: the band timers,
 * a waking host that answers is on again (and one past the wake
 * deadline is failed), capacities of hosts seen on. The decisions are
 * not recorded: the caller calls vcp_sb_note_*() as actions succeed or
 * fail. 0, -EINVAL (mismatched sizes) or -ENOMEM; *ret untouched on
 * failure. Free with vcp_sb_decision_free().
 */
int vcp_sb_decide(const struct vcp_sb_round *r, struct vcp_sb_state *state,
		  struct vcp_sb_decision **ret);
void vcp_sb_decision_free(struct vcp_sb_decision *d);

/* What the loop did (each 0 or -ENOMEM). */
int vcp_sb_note_drain(struct vcp_sb_state *s, size_t host, long long now);
void vcp_sb_note_move(struct vcp_sb_state *s, size_t from, size_t to,
		      long long now);
int vcp_sb_note_standby(struct vcp_sb_state *s, size_t host, long long now,
			const char *why);
void vcp_sb_note_wake(struct vcp_sb_state *s, size_t host, long long now);
/* A host in standby seen not answering: asleep for sure. */
void vcp_sb_note_asleep(struct vcp_sb_state *s, size_t host);
/* A failed power action or a wake that never answered. */
int vcp_sb_note_failed(struct vcp_sb_state *s, size_t host, long long now,
		       const char *why);
/* An operator cleared a failed host: on again, chosen like any other. */
void vcp_sb_note_cleared(struct vcp_sb_state *s, size_t host, long long now);
/* A power action was run on @host: what and how it ended (@action),
 * its output (NULL: none). 0 or -ENOMEM. */
int vcp_sb_note_action(struct vcp_sb_state *s, size_t host,
		       const char *action, const char *output);
/* The drain of @host ends (aborted or done): on again. */
void vcp_sb_note_undrain(struct vcp_sb_state *s, size_t host, long long now);

/*
 * Advice (standbyshow.c): the decision of a loop that had seen the fleet
 * as it is now for the hold times, from a fresh state; nothing kept.
 * As vcp_sb_decide().
 */
int vcp_sb_advise(const struct vcp_sb_round *r,
		  struct vcp_sb_decision **ret);
/* A decision over the @n @hosts it was taken for, as JSON (documented in
 * standbyshow.c). */
struct json_object *vcp_sb_decision_to_json(const struct vcp_sb_decision *d,
					    const struct vcp_fleet_host *hosts,
					    size_t n);

/* Migrations in or out of @host within the hour before @now. */
unsigned int vcp_sb_moves_last_hour(const struct vcp_sb_host_state *h,
				    long long now);

#endif
