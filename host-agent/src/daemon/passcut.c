// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * passcut.c - a re-plan pass cut short by the connection (passcut.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "passcut.h"

bool vcp_passcut_is(int r, const struct vcp_apply_result *res, size_t n_issues,
		    bool (*alive)(void *opaque), void *opaque)
{
	if (r == -ENOTCONN || res->lost)
		return true;
	return (r < 0 || res->n_failed || n_issues) && !alive(opaque);
}

void vcp_passcut_settle(const struct vcp_actions *acts,
			const struct vcp_vm *vms, struct vcp_apply_result *res,
			struct vcp_pin_memo *memo)
{
	for (size_t i = 0; i < res->n; i++) {
		const struct vcp_action *a = &acts->a[i];

		if (res->e[i].outcome != VCP_RETRY &&
		    res->e[i].outcome != VCP_SKIPPED)
			continue;
		if (a->kind != VCP_ACT_SET_LEVEL)
			vcp_pin_memo_forget(memo, vms[a->vm].name);
		free(res->e[i].msg);
		res->e[i].msg = NULL;
	}
}
