// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_declog.c - vcpackd's one line per VM decision (declog.c): the
 * line's words for each placement, no line while the decision stays the
 * same, one when it changes, a VM that leaves forgotten; and the CLI's
 * middle ellipsis (render.c vcp_render_shorten), which never shows two
 * names of one table alike (vcp_render_cut).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <glib.h>

#include "declog.h"
#include "render.h"

struct fixture {
	struct vcp_package pkgs[2];
	struct vcp_host host;
	struct vcp_vm vms[2];
	struct vcp_cpuset pins[2][2];
	struct vcp_vm_plan vp[2];
	struct vcp_plan plan;
	struct vcp_world w;
};

static void set(struct vcp_cpuset *s, const char *list)
{
	assert_int_equal(vcp_cpuset_parse(list, s), 0);
}

/* Two packages (ids 0 and 1); 'web' spread on 0,4, 'batch' pack
 * gathered on package 1 (CPUs 2-3,6-7) at level 2. */
static void fixture_init(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->pkgs[0].id = 0;
	f->pkgs[1].id = 1;
	f->host.packages = f->pkgs;
	f->host.n_packages = 2;
	f->vms[0].name = (char *)"web";
	f->vms[1].name = (char *)"batch";
	for (int i = 0; i < 2; i++) {
		f->vms[i].managed = true;
		f->vms[i].n_vcpus = 2;
		f->vms[i].vcpu_pins = f->pins[i];
		f->vp[i].name = f->vms[i].name;
		f->vp[i].n_vcpus = 2;
		f->vp[i].vcpu_pins = f->pins[i];
	}
	set(&f->pins[0][0], "0");
	set(&f->pins[0][1], "4");
	set(&f->vp[0].emulator_pins, "1-3,5-7");
	f->vp[0].class = VCP_CLASS_SPREAD;
	f->vp[0].placement = VCP_PLACE_EXCLUSIVE;
	f->vp[0].package = 0;
	set(&f->pins[1][0], "2-3,6-7");
	set(&f->pins[1][1], "2-3,6-7");
	set(&f->vp[1].emulator_pins, "2-3,6-7");
	f->vp[1].class = VCP_CLASS_PACK;
	f->vp[1].placement = VCP_PLACE_GATHERED;
	f->vp[1].package = 1;
	f->plan.level = 2;
	f->plan.vms = f->vp;
	f->plan.n_vms = 2;
	f->w.host = &f->host;
	f->w.vms = f->vms;
	f->w.n_vms = 2;
}

static size_t n_lines(char **l)
{
	size_t n = 0;

	while (l[n])
		n++;
	return n;
}

static void test_lines(void **state)
{
	struct fixture f;
	char *l;

	fixture_init(&f);
	l = vcp_declog_line(&f.w, &f.plan, 0);
	assert_string_equal(
		l,
		"'web': spread, exclusive cores (class spread); vCPUs on 0,4, emulator on 1-3,5-7");
	g_free(l);
	l = vcp_declog_line(&f.w, &f.plan, 1);
	assert_string_equal(
		l,
		"'batch': pack, gathered on package 1 (level 2 gathers pack VMs); vCPUs on 2-3,6-7, emulator on 2-3,6-7");
	g_free(l);
	f.vp[1].placement = VCP_PLACE_FREE;
	f.plan.level = 0;
	l = vcp_declog_line(&f.w, &f.plan, 1);
	assert_string_equal(
		l,
		"'batch': pack, free on every CPU left for VMs (not gathered at level 0); vCPUs on 2-3,6-7, emulator on 2-3,6-7");
	g_free(l);
	/* level 0 is hands off: left as it is, or put back first */
	f.vp[1].placement = VCP_PLACE_UNMANAGED;
	l = vcp_declog_line(&f.w, &f.plan, 1);
	assert_string_equal(
		l,
		"'batch': untouched, left as it is (level 0: hands off); vCPUs on 2-3,6-7");
	g_free(l);
	f.vp[1].restore = true;
	l = vcp_declog_line(&f.w, &f.plan, 1);
	assert_string_equal(
		l,
		"'batch': untouched, put back as it was found (level 0: hands off); vCPUs on 2-3,6-7");
	g_free(l);
	f.vp[1].restore = false;
	f.vms[1].managed = false;
	l = vcp_declog_line(&f.w, &f.plan, 1);
	assert_string_equal(
		l,
		"'batch': untouched, left as it is (not managed); vCPUs on 2-3,6-7");
	g_free(l);
	f.vms[1].unmanaged_why = "its tag says class unmanaged: vcpack never changes it";
	l = vcp_declog_line(&f.w, &f.plan, 1);
	assert_string_equal(
		l,
		"'batch': untouched, left as it is: its tag says class unmanaged: vcpack never changes it; vCPUs on 2-3,6-7");
	g_free(l);
	f.vms[1].unmanaged_why = NULL;
	(void)state;
}

static void test_changes_only(void **state)
{
	struct vcp_declog *d;
	struct fixture f;
	char **l;

	fixture_init(&f);
	assert_int_equal(vcp_declog_new(&d), 0);
	assert_int_equal(vcp_declog_update(d, &f.w, &f.plan, &l), 0);
	assert_int_equal(n_lines(l), 2);
	g_strfreev(l);
	/* the same plan again, and a demand that moved: nothing to say */
	f.vp[1].demand = 1.37;
	assert_int_equal(vcp_declog_update(d, &f.w, &f.plan, &l), 0);
	assert_int_equal(n_lines(l), 0);
	g_strfreev(l);
	/* batch moves: one line, for batch */
	set(&f.pins[1][0], "1");
	assert_int_equal(vcp_declog_update(d, &f.w, &f.plan, &l), 0);
	assert_int_equal(n_lines(l), 1);
	assert_non_null(strstr(l[0], "'batch': pack"));
	g_strfreev(l);
	/* web leaves, then comes back: said again */
	f.w.vms = &f.vms[1];
	f.plan.vms = &f.vp[1];
	f.w.n_vms = f.plan.n_vms = 1;
	assert_int_equal(vcp_declog_update(d, &f.w, &f.plan, &l), 0);
	assert_int_equal(n_lines(l), 0);
	g_strfreev(l);
	f.w.vms = f.vms;
	f.plan.vms = f.vp;
	f.w.n_vms = f.plan.n_vms = 2;
	assert_int_equal(vcp_declog_update(d, &f.w, &f.plan, &l), 0);
	assert_int_equal(n_lines(l), 1);
	assert_non_null(strstr(l[0], "'web': spread"));
	g_strfreev(l);
	vcp_declog_free(d);
	vcp_declog_free(NULL);
	(void)state;
}

static void test_shorten(void **state)
{
	const char *longname =
		"pinned-vm-of-the-accounting-department-in-building-seven-042";
	char b[64];

	assert_string_equal(vcp_render_shorten(longname, 20, b, sizeof(b)),
			    "pinned-vm...even-042");
	assert_int_equal(strlen(b), 20);
	assert_string_equal(vcp_render_shorten("web", 20, b, sizeof(b)), "web");
	assert_string_equal(vcp_render_shorten("exactly-twenty-chars", 20, b,
					       sizeof(b)),
			    "exactly-twenty-chars");
	/* a UTF-8 character ("\xc3\xa9") is never cut, at the head's end
	 * or at the tail's start */
	assert_string_equal(vcp_render_shorten("abcde\xc3\xa9"
					       "fghijklmnopqrstuvwxyz",
					       14, b, sizeof(b)),
			    "abcde...vwxyz");
	assert_string_equal(vcp_render_shorten("abcdefghijklmnopqrstu\xc3\xa9"
					       "wxyz",
					       14, b, sizeof(b)),
			    "abcdef...wxyz");
	/* too narrow to shorten, or a buffer too small: whole (cut by it) */
	assert_string_equal(vcp_render_shorten("abcdefgh", 4, b, sizeof(b)),
			    "abcdefgh");
	(void)state;
}

#define TWIN(n) "batch-a-0-nightly-analytics-job-runner-" n "-for-the-warehouse"

static void test_cut_apart(void **state)
{
	struct vcp_names t;
	const char *a, *b;

	/* alone, or with names that cut differently: the plain cut */
	vcp_names_init(&t, 20, false);
	vcp_names_add(&t, TWIN("17"));
	vcp_names_add(&t, "web");
	assert_string_equal(vcp_render_cut(&t, TWIN("17")),
			    "batch-a-0...arehouse");
	assert_string_equal(vcp_render_cut(&t, "web"), "web");
	vcp_names_clear(&t);

	/* differing deep inside: a window there, both of them */
	vcp_names_add(&t, TWIN("17"));
	vcp_names_add(&t, TWIN("18"));
	assert_string_equal(vcp_render_cut(&t, TWIN("18")),
			    "bat...nner-18-...use");
	assert_string_equal(vcp_render_cut(&t, TWIN("17")),
			    "bat...nner-17-...use");
	assert_int_equal(strlen(vcp_render_cut(&t, TWIN("17"))), 20);
	vcp_names_clear(&t);

	/* near the start: a longer head; the same name twice, one entry */
	vcp_names_add(
		&t,
		"batch-a-02-nightly-analytics-job-runner-for-the-warehouse");
	vcp_names_add(
		&t,
		"batch-a-06-nightly-analytics-job-runner-for-the-warehouse");
	vcp_names_add(
		&t,
		"batch-a-06-nightly-analytics-job-runner-for-the-warehouse");
	assert_int_equal(t.n, 2);
	assert_string_equal(
		vcp_render_cut(
			&t,
			"batch-a-06-nightly-analytics-job-runner-for-the-warehouse"),
		"batch-a-06-...ehouse");
	vcp_names_clear(&t);

	/* met only as shown: the first keeps its cut, the next another */
	a = vcp_render_cut(&t, TWIN("17"));
	b = vcp_render_cut(&t, TWIN("18"));
	assert_string_equal(a, "batch-a-0...arehouse");
	assert_string_equal(b, "bat...nner-18-...use");
	/* a name that reads as another's cut: "~N" */
	b = vcp_render_cut(&t, "bat...nner-18-...use");
	assert_string_equal(b, "bat...nn...-...use~1");
	vcp_names_clear(&t);

	/* --wide: whole */
	vcp_names_init(&t, 20, true);
	assert_string_equal(vcp_render_cut(&t, TWIN("17")), TWIN("17"));
	vcp_names_clear(&t);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_changes_only),
		cmocka_unit_test(test_shorten),
		cmocka_unit_test(test_cut_apart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
