/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemonstatus.h - vcpackd's answers as structured data: the record of
 * the last plan ("last": what it measured and planned on) and the reply
 * to each control request (proto.h says what each carries). Pure: the
 * daemon hands in its state; nothing here reads a clock or libvirt.
 */
#ifndef VCP_DAEMONSTATUS_H
#define VCP_DAEMONSTATUS_H

#include <stdbool.h>
#include <time.h>

#include <json-c/json.h>

#include "control.h"
#include "mode.h"
#include "model.h"
#include "observe.h"
#include "policy.h"
#include "proto.h"

struct vcp_tracker;

/* What a status reply is made of (all borrowed). */
struct vcp_dstatus {
	int pid;
	const char *uri; /* the connection's, else the configured one */
	bool connected;
	enum vcp_mode mode;
	const char *mode_reason;
	unsigned long replans;
	const struct vcp_control *ctl; /* `vcpack level` / `pause` */
	const struct vcp_policy *policy;
	const struct tm *tm; /* local time now: the level in force */
	const char *state_path;
	struct json_object *last; /* vcp_dstatus_last's, or NULL */
};

/*
 * The last plan at time @at: {at, level, active, packages, level_reason,
 * plan, vms: [{name, demand: [per vCPU, null unknown], delay (null
 * unknown), relieved}]}, made from the VMs @w observed, the plan @p and
 * the tracker @t (which VMs it relieved).
 */
struct json_object *vcp_dstatus_last(const struct vcp_world *w,
				     const struct vcp_plan *p,
				     const struct vcp_tracker *t, long long at);

/*
 * The status object: {pid, uri, connected, mode, replans, mode_reason,
 * level (the configured level in force: "0", "1", "2" or "auto"),
 * level_reason, control (the state file's object), state_file, last}.
 */
struct json_object *vcp_dstatus_json(const struct vcp_dstatus *s);

/*
 * The members of the reply to a request @op that succeeded: ping:
 * connected, mode, replans; replan: replans; status and the control ops
 * (level, pause, resume): status; hook: none.
 */
struct json_object *vcp_dstatus_reply(enum vcp_req_op op,
				      const struct vcp_dstatus *s);

#endif
