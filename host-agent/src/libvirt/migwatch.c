// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * migwatch.c - one live migration, watched. Three threads: one runs
 * vcp_virt_migrate (it blocks until libvirt answers), one polls the
 * job's progress (virDomainGetJobStats, which libvirt may hold while
 * QEMU completes the migration), and the caller's, which never blocks on
 * either: every tick it checks the timeout and the stop flag, asks for
 * virDomainAbortJob when either is due (and every second after until
 * the migration answers: one taken before QEMU's migration has begun
 * is lost), and passes the latest progress to the caller's callback.
 * All libvirt calls go through virt.c. The poll and the abort have a
 * connection of their own to the source: on the connection that carries
 * the migration, libvirt 9.0 answered a job query only when the
 * migration ended (seen: 8 s and more, while another connection was
 * answered in 0.1 s); without that connection there is no progress and
 * the abort goes on the migration's own.
 */
#include "migwatch.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "migprog.h"

/* how often an abort is asked again while the migration runs on */
#define ABORT_EVERY_S 1.0

struct run {
	struct vcp_virt *src, *dst;
	struct vcp_virt *query;		/* the progress poll's connection */
	const char *name;
	const struct vcp_migrate_opts *o;
	double tick_s;
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* CLOCK_MONOTONIC */
	bool done, quit;		/* migration answered; poller ends */
	int r;
	char *err;
	struct vcp_job_progress p;	/* latest poll */
	unsigned long seq;		/* polls that gave figures */
};

/* Wait on the run's condition for up to @s (mutex held). */
static void wait_s(struct run *rn, double s)
{
	uint64_t at = vcp_mono_ns() + (uint64_t)(s * 1e9);
	struct timespec ts = { .tv_sec = (time_t)(at / 1000000000u),
			       .tv_nsec = (long)(at % 1000000000u) };

	pthread_cond_timedwait(&rn->cv, &rn->mu, &ts);
}

static void *migrate_main(void *arg)
{
	struct run *rn = arg;
	char *err = NULL;
	int r = vcp_virt_migrate(rn->src, rn->dst, rn->name, rn->o, &err);

	pthread_mutex_lock(&rn->mu);
	rn->r = r;
	rn->err = err;
	rn->done = true;
	pthread_cond_broadcast(&rn->cv);
	pthread_mutex_unlock(&rn->mu);
	return NULL;
}

static void *poll_main(void *arg)
{
	struct run *rn = arg;

	pthread_mutex_lock(&rn->mu);
	while (!rn->done && !rn->quit) {
		struct vcp_job_progress p;
		bool ok;

		pthread_mutex_unlock(&rn->mu);
		ok = vcp_virt_job_progress(rn->query, rn->name, &p) == 0 &&
		     p.active;
		pthread_mutex_lock(&rn->mu);
		if (ok && !rn->done) {
			rn->p = p;
			rn->seq++;
		}
		if (!rn->done && !rn->quit)
			wait_s(rn, rn->tick_s);
	}
	pthread_mutex_unlock(&rn->mu);
	return NULL;
}

/* The caller's thread until the migration answers. */
static enum vcp_mig_end watch(struct run *rn, const struct vcp_mig_watch *w,
			      double t0, bool *ret_aborted)
{
	enum vcp_mig_end why = VCP_MIG_MOVED;	/* no abort asked */
	bool aborted = false;
	double last_abort = -1;
	unsigned long seen = 0;

	pthread_mutex_lock(&rn->mu);
	while (!rn->done) {
		double secs = vcp_mono_s() - t0;

		wait_s(rn, why == VCP_MIG_MOVED ?
		       vcp_mig_wait_s(w->timeout_s, secs, rn->tick_s) :
		       rn->tick_s);
		if (rn->done)
			break;
		secs = vcp_mono_s() - t0;
		if (why == VCP_MIG_MOVED && w->stop && *w->stop)
			why = VCP_MIG_STOPPED;
		else if (why == VCP_MIG_MOVED &&
			 vcp_mig_past(w->timeout_s, secs))
			why = VCP_MIG_TIMED_OUT;
		/* again every second until the migration answers: before
		 * QEMU's migration starts there is nothing to abort, and
		 * libvirt 9.0 may take the abort then and go on (seen: a
		 * SIGTERM 1 s into the job, the guest moved 30 s later) */
		if (why != VCP_MIG_MOVED &&
		    vcp_mig_abort_due(last_abort, secs, ABORT_EVERY_S)) {
			char *err = NULL;

			pthread_mutex_unlock(&rn->mu);
			if (vcp_virt_abort_job(rn->query ? rn->query : rn->src,
					       rn->name, &err) == 0)
				aborted = true;
			free(err);	/* its outcome is the migration's */
			pthread_mutex_lock(&rn->mu);
			last_abort = secs;
		}
		if (w->progress && rn->seq != seen && !rn->done) {
			struct vcp_job_progress p = rn->p;

			seen = rn->seq;
			pthread_mutex_unlock(&rn->mu);
			w->progress(w->opaque, &p, secs);
			pthread_mutex_lock(&rn->mu);
		}
	}
	rn->quit = true;
	pthread_cond_broadcast(&rn->cv);
	pthread_mutex_unlock(&rn->mu);
	*ret_aborted = aborted;
	return why;
}

/* Is the guest running on the source? Asked again on a new connection
 * when the old one is gone: a Ctrl-C on a terminal also reaches the ssh
 * of a qemu+ssh:// connection. False: the source did not answer. */
static bool source_state(struct vcp_virt *src, const char *name,
			 bool *ret_running)
{
	struct vcp_virt *again = NULL;
	char *err = NULL;
	bool known = vcp_virt_domain_state(src, name, ret_running) == 0;

	if (!known && vcp_virt_open(vcp_virt_uri(src), true, &again, &err) == 0)
		known = vcp_virt_domain_state(again, name, ret_running) == 0;
	vcp_virt_close(again);
	free(err);
	return known;
}

static int run_init(struct run *rn)
{
	pthread_condattr_t ca;

	if (pthread_condattr_init(&ca))
		return -ENOMEM;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (pthread_cond_init(&rn->cv, &ca)) {
		pthread_condattr_destroy(&ca);
		return -ENOMEM;
	}
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&rn->mu, NULL);
	return 0;
}

int vcp_mig_run(struct vcp_virt *src, struct vcp_virt *dst, const char *name,
		const struct vcp_migrate_opts *o,
		const struct vcp_mig_watch *w, struct vcp_mig_result *ret,
		char **ret_err)
{
	struct run rn = { .src = src, .dst = dst, .name = name, .o = o,
			  .tick_s = (w->tick_ms ? w->tick_ms : 250) / 1000.0 };
	struct vcp_mig_result res = { .end = VCP_MIG_FAILED };
	pthread_t mig, poll;
	char *qerr = NULL;
	bool polling;
	double t0 = vcp_mono_s();
	enum vcp_mig_end why;
	bool aborted;
	int r = run_init(&rn);

	if (r < 0) {
		*ret = res;
		return r;
	}
	/* the poll's and the abort's (read-write): libvirt holds a call
	 * made on the connection that carries the migration until the
	 * migration ends */
	if (vcp_virt_open(vcp_virt_uri(src), false, &rn.query, &qerr) < 0)
		rn.query = NULL;
	free(qerr);
	if (pthread_create(&mig, NULL, migrate_main, &rn)) {
		vcp_virt_close(rn.query);
		pthread_cond_destroy(&rn.cv);
		pthread_mutex_destroy(&rn.mu);
		*ret = res;
		return -EAGAIN;
	}
	polling = rn.query && pthread_create(&poll, NULL, poll_main, &rn) == 0;
	why = watch(&rn, w, t0, &aborted);
	pthread_join(mig, NULL);
	if (polling)
		pthread_join(poll, NULL);
	vcp_virt_close(rn.query);
	pthread_cond_destroy(&rn.cv);
	pthread_mutex_destroy(&rn.mu);
	res.secs = vcp_mono_s() - t0;
	res.asked = why;
	if (rn.r == 0) {
		res.end = VCP_MIG_MOVED;
		res.too_late = why != VCP_MIG_MOVED;
	} else if (why != VCP_MIG_MOVED && aborted) {
		/* failed once libvirt took the abort: libvirt's message is
		 * "canceled by client"; ours says why and where it is */
		res.end = why;
		res.source_known = source_state(src, name, &res.on_source);
		free(rn.err);
		rn.err = NULL;
		rn.r = -ECANCELED;
	}
	*ret = res;
	if (rn.r < 0 && rn.err)
		*ret_err = rn.err;
	else
		free(rn.err);
	return rn.r;
}
