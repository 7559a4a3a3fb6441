// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cli-fleet-status.c - `vcpack fleet status`: per host its packages
 * awake and asleep, its VMs by class, its mode and the modelled power
 * saved; where the fleet file has a "standby" object, the loop's state
 * (read, no lock) and what its standby saves; each host's power now from
 * its power_command, read in a thread while libvirt is asked. The
 * standby loop reads the hosts' power with the same functions.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "cli-fleet.h"
#include "esc.h"
#include "fleetpower.h"
#include "fleetstate.h"
#include "fleetwatts.h"
#include "kernel.h"
#include "policy.h"
#include "report.h"
#include "standby.h"
#include "width.h"

/* ---- status ---- */

struct hsum {
	size_t pkgs, awake;
	size_t by_class[C__N];
	double saved_w;
	const char *mode;
	const struct vcp_vm *rec; /* vcpackd's newest host record */
};

/* The newest record a host's vcpackd left in its VMs, or NULL. */
static const struct vcp_vm *newest_rec(const struct vcp_fleet_view *fv)
{
	const struct vcp_vm *best = NULL;

	for (size_t i = 0; i < fv->w.n_vms; i++)
		if (fv->w.vms[i].has_host_rec &&
		    (!best || fv->w.vms[i].host_rec_at > best->host_rec_at))
			best = &fv->w.vms[i];
	return best;
}

/* Mode as the host's vcpackd recorded it; else what can be seen from
 * here (the test driver, this machine); else unknown. */
static const char *host_mode(const struct vcp_fleet_view *fv, const char *uri)
{
	const struct vcp_vm *rec = newest_rec(fv);
	struct vcp_kernel *k = NULL;
	enum vcp_mode m;

	if (rec)
		return vcp_mode_name(rec->host_rec_mode);
	if (!strcmp(fv->driver, "TEST") || !strcmp(fv->driver, "Test"))
		return "pin";
	if (!strstr(uri, ":///") || vcp_kernel_open("/", &k) < 0)
		return "unknown";
	m = vcp_kernel_mode(k);
	vcp_kernel_free(k);
	return m == VCP_MODE_KERNEL ? "kernel" : "pin";
}

static void summarise(const struct fctx *f, size_t i, struct hsum *s)
{
	const struct vcp_fleet_view *fv = view(f, i);
	struct vcp_pkg_map map = { 0 };

	memset(s, 0, sizeof(*s));
	if (!fv)
		return;
	s->pkgs = fv->w.host->n_packages;
	if (vcp_pkg_map_build(fv->w.host, fv->w.vms, fv->w.n_vms, NULL, &map) ==
	    0)
		s->awake = map.n_awake;
	vcp_pkg_map_clear(&map);
	if (!s->awake && s->pkgs)
		s->awake = 1; /* the host itself runs somewhere */
	for (size_t v = 0; v < fv->w.n_vms; v++)
		s->by_class[vcp_fleet_cli_vm_class(&fv->w.vms[v],
						   f->c->policy)]++;
	s->saved_w = (double)(s->pkgs - s->awake) * f->cfg.package_watts;
	s->mode = host_mode(fv, f->cfg.hosts[i].uri);
	s->rec = newest_rec(fv);
}

static struct json_object *status_host_json(const struct fctx *f, size_t i,
					    const struct hsum *s)
{
	const struct vcp_fleet_entry *e = &f->cfg.hosts[i];
	const struct vcp_fleet_view *fv = view(f, i);
	struct json_object *o = json_object_new_object();
	struct json_object *cls = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(e->name));
	json_object_object_add(o, "uri", json_object_new_string(e->uri));
	json_object_object_add(
		o, "group", e->group ? json_object_new_string(e->group) : NULL);
	json_object_object_add(o, "reachable",
			       json_object_new_boolean(fv != NULL));
	json_object_object_add(
		o, "error",
		f->res[i].err ? json_object_new_string(f->res[i].err) : NULL);
	json_object_object_add(o, "seconds",
			       vcp_json_double3(f->res[i].seconds));
	if (!fv) {
		/* not known: null, not 0 */
		static const char *const unknown[] = {
			"hostname",    "driver",	  "mode",
			"level",       "recorded_at",	  "packages",
			"awake",       "asleep",	  "vms",
			"saved_watts", "untouched_issues"
		};

		for (size_t k = 0; k < sizeof(unknown) / sizeof(*unknown); k++)
			json_object_object_add(o, unknown[k], NULL);
		json_object_put(cls);
		return o;
	}
	json_object_object_add(o, "hostname",
			       json_object_new_string(fv->hostname));
	json_object_object_add(o, "driver", json_object_new_string(fv->driver));
	json_object_object_add(o, "mode", json_object_new_string(s->mode));
	json_object_object_add(
		o, "level",
		s->rec ? json_object_new_int(s->rec->host_rec_level) : NULL);
	json_object_object_add(
		o, "recorded_at",
		s->rec ? json_object_new_int64(s->rec->host_rec_at) : NULL);
	json_object_object_add(o, "packages",
			       json_object_new_int((int)s->pkgs));
	json_object_object_add(o, "awake", json_object_new_int((int)s->awake));
	json_object_object_add(o, "asleep",
			       json_object_new_int((int)(s->pkgs - s->awake)));
	for (int c = 0; c < C__N; c++)
		json_object_object_add(
			cls, vcp_fleet_cli_class_label[c],
			json_object_new_int((int)s->by_class[c]));
	json_object_object_add(o, "vms", cls);
	json_object_object_add(o, "saved_watts", vcp_json_double3(s->saved_w));
	json_object_object_add(o, "untouched_issues",
			       json_object_new_int((int)fv->w.n_issues));
	return o;
}

/* The column of VMs by class: "spread/balanced/pack/untouched", 30
 * wide, or where that would make the table (91 columns) wider than the
 * width, "spr/bal/pack/unt", 16 wide (77 columns). */
#define CLASS_COL_NARROW_BELOW 91
static int class_col(const struct fctx *f, const char **ret_head)
{
	size_t cols = vcp_width_cols();
	bool narrow = !wide(f) && cols && cols < CLASS_COL_NARROW_BELOW;

	*ret_head = narrow ? "spr/bal/pack/unt" :
			     "spread/balanced/pack/untouched";
	return narrow ? 16 : 30;
}

static void status_host_text(const struct fctx *f, size_t i,
			     const struct hsum *s)
{
	const char *head;
	int cw = class_col(f, &head);
	struct cell hc;

	if (!view(f, i)) {
		printf("  %-16s unreachable: %s\n", host_cell(f, i, &hc),
		       f->res[i].err ? vcp_esc_msg(f->res[i].err) : "?");
		return;
	}
	char cls[96];

	snprintf(cls, sizeof(cls), "%zu/%zu/%zu/%zu", s->by_class[0],
		 s->by_class[1], s->by_class[2], s->by_class[3]);
	printf("  %-16s %-8s %4zu %5zu %6zu %4zu  %-*s %8.0f\n",
	       host_cell(f, i, &hc), s->mode, s->pkgs, s->awake,
	       s->pkgs - s->awake,
	       s->by_class[0] + s->by_class[1] + s->by_class[2] +
		       s->by_class[3],
	       cw, cls, s->saved_w);
}

struct totals {
	size_t hosts, reachable, pkgs, awake, vms;
	double saved_w;
};

static void add_total(struct totals *t, const struct hsum *s, bool ok)
{
	t->hosts++;
	if (!ok)
		return;
	t->reachable++;
	t->pkgs += s->pkgs;
	t->awake += s->awake;
	for (int c = 0; c < C__N; c++)
		t->vms += s->by_class[c];
	t->saved_w += s->saved_w;
}

static struct json_object *totals_json(const struct totals *t)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "hosts", json_object_new_int((int)t->hosts));
	json_object_object_add(o, "reachable",
			       json_object_new_int((int)t->reachable));
	json_object_object_add(o, "packages",
			       json_object_new_int((int)t->pkgs));
	json_object_object_add(o, "awake", json_object_new_int((int)t->awake));
	json_object_object_add(o, "asleep",
			       json_object_new_int((int)(t->pkgs - t->awake)));
	json_object_object_add(o, "vms", json_object_new_int((int)t->vms));
	json_object_object_add(o, "saved_watts", vcp_json_double3(t->saved_w));
	return o;
}

/* ---- status: the standby loop's state ---- */

/* The loop's state file for status (read as it is, no lock: it is
 * replaced whole); false without a standby object or when it cannot be
 * read (said on stderr). */
static bool status_state(const struct fctx *f, struct vcp_sb_state *st)
{
	const char *path = vcp_fleet_state_path(f->o.state);
	const char **names;
	char *err = NULL;
	int r;

	if (!f->cfg.standby.enabled)
		return false;
	names = calloc(f->cfg.n_hosts + 1, sizeof(*names));
	if (!names)
		return false;
	for (size_t i = 0; i < f->cfg.n_hosts; i++)
		names[i] = f->cfg.hosts[i].name;
	r = vcp_fleet_state_load(path, names, f->cfg.n_hosts, st, &err);
	free(names);
	if (r < 0)
		vcp_cli_err(0, "fleet status: the standby loop's state: %s",
			    err ? err : strerror(-r));
	free(err);
	return r == 0;
}

static struct json_object *sb_host_json(const struct vcp_sb_host_state *h)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(
		o, "power",
		json_object_new_string(vcp_sb_power_name(h->power)));
	json_object_object_add(o, "since",
			       h->since == VCP_SB_NO_TIME ?
				       NULL :
				       json_object_new_int64(h->since));
	json_object_object_add(o, "why",
			       h->why ? json_object_new_string(h->why) : NULL);
	json_object_object_add(
		o, "last_action",
		h->last_action ? json_object_new_string(h->last_action) : NULL);
	json_object_object_add(o, "output",
			       h->output ? json_object_new_string(h->output) :
					   NULL);
	return o;
}

static const char *utc(long long t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t == VCP_SB_NO_TIME || !gmtime_r(&tt, &tm))
		return "-";
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

static const char *sb_label(enum vcp_sb_power p)
{
	switch (p) {
	case VCP_SB_STANDBY:
		return "standby (by vcpack)";
	case VCP_SB_WAKING:
		return "waking (by vcpack)";
	case VCP_SB_DRAINING:
		return "draining towards standby";
	case VCP_SB_FAILED:
		return "failed (vcpack fleet clear HOST)";
	default:
		return "on";
	}
}

static void sb_text(const struct fctx *f, const struct vcp_sb_state *st)
{
	printf("standby loop (state %s):\n",
	       vcp_esc(vcp_fleet_state_path(f->o.state)));
	for (size_t i = 0; i < st->n_hosts; i++) {
		const struct vcp_sb_host_state *h = &st->hosts[i];
		struct cell hc;
		char ts[32];

		if (h->power == VCP_SB_ON && !view(f, i)) {
			printf("  %-16s unreachable (not put to sleep by vcpack)\n",
			       vcp_fleet_cli_cut(f, h->name, HOST_W, &hc));
			continue;
		}
		printf("  %-16s %s", vcp_fleet_cli_cut(f, h->name, HOST_W, &hc),
		       sb_label(h->power));
		if (h->since != VCP_SB_NO_TIME)
			printf(" since %s", utc(h->since, ts, sizeof(ts)));
		if (h->why)
			printf(": %s", vcp_esc_msg(h->why));
		if (h->last_action && h->power != VCP_SB_ON)
			printf(" [last: %s]", vcp_esc_msg(h->last_action));
		putchar('\n');
	}
}

/* What the hosts vcpack put in standby save: their idle draw, measured
 * (the fleet file's idle_watts) or modelled per vendor. */
struct sb_power {
	size_t hosts;
	double watts, measured;
};

static struct sb_power sb_power_of(const struct fctx *f,
				   const struct vcp_sb_state *st)
{
	struct sb_power p = { 0 };

	for (size_t i = 0; i < st->n_hosts; i++) {
		const struct vcp_fleet_entry *e = &f->cfg.hosts[i];
		struct vcp_watts w;

		if (st->hosts[i].power != VCP_SB_STANDBY)
			continue;
		w = vcp_watts_host((enum vcp_vendor)e->vendor,
				   st->hosts[i].packages, true, e->idle_watts,
				   f->cfg.package_watts, f->cfg.host_watts);
		p.hosts++;
		p.watts += w.watts;
		p.measured += w.measured ? w.watts : 0;
	}
	return p;
}

static bool sb_asleep(const struct vcp_sb_state *st, bool have, size_t i)
{
	return have && (st->hosts[i].power == VCP_SB_STANDBY ||
			st->hosts[i].power == VCP_SB_WAKING);
}

/* ---- status: each host's power now (its power_command) ---- */

static void *power_thread(void *arg)
{
	struct power_read *pr = arg;

	pr->r = vcp_fleet_power_read(&pr->f->cfg, pr->f->uris, pr->max_live,
				     pr->p, &pr->abandoned);
	return NULL;
}

static bool any_power_command(const struct fctx *f)
{
	for (size_t i = 0; i < f->cfg.n_hosts; i++)
		if (vcp_fleet_power_command(&f->cfg, i))
			return true;
	return false;
}

/* Start reading the hosts' power while vcp_fleet_cli_collect() asks their libvirt;
 * none without a power_command anywhere. */
void vcp_fleet_cli_power_start(struct fctx *f, struct power_read *pr)
{
	size_t n = f->cfg.n_hosts;

	memset(pr, 0, sizeof(*pr));
	pr->f = f;
	pr->p = calloc(n ? n : 1, sizeof(*pr->p));
	f->uris = calloc(n ? n : 1, sizeof(*f->uris));
	if (!pr->p || !f->uris || !any_power_command(f))
		return;
	for (size_t i = 0; i < n; i++)
		f->uris[i] = f->cfg.hosts[i].uri;
	/* the descriptors are shared with vcp_fleet_cli_collect()'s pool: half each */
	pr->max_live = vcp_fleet_fd_budget(vcp_fleet_cli_fd_limit(),
					   vcp_fleet_cli_fds_in_use()) /
		       2;
	pr->max_live = pr->max_live ? pr->max_live : 1;
	pr->started = true;
	pr->threaded = pthread_create(&pr->t, NULL, power_thread, pr) == 0;
	if (!pr->threaded) /* then before the libvirt queries */
		power_thread(pr);
}

void vcp_fleet_cli_power_wait(struct fctx *f, struct power_read *pr)
{
	if (pr->threaded)
		pthread_join(pr->t, NULL);
	f->abandoned += pr->abandoned;
}

static const char *power_why(const struct vcp_fleet_power *p)
{
	if (p->why)
		return p->why;
	return p->state == VCP_FPOWER_NONE ? "no power_command" : NULL;
}

static struct json_object *power_host_json(const struct vcp_fleet_power *p)
{
	struct json_object *o = json_object_new_object();
	bool m = p->state == VCP_FPOWER_MEASURED;

	json_object_object_add(
		o, "state",
		json_object_new_string(vcp_fpower_state_name(p->state)));
	json_object_object_add(o, "watts",
			       m ? vcp_json_double3(p->reading.watts) : NULL);
	json_object_object_add(o, "source",
			       m ? json_object_new_string("power_command") :
				   NULL);
	json_object_object_add(
		o, "format",
		m ? json_object_new_string(
			    vcp_reading_format_name(p->reading.format)) :
		    NULL);
	json_object_object_add(
		o, "error",
		power_why(p) ? json_object_new_string(power_why(p)) : NULL);
	json_object_object_add(o, "seconds", vcp_json_double3(p->seconds));
	return o;
}

struct power_sum vcp_fleet_cli_power_sum(const struct fctx *f,
					 const struct vcp_fleet_power *p)
{
	struct power_sum s = { 0 };

	for (size_t i = 0; i < f->cfg.n_hosts; i++) {
		if (p[i].state == VCP_FPOWER_MEASURED) {
			s.measured++;
			s.watts += p[i].reading.watts;
		} else if (p[i].state == VCP_FPOWER_NONE) {
			s.none++;
		} else {
			s.failed++;
		}
	}
	return s;
}

static void power_text(const struct fctx *f, const struct vcp_fleet_power *p,
		       const struct vcp_sb_state *st, bool have_st)
{
	struct power_sum s = vcp_fleet_cli_power_sum(f, p);

	if (s.none == f->cfg.n_hosts) {
		printf("power: no host has a power_command (vcpack-fleet(5)): no power measured now\n");
		return;
	}
	printf("power now (each host's power_command):\n");
	for (size_t i = 0; i < f->cfg.n_hosts; i++) {
		struct cell hc;

		printf("  %-16s ", host_cell(f, i, &hc));
		if (p[i].state == VCP_FPOWER_MEASURED)
			printf("%8.1f W measured: power_command (%s)%s\n",
			       p[i].reading.watts,
			       vcp_reading_format_name(p[i].reading.format),
			       have_st && st->hosts[i].power == VCP_SB_STANDBY ?
				       ", in standby by vcpack" :
				       "");
		else
			printf("       - W none: %s\n",
			       vcp_esc_msg(power_why(&p[i])));
	}
	printf("power: %.1f W measured on %zu of %zu hosts; %zu without a reading (%zu failed, %zu without a power_command), not counted\n",
	       s.watts, s.measured, f->cfg.n_hosts, s.none + s.failed, s.failed,
	       s.none);
}

static void power_totals_json(struct json_object *tj, const struct fctx *f,
			      const struct vcp_fleet_power *p)
{
	struct power_sum s = vcp_fleet_cli_power_sum(f, p);

	json_object_object_add(tj, "measured_watts",
			       s.measured ? vcp_json_double3(s.watts) : NULL);
	json_object_object_add(tj, "measured_hosts",
			       json_object_new_int((int)s.measured));
	json_object_object_add(tj, "unmeasured_hosts",
			       json_object_new_int((int)(s.none + s.failed)));
}

int vcp_fleet_cli_cmd_status(struct fctx *f)
{
	struct json_object *arr = json_object_new_array(), *o;
	struct totals t = { 0 };
	struct vcp_sb_state st = { 0 };
	struct sb_power sbp = { 0 };
	struct power_read pr;
	bool have_st;
	size_t asleep = 0;
	int r;

	vcp_fleet_cli_power_start(f, &pr);
	r = vcp_fleet_cli_collect(f, 0);
	vcp_fleet_cli_power_wait(f, &pr);
	if (r || !pr.p) {
		json_object_put(arr);
		free(pr.p);
		return r ? r : vcp_cli_err(EXIT_PARTIAL, "out of memory");
	}
	have_st = status_state(f, &st);
	if (!f->json) {
		const char *head;
		int cw = class_col(f, &head);

		printf("  %-16s %-8s %4s %5s %6s %4s  %-*s %8s\n", "HOST",
		       "MODE", "PKGS", "AWAKE", "ASLEEP", "VMS", cw, head,
		       "SAVED(W)");
	}
	for (size_t i = 0; i < f->cfg.n_hosts; i++) {
		struct hsum s;

		summarise(f, i, &s);
		add_total(&t, &s, view(f, i) != NULL);
		asleep += sb_asleep(&st, have_st, i) && !view(f, i);
		if (f->json) {
			o = status_host_json(f, i, &s);
			json_object_object_add(
				o, "standby",
				have_st ? sb_host_json(&st.hosts[i]) : NULL);
			json_object_object_add(o, "power",
					       power_host_json(&pr.p[i]));
			json_object_array_add(arr, o);
		} else {
			status_host_text(f, i, &s);
		}
	}
	if (have_st) {
		sbp = sb_power_of(f, &st);
		if (!f->json) {
			sb_text(f, &st);
			printf("standby: %zu hosts in standby by vcpack, saving %.0f W (%.0f W from idle_watts, %.0f W modelled)\n",
			       sbp.hosts, sbp.watts, sbp.measured,
			       sbp.watts - sbp.measured);
		}
	}
	if (!f->json) {
		power_text(f, pr.p, &st, have_st);
		printf("fleet: %zu hosts, %zu reachable; packages %zu awake, %zu asleep of %zu; %zu VMs; modelled saving %.0f W (%.0f W per package asleep; awake = some vCPU may run there)\n",
		       t.hosts, t.reachable, t.awake, t.pkgs - t.awake, t.pkgs,
		       t.vms, t.saved_w, f->cfg.package_watts);
		json_object_put(arr);
	} else {
		o = json_object_new_object();
		json_object_object_add(o, "hosts", arr);
		json_object_object_add(o, "totals", totals_json(&t));
		power_totals_json(json_object_object_get(o, "totals"), f, pr.p);
		if (have_st) {
			struct json_object *tj =
				json_object_object_get(o, "totals");

			json_object_object_add(
				tj, "standby_hosts",
				json_object_new_int((int)sbp.hosts));
			json_object_object_add(tj, "standby_saving_watts",
					       vcp_json_double3(sbp.watts));
			json_object_object_add(tj,
					       "standby_saving_measured_watts",
					       vcp_json_double3(sbp.measured));
		}
		vcp_cli_json(o);
	}
	vcp_sb_state_clear(&st);
	vcp_fleet_power_clear(pr.p, f->cfg.n_hosts);
	free(pr.p);
	/* a host vcpack put to sleep is not expected to answer */
	return t.reachable + asleep == t.hosts ? 0 : EXIT_PARTIAL;
}
