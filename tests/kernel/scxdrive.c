// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scxdrive.c - vcp-scxdrive, the sched_ext guests' way to drive
 * scx_vcpack through vcpackd's own modules (host-agent/src/kernel/scx.c,
 * scxstate.c), built static into the scx initramfs:
 *
 *   vcp-scxdrive state            "STATE OPS pinned|unpinned" (vcp_scx_read)
 *   vcp-scxdrive level N          vcp_scx_set_level
 *   vcp-scxdrive class DIR CLASS  vcp_scx_set_class
 *   vcp-scxdrive get DIR          the class in effect (vcp_scx_get_class,
 *                                 below /sys/fs/cgroup or $VCP_CG_ROOT)
 *
 * Exit 0, or 1 with the error on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scx.h"
#include "scxstate.h"

static int state(void)
{
	struct vcp_scx_info i;
	int r = vcp_scx_read("/", NULL, &i);

	if (r < 0) {
		fprintf(stderr, "vcp-scxdrive: reading sched_ext: %s\n",
			strerror(-r));
		return 1;
	}
	printf("%s %s %s\n", vcp_scx_state_name(i.state), *i.ops ? i.ops : "-",
	       i.maps_pinned ? "pinned" : "unpinned");
	return 0;
}

static int drive(struct vcp_scx *s, int argc, char **argv)
{
	const char *top = getenv("VCP_CG_ROOT");
	enum vcp_class c;

	if (!strcmp(argv[1], "level") && argc == 3)
		return vcp_scx_set_level(s, atoi(argv[2]));
	if (!strcmp(argv[1], "class") && argc == 4) {
		if (vcp_class_from_name(argv[3], &c) < 0)
			return -EINVAL;
		return vcp_scx_set_class(s, argv[2], c);
	}
	if (!strcmp(argv[1], "get") && argc == 3) {
		int r = vcp_scx_get_class(s, argv[2], top ? top : "/sys/fs/cgroup",
					  &c);

		if (r == 0)
			printf("%s\n", vcp_class_name(c));
		return r;
	}
	fprintf(stderr, "usage: vcp-scxdrive state | level N | class DIR CLASS | get DIR\n");
	exit(1);
}

int main(int argc, char **argv)
{
	struct vcp_scx *s;
	int r;

	if (argc == 2 && !strcmp(argv[1], "state"))
		return state();
	if (argc < 2 || vcp_scx_new(NULL, NULL, &s) < 0)
		return drive(NULL, 1, (char *[]){ "", "" });
	r = drive(s, argc, argv);
	if (r < 0)
		fprintf(stderr, "vcp-scxdrive: %s: %s\n", argv[1],
			*vcp_scx_last_error(s) ? vcp_scx_last_error(s) :
			strerror(-r));
	vcp_scx_free(s);
	return r < 0;
}
