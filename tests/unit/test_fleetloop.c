// SPDX-License-Identifier: GPL-2.0-or-later
/* test_fleetloop.c - one round of the standby loop against libvirt's test
 * driver (test:///default runs a domain; test:///PATH/empty.xml runs
 * none), with the observation faked so that the decision is known: the
 * last-moment check keeps a host whose libvirt runs a domain on (the
 * command is never run), a standby command that fails marks the host
 * failed with its outcome and output kept in the state file, a failed
 * host is not chosen again, and fleet clear puts it back; two hosts
 * woken in one round both come back (their wakes run together); a host
 * is recorded in standby before its standby command runs (whatever ends
 * the loop then, it is not forgotten asleep), and is not put in standby
 * when that record cannot be written. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "fleetcfg.h"
#include "fleetjson.h"
#include "fleetloop.h"
#include "fleetstate.h"

/* a VM of one vCPU using a tenth of a CPU */
#define VM(name) T_VM(name, 1, 0.1)

static char dir[4096], state[4200], marker[4200];


struct fake {
	struct vcp_fleet_input *in;
	const char *errs[4];
	const char *note; /* the observation's note, or NULL */
	const char *gone; /* a directory replaced by a file at the
			   * observation */
	char log[8192];
};

static int observe(void *opaque, struct vcp_loop_obs *ret, char **ret_err)
{
	struct fake *fk = opaque;

	(void)ret_err;
	if (fk->gone) {
		char to[4400];

		snprintf(to, sizeof(to), "%s-gone", fk->gone);
		assert_int_equal(rename(fk->gone, to), 0);
		t_put(fk->gone, "a file where the directory was\n");
	}
	*ret = (struct vcp_loop_obs){ fk->in->hosts, fk->in->n_hosts,
				      fk->in->opts, fk->errs, fk->note };
	return 0;
}

static void logline(void *opaque, bool error, const char *line)
{
	struct fake *fk = opaque;
	size_t n = strlen(fk->log);

	snprintf(fk->log + n, sizeof(fk->log) - n, "%s%s\n",
		 error ? "error: " : "", line);
}

static const struct vcp_loop_ops ops = { observe, logline };

static void load_obs(struct fake *fk, const char *hosts)
{
	fk->in = t_fleet_input(hosts);
}

/* h1 on test:///default (runs "test"), h2 on an empty node; both may
 * sleep by command: h1's writes the marker, h2's fails. */
static void load_cfg_with(struct vcp_fleet_cfg *c, const char *h1_cmd,
			  const char *h2_cmd)
{
	char text[16384];
	char *err = NULL;

	snprintf(
		text, sizeof(text),
		"{\"hosts\": [{\"uri\": \"test:///default\", \"name\": \"h1\"},"
		" {\"uri\": \"test://%s/empty.xml\", \"name\": \"h2\"}],"
		" \"standby\": {\"low_hold\": 0, \"min_spare_hosts\": 0,"
		"  \"wake_cooldown\": 0, \"wake_deadline\": 10,"
		"  \"host_defaults\": {\"action\": \"command\","
		"   \"wake_command\": [\"true\"]},"
		"  \"hosts\": {\"h1\": {\"standby_command\": %s},"
		"   \"h2\": {\"standby_command\": %s}}}}",
		dir, h1_cmd, h2_cmd);
	if (vcp_fleet_cfg_parse(text, "f.json", c, &err))
		fail_msg("%s", err);
}

static void load_cfg(struct vcp_fleet_cfg *c)
{
	char h1[4400];

	snprintf(h1, sizeof(h1), "[\"touch\", \"%s\"]", marker);
	load_cfg_with(c, h1, "[\"sh\", \"-c\", \"echo no BMC; exit 3\"]");
}

static int setup(void **st)
{
	char path[4300];

	(void)st;
	t_tmpdir(dir, sizeof(dir), "fleetloop");
	snprintf(state, sizeof(state), "%s/fleet-state.json", dir);
	snprintf(marker, sizeof(marker), "%s/h1-asked", dir);
	snprintf(path, sizeof(path), "%s/empty.xml", dir);
	t_put(path, "<node>\n</node>\n");
	/* another host (a fleet file lists each host once) */
	snprintf(path, sizeof(path), "%s/empty3.xml", dir);
	t_put(path, "<node>\n</node>\n");
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	t_rmtree(dir);
	return 0;
}

static void round_with(struct vcp_fleet_cfg *c, struct fake *fk,
		       struct vcp_loop *l)
{
	char *err = NULL;

	*l = (struct vcp_loop){ .cfg = c, .policy = &fk->in->policy,
		.state_path = state, .ops = &ops, .opaque = fk, .probe_s = 1 };
	assert_int_equal(vcp_loop_init(l), 0);
	fk->log[0] = '\0';
	if (vcp_loop_round(l, 1000, &err))
		fail_msg("round: %s", err);
}

static void read_state(const struct vcp_fleet_cfg *c, struct vcp_sb_state *s)
{
	const char *names[] = { c->hosts[0].name, c->hosts[1].name };
	char *err = NULL;

	if (vcp_fleet_state_load(state, names, 2, s, &err))
		fail_msg("%s", err);
}

static void test_runs_a_domain(void **st)
{
	struct vcp_fleet_cfg c;
	struct fake fk = { 0 };
	struct vcp_sb_state s;
	struct vcp_loop l;

	(void)st;
	load_cfg(&c);
	/* observed empty, but its libvirt runs "test" right before */
	load_obs(&fk, T_HOST("h1", "") "," T_HOST("h2", VM("a")));
	round_with(&c, &fk, &l);
	if (!strstr(fk.log, "error: h1: not put in standby: it runs a domain again"))
		fail_msg("log:\n%s", fk.log);
	assert_int_equal(l.failures, 1);
	assert_int_equal(access(marker, F_OK), -1);	/* never asked */
	read_state(&c, &s);
	assert_int_equal(s.hosts[0].power, VCP_SB_ON);
	vcp_sb_state_clear(&s);
	vcp_loop_clear(&l);
	vcp_fleet_input_free(fk.in);
	vcp_fleet_cfg_clear(&c);
}

/* The observation's note (the fleet's measured power) ends the round's
 * line. */
static void test_round_note(void **st)
{
	struct vcp_fleet_cfg c;
	struct fake fk = {
		.note = "; measured 410.0 W on 2 of 2 hosts (power_command)"
	};
	struct vcp_loop l;

	(void)st;
	load_cfg(&c);
	load_obs(&fk, T_HOST("h1", VM("a")) "," T_HOST("h2", VM("b")));
	round_with(&c, &fk, &l);
	if (strncmp(fk.log, "demand ", 7) ||
	    !strstr(fk.log,
		    "; measured 410.0 W on 2 of 2 hosts (power_command)\n"))
		fail_msg("log:\n%s", fk.log);
	vcp_loop_clear(&l);
	vcp_fleet_input_free(fk.in);
	vcp_fleet_cfg_clear(&c);
}

static void test_command_fails(void **st)
{
	struct vcp_fleet_cfg c;
	struct fake fk = { 0 };
	struct vcp_sb_state s;
	struct vcp_loop l;
	const char *power = NULL;
	char *err = NULL;

	(void)st;
	load_cfg(&c);
	load_obs(&fk, T_HOST("h1", VM("a")) "," T_HOST("h2", ""));
	round_with(&c, &fk, &l);
	if (!strstr(fk.log, "error: h2: standby: command sh: exit 3; output: no BMC\n"))
		fail_msg("log:\n%s", fk.log);
	assert_int_equal(l.failures, 2);	/* the command, then failed */
	read_state(&c, &s);
	assert_int_equal(s.hosts[1].power, VCP_SB_FAILED);
	assert_string_equal(s.hosts[1].why, "its standby action failed");
	assert_string_equal(s.hosts[1].last_action, "standby: command sh: exit 3");
	assert_string_equal(s.hosts[1].output, "no BMC\n");
	vcp_sb_state_clear(&s);
	vcp_loop_clear(&l);
	/* the next round does not choose it again, and says it is failed */
	round_with(&c, &fk, &l);
	if (!strstr(fk.log, "h2: failed since") ||
	    strstr(fk.log, "h2: standby: command"))
		fail_msg("log:\n%s", fk.log);
	vcp_loop_clear(&l);
	/* an operator clears it */
	assert_int_equal(vcp_loop_clear_host(&l, "h1", &power, &err), -EALREADY);
	assert_string_equal(power, "on");
	assert_int_equal(vcp_loop_clear_host(&l, "h9", &power, &err), -ENOENT);
	assert_int_equal(vcp_loop_clear_host(&l, "h2", &power, &err), 0);
	read_state(&c, &s);
	assert_int_equal(s.hosts[1].power, VCP_SB_ON);
	assert_string_equal(s.hosts[1].last_action, "cleared by an operator");
	vcp_sb_state_clear(&s);
	vcp_fleet_input_free(fk.in);
	vcp_fleet_cfg_clear(&c);
}

static void test_wake_two(void **st)
{
	struct vcp_fleet_cfg c;
	struct fake fk = { 0 };
	struct vcp_sb_state s;
	struct vcp_loop l;
	const char *names[] = { "h1", "h2", "h3" };
	char text[12288], *err = NULL;

	(void)st;
	/* h1 on and busy; h2 and h3 in standby by vcpack; three spare
	 * hosts wanted: both woken; their wake commands succeed and the
	 * test driver answers at once */
	snprintf(
		text, sizeof(text),
		"{\"hosts\": [{\"uri\": \"test:///default\", \"name\": \"h1\"},"
		" {\"uri\": \"test://%s/empty.xml\", \"name\": \"h2\"},"
		" {\"uri\": \"test://%s/empty3.xml\", \"name\": \"h3\"}],"
		" \"standby\": {\"min_spare_hosts\": 3,"
		"  \"host_defaults\": {\"action\": \"command\","
		"   \"standby_command\": [\"false\"],"
		"   \"wake_command\": [\"echo\", \"on\"]}}}",
		dir, dir);
	if (vcp_fleet_cfg_parse(text, "f.json", &c, &err))
		fail_msg("%s", err);
	assert_int_equal(vcp_sb_state_init(names, 3, &s), 0);
	vcp_sb_note_standby(&s, 1, 500, "empty");
	vcp_sb_note_standby(&s, 2, 500, "empty");
	s.hosts[1].capacity = s.hosts[2].capacity = 10;
	assert_int_equal(vcp_fleet_state_save(state, &s), 0);
	vcp_sb_state_clear(&s);
	load_obs(&fk,
		 T_HOST("h1", VM("a")) "," T_ASLEEP("h2") "," T_ASLEEP("h3"));
	fk.errs[1] = fk.errs[2] = "asleep";
	round_with(&c, &fk, &l);
	if (!strstr(fk.log, "h2: wake: command echo: exit 0; output: on") ||
	    !strstr(fk.log, "h3: wake: command echo: exit 0") ||
	    !strstr(fk.log, "h2: woken: its libvirt answers again") ||
	    !strstr(fk.log, "h3: woken: its libvirt answers again"))
		fail_msg("log:\n%s", fk.log);
	assert_int_equal(l.failures, 0);
	if (vcp_fleet_state_load(state, names, 3, &s, &err))
		fail_msg("%s", err);
	assert_int_equal(s.hosts[1].power, VCP_SB_ON);
	assert_int_equal(s.hosts[2].power, VCP_SB_ON);
	assert_true(s.last_wake != VCP_SB_NO_TIME);
	vcp_sb_state_clear(&s);
	vcp_loop_clear(&l);
	vcp_fleet_input_free(fk.in);
	vcp_fleet_cfg_clear(&c);
}

/* h1 runs a domain; h2 is empty, and its standby command is @cmd (a
 * JSON array) */
static void load_cfg_h2(struct vcp_fleet_cfg *c, const char *cmd)
{
	load_cfg_with(c, "[\"false\"]", cmd);
}

/* While h2's standby command runs, the state file says h2 is in standby
 * (the command copies it, then fails, so that the round ends at once). */
static void test_intent_first(void **st)
{
	struct vcp_fleet_cfg c;
	struct fake fk = { 0 };
	struct vcp_sb_state s;
	struct vcp_loop l;
	const char *names[] = { "h1", "h2" };
	char cmd[16384], *err = NULL;

	(void)st;
	snprintf(cmd, sizeof(cmd), "[\"sh\", \"-c\", \"cp '%s' '%s'; exit 3\"]",
		 state, marker);
	load_cfg_h2(&c, cmd);
	load_obs(&fk, T_HOST("h1", VM("a")) "," T_HOST("h2", ""));
	round_with(&c, &fk, &l);
	if (!strstr(fk.log, "error: h2: standby: command sh: exit 3"))
		fail_msg("log:\n%s", fk.log);
	/* during the command */
	if (vcp_fleet_state_load(marker, names, 2, &s, &err))
		fail_msg("%s", err);
	assert_int_equal(s.hosts[1].power, VCP_SB_STANDBY);
	assert_string_equal(s.hosts[1].why,
			    "its standby action started; not yet seen asleep");
	vcp_sb_state_clear(&s);
	/* after it: failed, as before */
	read_state(&c, &s);
	assert_int_equal(s.hosts[1].power, VCP_SB_FAILED);
	vcp_sb_state_clear(&s);
	vcp_loop_clear(&l);
	vcp_fleet_input_free(fk.in);
	vcp_fleet_cfg_clear(&c);
}

/* The state file cannot be written (its directory went away after the
 * round read it): h2's standby command is not run. */
static void test_intent_unwritable(void **st)
{
	struct vcp_fleet_cfg c;
	struct fake fk = { 0 };
	struct vcp_loop l;
	char sub[4100], saved[sizeof(state)];

	(void)st;
	load_cfg_h2(&c, "[\"sh\", \"-c\", \"echo ran; exit 3\"]");
	snprintf(sub, sizeof(sub), "%s/st", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	memcpy(saved, state, sizeof(state));
	snprintf(state, sizeof(state), "%s/fleet-state.json", sub);
	load_obs(&fk, T_HOST("h1", VM("a")) "," T_HOST("h2", ""));
	fk.gone = sub;
	round_with(&c, &fk, &l);
	memcpy(state, saved, sizeof(state));
	if (!strstr(fk.log,
		    "error: h2: not put in standby: it could not be recorded first in ") ||
	    strstr(fk.log, "command sh"))
		fail_msg("log:\n%s", fk.log);
	vcp_loop_clear(&l);
	vcp_fleet_input_free(fk.in);
	vcp_fleet_cfg_clear(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_runs_a_domain, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_round_note, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_command_fails, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_wake_two, setup, teardown),
		cmocka_unit_test_setup_teardown(test_intent_first, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_intent_unwritable, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
