/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * powercmd.h - run an operator's power command (standby or wake of a
 * fleet host): an argv, no shell, with a timeout, its output captured.
 */
#ifndef VCP_POWERCMD_H
#define VCP_POWERCMD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Output kept (stdout and stderr together, the first bytes). */
#define VCP_CMD_MAX_OUTPUT 4096

struct vcp_cmd_result {
	int status;		/* exit status; -1 when killed or timed out */
	int signal;		/* the signal that ended it, or 0 */
	bool timed_out;		/* killed at the timeout */
	bool killed;		/* killed because *watch->kill was set */
	pid_t pid;		/* its pid (and process group) */
	char *output;		/* NUL-terminated, never NULL on success */
	/* stderr, when kept apart (else NULL) */
	char *errout;
};

/*
 * Run @argv (argv[0] searched in PATH) with stdin from /dev/null, stdout
 * and stderr captured, @envp added to the environment ("KEY=VALUE",
 * NULL-terminated; may be NULL), in its own process group. Past
 * @timeout_s the group gets SIGTERM, then SIGKILL 2 s later or once the
 * command has ended, whichever comes first. 0 once the
 * command ran and ended (whatever its status: see *ret), -ENOENT when
 * argv[0] cannot be executed (*ret then says why in output), -errno when
 * it cannot be started; *ret untouched on failure.
 */
int vcp_cmd_run(char *const *argv, char *const *envp, unsigned int timeout_s,
		struct vcp_cmd_result *ret);

/* A stop asked for while the command runs (by SIGINT/SIGTERM). */
struct vcp_cmd_watch {
	/* Once set, @stopping is called (once, with the command's pid):
	 * the command is let finish, up to its timeout. */
	const volatile sig_atomic_t *stop;
	void (*stopping)(void *opaque, pid_t pid);
	/* Once set (a second signal), the command's process group gets
	 * SIGTERM, SIGKILL 2 s later, as at the timeout: *ret says killed. */
	const volatile sig_atomic_t *kill;
	void *opaque;
};

/* vcp_cmd_run() watching @w (NULL: as vcp_cmd_run). */
int vcp_cmd_run_watched(char *const *argv, char *const *envp,
			unsigned int timeout_s, const struct vcp_cmd_watch *w,
			struct vcp_cmd_result *ret);

/* How the output is kept (NULL: as vcp_cmd_run does). */
struct vcp_cmd_opts {
	/* Bytes of output kept (the rest is read and dropped); 0:
	 * VCP_CMD_MAX_OUTPUT. */
	size_t max_output;
	/* stderr into ret->errout (its first VCP_CMD_MAX_OUTPUT bytes), not
	 * mixed with stdout in ret->output. */
	bool stderr_apart;
};

/* vcp_cmd_run_watched() keeping the output as @o says. */
int vcp_cmd_run_opts(char *const *argv, char *const *envp,
		     unsigned int timeout_s, const struct vcp_cmd_watch *w,
		     const struct vcp_cmd_opts *o, struct vcp_cmd_result *ret);
void vcp_cmd_result_clear(struct vcp_cmd_result *r);
/* "exit 0", "exit 3", "killed by signal 9", "timed out after N s",
 * "killed when asked to (pid N, its process group)". */
const char *vcp_cmd_outcome(const struct vcp_cmd_result *r, char *buf,
			    unsigned long size, unsigned int timeout_s);

#endif
