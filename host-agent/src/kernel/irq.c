// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * irq.c - device interrupts and sleeping packages (see irq.h).
 *
 * A device interrupt that lands on a package the plan idles wakes it.
 * This module reads what the kernel says about interrupts under a root
 * (ROOT/proc/interrupts, ROOT/proc/irq/N/{smp,effective}_affinity_list),
 * computes - purely - the affinity each device IRQ should have while
 * some packages sleep and what it had before, and hands the writes to
 * kernel.c (the one module that writes kernel files). What vcpack
 * changed is kept in ROOT/run/vcpack/irq-affinity ("IRQ ORIG SET" lines)
 * so that a later run, or vcpackd after a restart, puts it back when the
 * package wakes; an IRQ someone else re-pointed since is theirs again.
 * Managed IRQs (the kernel spreads them itself and refuses writes with
 * EIO) are counted and left alone. irqbalance is detected so that the
 * caller can defer to it instead of fighting it. Nothing here logs.
 */
#include "irq.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonfile.h"
#include "kernel.h"
#include "rdfile.h"
#include "sysfile.h"

#define MAX_TEXT (16 << 20)

/* ---- files ---- */

/* The whole of a /proc file (st_size says 0 there). */
static int read_text(const char *path, char **ret)
{
	size_t len = 0, cap = 8192;
	char *buf = malloc(cap);
	int fd, r = 0;

	if (!buf)
		return -ENOMEM;
	r = vcp_open_regular(path, &fd, NULL);
	if (r < 0) {
		free(buf);
		return r;
	}
	for (;;) {
		ssize_t n;

		if (cap - len < 4096) {
			char *nb = NULL;

			if (cap < MAX_TEXT)
				nb = realloc(buf, cap * 2);

			if (!nb) {
				r = cap >= MAX_TEXT ? -EFBIG : -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret = buf;
	return 0;
}

/* ---- /proc/interrupts ---- */

void vcp_irq_counts_clear(struct vcp_irq_counts *c)
{
	if (!c)
		return;
	free(c->col_cpu);
	free(c->all);
	free(c->dev);
	memset(c, 0, sizeof(*c));
}

/* The header: "CPU0 CPU1 ...". */
static int parse_header(const char *line, struct vcp_irq_counts *c)
{
	const char *p = line;
	unsigned int n = 0, cap = 0;

	while (*p) {
		char *end;
		unsigned long v;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			break;
		if (strncmp(p, "CPU", 3) || !isdigit((unsigned char)p[3]))
			return -EBADMSG;
		v = strtoul(p + 3, &end, 10);
		if (v >= VCP_MAX_CPUS)
			return -EBADMSG;
		if (n == cap) {
			unsigned int *nc;

			cap = cap ? cap * 2 : 64;
			nc = realloc(c->col_cpu, cap * sizeof(*nc));
			if (!nc)
				return -ENOMEM;
			c->col_cpu = nc;
		}
		c->col_cpu[n++] = (unsigned int)v;
		p = end;
	}
	if (!n)
		return -EBADMSG;
	c->n_cols = n;
	return 0;
}

/*
 * One row "LABEL: n n n ... description". Fills @vals (n_cols, missing
 * columns 0), *ret_num (the IRQ number, or -1 for NMI, LOC, ...) and
 * *ret_desc (inside @line, may be empty). -EBADMSG without a label.
 */
static int parse_row(char *line, unsigned int n_cols,
		     unsigned long long *vals, long *ret_num, char **ret_desc)
{
	char *colon = strchr(line, ':'), *p, *end;
	unsigned int i;

	if (!colon)
		return -EBADMSG;
	*colon = '\0';
	p = line;
	while (*p == ' ')
		p++;
	if (!*p)
		return -EBADMSG;
	*ret_num = -1;
	if (isdigit((unsigned char)*p)) {
		long v = strtol(p, &end, 10);

		if (*end == '\0' && v >= 0)
			*ret_num = v;
	}
	p = colon + 1;
	for (i = 0; i < n_cols; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!isdigit((unsigned char)*p))
			break;
		vals[i] = strtoull(p, &end, 10);
		p = end;
	}
	for (; i < n_cols; i++)
		vals[i] = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	*ret_desc = p;
	return 0;
}

/* Walk the rows of @text after the header; @fn sees each. */
static int each_row(char *text, unsigned int n_cols,
		    int (*fn)(void *, long, const unsigned long long *, char *),
		    void *arg)
{
	unsigned long long *vals = calloc(n_cols, sizeof(*vals));
	char *line = strchr(text, '\n');
	int r = 0;

	if (!vals)
		return -ENOMEM;
	while (line && r == 0) {
		char *next = strchr(++line, '\n'), *desc;
		long num;

		if (next)
			*next = '\0';
		if (*line) {
			r = parse_row(line, n_cols, vals, &num, &desc);
			if (r == 0)
				r = fn(arg, num, vals, desc);
		}
		line = next;
	}
	free(vals);
	return r;
}

static int add_counts(void *arg, long num, const unsigned long long *vals,
		      char *desc)
{
	struct vcp_irq_counts *c = arg;

	for (unsigned int i = 0; i < c->n_cols; i++) {
		c->all[i] += vals[i];
		if (num >= 0)
			c->dev[i] += vals[i];
	}
	return 0;
}

int vcp_irq_counts_parse(const char *text, struct vcp_irq_counts *ret)
{
	struct vcp_irq_counts c = { 0 };
	char *copy = strdup(text ? text : ""), *nl;
	int r;

	if (!copy)
		return -ENOMEM;
	nl = strchr(copy, '\n');
	if (nl)
		*nl = '\0';
	r = parse_header(copy, &c);
	if (nl)
		*nl = '\n';
	if (r == 0) {
		c.all = calloc(c.n_cols, sizeof(*c.all));
		c.dev = calloc(c.n_cols, sizeof(*c.dev));
		r = c.all && c.dev ? 0 : -ENOMEM;
	}
	if (r == 0)
		r = each_row(copy, c.n_cols, add_counts, &c);
	free(copy);
	if (r < 0) {
		vcp_irq_counts_clear(&c);
		return r;
	}
	*ret = c;
	return 0;
}

/* The text of ROOT/proc/interrupts. */
static int read_interrupts(const char *root, char **ret)
{
	char *path = vcp_root_path(root, "/proc/interrupts");
	int r;

	if (!path)
		return -ENOMEM;
	r = read_text(path, ret);
	free(path);
	return r;
}

int vcp_irq_counts_read(const char *root, struct vcp_irq_counts *ret)
{
	char *text = NULL;
	int r;

	r = read_interrupts(root, &text);
	if (r < 0)
		return r;
	r = vcp_irq_counts_parse(text, ret);
	free(text);
	return r;
}

static long col_of(const struct vcp_irq_counts *c, unsigned int i,
		   unsigned int cpu)
{
	if (i < c->n_cols && c->col_cpu[i] == cpu)
		return i;
	for (unsigned int j = 0; j < c->n_cols; j++)
		if (c->col_cpu[j] == cpu)
			return j;
	return -1;
}

static double delta(unsigned long long a, unsigned long long b)
{
	return b >= a ? (double)(b - a) : 0;
}

int vcp_irq_rates(const struct vcp_host *host, const struct vcp_irq_counts *a,
		  const struct vcp_irq_counts *b, double seconds,
		  double *ret_all, double *ret_dev)
{
	if (!(seconds > 0))
		return -EINVAL;
	for (size_t p = 0; p < host->n_packages; p++)
		ret_all[p] = ret_dev[p] = 0;
	for (unsigned int j = 0; j < b->n_cols; j++) {
		int p = vcp_host_package_of(host, b->col_cpu[j]);
		long i = col_of(a, j, b->col_cpu[j]);

		if (p < 0 || i < 0)
			continue;
		ret_all[p] += delta(a->all[i], b->all[j]) / seconds;
		ret_dev[p] += delta(a->dev[i], b->dev[j]) / seconds;
	}
	return 0;
}

/* ---- device IRQs ---- */

struct irq_list {
	const char *root;
	struct vcp_irq *v;
	size_t n, cap;
};

static int read_cpulist(const char *path, struct vcp_cpuset *ret)
{
	char buf[8192];
	int r = vcp_read_line(path, buf, sizeof(buf));

	if (r < 0)
		return r;
	return vcp_cpuset_parse(buf, ret) < 0 ? -EBADMSG : 0;
}

/* Collapse runs of blanks so that the name reads in one line. */
static void copy_name(char *dst, size_t len, const char *src)
{
	size_t n = 0;

	for (; *src && n + 1 < len; src++) {
		bool blank = *src == ' ' || *src == '\t';

		if (blank && (n == 0 || dst[n - 1] == ' '))
			continue;
		dst[n++] = blank ? ' ' : *src;
	}
	while (n > 0 && dst[n - 1] == ' ')
		n--;
	dst[n] = '\0';
}

static int add_irq(void *arg, long num, const unsigned long long *vals,
		   char *desc)
{
	struct irq_list *l = arg;
	struct vcp_irq q = { .irq = (unsigned int)num };
	char *path;
	int r;

	if (num < 0)
		return 0;
	path = vcp_root_path(l->root, "/proc/irq/%u/smp_affinity_list", q.irq);
	if (!path)
		return -ENOMEM;
	r = read_cpulist(path, &q.affinity);
	free(path);
	if (r == -ENOENT)
		return 0;	/* no affinity file: not steerable */
	if (r < 0)
		return r;
	path = vcp_root_path(l->root, "/proc/irq/%u/effective_affinity_list",
			     q.irq);
	if (!path)
		return -ENOMEM;
	if (read_cpulist(path, &q.effective) < 0)
		vcp_cpuset_zero(&q.effective);
	free(path);
	copy_name(q.name, sizeof(q.name), desc);
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct vcp_irq *nv = realloc(l->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = q;
	return 0;
}

static int cmp_irq(const void *a, const void *b)
{
	const struct vcp_irq *x = a, *y = b;

	return (x->irq > y->irq) - (x->irq < y->irq);
}

int vcp_irq_list(const char *root, struct vcp_irq **ret, size_t *ret_n)
{
	struct irq_list l = { .root = root };
	struct vcp_irq_counts c = { 0 };
	char *text = NULL, *nl;
	int r;

	r = read_interrupts(root, &text);
	if (r < 0)
		return r;
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	r = parse_header(text, &c);
	if (nl)
		*nl = '\n';
	if (r == 0)
		r = each_row(text, c.n_cols, add_irq, &l);
	free(text);
	vcp_irq_counts_clear(&c);
	if (r < 0) {
		free(l.v);
		return r;
	}
	qsort(l.v, l.n, sizeof(*l.v), cmp_irq);
	*ret = l.v;
	*ret_n = l.n;
	return 0;
}

/* ---- what vcpack changed ---- */

/* "IRQ ORIG SET": the lists as long as they are. */
static int parse_saved_line(char *line, struct vcp_irq_saved *s)
{
	char *orig = NULL, *set = NULL;
	unsigned int irq;
	int n = 0, r = 0;

	if (sscanf(line, "%u %ms %ms %n", &irq, &orig, &set, &n) != 3 ||
	    line[n] != '\0')
		r = -EBADMSG;
	if (r == 0 && (vcp_cpuset_parse(orig, &s->orig) < 0 ||
		       vcp_cpuset_parse(set, &s->set) < 0))
		r = -EBADMSG;
	if (r == 0)
		s->irq = irq;
	free(orig);
	free(set);
	return r;
}

int vcp_irq_saved_parse(const char *text, struct vcp_irq_saved **ret,
			size_t *ret_n)
{
	char *copy = strdup(text);
	struct vcp_irq_saved *v = NULL;
	size_t n = 0;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	for (char *sp, *line = strtok_r(copy, "\n", &sp); line && r == 0;
	     line = strtok_r(NULL, "\n", &sp)) {
		struct vcp_irq_saved *nv = realloc(v, (n + 1) * sizeof(*v));

		if (!nv) {
			r = -ENOMEM;
			break;
		}
		v = nv;
		r = parse_saved_line(line, &v[n]);
		n += r == 0;
	}
	free(copy);
	if (r < 0) {
		free(v);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

int vcp_irq_saved_load(const char *root, struct vcp_irq_saved **ret,
		       size_t *ret_n)
{
	char *path = vcp_root_path(root, "%s", VCP_IRQ_STATE_PATH);
	char *text = NULL;
	int r;

	if (!path)
		return -ENOMEM;
	r = read_text(path, &text);
	free(path);
	if (r == -ENOENT) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	if (r < 0)
		return r;
	r = vcp_irq_saved_parse(text, ret, ret_n);
	free(text);
	return r;
}

static int write_saved(FILE *f, const struct vcp_irq_saved *s, size_t n)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < n; i++) {
		char *a = vcp_cpuset_format_alloc(&s[i].orig);
		char *b = vcp_cpuset_format_alloc(&s[i].set);

		if (a && b)
			fprintf(f, "%u %s %s\n", s[i].irq, a, b);
		else
			r = -ENOMEM;
		free(a);
		free(b);
	}
	return r;
}

int vcp_irq_saved_store(const char *root, const struct vcp_irq_saved *s,
			size_t n)
{
	char *path = vcp_root_path(root, "%s", VCP_IRQ_STATE_PATH);
	char *text = NULL;
	size_t len = 0;
	FILE *f = NULL;
	int r = 0;

	if (!path)
		return -ENOMEM;
	if (n && !(f = open_memstream(&text, &len)))
		r = -ENOMEM;
	if (f) {
		r = write_saved(f, s, n);
		if (fclose(f) != 0 && r == 0)
			r = -ENOMEM;
	}
	/* the state file's writer adds the last line's newline */
	if (r == 0 && text)
		text[len - 1] = '\0';
	if (r == 0)
		r = vcp_state_file_put(path, text);
	free(text);
	free(path);
	return r;
}

/* ---- the pure part ---- */

void vcp_irq_plan_clear(struct vcp_irq_plan *p)
{
	if (!p)
		return;
	free(p->moves);
	free(p->saved);
	memset(p, 0, sizeof(*p));
}

void vcp_irq_idle_cpus(const struct vcp_host *host,
		       const struct vcp_plan *plan, struct vcp_cpuset *ret)
{
	vcp_cpuset_zero(ret);
	for (size_t p = 0; p < host->n_packages && p < plan->n_packages; p++) {
		const struct vcp_cpuset *cpus = &host->packages[p].cpus;

		if (plan->pkg_active[p] ||
		    vcp_cpuset_subset(cpus, &plan->reserved))
			continue;
		vcp_cpuset_or(ret, cpus);
	}
}

static const struct vcp_irq_saved *find_saved(const struct vcp_irq_saved *s,
					      size_t n, unsigned int irq)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].irq == irq)
			return &s[i];
	return NULL;
}

int vcp_irq_plan_compute(const struct vcp_irq *irqs, size_t n_irqs,
			 const struct vcp_irq_saved *saved, size_t n_saved,
			 const struct vcp_cpuset *online,
			 const struct vcp_cpuset *idle,
			 struct vcp_irq_plan *ret)
{
	struct vcp_irq_plan p = { 0 };
	struct vcp_cpuset awake = *online;

	vcp_cpuset_andnot(&awake, idle);
	p.moves = calloc(n_irqs ? n_irqs : 1, sizeof(*p.moves));
	p.saved = calloc(n_irqs ? n_irqs : 1, sizeof(*p.saved));
	if (!p.moves || !p.saved) {
		vcp_irq_plan_clear(&p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_irqs; i++) {
		const struct vcp_irq *q = &irqs[i];
		const struct vcp_irq_saved *rec =
			find_saved(saved, n_saved, q->irq);
		struct vcp_cpuset base = q->affinity, want;

		if (q->managed) {
			p.n_managed++;
			continue;
		}
		if (rec && vcp_cpuset_equal(&rec->set, &q->affinity))
			base = rec->orig;
		else
			rec = NULL;	/* never ours, or re-pointed since */
		want = base;
		vcp_cpuset_andnot(&want, idle);
		if (vcp_cpuset_empty(&want))
			want = awake;
		if (vcp_cpuset_empty(&want))
			want = base;
		if (vcp_cpuset_equal(&want, &q->affinity)) {
			p.n_kept++;
		} else {
			struct vcp_irq_move *m = &p.moves[p.n_moves++];

			m->irq = q->irq;
			m->from = q->affinity;
			m->to = want;
			m->restore = rec && vcp_cpuset_equal(&want, &base);
		}
		if (!vcp_cpuset_equal(&want, &base))
			p.saved[p.n_saved++] = (struct vcp_irq_saved){
				q->irq, base, want };
	}
	*ret = p;
	return 0;
}

/* ---- carrying it out ---- */

/* After a failed move the IRQ is where it was: keep or drop its record
 * accordingly (its original is the record's, if the plan made one). */
static void undo_record(struct vcp_irq_saved *s, size_t *n,
			const struct vcp_irq_move *m)
{
	for (size_t i = 0; i < *n; i++) {
		if (s[i].irq != m->irq)
			continue;
		if (vcp_cpuset_equal(&s[i].orig, &m->from))
			s[i] = s[--*n];	/* it has its original */
		else
			s[i].set = m->from;
		return;
	}
}

static int cmp_saved(const void *a, const void *b)
{
	const struct vcp_irq_saved *x = a, *y = b;

	return (x->irq > y->irq) - (x->irq < y->irq);
}

int vcp_irq_apply(const char *root, const struct vcp_irq_plan *p,
		  struct vcp_irq_result *ret)
{
	struct vcp_irq_result res = { .managed = p->n_managed };
	struct vcp_irq_saved *s = calloc(p->n_saved ? p->n_saved : 1,
					 sizeof(*s));
	size_t n = p->n_saved;
	int r;

	if (!s)
		return -ENOMEM;
	memcpy(s, p->saved, n * sizeof(*s));
	for (size_t i = 0; i < p->n_moves; i++) {
		const struct vcp_irq_move *m = &p->moves[i];

		r = vcp_kernel_set_irq_affinity(root, m->irq, &m->to);
		if (r == 0) {
			if (m->restore)
				res.restored++;
			else
				res.moved++;
			continue;
		}
		undo_record(s, &n, m);
		if (r == -EIO) {
			res.managed++;
			continue;
		}
		if (!res.failed++) {
			res.first_error = r;
			res.first_failed_irq = m->irq;
		}
	}
	qsort(s, n, sizeof(*s), cmp_saved);
	r = vcp_irq_saved_store(root, s, n);
	free(s);
	if (r < 0)
		return r;
	*ret = res;
	return 0;
}

/* ---- following a plan ---- */

/* What vcp_irq_apply() would count, without writing. */
static void preview(const struct vcp_irq_plan *p, struct vcp_irq_result *ret)
{
	struct vcp_irq_result res = { .managed = p->n_managed };

	for (size_t i = 0; i < p->n_moves; i++) {
		if (p->moves[i].restore)
			res.restored++;
		else
			res.moved++;
	}
	*ret = res;
}

/* Is a ban of ours recorded as told to irqbalance? */
static bool told_any(const char *root)
{
	struct vcp_irqbal_told t;

	return vcp_irqbal_told_load(root, &t) != 0 || t.pid != 0;
}

static int follow(const char *root, const struct vcp_host *host,
		  const struct vcp_plan *plan, bool enabled, bool dry,
		  struct vcp_irq_report *ret)
{
	struct vcp_irq_report rep = { .enabled = enabled, .dry_run = dry };
	struct vcp_irq_saved *s = NULL;
	struct vcp_irq *v = NULL;
	struct vcp_irq_plan p = { 0 };
	size_t n = 0, ns = 0;
	int r;

	if (enabled && plan)
		vcp_irq_idle_cpus(host, plan, &rep.idle);
	r = vcp_irq_saved_load(root, &s, &ns);
	if (r == 0 && !enabled && !ns && !told_any(root)) {
		*ret = rep;	/* off, and nothing of ours to put back */
		return 0;
	}
	rep.acted = true;
	if (r == 0)
		r = vcp_irqbalance_detect(root, &rep.irqbalance);
	/* asks a running irqbalance; drops a record of one gone */
	if (r == 0)
		r = vcp_irqbal_follow(root, &rep.irqbalance, &rep.idle, dry,
				      &rep.told);
	if (r == 0 && rep.irqbalance.running) {
		free(s);
		*ret = rep; /* irqbalance owns affinity */
		return 0;
	}
	if (r == 0)
		r = vcp_irq_list(root, &v, &n);
	if (r == 0)
		r = vcp_irq_plan_compute(v, n, s, ns, &host->online, &rep.idle,
					 &p);
	if (r == 0 && dry)
		preview(&p, &rep.res);
	else if (r == 0)
		r = vcp_irq_apply(root, &p, &rep.res);
	rep.n_irqs = n;
	rep.kept = p.n_kept;
	vcp_irq_plan_clear(&p);
	free(v);
	free(s);
	if (r < 0)
		return r;
	*ret = rep;
	return 0;
}

int vcp_irq_follow(const char *root, const struct vcp_host *host,
		   const struct vcp_plan *plan, bool enabled,
		   struct vcp_irq_report *ret)
{
	return follow(root, host, plan, enabled, false, ret);
}

int vcp_irq_preview(const char *root, const struct vcp_host *host,
		    const struct vcp_plan *plan, bool enabled,
		    struct vcp_irq_report *ret)
{
	return follow(root, host, plan, enabled, true, ret);
}
