// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * powerread.c - the I/O half of the power module (see powerread.h):
 * discovers powercap zones, the perf cstate PMUs, cpuidle states and
 * uncore domains under a sysfs root, keeps the residency counters open,
 * and fills a struct vcp_pwr_snap at each read. Library code: no logs;
 * what could not be read is an error code in the snapshot, never a zero.
 */
#include "powerread.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cpuset.h"
#include "powerfixture.h"
#include "rdfile.h"
#include "sysfile.h"

#define PMU_DIR "bus/event_source/devices"
#define CPU_DIR "devices/system/cpu"
#define RAPL_DIR "class/powercap"
#define UNCORE_DIR CPU_DIR "/intel_uncore_frequency"

struct res_src {
	int package;
	bool core;
	char state[8];
	size_t first, n;	/* handles[first..first+n) */
};

struct tsc_src {
	int package;
	int handle;
	int err;
};

struct uncore_src {
	char dir[64];
	int package, die;
};

struct vcp_power_reader {
	char root[PATH_MAX - 128];
	const struct vcp_power_ops *ops;
	int pkg_of[VCP_MAX_CPUS];	/* -2 not read yet, -1 unknown */
	int pmu_err;
	struct res_src *res;
	size_t n_res;
	int *handles;
	size_t n_handles;
	struct tsc_src *tsc;
	size_t n_tsc;
	int cpuidle_err;
	int *cpus;
	size_t n_cpus;
	int *idle_fds;		/* [cpu][state][time, usage], -1 by path */
	size_t n_held, max_held;
	char idle_names[VCP_PWR_MAX_STATES][16];
	unsigned int n_idle;
	struct uncore_src *unc;
	size_t n_unc;
	char last_why[192]; /* the last file that failed, and why */
	char pmu_why[192]; /* why the residency counters are not read */
	char cpuidle_why[192]; /* why cpuidle is not read */
};

/* A reason into @buf, cut at @len: the file is named first, so a cut
 * keeps it. */
__attribute__((format(printf, 3, 4))) static void say(char *buf, size_t len,
						      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* ---- the production ops ---- */

static int perf_read_line(void *data, const char *path, char *buf, size_t len)
{
	return vcp_read_line(path, buf, len);
}

static int perf_open(void *data, const char *pmu, const char *event,
		     uint32_t type, uint64_t config, int cpu, int *ret_handle)
{
	struct perf_event_attr attr = { .type = type, .size = sizeof(attr),
					.config = config };
	long fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	*ret_handle = (int)fd;
	return 0;
}

static int perf_read(void *data, int handle, uint64_t *ret_value)
{
	uint64_t v;
	ssize_t n = read(handle, &v, sizeof(v));

	if (n < 0)
		return -errno;
	if (n != sizeof(v))
		return -EIO;
	*ret_value = v;
	return 0;
}

static void perf_close(void *data, int handle)
{
	close(handle);
}

static int perf_open_file(void *data, const char *path, int *ret_fd)
{
	return vcp_open_regular(path, ret_fd, NULL);
}

/* sysfs shows an attribute afresh at each read from offset 0. */
static int perf_read_fd(void *data, int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* The ops' clock (vcp_power_ops.now_ns: tests fix it). */
static uint64_t mono_ns(void *data)
{
	return vcp_mono_ns();
}

const struct vcp_power_ops vcp_power_perf_ops = {
	.read_line = perf_read_line, .open = perf_open, .read = perf_read,
	.close = perf_close, .now_ns = mono_ns,
	.open_file = perf_open_file, .read_fd = perf_read_fd,
	.close_file = perf_close,
};

/* ---- the fixture ops: counters in files ---- */

struct file_ops {
	struct vcp_power_ops ops;
	char root[PATH_MAX - 128];
	char **paths;
	size_t n_paths;
	uint64_t now_ns;	/* the clock's last reading, 0 before any */
	struct vcp_fixture_counters computed;
	char clock_why[4096]; /* why clock_ns is no clock */
};

static uint64_t file_now(void *data);

/* A "!watts ..." counter (powerfixture.h) at the time of the last clock
 * reading: vcp_power_read() takes the time first, so its energy figures
 * are exact on that time however late the read runs. */
static int file_computed(struct file_ops *f, const char *path, char *buf,
			 size_t len)
{
	char line[PATH_MAX + 256];
	uint64_t uj;
	int r = vcp_read_line(path, line, sizeof(line));

	if (r == 0)
		r = vcp_fixture_watts_read(&f->computed, path, line,
					   f->now_ns ? f->now_ns : file_now(f),
					   &uj);
	if (r < 0)
		return r;
	snprintf(buf, len, "%" PRIu64, uj);
	return 0;
}

/* A fixture file whose first line is "!EACCES" (or !EPERM, !EIO) reads
 * as that error: a root-only file, also when the tests run as root; one
 * that says "!watts ..." is a counter computed at the read. */
static const char *file_why(void *data)
{
	struct file_ops *f = data;

	return f->clock_why[0] ? f->clock_why : NULL;
}

static int file_read_line(void *data, const char *path, char *buf, size_t len)
{
	int r = vcp_read_line(path, buf, len);

	if (r == 0 && vcp_fixture_is_watts(buf))
		return file_computed(data, path, buf, len);
	if (r == 0 && buf[0] == '!') {
		if (!strcmp(buf, "!EACCES"))
			return -EACCES;
		if (!strcmp(buf, "!EPERM"))
			return -EPERM;
		return -EIO;
	}
	return r;
}

static int file_read(void *data, int handle, uint64_t *ret_value)
{
	struct file_ops *f = data;
	char buf[32];
	uint64_t v;
	int r;

	if (handle < 0 || (size_t)handle >= f->n_paths)
		return -EBADF;
	r = file_read_line(f, f->paths[handle], buf, sizeof(buf));
	if (r == 0)
		r = vcp_parse_u64(buf, &v);
	if (r < 0)
		return r;
	*ret_value = v;
	return 0;
}

static int file_open(void *data, const char *pmu, const char *event,
		     uint32_t type, uint64_t config, int cpu, int *ret_handle)
{
	struct file_ops *f = data;
	char path[PATH_MAX], **p;
	uint64_t v;
	int r;

	snprintf(path, sizeof(path), "%s/vcpack-counters/%s/%s/cpu%d", f->root,
		 pmu, event, cpu);
	p = realloc(f->paths, (f->n_paths + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	f->paths = p;
	p[f->n_paths] = strdup(path);
	if (!p[f->n_paths])
		return -ENOMEM;
	r = file_read(f, (int)f->n_paths++, &v);
	if (r < 0) {
		free(p[--f->n_paths]);
		return r;
	}
	*ret_handle = (int)f->n_paths - 1;
	return 0;
}

static void file_close(void *data, int handle)
{
}

/* The fixture's clock (vcpack-counters/clock_ns) where it has one;
 * kept for the computed counters. */
static uint64_t file_now(void *data)
{
	struct file_ops *f = data;
	char path[PATH_MAX], buf[32];
	uint64_t v;
	int r;

	snprintf(path, sizeof(path), "%s/vcpack-counters/clock_ns", f->root);
	r = vcp_read_line(path, buf, sizeof(buf));
	if (r == -ENOENT)
		return f->now_ns = mono_ns(data);
	if (r < 0) {
		vcp_read_why(path, r, f->clock_why, sizeof(f->clock_why));
		return 0;
	}
	/* "-5" or garbage is no clock: 0 (vcp_power_read refuses it) */
	if (vcp_parse_u64(buf, &v) < 0 || v == 0 || v > INT64_MAX) {
		say(f->clock_why, sizeof(f->clock_why),
		    "%s: not a clock (nanoseconds, 1 to 2^63-1): '%s'", path,
		    buf);
		return 0;
	}
	f->now_ns = v;
	return v;
}

int vcp_power_file_ops_new(const char *root, struct vcp_power_ops **ret)
{
	struct file_ops *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	snprintf(f->root, sizeof(f->root), "%s", root);
	f->ops = (struct vcp_power_ops){
		.read_line = file_read_line,
		.open = file_open,
		.read = file_read,
		.close = file_close,
		.now_ns = file_now,
		.clock_why = file_why,
		.data = f,
	};
	*ret = &f->ops;
	return 0;
}

void vcp_power_file_ops_free(struct vcp_power_ops *ops)
{
	struct file_ops *f = (struct file_ops *)ops;

	if (!f)
		return;
	for (size_t i = 0; i < f->n_paths; i++)
		free(f->paths[i]);
	free(f->paths);
	vcp_fixture_counters_clear(&f->computed);
	free(f);
}

/* ---- small readers ---- */

static void why_rel(struct vcp_power_reader *r, const char *rel, int e,
		    const char *text, char *why, size_t len);

/* The first line of ROOT/@rel; a failure other than absence is kept in
 * r->last_why ("REL: reason"). */
static int rd(struct vcp_power_reader *r, const char *rel, char *buf,
	      size_t len)
{
	char path[PATH_MAX + 256];
	int e;

	snprintf(path, sizeof(path), "%s/%s", r->root, rel);
	e = r->ops->read_line(r->ops->data, path, buf, len);
	if (e < 0 && e != -ENOENT)
		why_rel(r, rel, e == -EINVAL ? -EIO : e, "", r->last_why,
			sizeof(r->last_why));
	return e;
}

/* Why reading ROOT/@rel failed (@text: what it held, for -EINVAL),
 * "REL: reason", in @why. */
static void why_rel(struct vcp_power_reader *r, const char *rel, int e,
		    const char *text, char *why, size_t len)
{
	char path[PATH_MAX + 256], buf[PATH_MAX + 320];

	if (e == -EINVAL || e == -ERANGE) {
		say(why, len,
		    "%s: not a counter (digits only, at most 2^64-1): '%s'",
		    rel, text);
		return;
	}
	say(path, sizeof(path), "%s/%s", r->root, rel);
	say(why, len, "%s%s", rel,
	    vcp_read_why(path, e, buf, sizeof(buf)) + strlen(path));
}

/* A counter file: digits only (vcp_parse_u64, the one parser of both
 * the fixture and the real sysfs); "REL: reason" in @why on failure
 * (@why may be NULL). */
static int rd_u64_why(struct vcp_power_reader *r, const char *rel,
		      uint64_t *ret, char *why, size_t len)
{
	char buf[32] = "";
	uint64_t v;
	int e = rd(r, rel, buf, sizeof(buf));

	if (e == 0)
		e = vcp_parse_u64(buf, &v);
	if (e < 0) {
		if (why)
			why_rel(r, rel, e, buf, why, len);
		return e == -ERANGE ? -EINVAL : e;
	}
	*ret = v;
	return 0;
}

static int rd_u64(struct vcp_power_reader *r, const char *rel, uint64_t *ret)
{
	return rd_u64_why(r, rel, ret, NULL, 0);
}

static DIR *open_dir(struct vcp_power_reader *r, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", r->root, rel);
	return opendir(path);
}

static int package_of(struct vcp_power_reader *r, int cpu)
{
	char rel[96];
	uint64_t v;

	if (cpu < 0 || cpu >= VCP_MAX_CPUS)
		return -1;
	if (r->pkg_of[cpu] != -2)
		return r->pkg_of[cpu];
	snprintf(rel, sizeof(rel), CPU_DIR "/cpu%d/topology/physical_package_id",
		 cpu);
	r->pkg_of[cpu] = rd_u64(r, rel, &v) == 0 && v < INT_MAX ? (int)v : -1;
	return r->pkg_of[cpu];
}

static int rd_cpus(struct vcp_power_reader *r, const char *rel,
		   struct vcp_cpuset *ret)
{
	char buf[8192] = "";
	int e = rd(r, rel, buf, sizeof(buf));

	if (e == 0)
		e = vcp_cpuset_parse(buf, ret);
	if (e == -EINVAL || e == -ERANGE)
		say(r->last_why, sizeof(r->last_why),
		    "%s: not a CPU list: '%.40s'", rel, buf);
	return e;
}

/* ---- residency counters (perf cstate PMUs) ---- */

/* "event=0x03[,umask=0x..]" into a perf config. */
static int parse_event(const char *s, uint64_t *ret)
{
	unsigned long long ev = 0, um = 0;
	char *end;

	if (strncmp(s, "event=", 6) != 0)
		return -EINVAL;
	ev = strtoull(s + 6, &end, 0);
	if (end == s + 6)
		return -EINVAL;
	if (strncmp(end, ",umask=", 7) == 0)
		um = strtoull(end + 7, &end, 0);
	if (*end)
		return -EINVAL;
	*ret = ev | um << 8;
	return 0;
}

/* "c6-residency" -> 6 for sorting; -1 for other names. */
static int state_num(const char *name)
{
	int n, len = 0;

	if (sscanf(name, "c%d-residency%n", &n, &len) != 1 ||
	    name[len] != '\0')
		return -1;
	return n;
}

static int cmp_state(const void *a, const void *b)
{
	return state_num(a) - state_num(b);
}

/* The residency events of @pmu, sorted by state: names in @ret. */
static size_t list_events(struct vcp_power_reader *r, const char *pmu,
			  char (*ret)[32], size_t max)
{
	char rel[128];
	struct dirent *d;
	size_t n = 0;
	DIR *dir;

	snprintf(rel, sizeof(rel), PMU_DIR "/%s/events", pmu);
	dir = open_dir(r, rel);
	while (dir && (d = readdir(dir)) && n < max)
		if (state_num(d->d_name) >= 0)
			snprintf(ret[n++], 32, "%.31s", d->d_name);
	if (dir)
		closedir(dir);
	qsort(ret, n, sizeof(*ret), cmp_state);
	return n;
}

static int event_config(struct vcp_power_reader *r, const char *pmu,
			const char *event, uint32_t *ret_type,
			uint64_t *ret_config)
{
	char rel[160], buf[64] = "";
	uint64_t type;
	int e;

	snprintf(rel, sizeof(rel), PMU_DIR "/%s/type", pmu);
	e = rd_u64(r, rel, &type);
	if (e < 0)
		return e;
	snprintf(rel, sizeof(rel), PMU_DIR "/%s/events/%s", pmu, event);
	e = rd(r, rel, buf, sizeof(buf));
	if (e == 0)
		e = parse_event(buf, ret_config);
	if (e == -EINVAL)
		say(r->last_why, sizeof(r->last_why),
		    "%s: not an event ('event=0xNN'): '%s'", rel, buf);
	if (e < 0)
		return e;
	*ret_type = (uint32_t)type;
	return 0;
}

static struct res_src *res_for(struct vcp_power_reader *r, int package,
			       bool core, const char *state)
{
	struct res_src *s;

	for (size_t i = 0; i < r->n_res; i++)
		if (r->res[i].package == package && r->res[i].core == core &&
		    !strcmp(r->res[i].state, state))
			return &r->res[i];
	s = realloc(r->res, (r->n_res + 1) * sizeof(*s));
	if (!s)
		return NULL;
	r->res = s;
	s = &s[r->n_res++];
	memset(s, 0, sizeof(*s));
	s->package = package;
	s->core = core;
	snprintf(s->state, sizeof(s->state), "%s", state);
	s->first = r->n_handles;
	return s;
}

/* Open @event on every CPU of @cpus; handles are appended in order, so
 * one event's handles are contiguous. */
static int open_event(struct vcp_power_reader *r, const char *pmu,
		      const char *event, bool core,
		      const struct vcp_cpuset *cpus)
{
	char state[8];
	uint32_t type;
	uint64_t config;
	int e = event_config(r, pmu, event, &type, &config);

	if (e < 0)
		return e;
	snprintf(state, sizeof(state), "%.*s", (int)strcspn(event, "-"), event);
	for (int cpu = vcp_cpuset_next(cpus, 0); cpu >= 0;
	     cpu = vcp_cpuset_next(cpus, cpu + 1)) {
		int pkg = package_of(r, cpu), h;
		struct res_src *s;
		int *hs;

		if (pkg < 0)
			continue;
		e = r->ops->open(r->ops->data, pmu, event, type, config, cpu, &h);
		if (e < 0)
			return e;
		hs = realloc(r->handles, (r->n_handles + 1) * sizeof(*hs));
		s = hs ? res_for(r, pkg, core, state) : NULL;
		if (!hs || !s) {
			if (hs)
				r->handles = hs;
			r->ops->close(r->ops->data, h);
			return -ENOMEM;
		}
		r->handles = hs;
		hs[r->n_handles++] = h;
		s->n++;
	}
	return 0;
}

/* One CPU per package (the first of @cpus there) for the TSC base. */
static int open_tsc(struct vcp_power_reader *r, const struct vcp_cpuset *cpus)
{
	uint32_t type = 0;
	uint64_t config = 0;
	int e = event_config(r, "msr", "tsc", &type, &config);

	for (int cpu = vcp_cpuset_next(cpus, 0); cpu >= 0;
	     cpu = vcp_cpuset_next(cpus, cpu + 1)) {
		int pkg = package_of(r, cpu);
		struct tsc_src *t;
		size_t i;

		for (i = 0; i < r->n_tsc && r->tsc[i].package != pkg; i++)
			;
		if (pkg < 0 || i < r->n_tsc)
			continue;
		t = realloc(r->tsc, (r->n_tsc + 1) * sizeof(*t));
		if (!t)
			return -ENOMEM;
		r->tsc = t;
		t = &t[r->n_tsc++];
		t->package = pkg;
		t->handle = -1;
		t->err = e;
		if (!e)
			t->err = r->ops->open(r->ops->data, "msr", "tsc", type,
					      config, cpu, &t->handle);
	}
	return 0;
}

static int open_pmu(struct vcp_power_reader *r, const char *pmu, bool core,
		    struct vcp_cpuset *ret_cpus)
{
	char events[VCP_PWR_MAX_STATES][32], rel[96];
	struct vcp_cpuset cpus;
	size_t n;
	int e;

	snprintf(rel, sizeof(rel), PMU_DIR "/%s/cpumask", pmu);
	e = rd_cpus(r, rel, &cpus);
	if (e < 0)
		return e;
	n = list_events(r, pmu, events, VCP_PWR_MAX_STATES);
	for (size_t i = 0; i < n; i++) {
		e = open_event(r, pmu, events[i], core, &cpus);
		if (e < 0)
			return e;
	}
	*ret_cpus = cpus;
	return n ? 0 : -ENOENT;
}

static void close_counters(struct vcp_power_reader *r)
{
	for (size_t i = 0; i < r->n_handles; i++)
		r->ops->close(r->ops->data, r->handles[i]);
	for (size_t i = 0; i < r->n_tsc; i++)
		if (r->tsc[i].handle >= 0)
			r->ops->close(r->ops->data, r->tsc[i].handle);
	free(r->handles);
	free(r->res);
	free(r->tsc);
	r->handles = NULL;
	r->res = NULL;
	r->tsc = NULL;
	r->n_handles = r->n_res = r->n_tsc = 0;
}

/* Package PMU first (its cpumask is one CPU per package: the TSC base),
 * then the core PMU. Any failure to open: no residency, and why. */
static int open_residency(struct vcp_power_reader *r)
{
	struct vcp_cpuset pc, cc;
	int ep, ec;

	r->last_why[0] = '\0';
	ep = open_pmu(r, "cstate_pkg", false, &pc);
	ec = ep == -ENOMEM ? ep : open_pmu(r, "cstate_core", true, &cc);

	if (ep == -ENOMEM || ec == -ENOMEM) {
		close_counters(r);
		return -ENOMEM;
	}
	if ((ep < 0 && ep != -ENOENT) || (ec < 0 && ec != -ENOENT) ||
	    (ep == -ENOENT && ec == -ENOENT)) {
		r->pmu_err = ep != -ENOENT ? ep : ec;
		memcpy(r->pmu_why, r->last_why, sizeof(r->pmu_why));
		close_counters(r);
		return 0;
	}
	return open_tsc(r, ep == 0 ? &pc : &cc);
}

static int read_res(struct vcp_power_reader *r, struct vcp_pwr_snap *s)
{
	s->res = calloc(r->n_res ? r->n_res : 1, sizeof(*s->res));
	s->tsc = calloc(r->n_tsc ? r->n_tsc : 1, sizeof(*s->tsc));
	if (!s->res || !s->tsc)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_res; i++) {
		const struct res_src *src = &r->res[i];
		struct vcp_pwr_res *x = &s->res[s->n_res++];

		x->package = src->package;
		x->core = src->core;
		memcpy(x->state, src->state, sizeof(x->state));
		x->n_cpus = (unsigned int)src->n;
		for (size_t k = 0; k < src->n && !x->err; k++) {
			uint64_t v;

			x->err = r->ops->read(r->ops->data,
					      r->handles[src->first + k], &v);
			x->count += v;
		}
	}
	for (size_t i = 0; i < r->n_tsc; i++) {
		struct vcp_pwr_tsc *t = &s->tsc[s->n_tsc++];

		t->package = r->tsc[i].package;
		t->err = r->tsc[i].err;
		if (!t->err)
			t->err = r->ops->read(r->ops->data, r->tsc[i].handle,
					      &t->count);
	}
	s->pmu_err = r->pmu_err;
	memcpy(s->pmu_why, r->pmu_why, sizeof(s->pmu_why));
	return 0;
}

/* ---- powercap zones (rescanned at every read) ---- */

static int zone_cmp(const void *a, const void *b)
{
	return strcmp(((const struct vcp_pwr_zone *)a)->id,
		      ((const struct vcp_pwr_zone *)b)->id);
}

static void read_zone(struct vcp_power_reader *r, const char *id,
		      struct vcp_pwr_zone *z)
{
	char rel[160];
	int n;

	memset(z, 0, sizeof(*z));
	snprintf(z->id, sizeof(z->id), "%.*s", (int)sizeof(z->id) - 1, id);
	snprintf(rel, sizeof(rel), RAPL_DIR "/%s/name", z->id);
	if (rd(r, rel, z->name, sizeof(z->name)) < 0)
		snprintf(z->name, sizeof(z->name), "?");
	z->kind = vcp_zone_kind_of(z->name);
	z->package = -1;
	if (z->kind == VCP_ZONE_PACKAGE && sscanf(z->name, "package-%d", &n) == 1)
		z->package = n;
	/* no range, no wrap to fold: the zone is unreadable, not partial */
	snprintf(rel, sizeof(rel), RAPL_DIR "/%s/max_energy_range_uj", z->id);
	z->err = rd_u64_why(r, rel, &z->max_uj, z->why, sizeof(z->why));
	if (!z->err && !z->max_uj) {
		say(z->why, sizeof(z->why), "%s: 0 is no range", rel);
		z->err = -ERANGE;
	}
	if (z->err)
		return;
	snprintf(rel, sizeof(rel), RAPL_DIR "/%s/energy_uj", z->id);
	z->err = rd_u64_why(r, rel, &z->energy_uj, z->why, sizeof(z->why));
	if (!z->err && z->energy_uj > z->max_uj) {
		say(z->why, sizeof(z->why),
		    "%s: %" PRIu64
		    " is above the counter's range (max_energy_range_uj %" PRIu64
		    ")",
		    rel, z->energy_uj, z->max_uj);
		z->err = -ERANGE;
	}
}

/* A subzone "intel-rapl:0:1" belongs to the package of "intel-rapl:0". */
static void zone_parents(struct vcp_pwr_snap *s)
{
	for (size_t i = 0; i < s->n_zones; i++) {
		struct vcp_pwr_zone *z = &s->zones[i];
		size_t plen = strrchr(z->id, ':') - z->id;

		if (z->package >= 0 || z->kind == VCP_ZONE_PSYS)
			continue;
		for (size_t k = 0; k < s->n_zones; k++)
			if (k != i && strlen(s->zones[k].id) == plen &&
			    !strncmp(s->zones[k].id, z->id, plen))
				z->package = s->zones[k].package;
	}
}

/* Drop an mmio zone where an MSR zone has the same name and package. */
static void zone_dedup(struct vcp_pwr_snap *s)
{
	size_t out = 0;

	for (size_t i = 0; i < s->n_zones; i++) {
		struct vcp_pwr_zone *z = &s->zones[i];
		bool dup = false;

		for (size_t k = 0; strstr(z->id, "-mmio:") && k < s->n_zones; k++)
			dup |= !strstr(s->zones[k].id, "-mmio:") &&
			       !strcmp(s->zones[k].name, z->name) &&
			       s->zones[k].package == z->package;
		if (!dup)
			s->zones[out++] = *z;
	}
	s->n_zones = out;
}

static int read_zones(struct vcp_power_reader *r, struct vcp_pwr_snap *s)
{
	DIR *dir = open_dir(r, RAPL_DIR);
	struct dirent *d;
	size_t cap = 0;

	s->zones_err = -ENOENT;
	while (dir && (d = readdir(dir))) {
		struct vcp_pwr_zone *z;

		if (strncmp(d->d_name, "intel-rapl:", 11) &&
		    strncmp(d->d_name, "intel-rapl-mmio:", 16))
			continue;
		if (s->n_zones == cap) {
			cap = cap ? 2 * cap : 8;
			z = realloc(s->zones, cap * sizeof(*z));
			if (!z) {
				closedir(dir);
				return -ENOMEM;
			}
			s->zones = z;
		}
		read_zone(r, d->d_name, &s->zones[s->n_zones++]);
	}
	if (dir)
		closedir(dir);
	if (s->n_zones)
		s->zones_err = 0;
	if (s->n_zones)	/* qsort(NULL, 0, ...) is undefined */
		qsort(s->zones, s->n_zones, sizeof(*s->zones), zone_cmp);
	zone_parents(s);
	zone_dedup(s);
	return 0;
}

/* ---- cpuidle ---- */

/* cpuN/cpuidle/stateK/time (@j 0) or usage (@j 1). */
static void idle_rel(char *rel, size_t len, int cpu, unsigned int k, int j)
{
	snprintf(rel, len, CPU_DIR "/cpu%d/cpuidle/state%u/%s", cpu, k,
		 j ? "usage" : "time");
}

/*
 * Keep the cpuidle files open where the ops can (pread is ten times
 * cheaper than open/read/close), up to half the descriptors the process
 * may have beyond 128 and the counters already open; the rest are read
 * by path.
 */
static int hold_cpuidle(struct vcp_power_reader *r)
{
	size_t n = r->n_cpus * r->n_idle * 2;
	struct rlimit rl;
	char rel[128], path[PATH_MAX];

	r->idle_fds = malloc((n ? n : 1) * sizeof(*r->idle_fds));
	if (!r->idle_fds)
		return -ENOMEM;
	r->max_held = 0;
	if (r->ops->open_file && r->ops->read_fd && r->ops->close_file &&
	    getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur > 256 + r->n_handles + r->n_tsc)
		r->max_held = (rl.rlim_cur - 128 - r->n_handles - r->n_tsc) / 2;
	for (size_t i = 0; i < n; i++) {
		r->idle_fds[i] = -1;
		if (r->n_held >= r->max_held)
			continue;
		idle_rel(rel, sizeof(rel), r->cpus[i / (r->n_idle * 2)],
			 (unsigned int)(i / 2 % r->n_idle), (int)(i % 2));
		snprintf(path, sizeof(path), "%s/%s", r->root, rel);
		if (r->ops->open_file(r->ops->data, path, &r->idle_fds[i]) == 0)
			r->n_held++;
		else
			r->idle_fds[i] = -1;
	}
	return 0;
}

static int open_cpuidle(struct vcp_power_reader *r)
{
	struct vcp_cpuset online;
	char rel[128];
	int e;

	r->last_why[0] = '\0';
	e = rd_cpus(r, CPU_DIR "/online", &online);

	r->cpuidle_err = e;
	if (e < 0) {
		memcpy(r->cpuidle_why, r->last_why, sizeof(r->cpuidle_why));
		return 0;
	}
	r->cpus = calloc(vcp_cpuset_count(&online) + 1, sizeof(*r->cpus));
	if (!r->cpus)
		return -ENOMEM;
	for (int cpu = vcp_cpuset_next(&online, 0); cpu >= 0;
	     cpu = vcp_cpuset_next(&online, cpu + 1))
		r->cpus[r->n_cpus++] = cpu;
	while (r->n_cpus && r->n_idle < VCP_PWR_MAX_STATES) {
		snprintf(rel, sizeof(rel), CPU_DIR "/cpu%d/cpuidle/state%u/name",
			 r->cpus[0], r->n_idle);
		if (rd(r, rel, r->idle_names[r->n_idle],
		       sizeof(r->idle_names[0])) < 0)
			break;
		r->n_idle++;
	}
	if (!r->n_idle)
		r->cpuidle_err = -ENOENT;
	return r->n_idle ? hold_cpuidle(r) : 0;
}

/* One cpuidle file, kept open or by path; "REL: reason" in @why (when
 * empty) on failure. */
static int idle_value(struct vcp_power_reader *r, size_t i, int cpu,
		      uint64_t *ret, char *why, size_t len)
{
	char rel[128], buf[32] = "";
	uint64_t v;
	int e;

	if (r->idle_fds[i] < 0) {
		idle_rel(rel, sizeof(rel), cpu,
			 (unsigned int)(i / 2 % r->n_idle), (int)(i % 2));
		return rd_u64_why(r, rel, ret, *why ? NULL : why, len);
	}
	e = r->ops->read_fd(r->ops->data, r->idle_fds[i], buf, sizeof(buf));
	if (e == 0)
		e = vcp_parse_u64(buf, &v);
	if (e < 0) {
		idle_rel(rel, sizeof(rel), cpu,
			 (unsigned int)(i / 2 % r->n_idle), (int)(i % 2));
		if (!*why)
			why_rel(r, rel, e, buf, why, len);
		return e == -ERANGE ? -EINVAL : e;
	}
	*ret = v;
	return 0;
}

static void read_cpu(struct vcp_power_reader *r, size_t idx,
		     struct vcp_pwr_cpu *c, char *why, size_t len)
{
	int cpu = r->cpus[idx];
	size_t base = idx * r->n_idle * 2;

	c->cpu = cpu;
	c->package = package_of(r, cpu);
	for (unsigned int k = 0; k < r->n_idle && !c->err; k++) {
		c->err = idle_value(r, base + 2 * k, cpu, &c->time_us[k], why,
				    len);
		if (!c->err)
			c->err = idle_value(r, base + 2 * k + 1, cpu,
					    &c->usage[k], why, len);
	}
}

static int read_cpuidle(struct vcp_power_reader *r, struct vcp_pwr_snap *s)
{
	s->cpuidle_err = r->cpuidle_err;
	if (r->cpuidle_err) {
		memcpy(s->cpuidle_why, r->cpuidle_why, sizeof(s->cpuidle_why));
		return 0;
	}
	s->cpus = calloc(r->n_cpus, sizeof(*s->cpus));
	if (!s->cpus)
		return -ENOMEM;
	memcpy(s->idle_names, r->idle_names, sizeof(s->idle_names));
	s->n_idle = r->n_idle;
	for (size_t i = 0; i < r->n_cpus; i++)
		read_cpu(r, i, &s->cpus[s->n_cpus++], s->cpuidle_why,
			 sizeof(s->cpuidle_why));
	return 0;
}

/* ---- uncore ---- */

static int add_uncore(struct vcp_power_reader *r, const char *name)
{
	struct uncore_src u = { .package = -1, .die = -1 };
	struct uncore_src *p;
	char rel[192];
	uint64_t v;

	snprintf(u.dir, sizeof(u.dir), "%.63s", name);
	if (sscanf(name, "package_%d_die_%d", &u.package, &u.die) != 2) {
		snprintf(rel, sizeof(rel), UNCORE_DIR "/%s/package_id", u.dir);
		if (strncmp(name, "uncore", 6) || rd_u64(r, rel, &v) < 0)
			return 0;
		u.package = (int)v;
		snprintf(rel, sizeof(rel), UNCORE_DIR "/%s/domain_id", u.dir);
		u.die = rd_u64(r, rel, &v) == 0 ? (int)v : 0;
	}
	p = realloc(r->unc, (r->n_unc + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	r->unc = p;
	p[r->n_unc++] = u;
	return 0;
}

static int open_uncore(struct vcp_power_reader *r)
{
	DIR *dir = open_dir(r, UNCORE_DIR);
	struct dirent *d;
	int e = 0;

	while (dir && !e && (d = readdir(dir)))
		if (d->d_name[0] != '.')
			e = add_uncore(r, d->d_name);
	if (dir)
		closedir(dir);
	return e;
}

static unsigned int khz(struct vcp_power_reader *r, const char *dir,
			const char *file)
{
	char rel[192];
	uint64_t v;

	snprintf(rel, sizeof(rel), UNCORE_DIR "/%s/%s", dir, file);
	return rd_u64(r, rel, &v) == 0 && v <= UINT32_MAX ? (unsigned int)v : 0;
}

static int read_uncore(struct vcp_power_reader *r, struct vcp_pwr_snap *s)
{
	if (!r->n_unc)
		return 0;
	s->uncore = calloc(r->n_unc, sizeof(*s->uncore));
	if (!s->uncore)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_unc; i++) {
		struct vcp_pwr_uncore *u = &s->uncore[s->n_uncore++];

		u->package = r->unc[i].package;
		u->die = r->unc[i].die;
		u->cur_khz = khz(r, r->unc[i].dir, "current_freq_khz");
		u->min_khz = khz(r, r->unc[i].dir, "min_freq_khz");
		u->max_khz = khz(r, r->unc[i].dir, "max_freq_khz");
	}
	return 0;
}

/* ---- the reader ---- */

int vcp_power_reader_open(const char *root, const struct vcp_power_ops *ops,
			  struct vcp_power_reader **ret)
{
	struct vcp_power_reader *r;
	int e;

	if (strlen(root) >= sizeof(r->root))
		return -ENAMETOOLONG;
	/* a wrong root is no guest: say so rather than "no counters" */
	if (!vcp_is_dir(root, &e))
		return e;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	snprintf(r->root, sizeof(r->root), "%s", root);
	r->ops = ops ? ops : &vcp_power_perf_ops;
	for (size_t i = 0; i < VCP_MAX_CPUS; i++)
		r->pkg_of[i] = -2;
	e = open_residency(r);
	if (!e)
		e = open_cpuidle(r);
	if (!e)
		e = open_uncore(r);
	if (e < 0) {
		vcp_power_reader_close(r);
		return e;
	}
	*ret = r;
	return 0;
}

int vcp_power_read(struct vcp_power_reader *r, struct vcp_pwr_snap *ret)
{
	struct vcp_pwr_snap s = { 0 };
	int e;

	s.t_ns = r->ops->now_ns(r->ops->data);
	if (!s.t_ns)
		return -EINVAL;
	e = read_res(r, &s);
	if (!e)
		e = read_zones(r, &s);
	if (!e)
		e = read_cpuidle(r, &s);
	if (!e)
		e = read_uncore(r, &s);
	if (e < 0) {
		vcp_pwr_snap_clear(&s);
		return e;
	}
	*ret = s;
	return 0;
}

void vcp_power_reader_close(struct vcp_power_reader *r)
{
	if (!r)
		return;
	close_counters(r);
	for (size_t i = 0; r->idle_fds && i < r->n_cpus * r->n_idle * 2; i++)
		if (r->idle_fds[i] >= 0)
			r->ops->close_file(r->ops->data, r->idle_fds[i]);
	free(r->idle_fds);
	free(r->cpus);
	free(r->unc);
	free(r);
}
