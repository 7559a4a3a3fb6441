// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scxrun.c - starts, watches and stops the scx_vcpack loader for vcpackd
 * (scxrun.h), on scx.c's commands and scxstate.c's reading.
 */
#include "scxrun.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "scx.h"
#include "scxstate.h"

static int start(struct vcp_scx_run *run, struct vcp_kernel *k)
{
	char how[96];
	int r, st = 0;

	r = vcp_scx_start(k->scx, 0, &run->pid);
	if (r < 0) {
		snprintf(run->failed, sizeof(run->failed), "could not be started ('%s': %s)",
			 vcp_scx_bin(k->scx), strerror(-r));
		run->pid = 0;
		return r;
	}
	r = vcp_scx_wait_loaded(k->scx, k->root, run->pid,
				VCP_SCX_LOAD_TIMEOUT_MS, &st);
	if (r == -ECHILD) {
		snprintf(run->failed, sizeof(run->failed), "did not load (its loader %s; see its messages and dmesg)",
			 vcp_scx_status_text(st, how, sizeof(how)));
		run->pid = 0;
	} else if (r < 0) {
		snprintf(run->failed, sizeof(run->failed), "did not load within %d s (%s)",
			 VCP_SCX_LOAD_TIMEOUT_MS / 1000, strerror(-r));
		vcp_scx_run_stop(run);
	}
	return r;
}

int vcp_scx_run_detect(struct vcp_scx_run *run, const struct vcp_virt *v,
		       const char *root, int force, struct vcp_kernel **ret_k,
		       struct vcp_mode_choice *ret)
{
	struct vcp_kernel *k = NULL;
	struct vcp_mode_choice c;
	const char *failed = run->failed[0] ? run->failed : NULL;
	int r;

	r = vcp_mode_detect_full(v, root, force, &run->conf, run->pid == 0,
				 failed, &k, &c);
	if (r < 0)
		return r;
	if (c.start_scx && k && k->scx && start(run, k) < 0) {
		vcp_kernel_free(k);
		k = NULL;
		r = vcp_mode_detect_full(v, root, force, &run->conf, false,
					 run->failed, &k, &c);
		if (r < 0)
			return r;
	}
	*ret_k = k;
	*ret = c;
	return 0;
}

bool vcp_scx_run_alive(struct vcp_scx_run *run, const char *root)
{
	struct vcp_scx_info i;
	bool exited = false;
	char how[96];
	int st = 0;

	if (run->pid > 0 && vcp_scx_reap(run->pid, &exited, &st) == 0 &&
	    exited) {
		run->pid = 0;
		snprintf(run->failed, sizeof(run->failed), "went away (its loader %s)",
			 vcp_scx_status_text(st, how, sizeof(how)));
		return false;
	}
	if (vcp_scx_read(root, run->conf.pindir, &i) < 0 || vcp_scx_is_ours(&i))
		return true;
	snprintf(run->failed, sizeof(run->failed), "is no longer loaded (sched_ext %s%s%s%s)",
		 vcp_scx_state_name(i.state), *i.ops ? ", '" : "", i.ops,
		 *i.ops ? "' loaded" : "");
	if (run->pid > 0)
		vcp_scx_run_stop(run);
	return false;
}

void vcp_scx_run_stop(struct vcp_scx_run *run)
{
	int st;

	if (run->pid > 0)
		vcp_scx_stop(run->pid, 5000, &st);
	run->pid = 0;
}
