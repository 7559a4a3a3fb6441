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
 * cli-fleet.h. `status` is cli-fleet-status.c, `plan` cli-fleet-plan.c,
 * `apply` (the migration executor) cli-fleet-apply.c, the standby loop
 * (`run`, `clear`, `apply` with a "standby" object) cli-fleet-run.c;
 * `tag` is here.
 */
#include <errno.h>
#include <stdint.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <glib.h>
#include <json-c/json.h>

#include "cli.h"
#include "cli-fleet.h"
#include "fold.h"
#include "render.h"
#include "fleet.h"
#include "fleetcfg.h"
#include "fleetrule.h"
#include "fleetstate.h"
#include "planner.h"
#include "policy.h"
#include "tags.h"

#define DEFAULT_FLEET VCP_SYSCONFDIR "/vcpack/fleet.json"

const char *const vcp_fleet_cli_class_label[C__N] = {
	"spread",
	"balanced",
	"pack",
	"untouched",
};

static const char *const fleet_usage =
	"Usage: vcpack [--policy FILE] fleet [--hosts FLEET.json] [--json]\n"
	"              [--concurrency N] [--timeout S] [--sample MS] COMMAND\n"
	"              [--match host=GLOB,group=GLOB] [--wide]\n"
	"  --match (status, plan, apply): only the hosts the rule selects;\n"
	"                         the others are not contacted\n"
	"  --wide:                names and lines whole (default: cut\n"
	"                         name...end, lines folded to COLUMNS, else\n"
	"                         the terminal, else 100 columns, a long URI\n"
	"                         cut as start...end)\n"
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
		if (vcp_tag_set_class(&fo->tag, arg) < 0)
			return vcp_cli_err(EXIT_USAGE, "class '%s' is not one of " VCP_TAG_CLASSES, arg);
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
	while (r == 0 &&
	       (o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
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
		default:
			return vcp_cli_badopt("fleet", o, argv);
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
	unsigned long long in_use = vcp_fleet_cli_fds_in_use(),
			   limit = vcp_fleet_cli_fd_limit();

	if (!vcp_fleet_fd_budget(limit, in_use))
		return vcp_cli_err(EXIT_PARTIAL, "the file descriptor limit (%llu, %llu in use) leaves no room to contact any host; raise it (ulimit -n)",
				   limit, in_use);
	return 0;
}

struct vcp_fleet_pool vcp_fleet_cli_pool_for(const struct fctx *f,
					     vcp_fleet_job job,
					     void (*free_data)(void *),
					     void *arg, bool readonly)
{
	unsigned int budget = vcp_fleet_fd_budget(vcp_fleet_cli_fd_limit(),
						  vcp_fleet_cli_fds_in_use());
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
	p = vcp_fleet_cli_pool_for(f, vcp_fleet_observe_job,
				   vcp_fleet_view_free, &sample_ms_for_jobs,
				   true);
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

int vcp_fleet_cli_vm_class(const struct vcp_vm *vm,
			   const struct vcp_policy *pol)
{
	return vm->managed ? (int)vcp_plan_vm_class(vm, pol) : C_UNTOUCHED;
}

/* ---- tag ---- */

static bool vm_matches(const struct fctx *f, size_t h, const struct vcp_vm *vm)
{
	const struct vcp_fleet_entry *e = &f->cfg.hosts[h];
	struct vcp_rule_subject sub = {
		e->name, e->group, vm,
		vcp_fleet_cli_class_label[vcp_fleet_cli_vm_class(vm,
								 f->c->policy)]
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
	p = vcp_fleet_cli_pool_for(f, tag_job, tag_out_free, w, false);
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
	static struct tag_work w; /* until exit: see vcp_fleet_cli_collect() */
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
		       f->o.dry_run ? "would write" : "writing",
		       xml ? xml : "");
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

/* status, tag, plan: lines over the width folded, a long URI cut
 * visibly (the names in the tables are cut already), unless --wide. */
static int folded(struct fctx *f, const char *cmd)
{
	struct vcp_fold_capture fc;
	int r;

	vcp_fold_begin(&fc, f->json || wide(f) ? 0 : vcp_width_cols());
	if (!strcmp(cmd, "status"))
		r = vcp_fleet_cli_cmd_status(f);
	else if (!strcmp(cmd, "tag"))
		r = cmd_tag(f);
	else
		r = vcp_fleet_cli_cmd_plan(f);
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
		r = vcp_fleet_cli_cmd_run(
			&f, f.o.rounds > 0 ? (unsigned int)f.o.rounds : 0);
	else if (!strcmp(cmd, "clear"))
		r = vcp_fleet_cli_cmd_clear(&f);
	else if (f.o.plan)
		r = vcp_fleet_cli_cmd_apply_saved(&f);
	else if (f.cfg.standby.enabled && f.json)
		r = vcp_cli_err(EXIT_USAGE, "fleet apply: with a \"standby\" object apply is a round of the standby loop, which prints log lines, not JSON ('fleet status --json' shows the loop's state)");
	else if (f.cfg.standby.enabled && !f.o.yes)
		r = vcp_cli_err(EXIT_USAGE, "fleet apply: with a \"standby\" object apply is one round of the standby loop (migrations, standby, wakes decided as it goes): pass --yes (or see it first with 'fleet plan')");
	else if (f.cfg.standby.enabled)
		r = vcp_fleet_cli_cmd_run(&f, 1); /* one round of the loop */
	else
		r = vcp_fleet_cli_cmd_apply(&f);
	fflush(stdout);
	if (f.abandoned)
		_exit(r);	/* workers still inside libvirt use f's memory */
	fctx_clear(&f);
	return r;
}
