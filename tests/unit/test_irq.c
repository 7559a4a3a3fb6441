// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_irq.c - irq.c on the fixture trees in tests/data/irq/: parsing
 * /proc/interrupts, interrupts per package per second, the pure affinity
 * plan (off idle packages, managed IRQs counted and left alone, back when
 * the package wakes, someone else's change respected), irqbalance
 * detection. Writes go to a mkdtemp() copy of a fixture under TMPDIR:
 * never to the source tree, never to this machine's /proc.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "fixture.h"
#include "irq.h"
#include "kernel.h"
#include "modeljson.h"
#include "sysfile.h"

#define DATA VCP_SRCDIR "/tests/data/irq/"

static struct vcp_host *two_pkg_host(void)
{
	struct json_object *o = json_tokener_parse(
		"{\"packages\": 2, \"cores\": 4, \"threads\": 1}");
	struct vcp_host *h = NULL;
	char *err = NULL;

	assert_int_equal(vcp_model_host_from_json(o, &h, &err), 0);
	json_object_put(o);
	return h;
}

static struct vcp_cpuset set_of(const char *list)
{
	struct vcp_cpuset s;

	assert_int_equal(vcp_cpuset_parse(list, &s), 0);
	return s;
}

static const char *fmt(const struct vcp_cpuset *s)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	assert_int_equal(vcp_cpuset_format(s, buf[k], sizeof(buf[k])), 0);
	return buf[k];
}

/* ---- counts and rates ---- */

static void test_counts(void **state)
{
	struct vcp_irq_counts c = { 0 };

	assert_int_equal(vcp_irq_counts_read(DATA "two-pkg", &c), 0);
	assert_int_equal(c.n_cols, 8);
	assert_int_equal(c.col_cpu[7], 7);
	/* CPU0: timer 40 + nvme0q0 100 + NMI 1 + LOC 1000 + RES 10 */
	assert_int_equal(c.all[0], 1151);
	assert_int_equal(c.dev[0], 140);
	assert_int_equal(c.dev[4], 1000);
	assert_int_equal(c.all[4], 3011);
	vcp_irq_counts_clear(&c);

	assert_int_equal(vcp_irq_counts_parse("  CPU0 CPUx\n", &c), -EBADMSG);
	assert_int_equal(vcp_irq_counts_parse("", &c), -EBADMSG);
	assert_int_equal(vcp_irq_counts_parse("CPU0 CPU1\n 3 4 5\n", &c),
			 -EBADMSG);
	assert_int_equal(vcp_irq_counts_read(DATA "nowhere", &c), -ENOENT);
}

static void test_rates(void **state)
{
	struct vcp_irq_counts a = { 0 }, b = { 0 };
	struct vcp_host *h = two_pkg_host();
	double all[2], dev[2];

	assert_int_equal(vcp_irq_counts_read(DATA "two-pkg", &a), 0);
	assert_int_equal(vcp_irq_counts_read(DATA "two-pkg-1s", &b), 0);
	assert_int_equal(vcp_irq_rates(h, &a, &b, 1.0, all, dev), 0);
	assert_float_equal(all[0], 1017, 1e-9);
	assert_float_equal(dev[0], 15, 1e-9);
	assert_float_equal(all[1], 490, 1e-9);
	assert_float_equal(dev[1], 90, 1e-9);
	assert_int_equal(vcp_irq_rates(h, &a, &b, 2.0, all, dev), 0);
	assert_float_equal(all[0], 508.5, 1e-9);
	assert_float_equal(dev[1], 45, 1e-9);
	/* Backwards (a counter reset): nothing, never negative. */
	assert_int_equal(vcp_irq_rates(h, &b, &a, 1.0, all, dev), 0);
	assert_float_equal(all[0], 0, 1e-12);
	assert_float_equal(all[1], 0, 1e-12);
	assert_int_equal(vcp_irq_rates(h, &a, &b, 0, all, dev), -EINVAL);
	vcp_irq_counts_clear(&a);
	vcp_irq_counts_clear(&b);
	vcp_host_free(h);
}

/* ---- the device IRQs of a tree ---- */

static void test_list(void **state)
{
	struct vcp_irq *v = NULL;
	size_t n = 0;

	assert_int_equal(vcp_irq_list(DATA "two-pkg", &v, &n), 0);
	/* 7 has no /proc/irq/7: not steerable, not listed */
	assert_int_equal(n, 5);
	assert_int_equal(v[0].irq, 0);
	assert_int_equal(v[1].irq, 24);
	assert_string_equal(v[1].name, "IR-PCI-MSI 524288-edge nvme0q0");
	assert_string_equal(fmt(&v[1].affinity), "0-7");
	assert_string_equal(fmt(&v[1].effective), "5");
	assert_int_equal(v[3].irq, 26);
	assert_string_equal(fmt(&v[3].affinity), "4-7");
	assert_string_equal(v[4].name, "IR-PCI-MSI 327680-edge ahci[0000:00:17.0]");
	assert_false(v[2].managed);
	free(v);
}

/* ---- the pure plan ---- */

static void fake_plan(struct vcp_plan *pl, bool *active, const char *res)
{
	memset(pl, 0, sizeof(*pl));
	pl->n_packages = 2;
	pl->pkg_active = active;
	pl->reserved = set_of(res);
}

static void test_idle_cpus(void **state)
{
	struct vcp_host *h = two_pkg_host();
	bool active[2] = { true, false };
	struct vcp_plan pl;
	struct vcp_cpuset idle;

	fake_plan(&pl, active, "");
	vcp_irq_idle_cpus(h, &pl, &idle);
	assert_string_equal(fmt(&idle), "4-7");
	/* A package reserved whole for the host is not idle. */
	fake_plan(&pl, active, "4-7");
	vcp_irq_idle_cpus(h, &pl, &idle);
	assert_true(vcp_cpuset_empty(&idle));
	active[1] = true;
	fake_plan(&pl, active, "");
	vcp_irq_idle_cpus(h, &pl, &idle);
	assert_true(vcp_cpuset_empty(&idle));
	vcp_host_free(h);
}

static const struct vcp_irq_move *move_of(const struct vcp_irq_plan *p,
					  unsigned int irq)
{
	for (size_t i = 0; i < p->n_moves; i++)
		if (p->moves[i].irq == irq)
			return &p->moves[i];
	return NULL;
}

static void test_plan(void **state)
{
	struct vcp_cpuset online = set_of("0-7"), idle = set_of("4-7");
	struct vcp_irq_plan p;
	struct vcp_irq *v = NULL;
	size_t n = 0;

	assert_int_equal(vcp_irq_list(DATA "two-pkg", &v, &n), 0);
	v[2].managed = true;	/* 25: as a refused write marks it */
	assert_int_equal(vcp_irq_plan_compute(v, n, NULL, 0, &online, &idle,
					      &p), 0);
	assert_int_equal(p.n_managed, 1);
	assert_int_equal(p.n_kept, 1);		/* 27 is on CPU 1 */
	assert_int_equal(p.n_moves, 3);
	assert_string_equal(fmt(&move_of(&p, 0)->to), "0-3");
	assert_string_equal(fmt(&move_of(&p, 24)->from), "0-7");
	assert_string_equal(fmt(&move_of(&p, 24)->to), "0-3");
	/* eth0 only had package 1: the awake packages' CPUs */
	assert_string_equal(fmt(&move_of(&p, 26)->to), "0-3");
	assert_null(move_of(&p, 25));
	assert_false(move_of(&p, 24)->restore);
	assert_int_equal(p.n_saved, 3);
	assert_int_equal(p.saved[2].irq, 26);
	assert_string_equal(fmt(&p.saved[2].orig), "4-7");
	assert_string_equal(fmt(&p.saved[2].set), "0-3");
	vcp_irq_plan_clear(&p);

	/* Nothing idle, nothing recorded: nothing to do. */
	vcp_cpuset_zero(&idle);
	assert_int_equal(vcp_irq_plan_compute(v, n, NULL, 0, &online, &idle,
					      &p), 0);
	assert_int_equal(p.n_moves, 0);
	assert_int_equal(p.n_saved, 0);
	assert_int_equal(p.n_kept, 4);
	vcp_irq_plan_clear(&p);
	free(v);
}

/* ---- on a copy ---- */

struct tmp {
	char dir[512];
	char root[1024];
};

static void tmp_copy(struct tmp *t, const char *fixture)
{
	char src[PATH_MAX];

	t_tmpdir(t->dir, sizeof(t->dir), "irq");
	snprintf(t->root, sizeof(t->root), "%s/%s", t->dir, fixture);
	snprintf(src, sizeof(src), "%s%s", DATA, fixture);
	t_copy(src, t->dir);
}

static void tmp_remove(struct tmp *t)
{
	t_rmtree(t->dir);
}

static const char *affinity(const struct tmp *t, unsigned int irq)
{
	static char buf[256];
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/proc/irq/%u/smp_affinity_list",
		 t->root, irq);
	assert_int_equal(vcp_read_line(path, buf, sizeof(buf)), 0);
	return buf;
}

/* One pass as `vcpack apply` makes it: list, load, plan, apply. */
static void pass(const struct tmp *t, const char *idle_list,
		 struct vcp_irq_result *res, size_t *ret_moves)
{
	struct vcp_cpuset online = set_of("0-7"), idle = set_of(idle_list);
	struct vcp_irq_saved *s = NULL;
	struct vcp_irq_plan p;
	struct vcp_irq *v = NULL;
	size_t n = 0, ns = 0;

	assert_int_equal(vcp_irq_list(t->root, &v, &n), 0);
	assert_int_equal(vcp_irq_saved_load(t->root, &s, &ns), 0);
	assert_int_equal(vcp_irq_plan_compute(v, n, s, ns, &online, &idle,
					      &p), 0);
	assert_int_equal(vcp_irq_apply(t->root, &p, res), 0);
	*ret_moves = p.n_moves;
	vcp_irq_plan_clear(&p);
	free(s);
	free(v);
}

static void test_apply_restore(void **state)
{
	struct vcp_irq_saved *s = NULL;
	struct vcp_irq_result res;
	struct tmp t;
	size_t ns = 0, moves;

	tmp_copy(&t, "two-pkg");
	/* Package 1 sleeps. */
	pass(&t, "4-7", &res, &moves);
	assert_int_equal(moves, 4);
	assert_int_equal(res.moved, 3);
	assert_int_equal(res.managed, 1);	/* 25 refused: EIO */
	assert_int_equal(res.failed, 0);
	assert_string_equal(affinity(&t, 0), "0-3");
	assert_string_equal(affinity(&t, 24), "0-3");
	assert_string_equal(affinity(&t, 25), "4");	/* left alone */
	assert_string_equal(affinity(&t, 26), "0-3");
	assert_string_equal(affinity(&t, 27), "1");
	assert_int_equal(vcp_irq_saved_load(t.root, &s, &ns), 0);
	assert_int_equal(ns, 3);
	assert_int_equal(s[1].irq, 24);
	assert_string_equal(fmt(&s[1].orig), "0-7");
	free(s);

	/* Again: only the managed one is tried (and refused) again. */
	pass(&t, "4-7", &res, &moves);
	assert_int_equal(moves, 1);
	assert_int_equal(res.moved, 0);
	assert_int_equal(res.managed, 1);
	assert_string_equal(affinity(&t, 24), "0-3");

	/* Someone else re-points 24: theirs from now on. */
	{
		char path[PATH_MAX];
		FILE *f;

		snprintf(path, sizeof(path),
			 "%s/proc/irq/24/smp_affinity_list", t.root);
		f = fopen(path, "w");
		assert_non_null(f);
		fputs("2\n", f);
		fclose(f);
	}

	/* Package 1 wakes: back to the originals, the record goes. */
	pass(&t, "", &res, &moves);
	assert_int_equal(res.restored, 2);
	assert_int_equal(res.moved, 0);
	assert_string_equal(affinity(&t, 0), "0-7");
	assert_string_equal(affinity(&t, 24), "2");
	assert_string_equal(affinity(&t, 26), "4-7");
	assert_int_equal(vcp_irq_saved_load(t.root, &s, &ns), 0);
	assert_int_equal(ns, 0);
	assert_null(s);
	tmp_remove(&t);
}

static void test_kernel_write(void **state)
{
	struct vcp_cpuset none, two = set_of("2");
	struct tmp t;

	vcp_cpuset_zero(&none);
	tmp_copy(&t, "two-pkg");
	assert_int_equal(vcp_kernel_set_irq_affinity(t.root, 24, &none),
			 -EINVAL);
	assert_int_equal(vcp_kernel_set_irq_affinity(t.root, 99, &two),
			 -ENOENT);
	assert_int_equal(vcp_kernel_set_irq_affinity(t.root, 25, &two), -EIO);
	assert_string_equal(affinity(&t, 25), "4");
	assert_int_equal(vcp_kernel_set_irq_affinity(t.root, 24, &two), 0);
	assert_string_equal(affinity(&t, 24), "2");
	tmp_remove(&t);
}

/* A 16,384-CPU host's longest affinity lists (every other CPU, 43,596
 * characters): written to the kernel, kept in the record of what vcpack
 * changed and read back whole. */
static void test_wide_lists(void **state)
{
	struct vcp_irq_saved one = { .irq = 24 }, *s = NULL;
	struct vcp_cpuset odd, now;
	char path[PATH_MAX], *buf = malloc(65536);
	size_t ns = 0;
	struct tmp t;

	vcp_cpuset_zero(&odd);
	for (unsigned int c = 1; c < 16384; c += 2)
		vcp_cpuset_set(&odd, c);
	tmp_copy(&t, "two-pkg");
	assert_int_equal(vcp_kernel_set_irq_affinity(t.root, 24, &odd), 0);
	snprintf(path, sizeof(path), "%s/proc/irq/24/smp_affinity_list",
		 t.root);
	assert_non_null(buf);
	assert_int_equal(vcp_read_line(path, buf, 65536), 0);
	assert_int_equal(strlen(buf), 43596);
	assert_int_equal(vcp_cpuset_parse(buf, &now), 0);
	assert_true(vcp_cpuset_equal(&now, &odd));
	/* already so: nothing written, still equal */
	assert_int_equal(vcp_kernel_set_irq_affinity(t.root, 24, &odd), 0);
	one.orig = odd;
	one.set = set_of("0-3");
	assert_int_equal(vcp_irq_saved_store(t.root, &one, 1), 0);
	assert_int_equal(vcp_irq_saved_load(t.root, &s, &ns), 0);
	assert_int_equal(ns, 1);
	assert_int_equal(s[0].irq, 24);
	assert_true(vcp_cpuset_equal(&s[0].orig, &odd));
	assert_true(vcp_cpuset_equal(&s[0].set, &one.set));
	free(s);
	free(buf);
	tmp_remove(&t);
}

/* ---- irqbalance ---- */

static void test_irqbalance(void **state)
{
	struct vcp_irqbalance b;

	assert_int_equal(vcp_irqbalance_detect(DATA "two-pkg", &b), 0);
	assert_false(b.running);
	assert_int_equal(vcp_irqbalance_detect(DATA "irqbalance-pid", &b), 0);
	assert_true(b.running);
	assert_int_equal(b.pid, 321);
	assert_false(b.has_banned);	/* commented out */
	assert_int_equal(vcp_irqbalance_detect(DATA "irqbalance-comm", &b), 0);
	assert_true(b.running);
	assert_int_equal(b.pid, 555);
	assert_true(b.has_banned);
	assert_string_equal(fmt(&b.banned), "4-7");
	assert_int_equal(vcp_irqbalance_detect(DATA "irqbalance-stale", &b), 0);
	assert_false(b.running);
	/* its pid taken by another program since */
	assert_int_equal(vcp_irqbalance_detect(DATA "irqbalance-reused", &b),
			 0);
	assert_false(b.running);
	assert_int_equal(b.pid, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_idle_cpus),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_apply_restore),
		cmocka_unit_test(test_wide_lists),
		cmocka_unit_test(test_kernel_write),
		cmocka_unit_test(test_irqbalance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
