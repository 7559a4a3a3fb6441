/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli-watch.h - `vcpack status --watch [SECONDS]`: a command's output
 * redrawn in place every SECONDS, like watch(1) and top(1). Not library
 * code: it owns the terminal while it runs.
 */
#ifndef VCP_CLI_WATCH_H
#define VCP_CLI_WATCH_H

#include <stdbool.h>

/* Default and bounds of the refresh interval, in seconds. */
#define VCP_WATCH_DEFAULT 2.0
#define VCP_WATCH_MIN 0.1
#define VCP_WATCH_MAX 86400.0

/*
 * Parse SECONDS of --watch: 0 and *ret_s, or -EINVAL (untouched) when
 * it is not a number from VCP_WATCH_MIN to VCP_WATCH_MAX.
 */
int vcp_watch_parse(const char *s, double *ret_s);

/*
 * Call @frame(@arg) every @interval_s seconds until q (on a terminal),
 * SIGINT, SIGTERM or SIGHUP; @frame prints to stdout and stderr, which
 * are caught for the time of the call. On a terminal each frame is
 * drawn from the top-left corner, every line cleared to its end and the
 * rest of the screen below it cleared (no flicker), cut to the window's
 * size; otherwise successive frames follow each other, each after a
 * line "---- TITLE at TIME". @title names the command ("vcpack status").
 * Returns 0 (a clean stop) or 1 when the terminal could not be set up.
 */
int vcp_watch_run(double interval_s, const char *title, int (*frame)(void *arg),
		  void *arg);

#endif
