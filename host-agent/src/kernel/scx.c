// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scx.c - drives scx_vcpack (scx.h): runs its control commands with an
 * argv (no shell), parses `show`, and starts, reaps and stops the loader.
 */
#include "scx.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "scxstate.h"

extern char **environ;

/* a control command runs for milliseconds; this bounds a hung one */
#define CMD_TIMEOUT_MS 5000
#define OUT_MAX 65536

struct vcp_scx {
	char *bin;
	char *pindir;		/* NULL: the loader's default */
	char err[256];
};

int vcp_scx_new(const char *bin, const char *pindir, struct vcp_scx **ret)
{
	struct vcp_scx *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->bin = strdup(bin ? bin : VCP_SCX_BIN);
	s->pindir = pindir ? strdup(pindir) : NULL;
	if (!s->bin || (pindir && !s->pindir)) {
		vcp_scx_free(s);
		return -ENOMEM;
	}
	*ret = s;
	return 0;
}

void vcp_scx_free(struct vcp_scx *s)
{
	if (!s)
		return;
	free(s->bin);
	free(s->pindir);
	free(s);
}

const char *vcp_scx_bin(const struct vcp_scx *s)
{
	return s->bin;
}

const char *vcp_scx_last_error(const struct vcp_scx *s)
{
	return s->err;
}

/* argv: BIN [-d PINDIR] ARGS... (NULL-terminated @args, at most 4) */
static void build_argv(const struct vcp_scx *s, const char *const *args,
		       char **argv)
{
	int n = 0;

	argv[n++] = s->bin;
	if (s->pindir) {
		argv[n++] = "-d";
		argv[n++] = s->pindir;
	}
	for (; *args; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
}

/*
 * The child starts with the signals it stops on at their defaults and
 * none blocked, whatever vcpackd inherited (a shell's background job
 * ignores SIGINT, vcpackd ignores SIGPIPE): vcp_scx_stop() sends SIGINT.
 */
static int spawn_attr(posix_spawnattr_t *at)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	sigset_t def, none;
	int r;

	sigemptyset(&def);
	sigemptyset(&none);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&def, sigs[i]);
	r = posix_spawnattr_init(at);
	if (!r)
		r = posix_spawnattr_setsigdefault(at, &def);
	if (!r)
		r = posix_spawnattr_setsigmask(at, &none);
	if (!r)
		r = posix_spawnattr_setflags(at, POSIX_SPAWN_SETSIGDEF |
					     POSIX_SPAWN_SETSIGMASK);
	return r;
}

static int spawn(const struct vcp_scx *s, char **argv, int out_fd,
		 pid_t *ret_pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int r;

	r = spawn_attr(&at);
	if (r)
		return -r;
	r = posix_spawn_file_actions_init(&fa);
	if (r) {
		posix_spawnattr_destroy(&at);
		return -r;
	}
	r = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!r && out_fd >= 0)
		r = posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	if (!r && out_fd >= 0)
		r = posix_spawn_file_actions_adddup2(&fa, out_fd, 2);
	if (!r && out_fd < 0)
		r = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null",
						     O_WRONLY, 0);
	if (!r)
		r = posix_spawnp(ret_pid, s->bin, &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	return -r;
}

/* Read @fd until EOF or the deadline into @out (NUL-terminated). */
static int read_all(int fd, char *out, size_t len, long long deadline)
{
	size_t n = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = deadline - vcp_mono_ms();
		ssize_t k;

		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		k = read(fd, out + n, len - 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
		if (n == len - 1)
			break;
	}
	out[n] = '\0';
	return 0;
}

/* Keep the first line of @out as the error. */
static void note_error(struct vcp_scx *s, const char *out)
{
	size_t n = strcspn(out, "\n");

	if (n >= sizeof(s->err))
		n = sizeof(s->err) - 1;
	memcpy(s->err, out, n);
	s->err[n] = '\0';
}

/* Run BIN [-d PINDIR] ARGS; its output (stdout and stderr) in @out. */
static int run(struct vcp_scx *s, const char *const *args, char *out,
	       size_t len)
{
	char *argv[10];
	int fds[2], r, st;
	pid_t pid;

	build_argv(s, args, argv);
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	r = spawn(s, argv, fds[1], &pid);
	close(fds[1]);
	if (r < 0) {
		close(fds[0]);
		snprintf(s->err, sizeof(s->err), "cannot run '%s': %s",
			 s->bin, strerror(-r));
		return r;
	}
	r = read_all(fds[0], out, len, vcp_mono_ms() + CMD_TIMEOUT_MS);
	close(fds[0]);
	if (r < 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (r < 0) {
		snprintf(s->err, sizeof(s->err), "'%s' did not answer", s->bin);
		return r;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		note_error(s, out);
		return -EIO;
	}
	s->err[0] = '\0';
	return 0;
}

int vcp_scx_set_level(struct vcp_scx *s, int level)
{
	char lv[4], out[1024];
	const char *args[] = { "level", lv, NULL };

	if (level < 0 || level > 2)
		return -EINVAL;
	snprintf(lv, sizeof(lv), "%d", level);
	return run(s, args, out, sizeof(out));
}

int vcp_scx_set_class(struct vcp_scx *s, const char *dir, enum vcp_class c)
{
	const char *args[] = { "class", dir, vcp_class_name(c), NULL };
	char out[1024];

	if (!args[2] || !dir || dir[0] != '/')
		return -EINVAL;
	return run(s, args, out, sizeof(out));
}

/*
 * `show`: "level N", then "cgroup ID CLASS" lines. The level, and the
 * class of the first id of @ids (ordered nearest first) that has a line
 * (*ret_idx: its index, -1 for none).
 */
static int parse_show(char *out, const uint64_t *ids, int n_ids,
		      int *ret_level, int *ret_idx, enum vcp_class *ret_class)
{
	int level = -1, best = -1;
	enum vcp_class best_c = VCP_CLASS_BALANCED, c;
	char *save = NULL, name[16];

	for (char *l = strtok_r(out, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		uint64_t id;

		if (sscanf(l, "level %d", &level) == 1)
			continue;
		if (sscanf(l, "cgroup %" SCNu64 " %15s", &id, name) != 2 ||
		    vcp_class_from_name(name, &c) < 0)
			return -EBADMSG;
		for (int i = 0; i < n_ids && (best < 0 || i < best); i++) {
			if (ids[i] == id) {
				best = i;
				best_c = c;
			}
		}
	}
	if (level < 0 || level > 2)
		return -EBADMSG;
	*ret_level = level;
	*ret_idx = best;
	*ret_class = best_c;
	return 0;
}

static int show(struct vcp_scx *s, const uint64_t *ids, int n_ids,
		int *ret_level, int *ret_idx, enum vcp_class *ret_class)
{
	static const char *const args[] = { "show", NULL };
	char *out = malloc(OUT_MAX);
	int r;

	if (!out)
		return -ENOMEM;
	r = run(s, args, out, OUT_MAX);
	if (r == 0)
		r = parse_show(out, ids, n_ids, ret_level, ret_idx, ret_class);
	if (r == -EBADMSG)
		snprintf(s->err, sizeof(s->err), "'%s show' said something else than level and class lines",
			 s->bin);
	free(out);
	return r;
}

int vcp_scx_get_level(struct vcp_scx *s, int *ret_level)
{
	enum vcp_class c;
	int idx;

	return show(s, NULL, 0, ret_level, &idx, &c);
}

#define MAX_DEPTH 32

/* ids of @dir and its ancestors strictly below @top, nearest first */
static int ancestor_ids(const char *dir, const char *top, uint64_t *ids,
			int *ret_n)
{
	size_t tl = strlen(top);
	char p[PATH_MAX];
	struct stat st;
	int n = 0;

	while (tl > 1 && top[tl - 1] == '/')
		tl--;
	if (strncmp(dir, top, tl) || (dir[tl] != '/' && dir[tl] != '\0'))
		return -EINVAL;
	if (snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	while (strlen(p) > tl && n < MAX_DEPTH) {
		char *slash;

		if (stat(p, &st) < 0)
			return -errno;
		ids[n++] = st.st_ino;
		slash = strrchr(p, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	*ret_n = n;
	return 0;
}

int vcp_scx_get_class(struct vcp_scx *s, const char *dir, const char *top,
		      enum vcp_class *ret)
{
	uint64_t ids[MAX_DEPTH];
	enum vcp_class c;
	int n, r, level, idx;

	r = ancestor_ids(dir, top, ids, &n);
	if (r == 0)
		r = show(s, ids, n, &level, &idx, &c);
	if (r == 0)
		*ret = idx >= 0 ? c : VCP_CLASS_BALANCED;
	return r;
}

int vcp_scx_start(struct vcp_scx *s, int level, pid_t *ret_pid)
{
	char lv[4], *argv[10];
	const char *args[] = { "-l", lv, NULL };
	int r;

	if (level < 0 || level > 2)
		return -EINVAL;
	snprintf(lv, sizeof(lv), "%d", level);
	build_argv(s, args, argv);
	r = spawn(s, argv, -1, ret_pid);
	if (r < 0)
		snprintf(s->err, sizeof(s->err), "cannot run '%s': %s",
			 s->bin, strerror(-r));
	return r;
}

int vcp_scx_reap(pid_t pid, bool *ret_exited, int *ret_status)
{
	int st;
	pid_t r = waitpid(pid, &st, WNOHANG);

	if (r < 0)
		return -errno;
	*ret_exited = r == pid;
	if (r == pid)
		*ret_status = st;
	return 0;
}

int vcp_scx_wait_loaded(struct vcp_scx *s, const char *root, pid_t pid,
			int timeout_ms, int *ret_status)
{
	long long deadline = vcp_mono_ms() + timeout_ms;
	struct vcp_scx_info i;
	bool gone;
	int r, st;

	for (;;) {
		r = vcp_scx_read(root, s->pindir, &i);
		if (r < 0)
			return r;
		if (vcp_scx_is_ours(&i))
			return 0;
		if (pid > 0) {
			r = vcp_scx_reap(pid, &gone, &st);
			if (r < 0)
				return r;
			if (gone) {
				*ret_status = st;
				return -ECHILD;
			}
		}
		if (vcp_mono_ms() >= deadline)
			return -ETIMEDOUT;
		usleep(50 * 1000);
	}
}

int vcp_scx_stop(pid_t pid, int timeout_ms, int *ret_status)
{
	long long deadline = vcp_mono_ms() + timeout_ms;
	bool gone;
	int r, st;

	if (pid <= 0)
		return -EINVAL;
	if (kill(pid, SIGINT) < 0)
		return -errno;
	for (;;) {
		r = vcp_scx_reap(pid, &gone, &st);
		if (r < 0)
			return r;
		if (gone) {
			*ret_status = st;
			return 0;
		}
		if (vcp_mono_ms() >= deadline)
			break;
		usleep(20 * 1000);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	*ret_status = st;
	return 0;
}

const char *vcp_scx_status_text(int status, char *buf, size_t len)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		snprintf(buf, len, "unloaded");
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
		snprintf(buf, len, "ejected by the kernel (see dmesg)");
	else if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d",
			 WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, len, "stopped");
	return buf;
}
