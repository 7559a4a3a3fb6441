/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * backoff.h - when vcpackd tries libvirt again: 1 s after the connection
 * is lost or the first attempt fails, then twice the last wait up to a
 * cap, and 1 s again once an attempt connects. One retry is pending at a
 * time. The clock and the attempt are the caller's (ops), so that a test
 * drives the sequence with a fake clock; nothing here sleeps.
 */
#ifndef VCP_BACKOFF_H
#define VCP_BACKOFF_H

#include <stdbool.h>

struct vcp_backoff;

struct vcp_backoff_ops {
	/* Call vcp_backoff_fire(@b) in @s seconds (a one-shot timer). */
	void (*arm)(struct vcp_backoff *b, unsigned int s);
	/* Try to connect now: 0 connected, < 0 not. */
	int (*attempt)(struct vcp_backoff *b);
	/* A retry is armed in @s seconds (to say so); may be NULL. */
	void (*waiting)(struct vcp_backoff *b, unsigned int s);
};

struct vcp_backoff {
	const struct vcp_backoff_ops *ops;
	void *opaque; /* the caller's */
	unsigned int max_s; /* the longest wait */
	unsigned int wait_s; /* the last wait; 0 since connected */
	bool pending; /* a retry is armed */
};

#define VCP_BACKOFF_INIT(o, data, max)                       \
	{                                                    \
		.ops = (o), .opaque = (data), .max_s = (max) \
	}

/* Try now (attempt); when that fails, arm a retry as lost() does.
 * The attempt's result. */
int vcp_backoff_try(struct vcp_backoff *b);
/* The connection is gone: arm a retry unless one is pending. The wait
 * armed, 0 when a retry was pending already. */
unsigned int vcp_backoff_lost(struct vcp_backoff *b);
/* The armed timer went off: try (vcp_backoff_try). */
void vcp_backoff_fire(struct vcp_backoff *b);

#endif
