// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.c - detects and drives the vcpack kernel's two knobs: the host
 * level in sysfs and the per-cgroup class in the cpu controller; and
 * writes device IRQ affinity for irq.c (the one place kernel files are
 * written).
 *
 * Detection reads ROOT/proc/self/mountinfo for the hierarchy that has the
 * cpu controller (a v1 "cgroup" mount with "cpu" among its options wins;
 * otherwise the "cgroup2" mount) and looks for the knob files; absent
 * knobs are pin mode, never an error. Setters read the current value
 * first and write only when it differs, in one write(2), so an unchanged
 * plan touches nothing. Errors are the syscalls' -errno; no logging.
 */
#include "kernel.h"

#include "scx.h"
#include "rdfile.h"
#include "sysfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#ifndef SYSFS_MAGIC
#define SYSFS_MAGIC 0x62656572
#endif
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* ---- paths and small files ---- */

/* @a + @b with exactly one '/' between them; NULL on -ENOMEM. */
static char *join(const char *a, const char *b)
{
	size_t la = strlen(a);
	char *s;

	while (la > 0 && a[la - 1] == '/')
		la--;
	while (*b == '/')
		b++;
	if (asprintf(&s, "%.*s/%s", (int)la, a, b) < 0)
		return NULL;
	return s;
}

static char *join3(const char *a, const char *b, const char *c)
{
	char *ab = join(a, b), *s;

	if (!ab)
		return NULL;
	s = join(ab, c);
	free(ab);
	return s;
}

static bool exists(const char *path)
{
	return path && access(path, F_OK) == 0;
}

/* Read a small file into @buf, trailing whitespace removed. */
/*
 * One write(2) of @s to an existing file (never created: kernfs files
 * cannot be). O_TRUNC keeps fixture files exact; kernfs ignores it.
 * Never blocks: O_NONBLOCK (a FIFO without a reader fails at once) and
 * only a regular file (kernfs attributes are) is written: -VCP_ENOTREG.
 */
static int write_str(const char *path, const char *s, int flags)
{
	size_t len = strlen(s);
	struct stat st;
	ssize_t n;
	int fd, r = 0;

	fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | flags);
	if (fd < 0)
		return errno == ENXIO ? -VCP_ENOTREG : -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -VCP_ENOTREG;
	if (r < 0) {
		close(fd);
		return r;
	}
	n = write(fd, s, len);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

static bool on_kernfs(const char *path)
{
	struct statfs sf;

	if (statfs(path, &sf) < 0)
		return false;
	return sf.f_type == SYSFS_MAGIC || sf.f_type == CGROUP_SUPER_MAGIC ||
	       sf.f_type == CGROUP2_SUPER_MAGIC;
}

/* ---- mountinfo ---- */

/* In place: mountinfo escapes ' ', '\t', '\n' and '\\' as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

static bool has_token(const char *list, const char *tok)
{
	size_t n = strlen(tok);

	for (const char *p = list; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (strncmp(p, tok, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	}
	return false;
}

#define WS " \t\n"

struct mount_pick {
	char *v1_mount, *v1_root;	/* first v1 hierarchy with cpu */
	char *v2_mount, *v2_root;	/* first cgroup2 mount */
};

/*
 * One mountinfo line: ID PARENT MAJ:MIN ROOT POINT OPTS [OPT...] - TYPE
 * SOURCE SUPEROPTS. Malformed lines are skipped.
 */
static int scan_line(char *line, struct mount_pick *m)
{
	char *f[6], *type, *super, *save = NULL, *tok;
	char **dst_mount, **dst_root;
	int i;

	for (i = 0, tok = strtok_r(line, WS, &save); tok && i < 6;
	     tok = strtok_r(NULL, WS, &save))
		f[i++] = tok;
	while (tok && strcmp(tok, "-") != 0)
		tok = strtok_r(NULL, WS, &save);
	type = strtok_r(NULL, WS, &save);
	if (i < 6 || !type || !strtok_r(NULL, WS, &save))
		return 0;
	super = strtok_r(NULL, WS, &save);
	if (strcmp(type, "cgroup") == 0 && super && has_token(super, "cpu")) {
		dst_mount = &m->v1_mount;
		dst_root = &m->v1_root;
	} else if (strcmp(type, "cgroup2") == 0) {
		dst_mount = &m->v2_mount;
		dst_root = &m->v2_root;
	} else {
		return 0;
	}
	if (*dst_mount)
		return 0;
	unescape(f[3]);
	unescape(f[4]);
	*dst_mount = strdup(f[4]);
	*dst_root = strdup(f[3]);
	return *dst_mount && *dst_root ? 0 : -ENOMEM;
}

static void pick_clear(struct mount_pick *m)
{
	free(m->v1_mount);
	free(m->v1_root);
	free(m->v2_mount);
	free(m->v2_root);
}

static int find_cpu_mount(struct vcp_kernel *k)
{
	struct mount_pick m = { 0 };
	char *path = join(k->root, "/proc/self/mountinfo");
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	int r = 0;

	if (!path)
		return -ENOMEM;
	r = vcp_fopen_regular(path, &f);
	free(path);
	if (r < 0)
		return r;
	while (r == 0 && getline(&line, &cap, f) >= 0)
		r = scan_line(line, &m);
	free(line);
	fclose(f);
	if (r == 0 && (m.v1_mount || m.v2_mount)) {
		k->cgroup_v2 = !m.v1_mount;
		k->cpu_mount = m.v1_mount ? m.v1_mount : m.v2_mount;
		k->cpu_mount_root = m.v1_mount ? m.v1_root : m.v2_root;
		if (m.v1_mount)
			m.v1_mount = m.v1_root = NULL;
		else
			m.v2_mount = m.v2_root = NULL;
	}
	pick_clear(&m);
	return r;
}

/* ---- cgroup paths ---- */

static int check_cgroup(const char *cg)
{
	const char *p;

	if (!cg || cg[0] != '/')
		return -EINVAL;
	for (p = cg; (p = strstr(p, "..")); p += 2)
		if ((p == cg || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'))
			return -EINVAL;
	return 0;
}

/* ROOT/cpu_mount/cgroup[/file]; checks @cg. */
static int cg_path(const struct vcp_kernel *k, const char *cg,
		   const char *file, char **ret)
{
	char *s;
	int r;

	if (!k || !k->cpu_mount)
		return -ENODEV;
	r = check_cgroup(cg);
	if (r < 0)
		return r;
	s = join3(k->root, k->cpu_mount, cg);
	if (s && file) {
		char *t = join(s, file);

		free(s);
		s = t;
	}
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

/*
 * Strip the mount's own root: without a cgroup namespace, a container
 * sees "/docker/ID/x" in /proc/PID/cgroup and "/docker/ID" as the root
 * of its cgroup mount.
 */
static char *relative_to_mount(const struct vcp_kernel *k, const char *p)
{
	const char *mr = k->cpu_mount_root;
	size_t n = mr ? strlen(mr) : 0;

	if (n > 1 && strncmp(p, mr, n) == 0 && (p[n] == '/' || !p[n]))
		p = p[n] ? p + n : "/";
	return strdup(p);
}

/* The cpu line of one /proc/PID/cgroup line "HIER:CONTROLLERS:PATH". */
static const char *cpu_line_path(const struct vcp_kernel *k, char *line)
{
	char *c1 = strchr(line, ':');
	char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

	if (!c2)
		return NULL;
	*c1 = *c2 = '\0';
	c2[1 + strcspn(c2 + 1, "\n")] = '\0';
	if (c2[1] != '/')
		return NULL;
	if (k->cgroup_v2 ? strcmp(line, "0") == 0 && c1[1] == '\0'
			 : has_token(c1 + 1, "cpu"))
		return c2 + 1;
	return NULL;
}

static int cgroup_of(const struct vcp_kernel *k, const char *who,
		     char **ret_path)
{
	char *path, *line = NULL, *found = NULL;
	const char *p;
	size_t cap = 0;
	FILE *f;
	int r = -ENOENT;

	if (!k || !k->cpu_mount)
		return -ENODEV;
	path = join3(k->root, "/proc", who);
	if (path) {
		char *t = join(path, "cgroup");

		free(path);
		path = t;
	}
	if (!path)
		return -ENOMEM;
	r = vcp_fopen_regular(path, &f);
	if (r == -ESRCH)
		r = -ENOENT;
	free(path);
	if (r < 0)
		return r;
	r = -ENOENT;
	while (r == -ENOENT && getline(&line, &cap, f) >= 0) {
		p = cpu_line_path(k, line);
		if (p) {
			found = relative_to_mount(k, p);
			r = found ? 0 : -ENOMEM;
		}
	}
	free(line);
	fclose(f);
	if (found)
		*ret_path = found;
	return r;
}

int vcp_kernel_task_cgroup(const struct vcp_kernel *k, int pid,
			   char **ret_path)
{
	char who[16];

	if (pid < 0)
		return -EINVAL;
	if (pid == 0)
		snprintf(who, sizeof(who), "self");
	else
		snprintf(who, sizeof(who), "%d", pid);
	return cgroup_of(k, who, ret_path);
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t m = strlen(suffix);

	return n >= m && strncmp(s + n - m, suffix, m) == 0;
}

/* libvirt's per-thread leaves: "emulator", "vcpuN", "iothreadN". */
static bool thread_leaf(const char *s)
{
	static const char *const pre[] = { "vcpu", "iothread" };

	if (strcmp(s, "emulator") == 0)
		return true;
	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(pre[i]);

		if (strncmp(s, pre[i], n) == 0 && s[n] &&
		    strspn(s + n, "0123456789") == strlen(s + n))
			return true;
	}
	return false;
}

/*
 * A libvirt guest group: "NAME.libvirt-qemu" (also -lxc), systemd's
 * "machine-*.scope", or the "libvirt" child of that scope (cgroup v2).
 */
static bool vm_group(const char *s, size_t n)
{
	return ends_with(s, n, ".libvirt-qemu") ||
	       ends_with(s, n, ".libvirt-lxc") ||
	       (n == 7 && strncmp(s, "libvirt", 7) == 0) ||
	       (strncmp(s, "machine-", 8) == 0 && ends_with(s, n, ".scope"));
}

/* "/a/b.libvirt-qemu/vcpu0" -> "/a/b.libvirt-qemu", in place. */
static void strip_thread_leaf(char *cg)
{
	char *leaf = strrchr(cg, '/'), *parent;

	if (!leaf || leaf == cg || !thread_leaf(leaf + 1))
		return;
	*leaf = '\0';
	parent = strrchr(cg, '/');
	parent = parent ? parent + 1 : cg;
	if (!vm_group(parent, strlen(parent)))
		*leaf = '/';
}

int vcp_kernel_cgroup_of_pid(const struct vcp_kernel *k, int pid,
			     char **ret_path)
{
	char *cg = NULL;
	int r = vcp_kernel_task_cgroup(k, pid, &cg);

	if (r < 0)
		return r;
	strip_thread_leaf(cg);
	*ret_path = cg;
	return 0;
}

/* ---- detection ---- */

static bool group_has_class(const struct vcp_kernel *k, const char *cg)
{
	char *path = NULL;
	bool found;

	found = cg_path(k, cg, VCP_KERNEL_CLASS_FILE, &path) == 0 &&
		exists(path);
	free(path);
	return found;
}

/*
 * Any group right below the root (where the root enables cpu, all have
 * the cpu files).
 */
static bool child_has_class(const struct vcp_kernel *k)
{
	char *dir = join(k->root, k->cpu_mount), cg[NAME_MAX + 2];
	struct dirent *de;
	bool found = false;
	DIR *d = dir ? opendir(dir) : NULL;

	free(dir);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		snprintf(cg, sizeof(cg), "/%s", de->d_name);
		found = group_has_class(k, cg);
	}
	closedir(d);
	return found;
}

/*
 * The patch may keep the file off the root group, as cpu.idle is: then
 * look in the caller's own group and in the root's children.
 */
static bool find_class_file(const struct vcp_kernel *k)
{
	char *cg = NULL;
	bool found;

	if (!k->cpu_mount)
		return false;
	if (group_has_class(k, "/"))
		return true;
	if (cgroup_of(k, "self", &cg) == 0) {
		found = group_has_class(k, cg);
		free(cg);
		if (found)
			return true;
	}
	return child_has_class(k);
}

static int make_reason(struct vcp_kernel *k)
{
	char level_txt[128], class_txt[PATH_MAX + 64];
	const char *what = "stock kernel";
	int r;

	if (k->has_level && k->has_class)
		return asprintf(&k->reason,
				"vcpack kernel: %s and %s (cgroup %s cpu controller at %s) are present; classes and the level carry the plan",
				VCP_KERNEL_LEVEL_PATH, VCP_KERNEL_CLASS_FILE,
				k->cgroup_v2 ? "v2" : "v1", k->cpu_mount);
	if (k->has_level || k->has_class)
		what = "incomplete vcpack kernel";
	snprintf(level_txt, sizeof(level_txt), "%s%s%s",
		 k->has_level ? "" : "no ", VCP_KERNEL_LEVEL_PATH,
		 k->has_level ? " present" : "");
	if (!k->cpu_mount)
		snprintf(class_txt, sizeof(class_txt),
			 "no cgroup hierarchy with the cpu controller");
	else
		snprintf(class_txt, sizeof(class_txt), "%s%s%s in %s (cgroup %s)",
			 k->has_class ? "" : "no ", VCP_KERNEL_CLASS_FILE,
			 k->has_class ? " present" : "", k->cpu_mount,
			 k->cgroup_v2 ? "v2" : "v1");
	r = asprintf(&k->missing, "%s: %s, %s", what, level_txt, class_txt);
	if (r < 0) {
		k->missing = NULL;
		return r;
	}
	return asprintf(&k->reason, "%s; pins alone carry the plan",
			k->missing);
}

int vcp_kernel_open(const char *root, struct vcp_kernel **ret)
{
	struct vcp_kernel *k;
	char *level;
	int r;

	if (!root || !*root)
		return -EINVAL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->root = strdup(root);
	r = k->root ? find_cpu_mount(k) : -ENOMEM;
	if (r == 0) {
		level = join(root, VCP_KERNEL_LEVEL_PATH);
		k->has_level = exists(level);
		free(level);
		k->has_class = find_class_file(k);
		if (make_reason(k) < 0) {
			k->reason = NULL;
			r = -ENOMEM;
		}
	}
	if (r < 0) {
		vcp_kernel_free(k);
		return r;
	}
	*ret = k;
	return 0;
}

void vcp_kernel_free(struct vcp_kernel *k)
{
	if (!k)
		return;
	free(k->root);
	free(k->cpu_mount);
	free(k->cpu_mount_root);
	free(k->reason);
	free(k->missing);
	vcp_scx_free(k->scx);
	free(k);
}

void vcp_kernel_use_scx(struct vcp_kernel *k, struct vcp_scx *s)
{
	vcp_scx_free(k->scx);
	k->scx = s;
}

/* scx mode: ROOT/cpu_mount/cgroup, and ROOT/cpu_mount for the top */
static int scx_dirs(const struct vcp_kernel *k, const char *cg,
		    char **ret_dir, char **ret_top)
{
	char *dir, *top;
	int r = cg_path(k, cg, NULL, &dir);

	if (r < 0)
		return r;
	top = join(k->root, k->cpu_mount);
	if (!top) {
		free(dir);
		return -ENOMEM;
	}
	*ret_dir = dir;
	*ret_top = top;
	return 0;
}

enum vcp_mode vcp_kernel_mode(const struct vcp_kernel *k)
{
	return k && k->has_level && k->has_class ? VCP_MODE_KERNEL
						 : VCP_MODE_PIN;
}

/* ---- the level ---- */

static int level_path(const struct vcp_kernel *k, char **ret)
{
	if (!k)
		return -EINVAL;
	*ret = join(k->root, VCP_KERNEL_LEVEL_PATH);
	return *ret ? 0 : -ENOMEM;
}

static int read_level(const char *path, int *ret_level)
{
	char buf[32];
	int r = vcp_read_line(path, buf, sizeof(buf));

	if (r < 0)
		return r;
	if (buf[0] < '0' || buf[0] > '2' || buf[1] != '\0')
		return -EBADMSG;
	*ret_level = buf[0] - '0';
	return 0;
}

int vcp_kernel_get_level(const struct vcp_kernel *k, int *ret_level)
{
	char *path;
	int r;

	if (k && k->scx)
		return vcp_scx_get_level(k->scx, ret_level);
	r = level_path(k, &path);

	if (r < 0)
		return r;
	r = read_level(path, ret_level);
	free(path);
	return r;
}

int vcp_kernel_set_level(const struct vcp_kernel *k, int level)
{
	char *path, buf[8];
	int cur, r;

	if (level < 0 || level > 2)
		return -EINVAL;
	if (k && k->scx)
		return vcp_scx_set_level(k->scx, level);
	r = level_path(k, &path);
	if (r < 0)
		return r;
	r = read_level(path, &cur);
	if (r == -ENOENT || (r == 0 && cur == level)) {
		free(path);
		return r;
	}
	snprintf(buf, sizeof(buf), "%d\n", level);
	r = write_str(path, buf, O_TRUNC);
	free(path);
	return r;
}

/* ---- classes ---- */

/* A group's own value; -ESRCH for "inherit" (series v2: the group
 * follows the nearest ancestor that set one). */
static int read_class(const char *path, enum vcp_class *ret)
{
	char buf[64];
	int r = vcp_read_line(path, buf, sizeof(buf));

	if (r < 0)
		return r;
	if (!strcmp(buf, "inherit"))
		return -ESRCH;
	return vcp_class_from_name(buf, ret) < 0 ? -EBADMSG : 0;
}

/*
 * The class in effect for @cgroup: its own value, or for "inherit" that
 * of the nearest ancestor that set one, "balanced" at the root (the
 * kernel's default), as the series' hierarchical file defines it.
 */
int vcp_kernel_get_class(const struct vcp_kernel *k, const char *cgroup,
			 enum vcp_class *ret)
{
	char *path, *cg, *slash;
	int r;

	if (k && k->scx) {
		path = cg = NULL;
		r = scx_dirs(k, cgroup, &path, &cg);
		if (r == 0)
			r = vcp_scx_get_class(k->scx, path, cg, ret);
		free(path);
		free(cg);
		return r;
	}
	r = cg_path(k, cgroup, VCP_KERNEL_CLASS_FILE, &path);
	if (r < 0)
		return r;
	r = read_class(path, ret);
	free(path);
	if (r != -ESRCH)
		return r;
	cg = strdup(cgroup);
	if (!cg)
		return -ENOMEM;
	do {
		slash = strrchr(cg, '/');
		if (!slash || slash == cg) {
			*ret = VCP_CLASS_BALANCED;
			r = 0;
			break;
		}
		*slash = '\0';
		r = cg_path(k, cg, VCP_KERNEL_CLASS_FILE, &path);
		if (r < 0)
			break;
		r = read_class(path, ret);
		free(path);
	} while (r == -ESRCH);
	free(cg);
	return r;
}

int vcp_kernel_set_class(const struct vcp_kernel *k, const char *cgroup,
			 enum vcp_class c)
{
	enum vcp_class cur;
	char *path, buf[32];
	int r;

	if (!vcp_class_name(c))
		return -EINVAL;
	if (k && k->scx) {
		path = NULL;
		r = cg_path(k, cgroup, NULL, &path);
		if (r == 0)
			r = vcp_scx_set_class(k->scx, path, c);
		free(path);
		return r;
	}
	r = cg_path(k, cgroup, VCP_KERNEL_CLASS_FILE, &path);
	if (r < 0)
		return r;
	r = read_class(path, &cur);
	if (r == -ENOENT || (r == 0 && cur == c)) {
		free(path);
		return r;
	}
	snprintf(buf, sizeof(buf), "%s\n", vcp_class_name(c));
	r = write_str(path, buf, O_TRUNC);
	free(path);
	return r;
}

/* ---- groups and processes ---- */

/*
 * A fixture tree is plain directories: give a new group what cgroupfs
 * would, an empty cgroup.procs and the parent's class.
 */
static int emulate_new_group(const char *dir)
{
	char *procs = join(dir, "cgroup.procs");
	char *pclass = join3(dir, "..", VCP_KERNEL_CLASS_FILE);
	char *class = join(dir, VCP_KERNEL_CLASS_FILE);
	enum vcp_class c;
	int fd, r = -ENOMEM;

	if (procs && pclass && class) {
		r = 0;
		fd = open(procs, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 || close(fd) < 0)
			r = -errno;
		if (r == 0 && read_class(pclass, &c) == 0) {
			fd = open(class, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
				  0644);
			if (fd < 0 || close(fd) < 0)
				r = -errno;
			else
				r = write_str(class, vcp_class_name(c), O_TRUNC);
		}
	}
	free(procs);
	free(pclass);
	free(class);
	return r;
}

/*
 * Each entry of @d but "." and "..": all regular files (0, unlinked
 * with @unlink), or -EBUSY.
 */
static int files_only(DIR *d, bool unlink)
{
	struct dirent *de;
	struct stat st;

	rewinddir(d);
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		if (!S_ISREG(st.st_mode))
			return -EBUSY;
		if (unlink && unlinkat(dirfd(d), de->d_name, 0) < 0)
			return -errno;
	}
	return 0;
}

/*
 * rmdir on a fixture tree as on cgroupfs, which takes a group's files
 * with it and refuses (-EBUSY) while it has child groups. A fixture's
 * cgroup.procs only collects the pids written to it (a move leaves the
 * pid in its old group's file), so it cannot tell a populated group.
 */
static int emulate_remove_group(const char *dir)
{
	DIR *d = opendir(dir);
	int r;

	if (!d)
		return -errno;
	r = files_only(d, false);
	if (r == 0)
		r = files_only(d, true);
	closedir(d);
	if (r == 0 && rmdir(dir) < 0)
		r = -errno;
	return r;
}

static int remove_dir(const char *dir)
{
	if (on_kernfs(dir))
		return rmdir(dir) < 0 ? -errno : 0;
	return emulate_remove_group(dir);
}

/* 1: made, 0: there already. */
static int make_group(const char *dir)
{
	int r;

	if (mkdir(dir, 0755) < 0)
		return errno == EEXIST ? 0 : -errno;
	if (on_kernfs(dir))
		return 1;
	r = emulate_new_group(dir);
	if (r < 0)
		remove_dir(dir);
	return r < 0 ? r : 1;
}

/* @fn on the directory of @cgroup. */
static int on_group(const struct vcp_kernel *k, const char *cgroup,
		    int (*fn)(const char *dir))
{
	char *dir;
	int r;

	r = cg_path(k, cgroup, NULL, &dir);
	if (r < 0)
		return r;
	r = fn(dir);
	free(dir);
	return r;
}

int vcp_kernel_make_group(const struct vcp_kernel *k, const char *cgroup)
{
	return on_group(k, cgroup, make_group);
}

int vcp_kernel_group_dir(const struct vcp_kernel *k, const char *cgroup,
			 char **ret_dir)
{
	return cg_path(k, cgroup, NULL, ret_dir);
}

int vcp_kernel_move_pid(const struct vcp_kernel *k, const char *cgroup,
			int pid, bool create)
{
	char *dir, *procs, buf[24];
	int r;

	if (pid <= 0)
		return -EINVAL;
	r = cg_path(k, cgroup, NULL, &dir);
	if (r < 0)
		return r;
	if (create)
		r = make_group(dir);
	if (r > 0)
		r = 0;
	procs = r == 0 ? join(dir, "cgroup.procs") : NULL;
	if (r == 0 && !procs)
		r = -ENOMEM;
	if (r == 0) {
		snprintf(buf, sizeof(buf), "%d\n", pid);
		r = write_str(procs, buf, O_APPEND);
	}
	free(procs);
	free(dir);
	return r;
}

/* "+cpu" or "-cpu" into @cgroup's cgroup.subtree_control (v2 only). */
static int subtree_cpu(const struct vcp_kernel *k, const char *cgroup,
		       const char *what)
{
	char *path;
	int r;

	if (k && k->cpu_mount && !k->cgroup_v2)
		return check_cgroup(cgroup);
	r = cg_path(k, cgroup, "cgroup.subtree_control", &path);
	if (r < 0)
		return r;
	r = write_str(path, what, 0);
	free(path);
	return r;
}

int vcp_kernel_enable_children(const struct vcp_kernel *k, const char *cgroup)
{
	return subtree_cpu(k, cgroup, "+cpu");
}

int vcp_kernel_disable_children(const struct vcp_kernel *k, const char *cgroup)
{
	return subtree_cpu(k, cgroup, "-cpu");
}

int vcp_kernel_remove_group(const struct vcp_kernel *k, const char *cgroup)
{
	if (cgroup && strspn(cgroup, "/") == strlen(cgroup))
		return -EINVAL;
	return on_group(k, cgroup, remove_dir);
}

/* ---- device interrupts ---- */

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif

static bool on_procfs(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

int vcp_kernel_set_irq_affinity(const char *root, unsigned int irq,
				const struct vcp_cpuset *cpus)
{
	char rel[64], *dir, *path = NULL, *marker = NULL, *cur, *want;
	struct vcp_cpuset now;
	int r;

	if (!root || !*root || vcp_cpuset_empty(cpus))
		return -EINVAL;
	/* any list whole: a 16,384-CPU host's run to 43,596 characters */
	want = malloc(VCP_CPULIST_MAX);
	cur = malloc(VCP_CPULIST_MAX);
	if (!want || !cur ||
	    vcp_cpuset_format(cpus, want, VCP_CPULIST_MAX - 1) < 0) {
		free(want);
		free(cur);
		return -ENOMEM;
	}
	snprintf(rel, sizeof(rel), "/proc/irq/%u", irq);
	dir = join(root, rel);
	path = dir ? join(dir, "smp_affinity_list") : NULL;
	marker = dir ? join(dir, "vcp-managed") : NULL;
	r = path && marker ? 0 : -ENOMEM;
	if (r == 0)
		r = vcp_read_line(path, cur, sizeof(cur));
	if (r == 0 && vcp_cpuset_parse(cur, &now) == 0 &&
	    vcp_cpuset_equal(&now, cpus))
		goto out;	/* already so */
	if (r == 0 && !on_procfs(path) && exists(marker))
		r = -EIO;	/* the fixture's managed IRQ */
	if (r == 0) {
		strcat(want, "\n");
		r = write_str(path, want, O_TRUNC);
	}
out:
	free(marker);
	free(path);
	free(dir);
	free(cur);
	free(want);
	return r;
}
