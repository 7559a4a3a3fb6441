// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cli-fleet-plan.c - `vcpack fleet plan`: the hosts as collected, grouped
 * by CPU (which group's guests can run on which, asked of one host of
 * each group), handed to the fleet planner (fleetplan.c); printed with
 * what each host would save (fleetwatts.c), the migration options and,
 * with a "standby" object, the standby loop's advice. Changes nothing;
 * --save writes the plan with who each host and VM is, for
 * `apply --plan`. apply and the standby loop plan with the same code.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli-fleet.h"
#include "esc.h"
#include "fleetjson.h"
#include "fleetplan.h"
#include "fleetsaved.h"
#include "fleetwatts.h"
#include "policy.h"
#include "standby.h"
#include "virt.h"

/* ---- plan ---- */

struct compat_work {
	size_t n_groups;
	char **cpu_xml; /* per group */
	size_t *rep; /* per group: a host of that group */
};

/* On a host of group g: which other groups' guests can run here. */
static int compat_job(struct vcp_virt *v, size_t g, void *arg, void **ret_data,
		      char **ret_err)
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
	static struct compat_work
		cw; /* until exit: see vcp_fleet_cli_collect() */
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
	p = vcp_fleet_cli_pool_for(f, compat_job, free, &cw, true);
	p.progress = NULL;
	r = vcp_fleet_run(uris, ng, &p, res, &ab);
	for (size_t g = 0; r == 0 && g < ng; g++) {
		const bool *row = res[g].data;

		for (size_t a = 0; row && a < ng; a++)
			in->compat[a * ng + g] = row[a]; /* a's guests on g */
	}
	f->abandoned += ab;
	if (!ab) {
		vcp_fleet_results_clear(res, ng, free);
		free(res);
		free(uris);
	}
	return r;
}

int vcp_fleet_cli_input(struct fctx *f, struct fleet_in *in)
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
		const char *name =
			vcp_fleet_cli_cut(f, in->hosts[i].name, HOST_W, &hc);

		if (!in->hosts[i].reachable) {
			printf("  %-16s %7s %8s %9s  unreachable: %s\n", name,
			       "-", "-", "-",
			       f->res[i].err ? vcp_esc_msg(f->res[i].err) :
					       "?");
			continue;
		}
		printf("  %-16s %7.2f %8.2f %4zu -> %zu  %s\n", name,
		       hp->demand_before, hp->capacity, hp->awake_before,
		       hp->awake_after,
		       hp->emptied ? "emptied: can sleep" :
		       hp->kept	   ? vcp_esc_msg(hp->kept) :
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
		       vcp_vendor_name(host_vendor(f, i)), w.watts,
		       vcp_esc_msg(w.basis));
	}
	printf("migrations (in this order; plan changes nothing):\n");
	if (!p->n_moves)
		printf("  (none)\n");
	for (size_t k = 0; k < p->n_moves; k++) {
		const struct vcp_fleet_move *m = &p->moves[k];
		const struct vcp_vm *vm = &in->hosts[m->from].vms[m->vm];

		printf("  %-24s %s -> %s  %.2f CPUs  %llu MiB\n",
		       vcp_fleet_cli_cut(f, vm->name, VM_W, &vc),
		       vcp_fleet_cli_cut(f, in->hosts[m->from].name, HOST_W,
					 &hc),
		       vcp_fleet_cli_cut(f, in->hosts[m->to].name, HOST_W, &tc),
		       m->demand, vm->mem_kib / 1024);
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
	r = vcp_fleet_cli_input(f, in);
	opts = (struct vcp_fleet_opts){ .move_spread = f->cfg.move_spread,
					.mem_reserve = f->cfg.mem_reserve,
					.n_groups = in->n_groups,
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
	       f->cfg.standby.low * 100, f->cfg.standby.high * 100,
	       vcp_esc_msg(d->why));
	for (size_t k = 0; k < d->n_moves; k++)
		printf("  move %-24s %s -> %s  %.2f CPUs\n",
		       vcp_fleet_cli_cut(
			       f, h[d->moves[k].from].vms[d->moves[k].vm].name,
			       VM_W, &vc),
		       vcp_fleet_cli_cut(f, h[d->moves[k].from].name, HOST_W,
					 &hc),
		       vcp_fleet_cli_cut(f, h[d->moves[k].to].name, HOST_W,
					 &tc),
		       d->moves[k].demand);
	if (d->drain >= 0)
		printf("  drain towards standby: %s\n",
		       vcp_esc(h[d->drain].name));
	if (d->standby >= 0)
		printf("  put in standby: %s\n", vcp_esc(h[d->standby].name));
	for (size_t k = 0; k < d->n_wake; k++)
		printf("  wake: %s\n", vcp_esc(h[d->wake[k]].name));
	for (size_t i = 0; i < f->cfg.n_hosts; i++)
		if (d->host_why[i])
			printf("  stays on: %-16s %s\n",
			       vcp_fleet_cli_cut(f, h[i].name, HOST_W, &hc),
			       vcp_esc_msg(d->host_why[i]));
}

/* The standby loop's decision as advice, when the fleet file has a
 * "standby" object: added to @o (JSON) or printed. */
static int standby_advice(struct fctx *f, const struct fleet_in *in,
			  struct json_object *o)
{
	struct vcp_fleet_opts opts = { .move_spread = f->cfg.move_spread,
				       .mem_reserve = f->cfg.mem_reserve,
				       .n_groups = in->n_groups,
				       .compat = in->compat };
	struct vcp_sb_round r = { in->hosts,	   f->cfg.n_hosts,
				  f->c->policy,	   &opts,
				  &f->cfg.standby, (long long)time(NULL) };
	struct vcp_sb_decision *d = NULL;
	int e;

	if (!f->cfg.standby.enabled)
		return 0;
	e = vcp_sb_advise(&r, &d);
	if (e < 0)
		return vcp_cli_err(EXIT_PARTIAL,
				   "fleet plan: standby advice failed: %s",
				   strerror(-e));
	if (o)
		json_object_object_add(o, "standby",
				       vcp_sb_decision_to_json(d, in->hosts,
							       f->cfg.n_hosts));
	else
		standby_text(f, in, d);
	vcp_sb_decision_free(d);
	return 0;
}

/* What each migration to host @to passes to libvirt. */
struct vcp_migrate_opts vcp_fleet_cli_migrate_opts(const struct fctx *f,
						   size_t to)
{
	return (struct vcp_migrate_opts){
		.p2p = f->cfg.p2p,
		.address = to < f->cfg.n_hosts ?
				   f->cfg.hosts[to].migration_address :
				   NULL,
		.tls = f->cfg.tls,
		.auto_converge = f->cfg.auto_converge,
		.bandwidth_mib = f->cfg.bandwidth_mib
	};
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
	json_object_object_add(m, "bandwidth_mib_s",
			       o.bandwidth_mib ?
				       json_object_new_int64(o.bandwidth_mib) :
				       NULL);
	json_object_object_add(
		m, "timeout_s",
		f->cfg.migration_timeout_s ?
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
	static const char *const unknown[] = {
		"emptied",     "packages",	 "awake_before",
		"awake_after", "demand_before",	 "demand_after",
		"capacity",    "mem_before_mib", "mem_after_mib"
	};
	struct json_object *o = vcp_fleet_plan_to_json(p, in->hosts);
	struct json_object *hs = NULL;
	double measured = 0;

	json_object_object_get_ex(o, "hosts", &hs);
	for (size_t i = 0; i < p->n_hosts; i++) {
		struct json_object *h = json_object_array_get_idx(hs, i);
		bool ok = in->hosts[i].reachable;

		json_object_object_add(h, "reachable",
				       json_object_new_boolean(ok));
		json_object_object_add(
			h, "error",
			!ok && f->res[i].err ?
				json_object_new_string(f->res[i].err) :
				NULL);
		for (size_t k = 0;
		     !ok && k < sizeof(unknown) / sizeof(*unknown); k++)
			json_object_object_add(h, unknown[k], NULL);
	}
	for (size_t i = 0; i < p->n_hosts; i++) {
		struct json_object *h = json_object_array_get_idx(hs, i);
		struct vcp_watts w;

		json_object_object_add(h, "vendor",
				       json_object_new_string(vcp_vendor_name(
					       host_vendor(f, i))));
		if (!in->hosts[i].reachable) {
			json_object_object_add(h, "saving_watts", NULL);
			json_object_object_add(h, "saving_measured", NULL);
			json_object_object_add(h, "saving_basis", NULL);
			continue;
		}
		w = host_saving(f, p, i);
		json_object_object_add(h, "saving_watts",
				       vcp_json_double3(w.watts));
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

		json_object_object_add(
			h, "uri", json_object_new_string(f->cfg.hosts[i].uri));
		json_object_object_add(
			h, "hostname",
			fv ? json_object_new_string(fv->hostname) : NULL);
		json_object_object_add(
			h, "host_uuid",
			fv && fv->host_uuid ?
				json_object_new_string(fv->host_uuid) :
				NULL);
	}
	for (size_t k = 0; k < p->n_moves; k++)
		json_object_object_add(
			json_object_array_get_idx(ms, k), "uuid",
			json_object_new_string(in->hosts[p->moves[k].from]
						       .vms[p->moves[k].vm]
						       .uuid));
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
	bad = fputs(json_object_to_json_string_ext(
			    o, JSON_C_TO_STRING_PRETTY |
				       JSON_C_TO_STRING_NOSLASHESCAPE),
		    fp) < 0 ||
	      fputc('\n', fp) < 0;
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
		return vcp_cli_err(EXIT_PARTIAL,
				   "fleet plan: cannot save the plan to %s: %s",
				   f->o.save, strerror(-r));
	return 0;
}

int vcp_fleet_cli_cmd_plan(struct fctx *f)
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
