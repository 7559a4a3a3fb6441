/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fleetsaved.h - a fleet plan saved by `vcpack fleet plan --save FILE`
 * and read back by `fleet apply --plan FILE`: the migrations in order,
 * with who each host and VM was when the plan was made (host URI,
 * hostname, host UUID; VM name and UUID on its source host).
 */
#ifndef VCP_FLEETSAVED_H
#define VCP_FLEETSAVED_H

#include <stddef.h>

#define VCP_SAVED_FORMAT "vcpack-fleet-plan/1"

struct vcp_saved_host {
	char *name, *uri;
	char *hostname, *host_uuid;	/* NULL: unknown when saved */
};

struct vcp_saved_move {
	char *vm, *uuid;
	size_t from, to;		/* indices into hosts */
};

struct vcp_saved_plan {
	struct vcp_saved_host *hosts;
	size_t n_hosts;
	struct vcp_saved_move *moves;
	size_t n_moves;
};

/* Read and check @path: 0, or -errno with "PATH: what is wrong" (the
 * key path named) in *ret_err; *ret untouched on failure. */
int vcp_saved_plan_load(const char *path, struct vcp_saved_plan *ret,
			char **ret_err);
void vcp_saved_plan_clear(struct vcp_saved_plan *sp);

#endif
