/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * irqbal.h - living with irqbalance: is it running, what does its
 * configuration ban, and telling it at run time which CPUs to keep
 * device IRQs off (its socket, the "settings cpus" request that
 * irqbalance-ui and Intel's lpmd send), with a record of what vcpack
 * told it so that it is said again after irqbalance restarts and taken
 * back when the packages wake.
 *
 * Every path is under a root ("/" in production, a fixture tree in
 * tests). Nothing here logs.
 */
#ifndef VCP_IRQBAL_H
#define VCP_IRQBAL_H

#include <stdbool.h>
#include <stddef.h>

#include "cpuset.h"

struct vcp_irqbalance {
	bool running;
	int pid; /* the irqbalance process */
	bool has_banned; /* the setting is present */
	struct vcp_cpuset banned; /* IRQBALANCE_BANNED_CPULIST */
};

/*
 * Is irqbalance running under @root: ROOT/run/irqbalance.pid naming a
 * process whose ROOT/proc/PID/comm reads "irqbalance", or else any
 * ROOT/proc/N/comm reading so (vcp_proc_find_daemon()). And what
 * ROOT/etc/default/irqbalance bans now.
 */
int vcp_irqbalance_detect(const char *root, struct vcp_irqbalance *ret);

/*
 * The CPUs to ask irqbalance to ban so that device IRQs stay off @idle:
 * @idle plus what its configuration bans (a request replaces that list
 * while it is in force). Empty when @idle is, or when its configuration
 * bans all of @idle already: nothing to ask. Pure.
 */
void vcp_irqbal_want(const struct vcp_irqbalance *b,
		     const struct vcp_cpuset *idle, struct vcp_cpuset *ret);

/*
 * The request's text: "settings cpus LIST", or "settings cpus NULL"
 * (back to irqbalance's own configuration) for an empty @ban. Pure.
 * -ENOSPC when @size is too small.
 */
int vcp_irqbal_request(const struct vcp_cpuset *ban, char *buf, size_t size);

/*
 * Send @text to irqbalance @pid through its socket,
 * ROOT/run/irqbalance/irqbalancePID.sock. 0; -ENOENT when it has none
 * (an irqbalance built without its socket, or one that could not make
 * it); -errno otherwise. Waits for no answer: irqbalance answers a
 * "settings" request with nothing (and dies of SIGPIPE when a client
 * hangs up on an answer it is sending, so vcpack asks nothing else).
 */
int vcp_irqbal_send(const char *root, int pid, const char *text);

/* What vcpack has told irqbalance: ROOT/run/vcpack/irqbalance-ban,
 * "PID CPULIST". */
#define VCP_IRQBAL_TOLD_PATH "/run/vcpack/irqbalance-ban"

struct vcp_irqbal_told {
	int pid; /* 0: nothing told */
	struct vcp_cpuset ban;
};

/* Missing file: 0 with pid 0. -EBADMSG on a malformed file. */
int vcp_irqbal_told_load(const char *root, struct vcp_irqbal_told *ret);
/* Replace the record (the directories above it made); pid 0 removes
 * it. */
int vcp_irqbal_told_store(const char *root, const struct vcp_irqbal_told *t);

/* What telling irqbalance came to, for reports. */
struct vcp_irqbal_result {
	bool asked; /* a request was sent (would be, dry run) */
	bool in_force; /* our ban holds after this (ban below) */
	bool gave_back; /* irqbalance was given its own list back */
	int error; /* -errno of a failed request, else 0 */
	struct vcp_cpuset ban; /* what it was asked to ban */
};

/*
 * Bring irqbalance @b in line with @idle (empty: the packages woke, or
 * vcpack steps back): ask for vcp_irqbal_want()'s ban unless the record
 * says that irqbalance (same pid) has it already; give it its own list
 * back when a ban of ours is in force and @idle is empty. A record
 * naming another pid is stale (irqbalance restarted and forgot). @dry
 * sends and stores nothing. 0, or -errno of the record's I/O; a failed
 * request is not an error here (ret->error).
 */
int vcp_irqbal_follow(const char *root, const struct vcp_irqbalance *b,
		      const struct vcp_cpuset *idle, bool dry,
		      struct vcp_irqbal_result *ret);

#endif
