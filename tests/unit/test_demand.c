// SPDX-License-Identifier: GPL-2.0-or-later
/* test_demand.c - the demand pipeline: windowed peak demand (grow at
 * once, shrink after the window), steal fraction, VMs appearing and
 * vanishing, a window resized by a reload, the one-shot measurement of
 * the CLI and the fleet, the unknown case and relief as the planner
 * counts them, and the trial's wait. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "demand.h"
#include "policy.h"

#define SEC 1000000000ull

/* One VM "a" with 2 vCPUs at cumulative times t0, t1 (ns) at @at. */
static struct vcp_sample *sample(uint64_t at, uint64_t t0, uint64_t t1,
				 uint64_t d0)
{
	struct vcp_sample *s = calloc(1, sizeof(*s));

	s->at_ns = at;
	s->have_vcpu_time = true;
	s->n_vms = 1;
	s->vms = calloc(1, sizeof(*s->vms));
	s->vms[0].name = strdup("a");
	s->vms[0].n_vcpus = 2;
	s->vms[0].time_ns = calloc(2, sizeof(uint64_t));
	s->vms[0].delay_ns = calloc(2, sizeof(uint64_t));
	s->vms[0].time_ns[0] = t0;
	s->vms[0].time_ns[1] = t1;
	s->vms[0].delay_ns[0] = d0;
	return s;
}

static void feed(struct vcp_tracker *t, uint64_t at, uint64_t t0,
		 uint64_t t1, uint64_t d0)
{
	struct vcp_sample *s = sample(at, t0, t1, d0);

	assert_int_equal(vcp_tracker_update(t, s), 0);
	vcp_sample_free(s);
}

static void fill(struct vcp_tracker *t, double *d0, double *d1)
{
	struct vcp_vm vm = { 0 };

	vcp_vm_alloc_vcpus(&vm, 2);
	vm.name = strdup("a");
	vcp_tracker_fill(t, &vm, 1);
	*d0 = vm.demand[0];
	*d1 = vm.demand[1];
	vcp_vm_clear(&vm);
}

static void test_peak_window(void **state)
{
	struct vcp_tracker *t;
	double a, b;

	assert_int_equal(vcp_tracker_new(3, &t), 0);
	feed(t, 10 * SEC, 0, 0, 0);
	fill(t, &a, &b);
	assert_true(a < 0 && b < 0);	/* one sample: unknown */
	/* 10 s later: vCPU0 ran 5 s (50%), vCPU1 1 s (10%) */
	feed(t, 20 * SEC, 5 * SEC, 1 * SEC, 2 * SEC);
	fill(t, &a, &b);
	assert_float_equal(a, 0.5, 1e-9);
	assert_float_equal(b, 0.1, 1e-9);
	assert_float_equal(vcp_tracker_delay(t, "a"), 0.1, 1e-9);
	/* load drops to 0: the peak holds for the window (3 samples) */
	feed(t, 30 * SEC, 5 * SEC, 1 * SEC, 2 * SEC);
	feed(t, 40 * SEC, 5 * SEC, 1 * SEC, 2 * SEC);
	fill(t, &a, &b);
	assert_float_equal(a, 0.5, 1e-9);
	feed(t, 50 * SEC, 5 * SEC, 1 * SEC, 2 * SEC);
	fill(t, &a, &b);
	assert_float_equal(a, 0.0, 1e-9);
	assert_float_equal(vcp_tracker_delay(t, "a"), 0.0, 1e-9);
	/* load rises: at once */
	feed(t, 60 * SEC, 15 * SEC, 1 * SEC, 2 * SEC);
	fill(t, &a, &b);
	assert_float_equal(a, 1.0, 1e-9);
	vcp_tracker_free(t);
}

static void test_vanish_and_resize(void **state)
{
	struct vcp_tracker *t;
	struct vcp_sample *s;
	double a, b;

	assert_int_equal(vcp_tracker_new(5, &t), 0);
	feed(t, 1 * SEC, 0, 0, 0);
	feed(t, 2 * SEC, SEC / 2, 0, 0);
	/* the VM is gone from a sample: forgotten */
	s = sample(3 * SEC, 0, 0, 0);
	s->n_vms = 0;
	assert_int_equal(vcp_tracker_update(t, s), 0);
	s->n_vms = 1;
	vcp_sample_free(s);
	fill(t, &a, &b);
	assert_true(a < 0);
	assert_float_equal(vcp_tracker_delay(t, "a"), -1, 1e-9);
	/* counters going backwards (a restarted VM) never give negatives */
	feed(t, 4 * SEC, 9 * SEC, 9 * SEC, 0);
	feed(t, 5 * SEC, 1 * SEC, 1 * SEC, 0);
	fill(t, &a, &b);
	assert_float_equal(a, 0.0, 1e-9);
	vcp_tracker_free(t);
}

static void test_two_samples(void **state)
{
	struct vcp_sample *x = sample(1 * SEC, 0, 0, 0);
	struct vcp_sample *y = sample(3 * SEC, SEC, 3 * SEC, SEC);
	struct vcp_vm vm = { 0 };

	vcp_vm_alloc_vcpus(&vm, 2);
	assert_true(vm.delay < 0);	/* unknown until measured */
	vm.name = strdup("a");
	assert_int_equal(vcp_demand_measure(x, y, &vm, 1), 0);
	/* vCPU 0 waited 1 s of 2, vCPU 1 not at all: mean 25% */
	assert_float_equal(vm.delay, 0.25, 1e-9);
	assert_float_equal(vm.demand[0], 0.5, 1e-9);
	assert_float_equal(vm.demand[1], 1.0, 1e-9);	/* clamped */
	vcp_vm_clear(&vm);
	vcp_sample_free(x);
	vcp_sample_free(y);
}

/* Waiting over the bound gives a whole CPU per vCPU for a window. */
static void test_delay_relief(void **state)
{
	struct vcp_tracker *t;
	const char *names[4];
	double a, b;

	assert_int_equal(vcp_tracker_new(3, &t), 0);
	vcp_tracker_set_max_delay(t, 0.1);
	feed(t, 10 * SEC, 0, 0, 0);
	/* vCPU0 waited 4 s of 10 (40%), vCPU1 0: mean 20%, over 10% */
	feed(t, 20 * SEC, 2 * SEC, 1 * SEC, 4 * SEC);
	assert_float_equal(vcp_tracker_delay(t, "a"), 0.2, 1e-9);
	assert_int_equal(vcp_tracker_relieve(t, names, 4), 1);
	assert_string_equal(names[0], "a");
	assert_true(vcp_tracker_relieved(t, "a"));
	fill(t, &a, &b);
	assert_float_equal(a, 1.0, 1e-9);
	assert_float_equal(b, 1.0, 1e-9);
	/* still over: relieved already, not reported again */
	feed(t, 30 * SEC, 4 * SEC, 2 * SEC, 8 * SEC);
	assert_int_equal(vcp_tracker_relieve(t, names, 4), 0);
	/* no more waiting: relief lasts the window (3 samples), then the
	 * measured peak comes back */
	feed(t, 40 * SEC, 5 * SEC, 3 * SEC, 8 * SEC);
	assert_int_equal(vcp_tracker_relieve(t, names, 4), 0);
	assert_true(vcp_tracker_relieved(t, "a"));
	feed(t, 50 * SEC, 6 * SEC, 4 * SEC, 8 * SEC);
	feed(t, 60 * SEC, 7 * SEC, 5 * SEC, 8 * SEC);
	assert_false(vcp_tracker_relieved(t, "a"));
	fill(t, &a, &b);
	assert_float_equal(a, 0.1, 1e-9);
	assert_float_equal(b, 0.1, 1e-9);
	/* bound 0: never relieved */
	vcp_tracker_set_max_delay(t, 0);
	feed(t, 70 * SEC, 8 * SEC, 6 * SEC, 18 * SEC);
	assert_int_equal(vcp_tracker_relieve(t, names, 4), 0);
	assert_false(vcp_tracker_relieved(t, "a"));
	vcp_tracker_free(t);
}

/* News for the daemon: a step of 1/20 CPU or more, not noise. */
static void test_fingerprint(void **state)
{
	struct vcp_tracker *t;
	uint64_t f0, f1, f2;

	assert_int_equal(vcp_tracker_new(1, &t), 0);
	feed(t, 10 * SEC, 0, 0, 0);
	feed(t, 20 * SEC, 2 * SEC, 2 * SEC, 0);	/* 20% both */
	f0 = vcp_tracker_fingerprint(t);
	feed(t, 30 * SEC, 4 * SEC + SEC / 100, 4 * SEC, 0);	/* 20.1% */
	f1 = vcp_tracker_fingerprint(t);
	assert_true(f0 == f1);
	feed(t, 40 * SEC, 7 * SEC, 6 * SEC, 0);	/* 30%, 20% */
	f2 = vcp_tracker_fingerprint(t);
	assert_true(f2 != f1);
	vcp_tracker_free(t);
}

/* Feed vCPU0 of "a" a run of utilisations (vCPU1 idle), 10 s apart. */
static void feed_run(struct vcp_tracker *t, const double *u, size_t n)
{
	uint64_t at = 10 * SEC, t0 = 0;

	feed(t, at, 0, 0, 0);
	for (size_t i = 0; i < n; i++) {
		at += 10 * SEC;
		t0 += (uint64_t)(u[i] * 10 * SEC);
		feed(t, at, t0, 0, 0);
	}
}

/* A reload's new window keeps the newest figures. */
static void test_set_window(void **state)
{
	static const double run[] = { 0.9, 0.2, 0.4, 0.3 };
	struct vcp_tracker *t;
	double a, b;

	assert_int_equal(vcp_tracker_new(4, &t), 0);
	feed_run(t, run, 4);
	fill(t, &a, &b);
	assert_float_equal(a, 0.9, 1e-9);
	/* shrink to 2: the newest two (0.4, 0.3) are held */
	assert_int_equal(vcp_tracker_set_window(t, 2), 0);
	fill(t, &a, &b);
	assert_float_equal(a, 0.4, 1e-9);
	assert_float_equal(b, 0.0, 1e-9);
	/* and the ring goes on from there: 0.4 falls out after 0.1 */
	feed(t, 60 * SEC, 18 * SEC + 1 * SEC, 0, 0);
	fill(t, &a, &b);
	assert_float_equal(a, 0.3, 1e-9);
	/* grow to 5: nothing lost, the next four figures all held */
	assert_int_equal(vcp_tracker_set_window(t, 5), 0);
	feed(t, 70 * SEC, 19 * SEC + 5 * SEC / 10, 0, 0); /* 0.05 */
	fill(t, &a, &b);
	assert_float_equal(a, 0.3, 1e-9);
	/* 0 is taken as 1: only the latest */
	assert_int_equal(vcp_tracker_set_window(t, 0), 0);
	fill(t, &a, &b);
	assert_float_equal(a, 0.05, 1e-9);
	vcp_tracker_free(t);
}

/* A relief outlasts no window: cut short by a smaller one. */
static void test_set_window_relief(void **state)
{
	struct vcp_tracker *t;
	const char *names[2];

	assert_int_equal(vcp_tracker_new(6, &t), 0);
	vcp_tracker_set_max_delay(t, 0.1);
	feed(t, 10 * SEC, 0, 0, 0);
	feed(t, 20 * SEC, 0, 0, 5 * SEC); /* 50% on vCPU0: mean 25% */
	assert_int_equal(vcp_tracker_relieve(t, names, 2), 1);
	assert_int_equal(vcp_tracker_set_window(t, 1), 0);
	assert_true(vcp_tracker_relieved(t, "a"));
	feed(t, 30 * SEC, 0, 0, 5 * SEC); /* no more waiting */
	assert_int_equal(vcp_tracker_relieve(t, names, 2), 0);
	assert_false(vcp_tracker_relieved(t, "a"));
	vcp_tracker_free(t);
}

/* The one-shot measurement: what a tracker of one window says. */
static void test_measure_like_tracker(void **state)
{
	struct vcp_sample *x = sample(1 * SEC, 4 * SEC, 0, 0);
	struct vcp_sample *y = sample(5 * SEC, 1 * SEC, 2 * SEC, 0);
	struct vcp_sample *none = sample(9 * SEC, 0, 0, 0);
	struct vcp_vm vm = { 0 };

	vcp_vm_alloc_vcpus(&vm, 3);
	vm.name = strdup("a");
	/* vCPU0's counter went back (a restarted VM): 0, as the tracker
	 * says (the old code left it unknown); vCPU2 is in no sample */
	assert_int_equal(vcp_demand_measure(x, y, &vm, 1), 0);
	assert_float_equal(vm.demand[0], 0.0, 1e-9);
	assert_float_equal(vm.demand[1], 0.5, 1e-9);
	assert_true(vm.demand[2] < 0);
	assert_float_equal(vm.delay, 0.0, 1e-9);
	/* a VM missing from a sample, or samples out of order: untouched */
	none->n_vms = 0;
	vm.demand[1] = -1;
	assert_int_equal(vcp_demand_measure(x, none, &vm, 1), 0);
	assert_true(vm.demand[1] < 0);
	assert_int_equal(vcp_demand_measure(y, x, &vm, 1), 0);
	assert_true(vm.demand[1] < 0);
	none->n_vms = 1;
	vcp_vm_clear(&vm);
	vcp_sample_free(x);
	vcp_sample_free(y);
	vcp_sample_free(none);
}

/* What the planner counts: measured, the default while unknown, a
 * whole CPU while the VM waits over the bound. */
static void test_vcpu_demand(void **state)
{
	struct vcp_policy p;
	struct vcp_vm vm = { 0 };
	bool assumed;

	vcp_policy_defaults(&p);
	p.default_vcpu_demand = 0.25;
	p.max_vcpu_delay = 0.1;
	vcp_vm_alloc_vcpus(&vm, 2);
	vm.demand[0] = 0.5;
	assert_float_equal(vcp_vcpu_demand(&vm, 0, &p), 0.5, 1e-12);
	assert_float_equal(vcp_vcpu_demand(&vm, 1, &p), 0.25, 1e-12);
	assert_float_equal(vcp_vcpu_demand(&vm, 7, &p), 0.25, 1e-12);
	assert_float_equal(vcp_vm_demand(&vm, &p, &assumed), 0.75, 1e-12);
	assert_true(assumed);
	assert_float_equal(vcp_vm_demand(&vm, NULL, &assumed), 0.5, 1e-12);
	vm.demand[1] = 0;
	assert_float_equal(vcp_vm_demand(&vm, NULL, &assumed), 0.5, 1e-12);
	assert_false(assumed);
	/* waiting: at the bound no relief, over it a whole CPU each */
	vm.delay = 0.1;
	assert_float_equal(vcp_vcpu_demand(&vm, 1, &p), 0.0, 1e-12);
	vm.delay = 0.11;
	assert_float_equal(vcp_vcpu_demand(&vm, 0, &p), 1.0, 1e-12);
	assert_float_equal(vcp_vcpu_demand(&vm, 1, &p), 1.0, 1e-12);
	/* bound 0: never */
	p.max_vcpu_delay = 0;
	assert_float_equal(vcp_vcpu_demand(&vm, 1, &p), 0.0, 1e-12);
	assert_false(vcp_demand_over_delay(1.0, 0));
	assert_false(vcp_demand_over_delay(-1, 0.1));
	vcp_vm_clear(&vm);
	vcp_policy_clear(&p);
}

/* The trial's wait: summed over vCPUs, none when the count changed. */
static void test_wait_ns(void **state)
{
	struct vcp_sample *x = sample(1 * SEC, 0, 0, 3 * SEC);
	struct vcp_sample *y = sample(2 * SEC, 0, 0, 5 * SEC);
	uint64_t ns = 7;

	y->vms[0].delay_ns[1] = SEC / 2;
	assert_int_equal(vcp_demand_wait_ns(&x->vms[0], &y->vms[0], &ns), 0);
	assert_true(ns == 2 * SEC + SEC / 2);
	/* a counter that went back adds nothing */
	assert_int_equal(vcp_demand_wait_ns(&y->vms[0], &x->vms[0], &ns), 0);
	assert_true(ns == 0);
	ns = 7;
	y->vms[0].n_vcpus = 1;
	assert_int_equal(vcp_demand_wait_ns(&x->vms[0], &y->vms[0], &ns),
			 -ESTALE);
	assert_true(ns == 7);
	y->vms[0].n_vcpus = 2;
	vcp_sample_free(x);
	vcp_sample_free(y);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peak_window),
		cmocka_unit_test(test_vanish_and_resize),
		cmocka_unit_test(test_two_samples),
		cmocka_unit_test(test_delay_relief),
		cmocka_unit_test(test_fingerprint),
		cmocka_unit_test(test_set_window),
		cmocka_unit_test(test_set_window_relief),
		cmocka_unit_test(test_measure_like_tracker),
		cmocka_unit_test(test_vcpu_demand),
		cmocka_unit_test(test_wait_ns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
