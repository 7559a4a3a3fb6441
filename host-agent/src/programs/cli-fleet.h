/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli-fleet.h - what the files of `vcpack fleet ...` share: the command's
 * context (options, the fleet file, what the hosts answered) and the
 * helpers each command uses. cli-fleet.c parses the options, loads the
 * fleet file, selects the hosts, collects them and hands each command to
 * its file (status: cli-fleet-status.c; plan: cli-fleet-plan.c; apply:
 * cli-fleet-apply.c; run, clear and apply with a "standby" object:
 * cli-fleet-run.c). Not library code: these print.
 */
#ifndef VCP_CLI_FLEET_H
#define VCP_CLI_FLEET_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "fleet.h"
#include "fleetcfg.h"
#include "fleetplan.h"
#include "fleetpower.h"
#include "fleetrule.h"
#include "render.h"
#include "tags.h"
#include "virt.h"

enum { C_SPREAD, C_BALANCED, C_PACK, C_UNTOUCHED, C__N };
extern const char *const vcp_fleet_cli_class_label[C__N];

struct fopts {
	const char *hosts;
	const char *match;
	int concurrency, timeout; /* -1: from the file */
	bool dry_run;
	bool yes; /* apply without asking */
	const char *save; /* plan --save FILE */
	const char *plan; /* apply --plan FILE */
	bool tls, auto_converge; /* or from the file */
	int bandwidth; /* MiB/s; -1: from the file */
	int mig_timeout; /* s per migration; -1: from the file */
	bool json;
	int sample_ms; /* -1: the global --sample */
	bool has_tag;
	struct vcp_tag tag;
	const char *state; /* run, apply, status, clear: the state file */
	int rounds; /* run --rounds N; -1: until stopped */
	int interval; /* run --interval S; -1: from the file */
	const char *arg; /* clear HOST */
	bool wide; /* status: lines whole, not folded */
};

struct fctx {
	const struct vcp_cli_common *c;
	bool json;
	unsigned int sample_ms;
	struct fopts o;
	struct vcp_fleet_cfg cfg;
	const char **uris;
	struct vcp_fleet_result *res;
	size_t abandoned;
	struct vcp_rule rule; /* --match */
	struct vcp_names *names; /* [0]: the hosts', [1]: the VMs' */
};

/* ---- cli-fleet.c: collecting, names, classes ---- */

/* Descriptors open now, and the limit on them. */
unsigned long long vcp_fleet_cli_fds_in_use(void);
unsigned long long vcp_fleet_cli_fd_limit(void);

/* A pool of workers (fleet.c) for @job on the hosts, within the
 * descriptor limit; and every host of f->cfg asked so (f->uris, f->res). */
struct vcp_fleet_pool vcp_fleet_cli_pool_for(const struct fctx *f,
					     vcp_fleet_job job,
					     void (*free_data)(void *),
					     void *arg, bool readonly);
int vcp_fleet_cli_collect(struct fctx *f, unsigned int sample_ms);

static inline const struct vcp_fleet_view *view(const struct fctx *f, size_t i)
{
	return f->res[i].r == 0 ? f->res[i].data : NULL;
}

/* The fleet tables' name columns: a host's and a VM's name longer than
 * these lose their middle to "..." (as the host tables cut VM names)
 * unless --wide (fleet's or vcpack's). */
#define HOST_W 16
#define VM_W 24

struct cell {
	char s[VM_W + 1];
};

static inline bool wide(const struct fctx *f)
{
	return f->o.wide || f->c->wide;
}

/* @name cut to @w (HOST_W or VM_W) columns, in @c when cut. */
const char *vcp_fleet_cli_cut(const struct fctx *f, const char *name, size_t w,
			      struct cell *c);

static inline const char *host_cell(const struct fctx *f, size_t h,
				    struct cell *c)
{
	return vcp_fleet_cli_cut(f, f->cfg.hosts[h].name, HOST_W, c);
}

/* A VM's class (C_*) as the tables count it. */
int vcp_fleet_cli_vm_class(const struct vcp_vm *vm,
			   const struct vcp_policy *pol);

/* ---- cli-fleet-status.c ---- */

/* Each host's power now, read by its power_command. */
struct power_read {
	struct fctx *f;
	/* by host; all "none" when no host has a power_command */
	struct vcp_fleet_power *p;
	unsigned int max_live;
	size_t abandoned;
	int r;
	pthread_t t;
	bool started; /* read (in its thread, unless none could start) */
	bool threaded;
};

struct power_sum {
	size_t measured, none, failed;
	double watts;
};

/* Start reading the hosts' power (before vcp_fleet_cli_collect()), wait
 * for it (after), and what the readings add up to. */
void vcp_fleet_cli_power_start(struct fctx *f, struct power_read *pr);
void vcp_fleet_cli_power_wait(struct fctx *f, struct power_read *pr);
struct power_sum vcp_fleet_cli_power_sum(const struct fctx *f,
					 const struct vcp_fleet_power *p);

/* ---- cli-fleet-plan.c ---- */

/* The planner's input: the hosts as collected, their CPU groups and
 * which group's guests can run on which. */
struct fleet_in {
	struct vcp_fleet_host *hosts;
	char **keys; /* distinct CPU keys, by group */
	size_t n_groups;
	bool *compat;
};

/* The planner's input from what vcp_fleet_cli_collect() found. */
int vcp_fleet_cli_input(struct fctx *f, struct fleet_in *in);
/* Collect, group CPUs, plan: what `plan` prints and `apply` carries out. */
int vcp_fleet_cli_plan(struct fctx *f, struct fleet_in *in,
		       struct vcp_fleet_plan **ret);
void vcp_fleet_cli_in_clear(struct fleet_in *in);
/* What each migration to host @to passes to libvirt (@to SIZE_MAX: the
 * options common to all), and those options as a line on @fp. */
struct vcp_migrate_opts vcp_fleet_cli_migrate_opts(const struct fctx *f,
						   size_t to);
void vcp_fleet_cli_migration_text(const struct fctx *f, FILE *fp);

/* ---- the commands: each returns the exit status ---- */

int vcp_fleet_cli_cmd_status(struct fctx *f); /* cli-fleet-status.c */
int vcp_fleet_cli_cmd_plan(struct fctx *f); /* cli-fleet-plan.c */
/* cli-fleet-apply.c: the plan's migrations; a saved plan (--plan FILE) */
int vcp_fleet_cli_cmd_apply(struct fctx *f);
int vcp_fleet_cli_cmd_apply_saved(struct fctx *f);
/* cli-fleet-run.c: the standby loop, @rounds of it (0: until stopped);
 * a host it marked failed made a candidate again (clear HOST) */
int vcp_fleet_cli_cmd_run(struct fctx *f, unsigned int rounds);
int vcp_fleet_cli_cmd_clear(struct fctx *f);

#endif
