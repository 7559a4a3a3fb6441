// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hook.c - the libvirt qemu hook, installed as
 * /etc/libvirt/hooks/qemu.d/vcpack.
 *
 * libvirt runs it as `vcpack NAME OP SUBOP -` with the domain XML on
 * stdin. It never calls back into libvirt (that would deadlock the
 * daemon) and never blocks a start for long:
 *   prepare/begin: validate the VM's vcpack tag. By default (lenient)
 *     a malformed tag is named on stderr (libvirt's log) and the VM
 *     starts untouched: for a power optimiser a VM must start. Strict
 *     mode (the policy's strict_tags, off by default, and only while
 *     vcpack is enabled: control.h) refuses the start with a message
 *     naming the VM and what is wrong. A domain XML the hook cannot
 *     judge (too large, too deep for libxml2, unreadable) is treated the
 *     same way; never a silent start.
 *   started, reconnect, stopped, release: tell vcpackd over its UNIX
 *     socket (one line, 200 ms at most) and return; no daemon, no delay.
 * Anything else exits 0 at once.
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "control.h"
#include "ctl.h"
#include "policy.h"
#include "tags.h"

#define HOOK_MAX_XML (4u << 20)	/* a domain XML larger than this is refused */
#define HOOK_MAX_DRAIN (256u << 20)
#define NOTIFY_TIMEOUT_MS 200


static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

/* Read all of stdin, at most HOOK_MAX_XML bytes. */
static int read_stdin(char **ret, size_t *ret_len)
{
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap + 1);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *t;

			if (cap >= HOOK_MAX_XML) {
				free(buf);
				return -EFBIG;
			}
			cap *= 2;
			t = realloc(buf, cap + 1);
			if (!t) {
				free(buf);
				return -ENOMEM;
			}
			buf = t;
		}
		n = read(STDIN_FILENO, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}

/* libvirt writes the XML whatever the operation: take it (up to
 * HOOK_MAX_DRAIN bytes), so that it never meets a closed pipe. */
static void drain_stdin(void)
{
	char buf[65536];
	size_t total = 0;
	ssize_t n;

	while (total < HOOK_MAX_DRAIN &&
	       ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0 ||
		(n < 0 && errno == EINTR)))
		total += n > 0 ? (size_t)n : 0;
}

/* Is vcpack enabled (vcpackd's state file, else the policy)? A state
 * file the hook cannot read counts as "not enabled": lenient. */
static bool enabled(const struct vcp_policy *p)
{
	struct vcp_control c;
	char *err = NULL, why[256];
	const char *path = env_or("VCPACK_STATE", VCP_CONTROL_STATE);
	int r = vcp_control_load(path, &c, &err);

	free(err);
	if (r < 0)
		return false;
	return vcp_control_enabled(&c, p, why, sizeof(why));
}

/* Refuse a start? Only with strict_tags while vcpack is enabled; @what
 * (a static string) says why not. */
static bool strict_mode(const char **what)
{
	struct vcp_policy p;
	char *err = NULL;
	const char *path;
	bool strict;
	int r = vcp_policy_load_host(env_or("VCPACK_POLICY", NULL), &p, &path,
				     &err);

	/* Lenient, unlike vcpack and vcpackd: a policy the hook cannot
	 * read leaves the defaults, and a named one that is missing is
	 * not even mentioned. */
	if (r < 0 && r != -ENOENT)
		fprintf(stderr, "vcpack: hook: ignoring policy '%s': %s\n",
			path, err ? err : strerror(-r));
	strict = p.strict_tags && enabled(&p);
	*what = !p.strict_tags ? "strict_tags is off" : "vcpack is not enabled";
	vcp_policy_clear(&p);
	free(err);
	return strict;
}

/*
 * The hook could not judge the VM's tag (@why): strict mode refuses the
 * start, lenient mode lets it start; both say so, naming the VM.
 */
static int cannot_judge(const char *name, const char *why)
{
	const char *what;
	bool strict = strict_mode(&what);

	fprintf(stderr,
		"vcpack: cannot check the vcpack tag of VM '%s': %s; %s%s%s\n",
		name, why,
		strict ?
			"refusing to start it (strict_tags in the vcpack policy)" :
			"it starts untouched by vcpack (",
		strict ? "" : what, strict ? "" : ")");
	return strict ? 1 : 0;
}

/* libxml2's last error as one line. */
static void xml_error(char *buf, size_t size)
{
	const xmlError *e = xmlGetLastError();
	char msg[256];

	snprintf(msg, sizeof(msg), "%s",
		 e && e->message ? e->message : "unknown error");
	msg[strcspn(msg, "\n")] = '\0';
	snprintf(buf, size, "its domain XML does not parse (line %d: %s)",
		 e ? e->line : 0, msg);
}

/* @s as one shell word in single quotes ('it'\''s'), cut to fit @len;
 * for the fix it prints, which an admin may paste into a shell. */
static const char *sh_quote(const char *s, char *buf, size_t len)
{
	size_t k = 0;

	if (len < 3)
		return "''";
	buf[k++] = '\'';
	for (; *s && k + 6 < len; s++) {
		if (*s == '\'') {
			memcpy(buf + k, "'\\''", 4);
			k += 4;
		} else {
			buf[k++] = *s;
		}
	}
	buf[k++] = '\'';
	buf[k] = '\0';
	return buf;
}

/* 0: fine or no tag; 1: refuse the start. */
static int check_tag(const char *name)
{
	struct vcp_tag tag;
	char *xml = NULL, *err = NULL, why[512], quoted[1100];
	const char *what;
	size_t len = 0;
	xmlDocPtr doc;
	bool strict;
	int r;

	r = read_stdin(&xml, &len);
	if (r < 0) {
		snprintf(why, sizeof(why), "cannot read its domain XML (%s)",
			 r == -EFBIG ? "larger than the hook's limit of 4 MiB" :
				       strerror(-r));
		if (r == -EFBIG)
			drain_stdin();
		return cannot_judge(name, why);
	}
	doc = xmlReadMemory(xml, (int)len, "domain.xml", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR |
			    XML_PARSE_NOWARNING);
	free(xml);
	if (!doc) {
		xml_error(why, sizeof(why));
		return cannot_judge(name, why);
	}
	r = vcp_tag_from_domain(doc, &tag, &err);
	xmlFreeDoc(doc);
	if (r == -ENOMEM)
		return cannot_judge(name, "out of memory");
	if (r != -EINVAL) { /* fine, or no tag */
		free(err);
		return 0;
	}
	strict = strict_mode(&what);
	fprintf(stderr,
		"vcpack: VM '%s' has a bad vcpack tag (%s); %s%s%s. Fix it with: virsh metadata %s --uri %s --key vcpack --set '<consolidation priority=\"normal\"/>' --config\n",
		name, err ? err : "invalid",
		strict ?
			"refusing to start it (strict_tags in the vcpack policy)" :
			"it starts untouched by vcpack (",
		strict ? "" : what, strict ? "" : ")",
		sh_quote(name, quoted, sizeof(quoted)), VCP_TAG_NS);
	free(err);
	return strict ? 1 : 0;
}

/* One line to vcpackd, without ever waiting long. */
static void notify(const char *name, const char *op, const char *subop)
{
	const char *path = env_or("VCPACK_SOCKET", VCP_CTL_SOCKET);

	/* best effort: no daemon, or a stuck one, never delays a start */
	(void)vcp_ctl_notify(path, op, subop, name, NOTIFY_TIMEOUT_MS);
}

#ifndef VCP_VERSION
#define VCP_HOOK_VERSION "0.1"
#else
#define VCP_HOOK_VERSION VCP_VERSION
#endif

int main(int argc, char **argv)
{
	const char *name, *op, *subop;

	/* a vcpackd that closes its socket mid-line must not kill the hook */
	signal(SIGPIPE, SIG_IGN);
	/* a domain named --version would come with its operation too */
	if (argc == 2 && (strcmp(argv[1], "--version") == 0 ||
			  strcmp(argv[1], "-V") == 0)) {
		puts("vcpack-hook " VCP_HOOK_VERSION);
		return 0;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: %s NAME OPERATION SUB-OPERATION [EXTRA]\n"
			"(run by libvirtd as /etc/libvirt/hooks/qemu.d/vcpack)\n",
			argv[0]);
		return 2;
	}
	name = argv[1];
	op = argv[2];
	subop = argv[3];
	if (strcmp(op, "prepare") == 0 && strcmp(subop, "begin") == 0)
		return check_tag(name);
	drain_stdin();
	if (strcmp(op, "started") == 0 || strcmp(op, "reconnect") == 0 ||
	    strcmp(op, "stopped") == 0 || strcmp(op, "release") == 0)
		notify(name, op, subop);
	return 0;
}
