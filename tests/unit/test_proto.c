// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_proto.c - the control protocol without sockets: request lines
 * (version 0 text and version 1 JSON, bad ones refused with a reason),
 * replies both ways, the status object checked member by member, line
 * framing over a client's buffers (split requests, several requests in
 * one read, the size cap, NUL bytes), the output queue and its cap, and
 * the client table (limit, the idle victim, deadlines).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "proto.h"

static struct vcp_req parse_ok(const char *line)
{
	struct vcp_req r;
	char *err = NULL;

	assert_int_equal(vcp_req_parse(line, &r, &err), 0);
	assert_null(err);
	return r;
}

static void parse_bad(const char *line, int want, const char *says)
{
	struct vcp_req r;
	char *err = NULL;

	assert_int_equal(vcp_req_parse(line, &r, &err), want);
	assert_non_null(err);
	if (!strstr(err, says))
		fail_msg("'%s' does not say '%s'", err, says);
	free(err);
}

static void test_req_text(void **state)
{
	struct vcp_req r = parse_ok("status");

	assert_int_equal(r.op, VCP_REQ_STATUS);
	assert_int_equal(r.version, 0);
	assert_int_equal(parse_ok("ping").op, VCP_REQ_PING);
	assert_int_equal(parse_ok("replan").op, VCP_REQ_REPLAN);
	r = parse_ok("hook started begin my vm");
	assert_int_equal(r.op, VCP_REQ_HOOK);
	assert_string_equal(r.event, "started");
	assert_string_equal(r.sub, "begin");
	assert_string_equal(r.vm, "my vm");
	parse_bad("sta", -EINVAL, "unknown request");
	parse_bad("hook", -EINVAL, "unknown request");
	parse_bad("hook started", -EINVAL, "malformed hook");
	parse_bad("", -EINVAL, "unknown request");
}

static void test_req_json(void **state)
{
	struct vcp_req r = parse_ok("{\"v\":1,\"op\":\"status\"}");

	assert_int_equal(r.op, VCP_REQ_STATUS);
	assert_int_equal(r.version, 1);
	r = parse_ok("{\"v\":1,\"op\":\"hook\",\"event\":\"stopped\",\"sub\":\"end\",\"vm\":\"a b\"}");
	assert_int_equal(r.op, VCP_REQ_HOOK);
	assert_string_equal(r.event, "stopped");
	assert_string_equal(r.vm, "a b");
	parse_bad("{\"v\":2,\"op\":\"ping\"}", -EPROTONOSUPPORT, "version 2");
	parse_bad("{\"op\":\"ping\"}", -EINVAL, "\"v\"");
	parse_bad("{\"v\":\"1\",\"op\":\"ping\"}", -EINVAL, "\"v\"");
	parse_bad("{\"v\":1,\"op\":\"fly\"}", -EINVAL, "\"fly\"");
	parse_bad("{\"v\":1,\"op\":7}", -EINVAL, "op");
	parse_bad("{\"v\":1,\"op\":\"hook\",\"event\":\"x\"}", -EINVAL, "\"vm\"");
	parse_bad("{\"v\":1,\"op\":\"hook\",\"event\":\"x\",\"sub\":\"y\",\"vm\":5}",
		  -EINVAL, "\"vm\"");
	parse_bad("[1]", -EINVAL, "unknown request");
	parse_bad("{\"v\":1,", -EINVAL, "not valid JSON");
	parse_bad("{\"v\":1,\"op\":\"ping\"} x", -EINVAL, "not valid JSON");
}

/* The control ops: JSON only (version 0 text keeps its four). */
static void test_req_control(void **state)
{
	struct vcp_req r = parse_ok("{\"v\":1,\"op\":\"level\",\"level\":\"auto\"}"), back;
	char *line, *err = NULL;

	assert_int_equal(r.op, VCP_REQ_LEVEL);
	assert_string_equal(r.level, "auto");
	line = vcp_req_format(&r);
	assert_string_equal(line, "{\"v\":1,\"op\":\"level\",\"level\":\"auto\"}\n");
	line[strlen(line) - 1] = '\0';
	assert_int_equal(vcp_req_parse(line, &back, &err), 0);
	assert_string_equal(back.level, "auto");
	free(line);
	assert_int_equal(parse_ok("{\"v\":1,\"op\":\"pause\"}").op, VCP_REQ_PAUSE);
	assert_int_equal(parse_ok("{\"v\":1,\"op\":\"resume\"}").op, VCP_REQ_RESUME);
	assert_int_equal(parse_ok("{\"v\":1,\"op\":\"enable\"}").op, VCP_REQ_ENABLE);
	assert_int_equal(parse_ok("{\"v\":1,\"op\":\"disable\"}").op, VCP_REQ_DISABLE);
	assert_int_equal(parse_ok("{\"v\":1,\"op\":\"reload\"}").op, VCP_REQ_RELOAD);
	parse_bad("{\"v\":1,\"op\":\"level\"}", -EINVAL, "\"level\"");
	parse_bad("{\"v\":1,\"op\":\"level\",\"level\":\"123456789\"}", -EINVAL, "\"level\"");
	parse_bad("pause", -EINVAL, "unknown request");
	parse_bad("level", -EINVAL, "unknown request");
}

static void test_req_roundtrip(void **state)
{
	struct vcp_req r = { .op = VCP_REQ_HOOK }, back;
	char *line, *err = NULL;

	strcpy(r.event, "started");
	strcpy(r.sub, "begin");
	strcpy(r.vm, "vm \"quoted\"\nnewline");
	line = vcp_req_format(&r);
	assert_non_null(line);
	assert_non_null(strchr(line, '\n'));
	assert_ptr_equal(strchr(line, '\n'), line + strlen(line) - 1);
	line[strlen(line) - 1] = '\0';
	/* a VM name with a newline cannot come back through a line */
	assert_int_equal(vcp_req_parse(line, &back, &err), -EINVAL);
	free(err);
	free(line);
	strcpy(r.vm, "vm \"quoted\"");
	line = vcp_req_format(&r);
	line[strlen(line) - 1] = '\0';
	back = parse_ok(line);
	assert_string_equal(back.vm, "vm \"quoted\"");
	assert_string_equal(back.event, "started");
	free(line);
	/* a long domain name still fits a hook request */
	memset(r.vm, 'v', 600);
	r.vm[600] = '\0';
	line = vcp_req_format(&r);
	line[strlen(line) - 1] = '\0';
	back = parse_ok(line);
	assert_int_equal(strlen(back.vm), 600);
	free(line);
}

static struct json_object *fields(const char *json)
{
	return json_tokener_parse(json);
}

static void reply_is(const struct vcp_req *req, const char *f,
		     const char *error, const char *want)
{
	bool nomem = true;
	char *line = vcp_reply_format(req, f ? fields(f) : NULL, error, &nomem);

	assert_false(nomem);
	if (!want) {
		assert_null(line);
		return;
	}
	assert_non_null(line);
	assert_string_equal(line, want);
	free(line);
}

static void test_reply_format(void **state)
{
	struct vcp_req v0 = { .op = VCP_REQ_PING }, v1 = v0;
	const char *ping = "{\"connected\":true,\"mode\":\"pin\",\"replans\":3}";

	v1.version = 1;
	reply_is(&v0, ping, NULL, "ok connected mode=pin replans=3\n");
	reply_is(&v1, ping, NULL,
		 "{\"v\":1,\"ok\":true,\"connected\":true,\"mode\":\"pin\",\"replans\":3}\n");
	reply_is(&v0, NULL, "unknown request", "error unknown request\n");
	reply_is(&v1, NULL, "no", "{\"v\":1,\"ok\":false,\"error\":\"no\"}\n");
	v0.op = v1.op = VCP_REQ_REPLAN;
	reply_is(&v0, "{\"replans\":4}", NULL, "ok replans=4\n");
	v0.op = v1.op = VCP_REQ_STATUS;
	reply_is(&v0, "{\"status\":{\"pid\":1}}", NULL, "{\"pid\":1}\n");
	reply_is(&v1, "{\"status\":{\"pid\":1}}", NULL,
		 "{\"v\":1,\"ok\":true,\"status\":{\"pid\":1}}\n");
	v0.op = v1.op = VCP_REQ_HOOK;
	reply_is(&v0, "{}", NULL, NULL);	/* a text hook line: no reply */
	reply_is(&v1, "{}", NULL, "{\"v\":1,\"ok\":true}\n");
}

static void test_reply_parse(void **state)
{
	struct json_object *o = NULL;
	char *err = NULL;

	assert_int_equal(vcp_reply_parse("{\"v\":1,\"ok\":true,\"replans\":2}",
					 &o, &err), 0);
	assert_int_equal(json_object_get_int(json_object_object_get(o, "replans")), 2);
	json_object_put(o);
	assert_int_equal(vcp_reply_parse("{\"v\":1,\"ok\":false,\"error\":\"busy\"}",
					 &o, &err), -EPROTO);
	assert_string_equal(err, "busy");
	assert_int_equal(vcp_reply_parse("ok connected", &o, &err), -EBADMSG);
	assert_int_equal(vcp_reply_parse("{\"v\":2,\"ok\":true}", &o, &err), -EBADMSG);
	assert_non_null(strstr(err, "version 2"));
	assert_int_equal(vcp_reply_parse("{\"ok\":true}", &o, &err), -EBADMSG);
	assert_int_equal(vcp_reply_parse("{\"v\":1,\"ok\":\"yes\"}", &o, &err), -EBADMSG);
	free(err);
}

#define STATUS_HEAD \
	"{\"pid\":42,\"uri\":\"test:///default\",\"connected\":true,\"mode\":\"pin\",\"replans\":7,"

static void test_status_good(void **state)
{
	struct json_object *o = fields(
		STATUS_HEAD
		"\"last\":{\"at\":100,\"level\":1,\"active\":2,\"vms\":[{\"name\":\"a\",\"demand\":[0.5,null],\"delay\":0.25,\"relieved\":true},{\"name\":\"b\",\"demand\":[],\"delay\":null,\"relieved\":false}]}}");
	struct vcp_status s;
	char *err = NULL;

	assert_int_equal(vcp_status_from_json(o, &s, &err), 0);
	assert_int_equal(s.pid, 42);
	assert_string_equal(s.uri, "test:///default");
	assert_true(s.connected);
	assert_string_equal(s.mode, "pin");
	assert_int_equal(s.replans, 7);
	assert_true(s.has_last);
	assert_int_equal(s.level, 1);
	assert_int_equal(s.active, 2);
	assert_int_equal(s.n_vms, 2);
	assert_string_equal(s.vms[0].name, "a");
	assert_int_equal(s.vms[0].n_vcpus, 2);
	assert_true(s.vms[0].demand[0] == 0.5);
	assert_true(s.vms[0].demand[1] == -1);
	assert_true(s.vms[0].delay == 0.25);
	assert_true(s.vms[0].relieved);
	assert_true(s.vms[1].delay == -1);
	assert_int_equal(s.vms[1].n_vcpus, 0);
	vcp_status_clear(&s);
	json_object_put(o);
	o = fields(STATUS_HEAD "\"last\":null}");
	assert_int_equal(vcp_status_from_json(o, &s, &err), 0);
	assert_false(s.has_last);
	vcp_status_clear(&s);
	json_object_put(o);
}

static void status_bad(const char *json, const char *says)
{
	struct json_object *o = fields(json);
	struct vcp_status s = { .pid = 99 };
	char *err = NULL;

	assert_int_equal(vcp_status_from_json(o, &s, &err), -EBADMSG);
	assert_int_equal(s.pid, 99);	/* untouched */
	assert_non_null(strstr(err, says));
	free(err);
	json_object_put(o);
}

static void test_status_bad(void **state)
{
	status_bad("[]", "not {pid");
	status_bad(
		"{\"pid\":\"42\",\"uri\":\"u\",\"connected\":true,\"mode\":\"pin\",\"replans\":1,\"last\":null}",
		"not {pid");
	status_bad(
		"{\"pid\":42,\"uri\":\"u\",\"connected\":1,\"mode\":\"pin\",\"replans\":1,\"last\":null}",
		"not {pid");
	status_bad(
		"{\"pid\":42,\"uri\":\"u\",\"connected\":true,\"mode\":\"pin\",\"replans\":1}",
		"not {pid");
	status_bad(STATUS_HEAD
		   "\"last\":{\"at\":1,\"level\":5,\"active\":1,\"vms\":[]}}",
		   "\"last\"");
	status_bad(STATUS_HEAD
		   "\"last\":{\"at\":1,\"level\":1,\"active\":1,\"vms\":{}}}",
		   "\"last\"");
	status_bad(
		STATUS_HEAD
		"\"last\":{\"at\":1,\"level\":1,\"active\":1,\"vms\":[{\"name\":3,\"demand\":[],\"delay\":null}]}}",
		"VM 0");
	status_bad(
		STATUS_HEAD
		"\"last\":{\"at\":1,\"level\":1,\"active\":1,\"vms\":[{\"name\":\"a\",\"demand\":[\"x\"],\"delay\":null}]}}",
		"VM 0");
	status_bad(
		STATUS_HEAD
		"\"last\":{\"at\":1,\"level\":1,\"active\":1,\"vms\":[{\"name\":\"a\",\"demand\":[-2],\"delay\":null}]}}",
		"VM 0");
	status_bad(
		STATUS_HEAD
		"\"last\":{\"at\":1,\"level\":1,\"active\":1,\"vms\":[{\"name\":\"a\",\"demand\":[]}]}}",
		"VM 0");
}

/* ---- framing ---- */

static void feed(struct vcp_conn *c, const char *s)
{
	assert_int_equal(vcp_conn_feed(c, s, strlen(s)), 0);
}

static void next_is(struct vcp_conn *c, const char *want)
{
	char *line = NULL;

	assert_int_equal(vcp_conn_next_line(c, &line), 1);
	assert_string_equal(line, want);
	free(line);
}

static void no_line(struct vcp_conn *c)
{
	char *line = NULL;

	assert_int_equal(vcp_conn_next_line(c, &line), 0);
	assert_null(line);
}

static void conn_free(struct vcp_conn *c)
{
	free(c->in);
	free(c->out);
}

static void test_framing_split(void **state)
{
	struct vcp_conn c = { 0 };

	assert_false(c.heard);
	feed(&c, "sta");
	assert_true(c.heard);
	no_line(&c);
	feed(&c, "tus");
	no_line(&c);
	feed(&c, "\r\n");
	next_is(&c, "status");
	no_line(&c);
	assert_int_equal(c.in_len, 0);
	conn_free(&c);
}

static void test_framing_several(void **state)
{
	struct vcp_conn c = { 0 };

	feed(&c, "ping\nstatus\n{\"v\":1,\"op\":\"ping\"}\nrep");
	next_is(&c, "ping");
	next_is(&c, "status");
	next_is(&c, "{\"v\":1,\"op\":\"ping\"}");
	no_line(&c);
	feed(&c, "lan\n\n");
	next_is(&c, "replan");
	next_is(&c, "");
	no_line(&c);
	conn_free(&c);
}

static void test_framing_cap(void **state)
{
	struct vcp_conn c = { 0 };
	char *big = malloc(VCP_PROTO_MAX_LINE + 1), *line = NULL;

	/* a line of exactly the cap (newline included) is fine */
	memset(big, 'x', VCP_PROTO_MAX_LINE);
	big[VCP_PROTO_MAX_LINE - 1] = '\n';
	assert_int_equal(vcp_conn_feed(&c, big, VCP_PROTO_MAX_LINE), 0);
	assert_int_equal(vcp_conn_next_line(&c, &line), 1);
	assert_int_equal(strlen(line), VCP_PROTO_MAX_LINE - 1);
	free(line);
	/* one byte more is not, whether its newline came or not */
	memset(big, 'x', VCP_PROTO_MAX_LINE + 1);
	assert_int_equal(vcp_conn_feed(&c, big, VCP_PROTO_MAX_LINE), 0);
	assert_int_equal(vcp_conn_next_line(&c, &line), -EMSGSIZE);
	assert_int_equal(vcp_conn_feed(&c, "\n", 1), 0);
	assert_int_equal(vcp_conn_next_line(&c, &line), -EMSGSIZE);
	/* and what waits is bounded: no room past two lines' worth */
	assert_int_equal(vcp_conn_room(&c), VCP_CONN_MAX_IN - VCP_PROTO_MAX_LINE - 1);
	assert_int_equal(vcp_conn_feed(&c, big, VCP_PROTO_MAX_LINE), -EMSGSIZE);
	conn_free(&c);
	free(big);
}

static void test_framing_nul(void **state)
{
	struct vcp_conn c = { 0 };
	char *line = NULL;

	assert_int_equal(vcp_conn_feed(&c, "pi\0ng\n", 6), 0);
	assert_int_equal(vcp_conn_next_line(&c, &line), -EBADMSG);
	assert_null(line);
	conn_free(&c);
}

static void test_output_queue(void **state)
{
	struct vcp_conn c = { 0 };
	const char *p;
	char *big;

	assert_int_equal(vcp_conn_pending(&c, &p), 0);
	assert_int_equal(vcp_conn_queue(&c, "hello\n", 6), 0);
	assert_int_equal(vcp_conn_queue(&c, "world\n", 6), 0);
	assert_int_equal(vcp_conn_pending(&c, &p), 12);
	assert_memory_equal(p, "hello\nworld\n", 12);
	vcp_conn_sent(&c, 4);	/* a short write */
	assert_int_equal(vcp_conn_pending(&c, &p), 8);
	assert_memory_equal(p, "o\nworld\n", 8);
	assert_int_equal(vcp_conn_step(&c), VCP_CONN_WRITE);
	c.eof = true;
	assert_int_equal(vcp_conn_step(&c), VCP_CONN_WRITE);	/* owes a reply */
	vcp_conn_sent(&c, 8);
	assert_int_equal(vcp_conn_pending(&c, &p), 0);
	assert_int_equal(vcp_conn_step(&c), VCP_CONN_CLOSE);
	c.eof = false;
	assert_int_equal(vcp_conn_step(&c), VCP_CONN_READ);
	/* an error was sent: wait for the client's EOF before closing */
	c.closing = true;
	assert_int_equal(vcp_conn_step(&c), VCP_CONN_LINGER);
	c.eof = true;
	assert_int_equal(vcp_conn_step(&c), VCP_CONN_CLOSE);
	/* a client that never reads cannot make us hold more than the cap */
	big = calloc(1, VCP_PROTO_MAX_OUT / 2 + 1);
	assert_int_equal(vcp_conn_queue(&c, big, VCP_PROTO_MAX_OUT / 2), 0);
	assert_int_equal(vcp_conn_queue(&c, big, VCP_PROTO_MAX_OUT / 2), 0);
	assert_int_equal(vcp_conn_queue(&c, "x", 1), -ENOBUFS);
	assert_int_equal(vcp_conn_pending(&c, &p), VCP_PROTO_MAX_OUT);
	free(big);
	conn_free(&c);
}

/* ---- the table ---- */

static void test_table_limit_victim(void **state)
{
	struct vcp_conn_table t;
	struct vcp_conn *c[4], *extra = NULL;

	assert_int_equal(vcp_conn_table_init(&t, 3, 1000), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(vcp_conn_table_add(&t, 10 + i, 0, &c[i]), 0);
		assert_int_equal(c[i]->fd, 10 + i);
	}
	assert_int_equal(vcp_conn_table_add(&t, 13, 0, &extra), -EMFILE);
	assert_null(extra);
	/* the oldest that said nothing makes room */
	feed(c[0], "pi");
	assert_ptr_equal(vcp_conn_table_victim(&t), c[1]);
	vcp_conn_table_drop(&t, c[1]);
	assert_int_equal(t.n, 2);
	assert_int_equal(vcp_conn_table_add(&t, 13, 0, &c[3]), 0);
	assert_ptr_equal(vcp_conn_table_victim(&t), c[2]);
	/* nobody idle: no victim, the newcomer is refused */
	feed(c[2], "x");
	feed(c[3], "y");
	assert_null(vcp_conn_table_victim(&t));
	vcp_conn_table_clear(&t);
	assert_int_equal(t.n, 0);
}

static void test_table_deadlines(void **state)
{
	struct vcp_conn_table t;
	struct vcp_conn *a, *b, *late[4];

	assert_int_equal(vcp_conn_table_init(&t, 8, 1000), 0);
	assert_int_equal(vcp_conn_table_add(&t, 1, 0, &a), 0);
	assert_int_equal(vcp_conn_table_add(&t, 2, 500, &b), 0);
	assert_int_equal(vcp_conn_table_expired(&t, 999, late, 4), 0);
	assert_int_equal(vcp_conn_table_expired(&t, 1000, late, 4), 1);
	assert_ptr_equal(late[0], a);
	/* progress moves the deadline */
	vcp_conn_progress(a, 900, t.idle_ms);
	assert_int_equal(vcp_conn_table_expired(&t, 1500, late, 4), 1);
	assert_ptr_equal(late[0], b);
	assert_int_equal(vcp_conn_table_expired(&t, 5000, late, 1), 1);
	/* progress, however steady, does not keep a client past its life */
	for (long long now = 0; now < VCP_PROTO_MAX_LIFE_MS; now += 500) {
		vcp_conn_progress(a, now, t.idle_ms);
		vcp_conn_progress(b, now, t.idle_ms);
		assert_int_equal(vcp_conn_table_expired(&t, now, late, 4), 0);
	}
	assert_int_equal(vcp_conn_table_expired(&t, VCP_PROTO_MAX_LIFE_MS, late, 4), 1);
	assert_ptr_equal(late[0], a);
	assert_int_equal(vcp_conn_table_expired(&t, VCP_PROTO_MAX_LIFE_MS + 500, late, 4), 2);
	vcp_conn_table_clear(&t);
}

static void test_client_limit(void **state)
{
	assert_int_equal(vcp_proto_client_limit(1024), VCP_PROTO_MAX_CLIENTS);
	assert_int_equal(vcp_proto_client_limit(1u << 20), VCP_PROTO_MAX_CLIENTS);
	assert_int_equal(vcp_proto_client_limit(128), 32);
	assert_int_equal(vcp_proto_client_limit(64), 4);
	assert_int_equal(vcp_proto_client_limit(0), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_req_text),
		cmocka_unit_test(test_req_json),
		cmocka_unit_test(test_req_control),
		cmocka_unit_test(test_req_roundtrip),
		cmocka_unit_test(test_reply_format),
		cmocka_unit_test(test_reply_parse),
		cmocka_unit_test(test_status_good),
		cmocka_unit_test(test_status_bad),
		cmocka_unit_test(test_framing_split),
		cmocka_unit_test(test_framing_several),
		cmocka_unit_test(test_framing_cap),
		cmocka_unit_test(test_framing_nul),
		cmocka_unit_test(test_output_queue),
		cmocka_unit_test(test_table_limit_victim),
		cmocka_unit_test(test_table_deadlines),
		cmocka_unit_test(test_client_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
