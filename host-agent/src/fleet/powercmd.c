// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * powercmd.c - run an operator's power command for a fleet host: the
 * argv as the fleet file gives it (execvp, never a shell, so nothing in
 * a name or setting is parsed), stdin /dev/null, stdout and stderr into
 * one pipe (or each into its own, as the caller asks) of which the first
 * VCP_CMD_MAX_OUTPUT bytes (or the caller's limit) are kept (the rest is
 * read and dropped so the command never blocks on a full pipe),
 * in a process group of its own, killed as a group at the timeout
 * (SIGTERM, SIGKILL 2 s later, or as soon as the command itself has
 * ended: nothing it started is left running) and always reaped. While
 * it runs, a caller's stop flag (SIGINT/SIGTERM) lets it finish, saying
 * so once through a callback; a kill flag (a second signal) kills it as
 * at the timeout. Does not log.
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
#include <unistd.h>

#include "clock.h"

#define EXEC_FAILED 127

extern char **environ;

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

/* In the child: only async-signal-safe calls. @errfd: its stderr. */
static void child(int wfd, int errfd, int efd, char *const *argv, char **env)
{
	int null = open("/dev/null", O_RDONLY);

	/* vcpack ignores SIGPIPE (a dying transport); the command gets the
	 * default back, as from a shell */
	signal(SIGPIPE, SIG_DFL);
	setpgid(0, 0);
	if (null < 0 || dup2(null, 0) < 0 || dup2(wfd, 1) < 0 ||
	    dup2(errfd, 2) < 0)
		_exit(EXEC_FAILED);
	execvpe(argv[0], argv, env);
	/* tell the parent exec failed, with errno */
	if (write(efd, &errno, sizeof(errno)) < 0)
		_exit(EXEC_FAILED);
	_exit(EXEC_FAILED);
}

struct reader {
	char *buf; /* max + 1 bytes */
	size_t len, max;
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
	if (rd->len < rd->max) {
		size_t k = (size_t)n;

		if (k > rd->max - rd->len)
			k = rd->max - rd->len;
		memcpy(rd->buf + rd->len, tmp, k);
		rd->len += k;
	}
	return true;
}

/* The command's pipes (stdout, and stderr when kept apart: else -1) and
 * what each gave. */
struct pipes {
	int fd[2];
	struct pollfd p[2];
	struct reader rd[2];
};

/* Read whatever is ready on either pipe; one at EOF is polled no more. */
static void drain_ready(struct pipes *ps, int r)
{
	for (int k = 0; r > 0 && k < 2; k++)
		if (ps->p[k].fd >= 0 && ps->p[k].revents &&
		    !drain(ps->p[k].fd, &ps->rd[k]))
			ps->p[k].fd = -1; /* at EOF: poll only waits now */
}

/* The command ended: what is left in the pipes, without blocking. */
static void drain_rest(struct pipes *ps)
{
	for (int k = 0; k < 2; k++) {
		if (ps->fd[k] < 0)
			continue;
		fcntl(ps->fd[k], F_SETFL, O_NONBLOCK);
		for (;;) {
			errno = 0;
			if (!drain(ps->fd[k], &ps->rd[k]) || errno == EAGAIN)
				break;
		}
	}
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

/* Has @pid ended? It is left to be reaped (a zombie). */
static bool ended(pid_t pid)
{
	siginfo_t si = { 0 };

	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) ==
		       0 &&
	       si.si_pid == pid;
}

/* Read until the command exits (a child it left behind may hold the
 * pipe), the deadline or a kill asked for, then stop the group; the
 * command is reaped into *status either way. */
static void collect(pid_t pid, struct pipes *ps, unsigned int timeout_s,
		    const struct vcp_cmd_watch *w, bool *ret_timed_out,
		    bool *ret_killed, int *status)
{
	long long deadline = vcp_mono_ms() + (long long)timeout_s * 1000;
	long long kill_at = -1;
	bool timed_out = false, reaped = false, told = false, kill_now = false;
	bool killed = false;

	while (!reaped) {
		long long left =
			(kill_at >= 0 ? kill_at : deadline) - vcp_mono_ms();
		int r;

		watch(w, pid, &told, &kill_now);
		if (kill_now && kill_at < 0) {
			killed = true;
			kill(-pid, SIGTERM);
			kill_at = vcp_mono_ms() + 2000;
			continue;
		}
		if (left <= 0) {
			if (kill_at >= 0) {
				kill(-pid, SIGKILL);
				kill_at = vcp_mono_ms() + 60000;
				continue;
			}
			timed_out = true;
			kill(-pid, SIGTERM);
			kill_at = vcp_mono_ms() + 2000;
			continue;
		}
		r = poll(ps->p, 2, (int)(left > 100 ? 100 : left));
		drain_ready(ps, r);
		if (ended(pid)) {
			/* timed out or killed: what it left in its group goes
			 * too (its zombie keeps the group's id ours) */
			if (timed_out || killed)
				kill(-pid, SIGKILL);
			reaped = waitpid(pid, status, 0) == pid;
			drain_rest(ps);
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
		  struct pipes *ps, struct vcp_cmd_result *ret)
{
	int xe = exec_errno(efd);
	struct reader *rd = &ps->rd[0];

	if (xe) {
		rd->len = (size_t)snprintf(rd->buf, rd->max + 1,
					   "cannot execute: %s", strerror(xe));
		if (rd->len > rd->max)
			rd->len = rd->max;
	}
	rd->buf[rd->len] = '\0';
	ret->output = rd->buf;
	rd->buf = NULL;
	if (ps->rd[1].buf) {
		ps->rd[1].buf[ps->rd[1].len] = '\0';
		ret->errout = ps->rd[1].buf;
		ps->rd[1].buf = NULL;
	}
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
	return vcp_cmd_run_opts(argv, envp, timeout_s, w, NULL, ret);
}

/* The readers: stdout's, and stderr's when kept apart. */
static int pipes_init(struct pipes *ps, const struct vcp_cmd_opts *o)
{
	size_t max = o && o->max_output ? o->max_output : VCP_CMD_MAX_OUTPUT;

	memset(ps, 0, sizeof(*ps));
	for (int k = 0; k < 2; k++) {
		ps->fd[k] = -1;
		ps->p[k] = (struct pollfd){ .fd = -1, .events = POLLIN };
		if (k && !(o && o->stderr_apart))
			break;
		ps->rd[k].max = k ? VCP_CMD_MAX_OUTPUT : max;
		ps->rd[k].buf = malloc(ps->rd[k].max + 1);
		if (!ps->rd[k].buf)
			return -ENOMEM;
	}
	return 0;
}

/* Start @argv with its output into @ps; its pid, or -errno. */
static pid_t start(char *const *argv, char **env, struct pipes *ps, int ex[2])
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 };
	bool apart = ps->rd[1].buf != NULL;
	pid_t pid = -1;

	if (pipe2(out, O_CLOEXEC) < 0 || (apart && pipe2(err, O_CLOEXEC) < 0) ||
	    pipe2(ex, O_CLOEXEC) < 0)
		pid = -errno;
	else if ((pid = fork()) < 0)
		pid = -errno;
	else if (pid == 0)
		child(out[1], apart ? err[1] : out[1], ex[1], argv, env);
	else
		setpgid(pid, pid); /* also here: no race with the kill */
	for (int k = 0; k < 2; k++)
		if (err[k] >= 0 && (k || pid < 0))
			close(err[k]);
	if (out[1] >= 0)
		close(out[1]);
	if (ex[1] >= 0)
		close(ex[1]);
	ex[1] = -1;
	ps->p[0].fd = ps->fd[0] = out[0];
	ps->p[1].fd = ps->fd[1] = pid < 0 ? -1 : err[0];
	return pid;
}

int vcp_cmd_run_opts(char *const *argv, char *const *envp,
		     unsigned int timeout_s, const struct vcp_cmd_watch *w,
		     const struct vcp_cmd_opts *o, struct vcp_cmd_result *ret)
{
	struct vcp_cmd_result res = { 0 };
	int ex[2] = { -1, -1 }, r;
	struct pipes ps;
	char **env = NULL;
	bool timed_out, killed;
	int status = 0;
	pid_t pid;

	if (!argv || !argv[0])
		return -EINVAL;
	r = pipes_init(&ps, o);
	env = merged_env(envp);
	if (r < 0 || !env) {
		r = -ENOMEM;
		goto out;
	}
	pid = start(argv, env, &ps, ex);
	if (pid < 0) {
		r = (int)pid;
		goto out;
	}
	collect(pid, &ps, timeout_s, w, &timed_out, &killed, &status);
	r = finish(ex[0], timed_out, killed, status, &ps, &res);
	res.pid = pid;
	if (r == 0 || r == -ENOENT)
		*ret = res;
out:
	for (int k = 0; k < 2; k++) {
		if (ps.fd[k] >= 0)
			close(ps.fd[k]);
		if (ex[k] >= 0)
			close(ex[k]);
		free(ps.rd[k].buf);
	}
	free(env);
	return r;
}

void vcp_cmd_result_clear(struct vcp_cmd_result *r)
{
	if (!r)
		return;
	free(r->output);
	free(r->errout);
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
