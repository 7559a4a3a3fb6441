// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_power.c - libFuzzer harness for the text the power reader parses
 * (powerread.c): every sysfs file it reads (energy_uj, ranges, cpumasks,
 * event strings, package ids, cpuidle times, uncore frequencies) and
 * every counter value. The tree's shape is a fixture's
 * (tests/data/power/intel-2s/t0: which zones, PMUs, CPUs exist); what
 * each file holds comes from the input, one line per read in turn. An
 * input starting with 'H' reads the cpuidle files as production does
 * (kept open, read_fd: the same parser must refuse what the by-path
 * reads refuse). Two reads then go through the pure arithmetic
 * (vcp_power_figures), which must give figures or refuse, never crash;
 * and what it gives is plausible: a zone kept has a range and a reading
 * inside it, a refused one says why, no zone's watts exceed
 * VCP_PWR_ZONE_MAX_W, every zone the host's total lacks is named.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <time.h>

#include "fuzz.h"
#include "power.h"
#include "powerread.h"

#define ROOT VCP_SRCDIR "/tests/data/power/intel-2s/t0"

struct feed {
	const char *text;	/* the input, lines */
	size_t size, off;
	uint64_t clock;
};

/* The next line of the input (wrapping around), as the file's text. */
static int next_line(struct feed *f, char *buf, size_t len)
{
	const char *p, *nl;
	size_t n;

	if (!f->size)
		return -ENOENT;
	if (f->off >= f->size)
		f->off = 0;
	p = f->text + f->off;
	nl = memchr(p, '\n', f->size - f->off);
	n = nl ? (size_t)(nl - p) : f->size - f->off;
	f->off += n + 1;
	if (n == 1 && *p == '!')
		return -EACCES;	/* a root-only file */
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return 0;
}

static int read_line(void *data, const char *path, char *buf, size_t len)
{
	return next_line(data, buf, len);
}

static int open_ctr(void *data, const char *pmu, const char *event,
		    uint32_t type, uint64_t config, int cpu, int *ret_handle)
{
	*ret_handle = cpu;
	return 0;
}

static int read_ctr(void *data, int handle, uint64_t *ret_value)
{
	char buf[32], *end;
	int r = next_line(data, buf, sizeof(buf));

	if (r < 0)
		return r;
	*ret_value = strtoull(buf, &end, 0);
	return *end ? -EINVAL : 0;
}

static void close_ctr(void *data, int handle)
{
}

static int open_file(void *data, const char *path, int *ret_fd)
{
	*ret_fd = 0;
	return 0;
}

static int read_fd(void *data, int fd, char *buf, size_t len)
{
	return next_line(data, buf, len);
}

/* What the reader kept is plausible, and what it refused says why. */
static void check_snap(const struct vcp_pwr_snap *s)
{
	for (size_t i = 0; i < s->n_zones; i++) {
		const struct vcp_pwr_zone *z = &s->zones[i];

		FUZZ_CHECK(z->err || (z->max_uj > 0 && z->energy_uj <= z->max_uj));
		FUZZ_CHECK(!z->err || z->why[0] || z->err == -EACCES);
	}
}

static void check_figs(const struct vcp_pwr_snap *b,
		       const struct vcp_pwr_figs *f)
{
	FUZZ_CHECK(f->n_lacking <= b->n_zones);
	for (size_t i = 0; i < f->n_lacking; i++)
		FUZZ_CHECK(f->lacking[i].id[0]);
	for (size_t i = 0; i < f->n_pkgs; i++)
		for (int k = 0; k < VCP_ZONE_N; k++)
			FUZZ_CHECK(isnan(f->pkgs[i].joules[k]) ||
				   f->pkgs[i].joules[k] >= 0);
	FUZZ_CHECK(isnan(f->host_watts) ||
		   (f->host_watts >= 0 &&
		    f->host_watts <= VCP_PWR_ZONE_MAX_W * (double)b->n_zones + 1e-6));
	for (size_t i = 0; i < f->n_pkgs; i++)
		FUZZ_CHECK(isnan(f->pkgs[i].idle_min) ||
			   (f->pkgs[i].idle_min >= 0 && f->pkgs[i].idle_min <= 1));
}

static uint64_t now_ns(void *data)
{
	struct feed *f = data;

	return f->clock += 1000000000ull;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct feed f = { (const char *)data, size, 0, 0 };
	bool held = size && data[0] == 'H';
	const struct vcp_power_ops ops = {
		.read_line = read_line, .open = open_ctr, .read = read_ctr,
		.close = close_ctr, .now_ns = now_ns, .data = &f,
		.open_file = held ? open_file : NULL,
		.read_fd = held ? read_fd : NULL,
		.close_file = held ? close_ctr : NULL,
	};
	const struct vcp_pwr_thresholds th = VCP_PWR_THRESHOLDS_DEFAULT;
	struct vcp_pwr_snap a = { 0 }, b = { 0 };
	struct vcp_pwr_figs figs = { 0 };
	struct vcp_power_reader *r = NULL;
	int e;

	FUZZ_CHECK(vcp_power_reader_open(ROOT, &ops, &r) == 0);
	FUZZ_CHECK(vcp_power_read(r, &a) == 0);
	FUZZ_CHECK(vcp_power_read(r, &b) == 0);
	FUZZ_CHECK(b.t_ns > a.t_ns);
	check_snap(&a);
	check_snap(&b);
	e = vcp_power_figures(&a, &b, &th, &figs);
	FUZZ_CHECK(e == 0 || e == -EINVAL || e == -ERANGE);
	if (e == 0)
		check_figs(&b, &figs);
	if (e == 0)
		vcp_pwr_figs_clear(&figs);
	vcp_pwr_snap_clear(&a);
	vcp_pwr_snap_clear(&b);
	vcp_power_reader_close(r);
	return 0;
}
