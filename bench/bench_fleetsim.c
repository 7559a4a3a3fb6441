// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_fleetsim.c - a modelled day of fleet host standby: the simulator
 * (host-agent/src/fleet/fleetsim.c) replays two diurnal days of per-VM
 * demand and counts the second (so that it starts from the state the first
 * left, as a loop that runs for days would)
 * over generated fleets of 100 and 1000 hosts under no consolidation,
 * vcpack's standby loop, the same thresholds without classes (DPM-like)
 * and Watcher-style first fit, all on the same trace, and prints one
 * table (markdown) with energy saved and shortfall minutes side by side.
 *
 * The fleet (fixed seed): two-socket hosts, 16 cores x 2 threads per
 * socket, 512 GiB; 12-28 guests each of 1-8 vCPUs and 2-16 GiB, 3% of
 * them `spread`; each guest peaks at 0.05-0.5 per vCPU around 14:00
 * (+- 90 min), falls to a quarter of that at night, +- 15% noise a minute.
 * Power (modelled, not measured): the fleet file's defaults (100 W a
 * host + 40 W a package idle), + 200 W at full load, 8 W in standby.
 * The standby policy is the fleet file's default (DPM's band and holds,
 * one spare host, 10 migrations per host and hour, 4 per round), every
 * host libvirt-suspend; decisions every minute (the loop's default), and
 * every 5 minutes (DRS's period) in one 100-host run; wake latency 5
 * minutes, and 15 in another (with the wake deadline raised to 30
 * minutes: at its default of 10 every woken host would count as failed).
 *
 * Usage: bench_fleetsim [OUTDIR [--quick]] (--quick: the 100-host runs
 * only): also writes OUTDIR/results.csv,
 * OUTDIR/table.md and OUTDIR/day-100.csv (per minute: demand and hosts
 * on under each policy) for a plot. Figures only: exits 0 unless it
 * cannot run.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "clock.h"
#include "fleetsim.h"

#define MINUTES 1440

static const char *const mode_name[] = { "none", "vcpack", "dpm-like",
					  "first-fit" };

struct gen {
	uint64_t s;
};

static unsigned int rnd(struct gen *g, unsigned int n)
{
	g->s = g->s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned int)((g->s >> 33) % n);
}

static struct json_object *gen_vm(struct gen *g, size_t h, size_t v,
				  double *peak)
{
	struct json_object *o = json_object_new_object();
	char name[64];

	snprintf(name, sizeof(name), "vm-%zu-%zu", h, v);
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "vcpus", json_object_new_int(1 + (int)rnd(g, 8)));
	json_object_object_add(o, "mem_mib",
			       json_object_new_int(2048 * (1 + (int)rnd(g, 8))));
	if (rnd(g, 100) < 3)
		json_object_object_add(o, "class",
				       json_object_new_string("spread"));
	*peak = 0.05 + rnd(g, 46) / 100.0;
	return o;
}

static struct json_object *gen_fleet(size_t n, uint64_t seed, double **peak,
				     size_t *ret_nv)
{
	struct json_object *o = json_object_new_object();
	struct json_object *hosts = json_object_new_array();
	struct gen g = { seed };
	size_t nv = 0, cap = 64;

	*peak = malloc(cap * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		struct json_object *h = json_object_new_object();
		struct json_object *vms = json_object_new_array();
		size_t k = 12 + rnd(&g, 17);
		char name[32];

		snprintf(name, sizeof(name), "host%04zu", i);
		json_object_object_add(h, "name", json_object_new_string(name));
		json_object_object_add(h, "cpu", json_object_new_string("Skylake"));
		json_object_object_add(h, "mem_mib", json_object_new_int(524288));
		json_object_object_add(h, "host", json_tokener_parse(
			"{\"packages\": 2, \"cores\": 16, \"threads\": 2}"));
		for (size_t v = 0; v < k; v++, nv++) {
			if (nv == cap)
				*peak = realloc(*peak, (cap *= 2) * sizeof(double));
			json_object_array_add(vms, gen_vm(&g, i, v, &(*peak)[nv]));
		}
		json_object_object_add(h, "vms", vms);
		json_object_array_add(hosts, h);
	}
	json_object_object_add(o, "hosts", hosts);
	*ret_nv = nv;
	return o;
}

struct run {
	size_t hosts;
	unsigned int latency, interval;
	struct vcp_sim_result r[4];
	double secs[4];
};

static void row(FILE *f, const struct run *u, int m)
{
	const struct vcp_sim_result *r = &u->r[m];
	double base = u->r[0].energy_wh;

	fprintf(f, "| %zu | %u min | %u min | %s | %.0f | %zu (%zu spread) | %zu | %zu | %zu | %zu | %.1f | %.1f%% |\n",
		u->hosts, u->interval, u->latency, mode_name[m], r->standby_host_hours,
		r->migrations, r->spread_migrations, r->wakeups,
		r->shortfall_minutes, r->overload_host_minutes,
		r->min_hosts_on, r->energy_wh / 1000,
		base > 0 ? 100 * (base - r->energy_wh) / base : 0);
}

static void header(FILE *f)
{
	fprintf(f, "| hosts | decisions every | wake latency | policy | standby host-hours | migrations | wake-ups | shortfall minutes | overloaded host-minutes | fewest hosts on | energy kWh (modelled) | saved |\n");
	fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
}

static int one(struct run *u, const char *outdir, bool series)
{
	struct vcp_fleet_input *in = NULL;
	struct vcp_sb_cfg cfg;
	double *peak = NULL, *dem = NULL;
	unsigned int *on[4] = { 0 };
	const char **names;
	size_t nv;
	struct json_object *o = gen_fleet(u->hosts, 20261203, &peak, &nv);
	struct json_object *sb = json_object_new_object();
	struct vcp_sim_diurnal d = { 42, peak, 0.25, 0.15, 840, 90 };
	char *err = NULL;
	int r = vcp_fleet_input_from_json(o, &in, &err);

	json_object_put(o);
	if (r < 0) {
		fprintf(stderr, "bench_fleetsim: %s\n", err);
		return r;
	}
	names = calloc(in->n_hosts, sizeof(*names));
	for (size_t i = 0; i < in->n_hosts; i++)
		names[i] = in->names[i];
	r = vcp_sb_cfg_parse(sb, "bench", names, in->n_hosts, &cfg, &err);
	json_object_put(sb);
	free(names);
	if (r < 0)
		return r;
	for (size_t i = 0; i < cfg.n_hosts; i++)
		cfg.hosts[i].action = VCP_SB_ACTION_LIBVIRT;
	cfg.interval_s = u->interval * 60;
	/* a host slower to wake than the deadline would be marked failed */
	if (cfg.wake_deadline_s < 2 * 60 * u->latency)
		cfg.wake_deadline_s = 2 * 60 * u->latency;
	if (series)
		dem = calloc(MINUTES, sizeof(*dem));
	for (int m = 0; m < 4 && r == 0; m++) {
		struct vcp_sim_params p = {
			.mode = (enum vcp_sim_mode)m, .minutes = MINUTES,
			.warmup_min = MINUTES,
			.interval_min = cfg.interval_s / 60,
			.wake_latency_min = u->latency, .host_watts = 100,
			.package_watts = 40, .busy_watts = 200,
			.standby_watts = 8, .cfg = &cfg,
			.demand = vcp_sim_diurnal_demand, .arg = &d,
			.ret_demand = dem,
		};
		double t0 = vcp_mono_s();

		if (series)
			p.ret_hosts_on = on[m] = calloc(MINUTES, sizeof(**on));
		r = vcp_sim_run(in, &p, &u->r[m]);
		u->secs[m] = vcp_mono_s() - t0;
		fprintf(stderr, "bench_fleetsim: %zu hosts, %zu VMs, %s: %.1f s\n",
			u->hosts, nv, mode_name[m], u->secs[m]);
	}
	if (series && r == 0) {
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s/day-%zu.csv", outdir, u->hosts);
		f = fopen(path, "w");
		if (f) {
			fprintf(f, "minute,demand_cpus,on_none,on_vcpack,on_dpm_like,on_first_fit\n");
			for (unsigned int t = 0; t < MINUTES; t++)
				fprintf(f, "%u,%.2f,%u,%u,%u,%u\n", t, dem[t],
					on[0][t], on[1][t], on[2][t], on[3][t]);
			fclose(f);
		}
	}
	for (int m = 0; m < 4; m++)
		free(on[m]);
	free(dem);
	free(peak);
	vcp_sb_cfg_clear(&cfg);
	vcp_fleet_input_free(in);
	return r;
}

static void write_out(const char *outdir, const struct run *runs, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/table.md", outdir);
	f = fopen(path, "w");
	if (f) {
		header(f);
		for (size_t k = 0; k < n; k++)
			for (int m = 0; m < 4; m++)
				row(f, &runs[k], m);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/results.csv", outdir);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "hosts,interval_min,wake_latency_min,policy,standby_host_hours,migrations,spread_migrations,wakeups,shortfall_minutes,overload_host_minutes,min_hosts_on,energy_kwh_modelled,demand_cpu_hours,seconds\n");
	for (size_t k = 0; k < n; k++)
		for (int m = 0; m < 4; m++) {
			const struct vcp_sim_result *r = &runs[k].r[m];

			fprintf(f, "%zu,%u,%u,%s,%.2f,%zu,%zu,%zu,%zu,%zu,%zu,%.3f,%.1f,%.2f\n",
				runs[k].hosts, runs[k].interval,
				runs[k].latency, mode_name[m],
				r->standby_host_hours, r->migrations,
				r->spread_migrations, r->wakeups,
				r->shortfall_minutes, r->overload_host_minutes,
				r->min_hosts_on, r->energy_wh / 1000,
				r->demand_cpu_hours, runs[k].secs[m]);
		}
	fclose(f);
}

int main(int argc, char **argv)
{
	const char *outdir = argc > 1 ? argv[1] : "build/bench/fleetsim";
	struct run runs[] = { { .hosts = 100, .latency = 5, .interval = 1 },
			      { .hosts = 100, .latency = 15, .interval = 1 },
			      { .hosts = 100, .latency = 5, .interval = 5 },
			      { .hosts = 1000, .latency = 5, .interval = 1 } };
	size_t n = argc > 2 && !strcmp(argv[2], "--quick") ? 3 : 4;

	mkdir(outdir, 0755);
	for (size_t k = 0; k < n; k++)
		if (one(&runs[k], outdir, k == 0) < 0)
			return 1;
	header(stdout);
	for (size_t k = 0; k < n; k++)
		for (int m = 0; m < 4; m++)
			row(stdout, &runs[k], m);
	write_out(outdir, runs, n);
	return 0;
}
