// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_virt_live.c - what virt.c writes for a running VM (pins, the
 * memory nodeset, the record of its original pins, the host record) goes
 * to the running VM only:
 * where the VM has stopped meanwhile, the write fails as "gone" (-ENOENT)
 * instead of landing in its persistent definition. Against libvirt's
 * test driver in this process (tests/data/hosts/one-stopped.xml: one
 * running VM, one defined and shut off); no daemon.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpuset.h"
#include "topology.h"
#include "virt.h"

#define URI "test://" VCP_SRCDIR "/tests/data/hosts/one-stopped.xml"

struct fixture {
	struct vcp_virt *v;
	struct vcp_host *host;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char *err = NULL;

	assert_non_null(f);
	assert_int_equal(vcp_virt_open(URI, false, &f->v, &err), 0);
	assert_int_equal(vcp_virt_host(f->v, &f->host, &err), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	vcp_host_free(f->host);
	vcp_virt_close(f->v);
	free(f);
	return 0;
}

static void set(struct vcp_cpuset *s, const char *list)
{
	memset(s, 0, sizeof(*s));
	assert_int_equal(vcp_cpuset_parse(list, s), 0);
}

static struct vcp_saved_pins saved_of(struct vcp_cpuset *vcpu,
				      const char *list)
{
	struct vcp_saved_pins s = { .n_vcpus = 2, .vcpu = vcpu,
				    .has_emulator = true };

	set(&vcpu[0], list);
	set(&vcpu[1], list);
	set(&s.emulator, list);
	return s;
}

/* The running VM as vcp_virt_list_vms() sees it (the only one listed). */
static void list_running(struct fixture *f, struct vcp_vm **ret)
{
	struct vcp_vm_issue *iss = NULL;
	size_t n = 0, n_iss = 0;
	char *err = NULL;

	assert_int_equal(vcp_virt_list_vms(f->v, f->host, ret, &n, &iss,
					   &n_iss, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal((*ret)[0].name, "running");
	vcp_vm_issues_free(iss, n_iss);
}

static void test_record_of_stopped_vm_refused(void **state)
{
	struct fixture *f = *state;
	struct vcp_cpuset vcpu[2];
	struct vcp_saved_pins s = saved_of(vcpu, "0-3");
	struct vcp_host_rec h = { VCP_MODE_PIN, 0, 1700000000 };
	char *err = NULL;

	assert_int_equal(vcp_virt_set_saved(f->v, "stopped", &s, &err), -ENOENT);
	assert_non_null(strstr(err, "stopped"));
	free(err);
	err = NULL;
	assert_int_equal(vcp_virt_set_host_rec(f->v, "stopped", &h, &err),
			 -ENOENT);
	free(err);
	err = NULL;
	assert_int_equal(vcp_virt_clear_saved(f->v, "stopped", &err), -ENOENT);
	free(err);
}

static void test_pins_of_stopped_vm_refused(void **state)
{
	struct fixture *f = *state;
	struct vcp_cpuset one;
	char *err = NULL;

	set(&one, "1");
	assert_int_equal(vcp_virt_pin_vcpu(f->v, "stopped", 0, &one,
					   f->host->max_cpus, &err), -ENOENT);
	free(err);
	err = NULL;
	assert_int_equal(vcp_virt_pin_emulator(f->v, "stopped", &one,
					       f->host->max_cpus, &err),
			 -ENOENT);
	free(err);
}

static void test_running_vm_records_and_pins(void **state)
{
	struct fixture *f = *state;
	struct vcp_cpuset vcpu[2], one, two;
	struct vcp_saved_pins s = saved_of(vcpu, "0-3"), got = { 0 };
	struct vcp_host_rec h = { VCP_MODE_PIN, 1, 1700000000 };
	struct vcp_vm *vms = NULL;
	char *err = NULL;

	set(&one, "1");
	set(&two, "2");
	assert_int_equal(vcp_virt_set_saved(f->v, "running", &s, &err), 0);
	assert_int_equal(vcp_virt_get_saved(f->v, "running", &got, &err), 0);
	assert_int_equal(got.n_vcpus, 2);
	assert_true(vcp_cpuset_equal(&got.vcpu[1], &vcpu[1]));
	assert_true(vcp_cpuset_equal(&got.emulator, &s.emulator));
	vcp_saved_pins_clear(&got);
	assert_int_equal(vcp_virt_set_host_rec(f->v, "running", &h, &err), 0);
	assert_int_equal(vcp_virt_pin_vcpu(f->v, "running", 1, &one,
					   f->host->max_cpus, &err), 0);
	assert_int_equal(vcp_virt_pin_emulator(f->v, "running", &two,
					       f->host->max_cpus, &err), 0);
	list_running(f, &vms);
	assert_true(vms[0].has_saved);
	assert_true(vms[0].has_host_rec);
	assert_int_equal(vms[0].host_rec_level, 1);
	assert_true(vcp_cpuset_equal(&vms[0].vcpu_pins[1], &one));
	assert_true(vcp_cpuset_equal(&vms[0].emulator_pins, &two));
	vcp_vms_free(vms, 1);
	assert_int_equal(vcp_virt_clear_saved(f->v, "running", &err), 0);
	assert_int_equal(vcp_virt_get_saved(f->v, "running", &got, &err),
			 -ENOENT);
	assert_null(err);
}

/* Memory: a stopped VM's move is "gone" (never its definition); a
 * running VM's nodeset is moved live and read back with its mode, and a
 * record holding a nodeset says so. */
static void test_memory_live_only(void **state)
{
	struct fixture *f = *state;
	struct vcp_cpuset vcpu[2], n0;
	struct vcp_saved_pins s = saved_of(vcpu, "0-3");
	struct vcp_vm *vms = NULL;
	char *err = NULL;

	set(&n0, "0");
	assert_int_equal(vcp_virt_set_mem_nodes(f->v, "stopped", &n0, &err),
			 -ENOENT);
	assert_non_null(strstr(err, "'stopped'"));
	free(err);
	err = NULL;
	list_running(f, &vms);
	assert_int_equal(vms[0].mem_mode, VCP_MEM_NONE);
	assert_false(vms[0].has_saved_mem);
	vcp_vms_free(vms, 1);

	assert_int_equal(vcp_virt_set_mem_nodes(f->v, "running", &n0, &err), 0);
	s.has_memory = true;
	s.mem_nodes = n0;
	assert_int_equal(vcp_virt_set_saved(f->v, "running", &s, &err), 0);
	list_running(f, &vms);
	assert_int_equal(vms[0].mem_mode, VCP_MEM_STRICT);
	assert_true(vcp_cpuset_equal(&vms[0].mem_nodes, &n0));
	assert_false(vms[0].mem_auto);
	assert_true(vms[0].has_saved);
	assert_true(vms[0].has_saved_mem);
	vcp_vms_free(vms, 1);
	assert_null(err);
}

/* The owner's tag is another matter: a defined VM keeps it. */
static void test_tag_of_stopped_vm_kept(void **state)
{
	struct fixture *f = *state;
	struct vcp_tag t = { .has_priority = true, .priority = VCP_PRIO_HIGH };
	char *xml = NULL, *err = NULL;

	assert_int_equal(vcp_virt_set_tag(f->v, "stopped", &t, &err), 0);
	assert_int_equal(vcp_virt_get_tag_xml(f->v, "stopped", &xml, &err), 0);
	assert_non_null(strstr(xml, "high"));
	free(xml);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_record_of_stopped_vm_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pins_of_stopped_vm_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_running_vm_records_and_pins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory_live_only, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_tag_of_stopped_vm_kept,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
