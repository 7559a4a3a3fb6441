// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scxstate.c - reads sched_ext's sysfs directory and scx_vcpack's pinned
 * maps under a root directory (scxstate.h); no writes, no logging.
 */
#include "scxstate.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysfile.h"

static const char *const state_names[] = {
	[VCP_SCX_ABSENT] = "absent",
	[VCP_SCX_DISABLED] = "disabled",
	[VCP_SCX_ENABLING] = "enabling",
	[VCP_SCX_ENABLED] = "enabled",
	[VCP_SCX_DISABLING] = "disabling",
};

const char *vcp_scx_state_name(enum vcp_scx_state s)
{
	return (unsigned int)s <= VCP_SCX_DISABLING ? state_names[s] : "?";
}

/* @buf (PATH_MAX) = @root + @a + @b; "/" as root adds nothing */
static int path_of(char *buf, const char *root, const char *a, const char *b)
{
	int n;

	if (!strcmp(root, "/"))
		root = "";
	n = snprintf(buf, PATH_MAX, "%s%s%s", root, a, b);
	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

static int parse_state(const char *s, enum vcp_scx_state *ret)
{
	for (unsigned int i = VCP_SCX_DISABLED; i <= VCP_SCX_DISABLING; i++) {
		if (!strcmp(s, state_names[i])) {
			*ret = i;
			return 0;
		}
	}
	return -EBADMSG;
}

static bool pinned(const char *root, const char *pindir)
{
	char p[PATH_MAX];

	return !path_of(p, root, pindir, "/ctl") && !access(p, F_OK) &&
	       !path_of(p, root, pindir, "/classes") && !access(p, F_OK);
}

int vcp_scx_read(const char *root, const char *pindir,
		 struct vcp_scx_info *ret)
{
	struct vcp_scx_info i = { 0 };
	char p[PATH_MAX], buf[64];
	struct stat st;
	int r;

	if (!root || !*root)
		return -EINVAL;
	if (!pindir)
		pindir = VCP_SCX_PINDIR;
	r = path_of(p, root, VCP_SCX_SYSFS, "");
	if (r < 0)
		return r;
	if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
		*ret = i;
		return 0;
	}
	r = path_of(p, root, VCP_SCX_SYSFS, "/state");
	if (r == 0)
		r = vcp_read_line(p, buf, sizeof(buf));
	if (r == 0)
		r = parse_state(buf, &i.state);
	if (r < 0)
		return r;
	/* root/ exists while a scheduler is loaded (or on its way out) */
	r = path_of(p, root, VCP_SCX_SYSFS, "/root/ops");
	if (r == 0 && vcp_read_line(p, buf, sizeof(buf)) == 0)
		snprintf(i.ops, sizeof(i.ops), "%s", buf);
	i.maps_pinned = pinned(root, pindir);
	*ret = i;
	return 0;
}

bool vcp_scx_is_ours(const struct vcp_scx_info *i)
{
	return i->state == VCP_SCX_ENABLED &&
	       !strcmp(i->ops, VCP_SCX_OPS_NAME) && i->maps_pinned;
}
