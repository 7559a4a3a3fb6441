// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * backoff.c - the reconnect backoff (backoff.h).
 */
#include "backoff.h"

unsigned int vcp_backoff_lost(struct vcp_backoff *b)
{
	if (b->pending)
		return 0;
	if (!b->wait_s)
		b->wait_s = 1;
	else
		b->wait_s = b->wait_s * 2 < b->max_s ? b->wait_s * 2 : b->max_s;
	b->pending = true;
	b->ops->arm(b, b->wait_s);
	if (b->ops->waiting)
		b->ops->waiting(b, b->wait_s);
	return b->wait_s;
}

int vcp_backoff_try(struct vcp_backoff *b)
{
	int r = b->ops->attempt(b);

	if (r == 0)
		b->wait_s = 0;
	else
		vcp_backoff_lost(b);
	return r;
}

void vcp_backoff_fire(struct vcp_backoff *b)
{
	b->pending = false;
	vcp_backoff_try(b);
}
