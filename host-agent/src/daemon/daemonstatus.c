// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * daemonstatus.c - vcpackd's status and replies as JSON (daemonstatus.h).
 */
#include <stdint.h>

#include "daemonstatus.h"
#include "demand.h"
#include "modeljson.h"

/* A measured figure; null when unknown (< 0). */
static struct json_object *known(double v)
{
	return v >= 0 ? json_object_new_double(v) : NULL;
}

static struct json_object *vm_status(const struct vcp_vm *vm,
				     const struct vcp_tracker *t)
{
	struct json_object *v = json_object_new_object();
	struct json_object *dem = json_object_new_array();
	bool relieved = vcp_tracker_relieved(t, vm->name);

	for (unsigned int c = 0; c < vm->n_vcpus; c++)
		json_object_array_add(dem, known(vm->demand[c]));
	json_object_object_add(v, "name", json_object_new_string(vm->name));
	json_object_object_add(v, "demand", dem);
	json_object_object_add(v, "delay", known(vm->delay));
	json_object_object_add(v, "relieved",
			       json_object_new_boolean(relieved));
	return v;
}

struct json_object *vcp_dstatus_last(const struct vcp_world *w,
				     const struct vcp_plan *p,
				     const struct vcp_tracker *t, long long at)
{
	struct json_object *o = json_object_new_object();
	struct json_object *vms = json_object_new_array();
	const char *reason = p->level_reason;

	for (size_t i = 0; i < w->n_vms; i++)
		json_object_array_add(vms, vm_status(&w->vms[i], t));
	json_object_object_add(o, "at", json_object_new_int64(at));
	json_object_object_add(o, "level", json_object_new_int(p->level));
	json_object_object_add(o, "active",
			       json_object_new_int((int)p->n_active));
	json_object_object_add(o, "packages",
			       json_object_new_int((int)p->n_packages));
	json_object_object_add(o, "level_reason",
			       json_object_new_string(reason ? reason : ""));
	json_object_object_add(o, "plan", vcp_plan_to_json(p, w->host, w->vms));
	json_object_object_add(o, "vms", vms);
	return o;
}

/* The reasons and the run-time control. */
static void control_status(const struct vcp_dstatus *s, struct json_object *o)
{
	char why[256];
	int level = vcp_control_level_at(s->ctl, s->policy, s->tm, why,
					 sizeof(why));
	const char *name = vcp_control_level_name(level);

	json_object_object_add(o, "mode_reason",
			       json_object_new_string(s->mode_reason));
	json_object_object_add(o, "level", json_object_new_string(name));
	json_object_object_add(o, "level_reason", json_object_new_string(why));
	json_object_object_add(o, "enabled", json_object_new_boolean(
			       vcp_control_enabled(s->ctl, s->policy, why,
						   sizeof(why))));
	json_object_object_add(o, "enabled_reason",
			       json_object_new_string(why));
	json_object_object_add(o, "control", vcp_control_to_json(s->ctl));
	json_object_object_add(o, "state_file",
			       json_object_new_string(s->state_path));
}

static struct json_object *replans(const struct vcp_dstatus *s)
{
	return json_object_new_int64((int64_t)s->replans);
}

/* connected, mode, replans: in the status object and the ping reply */
static void add_common(const struct vcp_dstatus *s, struct json_object *o)
{
	json_object_object_add(o, "connected",
			       json_object_new_boolean(s->connected));
	json_object_object_add(o, "mode",
			       json_object_new_string(vcp_mode_name(s->mode)));
	json_object_object_add(o, "replans", replans(s));
}

struct json_object *vcp_dstatus_json(const struct vcp_dstatus *s)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "pid", json_object_new_int(s->pid));
	json_object_object_add(o, "uri",
			       json_object_new_string(s->uri ? s->uri : ""));
	add_common(s, o);
	control_status(s, o);
	json_object_object_add(o, "last", json_object_get(s->last));
	return o;
}

struct json_object *vcp_dstatus_reply(enum vcp_req_op op,
				      const struct vcp_dstatus *s)
{
	struct json_object *o = json_object_new_object();

	switch (op) {
	case VCP_REQ_HOOK:
		break;
	case VCP_REQ_REPLAN:
		json_object_object_add(o, "replans", replans(s));
		break;
	case VCP_REQ_STATUS:
	case VCP_REQ_LEVEL:
	case VCP_REQ_PAUSE:
	case VCP_REQ_RESUME:
	case VCP_REQ_ENABLE:
	case VCP_REQ_DISABLE:
	case VCP_REQ_RELOAD:
		json_object_object_add(o, "status", vcp_dstatus_json(s));
		break;
	case VCP_REQ_PING:
		add_common(s, o);
		break;
	}
	return o;
}
