// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleetpower.c - each fleet host's power_command, run by fleet.c's pool
 * without a libvirt connection (a host in standby is read through its
 * BMC) through powercmd.c (argv, no shell, its own process group, killed
 * as a group at its power_timeout), its stdout parsed by powerreading.c.
 * A command that fails, outlives its timeout or prints what is not
 * understood is a host without a reading, saying why; the others still
 * report. The pool's own deadline is the longest power_timeout plus the
 * 2 s from SIGTERM to SIGKILL and a margin, so the command's timeout is
 * what ends a hung one.
 */
#include "fleetpower.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "fleet.h"
#include "powercmd.h"

static const char *const state_names[] = {
	[VCP_FPOWER_NONE] = "none",
	[VCP_FPOWER_MEASURED] = "measured",
	[VCP_FPOWER_FAILED] = "failed",
	[VCP_FPOWER_TIMED_OUT] = "timed_out",
	[VCP_FPOWER_UNPARSEABLE] = "unparseable",
};

const char *vcp_fpower_state_name(enum vcp_fpower_state s)
{
	return (unsigned int)s <= VCP_FPOWER_UNPARSEABLE ? state_names[s] : "?";
}

/* The first non-blank line of @s (stderr's, else stdout's), cut. */
static void first_line(const char *s, char *buf, size_t size)
{
	size_t n;

	s += strspn(s ? s : "", " \t\r\n");
	n = s ? strcspn(s, "\r\n") : 0;
	if (n > 120)
		n = 120;
	snprintf(buf, size, "%.*s%s", (int)n, n ? s : "",
		 n == 120 ? "..." : "");
}

/* Why a command that ran gave no reading (or NULL: it exited 0). */
static char *failed_why(const char *prog, const struct vcp_cmd_result *res,
			unsigned int timeout_s, enum vcp_fpower_state *st)
{
	bool err = res->errout && *res->errout;
	char how[96], line[128];
	char *why = NULL;

	if (!res->timed_out && !res->signal && res->status == 0)
		return NULL;
	*st = res->timed_out ? VCP_FPOWER_TIMED_OUT : VCP_FPOWER_FAILED;
	vcp_cmd_outcome(res, how, sizeof(how), timeout_s);
	first_line(err ? res->errout : res->output, line, sizeof(line));
	vcp_err(&why, 0, "power_command %s: %s%s%s", prog, how,
		!*line ? "" :
		err    ? "; stderr: " :
			 "; output: ",
		line);
	return why;
}

/* A command that ran: its reading, or why none. */
static void judge(const char *prog, const struct vcp_cmd_result *res,
		  unsigned int timeout_s, struct vcp_fleet_power *p)
{
	char *err = NULL;

	p->why = failed_why(prog, res, timeout_s, &p->state);
	if (p->why)
		return;
	if (vcp_reading_parse(res->output, &p->reading, &err) == 0) {
		p->state = VCP_FPOWER_MEASURED;
	} else {
		p->state = VCP_FPOWER_UNPARSEABLE;
		vcp_err(&p->why, 0,
			"power_command %s: output not understood: %s", prog,
			err ? err : "out of memory");
	}
	free(err);
}

static int run(const struct vcp_fleet_cfg *cfg, size_t i,
	       struct vcp_fleet_power *p)
{
	char *const *argv = vcp_fleet_power_command(cfg, i);
	unsigned int t = vcp_fleet_power_timeout(cfg, i);
	struct vcp_cmd_opts o = { VCP_FPOWER_MAX_OUTPUT, true };
	struct vcp_cmd_result res = { 0 };
	char *env[4] = { NULL };
	int r = -ENOMEM;

	if (asprintf(&env[0], "VCPACK_HOST=%s", cfg->hosts[i].name) >= 0 &&
	    asprintf(&env[1], "VCPACK_URI=%s", cfg->hosts[i].uri) >= 0 &&
	    (env[2] = strdup("VCPACK_ACTION=power")))
		r = vcp_cmd_run_opts(argv, env, t, NULL, &o, &res);
	for (int k = 0; k < 3; k++)
		free(env[k]);
	p->state = VCP_FPOWER_FAILED;
	if (r == -ENOENT) /* res.output says why */
		r = vcp_err(&p->why, 0, "power_command %s: %s", argv[0],
			    res.output);
	else if (r < 0)
		r = vcp_err(&p->why, 0,
			    "power_command %s could not be started: %s",
			    argv[0], strerror(-r));
	else
		judge(argv[0], &res, t, p);
	vcp_cmd_result_clear(&res);
	return p->state == VCP_FPOWER_MEASURED || p->why ? 0 : -ENOMEM;
}

/* A vcp_fleet_job without a connection: host @i's power_command. */
static int power_job(struct vcp_virt *v, size_t i, void *arg, void **ret_data,
		     char **ret_err)
{
	const struct vcp_fleet_cfg *cfg = arg;
	struct vcp_fleet_power *p = calloc(1, sizeof(*p));
	int r;

	(void)v;
	(void)ret_err;
	if (!p)
		return -ENOMEM;
	if (vcp_fleet_power_command(cfg, i))
		r = run(cfg, i, p);
	else
		r = vcp_err(&p->why, 0, "no power_command");
	if (r < 0) {
		free(p->why);
		free(p);
		return r;
	}
	*ret_data = p;
	return 0;
}

static void power_free(void *data)
{
	struct vcp_fleet_power *p = data;

	if (p)
		free(p->why);
	free(p);
}

int vcp_fleet_power_read(const struct vcp_fleet_cfg *cfg,
			 const char *const *uris, unsigned int max_live,
			 struct vcp_fleet_power *ret, size_t *ret_abandoned)
{
	size_t n = cfg->n_hosts;
	struct vcp_fleet_result *res = calloc(n ? n : 1, sizeof(*res));
	struct vcp_fleet_pool pool = { .concurrency = cfg->concurrency,
				       .max_live = max_live,
				       .no_connect = true,
				       .job = power_job,
				       .free_data = power_free,
				       .arg = (void *)cfg };
	unsigned int longest = 0;
	int r;

	memset(ret, 0, n * sizeof(*ret));
	*ret_abandoned = 0;
	for (size_t i = 0; i < n; i++)
		if (vcp_fleet_power_timeout(cfg, i) > longest)
			longest = vcp_fleet_power_timeout(cfg, i);
	pool.timeout_s = longest + 5;
	r = res ? vcp_fleet_run(uris, n, &pool, res, ret_abandoned) : -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct vcp_fleet_power *p = r == 0 ? res[i].data : NULL;

		if (p) {
			ret[i] = *p;
			free(p);
			res[i].data = NULL;
		} else {
			ret[i].state = VCP_FPOWER_FAILED;
			vcp_err(&ret[i].why, 0, "power_command: %s",
				r < 0	   ? strerror(-r) :
				res[i].err ? res[i].err :
					     "?");
		}
		ret[i].seconds = r == 0 ? res[i].seconds : 0;
	}
	if (res)
		vcp_fleet_results_clear(res, n, power_free);
	free(res);
	return r;
}

void vcp_fleet_power_clear(struct vcp_fleet_power *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++) {
		free(p[i].why);
		memset(&p[i], 0, sizeof(p[i]));
	}
}
