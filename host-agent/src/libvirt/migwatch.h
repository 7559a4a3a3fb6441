/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * migwatch.h - one live migration, watched (migwatch.c): its progress
 * reported while it runs, aborted past its timeout or when a stop flag
 * is set (SIGINT/SIGTERM). `fleet apply` and the standby loop both
 * migrate through it.
 */
#ifndef VCP_MIGWATCH_H
#define VCP_MIGWATCH_H

#include <signal.h>
#include <stdbool.h>

#include "virt.h"

struct vcp_mig_watch {
	unsigned int timeout_s;		/* abort past it; 0: never */
	volatile sig_atomic_t *stop;	/* non-zero: abort; NULL: none */
	unsigned int tick_ms;		/* progress polled (0: 250 ms) */
	/* Called on the caller's thread with the latest progress, at most
	 * once a tick, only with figures newer than the last; may be NULL. */
	void (*progress)(void *opaque, const struct vcp_job_progress *p,
			 double secs);
	void *opaque;
};

enum vcp_mig_end {
	VCP_MIG_MOVED = 0,	/* libvirt says migrated */
	VCP_MIG_FAILED,		/* libvirt says it failed */
	VCP_MIG_TIMED_OUT,	/* aborted past the timeout */
	VCP_MIG_STOPPED,	/* aborted: the stop flag */
};

struct vcp_mig_result {
	enum vcp_mig_end end;
	double secs;		/* from start to libvirt's answer */
	/* MOVED: an abort was asked for (timeout, stop) but the migration
	 * completed first (QEMU holds an abort through its last phase). */
	bool too_late;
	enum vcp_mig_end asked;	/* then: why the abort was asked */
	/* TIMED_OUT, STOPPED: the source's libvirt answered (source_known)
	 * that the guest runs there (on_source). */
	bool source_known, on_source;
};

/*
 * Migrate @name from @src to @dst with @o (vcp_virt_migrate on another
 * thread), watched as @w says. Returns 0 (moved; *ret says if too
 * late to abort), -ECANCELED (aborted: TIMED_OUT or STOPPED; the
 * migration failed after libvirt took virDomainAbortJob) or libvirt's
 * -errno with *ret_err (FAILED, also when it failed before an abort
 * asked for got through). *ret is always filled. The progress poll runs on its own
 * thread, so a poll that libvirt holds never delays the abort.
 */
int vcp_mig_run(struct vcp_virt *src, struct vcp_virt *dst, const char *name,
		const struct vcp_migrate_opts *o,
		const struct vcp_mig_watch *w, struct vcp_mig_result *ret,
		char **ret_err);

#endif
