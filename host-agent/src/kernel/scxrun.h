/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scxrun.h - vcpackd's scx_vcpack: the mode decision with the loader
 * started when it is decided so, the watch that notices when the
 * scheduler is gone (sched_ext's watchdog or an error ejected it, the
 * loader exited, someone unloaded it), and the stop at exit.
 *
 * No logging: the daemon says what happened, from the reasons here.
 */
#ifndef VCP_SCXRUN_H
#define VCP_SCXRUN_H

#include <stdbool.h>
#include <sys/types.h>

#include "mode.h"

/* how long the loader may take to verify and attach the scheduler */
#define VCP_SCX_LOAD_TIMEOUT_MS 20000

struct vcp_scx_run {
	struct vcp_scx_conf conf;
	pid_t pid;		/* the loader vcpackd started, 0 if none */
	char failed[256];	/* why scx mode was left, "" while it was not */
};

/*
 * vcp_mode_detect_full() with scx_vcpack started when the decision says
 * so; a loader that does not come up is recorded in run->failed and the
 * decision made again without it (pin mode, saying why).
 */
int vcp_scx_run_detect(struct vcp_scx_run *run, const struct vcp_virt *v,
		       const char *root, int force, struct vcp_kernel **ret_k,
		       struct vcp_mode_choice *ret);

/*
 * In scx mode: is scx_vcpack still the loaded scheduler? false, with the
 * reason in run->failed, once it is not (the loader vcpackd started is
 * reaped then).
 */
bool vcp_scx_run_alive(struct vcp_scx_run *run, const char *root);

/* Unload the scheduler vcpackd started (SIGINT to its loader). */
void vcp_scx_run_stop(struct vcp_scx_run *run);

#endif
