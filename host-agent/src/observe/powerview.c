// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * powerview.c - a probe (two reads of the power counters around the
 * caller's own work, at least a minimum time apart) and the text and
 * JSON renderings of the figures that `vcpack status` shows. A figure
 * that was not measured is said to be missing and why; it is never shown
 * as zero.
 */
#include "powerview.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "esc.h"
#include "rdfile.h"

static int open_one(const char *root, struct vcp_power_probe *p, int i)
{
	int r = 0;

	if (root)
		r = vcp_power_file_ops_new(root, &p->fops[i]);
	if (!r)
		r = vcp_power_reader_open(root ? root : "/sys", p->fops[i],
					  &p->r[i]);
	return r;
}

/* Keep why a read failed (a fixture clock that is no clock) in p->why. */
static void keep_why(struct vcp_power_probe *p)
{
	for (int i = 0; i < 2 && !p->why[0]; i++) {
		const struct vcp_power_ops *o = p->fops[i];
		const char *why = o && o->clock_why ? o->clock_why(o->data) :
						      NULL;

		if (why)
			snprintf(p->why, sizeof(p->why), "%s", why);
	}
}

int vcp_power_probe_start(const char *spec, struct vcp_power_probe *p)
{
	char *dup = NULL, *second = NULL;
	int r;

	memset(p, 0, sizeof(*p));
	if (spec) {
		dup = strdup(spec);
		if (!dup)
			return -ENOMEM;
		second = strchr(dup, ',');
		if (second)
			*second++ = '\0';
		if (!*dup || (second && (!*second || strchr(second, ',')))) {
			free(dup);
			return -EINVAL;
		}
	}
	r = open_one(dup, p, 0);
	if (!r && second)
		r = open_one(second, p, 1);
	free(dup);
	if (!r) {
		p->t0_ns = vcp_mono_ns();
		r = vcp_power_read(p->r[0], &p->first);
	}
	if (r < 0) {
		char why[sizeof(p->why)];

		keep_why(p);
		memcpy(why, p->why, sizeof(why));
		vcp_power_probe_clear(p);
		memcpy(p->why, why, sizeof(why));
	}
	return r;
}

int vcp_power_probe_finish(struct vcp_power_probe *p, unsigned int min_ms,
			   struct vcp_pwr_figs *ret)
{
	struct vcp_pwr_thresholds th = VCP_PWR_THRESHOLDS_DEFAULT;
	uint64_t want = p->t0_ns + (uint64_t)min_ms * 1000000ull,
		 t = vcp_mono_ns();
	int r;

	if (t < want) {
		struct timespec ts = { .tv_sec = (want - t) / 1000000000ull,
				       .tv_nsec = (want - t) % 1000000000ull };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	vcp_pwr_snap_clear(&p->last);
	r = vcp_power_read(p->r[1] ? p->r[1] : p->r[0], &p->last);
	if (r < 0) {
		keep_why(p);
		return r;
	}
	return vcp_power_figures(&p->first, &p->last, &th, ret);
}

const char *vcp_power_probe_why(const struct vcp_power_probe *p)
{
	return p->why[0] ? p->why : NULL;
}

void vcp_power_probe_clear(struct vcp_power_probe *p)
{
	for (int i = 0; i < 2; i++) {
		vcp_power_reader_close(p->r[i]);
		vcp_power_file_ops_free(p->fops[i]);
	}
	vcp_pwr_snap_clear(&p->first);
	vcp_pwr_snap_clear(&p->last);
	memset(p, 0, sizeof(*p));
}

const char *vcp_power_missing(enum vcp_power_source what, int err, char *buf,
			      size_t len)
{
	static const char *const names[] = { "energy", "C-state residency",
					     "cpuidle" };
	static const char *const absent[] = {
		"no powercap (RAPL) zone on this host (a guest, or no RAPL driver loaded)",
		"no cstate PMU (a guest, an AMD host, or a CPU the kernel's cstate driver does not know)",
		"no cpuidle states (no cpuidle driver)",
	};
	static const char *const denied[] = {
		"not root (energy_uj is readable only by root since the 2020 fix for a power side channel)",
		"not root (perf_event_open on the cstate PMUs needs root or CAP_PERFMON)",
		"not root",
	};

	if (!err)
		return NULL;
	if (err == -VCP_ENOTREG)
		snprintf(buf, len, "%s: a file of it is not a regular file",
			 names[what]);
	else if (err == -ENOENT)
		snprintf(buf, len, "%s: %s", names[what], absent[what]);
	else if (err == -EACCES || err == -EPERM)
		snprintf(buf, len, "%s: %s", names[what], denied[what]);
	else
		snprintf(buf, len, "%s: %s", names[what], strerror(-err));
	return buf;
}

/* Why source @i is unavailable: the file that made it so where the
 * reader named one (not for absent or root-only sources), else
 * vcp_power_missing()'s sentence. */
static const char *missing(const struct vcp_pwr_figs *f, int i, int err,
			   char *buf, size_t len)
{
	static const char *const names[] = { "energy", "C-state residency",
					     "cpuidle" };

	if (err && err != -ENOENT && err != -EACCES && err != -EPERM &&
	    f->src_why[i][0]) {
		snprintf(buf, len, "%s: %s", names[i], f->src_why[i]);
		return buf;
	}
	return vcp_power_missing(i, err, buf, len);
}

/* ---- text ---- */

static void text_states(FILE *out, const char *label,
			const struct vcp_pwr_state_fig *s, unsigned int n,
			bool upper)
{
	fprintf(out, "%s", label);
	for (unsigned int i = 0; i < n; i++) {
		fprintf(out, "%s", i ? ", " : " ");
		for (const char *c = s[i].state; upper && *c; c++)
			fputc(*c == 'c' ? 'C' : *c, out);
		if (!upper) /* a cpuidle state's name, as sysfs says it */
			vcp_esc_fputs(s[i].state, out);
		if (isnan(s[i].ratio))
			fputs(" ?", out);
		else
			fprintf(out, " %.1f%%", 100 * s[i].ratio);
	}
}

static void text_pkg(FILE *out, const struct vcp_pwr_pkg_figs *p)
{
	bool any = false;

	fprintf(out, "  package %d: %s", p->package,
		p->awake < 0 ? "awake or asleep: no figure" :
		p->awake ? "awake" : "asleep");
	if (p->awake >= 0)
		fprintf(out, " by %s", p->awake_by);
	fputc('\n', out);
	for (int k = 0; k < VCP_ZONE_N; k++) {
		if (isnan(p->watts[k]))
			continue;
		fprintf(out, "%s %s %.1f W", any ? "," : "    energy:  ",
			vcp_zone_kind_name(k), p->watts[k]);
		any = true;
	}
	if (any)
		fputc('\n', out);
	if (p->n_pc || p->n_cc) {
		text_states(out, "    C-states: package", p->pc, p->n_pc, true);
		text_states(out, "; core", p->cc, p->n_cc, true);
		fputc('\n', out);
	}
	if (p->n_cpus) {
		fprintf(out, "    cpuidle:  least idle CPU %.1f%% idle, mean %.1f%%;",
			100 * p->idle_min, 100 * p->idle_mean);
		text_states(out, " by state", p->idle, p->n_idle, false);
		fputc('\n', out);
	}
	if (!isnan(p->uncore_mhz))
		fprintf(out, "    uncore:   %.0f MHz (range %.0f-%.0f MHz)\n",
			p->uncore_mhz, p->uncore_min_mhz, p->uncore_max_mhz);
}

void vcp_power_text(FILE *out, const struct vcp_pwr_figs *f)
{
	const int errs[] = { f->energy_err, f->pmu_err, f->cpuidle_err };
	char buf[192];

	fprintf(out, "power:  measured over %.2f s (two reads of the counters)\n",
		f->interval_s);
	for (size_t i = 0; i < f->n_pkgs; i++)
		text_pkg(out, &f->pkgs[i]);
	if (!isnan(f->host_watts))
		fprintf(out,
			"  host: %.1f W (packages and dram%s), %u package%s awake by the figures\n",
			f->host_watts,
			f->n_lacking ? ", lacking zones below" : "", f->n_awake,
			f->n_awake == 1 ? "" : "s");
	for (size_t i = 0; i < f->n_lacking; i++)
		fprintf(out, "  lacking: zone %s (%s): %s\n", f->lacking[i].id,
			f->lacking[i].name, f->lacking[i].why);
	if (f->n_idle_bad)
		fprintf(out, "  cpuidle: %u CPU%s left out: %s\n",
			f->n_idle_bad, f->n_idle_bad == 1 ? "" : "s",
			f->idle_why);
	if (!isnan(f->psys_watts))
		fprintf(out, "  platform (psys): %.1f W\n", f->psys_watts);
	if (f->n_changed)
		fprintf(out, "  %u energy zone%s appeared or vanished between the reads (left out)\n",
			f->n_changed, f->n_changed == 1 ? "" : "s");
	for (int i = 0; i < 3; i++)
		if (missing(f, i, errs[i], buf, sizeof(buf)))
			fprintf(out, "  unavailable: %s\n", buf);
}

/* ---- JSON ---- */

static struct json_object *num(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

static struct json_object *states_json(const struct vcp_pwr_state_fig *s,
				       unsigned int n)
{
	struct json_object *o = json_object_new_object();

	for (unsigned int i = 0; i < n; i++)
		json_object_object_add(o, s[i].state, num(s[i].ratio));
	return o;
}

static struct json_object *pkg_json(const struct vcp_pwr_pkg_figs *p)
{
	struct json_object *o = json_object_new_object();
	struct json_object *w = json_object_new_object();
	struct json_object *j = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_int(p->package));
	for (int k = 0; k < VCP_ZONE_N; k++) {
		if (isnan(p->watts[k]))
			continue;
		json_object_object_add(w, vcp_zone_kind_name(k), num(p->watts[k]));
		json_object_object_add(j, vcp_zone_kind_name(k), num(p->joules[k]));
	}
	json_object_object_add(o, "watts", w);
	json_object_object_add(o, "joules", j);
	json_object_object_add(o, "package_cstates", states_json(p->pc, p->n_pc));
	json_object_object_add(o, "core_cstates", states_json(p->cc, p->n_cc));
	json_object_object_add(o, "cpuidle", states_json(p->idle, p->n_idle));
	json_object_object_add(o, "cpuidle_idle_min", num(p->idle_min));
	json_object_object_add(o, "cpuidle_idle_mean", num(p->idle_mean));
	json_object_object_add(o, "uncore_mhz", num(p->uncore_mhz));
	json_object_object_add(o, "uncore_min_mhz", num(p->uncore_min_mhz));
	json_object_object_add(o, "uncore_max_mhz", num(p->uncore_max_mhz));
	json_object_object_add(o, "awake", p->awake < 0 ? NULL :
			       json_object_new_boolean(p->awake));
	json_object_object_add(o, "awake_by", p->awake_by ?
			       json_object_new_string(p->awake_by) : NULL);
	return o;
}

/* The zones host_watts leaves out: [{zone, name, reason}]. */
static struct json_object *lacking_json(const struct vcp_pwr_figs *f)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < f->n_lacking; i++) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(
			e, "zone", json_object_new_string(f->lacking[i].id));
		json_object_object_add(
			e, "name", json_object_new_string(f->lacking[i].name));
		json_object_object_add(
			e, "reason", json_object_new_string(f->lacking[i].why));
		json_object_array_add(a, e);
	}
	return a;
}

struct json_object *vcp_power_json(const struct vcp_pwr_figs *f)
{
	static const char *const src[] = { "energy", "residency", "cpuidle" };
	const int errs[] = { f->energy_err, f->pmu_err, f->cpuidle_err };
	struct json_object *o = json_object_new_object();
	struct json_object *pk = json_object_new_array();
	struct json_object *un = json_object_new_array();
	char buf[192];

	for (size_t i = 0; i < f->n_pkgs; i++)
		json_object_array_add(pk, pkg_json(&f->pkgs[i]));
	for (int i = 0; i < 3; i++) {
		struct json_object *e;

		if (!missing(f, i, errs[i], buf, sizeof(buf)))
			continue;
		e = json_object_new_object();
		json_object_object_add(e, "source", json_object_new_string(src[i]));
		json_object_object_add(e, "reason", json_object_new_string(buf));
		json_object_array_add(un, e);
	}
	json_object_object_add(o, "interval_s", json_object_new_double(f->interval_s));
	json_object_object_add(o, "host_watts", num(f->host_watts));
	json_object_object_add(o, "host_joules", num(f->host_joules));
	json_object_object_add(o, "psys_watts", num(f->psys_watts));
	json_object_object_add(o, "awake_packages", json_object_new_int((int)f->n_awake));
	json_object_object_add(o, "zones_changed", json_object_new_int((int)f->n_changed));
	json_object_object_add(o, "zones_lacking", lacking_json(f));
	json_object_object_add(o, "cpuidle_cpus_left_out",
			       json_object_new_int((int)f->n_idle_bad));
	json_object_object_add(
		o, "cpuidle_left_out_why",
		f->n_idle_bad ? json_object_new_string(f->idle_why) : NULL);
	json_object_object_add(o, "packages", pk);
	json_object_object_add(o, "unavailable", un);
	return o;
}
