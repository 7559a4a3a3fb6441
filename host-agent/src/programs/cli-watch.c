// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cli-watch.c - `vcpack status --watch [SECONDS]`: the command's output
 * redrawn every SECONDS until q or Ctrl-C, as watch(1) and top(1) do.
 *
 * On a terminal a frame is built in memory first (the command's stdout
 * and stderr are caught for the time of the call), then drawn from the
 * top-left corner with each line cleared to its end and the screen below
 * the last line cleared: the screen is never blanked, so nothing
 * flickers. Each frame is laid out for the window's width read again
 * as it is made (one column less, width.h: vcp_width_frame()), its
 * lines folded at spaces; a resize (SIGWINCH) redraws at once. Lines
 * are cut to the window's width (a word wider than the window) and the
 * frame to its height, so that the cursor's home is always the frame's
 * top. Keys: q quits, space refreshes at once; the terminal's settings
 * and the cursor are put back on the way out. Elsewhere (a pipe, a file) the frames
 * follow each other, each after one plain "---- TITLE at TIME" line.
 */
#include "cli-watch.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "width.h"

static volatile sig_atomic_t stop_sig, resized;

static void on_stop(int sig)
{
	stop_sig = sig;
}

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

int vcp_watch_parse(const char *s, double *ret_s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end ||
	    !(v >= VCP_WATCH_MIN && v <= VCP_WATCH_MAX))
		return -EINVAL;
	*ret_s = v;
	return 0;
}

/* @frame's output (stdout and stderr, in order) as one string. glibc's
 * stdout and stderr are plain variables, which may be assigned. */
static char *capture(int (*frame)(void *arg), void *arg, int *ret_rc)
{
	FILE *out = stdout, *err = stderr, *f;
	char *buf = NULL;
	size_t len = 0;

	fflush(stdout);
	fflush(stderr);
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	stdout = f;
	stderr = f;
	*ret_rc = frame(arg);
	stdout = out;
	stderr = err;
	fclose(f);
	return buf;
}

static void now_text(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

/* One line of at most @cols - 1 bytes (a full last column would leave
 * the cursor waiting to wrap), cleared to its end. */
static void put_line(const char *l, size_t n, unsigned int cols)
{
	if (cols > 1 && n > cols - 1)
		n = cols - 1;
	fwrite(l, 1, n, stdout);
	fputs("\033[K", stdout);
}

static void draw_tty(const char *title, double every, const char *buf)
{
	struct winsize ws = { 0 };
	unsigned int rows = 24, cols = 100, row = 0;
	char head[256], when[32];

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0) {
		rows = ws.ws_row;
		cols = ws.ws_col;
	}
	now_text(when, sizeof(when));
	snprintf(head, sizeof(head), "Every %gs: %s   %s   (q quits)", every,
		 title, when);
	fputs("\033[H", stdout);
	put_line(head, strlen(head), cols);
	for (const char *l = buf; l && *l && ++row < rows;) {
		size_t n = strcspn(l, "\n");

		fputc('\n', stdout);
		put_line(l, n, cols);
		l += n + (l[n] == '\n');
	}
	fputs("\033[J", stdout);
	fflush(stdout);
}

static void draw_plain(const char *title, const char *buf)
{
	char when[32];

	now_text(when, sizeof(when));
	printf("---- %s at %s\n%s", title, when, buf ? buf : "");
	fflush(stdout);
}

/* Wait @ms, or less for a key (@keys: stdin is a terminal), a signal or
 * a resize. True when q was pressed. */
static bool wait_keys(long long ms, bool *keys)
{
	long long end = vcp_mono_ms() + ms;
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	char ch;

	while (!stop_sig && !resized && vcp_mono_ms() < end) {
		int n = poll(&p, *keys ? 1 : 0, (int)(end - vcp_mono_ms()));

		if (n <= 0)
			continue;
		if (read(STDIN_FILENO, &ch, 1) != 1) {
			*keys = false;
			continue;
		}
		if (ch == 'q' || ch == 'Q')
			return true;
		if (ch == ' ')
			return false;
	}
	return false;
}

int vcp_watch_run(double interval_s, const char *title, int (*frame)(void *arg),
		  void *arg)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_stop }, old[3];
	struct sigaction wa = { .sa_handler = on_winch }, old_winch;
	size_t cols = vcp_width_cols();
	bool tty = isatty(STDOUT_FILENO);
	bool keys = tty && isatty(STDIN_FILENO);
	struct termios saved = { 0 }, raw;

	/* no SA_RESTART: a signal ends the wait at once */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	sigemptyset(&wa.sa_mask);
	sigaction(SIGWINCH, &wa, &old_winch);
	if (keys && tcgetattr(STDIN_FILENO, &saved) == 0) {
		raw = saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		keys = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
	} else {
		keys = false;
	}
	if (tty)
		fputs("\033[?25l\033[H\033[2J", stdout);
	while (!stop_sig) {
		int rc = 0;
		char *buf;

		resized = 0;
		if (tty)
			vcp_width_set(vcp_width_frame(
				cols, vcp_width_tty(STDOUT_FILENO)));
		buf = capture(frame, arg, &rc);

		if (stop_sig) {
			free(buf);
			break;
		}
		if (tty)
			draw_tty(title, interval_s, buf);
		else
			draw_plain(title, buf);
		if (rc)
			fprintf(tty ? stderr : stdout,
				"%s(%s failed: exit %d; again in %gs)\n",
				tty ? "\n" : "", title, rc, interval_s);
		free(buf);
		if (wait_keys((long long)(interval_s * 1000), &keys))
			break;
	}
	if (tty)
		fputs("\033[?25h\n", stdout);
	fflush(stdout);
	if (keys)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	for (size_t i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	sigaction(SIGWINCH, &old_winch, NULL);
	vcp_width_set(cols);
	return 0;
}
