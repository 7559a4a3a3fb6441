// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_proto.c - libFuzzer harness for the control protocol (proto.c):
 * the input is a byte stream from a client (after a first byte that sets
 * the size of the pieces it is fed in, 1-64), fed to a connection's
 * buffer as a server reads it; every line taken
 * out is parsed as a request (one that parses must survive
 * format -> parse unchanged, and get a reply), as a reply, and, when it
 * is one, as a status object (a refused one names the member, an
 * accepted one is in range). Built and run by `make check-fuzz`.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void request(const char *line)
{
	struct vcp_req req, back;
	char *err = NULL, *out;
	bool nomem;

	if (vcp_req_parse(line, &req, &err) < 0) {
		if (!err)
			abort();	/* a refusal always says why */
		free(err);
		return;
	}
	if (req.version == 1 && fuzz_escaped_nul(line))
		abort();	/* a JSON request with an escaped NUL */
	out = vcp_req_format(&req);
	if (out) {
		out[strlen(out) - 1] = '\0';
		if (vcp_req_parse(out, &back, &err) < 0 || back.op != req.op ||
		    back.version != 1 ||
		    (req.op == VCP_REQ_HOOK && (strcmp(back.vm, req.vm) ||
		     strcmp(back.event, req.event) || strcmp(back.sub, req.sub))))
			abort();
		free(out);
	}
	out = vcp_reply_format(&req, NULL, NULL, &nomem);
	free(out);
	out = vcp_reply_format(&req, NULL, "refused", &nomem);
	if (!out && !nomem)
		abort();	/* an error always has a line */
	free(out);
}

static void reply(const char *line)
{
	struct json_object *o = NULL, *st;
	struct vcp_status s;
	char *err = NULL;

	if (vcp_reply_parse(line, &o, &err) < 0) {
		free(err);
		return;
	}
	if (fuzz_escaped_nul(line))
		abort();	/* a reply with an escaped NUL */
	if (json_object_object_get_ex(o, "status", &st)) {
		int r = vcp_status_from_json(st, &s, &err);

		if (r == 0 && (s.pid < 1 || (s.has_last && (s.level > 2 ||
							    s.active < 0))))
			abort();	/* checked before it is used */
		if (r == 0)
			vcp_status_clear(&s);
		else if (r == -EBADMSG && (!err || strncmp(err, "status", 6)))
			abort();	/* a refusal names the member */
	}
	free(err);
	json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vcp_conn c = { 0 };
	size_t off = 1, piece = size ? 1 + data[0] % 64 : 1;

	while (off < size) {
		size_t n = piece, room = vcp_conn_room(&c);
		char *line;
		int r;

		if (n > size - off)
			n = size - off;
		if (n > room)
			n = room;
		if (vcp_conn_feed(&c, (const char *)data + off, n) < 0)
			abort();	/* room said it fits */
		off += n;
		while ((r = vcp_conn_next_line(&c, &line)) > 0) {
			request(line);
			reply(line);
			free(line);
		}
		if (r < 0 || !n)
			break;	/* the server closes such a client */
	}
	free(c.in);
	free(c.out);
	return 0;
}
