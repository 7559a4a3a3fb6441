// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cli-fleet.c - `vcpack fleet status|tag|plan|apply`: many hosts over
 * libvirt remote URIs, queried in parallel (fleet.c) with a bound on
 * concurrency and a deadline per host. An unreachable host is shown as
 * such and the others still report; exit 1 says some host or VM failed.
 * The desired state is written where libvirt keeps it (each VM's
 * metadata); `plan` changes nothing; `apply` carries the plan out with
 * live migrations, one at a time, checking each on both hosts.
 *
 * This file parses the options, loads the fleet file, selects and asks
 * the hosts and hands each command to its code; what the files share is
 * cli-fleet.h. `status` is cli-fleet-status.c, `apply` (the migration
 * executor) cli-fleet-apply.c.
 */
#include <errno.h>
#include <stdint.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <json-c/json.h>

#include "cli.h"
#include "cli-fleet.h"
#include "errmsg.h"
#include "fold.h"
#include "render.h"
#include "fleet.h"
#include "fleetcfg.h"
#include "fleetjson.h"
#include "fleetloop.h"
#include "fleetpower.h"
#include "fleetplan.h"
#include "fleetrule.h"
#include "fleetsaved.h"
#include "fleetstate.h"
#include "fleetwatts.h"
#include "planner.h"
#include "policy.h"
#include "report.h"
#include "standby.h"
#include "tags.h"

#define DEFAULT_FLEET VCP_SYSCONFDIR "/vcpack/fleet.json"

const char *const vcp_fleet_cli_class_label[C__N] = {
	"spread", "balanced", "pack", "untouched",
};

static const char *const fleet_usage =
	"Usage: vcpack [--policy FILE] fleet [--hosts FLEET.json] [--json]\n"
	"              [--concurrency N] [--timeout S] [--sample MS] COMMAND\n"
	"              [--match host=GLOB,group=GLOB] [--wide]\n"
	"  --match (status, plan, apply): only the hosts the rule selects;\n"
	"                         the others are not contacted\n"
	"  --wide:                names and lines whole (default: cut\n"
	"                         name...end, lines folded to 100\n"
	"                         columns, a long URI cut as start...end)\n"
	"  status                 per host: packages awake/asleep, VMs by class,\n"
	"                         mode, modelled power saved, power now (its\n"
	"                         power_command: measured); fleet totals\n"
	"  tag --match RULE --priority P | --class C [--dry-run]\n"
	"                         tag VMs across hosts; RULE is comma-separated\n"
	"                         KEY=VALUE terms that must all match: name=GLOB,\n"
	"                         host=GLOB, group=GLOB, class=spread|balanced|\n"
	"                         pack|untouched, priority=high|normal|low|none,\n"
	"                         tagged=yes|no\n"
	"  plan [--save FILE]     which hosts live migration could empty, where\n"
	"                         each VM would go; changes nothing; --save\n"
	"                         writes it with who each host and VM is\n"
	"  apply [--yes|--dry-run] carry the plan out: live migrations one at a\n"
	"                         time; a host whose migration fails moves no\n"
	"                         more VMs (libvirt leaves a failed one running\n"
	"                         where it was); every step is reported. Asks\n"
	"                         first on a terminal (Proceed? [y/N]); without\n"
	"                         one it needs --yes; --dry-run is plan;\n"
	"                         --plan FILE applies a saved plan as saved,\n"
	"                         refused (exit 2) if a host or VM changed;\n"
	"                         --tls, --bandwidth MIB_S, --auto-converge\n"
	"                         (also fleet file defaults) go to libvirt;\n"
	"                         each migration shows its progress, and is\n"
	"                         aborted (the guest stays on its source) past\n"
	"                         --migration-timeout S or on Ctrl-C/SIGTERM,\n"
	"                         which also stop the rest (exit 130/143)\n"
	"  run [--interval S] [--rounds N] [--state FILE]\n"
	"                         the standby loop (needs a \"standby\" object):\n"
	"                         rounds until SIGTERM/SIGINT; each drains,\n"
	"                         puts to standby or wakes hosts, one step at a\n"
	"                         time; apply with a \"standby\" object = one round.\n"
	"                         A signal lets a power command finish (a second\n"
	"                         kills it by its pid), exit 130/143\n"
	"  clear HOST [--state FILE]\n"
	"                         a host the loop marked failed may be chosen again\n"
	"--state defaults to $VCPACK_FLEET_STATE or " VCP_FLEET_STATE ".\n"
	"FLEET.json defaults to " DEFAULT_FLEET " (see vcpack(1)).\n"
	"Credentials are libvirt's own (ssh keys, TLS certificates, SASL).\n";

/* ---- options and the rule ---- */

static int parse_int_opt(const char *name, const char *s, int lo, int hi,
			 int *ret)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < lo || v > hi)
		return vcp_cli_err(EXIT_USAGE, "--%s '%s' is not a number from %d to %d",
				   name, s, lo, hi);
	*ret = (int)v;
	return 0;
}

static int tag_opt(int o, const char *arg, struct fopts *fo)
{
	if (o == 'P') {
		if (vcp_priority_from_name(arg, &fo->tag.priority) < 0)
			return vcp_cli_err(EXIT_USAGE, "priority '%s' is not one of high, normal, low", arg);
		fo->tag.has_priority = true;
	} else {
		if (vcp_class_from_name(arg, &fo->tag.class) < 0)
			return vcp_cli_err(EXIT_USAGE, "class '%s' is not one of spread, balanced, pack", arg);
		fo->tag.has_class = true;
	}
	fo->has_tag = true;
	return 0;
}

static int parse_opts(int argc, char **argv, struct fopts *fo,
		      const char **ret_cmd)
{
	static const struct option opts[] = {
		{ "hosts", required_argument, NULL, 'H' },
		{ "concurrency", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "match", required_argument, NULL, 'm' },
		{ "priority", required_argument, NULL, 'P' },
		{ "class", required_argument, NULL, 'C' },
		{ "dry-run", no_argument, NULL, 'd' },
		{ "yes", no_argument, NULL, 'y' },
		{ "save", required_argument, NULL, 'S' },
		{ "plan", required_argument, NULL, 'p' },
		{ "tls", no_argument, NULL, 'T' },
		{ "auto-converge", no_argument, NULL, 'A' },
		{ "bandwidth", required_argument, NULL, 'B' },
		{ "migration-timeout", required_argument, NULL, 'M' },
		{ "json", no_argument, NULL, 'j' },
		{ "sample", required_argument, NULL, 's' },
		{ "state", required_argument, NULL, 'F' },
		{ "rounds", required_argument, NULL, 'R' },
		{ "interval", required_argument, NULL, 'I' },
		{ "wide", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int o, r = 0;

	fo->concurrency = fo->timeout = fo->sample_ms = fo->bandwidth =
		fo->mig_timeout = -1;
	fo->rounds = fo->interval = -1;
	optind = 0;
	while (r == 0 && (o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'H': fo->hosts = optarg; break;
		case 'm': fo->match = optarg; break;
		case 'd': fo->dry_run = true; break;
		case 'y': fo->yes = true; break;
		case 'S': fo->save = optarg; break;
		case 'p': fo->plan = optarg; break;
		case 'T': fo->tls = true; break;
		case 'A': fo->auto_converge = true; break;
		case 'B':
			r = parse_int_opt("bandwidth", optarg, 1, 1000000,
					  &fo->bandwidth);
			break;
		case 'M':
			r = parse_int_opt("migration-timeout", optarg, 0, 86400,
					  &fo->mig_timeout);
			break;
		case 'j': fo->json = true; break;
		case 'W': fo->wide = true; break;
		case 's':
			r = parse_int_opt("sample", optarg, 0, 600000,
					  &fo->sample_ms);
			break;
		case 'n':
			r = parse_int_opt("concurrency", optarg, 1, 1024,
					  &fo->concurrency);
			break;
		case 't':
			r = parse_int_opt("timeout", optarg, 1, 3600,
					  &fo->timeout);
			break;
		case 'P': case 'C': r = tag_opt(o, optarg, fo); break;
		case 'F': fo->state = optarg; break;
		case 'R':
			r = parse_int_opt("rounds", optarg, 1, 1000000,
					  &fo->rounds);
			break;
		case 'I':
			r = parse_int_opt("interval", optarg, 1, 3600,
					  &fo->interval);
			break;
		case 'h': fputs(fleet_usage, stdout); exit(0);
		default: return EXIT_USAGE;
		}
	}
	if (r)
		return r;
	if (optind == argc - 2 && !strcmp(argv[optind], "clear")) {
		fo->arg = argv[optind + 1];
	} else if (optind != argc - 1 || !strcmp(argv[optind], "clear")) {
		return vcp_cli_err(EXIT_USAGE, "fleet needs one command: status, tag, plan, apply, run or clear HOST (see 'vcpack fleet --help')");
	}
	*ret_cmd = argv[optind];
	return 0;
}

static int parse_rule(struct fctx *f)
{
	g_autofree char *err = NULL;
	int r = vcp_rule_parse(f->o.match, &f->rule, &err);

	if (r == -ENOMEM)
		return vcp_cli_err(EXIT_PARTIAL, "out of memory");
	if (r < 0)
		return vcp_cli_err(EXIT_USAGE, "%s", err);
	return 0;
}

/* ---- collecting ---- */

static void progress(void *opaque, size_t done, size_t total)
{
	fprintf(stderr, "\rvcpack fleet: %zu of %zu hosts done", done, total);
	if (done == total)
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

/* Descriptors open now (those of stuck workers of an earlier pass too). */
unsigned long long vcp_fleet_cli_fds_in_use(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned long long n = 0;

	if (!d)
		return 64;	/* a guess on the safe side */
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

unsigned long long vcp_fleet_cli_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 1 << 20;
	return rl.rlim_cur;
}

/*
 * A host that accepts and never answers keeps a worker and its
 * descriptors until the process ends: contact no more hosts at once than
 * the descriptor limit allows (the others are reported as not
 * contacted). Checked before the first pass; each pass takes the budget
 * left then (a later pass finds the stuck workers of earlier ones).
 */
static int fd_budget(void)
{
	unsigned long long in_use = vcp_fleet_cli_fds_in_use(), limit = vcp_fleet_cli_fd_limit();

	if (!vcp_fleet_fd_budget(limit, in_use))
		return vcp_cli_err(EXIT_PARTIAL, "the file descriptor limit (%llu, %llu in use) leaves no room to contact any host; raise it (ulimit -n)",
				   limit, in_use);
	return 0;
}

static struct vcp_fleet_pool pool_for(const struct fctx *f, vcp_fleet_job job,
				      void (*free_data)(void *), void *arg,
				      bool readonly)
{
	unsigned int budget = vcp_fleet_fd_budget(vcp_fleet_cli_fd_limit(), vcp_fleet_cli_fds_in_use());
	struct vcp_fleet_pool p = {
		.concurrency = f->cfg.concurrency,
		.timeout_s = f->cfg.timeout_s,
		/* at least one: the spare descriptors are kept for it */
		.max_live = budget ? budget : 1,
		.readonly = readonly,
		.job = job,
		.free_data = free_data,
		.arg = arg,
	};

	if (!f->json && isatty(STDERR_FILENO))
		p.progress = progress;
	return p;
}

/* Read-only data the pool's workers may still use after a deadline:
 * kept until exit (see vcp_fleet_run). */
static unsigned int sample_ms_for_jobs;

int vcp_fleet_cli_collect(struct fctx *f, unsigned int sample_ms)
{
	struct vcp_fleet_pool p;
	size_t n = f->cfg.n_hosts;
	int r;

	sample_ms_for_jobs = sample_ms;
	p = pool_for(f, vcp_fleet_observe_job, vcp_fleet_view_free,
		     &sample_ms_for_jobs, true);
	if (!f->uris) /* status's vcp_fleet_cli_power_start() may have made them */
		f->uris = calloc(n ? n : 1, sizeof(*f->uris));
	f->res = calloc(n ? n : 1, sizeof(*f->res));
	if (!f->uris || !f->res)
		return vcp_cli_err(EXIT_PARTIAL, "out of memory");
	for (size_t i = 0; i < n; i++)
		f->uris[i] = f->cfg.hosts[i].uri;
	r = vcp_fleet_run(f->uris, n, &p, f->res, &f->abandoned);
	if (r < 0)
		return vcp_cli_err(EXIT_PARTIAL, "cannot query the hosts: %s",
				   strerror(-r));
	return 0;
}

/* The fleet's host (@w HOST_W) or VM names, each told apart from the
 * others (render.h) */
static struct vcp_names *names_of(const struct fctx *f, size_t w)
{
	struct vcp_names *nm = &f->names[w != HOST_W];

	if (nm->n || nm->wide)
		return nm;
	for (size_t i = 0; w == HOST_W && i < f->cfg.n_hosts; i++)
		vcp_names_add(nm, f->cfg.hosts[i].name);
	for (size_t i = 0; w != HOST_W && f->res && i < f->cfg.n_hosts; i++)
		for (size_t k = 0; view(f, i) && k < view(f, i)->w.n_vms; k++)
			vcp_names_add(nm, view(f, i)->w.vms[k].name);
	return nm;
}

const char *vcp_fleet_cli_cut(const struct fctx *f, const char *name, size_t w,
		       struct cell *c)
{
	const char *s = vcp_render_cut(names_of(f, w), name);

	if (s == name)
		return name;
	snprintf(c->s, sizeof(c->s), "%s", s);
	return c->s;
}

int vcp_fleet_cli_vm_class(const struct vcp_vm *vm, const struct vcp_policy *pol)
{
	return vm->managed ? (int)vcp_plan_vm_class(vm, pol) : C_UNTOUCHED;
}

/* ---- tag ---- */

static bool vm_matches(const struct fctx *f, size_t h, const struct vcp_vm *vm)
{
	const struct vcp_fleet_entry *e = &f->cfg.hosts[h];
	struct vcp_rule_subject sub = {
		e->name, e->group, vm, vcp_fleet_cli_class_label[vcp_fleet_cli_vm_class(vm, f->c->policy)]
	};

	return vcp_rule_matches(&f->rule, &sub, false);
}

/* Per host: the names to tag. Lives until exit (see vcp_fleet_cli_collect()). */
struct tag_work {
	struct vcp_tag tag;
	char ***names;		/* by host index */
	size_t *n_names;
	size_t *host_of;	/* pool job index -> host index */
};

struct tag_out {
	size_t n;
	int *r;
	char **err;
};

static void tag_out_free(void *data)
{
	struct tag_out *t = data;

	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->err[i]);
	free(t->err);
	free(t->r);
	free(t);
}

static int tag_job(struct vcp_virt *v, size_t i, void *arg, void **ret_data,
		   char **ret_err)
{
	const struct tag_work *w = arg;
	size_t h = w->host_of[i], n = w->n_names[h];
	struct tag_out *t = calloc(1, sizeof(*t));

	if (!t || !(t->r = calloc(n, sizeof(int))) ||
	    !(t->err = calloc(n, sizeof(char *)))) {
		tag_out_free(t);
		return -ENOMEM;
	}
	t->n = n;
	for (size_t k = 0; k < n; k++)
		t->r[k] = vcp_virt_set_tag(v, w->names[h][k], &w->tag,
					   &t->err[k]);
	*ret_data = t;
	return 0;
}

static int select_for_tag(struct fctx *f, struct tag_work *w, size_t *ret_n)
{
	size_t nh = f->cfg.n_hosts, total = 0;

	w->names = calloc(nh, sizeof(*w->names));
	w->n_names = calloc(nh, sizeof(*w->n_names));
	w->host_of = calloc(nh, sizeof(*w->host_of));
	if (!w->names || !w->n_names || !w->host_of)
		return -ENOMEM;
	for (size_t h = 0; h < nh; h++) {
		const struct vcp_fleet_view *fv = view(f, h);

		if (!fv)
			continue;
		w->names[h] = calloc(fv->w.n_vms + 1, sizeof(char *));
		if (!w->names[h])
			return -ENOMEM;
		for (size_t v = 0; v < fv->w.n_vms; v++)
			if (vm_matches(f, h, &fv->w.vms[v]))
				w->names[h][w->n_names[h]++] = fv->w.vms[v].name;
		total += w->n_names[h];
	}
	*ret_n = total;
	return 0;
}

static void tag_line(const struct fctx *f, struct json_object *arr, size_t h,
		     const char *vm, const char *outcome, const char *msg)
{
	struct json_object *o;
	struct cell hc, vc;

	if (!f->json) {
		printf("  %-16s %-24s %s%s%s\n", host_cell(f, h, &hc),
		       vm ? vcp_fleet_cli_cut(f, vm, VM_W, &vc) : "-", outcome,
		       msg ? ": " : "", msg ? msg : "");
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "host", json_object_new_string(f->cfg.hosts[h].name));
	json_object_object_add(o, "vm", vm ? json_object_new_string(vm) : NULL);
	json_object_object_add(o, "outcome", json_object_new_string(outcome));
	json_object_object_add(o, "message", msg ? json_object_new_string(msg) : NULL);
	json_object_array_add(arr, o);
}

/* Report the hosts that could not be read at all. */
static size_t unreachable_lines(const struct fctx *f, struct json_object *arr)
{
	size_t n = 0;

	for (size_t h = 0; h < f->cfg.n_hosts; h++) {
		if (view(f, h))
			continue;
		tag_line(f, arr, h, NULL, "unreachable", f->res[h].err);
		n++;
	}
	return n;
}

static size_t run_tags(struct fctx *f, struct tag_work *w,
		       struct json_object *arr)
{
	struct vcp_fleet_result *res;
	struct vcp_fleet_pool p;
	const char **uris;
	size_t nj = 0, failed = 0, ab = 0;

	uris = calloc(f->cfg.n_hosts, sizeof(*uris));
	res = calloc(f->cfg.n_hosts, sizeof(*res));
	if (!uris || !res)
		return SIZE_MAX;
	for (size_t h = 0; h < f->cfg.n_hosts; h++)
		if (w->n_names[h]) {
			w->host_of[nj] = h;
			uris[nj++] = f->cfg.hosts[h].uri;
		}
	p = pool_for(f, tag_job, tag_out_free, w, false);
	if (vcp_fleet_run(uris, nj, &p, res, &ab) < 0)
		return SIZE_MAX;
	f->abandoned += ab;
	for (size_t j = 0; j < nj; j++) {
		size_t h = w->host_of[j];
		const struct tag_out *t = res[j].data;

		for (size_t k = 0; k < w->n_names[h]; k++) {
			const char *msg = t ? t->err[k] : res[j].err;
			bool ok = t && t->r[k] == 0;

			tag_line(f, arr, h, w->names[h][k], ok ? "tagged" : "failed",
				 ok ? NULL : msg);
			failed += !ok;
		}
	}
	if (!ab) {
		vcp_fleet_results_clear(res, nj, tag_out_free);
		free(res);
		free(uris);
	}
	return failed;
}

static int cmd_tag(struct fctx *f)
{
	static struct tag_work w;	/* until exit: see vcp_fleet_cli_collect() */
	struct json_object *arr = json_object_new_array(), *o;
	size_t n = 0, failed;
	char *xml;
	int r;

	if (!f->o.match || !f->o.has_tag)
		r = vcp_cli_err(EXIT_USAGE, "fleet tag needs --match RULE and --priority or --class");
	else
		r = 0;	/* parsed and hosts selected by filter_hosts() */
	if (!r)
		r = vcp_fleet_cli_collect(f, 0);
	if (!r && select_for_tag(f, &w, &n) < 0)
		r = vcp_cli_err(EXIT_PARTIAL, "out of memory");
	if (r) {
		json_object_put(arr);
		return r;
	}
	w.tag = f->o.tag;
	xml = vcp_tag_format(&w.tag);
	if (!f->json)
		printf("fleet tag: %zu VMs match '%s'; %s %s\n", n, f->o.match,
		       f->o.dry_run ? "would write" : "writing", xml ? xml : "");
	failed = unreachable_lines(f, arr);
	if (f->o.dry_run) {
		for (size_t h = 0; h < f->cfg.n_hosts; h++)
			for (size_t k = 0; w.n_names && k < w.n_names[h]; k++)
				tag_line(f, arr, h, w.names[h][k], "would tag", NULL);
	} else {
		size_t tf = run_tags(f, &w, arr);

		failed = tf == SIZE_MAX ? failed + 1 : failed + tf;
	}
	free(xml);
	if (f->json) {
		o = json_object_new_object();
		json_object_object_add(o, "dry_run", json_object_new_boolean(f->o.dry_run));
		json_object_object_add(o, "matched", json_object_new_int((int)n));
		json_object_object_add(o, "results", arr);
		vcp_cli_json(o);
	} else {
		json_object_put(arr);
	}
	return failed ? EXIT_PARTIAL : 0;
}

/* ---- plan ---- */

struct compat_work {
	size_t n_groups;
	char **cpu_xml;		/* per group */
	size_t *rep;		/* per group: a host of that group */
};

/* On a host of group g: which other groups' guests can run here. */
static int compat_job(struct vcp_virt *v, size_t g, void *arg,
		      void **ret_data, char **ret_err)
{
	const struct compat_work *cw = arg;
	bool *row = calloc(cw->n_groups, sizeof(bool));

	if (!row)
		return -ENOMEM;
	for (size_t a = 0; a < cw->n_groups; a++) {
		char *ignored = NULL;

		if (a != g && cw->cpu_xml[a])
			vcp_virt_cpu_runs_here(v, cw->cpu_xml[a], &row[a],
					       &ignored);
		free(ignored);
	}
	*ret_data = row;
	return 0;
}

static int group_hosts(const struct fctx *f, struct fleet_in *in,
		       struct compat_work *cw)
{
	size_t n = f->cfg.n_hosts;

	in->keys = calloc(n + 1, sizeof(char *));
	cw->cpu_xml = calloc(n + 1, sizeof(char *));
	cw->rep = calloc(n + 1, sizeof(size_t));
	if (!in->keys || !cw->cpu_xml || !cw->rep)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct vcp_fleet_view *fv = view(f, i);
		size_t g;

		in->hosts[i].cpu_group = -1;
		if (!fv || !fv->cpu_key)
			continue;
		for (g = 0; g < in->n_groups; g++)
			if (!strcmp(in->keys[g], fv->cpu_key))
				break;
		if (g == in->n_groups) {
			in->keys[g] = fv->cpu_key;
			cw->cpu_xml[g] = fv->cpu_xml;
			cw->rep[g] = i;
			in->n_groups++;
		}
		in->hosts[i].cpu_group = (int)g;
	}
	cw->n_groups = in->n_groups;
	return 0;
}

static int compat_matrix(struct fctx *f, struct fleet_in *in)
{
	static struct compat_work cw;	/* until exit: see vcp_fleet_cli_collect() */
	struct vcp_fleet_result *res = NULL;
	struct vcp_fleet_pool p;
	const char **uris = NULL;
	size_t ng, ab = 0;
	int r;

	/* fleet run comes here every round: last round's, unless a stuck
	 * worker may still read them */
	if (!f->abandoned) {
		free(cw.cpu_xml);
		free(cw.rep);
	}
	r = group_hosts(f, in, &cw);

	ng = in->n_groups;
	if (r < 0 || ng < 2)
		return r;
	in->compat = calloc(ng * ng, sizeof(bool));
	uris = calloc(ng, sizeof(*uris));
	res = calloc(ng, sizeof(*res));
	if (!in->compat || !uris || !res)
		return -ENOMEM;
	for (size_t g = 0; g < ng; g++)
		uris[g] = f->cfg.hosts[cw.rep[g]].uri;
	p = pool_for(f, compat_job, free, &cw, true);
	p.progress = NULL;
	r = vcp_fleet_run(uris, ng, &p, res, &ab);
	for (size_t g = 0; r == 0 && g < ng; g++) {
		const bool *row = res[g].data;

		for (size_t a = 0; row && a < ng; a++)
			in->compat[a * ng + g] = row[a];	/* a's guests on g */
	}
	f->abandoned += ab;
	if (!ab) {
		vcp_fleet_results_clear(res, ng, free);
		free(res);
		free(uris);
	}
	return r;
}

static int fleet_input(struct fctx *f, struct fleet_in *in)
{
	size_t n = f->cfg.n_hosts;

	in->hosts = calloc(n ? n : 1, sizeof(*in->hosts));
	if (!in->hosts)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct vcp_fleet_view *fv = view(f, i);
		struct vcp_fleet_host *h = &in->hosts[i];

		h->name = f->cfg.hosts[i].name;
		h->accepts = f->cfg.hosts[i].accepts;
		h->reachable = fv != NULL;
		if (!fv)
			continue;
		h->host = fv->w.host;
		h->vms = fv->w.vms;
		h->n_vms = fv->w.n_vms;
		h->mem_kib = fv->mem_kib;
	}
	return compat_matrix(f, in);
}

static struct vcp_watts host_saving(const struct fctx *f,
				    const struct vcp_fleet_plan *p, size_t i);
static enum vcp_vendor host_vendor(const struct fctx *f, size_t i);
static double saving_of(const struct fctx *f, const struct vcp_fleet_plan *p,
			double *ret_measured);

/* The hosts' rows of the plan: demand, capacity, packages, verdict. */
static void plan_hosts_text(const struct fctx *f,
			    const struct vcp_fleet_plan *p,
			    const struct fleet_in *in)
{
	struct cell hc;

	printf("  %-16s %7s %8s %9s  %s\n", "HOST", "DEMAND", "CAPACITY",
	       "AWAKE", "VERDICT");
	for (size_t i = 0; i < p->n_hosts; i++) {
		const struct vcp_fleet_host_plan *hp = &p->hosts[i];
		const char *name = vcp_fleet_cli_cut(f, in->hosts[i].name, HOST_W, &hc);

		if (!in->hosts[i].reachable) {
			printf("  %-16s %7s %8s %9s  unreachable: %s\n", name,
			       "-", "-", "-",
			       f->res[i].err ? f->res[i].err : "?");
			continue;
		}
		printf("  %-16s %7.2f %8.2f %4zu -> %zu  %s\n", name,
		       hp->demand_before, hp->capacity, hp->awake_before,
		       hp->awake_after,
		       hp->emptied ? "emptied: can sleep" :
		       hp->kept	   ? hp->kept :
				     "stays as it is");
	}
}

static void plan_text(const struct fctx *f, const struct vcp_fleet_plan *p,
		      const struct fleet_in *in, double saved)
{
	struct cell hc, tc, vc;
	double measured;

	plan_hosts_text(f, p, in);
	printf("saving per host (vendor: the fleet file's, else libvirt's host CPU):\n");
	for (size_t i = 0; i < p->n_hosts; i++) {
		struct vcp_watts w;

		if (!in->hosts[i].reachable)
			continue;
		w = host_saving(f, p, i);
		printf("  %-16s %-7s %6.0f W  %s\n",
		       vcp_fleet_cli_cut(f, in->hosts[i].name, HOST_W, &hc),
		       vcp_vendor_name(host_vendor(f, i)), w.watts, w.basis);
	}
	printf("migrations (in this order; plan changes nothing):\n");
	if (!p->n_moves)
		printf("  (none)\n");
	for (size_t k = 0; k < p->n_moves; k++) {
		const struct vcp_fleet_move *m = &p->moves[k];
		const struct vcp_vm *vm = &in->hosts[m->from].vms[m->vm];

		printf("  %-24s %s -> %s  %.2f CPUs  %llu MiB\n",
		       vcp_fleet_cli_cut(f, vm->name, VM_W, &vc),
		       vcp_fleet_cli_cut(f, in->hosts[m->from].name, HOST_W, &hc),
		       vcp_fleet_cli_cut(f, in->hosts[m->to].name, HOST_W, &tc), m->demand,
		       vm->mem_kib / 1024);
	}
	saving_of(f, p, &measured);
	printf("fleet: %zu hosts could be emptied and sleep (%zu idle already), packages awake %zu -> %zu of %zu; saving %.0f W (%.0f W measured, %.0f W modelled)\n",
	       p->hosts_emptied, p->hosts_idle, p->awake_before, p->awake_after,
	       p->packages, saved, measured, saved - measured);
}

/* Collect, group CPUs, plan: what `plan` prints and `apply` carries out. */
int vcp_fleet_cli_plan(struct fctx *f, struct fleet_in *in,
		      struct vcp_fleet_plan **ret)
{
	struct vcp_fleet_opts opts;
	int r = vcp_fleet_cli_collect(f, f->sample_ms);

	if (r)
		return r;
	r = fleet_input(f, in);
	opts = (struct vcp_fleet_opts){ .move_spread = f->cfg.move_spread,
		.mem_reserve = f->cfg.mem_reserve, .n_groups = in->n_groups,
		.compat = in->compat };
	if (r == 0)
		r = vcp_fleet_plan_compute(in->hosts, f->cfg.n_hosts,
					   f->c->policy, &opts, ret);
	if (r < 0)
		return vcp_cli_err(EXIT_PARTIAL, "fleet plan failed: %s",
				   strerror(-r));
	return 0;
}

void vcp_fleet_cli_in_clear(struct fleet_in *in)
{
	free(in->hosts);
	free(in->keys);
	free(in->compat);
}

/* The power model's vendor of host @i: the fleet file's, else libvirt's
 * host CPU. */
static enum vcp_vendor host_vendor(const struct fctx *f, size_t i)
{
	const struct vcp_fleet_view *fv = view(f, i);

	if (f->cfg.hosts[i].vendor)
		return (enum vcp_vendor)f->cfg.hosts[i].vendor;
	return fv ? vcp_vendor_from_cpu_key(fv->cpu_key) : VCP_VENDOR_UNKNOWN;
}

/* Would the standby loop put host @i in standby once emptied? */
static bool can_standby(const struct fctx *f, size_t i)
{
	const struct vcp_sb_cfg *s = &f->cfg.standby;

	return s->enabled && s->hosts[i].action != VCP_SB_ACTION_NONE &&
	       !s->hosts[i].stay_on;
}

/* What the plan saves on host @i, per its vendor (fleetwatts.c). */
static struct vcp_watts host_saving(const struct fctx *f,
				    const struct vcp_fleet_plan *p, size_t i)
{
	const struct vcp_fleet_host_plan *hp = &p->hosts[i];
	enum vcp_vendor v = host_vendor(f, i);

	if (hp->emptied && can_standby(f, i))
		return vcp_watts_host(v, hp->n_packages, true,
				      f->cfg.hosts[i].idle_watts,
				      f->cfg.package_watts, f->cfg.host_watts);
	if (hp->emptied)
		return vcp_watts_host(v, hp->awake_before, false, -1,
				      f->cfg.package_watts, f->cfg.host_watts);
	return vcp_watts_packages(v, hp->awake_before - hp->awake_after,
				  f->cfg.package_watts);
}

/* The fleet's saving; *ret_measured: the part from measured figures. */
static double saving_of(const struct fctx *f, const struct vcp_fleet_plan *p,
			double *ret_measured)
{
	double w = 0, m = 0;

	for (size_t i = 0; i < p->n_hosts; i++) {
		struct vcp_watts s;

		if (!view(f, i))
			continue;
		s = host_saving(f, p, i);
		w += s.watts;
		m += s.measured ? s.watts : 0;
	}
	if (ret_measured)
		*ret_measured = m;
	return w;
}

static double saving(const struct fctx *f, const struct vcp_fleet_plan *p)
{
	return saving_of(f, p, NULL);
}

static void standby_text(const struct fctx *f, const struct fleet_in *in,
			 const struct vcp_sb_decision *d)
{
	const struct vcp_fleet_host *h = in->hosts;
	struct cell hc, tc, vc;

	printf("standby (advice, as if demand had stayed so for the hold times; nothing is done):\n");
	printf("  demand %.2f of %.2f CPUs on (%.0f%%), band %.0f%%-%.0f%%: %s\n",
	       d->demand, d->capacity_on, d->util * 100,
	       f->cfg.standby.low * 100, f->cfg.standby.high * 100, d->why);
	for (size_t k = 0; k < d->n_moves; k++)
		printf("  move %-24s %s -> %s  %.2f CPUs\n",
		       vcp_fleet_cli_cut(f, h[d->moves[k].from].vms[d->moves[k].vm].name,
			   VM_W, &vc),
		       vcp_fleet_cli_cut(f, h[d->moves[k].from].name, HOST_W, &hc),
		       vcp_fleet_cli_cut(f, h[d->moves[k].to].name, HOST_W, &tc),
		       d->moves[k].demand);
	if (d->drain >= 0)
		printf("  drain towards standby: %s\n", h[d->drain].name);
	if (d->standby >= 0)
		printf("  put in standby: %s\n", h[d->standby].name);
	for (size_t k = 0; k < d->n_wake; k++)
		printf("  wake: %s\n", h[d->wake[k]].name);
	for (size_t i = 0; i < f->cfg.n_hosts; i++)
		if (d->host_why[i])
			printf("  stays on: %-16s %s\n",
			       vcp_fleet_cli_cut(f, h[i].name, HOST_W, &hc), d->host_why[i]);
}

/* The standby loop's decision as advice, when the fleet file has a
 * "standby" object: added to @o (JSON) or printed. */
static int standby_advice(struct fctx *f, const struct fleet_in *in,
			  struct json_object *o)
{
	struct vcp_fleet_opts opts = { .move_spread = f->cfg.move_spread,
		.mem_reserve = f->cfg.mem_reserve, .n_groups = in->n_groups,
		.compat = in->compat };
	struct vcp_sb_round r = { in->hosts, f->cfg.n_hosts, f->c->policy,
				  &opts, &f->cfg.standby, (long long)time(NULL) };
	struct vcp_sb_decision *d = NULL;
	int e;

	if (!f->cfg.standby.enabled)
		return 0;
	e = vcp_sb_advise(&r, &d);
	if (e < 0)
		return vcp_cli_err(EXIT_PARTIAL, "fleet plan: standby advice failed: %s",
				   strerror(-e));
	if (o)
		json_object_object_add(o, "standby", vcp_sb_decision_to_json(
				       d, in->hosts, f->cfg.n_hosts));
	else
		standby_text(f, in, d);
	vcp_sb_decision_free(d);
	return 0;
}

/* What each migration to host @to passes to libvirt. */
struct vcp_migrate_opts vcp_fleet_cli_migrate_opts(const struct fctx *f, size_t to)
{
	return (struct vcp_migrate_opts){ .p2p = f->cfg.p2p,
		.address = to < f->cfg.n_hosts ?
			   f->cfg.hosts[to].migration_address : NULL,
		.tls = f->cfg.tls, .auto_converge = f->cfg.auto_converge,
		.bandwidth_mib = f->cfg.bandwidth_mib };
}

/* The migration options, as passed to libvirt (`migration` in JSON). */
static struct json_object *migration_json(const struct fctx *f)
{
	struct vcp_migrate_opts o = vcp_fleet_cli_migrate_opts(f, SIZE_MAX);
	const char *names[16];
	size_t n = vcp_virt_migrate_flags(&o, names, 16);
	struct json_object *m = json_object_new_object();
	struct json_object *fl = json_object_new_array();

	for (size_t k = 0; k < n && k < 16; k++)
		json_object_array_add(fl, json_object_new_string(names[k]));
	json_object_object_add(m, "flags", fl);
	json_object_object_add(m, "bandwidth_mib_s", o.bandwidth_mib ?
			       json_object_new_int64(o.bandwidth_mib) : NULL);
	json_object_object_add(m, "timeout_s", f->cfg.migration_timeout_s ?
			       json_object_new_int64(f->cfg.migration_timeout_s) :
			       NULL);
	return m;
}

void vcp_fleet_cli_migration_text(const struct fctx *f, FILE *fp)
{
	struct vcp_migrate_opts o = vcp_fleet_cli_migrate_opts(f, SIZE_MAX);
	const char *names[16];
	size_t n = vcp_virt_migrate_flags(&o, names, 16);

	fputs("migration options:", fp);
	for (size_t k = 0; k < n && k < 16; k++)
		fprintf(fp, " %s", names[k]);
	if (o.bandwidth_mib)
		fprintf(fp, "; bandwidth %u MiB/s", o.bandwidth_mib);
	if (f->cfg.migration_timeout_s)
		fprintf(fp, "; each aborted after %u s",
			f->cfg.migration_timeout_s);
	fputc('\n', fp);
}

/* The plan as `plan --json` prints it: an unreachable host's figures
 * are null (not known), with the error. */
static struct json_object *plan_json(const struct fctx *f,
				     const struct fleet_in *in,
				     const struct vcp_fleet_plan *p)
{
	static const char *const unknown[] = { "emptied", "packages",
		"awake_before", "awake_after", "demand_before", "demand_after",
		"capacity", "mem_before_mib", "mem_after_mib" };
	struct json_object *o = vcp_fleet_plan_to_json(p, in->hosts);
	struct json_object *hs = NULL;
	double measured = 0;

	json_object_object_get_ex(o, "hosts", &hs);
	for (size_t i = 0; i < p->n_hosts; i++) {
		struct json_object *h = json_object_array_get_idx(hs, i);
		bool ok = in->hosts[i].reachable;

		json_object_object_add(h, "reachable", json_object_new_boolean(ok));
		json_object_object_add(h, "error", !ok && f->res[i].err ?
				       json_object_new_string(f->res[i].err) : NULL);
		for (size_t k = 0; !ok && k < sizeof(unknown) / sizeof(*unknown); k++)
			json_object_object_add(h, unknown[k], NULL);
	}
	for (size_t i = 0; i < p->n_hosts; i++) {
		struct json_object *h = json_object_array_get_idx(hs, i);
		struct vcp_watts w;

		json_object_object_add(h, "vendor", json_object_new_string(
				       vcp_vendor_name(host_vendor(f, i))));
		if (!in->hosts[i].reachable) {
			json_object_object_add(h, "saving_watts", NULL);
			json_object_object_add(h, "saving_measured", NULL);
			json_object_object_add(h, "saving_basis", NULL);
			continue;
		}
		w = host_saving(f, p, i);
		json_object_object_add(h, "saving_watts", vcp_json_double3(w.watts));
		json_object_object_add(h, "saving_measured",
				       json_object_new_boolean(w.measured));
		json_object_object_add(h, "saving_basis",
				       json_object_new_string(w.basis));
	}
	json_object_object_add(o, "saving_watts",
			       vcp_json_double3(saving_of(f, p, &measured)));
	json_object_object_add(o, "saving_measured_watts",
			       vcp_json_double3(measured));
	json_object_object_add(o, "migration", migration_json(f));
	return o;
}

/* The plan as `plan --json` prints it, with who each host and VM is. */
static struct json_object *saved_json(const struct fctx *f,
				      const struct fleet_in *in,
				      const struct vcp_fleet_plan *p)
{
	struct json_object *o = plan_json(f, in, p);
	struct json_object *hs = NULL, *ms = NULL;

	json_object_object_add(o, "format",
			       json_object_new_string(VCP_SAVED_FORMAT));
	json_object_object_get_ex(o, "hosts", &hs);
	json_object_object_get_ex(o, "moves", &ms);
	for (size_t i = 0; i < p->n_hosts; i++) {
		struct json_object *h = json_object_array_get_idx(hs, i);
		const struct vcp_fleet_view *fv = view(f, i);

		json_object_object_add(h, "uri",
				       json_object_new_string(f->cfg.hosts[i].uri));
		json_object_object_add(h, "hostname", fv ?
				       json_object_new_string(fv->hostname) : NULL);
		json_object_object_add(h, "host_uuid", fv && fv->host_uuid ?
				       json_object_new_string(fv->host_uuid) : NULL);
	}
	for (size_t k = 0; k < p->n_moves; k++)
		json_object_object_add(json_object_array_get_idx(ms, k), "uuid",
				       json_object_new_string(
				       in->hosts[p->moves[k].from].vms[p->moves[k].vm].uuid));
	return o;
}

/* Write @o to @path whole or not at all (a temporary file renamed). */
static int write_json(const char *path, struct json_object *o)
{
	char tmp[4096];
	FILE *fp;
	int bad;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid()) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fp = fopen(tmp, "w");
	if (!fp)
		return -errno;
	bad = fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
		    JSON_C_TO_STRING_NOSLASHESCAPE), fp) < 0 || fputc('\n', fp) < 0;
	bad = fclose(fp) || bad;
	if (bad || rename(tmp, path) < 0) {
		int e = errno ? errno : EIO;

		unlink(tmp);
		return -e;
	}
	return 0;
}

static int save_plan(const struct fctx *f, const struct fleet_in *in,
		     const struct vcp_fleet_plan *p)
{
	struct json_object *o = saved_json(f, in, p);
	int r = write_json(f->o.save, o);

	json_object_put(o);
	if (r < 0)
		return vcp_cli_err(EXIT_PARTIAL, "fleet plan: cannot save the plan to %s: %s",
				   f->o.save, strerror(-r));
	return 0;
}

static int cmd_plan(struct fctx *f)
{
	struct fleet_in in = { 0 };
	struct vcp_fleet_plan *p = NULL;
	int r = vcp_fleet_cli_plan(f, &in, &p);

	if (r) {
		vcp_fleet_cli_in_clear(&in);
		return r;
	}
	if (f->json) {
		struct json_object *o = plan_json(f, &in, p);

		r = standby_advice(f, &in, o);
		vcp_cli_json(o);
	} else {
		plan_text(f, p, &in, saving(f, p));
		vcp_fleet_cli_migration_text(f, stdout);
		r = standby_advice(f, &in, NULL);
	}
	if (!r && f->o.save)
		r = save_plan(f, &in, p);
	r = r ? r : p->hosts_unreachable ? EXIT_PARTIAL : 0;
	vcp_fleet_plan_free(p);
	vcp_fleet_cli_in_clear(&in);
	return r;
}

/* ---- the standby loop: run, apply with "standby", clear ---- */

struct loopobs {
	struct fctx *f;
	struct fleet_in in;
	const char **errs;
	size_t stuck;		/* workers abandoned in all rounds so far */
	/* this round's power_command readings, and the fleet's measured
	 * power from them for the round's line */
	struct power_read pr;
	char *note;
};

/* The round's note: the fleet's measured power where hosts report it. */
static void loop_power_note(struct loopobs *lo)
{
	struct power_sum s;

	free(lo->note);
	lo->note = NULL;
	if (!lo->pr.started)
		return;
	s = vcp_fleet_cli_power_sum(lo->f, lo->pr.p);
	if (asprintf(&lo->note,
		     "; measured %.1f W on %zu of %zu hosts (power_command)",
		     s.watts, s.measured, lo->f->cfg.n_hosts) < 0)
		lo->note = NULL;
}

static void loop_power_clear(struct loopobs *lo)
{
	vcp_fleet_power_clear(lo->pr.p, lo->f ? lo->f->cfg.n_hosts : 0);
	free(lo->pr.p);
	lo->pr.p = NULL;
	free(lo->note);
	lo->note = NULL;
}

/* The loop's observe op: the fleet as `fleet plan` sees it. */
static int loop_observe(void *opaque, struct vcp_loop_obs *ret,
			char **ret_err)
{
	struct loopobs *lo = opaque;
	struct fctx *f = lo->f;
	size_t n = f->cfg.n_hosts;
	int r;

	if (f->res)
		vcp_fleet_results_clear(f->res, n, vcp_fleet_view_free);
	free(f->res);
	if (!lo->stuck)		/* stuck workers may still read them */
		free(f->uris);
	f->res = NULL;
	f->uris = NULL;
	vcp_fleet_cli_in_clear(&lo->in);
	memset(&lo->in, 0, sizeof(lo->in));
	loop_power_clear(lo);
	vcp_fleet_cli_power_start(f, &lo->pr);
	r = vcp_fleet_cli_collect(f, f->sample_ms);
	vcp_fleet_cli_power_wait(f, &lo->pr);
	loop_power_note(lo);
	/* vcp_fleet_cli_collect() counts this round's; the earlier ones still run */
	f->abandoned += lo->stuck;
	lo->stuck = f->abandoned;
	if (r)
		return vcp_err(ret_err, -EIO, "cannot query the hosts");
	r = fleet_input(f, &lo->in);
	lo->stuck = f->abandoned;
	if (r < 0)
		return vcp_err(ret_err, r, "cannot group the hosts' CPUs: %s",
			       strerror(-r));
	for (size_t i = 0; i < n; i++)
		lo->errs[i] = f->res[i].err;
	*ret = (struct vcp_loop_obs){ lo->in.hosts,
				      n,
				      { .move_spread = f->cfg.move_spread,
					.mem_reserve = f->cfg.mem_reserve,
					.n_groups = lo->in.n_groups,
					.compat = lo->in.compat },
				      lo->errs,
				      lo->note };
	return 0;
}

static void loop_log(void *opaque, bool error, const char *line)
{
	char ts[32], *text;
	time_t t = time(NULL);
	struct tm tm;
	size_t lead;

	(void)opaque;
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	/* folded under the text (names, URIs) on a terminal unless --wide;
	 * whole where it is kept (the journal, a file): one entry a line */
	if (asprintf(&text, "%s fleet: %s%s", ts, error ? "error: " : "",
		     line) < 0)
		return;
	lead = strlen(ts) + strlen(" fleet: ");
	vcp_fold_line(stdout, text, lead, lead,
		      isatty(STDOUT_FILENO) ? vcp_cli_cols() : 0);
	free(text);
	fflush(stdout);
}

static const struct vcp_loop_ops loop_ops = {
	.observe = loop_observe,
	.log = loop_log,
};

/* the signal that stopped the loop, and a second one (kills a power
 * command in flight) */
static volatile sig_atomic_t loop_stop, loop_kill;

static int loop_setup(struct fctx *f, struct vcp_loop *l, struct loopobs *lo)
{
	if (!f->cfg.standby.enabled)
		return vcp_cli_err(EXIT_USAGE, "fleet %s: the fleet file has no \"standby\" object (see vcpack(1), Host standby)",
				   f->o.arg ? "clear" : "run");
	lo->f = f;
	lo->errs = calloc(f->cfg.n_hosts + 1, sizeof(*lo->errs));
	*l = (struct vcp_loop){ .cfg = &f->cfg, .policy = f->c->policy,
		.state_path = vcp_fleet_state_path(f->o.state),
		.ops = &loop_ops, .opaque = lo, .stop = &loop_stop,
		.kill = &loop_kill };
	if (!lo->errs || vcp_loop_init(l) < 0)
		return vcp_cli_err(EXIT_PARTIAL, "out of memory");
	return 0;
}

/* `fleet run` (@rounds 0: until stopped), or one round for apply. */
static int cmd_run(struct fctx *f, unsigned int rounds)
{
	struct loopobs lo = { 0 };
	struct vcp_loop l;
	unsigned int every = f->o.interval > 0 ? (unsigned int)f->o.interval :
			     f->cfg.standby.interval_s;
	char *err = NULL;
	int r = loop_setup(f, &l, &lo);

	if (r)
		return r;
	vcp_loop_catch_signals(&loop_stop, &loop_kill);
	if (rounds != 1)
		loop_log(NULL, false, "standby loop started");
	r = vcp_loop_run(&l, every, rounds, &err);
	if (r < 0) {
		r = vcp_cli_err(EXIT_USAGE, "fleet: %s", err ? err : strerror(-r));
	} else if (loop_stop) {
		/* as apply's migrations: 130 (SIGINT) or 143 (SIGTERM) */
		loop_log(NULL, false, loop_stop == SIGTERM ?
			 "stopped by SIGTERM; the state file says where each host is" :
			 "stopped by SIGINT; the state file says where each host is");
		r = 128 + loop_stop;
	} else
		r = l.failures ? EXIT_PARTIAL : 0;
	free(err);
	/* probes stuck past their deadline hold the fleet file's URIs:
	 * vcp_cli_fleet() then exits without freeing */
	f->abandoned += l.abandoned;
	vcp_loop_clear(&l);
	vcp_fleet_cli_in_clear(&lo.in);
	loop_power_clear(&lo);
	free(lo.errs);
	return r;
}

static int cmd_clear(struct fctx *f)
{
	struct loopobs lo = { 0 };
	const char *power = NULL;
	struct vcp_loop l;
	char *err = NULL;
	int r = loop_setup(f, &l, &lo);

	if (r)
		return r;
	r = vcp_loop_clear_host(&l, f->o.arg, &power, &err);
	if (r == -ENOENT)
		r = vcp_cli_err(EXIT_USAGE, "fleet clear: no host '%s' in the fleet file", f->o.arg);
	else if (r == -EALREADY)
		r = vcp_cli_err(EXIT_USAGE, "fleet clear: '%s' is not failed (it is %s): nothing to clear",
				f->o.arg, power);
	else if (r < 0)
		r = vcp_cli_err(EXIT_USAGE, "fleet clear: %s", err ? err : strerror(-r));
	else
		printf("fleet clear: '%s' is on again and may be chosen like any other host\n",
		       f->o.arg);
	free(err);
	vcp_loop_clear(&l);
	free(lo.errs);
	return r;
}

/* ---- entry ---- */

/* --match's host= and group= terms select the hosts of the fleet file
 * before any is contacted: the others are dropped from f->cfg. The VM
 * terms are only for tag. */
static int filter_hosts(struct fctx *f, const char *cmd)
{
	struct vcp_fleet_cfg *cfg = &f->cfg;
	size_t keep = 0;
	int r;

	if (!f->o.match)
		return 0;
	if (f->o.plan)
		return vcp_cli_err(EXIT_USAGE, "--match: a saved plan is applied as saved (no filters)");
	r = parse_rule(f);
	for (size_t k = 0; !r && strcmp(cmd, "tag") && k < f->rule.n_terms; k++)
		if (!vcp_rule_term_is_host(&f->rule.terms[k]))
			r = vcp_cli_err(
				EXIT_USAGE,
				"--match: '%s' selects VMs; fleet %s selects hosts (host=GLOB, group=GLOB)",
				vcp_rule_key_name(f->rule.terms[k].key), cmd);
	if (!r && cfg->standby.enabled && strcmp(cmd, "status") &&
	    strcmp(cmd, "tag"))
		r = vcp_cli_err(EXIT_USAGE, "--match: the standby %s is for the whole fleet (the fleet file has a \"standby\" object)",
				strcmp(cmd, "plan") ? "loop" : "advice");
	if (r)
		return r;
	for (size_t i = 0; i < cfg->n_hosts; i++) {
		struct vcp_rule_subject sub = { cfg->hosts[i].name,
						cfg->hosts[i].group, NULL,
						NULL };

		if (vcp_rule_matches(&f->rule, &sub, true)) {
			cfg->hosts[keep++] = cfg->hosts[i];
			continue;
		}
		vcp_fleet_entry_clear(&cfg->hosts[i]);
	}
	cfg->n_hosts = keep;
	if (!keep)
		return vcp_cli_err(EXIT_USAGE, "--match '%s': no host of the fleet file matches",
				   f->o.match);
	return 0;
}

static int load_cfg(struct fctx *f)
{
	const char *path = f->o.hosts ? f->o.hosts : DEFAULT_FLEET;
	char *err = NULL;
	int r = vcp_fleet_cfg_load(path, &f->cfg, &err);

	if (r < 0) {
		vcp_cli_err(0, "Refusing fleet file: %s", err ? err : strerror(-r));
		free(err);
		return EXIT_USAGE;
	}
	if (f->o.concurrency > 0)
		f->cfg.concurrency = (unsigned int)f->o.concurrency;
	if (f->o.timeout > 0)
		f->cfg.timeout_s = (unsigned int)f->o.timeout;
	f->cfg.tls = f->cfg.tls || f->o.tls;
	f->cfg.auto_converge = f->cfg.auto_converge || f->o.auto_converge;
	if (f->o.bandwidth > 0)
		f->cfg.bandwidth_mib = (unsigned int)f->o.bandwidth;
	if (f->o.mig_timeout >= 0)
		f->cfg.migration_timeout_s = (unsigned int)f->o.mig_timeout;
	return 0;
}

static void fctx_clear(struct fctx *f)
{
	if (f->res)
		vcp_fleet_results_clear(f->res, f->cfg.n_hosts,
					vcp_fleet_view_free);
	free(f->res);
	free(f->uris);
	vcp_rule_clear(&f->rule);
	vcp_fleet_cfg_clear(&f->cfg);
	for (int i = 0; f->names && i < 2; i++)
		vcp_names_clear(&f->names[i]);
}

/* status, tag, plan: lines over 100 columns folded, a long URI cut
 * visibly (the names in the tables are cut already), unless --wide. */
static int folded(struct fctx *f, const char *cmd)
{
	struct vcp_fold_capture fc;
	int r;

	vcp_fold_begin(&fc, f->json || wide(f) ? 0 : VCP_RENDER_COLS);
	if (!strcmp(cmd, "status"))
		r = vcp_fleet_cli_status(f);
	else if (!strcmp(cmd, "tag"))
		r = cmd_tag(f);
	else
		r = cmd_plan(f);
	vcp_fold_end(&fc);
	return r;
}

int vcp_cli_fleet(int argc, char **argv, const struct vcp_cli_common *c)
{
	struct fctx f = { .c = c };
	struct vcp_names names[2];
	const char *cmd = NULL;
	int r = parse_opts(argc, argv, &f.o, &cmd);

	if (r)
		return r;
	if (wide(&f))
		vcp_cli_wide();
	vcp_names_init(&names[0], HOST_W, wide(&f));
	vcp_names_init(&names[1], VM_W, wide(&f));
	f.names = names;
	f.json = c->json || f.o.json;
	f.sample_ms = f.o.sample_ms >= 0 ? (unsigned int)f.o.sample_ms :
					   c->sample_ms;
	if (strcmp(cmd, "status") && strcmp(cmd, "tag") && strcmp(cmd, "plan") &&
	    strcmp(cmd, "apply") && strcmp(cmd, "run") && strcmp(cmd, "clear"))
		return vcp_cli_err(EXIT_USAGE, "unknown fleet command '%s' (status, tag, plan, apply, run, clear)", cmd);
	if ((f.o.rounds > 0 || f.o.interval > 0) && strcmp(cmd, "run"))
		return vcp_cli_err(EXIT_USAGE, "--rounds and --interval go with fleet run");
	if ((f.o.save && strcmp(cmd, "plan")) || (f.o.plan && strcmp(cmd, "apply")))
		return vcp_cli_err(EXIT_USAGE, "--save goes with fleet plan, --plan with fleet apply");
	if (f.o.plan && f.o.dry_run)
		return vcp_cli_err(EXIT_USAGE, "fleet apply: --plan and --dry-run: the saved plan is the dry run (read it)");
	/* apply asks before it migrates: refused before anything is read or
	 * contacted when there is nobody to ask; --dry-run is plan */
	if (!strcmp(cmd, "apply") && f.o.dry_run)
		cmd = "plan";
	else if (!strcmp(cmd, "apply") && !f.o.yes && !isatty(STDIN_FILENO))
		return vcp_cli_err(EXIT_USAGE, "fleet apply: stdin is not a terminal to confirm the migrations on: pass --yes (or --dry-run to see the plan)");
	r = load_cfg(&f);
	if (!r)
		r = filter_hosts(&f, cmd);
	if (!r)
		r = fd_budget();
	if (r) {
		fctx_clear(&f);
		return r;
	}
	if (!strcmp(cmd, "status") || !strcmp(cmd, "tag") ||
	    !strcmp(cmd, "plan"))
		r = folded(&f, cmd);
	else if (!strcmp(cmd, "run") && f.json)
		r = vcp_cli_err(EXIT_USAGE, "fleet run prints log lines, not JSON ('fleet status --json' shows the loop's state)");
	else if (!strcmp(cmd, "run"))
		r = cmd_run(&f, f.o.rounds > 0 ? (unsigned int)f.o.rounds : 0);
	else if (!strcmp(cmd, "clear"))
		r = cmd_clear(&f);
	else if (f.o.plan)
		r = vcp_fleet_cli_apply_saved(&f);
	else if (f.cfg.standby.enabled && f.json)
		r = vcp_cli_err(EXIT_USAGE, "fleet apply: with a \"standby\" object apply is a round of the standby loop, which prints log lines, not JSON ('fleet status --json' shows the loop's state)");
	else if (f.cfg.standby.enabled && !f.o.yes)
		r = vcp_cli_err(EXIT_USAGE, "fleet apply: with a \"standby\" object apply is one round of the standby loop (migrations, standby, wakes decided as it goes): pass --yes (or see it first with 'fleet plan')");
	else if (f.cfg.standby.enabled)
		r = cmd_run(&f, 1);	/* one round of the loop */
	else
		r = vcp_fleet_cli_apply(&f);
	fflush(stdout);
	if (f.abandoned)
		_exit(r);	/* workers still inside libvirt use f's memory */
	fctx_clear(&f);
	return r;
}
