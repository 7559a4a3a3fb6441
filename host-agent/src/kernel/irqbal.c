// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * irqbal.c - living with irqbalance (see irqbal.h).
 *
 * irqbalance keeps its own banned-CPU list (IRQBALANCE_BANNED_CPULIST,
 * else the isolated and nohz_full CPUs) and, since its UI socket came,
 * takes a replacement at run time: "settings cpus LIST" over
 * /run/irqbalance/irqbalancePID.sock (root only; it checks the peer's
 * credentials), in force from its next rescan (its 10 s interval) until
 * "settings cpus NULL" or its restart. Checked against Debian 12's
 * irqbalance 1.9.2.
 */
#include "irqbal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "jsonfile.h"
#include "sysfile.h"

/* ---- finding it ---- */

/* IRQBALANCE_BANNED_CPULIST=... (quoted or not) in the defaults file. */
static void read_banned(const char *root, struct vcp_irqbalance *b)
{
	static const char key[] = "IRQBALANCE_BANNED_CPULIST=";
	char *path = vcp_root_path(root, "/etc/default/irqbalance");
	char *text = NULL, *err = NULL;

	if (!path || vcp_file_read(path, 1 << 16, &text, &err) < 0) {
		free(err);
		free(path);
		return;
	}
	for (char *sp, *line = strtok_r(text, "\n", &sp); line;
	     line = strtok_r(NULL, "\n", &sp)) {
		char *v;
		size_t len;

		while (*line == ' ' || *line == '\t')
			line++;
		if (strncmp(line, key, sizeof(key) - 1))
			continue;
		v = line + sizeof(key) - 1;
		len = strcspn(v, " \t#");
		v[len] = '\0';
		if (len >= 2 && (*v == '"' || *v == '\'') && v[len - 1] == *v) {
			v[len - 1] = '\0';
			v++;
		}
		b->has_banned = vcp_cpuset_parse(v, &b->banned) == 0;
	}
	free(text);
	free(path);
}

int vcp_irqbalance_detect(const char *root, struct vcp_irqbalance *ret)
{
	struct vcp_irqbalance b = { 0 };

	b.pid = vcp_proc_find_daemon(root, "/run/irqbalance.pid", "irqbalance");
	b.running = b.pid > 0;
	read_banned(root, &b);
	*ret = b;
	return 0;
}

/* ---- what to ask ---- */

void vcp_irqbal_want(const struct vcp_irqbalance *b,
		     const struct vcp_cpuset *idle, struct vcp_cpuset *ret)
{
	struct vcp_cpuset s = *idle;

	if (b->has_banned && vcp_cpuset_subset(idle, &b->banned))
		vcp_cpuset_zero(&s); /* its own list does it already */
	else if (b->has_banned)
		vcp_cpuset_or(&s, &b->banned);
	*ret = s;
}

int vcp_irqbal_request(const struct vcp_cpuset *ban, char *buf, size_t size)
{
	static const char head[] = "settings cpus ";
	size_t n = sizeof(head) - 1;

	if (size <= n + 4)
		return -ENOSPC;
	memcpy(buf, head, n);
	if (vcp_cpuset_empty(ban)) {
		snprintf(buf + n, size - n, "NULL");
		return 0;
	}
	return vcp_cpuset_format(ban, buf + n, size - n) < 0 ? -ENOSPC : 0;
}

/* ---- telling it ---- */

int vcp_irqbal_send(const char *root, int pid, const char *text)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char *path =
		vcp_root_path(root, "/run/irqbalance/irqbalance%d.sock", pid);
	size_t len = strlen(text);
	int fd, r = 0;

	if (!path)
		return -ENOMEM;
	if (strlen(path) >= sizeof(a.sun_path)) {
		free(path);
		return -ENAMETOOLONG;
	}
	strcpy(a.sun_path, path);
	free(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		r = -errno;
	/* one send: irqbalance reads the request with a single recvmsg() */
	else if (send(fd, text, len, MSG_NOSIGNAL) != (ssize_t)len)
		r = errno ? -errno : -EIO;
	close(fd);
	return r == -ECONNREFUSED ? -ENOENT : r;
}

/* ---- the record ---- */

int vcp_irqbal_told_load(const char *root, struct vcp_irqbal_told *ret)
{
	char *path = vcp_root_path(root, "%s", VCP_IRQBAL_TOLD_PATH);
	struct vcp_irqbal_told t = { 0 };
	char buf[8192], *end;
	long pid;
	int r;

	if (!path)
		return -ENOMEM;
	r = vcp_read_line(path, buf, sizeof(buf));
	free(path);
	if (r == -ENOENT) {
		*ret = t;
		return 0;
	}
	if (r < 0)
		return r;
	pid = strtol(buf, &end, 10);
	if (end == buf || *end != ' ' || pid <= 0 || pid >= 1 << 30 ||
	    vcp_cpuset_parse(end + 1, &t.ban) < 0)
		return -EBADMSG;
	t.pid = (int)pid;
	*ret = t;
	return 0;
}

int vcp_irqbal_told_store(const char *root, const struct vcp_irqbal_told *t)
{
	char *path = vcp_root_path(root, "%s", VCP_IRQBAL_TOLD_PATH);
	char line[8192];
	int n, r = 0;

	if (!path)
		return -ENOMEM;
	if (t->pid) {
		n = snprintf(line, sizeof(line), "%d ", t->pid);
		if (vcp_cpuset_format(&t->ban, line + n,
				      sizeof(line) - (size_t)n) < 0)
			r = -ENOSPC;
	}
	if (r == 0)
		r = vcp_state_file_put(path, t->pid ? line : NULL);
	free(path);
	return r;
}

/* ---- following the plan ---- */

/* Ask irqbalance to ban @ban (empty: its own list back). */
static void ask(const char *root, const struct vcp_irqbalance *b,
		const struct vcp_cpuset *ban, bool dry,
		struct vcp_irqbal_result *res)
{
	char text[8192];

	res->asked = true;
	res->ban = *ban;
	res->error = vcp_irqbal_request(ban, text, sizeof(text));
	if (!res->error && !dry)
		res->error = vcp_irqbal_send(root, b->pid, text);
}

int vcp_irqbal_follow(const char *root, const struct vcp_irqbalance *b,
		      const struct vcp_cpuset *idle, bool dry,
		      struct vcp_irqbal_result *ret)
{
	struct vcp_irqbal_result res = { 0 };
	struct vcp_irqbal_told disk, told, keep;
	struct vcp_cpuset want;
	int r = vcp_irqbal_told_load(root, &disk);

	if (r == -EBADMSG)
		disk = (struct vcp_irqbal_told){ .pid = -1 }; /* torn */
	else if (r < 0)
		return r;
	told = disk;
	if (told.pid < 0 || (told.pid && (!b->running || told.pid != b->pid)))
		told.pid = 0; /* another irqbalance: it forgot ours */
	keep = told;
	vcp_irqbal_want(b, idle, &want);
	if (b->running && !vcp_cpuset_empty(&want)) {
		if (told.pid && vcp_cpuset_equal(&told.ban, &want))
			res.ban = want;
		else
			ask(root, b, &want, dry, &res);
		if (!res.error)
			keep = (struct vcp_irqbal_told){ b->pid, want };
		res.in_force = !res.error;
	} else if (told.pid) {
		vcp_cpuset_zero(&want);
		ask(root, b, &want, dry, &res);
		if (!res.error)
			keep.pid = 0;
		res.gave_back = !res.error;
	}
	r = 0;
	if (!dry && (keep.pid != disk.pid ||
		     (keep.pid && !vcp_cpuset_equal(&keep.ban, &disk.ban))))
		r = vcp_irqbal_told_store(root, &keep);
	if (r < 0)
		return r;
	*ret = res;
	return 0;
}
