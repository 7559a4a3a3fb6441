/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli.h - what the parts of the `vcpack` program share: cli.c (the host
 * commands and main) and cli-fleet.c (`vcpack fleet ...`). Not library
 * code: these print.
 */
#ifndef VCP_CLI_H
#define VCP_CLI_H

#include <stdbool.h>

#include <json-c/json.h>

#include "model.h"

#define EXIT_PARTIAL 1
#define EXIT_USAGE 2

/* "vcpack: MESSAGE" on stderr, folded to its width under the message
 * when stderr is a terminal (whole into a file or the journal, and after
 * vcp_cli_wide()); returns @code. */
__attribute__((format(printf, 2, 3)))
int vcp_cli_err(int code, const char *fmt, ...);

/* getopt_long returned @o ('?' or ':', with opterr 0 and a ':' in the
 * option string): say which option is wrong, prefixed "vcpack:" like
 * every message (getopt's own would name argv[0]); EXIT_USAGE. @cmd:
 * the command whose options these are, or NULL. */
int vcp_cli_badopt(const char *cmd, int o, char *const *argv);
/* --wide: error and log lines whole from now on. */
void vcp_cli_wide(void);
/* The columns error and log lines fold to (0: whole). */
size_t vcp_cli_cols(void);
/* Those for lines written to @fd: 0 (whole) unless it is a terminal,
 * else its width (width.h), no wider than vcp_cli_cols(). */
size_t vcp_cli_cols_for(int fd);
/* Pretty JSON on stdout; consumes @o. */
void vcp_cli_json(struct json_object *o);

struct vcp_cli_common {
	bool json;
	bool wide;		/* --wide: lines and names whole */
	unsigned int sample_ms;
	const struct vcp_policy *policy;
};

/* `vcpack fleet ...`: argv[0] is "fleet". Returns the exit status. */
int vcp_cli_fleet(int argc, char **argv, const struct vcp_cli_common *c);

struct vcp_virt;
struct vcp_kernel;

/* An opened host, for the commands kept in their own files. */
struct vcp_cli_host {
	bool json;
	bool wide; /* --wide: names and lines whole */
	unsigned int sample_ms;	/* demand sample for planning */
	const struct vcp_policy *policy;
	struct vcp_virt *v;
	const struct vcp_kernel *k;
	enum vcp_mode mode;
	const char *power_root;	/* --power-root / VCPACK_POWER_ROOT */
	const char *daemon_socket;	/* vcpackd's socket */
};

/* `vcpack trial ...` (cli-trial.c): argv[0] is "trial". The exit
 * status: 0 a verdict, 1 could not finish, 2 refused. */
int vcp_cli_trial(int argc, char **argv, const struct vcp_cli_host *h);

/* `vcpack list ...` (cli-list.c): argv[0] is "list". */
struct vcp_cli_list {
	bool json;
	bool wide;		/* names and cpulists whole */
	const struct vcp_policy *policy;
	struct vcp_virt *v;
};

int vcp_cli_list(int argc, char **argv, const struct vcp_cli_list *l);

#endif
