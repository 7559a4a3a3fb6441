// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleet.c - a bounded pool of workers over many libvirt hosts, and the
 * job that observes one host for `vcpack fleet status|plan`.
 *
 * Each worker takes the next host, opens its own connection (libvirt
 * connections are thread-safe, but one per worker keeps a slow host from
 * holding up the others), runs the job and closes. The calling thread
 * waits on a condition variable, reports progress, and gives up on a host
 * whose deadline has passed: that host's result is -ETIMEDOUT, a new
 * worker starts in its place, and the stuck one, when libvirt returns at
 * last, frees what it made. The shared state is reference-counted, so
 * the last thread out frees it. No output, no logging.
 *
 * A stuck worker keeps its connection's descriptors (a socket and an
 * eventfd; VCP_FLEET_FDS_PER_HOST counts them with room to spare) until
 * libvirt returns, which for a host that accepts and never answers is
 * never. So workers alive at once, stuck or not, are bounded by
 * pool.max_live (from the fd budget): no new worker starts past it, and
 * when every live worker is stuck and the budget is spent, the hosts not
 * started yet are reported as not contacted, saying why, instead of the
 * process running out of descriptors inside libvirt or GLib.
 */
#include "fleet.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "errmsg.h"
#include "topology.h"

enum jstate { J_PENDING = 0, J_RUNNING, J_DONE, J_ABANDONED };

struct job {
	enum jstate state;
	double start;
	struct vcp_fleet_result res;
};

struct shared {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int refs;
	const char *const *uris;
	struct vcp_fleet_pool pool;
	struct job *jobs;
	size_t n, next, finished;	/* finished: done or abandoned */
	unsigned int alive;		/* workers not yet exited */
	unsigned int stuck;		/* of them, inside an abandoned job */
};

static void unref(struct shared *s)
{
	bool last;

	pthread_mutex_lock(&s->lock);
	last = --s->refs == 0;
	pthread_mutex_unlock(&s->lock);
	if (!last)
		return;
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s->jobs);
	free(s);
}

/* Run one job outside the lock. */
static struct vcp_fleet_result run_one(struct shared *s, size_t i)
{
	struct vcp_fleet_result res = { 0 };
	struct vcp_virt *v = NULL;
	double t0 = vcp_mono_s();

	if (!s->pool.no_connect)
		res.r = vcp_virt_open(s->uris[i], s->pool.readonly, &v,
				      &res.err);
	if (res.r == 0) {
		res.r = s->pool.job(v, i, s->pool.arg, &res.data, &res.err);
		vcp_virt_close(v);
	}
	if (res.r < 0 && !res.err)
		vcp_err(&res.err, 0, "%s", strerror(-res.r));
	res.seconds = vcp_mono_s() - t0;
	return res;
}

static void store(struct shared *s, size_t i, struct vcp_fleet_result res)
{
	struct job *j = &s->jobs[i];

	if (j->state == J_ABANDONED) {
		/* the caller gave up on this host: drop what came late */
		s->stuck--;
		if (res.data && s->pool.free_data)
			s->pool.free_data(res.data);
		free(res.err);
		return;
	}
	j->res = res;
	j->state = J_DONE;
	s->finished++;
	pthread_cond_signal(&s->cond);
}

static void *worker(void *p)
{
	struct shared *s = p;

	pthread_mutex_lock(&s->lock);
	while (s->next < s->n) {
		size_t i = s->next++;
		struct vcp_fleet_result res;

		s->jobs[i].state = J_RUNNING;
		s->jobs[i].start = vcp_mono_s();
		pthread_mutex_unlock(&s->lock);
		res = run_one(s, i);
		pthread_mutex_lock(&s->lock);
		store(s, i, res);
	}
	s->alive--;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	unref(s);
	return NULL;
}

static bool may_spawn(const struct shared *s)
{
	return s->next < s->n &&
	       (!s->pool.max_live || s->alive < s->pool.max_live);
}

/* Called with the lock held. */
static int spawn(struct shared *s)
{
	pthread_attr_t attr;
	pthread_t t;
	int r;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	s->refs++;
	s->alive++;
	r = pthread_create(&t, &attr, worker, s);
	pthread_attr_destroy(&attr);
	if (r) {
		s->refs--;
		s->alive--;
	}
	return -r;
}

/* Called with the lock held: give up on hosts past their deadline. */
static size_t expire(struct shared *s, size_t *abandoned)
{
	double t = vcp_mono_s();
	size_t n = 0;

	for (size_t i = 0; i < s->next; i++) {
		struct job *j = &s->jobs[i];

		if (j->state != J_RUNNING ||
		    t - j->start < (double)s->pool.timeout_s)
			continue;
		j->state = J_ABANDONED;
		j->res.r = -ETIMEDOUT;
		j->res.seconds = t - j->start;
		vcp_err(&j->res.err, 0, "no answer within %u s",
			s->pool.timeout_s);
		s->finished++;
		s->stuck++;
		(*abandoned)++;
		n++;
	}
	return n;
}

static void wait_tick(struct shared *s)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 100 * 1000 * 1000;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&s->cond, &s->lock, &ts);
}

static struct shared *shared_new(const char *const *uris, size_t n,
				 const struct vcp_fleet_pool *pool)
{
	struct shared *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->jobs = calloc(n ? n : 1, sizeof(*s->jobs));
	if (!s->jobs) {
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	s->refs = 1;
	s->uris = uris;
	s->pool = *pool;
	s->n = n;
	return s;
}

/* Called with the lock held: no worker left and none can be started
 * (out of threads, or the fd budget spent on stuck workers): the hosts
 * not started yet fail, rather than wait. */
static void fail_pending(struct shared *s, bool budget)
{
	for (; s->next < s->n; s->next++) {
		struct job *j = &s->jobs[s->next];

		j->state = J_DONE;
		j->res.r = budget ? -EMFILE : -EAGAIN;
		if (budget)
			vcp_err(&j->res.err, 0, "not contacted: the %u connections the file descriptor limit allows are held by hosts that did not answer",
				s->pool.max_live);
		else
			vcp_err(&j->res.err, 0, "no worker thread could be started");
		s->finished++;
	}
}

/* Wait for every host, replacing workers stuck past their deadline. */
static void supervise(struct shared *s, size_t *abandoned)
{
	size_t reported = 0;

	while (s->finished < s->n) {
		wait_tick(s);
		for (size_t k = expire(s, abandoned); k; k--)
			if (may_spawn(s))
				spawn(s);
		if (s->alive == s->stuck && s->next < s->n &&
		    (!may_spawn(s) || spawn(s) < 0))
			fail_pending(s, !may_spawn(s));
		if (s->pool.progress && s->finished != reported) {
			reported = s->finished;
			s->pool.progress(s->pool.progress_opaque, reported, s->n);
		}
	}
}

unsigned int vcp_fleet_fd_budget(unsigned long long nofile,
				 unsigned long long in_use)
{
	unsigned long long spare;

	if (nofile <= in_use + VCP_FLEET_FD_RESERVE)
		return 0;
	spare = (nofile - in_use - VCP_FLEET_FD_RESERVE) /
		VCP_FLEET_FDS_PER_HOST;
	return spare > 100000 ? 100000 : (unsigned int)spare;
}

int vcp_fleet_run(const char *const *uris, size_t n,
		  const struct vcp_fleet_pool *pool,
		  struct vcp_fleet_result *results, size_t *ret_abandoned)
{
	struct shared *s;
	size_t abandoned = 0, started = 0;
	unsigned int want;

	if (!pool->job || !pool->concurrency || !pool->timeout_s)
		return -EINVAL;
	s = shared_new(uris, n, pool);
	if (!s)
		return -ENOMEM;
	want = n < pool->concurrency ? (unsigned int)n : pool->concurrency;
	pthread_mutex_lock(&s->lock);
	for (unsigned int w = 0; w < want && may_spawn(s); w++)
		started += spawn(s) == 0;
	if (!started && n) {
		pthread_mutex_unlock(&s->lock);
		unref(s);
		return -EAGAIN;
	}
	supervise(s, &abandoned);
	for (size_t i = 0; i < n; i++) {
		results[i] = s->jobs[i].res;
		memset(&s->jobs[i].res, 0, sizeof(s->jobs[i].res));
	}
	pthread_mutex_unlock(&s->lock);
	unref(s);
	*ret_abandoned = abandoned;
	return 0;
}

void vcp_fleet_results_clear(struct vcp_fleet_result *res, size_t n,
			     void (*free_data)(void *data))
{
	for (size_t i = 0; i < n; i++) {
		if (res[i].data && free_data)
			free_data(res[i].data);
		free(res[i].err);
		memset(&res[i], 0, sizeof(res[i]));
	}
}

/* ---- observing one host ---- */

void vcp_fleet_view_free(void *data)
{
	struct vcp_fleet_view *fv = data;

	if (!fv)
		return;
	vcp_world_clear(&fv->w);
	free(fv->hostname);
	free(fv->host_uuid);
	free(fv->driver);
	free(fv->cpu_xml);
	free(fv->cpu_key);
	free(fv);
}

char *vcp_caps_host_uuid(const char *caps)
{
	const char *h = strstr(caps, "<host>");
	const char *end = h ? strstr(h, "</host>") : NULL;
	const char *u = h ? strstr(h, "<uuid>") : NULL;
	const char *ue;

	if (!u || (end && u > end))
		return NULL;
	u += strlen("<uuid>");
	ue = strstr(u, "</uuid>");
	if (!ue || ue - u > 64)
		return NULL;
	return strndup(u, (size_t)(ue - u));
}

int vcp_fleet_observe_job(struct vcp_virt *v, size_t i, void *arg,
			  void **ret_data, char **ret_err)
{
	const unsigned int *sample_ms = arg;
	struct vcp_fleet_view *fv = calloc(1, sizeof(*fv));
	char *caps, *ignored = NULL;
	int r;

	if (!fv)
		return -ENOMEM;
	r = vcp_observe(v, NULL, VCP_MODE_PIN, sample_ms ? *sample_ms : 0,
			&fv->w, ret_err);
	if (r == 0)
		r = vcp_virt_host_memory(v, &fv->mem_kib, ret_err);
	if (r == 0) {
		fv->hostname = strdup(vcp_virt_hostname(v));
		fv->driver = strdup(vcp_virt_driver(v));
		caps = vcp_virt_capabilities(v);
		/* no host <cpu>: the host only pairs with itself */
		if (caps && vcp_caps_host_cpu(caps, &fv->cpu_xml, &fv->cpu_key,
					      &ignored) < 0)
			fv->cpu_xml = fv->cpu_key = NULL;
		free(ignored);
		fv->host_uuid = caps ? vcp_caps_host_uuid(caps) : NULL;
		free(caps);
		if (!fv->hostname || !fv->driver)
			r = -ENOMEM;
	}
	if (r < 0) {
		vcp_fleet_view_free(fv);
		return r;
	}
	*ret_data = fv;
	return 0;
}
