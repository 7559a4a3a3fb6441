/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fleet.h - talking to many hosts at once: a bounded pool of workers, one
 * libvirt connection per host, a deadline per host. An unreachable or
 * silent host is a result like any other; the rest still report.
 */
#ifndef VCP_FLEET_H
#define VCP_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "observe.h"
#include "virt.h"

struct vcp_fleet_result {
	int r;			/* 0, -errno, -ETIMEDOUT (deadline passed) */
	char *err;		/* why, when r < 0 */
	void *data;		/* what the job made, when r == 0 */
	double seconds;		/* connect + job */
};

/* A job on one host: @v is open on that host's URI. 0 or -errno with
 * *ret_err; *ret_data is freed by the pool's free function. */
typedef int (*vcp_fleet_job)(struct vcp_virt *v, size_t i, void *arg,
			     void **ret_data, char **ret_err);

struct vcp_fleet_pool {
	unsigned int concurrency;	/* workers at once (>= 1) */
	unsigned int timeout_s;		/* per host, connect included */
	/* Workers alive at once, stuck ones included (0: no bound): see
	 * vcp_fleet_fd_budget(). Past it, hosts not started yet fail with
	 * -EMFILE once every live worker is stuck. */
	unsigned int max_live;
	bool readonly;			/* open connections read-only */
	/* The job contacts the host its own way (a command): no libvirt
	 * connection is opened, the job's @v is NULL. */
	bool no_connect;
	vcp_fleet_job job;
	void (*free_data)(void *data);
	void *arg;
	/* Called (from the calling thread) as hosts finish. */
	void (*progress)(void *opaque, size_t done, size_t total);
	void *progress_opaque;
};

/*
 * Run pool->job on every host (uris[i]) and fill results[i]. A host past
 * its deadline gets -ETIMEDOUT and a fresh worker takes its place; the
 * stuck worker is abandoned (it frees what it makes when it ends), and
 * *ret_abandoned counts them: while any runs, @uris and pool->arg must
 * stay valid (exit without freeing them). 0 or -ENOMEM/-EAGAIN (no
 * thread could be started).
 */
int vcp_fleet_run(const char *const *uris, size_t n,
		  const struct vcp_fleet_pool *pool,
		  struct vcp_fleet_result *results, size_t *ret_abandoned);
/* Descriptors one host's connection may hold (a socket and an eventfd
 * in libvirt 9, with room to spare), and those kept for everything else. */
#define VCP_FLEET_FDS_PER_HOST 4
#define VCP_FLEET_FD_RESERVE 64
/* How many hosts may be in contact at once (pool.max_live) for a
 * process allowed @nofile descriptors with @in_use open: 0 when none. */
unsigned int vcp_fleet_fd_budget(unsigned long long nofile,
				 unsigned long long in_use);
void vcp_fleet_results_clear(struct vcp_fleet_result *res, size_t n,
			     void (*free_data)(void *data));

/* What `fleet status` and `fleet plan` read from one host. */
struct vcp_fleet_view {
	struct vcp_world w;
	char *hostname;
	char *host_uuid;	/* capabilities' <host><uuid>, NULL if none */
	char *driver;
	char *cpu_xml;		/* host <cpu>, NULL where unknown */
	char *cpu_key;		/* vcp_caps_host_cpu()'s key */
	unsigned long long mem_kib;
};

/* A vcp_fleet_job: observe a host (pool->arg points to an unsigned int
 * of sampling milliseconds; 0 = do not measure). */
int vcp_fleet_observe_job(struct vcp_virt *v, size_t i, void *arg,
			  void **ret_data, char **ret_err);
void vcp_fleet_view_free(void *data);
/* The <uuid> of capabilities XML's <host>, malloc'd; NULL if none. */
char *vcp_caps_host_uuid(const char *caps);

#endif
