// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * powercmd.c - run an operator's power command for a fleet host: the
 * argv as the fleet file gives it (execvp, never a shell, so nothing in
 * a name or setting is parsed), stdin /dev/null, stdout and stderr into
 * one pipe of which the first VCP_CMD_MAX_OUTPUT bytes are kept (the
 * rest is read and dropped so the command never blocks on a full pipe),
 * in a process group of its own, killed as a group at the timeout
 * (SIGTERM, SIGKILL 2 s later) and always reaped. While it runs, a
 * caller's stop flag (SIGINT/SIGTERM) lets it finish, saying so once
 * through a callback; a kill flag (a second signal) kills it as at the
 * timeout. Does not log.
 */
#include "powercmd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXEC_FAILED 127

extern char **environ;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* environ plus @add, as a new array (the strings are not copied). */
static char **merged_env(char *const *add)
{
	size_t n = 0, m = 0, k = 0;
	char **e;

	while (environ[n])
		n++;
	while (add && add[m])
		m++;
	e = calloc(n + m + 1, sizeof(*e));
	if (!e)
		return NULL;
	for (size_t i = 0; i < m; i++)
		e[k++] = add[i];
	for (size_t i = 0; i < n; i++)
		e[k++] = environ[i];	/* later duplicates lose: getenv */
	return e;
}

/* In the child: only async-signal-safe calls. */
static void child(int wfd, int efd, char *const *argv, char **env)
{
	int null = open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	if (null < 0 || dup2(null, 0) < 0 || dup2(wfd, 1) < 0 ||
	    dup2(wfd, 2) < 0)
		_exit(EXEC_FAILED);
	execvpe(argv[0], argv, env);
	/* tell the parent exec failed, with errno */
	if (write(efd, &errno, sizeof(errno)) < 0)
		_exit(EXEC_FAILED);
	_exit(EXEC_FAILED);
}

struct reader {
	char buf[VCP_CMD_MAX_OUTPUT + 1];
	size_t len;
};

/* Read what is there; false at end of file. */
static bool drain(int fd, struct reader *rd)
{
	char tmp[4096];
	ssize_t n = read(fd, tmp, sizeof(tmp));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	if (rd->len < VCP_CMD_MAX_OUTPUT) {
		size_t k = (size_t)n;

		if (k > VCP_CMD_MAX_OUTPUT - rd->len)
			k = VCP_CMD_MAX_OUTPUT - rd->len;
		memcpy(rd->buf + rd->len, tmp, k);
		rd->len += k;
	}
	return true;
}

/* The watch's flags, looked at every poll. */
static void watch(const struct vcp_cmd_watch *w, pid_t pid, bool *told,
		  bool *ret_kill)
{
	if (!w)
		return;
	if (!*told && w->stop && *w->stop) {
		*told = true;
		if (w->stopping)
			w->stopping(w->opaque, pid);
	}
	if (w->kill && *w->kill)
		*ret_kill = true;
}

/* Read until the command exits (a child it left behind may hold the
 * pipe), the deadline or a kill asked for, then stop the group; the
 * command is reaped into *status either way. */
static void collect(pid_t pid, int fd, unsigned int timeout_s,
		    const struct vcp_cmd_watch *w, struct reader *rd,
		    bool *ret_timed_out, bool *ret_killed, int *status)
{
	long long deadline = now_ms() + (long long)timeout_s * 1000;
	long long kill_at = -1;
	bool timed_out = false, reaped = false, told = false, kill_now = false;
	bool killed = false;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (!reaped) {
		long long left = (kill_at >= 0 ? kill_at : deadline) - now_ms();
		int r;

		watch(w, pid, &told, &kill_now);
		if (kill_now && kill_at < 0) {
			killed = true;
			kill(-pid, SIGTERM);
			kill_at = now_ms() + 2000;
			continue;
		}
		if (left <= 0) {
			if (kill_at >= 0) {
				kill(-pid, SIGKILL);
				kill_at = now_ms() + 60000;
				continue;
			}
			timed_out = true;
			kill(-pid, SIGTERM);
			kill_at = now_ms() + 2000;
			continue;
		}
		r = poll(&p, 1, (int)(left > 100 ? 100 : left));
		if (r > 0 && !drain(fd, rd))
			p.fd = -1;	/* at EOF: poll only waits now */
		if (waitpid(pid, status, WNOHANG) == pid) {
			reaped = true;
			fcntl(fd, F_SETFL, O_NONBLOCK);
			for (;;) {
				errno = 0;
				if (!drain(fd, rd) || errno == EAGAIN)
					break;
			}
		}
	}
	*ret_timed_out = timed_out;
	*ret_killed = killed;
}

/* Did exec fail? Its errno, or 0. */
static int exec_errno(int efd)
{
	int e = 0;

	if (read(efd, &e, sizeof(e)) != (ssize_t)sizeof(e))
		return 0;
	return e ? e : EIO;
}

static int finish(int efd, bool timed_out, bool killed, int status,
		  struct reader *rd, struct vcp_cmd_result *ret)
{
	int xe = exec_errno(efd);
	char *out;

	if (xe) {
		rd->len = (size_t)snprintf(rd->buf, sizeof(rd->buf),
					   "cannot execute: %s", strerror(xe));
	}
	rd->buf[rd->len] = '\0';
	out = strdup(rd->buf);
	if (!out)
		return -ENOMEM;
	ret->output = out;
	ret->timed_out = timed_out;
	ret->killed = killed && !timed_out;
	ret->status = WIFEXITED(status) && !timed_out && !killed ?
		      WEXITSTATUS(status) : -1;
	ret->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	return xe ? -ENOENT : 0;
}

int vcp_cmd_run(char *const *argv, char *const *envp, unsigned int timeout_s,
		struct vcp_cmd_result *ret)
{
	return vcp_cmd_run_watched(argv, envp, timeout_s, NULL, ret);
}

int vcp_cmd_run_watched(char *const *argv, char *const *envp,
			unsigned int timeout_s, const struct vcp_cmd_watch *w,
			struct vcp_cmd_result *ret)
{
	struct reader *rd = NULL;
	struct vcp_cmd_result res = { 0 };
	int out[2] = { -1, -1 }, ex[2] = { -1, -1 }, r;
	char **env = NULL;
	bool timed_out, killed;
	int status = 0;
	pid_t pid;

	if (!argv || !argv[0])
		return -EINVAL;
	rd = calloc(1, sizeof(*rd));
	env = merged_env(envp);
	if (!rd || !env) {
		r = -ENOMEM;
		goto out;
	}
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(ex, O_CLOEXEC) < 0) {
		r = -errno;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		goto out;
	}
	if (pid == 0)
		child(out[1], ex[1], argv, env);
	setpgid(pid, pid);	/* also here: no race with the kill */
	close(out[1]);
	close(ex[1]);
	out[1] = ex[1] = -1;
	collect(pid, out[0], timeout_s, w, rd, &timed_out, &killed, &status);
	r = finish(ex[0], timed_out, killed, status, rd, &res);
	res.pid = pid;
	if (r == 0 || r == -ENOENT)
		*ret = res;
out:
	for (int k = 0; k < 2; k++) {
		if (out[k] >= 0)
			close(out[k]);
		if (ex[k] >= 0)
			close(ex[k]);
	}
	free(env);
	free(rd);
	return r;
}

void vcp_cmd_result_clear(struct vcp_cmd_result *r)
{
	if (!r)
		return;
	free(r->output);
	memset(r, 0, sizeof(*r));
}

const char *vcp_cmd_outcome(const struct vcp_cmd_result *r, char *buf,
			    unsigned long size, unsigned int timeout_s)
{
	if (r->timed_out)
		snprintf(buf, size, "timed out after %u s", timeout_s);
	else if (r->killed)
		snprintf(buf, size, "killed when asked to (pid %d, its process group)",
			 (int)r->pid);
	else if (r->signal)
		snprintf(buf, size, "killed by signal %d", r->signal);
	else
		snprintf(buf, size, "exit %d", r->status);
	return buf;
}
