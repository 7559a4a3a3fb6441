// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * standbyshow.c - what the standby loop would decide, as advice for
 * `vcpack fleet plan` (nothing is done, no state is kept), and a
 * decision as JSON. Pure: the time is passed in.
 *
 * Advice starts from a fresh state whose band timers are taken as
 * already past their hold times: it says what the loop would do if the
 * fleet's demand had stayed as it is now for low_hold (or high_hold).
 * Hosts asleep are unknown to it (the loop's state file knows them).
 *
 *   {"util", "demand", "capacity_on", "why", "drain": host|null,
 *    "standby": host|null, "wake": [host], "moves": [{"vm", "from",
 *    "to", "demand"}], "hosts": [{"name", "why": reason|null}]}
 */
#include "standby.h"

#include <errno.h>
#include <stdlib.h>

#include "policy.h"

int vcp_sb_advise(const struct vcp_sb_round *r,
		  struct vcp_sb_decision **ret)
{
	const char **names = calloc(r->n_hosts + 1, sizeof(*names));
	struct vcp_sb_state st;
	int e;

	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_hosts; i++)
		names[i] = r->hosts[i].name;
	e = vcp_sb_state_init(names, r->n_hosts, &st);
	free(names);
	if (e < 0)
		return e;
	st.below_since = st.above_since = r->now - 7 * 86400;
	e = vcp_sb_decide(r, &st, ret);
	vcp_sb_state_clear(&st);
	return e;
}

static struct json_object *name_or_null(const struct vcp_fleet_host *h,
					long i)
{
	return i < 0 ? NULL : json_object_new_string(h[i].name);
}

struct json_object *vcp_sb_decision_to_json(const struct vcp_sb_decision *d,
					    const struct vcp_fleet_host *h,
					    size_t n)
{
	struct json_object *o = json_object_new_object();
	struct json_object *w = json_object_new_array();
	struct json_object *m = json_object_new_array();
	struct json_object *hs = json_object_new_array();

	json_object_object_add(o, "util", vcp_json_double3(d->util));
	json_object_object_add(o, "demand", vcp_json_double3(d->demand));
	json_object_object_add(o, "capacity_on",
			       vcp_json_double3(d->capacity_on));
	json_object_object_add(o, "why", d->why ?
			       json_object_new_string(d->why) : NULL);
	json_object_object_add(o, "drain", name_or_null(h, d->drain));
	json_object_object_add(o, "standby", name_or_null(h, d->standby));
	for (size_t k = 0; k < d->n_wake; k++)
		json_object_array_add(w, json_object_new_string(
				      h[d->wake[k]].name));
	json_object_object_add(o, "wake", w);
	for (size_t k = 0; k < d->n_moves; k++) {
		const struct vcp_fleet_move *mv = &d->moves[k];
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "vm", json_object_new_string(
				       h[mv->from].vms[mv->vm].name));
		json_object_object_add(x, "from",
				       json_object_new_string(h[mv->from].name));
		json_object_object_add(x, "to",
				       json_object_new_string(h[mv->to].name));
		json_object_object_add(x, "demand", vcp_json_double3(mv->demand));
		json_object_array_add(m, x);
	}
	json_object_object_add(o, "moves", m);
	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "name",
				       json_object_new_string(h[i].name));
		json_object_object_add(x, "why", d->host_why[i] ?
				       json_object_new_string(d->host_why[i]) :
				       NULL);
		json_object_array_add(hs, x);
	}
	json_object_object_add(o, "hosts", hs);
	return o;
}
