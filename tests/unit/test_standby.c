// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_standby.c - fleet host standby: the fleet file's "standby" object
 * (values, defaults, every refusal naming its key path); the decision of
 * one round, rule by rule, on small fleets of 10-CPU hosts (headroom 0,
 * so a host's capacity is 10 CPUs); the loop's state to JSON and back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "fleetcfg.h"
#include "fleetjson.h"
#include "standby.h"

#define HOSTS "\"hosts\": [{\"uri\": \"qemu+ssh://h1/system\"}," \
	" {\"uri\": \"qemu+ssh://h2/system\"}, {\"uri\": \"qemu+ssh://h3/system\"}]"

static void test_cfg_values(void **state)
{
	struct vcp_fleet_cfg c;
	const struct vcp_sb_cfg *s = &c.standby;
	char *err = NULL;

	assert_int_equal(vcp_fleet_cfg_parse("{" HOSTS ", \"standby\": {"
		"\"low\": 0.3, \"high\": 0.7, \"low_hold\": 600, \"high_hold\": 0,"
		" \"min_spare_hosts\": 2, \"host_migrations_per_hour\": 5,"
		" \"migrations_per_round\": 1, \"wake_cooldown\": 60,"
		" \"wake_deadline\": 300, \"interval\": 30,"
		" \"host_defaults\": {\"action\": \"command\","
		"  \"standby_command\": [\"ipmitool\", \"power\", \"soft\"],"
		"  \"wake_command\": [\"ipmitool\", \"power\", \"on\"], \"command_timeout\": 30},"
		" \"hosts\": {\"h2\": {\"action\": \"libvirt-suspend\"},"
		"  \"h3\": {\"stay_on\": true, \"wake_command\": [\"etherwake\", \"h3; rm -rf /\"]}}}}",
		"f.json", &c, &err), 0);
	assert_null(err);
	assert_true(s->enabled);
	assert_true(s->low > 0.299 && s->low < 0.301);
	assert_true(s->high > 0.699 && s->high < 0.701);
	assert_int_equal(s->low_hold_s, 600);
	assert_int_equal(s->high_hold_s, 0);
	assert_int_equal(s->min_spare_hosts, 2);
	assert_int_equal(s->host_migrations_per_hour, 5);
	assert_int_equal(s->migrations_per_round, 1);
	assert_int_equal(s->wake_cooldown_s, 60);
	assert_int_equal(s->wake_deadline_s, 300);
	assert_int_equal(s->interval_s, 30);
	assert_int_equal(s->n_hosts, 3);
	assert_int_equal(s->hosts[0].action, VCP_SB_ACTION_COMMAND);
	assert_string_equal(s->hosts[0].standby_command[0], "ipmitool");
	assert_string_equal(s->hosts[0].standby_command[2], "soft");
	assert_null(s->hosts[0].standby_command[3]);
	assert_string_equal(s->hosts[0].wake_command[2], "on");
	assert_int_equal(s->hosts[0].command_timeout_s, 30);
	assert_false(s->hosts[0].stay_on);
	assert_int_equal(s->hosts[1].action, VCP_SB_ACTION_LIBVIRT);
	assert_int_equal(s->hosts[2].action, VCP_SB_ACTION_COMMAND);
	/* one argument as given: nothing is parsed by a shell */
	assert_string_equal(s->hosts[2].wake_command[0], "etherwake");
	assert_string_equal(s->hosts[2].wake_command[1], "h3; rm -rf /");
	assert_null(s->hosts[2].wake_command[2]);
	assert_string_equal(s->hosts[2].standby_command[1], "power");
	assert_true(s->hosts[2].stay_on);
	vcp_fleet_cfg_clear(&c);
}

static void test_cfg_defaults(void **state)
{
	struct vcp_fleet_cfg c;
	const struct vcp_sb_cfg *s = &c.standby;

	assert_int_equal(vcp_fleet_cfg_parse("{" HOSTS "}", "f", &c, NULL), 0);
	assert_false(s->enabled);
	assert_int_equal(s->n_hosts, 3);
	assert_int_equal(s->hosts[1].action, VCP_SB_ACTION_NONE);
	vcp_fleet_cfg_clear(&c);
	assert_int_equal(vcp_fleet_cfg_parse("{" HOSTS ", \"standby\": {}}",
					     "f", &c, NULL), 0);
	assert_true(s->enabled);
	assert_true(s->low > 0.449 && s->low < 0.451);
	assert_true(s->high > 0.809 && s->high < 0.811);
	assert_int_equal(s->low_hold_s, 2400);
	assert_int_equal(s->high_hold_s, 300);
	assert_int_equal(s->min_spare_hosts, 1);
	assert_int_equal(s->host_migrations_per_hour, 30);
	assert_int_equal(s->migrations_per_round, 8);
	assert_int_equal(s->wake_cooldown_s, 900);
	assert_int_equal(s->wake_deadline_s, 600);
	assert_int_equal(s->interval_s, 60);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(s->hosts[i].action, VCP_SB_ACTION_NONE);
		assert_int_equal(s->hosts[i].command_timeout_s, 120);
		assert_false(s->hosts[i].stay_on);
		assert_null(s->hosts[i].standby_command);
	}
	vcp_fleet_cfg_clear(&c);
}

static void refused(const char *standby, const char *msg)
{
	struct vcp_fleet_cfg c;
	char text[2048], *err = NULL;

	memset(&c, 0x5a, sizeof(c));
	snprintf(text, sizeof(text), "{" HOSTS ", \"standby\": %s}", standby);
	assert_int_equal(vcp_fleet_cfg_parse(text, "fleet.json", &c, &err),
			 -EINVAL);
	assert_non_null(err);
	assert_string_equal(err, msg);
	assert_int_equal(c.n_hosts, 0x5a5a5a5a5a5a5a5aULL);
	free(err);
}

static void test_cfg_refused(void **state)
{
	refused("[]", "fleet.json: standby: must be an object, got []");
	refused("{\"low\": 1.2}",
		"fleet.json: standby.low: must be a number from 0 to 1, got 1.2");
	refused("{\"low\": 0.8, \"high\": 0.5}",
		"fleet.json: standby.low: 0.8 must be below standby.high (0.5)");
	refused("{\"low_hold\": -1}",
		"fleet.json: standby.low_hold: must be a whole number from 0 to 86400, got -1");
	refused("{\"host_migrations_per_hour\": 65}",
		"fleet.json: standby.host_migrations_per_hour: must be a whole number from 1 to 64, got 65");
	refused("{\"wake_deadline\": \"soon\"}",
		"fleet.json: standby.wake_deadline: must be a whole number from 10 to 86400, got \"soon\"");
	refused("{\"min_hosts_on\": 0}",
		"fleet.json: standby.min_hosts_on: must be a whole number from 1 to 100000, got 0");
	refused("{\"hold\": 1}", "fleet.json: standby.hold: unknown key");
	refused("{\"host_defaults\": {\"action\": \"off\"}}",
		"fleet.json: standby.host_defaults.action: must be \"none\", \"libvirt-suspend\" or \"command\", got \"off\"");
	refused("{\"host_defaults\": 1}",
		"fleet.json: standby.host_defaults: must be an object, got 1");
	refused("{\"hosts\": []}",
		"fleet.json: standby.hosts: must be an object (host name: settings), got []");
	refused("{\"hosts\": {\"h9\": {}}}",
		"fleet.json: standby.hosts.h9: no host of that name in \"hosts\"");
	refused("{\"hosts\": {\"h2\": {\"stay_on\": 1}}}",
		"fleet.json: standby.hosts.h2.stay_on: must be true or false, got 1");
	refused("{\"hosts\": {\"h2\": {\"wake_command\": [\"\"]}}}",
		"fleet.json: standby.hosts.h2.wake_command[0]: must be a non-empty string (at most 4096 bytes), got \"\"");
	refused("{\"hosts\": {\"h2\": {\"wake_command\": \"etherwake h2\"}}}",
		"fleet.json: standby.hosts.h2.wake_command: must be an array of 1 to 64 strings (the program and its arguments; no shell), got \"etherwake h2\"");
	refused("{\"hosts\": {\"h2\": {\"wake_command\": []}}}",
		"fleet.json: standby.hosts.h2.wake_command: must be an array of 1 to 64 strings (the program and its arguments; no shell), got []");
	refused("{\"hosts\": {\"h2\": {\"command_timeout\": 0}}}",
		"fleet.json: standby.hosts.h2.command_timeout: must be a whole number from 1 to 3600, got 0");
	refused("{\"hosts\": {\"h2\": {\"action\": \"command\", \"wake_command\": [\"x\"]}}}",
		"fleet.json: standby.hosts.h2: action \"command\" needs \"standby_command\" and \"wake_command\"");
	refused("{\"hosts\": {\"h1\": {\"power\": \"none\"}}}",
		"fleet.json: standby.hosts.h1.power: unknown key");
}


/* ---- the decision ---- */

/* fixture.h's hosts and VMs, by their short names here */
#define HOST T_HOST
#define VM T_VM
#define ASLEEP T_ASLEEP

#define SPREAD(name, vcpus, dem)                                            \
	"{\"name\": \"" name "\", \"vcpus\": " #vcpus ", \"demand\": " #dem \
	", \"mem_mib\": 1024, \"class\": \"spread\"}"

struct fx {
	struct vcp_fleet_input *in;
	struct vcp_sb_cfg cfg;
	struct vcp_sb_state st;
	struct vcp_sb_decision *d;
	const char *names[16];
};

/* A fleet of 10-CPU hosts; every host may sleep (libvirt-suspend). */
static void fx_init(struct fx *f, const char *hosts)
{
	struct json_object *empty = json_object_new_object();

	memset(f, 0, sizeof(*f));
	f->in = t_fleet_input(hosts);
	assert_true(f->in->n_hosts <= 16);
	for (size_t i = 0; i < f->in->n_hosts; i++)
		f->names[i] = f->in->names[i];
	assert_int_equal(vcp_sb_cfg_parse(empty, "t", f->names,
					  f->in->n_hosts, &f->cfg, NULL), 0);
	json_object_put(empty);
	for (size_t i = 0; i < f->in->n_hosts; i++)
		f->cfg.hosts[i].action = VCP_SB_ACTION_LIBVIRT;
	assert_int_equal(vcp_sb_state_init(f->names, f->in->n_hosts, &f->st),
			 0);
}

/* Hosts the fixture lists as unreachable are in standby (capacity 10). */
static void fx_asleep(struct fx *f, size_t i)
{
	f->st.hosts[i].power = VCP_SB_STANDBY;
	f->st.hosts[i].since = 0;
	f->st.hosts[i].capacity = 10;
}

static struct vcp_sb_decision *round_at(struct fx *f, long long now)
{
	struct vcp_sb_round r = { f->in->hosts, f->in->n_hosts,
				  &f->in->policy, &f->in->opts, &f->cfg, now };

	vcp_sb_decision_free(f->d);
	f->d = NULL;
	assert_int_equal(vcp_sb_decide(&r, &f->st, &f->d), 0);
	return f->d;
}

static void fx_free(struct fx *f)
{
	vcp_sb_decision_free(f->d);
	vcp_fleet_input_free(f->in);
	vcp_sb_cfg_clear(&f->cfg);
	vcp_sb_state_clear(&f->st);
}

static void assert_near(double a, double b)
{
	if (a < b - 1e-6 || a > b + 1e-6)
		fail_msg("%g is not %g", a, b);
}

static void test_wake_after_high_hold(void **state)
{
	struct fx f;
	struct vcp_sb_decision *d;

	/* 17 of 20 CPUs on: 85% > 81%, with h3 and h4 asleep. */
	fx_init(&f, HOST("h1", VM("a", 9, 1)) "," HOST("h2", VM("b", 8, 1))
		"," ASLEEP("h3") "," ASLEEP("h4"));
	fx_asleep(&f, 2);
	fx_asleep(&f, 3);
	f.cfg.min_spare_hosts = 0;	/* the hold alone */
	d = round_at(&f, 1000);
	assert_near(d->demand, 17);
	assert_near(d->capacity_on, 20);
	assert_near(d->util, 0.85);
	assert_int_equal(d->n_wake, 0);
	assert_int_equal(f.st.above_since, 1000);
	d = round_at(&f, 1299);
	assert_int_equal(d->n_wake, 0);
	d = round_at(&f, 1300);
	assert_int_equal(d->n_wake, 1);
	assert_int_equal(d->wake[0], 2);
	assert_int_equal(d->standby, -1);
	assert_int_equal(d->n_moves, 0);
	assert_string_equal(d->why,
		"utilisation stayed above the band for high_hold: waking");
	/* h3 takes a while: 17 of 30 with it is within the band, so h4
	 * is not woken as well */
	vcp_sb_note_wake(&f.st, 2, 1300);
	d = round_at(&f, 1360);
	assert_int_equal(d->n_wake, 0);
	assert_string_equal(d->why, "a wake is in progress");
	/* back within the band for a moment: the timer starts again */
	f.in->vms[1][0].demand[0] = 0;
	round_at(&f, 1400);
	assert_int_equal(f.st.above_since, VCP_SB_NO_TIME);
	fx_free(&f);
}

static void test_wake_at_once_on_shortfall(void **state)
{
	struct fx f;
	struct vcp_sb_decision *d;

	/* 18 CPUs on 10 on. Wake the largest first until 18 <= 0.63 x
	 * capacity: 10 + 20 = 30 (18/30). */
	fx_init(&f, HOST("h1", VM("a", 10, 1) "," VM("b", 8, 1)) ","
		ASLEEP("h2") "," ASLEEP("h3") "," ASLEEP("h4"));
	for (size_t i = 1; i < 4; i++)
		fx_asleep(&f, i);
	f.st.hosts[3].capacity = 20;
	f.cfg.min_spare_hosts = 0;
	d = round_at(&f, 50);
	assert_string_equal(d->why, "demand exceeds the capacity on: waking");
	assert_int_equal(d->n_wake, 1);
	assert_int_equal(d->wake[0], 3);	/* the largest: 10 + 20 */
	/* once waking, it counts: no second wake for the same need */
	vcp_sb_note_wake(&f.st, 3, 50);
	d = round_at(&f, 60);
	assert_int_equal(d->n_wake, 0);
	assert_string_equal(d->why, "a wake is in progress");
	fx_free(&f);
}

static void test_wake_deadline_and_answer(void **state)
{
	struct fx f;
	struct vcp_sb_decision *d;

	fx_init(&f, HOST("h1", VM("a", 2, 1)) "," ASLEEP("h2") ","
		ASLEEP("h3"));
	fx_asleep(&f, 1);
	fx_asleep(&f, 2);
	vcp_sb_note_wake(&f.st, 1, 100);
	vcp_sb_note_wake(&f.st, 2, 100);
	f.in->hosts[1].reachable = true;	/* h2 answers; h3 never */
	f.in->hosts[1].host = f.in->topo[0];
	d = round_at(&f, 100 + 599);
	assert_int_equal(f.st.hosts[1].power, VCP_SB_ON);
	assert_int_equal(f.st.hosts[2].power, VCP_SB_WAKING);
	assert_near(d->capacity_on, 20);
	d = round_at(&f, 100 + 600);
	assert_int_equal(f.st.hosts[2].power, VCP_SB_FAILED);
	assert_string_equal(f.st.hosts[2].why,
			    "did not answer within the wake deadline");
	/* h2 stops answering (not by vcpack): 2 CPUs on h1's 10 leave
	 * less than a spare host, and the failed h3 is never woken */
	f.in->hosts[1].reachable = false;
	d = round_at(&f, 800);
	assert_int_equal(d->n_wake, 0);
	assert_string_equal(d->why,
		"more capacity is needed but no (further) host is in standby to wake");
	vcp_sb_note_cleared(&f.st, 2, 900);
	assert_int_equal(f.st.hosts[2].power, VCP_SB_ON);
	fx_free(&f);
}

#define QUIET4 HOST("h1", VM("a", 2, 0.5) "," VM("b", 2, 0.5)) "," \
	HOST("h2", VM("c", 2, 0.5)) "," HOST("h3", VM("d", 4, 0.5)) "," \
	HOST("h4", VM("e", 4, 0.5))

static void test_standby_after_low_hold(void **state)
{
	struct fx f;
	struct vcp_sb_decision *d;

	/* 7 of 40 CPUs: 17.5%. */
	fx_init(&f, QUIET4);
	d = round_at(&f, 0);
	assert_near(d->util, 0.175);
	assert_string_equal(d->why, "below the band, not yet for low_hold");
	assert_int_equal(d->drain, -1);
	d = round_at(&f, 2399);
	assert_int_equal(d->drain, -1);
	d = round_at(&f, 2400);
	/* the lightest host (h2, 1 CPU) is drained first */
	assert_string_equal(d->why, "draining towards standby");
	assert_int_equal(d->drain, 1);
	assert_int_equal(d->n_moves, 1);
	assert_int_equal(d->moves[0].from, 1);
	assert_int_equal(d->standby, -1);
	fx_free(&f);
}

static void test_empty_host_first(void **state)
{
	struct fx f;
	struct vcp_sb_decision *d;

	fx_init(&f, QUIET4 "," HOST("h5", ""));
	round_at(&f, 0);
	d = round_at(&f, 2400);
	assert_int_equal(d->standby, 4);
	assert_int_equal(d->n_moves, 0);
	assert_string_equal(d->why, "empty: to standby");
	fx_free(&f);
}

static void test_never_chosen(void **state)
{
	struct fx f;
	struct vcp_sb_decision *d;

	/* Three empty hosts none of which may sleep, and h1 with a spread
	 * guest and h2 with an unmanaged one. */
	fx_init(&f, HOST("h1", SPREAD("s", 1, 0.5)) ","
		HOST("h2", VM("u", 1, 0.5)) "," HOST("h3", "") ","
		HOST("h4", "") "," HOST("h5", "") "," HOST("h6", VM("x", 2, 1)));
	f.in->vms[1][0].managed = false;
	f.cfg.hosts[2].stay_on = true;
	f.cfg.hosts[3].action = VCP_SB_ACTION_NONE;
	vcp_sb_note_failed(&f.st, 4, 0, "would not sleep");
	f.cfg.hosts[5].action = VCP_SB_ACTION_NONE;
	round_at(&f, 0);
	d = round_at(&f, 2400);
	assert_int_equal(d->standby, -1);
	assert_int_equal(d->n_moves, 0);
	assert_string_equal(d->host_why[0],
			    "has a spread VM (move_spread is off)");
	assert_string_equal(d->host_why[1],
			    "has a VM vcpack does not manage");
	assert_string_equal(d->host_why[2], "stay_on");
	assert_string_equal(d->host_why[3], "action none: never sleeps");
	assert_string_equal(d->host_why[4],
		"failed: never chosen until an operator clears it");
	assert_string_equal(d->why,
			    "below the band, but the planner can empty no host");
	/* with move_spread the spread guest moves like any other */
	f.in->opts.move_spread = true;
	d = round_at(&f, 2460);
	assert_int_equal(d->drain, 0);
	assert_int_equal(d->n_moves, 1);
	fx_free(&f);
}

/* min_spare_hosts 0 and no demand: one host put in standby, never the
 * last one on (min_hosts_on, default 1), whatever the rounds. */
static void test_last_host_stays_on(void **state)
{
	struct fx f;
	struct vcp_sb_decision *d;
	int first;

	fx_init(&f, HOST("h1", "") "," HOST("h2", ""));
	f.cfg.min_spare_hosts = 0;
	round_at(&f, 0);
	d = round_at(&f, 2400);
	first = d->standby;
	assert_true(first == 0 || first == 1);
	fx_asleep(&f, (size_t)first);
	f.in->hosts[first].reachable = false;
	round_at(&f, 4800);
	d = round_at(&f, 7200);
	assert_int_equal(d->standby, -1);
	assert_string_equal(d->host_why[1 - first],
			    "min_hosts_on: the fleet keeps this many hosts on");
	fx_free(&f);
}

/* A host in maintenance (accepts false) is neither put in standby nor
 * drained by the loop: the operator works on it. */
static void test_maintenance_left_alone(void **state)
{
	struct fx f;
	struct vcp_sb_decision *d;

	fx_init(&f, QUIET4 "," HOST("h5", ""));
	f.in->hosts[4].accepts = false;
	round_at(&f, 0);
	d = round_at(&f, 2400);
	assert_true(d->standby != 4);
	assert_true(d->drain != 4);
	assert_string_equal(d->host_why[4],
			    "accepts false (maintenance): left as it is");
	fx_free(&f);
}

static void test_no_standby_while_guest_runs(void **state)
{
	struct fx f;
	struct vcp_sb_decision *d;

	fx_init(&f, QUIET4);
	f.cfg.migrations_per_round = 1;
	round_at(&f, 0);
	d = round_at(&f, 2400);
	assert_int_equal(d->drain, 1);
	vcp_sb_note_drain(&f.st, 1, 2400);
	/* the move has not happened yet: still draining, no standby */
	d = round_at(&f, 2460);
	assert_int_equal(d->standby, -1);
	assert_int_equal(d->drain, 1);
	assert_int_equal(d->n_moves, 1);
	/* h1 (2 guests) has two moves, one a round */
	vcp_sb_state_clear(&f.st);
	assert_int_equal(vcp_sb_state_init(f.names, 4, &f.st), 0);
	vcp_sb_note_drain(&f.st, 0, 2400);
	d = round_at(&f, 2460);
	assert_int_equal(d->drain, 0);
	assert_int_equal(d->n_moves, 1);
	/* guest gone (stopped): now it may sleep */
	f.in->vms[0][0].running = false;
	f.in->vms[0][1].running = false;
	d = round_at(&f, 2520);
	assert_int_equal(d->standby, 0);
	fx_free(&f);
}

static void test_spares_kept(void **state)
{
	struct fx f;
	struct vcp_sb_decision *d;

	/* 2 hosts, 2 of 20 CPUs: one could carry it, but not with a
	 * spare host beside it. */
	fx_init(&f, HOST("h1", VM("a", 2, 1)) "," HOST("h2", ""));
	round_at(&f, 0);
	d = round_at(&f, 3000);
	assert_int_equal(d->standby, -1);
	assert_string_equal(d->host_why[1],
		"the others could not carry the demand with spares");
	f.cfg.min_spare_hosts = 0;
	d = round_at(&f, 3060);
	assert_int_equal(d->standby, 1);
	fx_free(&f);
}

static void test_budgets(void **state)
{
	struct fx f;
	struct vcp_sb_decision *d;

	fx_init(&f, QUIET4);
	f.cfg.host_migrations_per_hour = 2;
	/* h2 and h4 moved twice in the last hour: their budgets of 2 are
	 * spent, neither is drained nor receives. */
	vcp_sb_note_move(&f.st, 1, 3, 1000);
	vcp_sb_note_move(&f.st, 1, 3, 1000);
	assert_int_equal(vcp_sb_moves_last_hour(&f.st.hosts[1], 2400), 2);
	assert_int_equal(vcp_sb_moves_last_hour(&f.st.hosts[1], 4600), 0);
	round_at(&f, 0);
	d = round_at(&f, 2400);
	assert_string_equal(d->host_why[1],
			    "its migration budget for the hour is spent");
	assert_string_equal(d->host_why[3],
			    "its migration budget for the hour is spent");
	/* h1 and h3 both carry 2 CPUs: h3 has fewer guests; its guest
	 * best-fits into h1 */
	assert_int_equal(d->drain, 2);
	assert_int_equal(d->n_moves, 1);
	assert_int_equal(d->moves[0].to, 0);
	/* h1 spent its budget as well: nobody may receive, the drain
	 * stops and h3 stays on */
	f.st.hosts[0].moves[0] = f.st.hosts[0].moves[1] = 2000;
	f.st.hosts[0].n_moves = 2;
	vcp_sb_note_drain(&f.st, 2, 2400);
	d = round_at(&f, 2460);
	assert_int_equal(d->drain, -1);
	assert_int_equal(d->n_moves, 0);
	assert_int_equal(f.st.hosts[2].power, VCP_SB_ON);
	assert_string_equal(d->why, "the host being drained can no longer be emptied: drain stopped");
	/* an hour after the last of those moves, the lightest (h2) goes */
	d = round_at(&f, 2000 + 3600);
	assert_int_equal(d->drain, 1);
	assert_int_equal(d->n_moves, 1);
	fx_free(&f);
}

static void test_cooldown(void **state)
{
	struct fx f;
	struct vcp_sb_decision *d;

	fx_init(&f, QUIET4);
	round_at(&f, 0);
	f.st.last_wake = 2000;
	d = round_at(&f, 2400);
	assert_string_equal(d->why, "cool-down after a wake");
	assert_int_equal(d->drain, -1);
	d = round_at(&f, 2900);
	assert_int_equal(d->drain, 1);
	fx_free(&f);
}

static void test_drain_given_up(void **state)
{
	struct fx f;
	struct vcp_sb_decision *d;

	fx_init(&f, QUIET4);
	vcp_sb_note_drain(&f.st, 1, 0);
	d = round_at(&f, 60);
	assert_int_equal(d->drain, 1);
	/* demand rises to 14 CPUs: 40 - 14 leaves two spare hosts, but
	 * without h2 30 - 14 would not */
	f.cfg.min_spare_hosts = 2;
	for (size_t i = 0; i < 4; i++)
		for (size_t j = 0; j < f.in->n_vms[i]; j++)
			for (unsigned int k = 0; k < f.in->vms[i][j].n_vcpus; k++)
				f.in->vms[i][j].demand[k] = 1;
	d = round_at(&f, 100);
	assert_int_equal(d->drain, -1);
	assert_int_equal(f.st.hosts[1].power, VCP_SB_ON);
	assert_string_equal(d->why,
		"the host being drained is needed again: drain stopped");
	fx_free(&f);
}

static void test_rebalance(void **state)
{
	struct fx f;
	struct vcp_sb_decision *d;

	/* h1 carries 11 CPUs of its 10 (the spread guest s among them);
	 * the fleet has 14 of 30: within the band, nothing to wake. */
	fx_init(&f, HOST("h1", SPREAD("s", 4, 1) "," VM("b", 4, 1) ","
			 VM("c", 3, 1)) "," HOST("h2", VM("x", 1, 1)) ","
		HOST("h3", VM("y", 2, 1)));
	d = round_at(&f, 0);
	assert_string_equal(d->why,
			    "rebalancing: a host's demand exceeds its capacity");
	assert_int_equal(d->n_wake, 0);
	assert_int_equal(d->drain, -1);
	assert_int_equal(d->standby, -1);
	/* the largest movable guest (b; s is spread) to the host with the
	 * most room under the target (h2: 6.3 - 1); then 7 <= 8.1 */
	assert_int_equal(d->n_moves, 1);
	assert_int_equal(d->moves[0].from, 0);
	assert_int_equal(d->moves[0].vm, 1);
	assert_int_equal(d->moves[0].to, 1);
	assert_near(d->moves[0].demand, 4);
	/* with move_spread the first of the largest (s) goes */
	f.in->opts.move_spread = true;
	d = round_at(&f, 60);
	assert_int_equal(d->n_moves, 1);
	assert_int_equal(d->moves[0].vm, 0);
	/* no receiver with room under the target: nothing moves */
	f.in->vms[1][0].demand[0] = 1;
	f.in->hosts[1].accepts = false;
	f.in->hosts[2].accepts = false;
	d = round_at(&f, 120);
	assert_int_equal(d->n_moves, 0);
	fx_free(&f);
}

static void test_woken_by_someone_else(void **state)
{
	struct fx f;
	struct vcp_sb_decision *d;

	/* vcpack put h2 in standby; it answers again (an operator woke
	 * it): it is on, its capacity counts, and it can receive */
	fx_init(&f, HOST("h1", VM("a", 2, 1)) "," HOST("h2", ""));
	f.cfg.min_spare_hosts = 0; /* h2 could go again */
	vcp_sb_note_standby(&f.st, 1, 0, "empty: to standby");
	vcp_sb_note_asleep(&f.st, 1); /* the loop saw it asleep */
	d = round_at(&f, 60);
	assert_int_equal(f.st.hosts[1].power, VCP_SB_ON);
	assert_string_equal(
		f.st.hosts[1].why,
		"woken by someone else (it answered while in standby)");
	assert_int_equal(f.st.hosts[1].since, 60);
	assert_near(d->capacity_on, 20);
	/* not put back to standby in that round, nor within woken_grace
	 * (3600 s), although empty and below the band for low_hold */
	assert_int_equal(d->standby, -1);
	d = round_at(&f, 60 + 2400);
	assert_int_equal(d->standby, -1);
	assert_string_equal(d->host_why[1],
			    "woken by someone else: left on for woken_grace");
	/* after it, it may */
	d = round_at(&f, 60 + 3600);
	assert_int_equal(d->standby, 1);
	fx_free(&f);
}

/* ---- the state ---- */

static void test_state_json(void **state)
{
	const char *names[] = { "h1", "h2", "h3" };
	const char *later[] = { "h0", "h3", "h2" };
	struct vcp_sb_state s, t;
	struct json_object *o;
	char *err = NULL;

	assert_int_equal(vcp_sb_state_init(names, 3, &s), 0);
	vcp_sb_note_standby(&s, 1, 500, "empty: to standby");
	s.hosts[1].capacity = 30.5;
	s.hosts[1].packages = 2;
	vcp_sb_note_move(&s, 0, 2, 400);
	vcp_sb_note_failed(&s, 2, 600, "did not answer within the wake deadline");
	vcp_sb_note_action(&s, 2, "wake: command exit 0", "on\n");
	s.below_since = 100;
	o = vcp_sb_state_to_json(&s);
	assert_string_equal(
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		"{\"version\":1,\"below_since\":100,\"above_since\":null,\"last_wake\":null,"
		"\"hosts\":[{\"name\":\"h1\",\"power\":\"on\",\"since\":null,\"why\":null,\"seen_asleep\":false,\"capacity\":0,\"packages\":0,\"moves\":[400],\"last_action\":null,\"output\":null},"
		"{\"name\":\"h2\",\"power\":\"standby\",\"since\":500,\"why\":\"empty: to standby\",\"seen_asleep\":false,\"capacity\":30.5,\"packages\":2,\"moves\":[],\"last_action\":null,\"output\":null},"
		"{\"name\":\"h3\",\"power\":\"failed\",\"since\":600,\"why\":\"did not answer within the wake deadline\",\"seen_asleep\":false,\"capacity\":0,\"packages\":0,\"moves\":[400],\"last_action\":\"wake: command exit 0\",\"output\":\"on\\n\"}]}");
	/* read back for a fleet in another order with a new host */
	assert_int_equal(vcp_sb_state_from_json(o, "st", later, 3, &t, &err), 0);
	assert_int_equal(t.below_since, 100);
	assert_int_equal(t.hosts[0].power, VCP_SB_ON);
	assert_int_equal(t.hosts[2].power, VCP_SB_STANDBY);
	assert_int_equal(t.hosts[2].since, 500);
	assert_near(t.hosts[2].capacity, 30.5);
	assert_int_equal(t.hosts[2].packages, 2);
	assert_string_equal(t.hosts[1].why,
			    "did not answer within the wake deadline");
	assert_int_equal(vcp_sb_moves_last_hour(&t.hosts[1], 1000), 1);
	vcp_sb_state_clear(&t);
	/* a host asleep by vcpack that the fleet no longer lists */
	memset(&t, 0x5a, sizeof(t));
	assert_int_equal(vcp_sb_state_from_json(o, "st", names, 1, &t, &err),
			 -EINVAL);
	assert_string_equal(err, "st: hosts[1] (h2): 'h2' is standby (by vcpack) but not in the fleet file: list it again, or wake it by hand and drop it from the state");
	assert_int_equal(t.n_hosts, 0x5a5a5a5a5a5a5a5aULL);
	free(err);
	err = NULL;
	json_object_put(o);
	o = json_tokener_parse("{\"version\": 1, \"hosts\": [{\"name\": \"h1\", \"power\": \"asleep\"}]}");
	assert_int_equal(vcp_sb_state_from_json(o, "st", names, 3, &t, &err),
			 -EINVAL);
	assert_string_equal(err, "st: hosts[0] (h1).power: must be on, draining, standby, waking or failed, got \"asleep\"");
	free(err);
	json_object_put(o);
	err = NULL;
	o = json_tokener_parse("{\"version\": 2, \"hosts\": []}");
	assert_int_equal(vcp_sb_state_from_json(o, "st", names, 3, &t, &err),
			 -EINVAL);
	assert_string_equal(err, "st: must be an object with \"version\": 1");
	free(err);
	err = NULL;
	json_object_put(o);
	o = json_tokener_parse("{\"version\": 1, \"last_wake\": -5, \"hosts\": []}");
	assert_int_equal(vcp_sb_state_from_json(o, "st", names, 3, &t, &err),
			 -EINVAL);
	assert_string_equal(err, "st: last_wake: must be null or a time in seconds, got -5");
	free(err);
	err = NULL;
	json_object_put(o);
	o = json_tokener_parse("{\"version\": 1, \"hosts\": [{\"name\": \"h1\", \"moves\": [1, \"x\"]}]}");
	assert_int_equal(vcp_sb_state_from_json(o, "st", names, 3, &t, &err),
			 -EINVAL);
	assert_string_equal(err, "st: hosts[0] (h1).moves[1]: must be null or a time in seconds, got \"x\"");
	free(err);
	err = NULL;
	json_object_put(o);
	o = json_tokener_parse("{\"version\": 1, \"hosts\": [{\"name\": \"h1\", \"colour\": 1}]}");
	assert_int_equal(vcp_sb_state_from_json(o, "st", names, 3, &t, &err),
			 -EINVAL);
	assert_string_equal(err, "st: hosts[0] (h1).colour: unknown key");
	free(err);
	json_object_put(o);
	vcp_sb_state_clear(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfg_values),
		cmocka_unit_test(test_cfg_defaults),
		cmocka_unit_test(test_cfg_refused),
		cmocka_unit_test(test_wake_after_high_hold),
		cmocka_unit_test(test_wake_at_once_on_shortfall),
		cmocka_unit_test(test_wake_deadline_and_answer),
		cmocka_unit_test(test_standby_after_low_hold),
		cmocka_unit_test(test_empty_host_first),
		cmocka_unit_test(test_never_chosen),
		cmocka_unit_test(test_maintenance_left_alone),
		cmocka_unit_test(test_last_host_stays_on),
		cmocka_unit_test(test_no_standby_while_guest_runs),
		cmocka_unit_test(test_spares_kept),
		cmocka_unit_test(test_budgets),
		cmocka_unit_test(test_cooldown),
		cmocka_unit_test(test_drain_given_up),
		cmocka_unit_test(test_rebalance),
		cmocka_unit_test(test_woken_by_someone_else),
		cmocka_unit_test(test_state_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
