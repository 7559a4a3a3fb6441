// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cli-trial.c - `vcpack trial`: does packing pay on this host? Alternates
 * the host between arm A "as found" (what `vcpack restore` would leave)
 * and arm B "as planned" (what `vcpack apply` would do) in the windows of
 * trial.h's schedule, reads the energy counters every --sample seconds
 * and the vCPU wait of every VM per window, and reports mean power per
 * arm, the paired difference and a verdict (trial.c does the
 * arithmetic). Arms are switched through the same diff and apply code as
 * `vcpack apply` (trialarm.c builds the plans). The host is put back as
 * it was found at the start (pins, classes, level, records) at the end,
 * on a failure and on SIGINT/SIGTERM, which stay blocked and are read
 * through a signalfd between steps. The verdict is written atomically to
 * a state file for vcpackd.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "apply.h"
#include "cli.h"
#include "clock.h"
#include "ctl.h"
#include "esc.h"
#include "jsonfile.h"
#include "cycle.h"
#include "demand.h"
#include "diff.h"
#include "fold.h"
#include "observe.h"
#include "policy.h"
#include "powerread.h"
#include "powerview.h"
#include "render.h"
#include "sysfile.h"
#include "trial.h"
#include "trialarm.h"
#include "trialstate.h"
#include "virt.h"

#define EXIT_DONE 0

struct trial_opts {
	struct vcp_trial_params p;
	double sample_s;
	const char *state;
};

struct zone_sel {
	char id[VCP_PWR_NAME];
	double max_j;
};

struct win_rec {
	bool usable;
	double watts;
	double span_s;
	char *why;		/* why not usable */
	struct vcp_trial_vm_wait *vms;
	size_t n_vms;
};

struct trial {
	const struct vcp_cli_host *h;
	struct trial_opts o;
	struct vcp_power_ops *fops;
	struct vcp_power_reader *pr;
	struct zone_sel *zones;
	size_t n_zones;
	int sfd;
	int sig;		/* the signal that stopped the trial, or 0 */
	struct vcp_arm_state found;
	struct vcp_arm_state arm[2];
	struct vcp_trial_window *sched;
	size_t n_win;
	struct win_rec *win;
	double t0;
};

/* ---- options ---- */

static bool parse_seconds(const char *s, double min, double max, double *ret)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !isfinite(v) || v < min || v > max)
		return false;
	*ret = v;
	return true;
}

static int parse_effect(const char *s, struct vcp_trial_params *p)
{
	size_t n = strlen(s);
	char buf[64];
	double v;

	if (n && n < sizeof(buf) && s[n - 1] == '%') {
		memcpy(buf, s, n - 1);
		buf[n - 1] = 0;
		if (!parse_seconds(buf, 0, 100, &v))
			return -EINVAL;
		p->min_effect_pct = v;
		p->min_effect_w = 0;
		return 0;
	}
	if (n && s[n - 1] == 'W') {
		if (n >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, s, n - 1);
		buf[n - 1] = 0;
		s = buf;
	}
	if (!parse_seconds(s, 0, 1e6, &v))
		return -EINVAL;
	p->min_effect_w = v;
	p->min_effect_pct = 0;
	return 0;
}

static int parse_opts(int argc, char **argv, struct trial_opts *o)
{
	static const struct option opts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "window", required_argument, NULL, 'w' },
		{ "settle", required_argument, NULL, 's' },
		{ "sample", required_argument, NULL, 'S' },
		{ "order", required_argument, NULL, 'o' },
		{ "min-effect", required_argument, NULL, 'e' },
		{ "state", required_argument, NULL, 'f' },
		{ 0 }
	};
	double v;
	int c;

	vcp_trial_params_default(&o->p);
	o->sample_s = 1;
	o->state = vcp_trial_state_path();
	optind = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (!parse_seconds(optarg, VCP_TRIAL_MIN_ROUNDS,
					   VCP_TRIAL_MAX_ROUNDS, &v) || v != floor(v))
				return vcp_cli_err(EXIT_USAGE, "--rounds '%s' is not a whole number from %d to %d",
						   optarg, VCP_TRIAL_MIN_ROUNDS, VCP_TRIAL_MAX_ROUNDS);
			o->p.rounds = (unsigned int)v;
			break;
		case 'w':
			if (!parse_seconds(optarg, 0.1, 86400, &o->p.window_s))
				return vcp_cli_err(EXIT_USAGE, "--window '%s' is not a number of seconds from 0.1 to 86400", optarg);
			break;
		case 's':
			if (!parse_seconds(optarg, 0, 86400, &o->p.settle_s))
				return vcp_cli_err(EXIT_USAGE, "--settle '%s' is not a number of seconds from 0 to 86400", optarg);
			break;
		case 'S':
			if (!parse_seconds(optarg, 0.01, 3600, &o->sample_s))
				return vcp_cli_err(EXIT_USAGE, "--sample '%s' is not a number of seconds from 0.01 to 3600", optarg);
			break;
		case 'o':
			if (strcmp(optarg, "found-first") == 0)
				o->p.first = VCP_TRIAL_A;
			else if (strcmp(optarg, "planned-first") == 0)
				o->p.first = VCP_TRIAL_B;
			else
				return vcp_cli_err(EXIT_USAGE, "--order '%s' is not one of found-first, planned-first", optarg);
			break;
		case 'e':
			if (parse_effect(optarg, &o->p) < 0)
				return vcp_cli_err(EXIT_USAGE, "--min-effect '%s' is not watts (W) or a percentage (P%%)", optarg);
			break;
		case 'f':
			o->state = optarg;
			break;
		default:
			return vcp_cli_badopt("trial", c, argv);
		}
	}
	if (optind != argc)
		return vcp_cli_err(EXIT_USAGE, "trial takes no arguments, got '%s'",
				   argv[optind]);
	if (o->sample_s * 2 > o->p.window_s)
		return vcp_cli_err(EXIT_USAGE, "--sample %g s leaves fewer than 3 reads in a --window of %g s",
				   o->sample_s, o->p.window_s);
	return 0;
}

/* ---- clock and signals ---- */

static int block_signals(struct trial *t)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	/* an ignored signal is never queued: a trial started in the
	 * background of a script must still stop cleanly on SIGINT */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	t->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return t->sfd < 0 ? -errno : 0;
}

/* Wait until @until (vcp_mono_s() clock); -EINTR when a signal came. */
static int sleep_until(struct trial *t, double until)
{
	for (;;) {
		struct pollfd pfd = { .fd = t->sfd, .events = POLLIN };
		double left = until - vcp_mono_s();
		struct timespec ts = { 0 };
		struct signalfd_siginfo si;

		if (left > 0) {
			ts.tv_sec = (time_t)left;
			ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		}
		if (ppoll(&pfd, 1, &ts, NULL) > 0 &&
		    read(t->sfd, &si, sizeof(si)) == sizeof(si)) {
			t->sig = (int)si.ssi_signo;
			return -EINTR;
		}
		if (left <= 0)
			return 0;
	}
}

/* ---- power ---- */

static const char *power_refusal(const struct vcp_cli_host *h)
{
	const char *uri = vcp_virt_uri(h->v), *s = strstr(uri, "://");

	if (h->power_root)
		return NULL;
	if (vcp_virt_is_test_driver(h->v))
		return "libvirt's test driver is a simulated host: it has no energy counters (--power-root DIR reads a fixture tree)";
	if (s && s[3] != '/')
		return "a remote host: the energy counters read here are not its own; run vcpack trial on that host";
	return NULL;
}

static int open_power(struct trial *t, char *why, size_t len)
{
	const char *root = t->h->power_root ? t->h->power_root : "/sys";
	int r;

	if (strchr(root, ',')) {
		snprintf(why, len, "--power-root '%s': trial reads one tree (DIR), not DIR,DIR2", root);
		return -EINVAL;
	}
	if (t->h->power_root && vcp_power_file_ops_new(root, &t->fops) < 0)
		return -ENOMEM;
	r = vcp_power_reader_open(root, t->fops, &t->pr);
	if ((r == -ENOENT || r == -ENOTDIR) && t->h->power_root) {
		snprintf(
			why, len,
			"--power-root '%s': %s (a wrong --power-root, not a host without counters)",
			root,
			r == -ENOENT ? "no such directory" : "not a directory");
		return -EINVAL;
	}
	if (r < 0)
		snprintf(why, len, "reading the power counters under %s: %s",
			 root, strerror(-r));
	return r;
}

/* The zones that make the host's power (package and dram, as status
 * adds them), from a first read; -ENOENT/-EACCES and why when none,
 * -ERANGE and why when one of them is unreadable or implausible (the
 * host's total would lack it), -EINVAL and why for a fixture clock that
 * is no clock. */
static int pick_zones(struct trial *t, char *why, size_t len)
{
	struct vcp_pwr_snap s = { 0 };
	const struct vcp_pwr_zone *bad = NULL;
	int err, r = vcp_power_read(t->pr, &s);

	if (r == -EINVAL && t->fops && t->fops->clock_why &&
	    t->fops->clock_why(t->fops->data))
		snprintf(why, len, "%s", t->fops->clock_why(t->fops->data));
	if (r < 0)
		return r;
	err = s.zones_err ? s.zones_err : -ENOENT;
	t->zones = calloc(s.n_zones ? s.n_zones : 1, sizeof(*t->zones));
	for (size_t i = 0; t->zones && i < s.n_zones; i++) {
		const struct vcp_pwr_zone *z = &s.zones[i];

		if (z->kind != VCP_ZONE_PACKAGE && z->kind != VCP_ZONE_DRAM)
			continue;
		if (z->err) {
			err = z->err;
			bad = bad ? bad : z;
			continue;
		}
		snprintf(t->zones[t->n_zones].id, VCP_PWR_NAME, "%s", z->id);
		t->zones[t->n_zones++].max_j = (double)z->max_uj / 1e6;
	}
	if (bad && t->n_zones && err != -EACCES && err != -EPERM) {
		snprintf(why, len, "zone %s (%s): %s", bad->id, bad->name,
			 bad->why);
		err = -ERANGE;
	}
	vcp_pwr_snap_clear(&s);
	if (!t->zones)
		return -ENOMEM;
	if (t->n_zones && err != -ERANGE)
		return 0;
	if (err != -ERANGE)
		vcp_power_missing(VCP_SRC_ENERGY, err, why, len);
	return err;
}

/*
 * Two reads further apart than a counter's wrap time (its range at
 * VCP_PWR_ZONE_MAX_W) may straddle two wraps, which no arithmetic can
 * tell from one (the window's arithmetic refuses them): cap --sample at
 * half the shortest wrap time (a read may come late), and say so.
 */
static void cap_sample(struct trial *t)
{
	double wrap = 0;
	size_t k = 0;

	for (size_t z = 0; z < t->n_zones; z++) {
		double w = t->zones[z].max_j / VCP_PWR_ZONE_MAX_W;

		if (!z || w < wrap) {
			wrap = w;
			k = z;
		}
	}
	if (!t->n_zones || t->o.sample_s <= wrap / 2)
		return;
	vcp_cli_err(
		0,
		"--sample %g s capped at %g s: the energy counter of zone %s wraps in %g s at %.0f W, and two wraps between reads cannot be told from one",
		t->o.sample_s, wrap / 2, t->zones[k].id, wrap,
		VCP_PWR_ZONE_MAX_W);
	t->o.sample_s = wrap / 2;
}

/* One read of the chosen zones into @out[zone] at @k. */
static int read_energy(struct trial *t, struct vcp_trial_sample *out,
		       size_t stride, size_t k)
{
	struct vcp_pwr_snap s = { 0 };
	int r = vcp_power_read(t->pr, &s);

	if (r < 0)
		return r;
	for (size_t z = 0; z < t->n_zones; z++) {
		struct vcp_trial_sample *x = &out[z * stride + k];

		x->t_s = (double)s.t_ns / 1e9;
		x->missing = true;
		for (size_t i = 0; i < s.n_zones; i++) {
			if (strcmp(s.zones[i].id, t->zones[z].id) || s.zones[i].err)
				continue;
			x->joules = (double)s.zones[i].energy_uj / 1e6;
			x->missing = false;
		}
	}
	vcp_pwr_snap_clear(&s);
	return 0;
}

/* ---- vCPU wait ---- */

static const struct vcp_vcpu_sample *find_sample(const struct vcp_sample *s,
						 const char *name)
{
	for (size_t i = 0; s && i < s->n_vms; i++)
		if (strcmp(s->vms[i].name, name) == 0)
			return &s->vms[i];
	return NULL;
}

static void waits(const struct vcp_sample *a, const struct vcp_sample *b,
		  struct win_rec *w)
{
	if (!a || !b || !b->have_vcpu_time)
		return;
	w->vms = calloc(b->n_vms ? b->n_vms : 1, sizeof(*w->vms));
	for (size_t i = 0; w->vms && i < b->n_vms; i++) {
		const struct vcp_vcpu_sample *y = &b->vms[i];
		const struct vcp_vcpu_sample *x = find_sample(a, y->name);
		struct vcp_trial_vm_wait *o = &w->vms[w->n_vms];
		uint64_t sum = 0;

		if (!x || !y->n_vcpus || vcp_demand_wait_ns(x, y, &sum) < 0)
			continue;
		o->name = strdup(y->name);
		if (!o->name)
			continue;
		o->vcpus = y->n_vcpus;
		o->wait_s = (double)sum / 1e9;
		w->n_vms++;
	}
}

static struct vcp_sample *take_sample(struct trial *t)
{
	struct vcp_sample *s = NULL;
	char *err = NULL;

	if (vcp_virt_sample(t->h->v, &s, &err) < 0)
		s = NULL;
	free(err);
	return s;
}

/* ---- switching arms ---- */

/* Found without a record of its original pins: any record it has now
 * is the trial's. A VM that came later is not the trial's business. */
static bool record_is_ours(const struct trial *t, const char *name)
{
	for (size_t f = 0; f < t->found.n_vms; f++)
		if (!strcmp(t->found.vms[f].name, name))
			return !t->found.vms[f].had_saved;
	return false;
}

/* Drop the records of original pins that the trial made. */
static int drop_records(struct trial *t, const struct vcp_world *w,
			const struct vcp_actions *acts, char **msg)
{
	int ret = 0;

	for (size_t i = 0; i < w->n_vms; i++) {
		bool made = w->vms[i].has_saved;
		char *err = NULL;
		int r;

		for (size_t a = 0; a < acts->n; a++)
			if (acts->a[a].kind == VCP_ACT_SAVE && acts->a[a].vm == i)
				made = true;
		if (!made || !record_is_ours(t, w->vms[i].name))
			continue;
		/* -ENOENT: the VM stopped, and its live record with it */
		r = vcp_virt_clear_saved(t->h->v, w->vms[i].name, &err);
		if (r < 0 && r != -ENOENT) {
			ret = -EIO;
			if (!*msg)
				*msg = err, err = NULL;
		}
		free(err);
	}
	return ret;
}

/*
 * Put the host in state @s through diff and apply (as `vcpack apply`);
 * @end: the found state, and the records the trial made are dropped.
 * 0, or -EIO with *msg (the first failure).
 */
static int switch_to(struct trial *t, const struct vcp_arm_state *s, bool end,
		     char **msg)
{
	struct vcp_world w = { 0 };
	struct vcp_plan *plan = NULL;
	struct vcp_actions acts = { 0 };
	struct vcp_apply_result res = { 0 };
	int r = vcp_observe(t->h->v, t->h->k, t->h->mode, 0, &w, msg);

	if (r == 0)
		r = vcp_arm_plan(s, w.vms, w.n_vms, t->h->mode, &plan);
	if (r == 0)
		r = vcp_diff_compute(w.host, w.vms, w.n_vms, plan,
				     s->level < 0 ? -1 : w.cur_level, &acts);
	if (r == 0)
		r = vcp_apply_actions(t->h->v, t->h->k, w.host, w.vms, &acts, &res);
	for (size_t i = 0; r == 0 && i < res.n; i++) {
		if (res.e[i].outcome != VCP_FAILED && res.e[i].outcome != VCP_RETRY)
			continue;
		*msg = res.e[i].msg ? strdup(res.e[i].msg) : NULL;
		r = -EIO;
	}
	if (end && (r == 0 || r == -EIO) && drop_records(t, &w, &acts, msg) < 0)
		r = -EIO;
	if (r < 0 && !*msg)
		*msg = strdup(strerror(-r));
	vcp_apply_result_clear(&res);
	vcp_actions_clear(&acts);
	vcp_plan_free(plan);
	vcp_world_clear(&w);
	return r;
}

/* The three states from the host as found and the policy's plan. */
static int make_states(struct trial *t, char **msg)
{
	const struct vcp_cli_host *h = t->h;
	struct vcp_policy pol = *h->policy;
	struct vcp_cycle cy = { 0 };
	struct vcp_saved_pins *recs;
	const char **names;
	size_t n = 0;
	int r;

	/* arm B is what packing would do, also before any verdict */
	pol.require_trial = false;
	r = vcp_cycle_plan(h->v, h->k, h->mode, h->sample_ms, NULL, &pol,
			   time(NULL), &cy, msg);

	if (r < 0)
		return r;
	recs = calloc(cy.w.n_vms + 1, sizeof(*recs));
	names = calloc(cy.w.n_vms + 1, sizeof(*names));
	r = recs && names ? 0 : -ENOMEM;
	for (size_t i = 0; r == 0 && i < cy.w.n_vms; i++) {
		char *err = NULL;

		if (cy.w.vms[i].has_saved &&
		    vcp_virt_get_saved(h->v, cy.w.vms[i].name, &recs[n], &err) == 0)
			names[n++] = cy.w.vms[i].name;
		free(err);
	}
	if (r == 0)
		r = vcp_arm_from_world(&cy.w, &t->found);
	if (r == 0)
		r = vcp_arm_from_world(&cy.w, &t->arm[VCP_TRIAL_A]);
	if (r == 0)
		vcp_arm_as_restored(&t->arm[VCP_TRIAL_A], names, recs, n,
				    vcp_mode_plan(h->mode) == VCP_MODE_KERNEL);
	if (r == 0)
		r = vcp_arm_from_plan(cy.plan, cy.w.vms, cy.w.n_vms,
				      cy.w.cur_level, &t->arm[VCP_TRIAL_B]);
	for (size_t i = 0; recs && i < n; i++)
		vcp_saved_pins_clear(&recs[i]);
	free(recs);
	free(names);
	vcp_cycle_clear(&cy);
	if (r < 0 && !*msg)
		*msg = strdup(strerror(-r));
	return r;
}

/* ---- one window ---- */

static const char *arm_name(enum vcp_trial_arm a)
{
	return a == VCP_TRIAL_A ? "as-found" : "as-planned";
}

/* Measure the window @w starting now: samples, then watts. */
static int measure(struct trial *t, struct win_rec *w)
{
	const struct vcp_trial_params *p = &t->o.p;
	size_t n = (size_t)ceil(p->window_s / t->o.sample_s - 1e-9) + 1;
	struct vcp_trial_sample *s = calloc(n * t->n_zones, sizeof(*s));
	struct vcp_sample *a = NULL, *b = NULL;
	double start, watts = 0;
	char *err = NULL;
	int r = s ? 0 : -ENOMEM;

	/* the window starts after libvirt's vCPU sample, however long that
	 * took: its first energy read is then on time */
	a = take_sample(t);
	start = vcp_mono_s();
	for (size_t k = 0; r == 0 && k < n; k++) {
		double at = start + fmin((double)k * t->o.sample_s, p->window_s);

		r = sleep_until(t, at);
		if (r == 0)
			r = read_energy(t, s, n, k);
	}
	if (r == 0)
		b = take_sample(t);
	w->usable = r == 0;
	for (size_t z = 0; r == 0 && z < t->n_zones && w->usable; z++) {
		double zw;

		if (vcp_trial_window_power(&s[z * n], n, t->zones[z].max_j,
					   p->window_s, p->min_cover, &zw,
					   &err) < 0) {
			w->usable = false;
			w->why = err;
			err = NULL;
		} else {
			watts += zw;
		}
	}
	w->watts = w->usable ? watts : NAN;
	w->span_s = p->window_s;
	if (r == 0)
		waits(a, b, w);
	vcp_sample_free(a);
	vcp_sample_free(b);
	free(s);
	return r;
}

static double arm_mean(const struct trial *t, size_t upto,
		       enum vcp_trial_arm arm)
{
	double sum = 0;
	unsigned int n = 0;

	for (size_t i = 0; i < upto; i++)
		if (t->sched[i].arm == arm && t->win[i].usable) {
			sum += t->win[i].watts;
			n++;
		}
	return n ? sum / n : NAN;
}

static void progress_line(const struct trial *t, size_t i, FILE *out)
{
	const struct win_rec *w = &t->win[i];
	double el = vcp_mono_s() - t->t0;
	double left = (double)(t->n_win - i - 1) *
		      (t->o.p.window_s + t->o.p.settle_s);

	fprintf(out, "window %zu/%zu %-10s ", i + 1, t->n_win,
		arm_name(t->sched[i].arm));
	if (w->usable)
		fprintf(out, "%.1f W", w->watts);
	else
		fprintf(out, "not used (%s)",
			w->why ? vcp_esc_msg(w->why) : "?");
	fprintf(out, "; so far");
	for (int a = VCP_TRIAL_A; a <= VCP_TRIAL_B; a++) {
		double m = arm_mean(t, i + 1, (enum vcp_trial_arm)a);

		fprintf(out, isnan(m) ? "%s %s -" : "%s %s %.1f W",
			a ? "," : "", arm_name((enum vcp_trial_arm)a), m);
	}
	fprintf(out, "; elapsed %.0f s, remaining %.0f s\n", el, left);
}

/* A window's line as it ends: on stderr with --json, else on stdout
 * folded to the width (a long reason) unless --wide, its further lines
 * indented by 4 under "window N/M". */
static void progress(const struct trial *t, size_t i)
{
	FILE *out = t->h->json ? stderr : stdout, *mem;
	char *line = NULL;
	size_t len = 0;

	mem = open_memstream(&line, &len);
	if (!mem) {
		progress_line(t, i, out);
		return;
	}
	progress_line(t, i, mem);
	fclose(mem);
	if (len && line[len - 1] == '\n')
		line[len - 1] = '\0';
	vcp_fold_line(out, line, 0, 4,
		      t->h->json || t->h->wide ? 0 : vcp_width_cols());
	free(line);
	fflush(out);
}

/* Switch to window @i's arm, settle, measure. 0, -EINTR, -EIO (*msg). */
static int run_window(struct trial *t, size_t i, char **msg)
{
	enum vcp_trial_arm arm = t->sched[i].arm;
	int r = 0;

	if (i == 0 || t->sched[i - 1].arm != arm)
		r = switch_to(t, &t->arm[arm], false, msg);
	if (r == 0)
		r = sleep_until(t, vcp_mono_s() + t->o.p.settle_s);
	if (r == 0)
		r = measure(t, &t->win[i]);
	if (r == 0)
		progress(t, i);
	return r;
}

/* ---- report ---- */

static struct json_object *windows_json(const struct trial *t)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < t->n_win; i++) {
		struct json_object *o = json_object_new_object();
		const struct win_rec *w = &t->win[i];

		json_object_object_add(o, "index", json_object_new_int((int)i));
		json_object_object_add(o, "arm",
			json_object_new_string(arm_name(t->sched[i].arm)));
		json_object_object_add(o, "usable", json_object_new_boolean(w->usable));
		json_object_object_add(o, "watts", w->usable ?
			vcp_json_double3(w->watts) : NULL);
		json_object_object_add(o, "reason", w->why ?
			json_object_new_string(w->why) : NULL);
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *report_json(const struct trial *t,
				       const struct vcp_trial_result *res)
{
	struct json_object *o = NULL, *s = json_object_new_object();

	if (vcp_trial_to_json(res, &o) < 0)
		return NULL;
	json_object_object_add(s, "rounds", json_object_new_int((int)t->o.p.rounds));
	json_object_object_add(s, "window_s", vcp_json_double3(t->o.p.window_s));
	json_object_object_add(s, "settle_s", vcp_json_double3(t->o.p.settle_s));
	json_object_object_add(s, "sample_s", vcp_json_double3(t->o.sample_s));
	json_object_object_add(s, "order", json_object_new_string(
		t->o.p.first == VCP_TRIAL_A ? "found-first" : "planned-first"));
	json_object_object_add(o, "host", json_object_new_string(vcp_virt_hostname(t->h->v)));
	json_object_object_add(o, "uri", json_object_new_string(vcp_virt_uri(t->h->v)));
	json_object_object_add(o, "schedule", s);
	json_object_object_add(o, "windows", windows_json(t));
	return o;
}

static void arm_text(const char *name, const struct vcp_trial_arm_stat *a)
{
	printf("%-12s%.1f W (95%% interval %.1f to %.1f W), %u windows\n",
	       name, a->mean_w, a->lo_w, a->hi_w, a->n);
}

static void report_text(const struct vcp_cli_host *h,
			const struct vcp_trial_result *r)
{
	struct vcp_fold_capture fc;
	struct vcp_names nm;

	static const char *const meaning[] = {
		[VCP_TRIAL_NO_DIFFERENCE] = "no difference within noise: packing does not pay here, by this trial",
		[VCP_TRIAL_SAVES] = "saves: packing lowers this host's power",
		[VCP_TRIAL_COSTS] = "costs: packing raises this host's power",
	};

	vcp_names_init(&nm, VCP_RENDER_NAME_W, h->wide);
	for (size_t i = 0; i < r->n_vms; i++)
		vcp_names_add(&nm, r->vms[i].name);
	vcp_fold_begin(&fc, h->wide ? 0 : vcp_width_cols());
	printf("result:\n");
	arm_text("as-found:", &r->arm[VCP_TRIAL_A]);
	arm_text("as-planned:", &r->arm[VCP_TRIAL_B]);
	printf("%-12s%+.1f W (95%% interval %+.1f to %+.1f W)", "difference:",
	       r->diff_w, r->lo_w, r->hi_w);
	if (!isnan(r->diff_pct))
		printf(", %+.1f%% (%+.1f%% to %+.1f%%)", r->diff_pct, r->lo_pct,
		       r->hi_pct);
	printf(", %u pairs, %u windows dropped\n", r->n_pairs, r->n_dropped);
	for (size_t i = 0; i < r->n_vms; i++) {
		const struct vcp_trial_vm *v = &r->vms[i];

		if (isnan(v->change))
			continue;
		printf("%-12s'%s' %.2f%% as found, %.2f%% as planned (%+.2f points)\n",
		       "vCPU wait:", vcp_render_cut(&nm, v->name),
		       v->wait[0] * 100, v->wait[1] * 100, v->change * 100);
	}
	vcp_names_clear(&nm);
	printf("%-12s%s\n", "verdict:", meaning[r->verdict]);
	vcp_fold_end(&fc);
}

/* Write @o to @path atomically, its directory made if missing. */
static int write_state(const char *path, struct json_object *o)
{
	char *dir = strdup(path), *slash;
	int r = 0;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			r = -errno;
	}
	free(dir);
	if (r)
		return r;
	return vcp_file_replace(path, json_object_to_json_string_ext(
					      o, JSON_C_TO_STRING_PRETTY));
}

static int record(const struct trial *t, struct json_object *rep)
{
	struct json_object *o = json_object_new_object();
	int r;

	json_object_object_add(o, "version", json_object_new_int(1));
	json_object_object_add(o, "finished_at", json_object_new_int64((int64_t)time(NULL)));
	json_object_object_add(o, "verdict", json_object_get(
		json_object_object_get(rep, "verdict")));
	json_object_object_add(o, "trial", json_object_get(rep));
	r = write_state(t->o.state, o);
	json_object_put(o);
	if (r < 0)
		return vcp_cli_err(EXIT_PARTIAL, "recording the verdict in %s: %s",
				   t->o.state, strerror(-r));
	return 0;
}

static int analyse(struct trial *t)
{
	struct vcp_trial_obs *obs = calloc(t->n_win, sizeof(*obs));
	struct vcp_trial_result *res = NULL;
	struct json_object *rep = NULL;
	char *err = NULL;
	int r;

	if (!obs)
		return vcp_cli_err(EXIT_PARTIAL, "out of memory");
	for (size_t i = 0; i < t->n_win; i++)
		obs[i] = (struct vcp_trial_obs){
			.usable = t->win[i].usable, .watts = t->win[i].watts,
			.span_s = t->win[i].span_s, .vms = t->win[i].vms,
			.n_vms = t->win[i].n_vms,
		};
	r = vcp_trial_analyse(&t->o.p, obs, t->n_win, &res, &err);
	free(obs);
	if (r < 0) {
		vcp_cli_err(0, "no verdict: %s", err ? err : strerror(-r));
		free(err);
		return EXIT_PARTIAL;
	}
	rep = report_json(t, res);
	if (!rep)
		r = vcp_cli_err(EXIT_PARTIAL, "out of memory");
	else if (t->h->json)
		vcp_cli_json(json_object_get(rep));
	else
		report_text(t->h, res);
	if (rep && !r)
		r = record(t, rep);
	json_object_put(rep);
	vcp_trial_result_free(res);
	return r;
}

/* ---- the command ---- */

static void trial_clear(struct trial *t)
{
	for (size_t i = 0; t->win && i < t->n_win; i++) {
		for (size_t k = 0; k < t->win[i].n_vms; k++)
			free((char *)t->win[i].vms[k].name);
		free(t->win[i].vms);
		free(t->win[i].why);
	}
	free(t->win);
	free(t->sched);
	free(t->zones);
	vcp_arm_state_clear(&t->found);
	vcp_arm_state_clear(&t->arm[0]);
	vcp_arm_state_clear(&t->arm[1]);
	vcp_power_reader_close(t->pr);
	vcp_power_file_ops_free(t->fops);
	if (t->sfd >= 0)
		close(t->sfd);
}

/* The pid of a vcpackd managing this same URI (it would restate its
 * plan in the middle of A windows), 0, or -1 (said) when the reply is
 * refused: whether one manages the host is not known. */
static int daemon_here(const struct vcp_cli_host *h)
{
	struct json_object *o;
	char *reply = NULL, *err = NULL;
	int pid = 0;

	if (vcp_ctl_request(h->daemon_socket, "status\n", 1000, 16 << 20,
			    &reply) < 0)
		return 0;
	o = json_tokener_parse(reply);
	free(reply);
	if (vcp_status_check(o, &err) < 0) {
		vcp_cli_err(
			0,
			"refusing the trial: vcpackd's reply on %s refused: %s",
			h->daemon_socket, err ? err : "not a status");
		free(err);
		json_object_put(o);
		return -1;
	}
	if (json_object_get_boolean(json_object_object_get(o, "connected")) &&
	    !strcmp(json_object_get_string(json_object_object_get(o, "uri")) ?: "",
		    vcp_virt_uri(h->v)))
		pid = json_object_get_int(json_object_object_get(o, "pid"));
	json_object_put(o);
	return pid ? pid : 0;
}

/* Everything that may refuse, before anything changes. */
static int prepare(struct trial *t)
{
	const char *why = power_refusal(t->h);
	char buf[512], *err = NULL;
	int r;

	if (why)
		return vcp_cli_err(EXIT_USAGE, "refusing the trial, no energy counter to read: %s", why);
	r = daemon_here(t->h);
	if (r < 0)
		return EXIT_PARTIAL;
	if (r)
		return vcp_cli_err(EXIT_USAGE, "refusing the trial: vcpackd (pid %d) manages this host and would undo the arms; stop it for the trial (systemctl stop vcpackd)", r);
	r = open_power(t, buf, sizeof(buf));
	if (r == -EINVAL)
		return vcp_cli_err(EXIT_USAGE, "%s", buf);
	if (r < 0)
		return vcp_cli_err(EXIT_PARTIAL, "%s", r == -ENOMEM ? "out of memory" : buf);
	r = pick_zones(t, buf, sizeof(buf));
	if (r == -ENOMEM)
		return vcp_cli_err(EXIT_PARTIAL, "out of memory");
	if (r == -EINVAL)
		return vcp_cli_err(EXIT_USAGE, "refusing the trial: %s", buf);
	if (r == -ERANGE)
		return vcp_cli_err(
			EXIT_USAGE,
			"refusing the trial, the host's total would lack a zone: %s",
			buf);
	if (r < 0)
		return vcp_cli_err(EXIT_USAGE, "refusing the trial, no energy counter is readable: %s", buf);
	cap_sample(t);
	t->n_win = vcp_trial_n_windows(&t->o.p);
	t->sched = calloc(t->n_win, sizeof(*t->sched));
	t->win = calloc(t->n_win, sizeof(*t->win));
	if (!t->sched || !t->win)
		return vcp_cli_err(EXIT_PARTIAL, "out of memory");
	if (vcp_trial_schedule(&t->o.p, t->sched, &err) < 0) {
		vcp_cli_err(0, "%s", err ? err : "bad trial parameters");
		free(err);
		return EXIT_USAGE;
	}
	r = make_states(t, &err);
	if (r < 0) {
		vcp_cli_err(0, "%s", err ? err : strerror(-r));
		free(err);
		return EXIT_PARTIAL;
	}
	if (vcp_arm_same(&t->arm[VCP_TRIAL_A], &t->arm[VCP_TRIAL_B],
			 vcp_mode_plan(t->h->mode) == VCP_MODE_KERNEL))
		return vcp_cli_err(EXIT_USAGE, "refusing the trial: the plan leaves this host as vcpack restore would (same pins, classes and level), so both arms would be the same");
	if (block_signals(t) < 0)
		return vcp_cli_err(EXIT_PARTIAL, "blocking SIGINT and SIGTERM: %s",
				   strerror(errno));
	return 0;
}

/* Back to the found state; the exit status given how the run ended. */
static int finish(struct trial *t, int run)
{
	char *msg = NULL;
	int r = switch_to(t, &t->found, true, &msg);

	if (r < 0) {
		vcp_cli_err(0, "putting the host back as found failed: %s (see vcpack status; vcpack restore puts the recorded pins back)",
			    msg ? msg : "?");
		free(msg);
		return EXIT_PARTIAL;
	}
	if (t->sig) {
		vcp_cli_err(0, "stopped by signal %d: the host is back as found",
			    t->sig);
		return 128 + t->sig;
	}
	return run;
}

int vcp_cli_trial(int argc, char **argv, const struct vcp_cli_host *h)
{
	struct trial t = { .h = h, .sfd = -1 };
	char *msg = NULL;
	int r = parse_opts(argc, argv, &t.o);

	if (r == 0)
		r = prepare(&t);
	if (r) {
		trial_clear(&t);
		return r;
	}
	if (!h->json)
		vcp_fold_printf(
			stdout, h->wide ? 0 : vcp_width_cols(),
			"trial: %u rounds, %zu windows of %g s (settle %g s, a read every %g s), %s first; about %.0f s\n",
			t.o.p.rounds, t.n_win, t.o.p.window_s, t.o.p.settle_s,
			t.o.sample_s, arm_name(t.o.p.first),
			(double)t.n_win * (t.o.p.window_s + t.o.p.settle_s));
	t.t0 = vcp_mono_s();
	for (size_t i = 0; r == 0 && i < t.n_win; i++)
		r = run_window(&t, i, &msg);
	if (r < 0 && r != -EINTR)
		vcp_cli_err(0, "the trial stopped: %s", msg ? msg : strerror(-r));
	free(msg);
	r = r == 0 ? EXIT_DONE : EXIT_PARTIAL;
	r = finish(&t, r);
	if (r == EXIT_DONE)
		r = analyse(&t);
	trial_clear(&t);
	return r;
}
