/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proto.h - vcpackd's control protocol, without the sockets: requests,
 * replies, line framing with buffered reads and a size cap, per-client
 * input and output buffers with a deadline, and the table of clients
 * with its limit. The server (ctlserver.c) and the client (ctl.c) move
 * bytes; everything they decide is decided here, so that it is tested
 * without a socket.
 *
 * Messages are lines (up to VCP_PROTO_MAX_LINE bytes with the newline).
 * Version 1 is JSON both ways:
 *   request  {"v":1,"op":"ping"|"status"|"replan"}
 *            {"v":1,"op":"hook","event":E,"sub":S,"vm":NAME}
 *            {"v":1,"op":"level","level":"0"|"1"|"2"|"auto"|"policy"}
 *            {"v":1,"op":"pause"|"resume"}
 *   reply    {"v":1,"ok":true,...}   ping: connected, mode, replans;
 *            replan: replans; status, level, pause, resume: status
 *            (see vcp_status; the control ops answer with the state
 *            after the change)
 *            {"v":1,"ok":false,"error":"why"}
 * The version 0 text lines ("ping", "status", "replan", "hook E S NAME")
 * are still answered the way they were (a text line; status: the status
 * object alone; hook: no reply). Several requests may follow each other
 * on one connection; each gets its reply in order.
 */
#ifndef VCP_PROTO_H
#define VCP_PROTO_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#define VCP_PROTO_VERSION 1
#define VCP_PROTO_MAX_LINE 4096		/* a request, newline included */
#define VCP_PROTO_MAX_OUT (64u << 20)	/* replies queued for one client */
/* A connection lives at most this long, progress or not (a reader of a
 * byte now and then cannot keep its slot for ever). */
#define VCP_PROTO_MAX_LIFE_MS 60000

enum vcp_req_op { VCP_REQ_PING, VCP_REQ_STATUS, VCP_REQ_REPLAN, VCP_REQ_HOOK,
		   VCP_REQ_LEVEL, VCP_REQ_PAUSE, VCP_REQ_RESUME,
		   VCP_REQ_ENABLE, VCP_REQ_DISABLE, VCP_REQ_RELOAD };

struct vcp_req {
	enum vcp_req_op op;
	int version;		/* 0: a text line, 1: JSON */
	char event[32];		/* hook: started, stopped, ... */
	char sub[32];		/* hook: begin, end, ... */
	char vm[1024];		/* hook: the domain's name */
	char level[8];		/* level: 0, 1, 2, auto or policy */
};

/* An op's name ("ping", "pause", ...). */
const char *vcp_req_op_name(enum vcp_req_op op);
/* The request an op's name ("pause", "enable", ...) stands for: 0, or
 * -EINVAL (@ret untouched). */
int vcp_req_op_of(const char *s, enum vcp_req_op *ret);
/* Parse one request line (without its newline). 0, or -EINVAL /
 * -EPROTONOSUPPORT with *ret_err saying why. */
int vcp_req_parse(const char *line, struct vcp_req *ret, char **ret_err);
/* The version 1 line for @req, newline included (malloc'd), or NULL. */
char *vcp_req_format(const struct vcp_req *req);

/*
 * The reply line (newline included, malloc'd) to @req: @fields are the
 * answer's members (taken over; NULL for none), or @error is set. NULL
 * when nothing is to be sent (a version 0 hook line) or out of memory
 * (*ret_nomem then true).
 */
char *vcp_reply_format(const struct vcp_req *req, struct json_object *fields,
		       const char *error, bool *ret_nomem);
/* A version 1 reply line: its object when "ok" is true; -EPROTO with the
 * server's error, or -EBADMSG when it is no such reply. */
int vcp_reply_parse(const char *line, struct json_object **ret,
		    char **ret_err);

/* What vcpackd measured and planned on ("status"). */
struct vcp_status_vm {
	char *name;
	double *demand;		/* per vCPU, -1 unknown */
	unsigned int n_vcpus;
	double delay;		/* -1 unknown */
	bool relieved;
};

struct vcp_status {
	int pid;
	char *uri;
	bool connected;
	char *mode;
	unsigned long long replans;
	/* the configured level in force (VCP_LEVEL_AUTO or 0-2) and why;
	 * has_level false from a vcpackd that does not say */
	bool has_level;
	int cfg_level;
	char level_reason[256];
	bool has_last;		/* a plan was made (the rest is about it) */
	long long at;
	int level, active;
	struct vcp_status_vm *vms;
	size_t n_vms;
};

/*
 * Check every member of a status object (docs/protocol.md), type and
 * range: pid 1..INT32_MAX, mode "pin", "kernel" or "scx", level "0".."2" or
 * "auto", the control object as the state file's, last null or {at,
 * level 0..2, packages 1..VCP_MAX_CPUS, active 0..packages, carried_out,
 * changes, level_reason, plan {level, vms: [{name, placement, vcpus:
 * [CPU list or null]}]}, vms: [{name, demand: [null or 0..1e9], delay,
 * relieved}]}; members it does not know are let through. 0, or
 * -EBADMSG with *ret_err naming the member ("status.last.active: must
 * be an integer 0..2 (its packages), got -5").
 */
int vcp_status_check(struct json_object *o, char **ret_err);
/* Check (vcp_status_check) and copy a status object. 0, -EBADMSG
 * (*ret_err names the member) or -ENOMEM. */
int vcp_status_from_json(struct json_object *o, struct vcp_status *ret,
			 char **ret_err);
void vcp_status_clear(struct vcp_status *s);

/* ---- one client's buffers ---- */

struct vcp_conn {
	int fd;			/* the owner's; never closed here */
	long long deadline_ms;	/* dropped when no progress by then */
	long long born_ms;	/* and VCP_PROTO_MAX_LIFE_MS after this */
	char *in;
	size_t in_len, in_cap;
	char *out;
	size_t out_len, out_off;
	bool heard;		/* at least one byte came in */
	bool eof;		/* the peer will send no more */
	bool closing;		/* send what is queued, then close */
	bool shut;		/* the owner shut our side down */
	unsigned int src;	/* the owner's watch */
	unsigned int watching;	/* the owner's watched conditions */
	void *owner;
};

/* Input held at once: take the lines out after each feed (then what
 * waits is less than one line, and there is room for a whole one). */
#define VCP_CONN_MAX_IN (2 * VCP_PROTO_MAX_LINE)

/* How much may be fed now. */
size_t vcp_conn_room(const struct vcp_conn *c);
/* Append what was read; -EMSGSIZE past vcp_conn_room(). */
int vcp_conn_feed(struct vcp_conn *c, const char *data, size_t n);
/* Take the next whole line (malloc'd, without its newline): 1, 0 when
 * none is complete yet, -EMSGSIZE (the line is too long), -EBADMSG (a
 * NUL byte in it), -ENOMEM. */
int vcp_conn_next_line(struct vcp_conn *c, char **ret_line);
/* Queue @n bytes to send: 0, -ENOBUFS past VCP_PROTO_MAX_OUT, -ENOMEM. */
int vcp_conn_queue(struct vcp_conn *c, const char *s, size_t n);
/* What is left to send, and how much of it was sent. */
size_t vcp_conn_pending(const struct vcp_conn *c, const char **ret);
void vcp_conn_sent(struct vcp_conn *c, size_t n);
/*
 * What to do with the client now: send what is queued; read (requests,
 * or while closing only the client's EOF); or close. A client being
 * closed (an error was sent) lingers with our side shut down until its
 * EOF or deadline: closing a UNIX socket with unread input would reset
 * the connection and could lose the error line.
 */
enum vcp_conn_step { VCP_CONN_READ, VCP_CONN_WRITE, VCP_CONN_LINGER,
		     VCP_CONN_CLOSE };
enum vcp_conn_step vcp_conn_step(const struct vcp_conn *c);
void vcp_conn_progress(struct vcp_conn *c, long long now_ms,
		       unsigned int idle_ms);

/* ---- the table of clients ---- */

struct vcp_conn_table {
	struct vcp_conn **v;
	size_t n, max;
	unsigned int idle_ms;	/* per-client deadline after progress */
};

/* How many clients at once, for a process allowed @nofile descriptors:
 * at most VCP_PROTO_MAX_CLIENTS, leaving room for libvirt's and the
 * daemon's own. */
#define VCP_PROTO_MAX_CLIENTS 64
size_t vcp_proto_client_limit(unsigned long long nofile);

int vcp_conn_table_init(struct vcp_conn_table *t, size_t max,
			unsigned int idle_ms);
/* A new client: 0, or -EMFILE when the table is full (see victim). */
int vcp_conn_table_add(struct vcp_conn_table *t, int fd, long long now_ms,
		       struct vcp_conn **ret);
/* When full: the oldest client that has sent nothing yet, to make room
 * (an idle flood cannot lock others out), or NULL. */
struct vcp_conn *vcp_conn_table_victim(const struct vcp_conn_table *t);
/* Clients past their deadline or their life, at most @max of them. */
size_t vcp_conn_table_expired(const struct vcp_conn_table *t, long long now_ms,
			      struct vcp_conn **ret, size_t max);
/* Take @c out of the table and free it (its fd is the caller's). */
void vcp_conn_table_drop(struct vcp_conn_table *t, struct vcp_conn *c);
void vcp_conn_table_clear(struct vcp_conn_table *t);

#endif
