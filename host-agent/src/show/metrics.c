// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * metrics.c - render vcpack's figures as Prometheus text exposition
 * (pure: vcp_metrics_render) and write them where node_exporter's
 * textfile collector reads them (vcp_metrics_write: NAME.prom.PID, then
 * rename, so a reader never sees half a file). A family is written only
 * when it has a sample; an unreadable source has no sample (never 0)
 * and vcpack_power_source_available says which.
 */
#include "metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "planner.h"

struct fam {
	FILE *f;
	const char *name, *type, *help;
	bool started;
};

static void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* One sample: @labels is "k=v" pairs as alternating strings, NULL-ended. */
static void sample(struct fam *m, double v, const char *const *labels)
{
	if (!m->started) {
		fprintf(m->f, "# HELP %s %s\n# TYPE %s %s\n", m->name, m->help,
			m->name, m->type);
		m->started = true;
	}
	fputs(m->name, m->f);
	for (size_t i = 0; labels && labels[i]; i += 2) {
		fprintf(m->f, "%s%s=\"", i ? "," : "{", labels[i]);
		esc(m->f, labels[i + 1]);
		fputc('"', m->f);
	}
	if (labels && labels[0])
		fputc('}', m->f);
	fprintf(m->f, " %.15g\n", v);
}

#define FAM(f, n, t, h) ((struct fam){ (f), (n), (t), (h), false })

/* ---- power ---- */

static void energy(FILE *f, const struct vcp_pwr_snap *s)
{
	struct fam m = FAM(f, "vcpack_energy_joules_total", "counter",
		"Energy counted by the powercap (RAPL) zone (vcpackd: since it started, wraps folded in; vcpack metrics: the raw counter, which wraps at max_energy_range_uj).");

	for (size_t i = 0; i < s->n_zones; i++) {
		const struct vcp_pwr_zone *z = &s->zones[i];
		uint64_t uj = 0;
		bool first = true, bad = false;
		char pkg[16];

		/* one sample per package and kind (dies summed) */
		for (size_t k = 0; k < s->n_zones; k++) {
			const struct vcp_pwr_zone *o = &s->zones[k];

			if (o->package != z->package || o->kind != z->kind ||
			    (z->kind == VCP_ZONE_OTHER && strcmp(o->name, z->name)))
				continue;
			first &= k >= i;
			uj += o->energy_uj;
			bad |= o->err != 0;
		}
		if (!first || bad)
			continue;
		snprintf(pkg, sizeof(pkg), "%d", z->package);
		const char *kind = z->kind == VCP_ZONE_OTHER ? z->name :
				   vcp_zone_kind_name(z->kind);
		const char *l[] = { "package", pkg, "zone", kind, NULL };
		sample(&m, (double)uj / 1e6, z->package < 0 ? l + 2 : l);
	}
}

/* Has a CPU of package @pkg no cpuidle reading? Its sum would be
 * smaller than the last one, and Prometheus takes a counter that goes
 * down for a reset: no sample then. */
static bool pkg_bad(const struct vcp_pwr_snap *s, int pkg)
{
	for (size_t c = 0; c < s->n_cpus; c++)
		if (s->cpus[c].package == pkg && s->cpus[c].err)
			return true;
	return false;
}

static void cpuidle(FILE *f, const struct vcp_pwr_snap *s)
{
	struct fam t = FAM(f, "vcpack_cpuidle_residency_seconds_total", "counter",
		"Time the package's CPUs spent in the cpuidle state, summed over its CPUs (the OS view).");
	struct fam u = FAM(f, "vcpack_cpuidle_entries_total", "counter",
		"Entries into the cpuidle state, summed over the package's CPUs.");
	int *pkgs = malloc((s->n_cpus ? s->n_cpus : 1) * sizeof(*pkgs));
	size_t n = 0;

	if (!pkgs)
		return; /* out of memory: the family stays empty */
	/* every package, however many a wide host has */
	for (size_t c = 0; c < s->n_cpus; c++) {
		size_t k;

		for (k = 0; k < n && pkgs[k] != s->cpus[c].package; k++)
			;
		if (k == n && s->cpus[c].package >= 0)
			pkgs[n++] = s->cpus[c].package;
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t p = 0; p < n; p++)
			for (unsigned int k = 0; k < s->n_idle; k++) {
				uint64_t v = 0;
				char pkg[16];

				if (pkg_bad(s, pkgs[p]))
					continue;
				for (size_t c = 0; c < s->n_cpus; c++)
					if (s->cpus[c].package == pkgs[p])
						v += pass ? s->cpus[c].usage[k] :
						     s->cpus[c].time_us[k];
				snprintf(pkg, sizeof(pkg), "%d", pkgs[p]);
				const char *l[] = { "package", pkg, "state",
						    s->idle_names[k], NULL };
				sample(pass ? &u : &t, pass ? (double)v : v / 1e6, l);
			}
	free(pkgs);
}

/* Each zone that could not be read (or read implausibly) and the CPUs
 * whose cpuidle files could not be read, with why (the file named). */
static void unreadable(FILE *f, const struct vcp_pwr_snap *s)
{
	struct fam z = FAM(
		f, "vcpack_power_zone_unreadable", "gauge",
		"1 for a powercap zone whose energy_uj or max_energy_range_uj could not be read or was implausible at the last read (reason names the file).");
	struct fam c = FAM(
		f, "vcpack_cpuidle_cpus_unreadable", "gauge",
		"CPUs whose cpuidle files could not be read at the last read (reason: the first one's file and why).");
	unsigned int n = 0;

	for (size_t i = 0; i < s->n_zones; i++) {
		const char *l[] = { "zone",   s->zones[i].id,
				    "name",   s->zones[i].name,
				    "reason", s->zones[i].why,
				    NULL };

		if (s->zones[i].err && s->zones[i].err != -EACCES &&
		    s->zones[i].err != -EPERM)
			sample(&z, 1, l);
	}
	for (size_t i = 0; i < s->n_cpus; i++)
		n += s->cpus[i].err != 0;
	if (n) {
		const char *l[] = { "reason", s->cpuidle_why, NULL };

		sample(&c, n, l);
	}
}

static void sources(FILE *f, const struct vcp_pwr_snap *s)
{
	struct fam m = FAM(f, "vcpack_power_source_available", "gauge",
		"1 when vcpack could read the source (energy: powercap; residency: perf cstate PMUs; cpuidle), 0 when absent or root-only.");
	const char *names[] = { "energy", "residency", "cpuidle" };
	int errs[] = { s->zones_err, s->pmu_err, s->cpuidle_err };
	bool energy_ok = false;

	for (size_t i = 0; i < s->n_zones; i++)
		energy_ok |= s->zones[i].err == 0;
	for (int i = 0; i < 3; i++) {
		const char *l[] = { "source", names[i], NULL };

		sample(&m, i == 0 ? energy_ok : errs[i] == 0, l);
	}
	unreadable(f, s);
}

/* The zones the host's total lacks, and the CPUs the cpuidle figures
 * leave out, with why: a total is never smaller without a word. */
static void lacking(FILE *f, const struct vcp_pwr_figs *g)
{
	struct fam z = FAM(
		f, "vcpack_power_zone_lacking", "gauge",
		"1 for a package or dram zone left out of vcpack_host_power_watts over the last interval (unreadable or implausible: reason says).");
	struct fam c = FAM(
		f, "vcpack_cpuidle_cpus_left_out", "gauge",
		"CPUs left out of the cpuidle figures over the last interval (reason: the first one's).");

	for (size_t i = 0; i < g->n_lacking; i++) {
		const char *l[] = { "zone",   g->lacking[i].id,
				    "name",   g->lacking[i].name,
				    "reason", g->lacking[i].why,
				    NULL };

		sample(&z, 1, l);
	}
	if (g->n_idle_bad) {
		const char *l[] = { "reason", g->idle_why, NULL };

		sample(&c, g->n_idle_bad, l);
	}
}

static void figures(FILE *f, const struct vcp_pwr_figs *g)
{
	struct fam w = FAM(f, "vcpack_power_watts", "gauge",
		"Mean power of the zone over vcpack's last interval between two reads.");
	struct fam h = FAM(f, "vcpack_host_power_watts", "gauge",
		"Mean power of all package and dram zones over the last interval.");
	struct fam r = FAM(f, "vcpack_cstate_residency_ratio", "gauge",
		"Share of the last interval in the hardware C-state (perf cstate PMUs; core: mean over the package's cores).");
	struct fam u = FAM(f, "vcpack_uncore_frequency_hertz", "gauge",
		"Uncore clock of the package (mean over its dies).");
	struct fam a = FAM(f, "vcpack_package_awake", "gauge",
		"1 when the package was awake over the last interval by its C-state or cpuidle figures, 0 asleep.");
	struct fam n = FAM(f, "vcpack_packages_awake", "gauge",
		"Packages awake by the figures over the last interval.");
	char pkg[16];

	for (size_t i = 0; i < g->n_pkgs; i++) {
		const struct vcp_pwr_pkg_figs *p = &g->pkgs[i];

		snprintf(pkg, sizeof(pkg), "%d", p->package);
		for (int k = 0; k < VCP_ZONE_N; k++) {
			const char *l[] = { "package", pkg, "zone",
					    vcp_zone_kind_name(k), NULL };
			if (!isnan(p->watts[k]))
				sample(&w, p->watts[k], l);
		}
	}
	if (!isnan(g->host_watts))
		sample(&h, g->host_watts, NULL);
	lacking(f, g);
	for (size_t i = 0; i < g->n_pkgs; i++) {
		const struct vcp_pwr_pkg_figs *p = &g->pkgs[i];

		snprintf(pkg, sizeof(pkg), "%d", p->package);
		for (int core = 0; core < 2; core++)
			for (unsigned int k = 0; k < (core ? p->n_cc : p->n_pc); k++) {
				const struct vcp_pwr_state_fig *s =
					core ? &p->cc[k] : &p->pc[k];
				const char *l[] = { "package", pkg, "scope",
						    core ? "core" : "package",
						    "state", s->state, NULL };
				if (!isnan(s->ratio))
					sample(&r, s->ratio, l);
			}
	}
	for (size_t i = 0; i < g->n_pkgs; i++) {
		const char *l[] = { "package", pkg, NULL };

		snprintf(pkg, sizeof(pkg), "%d", g->pkgs[i].package);
		if (!isnan(g->pkgs[i].uncore_mhz))
			sample(&u, g->pkgs[i].uncore_mhz * 1e6, l);
	}
	for (size_t i = 0; i < g->n_pkgs; i++) {
		const char *l[] = { "package", pkg, NULL };

		snprintf(pkg, sizeof(pkg), "%d", g->pkgs[i].package);
		if (g->pkgs[i].awake >= 0)
			sample(&a, g->pkgs[i].awake, l);
	}
	sample(&n, g->n_awake, NULL);
}

/* ---- VMs ---- */

static void vms(FILE *f, const struct vcp_metrics_in *in)
{
	struct fam c = FAM(f, "vcpack_vm_class", "gauge",
		"1 for the VM's vcpack class (spread, balanced, pack; untouched: a bad tag, left alone).");
	struct fam v = FAM(f, "vcpack_vm_vcpus", "gauge", "vCPUs of the VM.");
	struct fam run = FAM(f, "vcpack_vcpu_run_seconds_total", "counter",
		"Time the VM's vCPUs ran on a host CPU (libvirt vcpu.N.time), summed over its vCPUs.");
	struct fam wait = FAM(f, "vcpack_vcpu_wait_seconds_total", "counter",
		"Time the VM's vCPUs were runnable but waited for a host CPU (libvirt vcpu.N.delay; steal in the guest), summed.");
	struct fam wr = FAM(f, "vcpack_vcpu_wait_ratio", "gauge",
		"Mean share of time the VM's vCPUs waited for a host CPU over vcpack's last sample.");

	for (size_t i = 0; i < in->n_vms; i++) {
		const struct vcp_vm *vm = &in->vms[i];
		const char *cls = !vm->managed || !in->policy ? "untouched" :
			vcp_class_name(vcp_plan_vm_class(vm, in->policy));
		const char *l[] = { "vm", vm->name, "class", cls, NULL };

		sample(&c, 1, l);
	}
	for (size_t i = 0; i < in->n_vms; i++) {
		const char *l[] = { "vm", in->vms[i].name, NULL };

		sample(&v, in->vms[i].n_vcpus, l);
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; in->sample && i < in->sample->n_vms; i++) {
			const struct vcp_vcpu_sample *s = &in->sample->vms[i];
			const char *l[] = { "vm", s->name, NULL };
			double t = 0;

			if (!in->sample->have_vcpu_time)
				break;
			for (unsigned int k = 0; k < s->n_vcpus; k++)
				t += (pass ? s->delay_ns[k] : s->time_ns[k]) / 1e9;
			sample(pass ? &wait : &run, t, l);
		}
	for (size_t i = 0; i < in->n_vms; i++) {
		const char *l[] = { "vm", in->vms[i].name, NULL };

		if (in->vms[i].delay >= 0)
			sample(&wr, in->vms[i].delay, l);
	}
}

int vcp_metrics_render(const struct vcp_metrics_in *in, char **ret_text)
{
	struct fam lv;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return -ENOMEM;
	lv = FAM(f, "vcpack_level", "gauge",
		 "Consolidation level in force (sched_mc_power_savings in kernel mode, the plan's level in pin mode).");
	if (in->level >= 0)
		sample(&lv, in->level, NULL);
	vms(f, in);
	if (in->snap) {
		sources(f, in->snap);
		energy(f, in->snap);
		cpuidle(f, in->snap);
	}
	if (in->figs)
		figures(f, in->figs);
	if (fclose(f) != 0 || !buf) {
		free(buf);
		return -ENOMEM;
	}
	*ret_text = buf;
	return 0;
}

int vcp_metrics_write(const char *dir, const char *name, const char *text)
{
	char tmp[4096], path[4096];
	size_t len = strlen(text);
	ssize_t n;
	int fd, r = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s.prom", dir, name) >=
	    sizeof(path) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid()) >=
	    sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	for (size_t off = 0; off < len && r == 0; off += (size_t)n) {
		n = write(fd, text + off, len - off);
		if (n < 0)
			r = -errno;
	}
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}
