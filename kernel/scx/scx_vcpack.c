/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_vcpack.c - loader and control client of the scx_vcpack sched_ext
 * scheduler (the policy is in scx_vcpack.bpf.c's header comment).
 *
 *   scx_vcpack [-l LEVEL] [-c CGROUP=CLASS]... [-x CPULIST] [-d PINDIR]
 *	       [-i SECS] [-v]
 *	reads the CPU topology from sysfs (without the CPUs of -x, which
 *	belong to no package: housekeeping CPUs the workload never runs on,
 *	whose tasks are scheduled there as usual but never counted, gathered
 *	to or spread to), loads and attaches the scheduler,
 *	sets the level and classes, pins the control maps as PINDIR/ctl and
 *	PINDIR/classes (default /sys/fs/bpf/vcpack), and runs until SIGINT
 *	or SIGTERM (exit 0: the scheduler is unloaded and every task goes
 *	back to the fair class) or until the kernel ejects the scheduler
 *	(exit 2; the reason is in dmesg). A failed load (exit 1) says why:
 *	no sched_ext in this kernel, another scheduler loaded (by name), a
 *	kfunc the kernel lacks, a relocation or the verifier (libbpf's
 *	message). One object serves 6.12 and later kernels: the BPF side
 *	resolves renamed kfuncs and enum values at load time
 *	(scx_vcpack_compat.bpf.h), the ops flags are read here.
 *   scx_vcpack [-d PINDIR] level LEVEL
 *   scx_vcpack [-d PINDIR] class CGROUP CLASS|none
 *   scx_vcpack [-d PINDIR] show
 *	change or show the running scheduler's level and classes through
 *	the pinned maps. CGROUP is a cgroup directory (its inode number is
 *	the cgroup id); CLASS is spread, balanced or pack; "none" removes
 *	the entry, so the cgroup inherits from its ancestors again.
 *
 * Built static for the testbed guest; written in the style of the
 * kernel's tools/sched_ext loaders (scx_simple.c).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>
#include <scx/common.h>
#include "scx_vcpack.h"
#include "scx_vcpack.bpf.skel.h"

#define DEFAULT_PINDIR	"/sys/fs/bpf/vcpack"
#define SCX_SYSFS	"/sys/kernel/sched_ext"

static const char *const class_names[] = { "spread", "balanced", "pack" };

static const char usage_fmt[] =
"usage: %s [-l LEVEL] [-c CGROUP=CLASS]... [-x CPULIST] [-d PINDIR] [-i SECS] [-v]\n"
"       %s [-d PINDIR] level LEVEL\n"
"       %s [-d PINDIR] class CGROUP spread|balanced|pack|none\n"
"       %s [-d PINDIR] show\n"
"LEVEL: 0 (no gathering), 1 (gather pack), 2 (gather pack and balanced)\n"
"PINDIR: where the control maps are pinned (default " DEFAULT_PINDIR ")\n";

static bool verbose;
static volatile sig_atomic_t exit_req;

/*
 * The first libbpf warning that names why a load failed (a missing kfunc,
 * a failed relocation, the program the verifier refused), for the one-line
 * reason the loader gives.
 */
static char libbpf_why[256];

static int libbpf_print_fn(enum libbpf_print_level level, const char *fmt,
			   va_list args)
{
	char line[sizeof(libbpf_why)];
	va_list copy;

	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	if (level == LIBBPF_WARN && !libbpf_why[0]) {
		va_copy(copy, args);
		vsnprintf(line, sizeof(line), fmt, copy);
		va_end(copy);
		line[strcspn(line, "\n")] = '\0';
		if (strstr(line, "not found in kernel") ||
		    strstr(line, "relo #") || strstr(line, "load failed") ||
		    strstr(line, "incompatible"))
			snprintf(libbpf_why, sizeof(libbpf_why), "%s", line);
	}
	return vfprintf(stderr, fmt, args);
}

static void sig_handler(int sig)
{
	exit_req = 1;
}

/* Reads one integer from a sysfs file; 0 or -errno. */
static int read_int(const char *path, int *ret_val)
{
	FILE *f = fopen(path, "r");
	int v, n;

	if (!f)
		return -errno;
	n = fscanf(f, "%d", &v);
	fclose(f);
	if (n != 1)
		return -EINVAL;
	*ret_val = v;
	return 0;
}

static int parse_level(const char *s, __u32 *ret_level)
{
	if (strlen(s) != 1 || s[0] < '0' || s[0] > '2')
		return -EINVAL;
	*ret_level = s[0] - '0';
	return 0;
}

/* spread/balanced/pack -> 0/1/2; none -> -1 (delete) */
static int parse_class(const char *s, int *ret_class)
{
	int i;

	if (!strcmp(s, "none")) {
		*ret_class = -1;
		return 0;
	}
	for (i = 0; i < 3; i++) {
		if (!strcmp(s, class_names[i])) {
			*ret_class = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* The cgroup id of a cgroup directory: its inode number. */
static int cgroup_id(const char *path, __u64 *ret_id)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	*ret_id = st.st_ino;
	return 0;
}

/*
 * Fills the skeleton's topology from sysfs: packages numbered densely in
 * the order of their first CPU, the first CPU of each (package, core_id)
 * marked as the core's leader and named as every CPU's core. CPUs offline
 * now get package 0.
 */
/*
 * Parses a CPU list ("8", "0-3,8") into @set (VCP_MAX_CPUS entries);
 * 0, or -EINVAL on anything else.
 */
static int parse_cpulist(const char *s, bool *set)
{
	char *end;
	long a, b;

	do {
		a = strtol(s, &end, 10);
		if (end == s || a < 0 || a >= VCP_MAX_CPUS)
			return -EINVAL;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b >= VCP_MAX_CPUS)
				return -EINVAL;
		}
		while (a <= b)
			set[a++] = true;
		s = end + 1;
	} while (*end == ',');
	return *end ? -EINVAL : 0;
}

/* CPUs of -x: in no package (cpu_pkg out of range, never a core leader) */
static bool excluded[VCP_MAX_CPUS];

static int read_topology(struct scx_vcpack *skel, int *ret_cpus,
			 int *ret_pkgs)
{
	static int pkg_ids[VCP_MAX_PKGS], core_pkg[VCP_MAX_CPUS],
		core_ids[VCP_MAX_CPUS], core_first[VCP_MAX_CPUS];
	int nr_cpus = libbpf_num_possible_cpus(), nr_pkgs = 0, nr_cores = 0;
	char path[128];
	int cpu, i;

	if (nr_cpus <= 0)
		return nr_cpus ? nr_cpus : -EINVAL;
	if (nr_cpus > VCP_MAX_CPUS)
		nr_cpus = VCP_MAX_CPUS;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		int phys, core, pkg = -1;

		/* a possible CPU that is not present has no topology */
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
			 cpu);
		if (excluded[cpu] || read_int(path, &phys)) {
			skel->rodata->cpu_pkg[cpu] = 0xff;
			continue;
		}
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
		if (read_int(path, &core))
			core = cpu;
		for (i = 0; i < nr_pkgs; i++)
			if (pkg_ids[i] == phys)
				pkg = i;
		if (pkg < 0) {
			if (nr_pkgs == VCP_MAX_PKGS)
				return -E2BIG;
			pkg = nr_pkgs;
			pkg_ids[nr_pkgs++] = phys;
		}
		skel->rodata->cpu_pkg[cpu] = pkg;
		for (i = 0; i < nr_cores; i++)
			if (core_pkg[i] == pkg && core_ids[i] == core)
				break;
		if (i == nr_cores) {
			core_pkg[nr_cores] = pkg;
			core_first[nr_cores] = cpu;
			core_ids[nr_cores++] = core;
			skel->rodata->cpu_leader[cpu] = 1;
			skel->rodata->pkg_cores[pkg]++;
		}
		skel->rodata->cpu_core[cpu] = core_first[i];
	}
	if (!nr_pkgs)
		return -ENOENT;
	skel->rodata->nr_cpus = nr_cpus;
	skel->rodata->nr_pkgs = nr_pkgs;
	*ret_cpus = nr_cpus;
	*ret_pkgs = nr_pkgs;
	return 0;
}

static void mark_online(struct scx_vcpack *skel, int nr_cpus)
{
	char path[96];
	int cpu, on;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/online", cpu);
		/*
		 * cpu0 often has no online file: it cannot go offline; a
		 * possible CPU that is not present has no directory at all
		 */
		if (read_int(path, &on)) {
			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%d", cpu);
			on = !access(path, F_OK);
		}
		skel->bss->cpu_on[cpu] = on ? 1 : 0;
	}
}

/* The first line of a sysfs file into @buf ("" if unreadable). */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/*
 * 0 when this kernel can take a sched_ext scheduler now; else says why
 * (no sched_ext at all, or another scheduler loaded: its name from
 * root/ops) and returns -ENOENT or -EBUSY.
 */
static int scx_ready(const char *prog)
{
	char state[32], ops[128];
	struct stat st;

	if (stat(SCX_SYSFS, &st)) {
		fprintf(stderr, "%s: this kernel has no sched_ext (no %s): it was built without CONFIG_SCHED_CLASS_EXT\n",
			prog, SCX_SYSFS);
		return -ENOENT;
	}
	read_line(SCX_SYSFS "/state", state, sizeof(state));
	if (!strcmp(state, "disabled"))
		return 0;
	read_line(SCX_SYSFS "/root/ops", ops, sizeof(ops));
	fprintf(stderr, "%s: another sched_ext scheduler is loaded: '%s' (%s/state: %s); unload it first\n",
		prog, ops[0] ? ops : "?", SCX_SYSFS, state[0] ? state : "?");
	return -EBUSY;
}

/*
 * The value of enumerator @name of enum @type in the running kernel's BTF
 * (the struct_ops flags are no CO-RE relocation; see
 * scx_vcpack_compat.bpf.h); 0, 1 if the kernel has none, or -errno of
 * reading its BTF.
 */
static int kernel_enum(const char *type, const char *name, __u64 *ret_val)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	int id, i, err = 1;

	if (!btf)
		return -errno;
	id = btf__find_by_name(btf, type);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (i = 0; t && btf_is_enum(t) && i < btf_vlen(t); i++) {
		if (!strcmp(btf__name_by_offset(btf, btf_enum(t)[i].name_off), name)) {
			*ret_val = (__u32)btf_enum(t)[i].val;
			err = 0;
		}
	}
	for (i = 0; t && btf_is_enum64(t) && i < btf_vlen(t); i++) {
		if (!strcmp(btf__name_by_offset(btf, btf_enum64(t)[i].name_off), name)) {
			*ret_val = btf_enum64_value(&btf_enum64(t)[i]);
			err = 0;
		}
	}
	btf__free(btf);
	return err;
}

/* Why scx_vcpack__load() failed, from what libbpf said. */
static void load_failed(const char *prog, int err)
{
	const char *why = "see libbpf's messages above";
	char name[128];
	const char *q;

	if (strstr(libbpf_why, "not found in kernel") &&
	    (q = strchr(libbpf_why, '\''))) {
		snprintf(name, sizeof(name), "%s", q + 1);
		name[strcspn(name, "'")] = '\0';
		fprintf(stderr, "%s: cannot load the BPF scheduler: this kernel has no %s, a kernel function this scx_vcpack needs (%s)\n",
			prog, name, libbpf_why);
		return;
	}
	if (strstr(libbpf_why, "relo #") || strstr(libbpf_why, "incompatible"))
		why = "a relocation against this kernel's types failed";
	else if (strstr(libbpf_why, "load failed"))
		why = "the kernel's verifier refused a program (its log is above)";
	fprintf(stderr, "%s: cannot load the BPF scheduler: %s%s%s%s: %s\n",
		prog, why, libbpf_why[0] ? " (" : "", libbpf_why,
		libbpf_why[0] ? ")" : "", strerror(-err));
}

static int pin_path(char *buf, size_t len, const char *dir, const char *name)
{
	if ((size_t)snprintf(buf, len, "%s/%s", dir, name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* Pins ctl and classes in @dir (on a bpf filesystem), replacing old pins. */
static int pin_maps(struct scx_vcpack *skel, const char *dir)
{
	struct bpf_map *maps[2] = { skel->maps.ctl, skel->maps.classes };
	const char *names[2] = { "ctl", "classes" };
	char path[PATH_MAX];
	struct statfs sfs;
	int i, err;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	if (statfs(dir, &sfs))
		return -errno;
	if ((unsigned long)sfs.f_type != BPF_FS_MAGIC)
		return -ENOTSUP;
	for (i = 0; i < 2; i++) {
		err = pin_path(path, sizeof(path), dir, names[i]);
		if (err)
			return err;
		unlink(path);
		err = bpf_map__pin(maps[i], path);
		if (err)
			return err;
	}
	return 0;
}

static void unpin_maps(const char *dir)
{
	char path[PATH_MAX];

	if (!pin_path(path, sizeof(path), dir, "ctl"))
		unlink(path);
	if (!pin_path(path, sizeof(path), dir, "classes"))
		unlink(path);
	rmdir(dir);
}

static int set_level(int ctl_fd, __u32 level)
{
	struct vcp_ctl c;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(ctl_fd, &zero, &c))
		return -errno;
	c.level = level;
	if (bpf_map_update_elem(ctl_fd, &zero, &c, BPF_ANY))
		return -errno;
	return 0;
}

/* Sets (class >= 0) or removes the class of @cg, then bumps ctl.gen. */
static int set_class(int ctl_fd, int classes_fd, const char *cg, int class)
{
	struct vcp_ctl c;
	__u32 zero = 0, val = class;
	__u64 id;
	int err;

	err = cgroup_id(cg, &id);
	if (err)
		return err;
	if (class < 0) {
		if (bpf_map_delete_elem(classes_fd, &id) && errno != ENOENT)
			return -errno;
	} else if (bpf_map_update_elem(classes_fd, &id, &val, BPF_ANY)) {
		return -errno;
	}
	if (bpf_map_lookup_elem(ctl_fd, &zero, &c))
		return -errno;
	c.gen = c.gen + 1 ? c.gen + 1 : 1;
	if (bpf_map_update_elem(ctl_fd, &zero, &c, BPF_ANY))
		return -errno;
	return 0;
}

static int show(int ctl_fd, int classes_fd)
{
	__u64 key, next, *prev = NULL;
	struct vcp_ctl c;
	__u32 zero = 0, val;

	if (bpf_map_lookup_elem(ctl_fd, &zero, &c))
		return -errno;
	printf("level %u\n", c.level);
	while (!bpf_map_get_next_key(classes_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(classes_fd, &key, &val))
			printf("cgroup %llu %s\n", (unsigned long long)key,
			       val < 3 ? class_names[val] : "?");
	}
	return 0;
}

/* The control client: level, class and show on the pinned maps. */
static int control(const char *prog, const char *dir, int argc, char **argv)
{
	char path[PATH_MAX];
	int ctl_fd, classes_fd, class, err;
	__u32 level;

	if (pin_path(path, sizeof(path), dir, "ctl") ||
	    (ctl_fd = bpf_obj_get(path)) < 0) {
		fprintf(stderr, "%s: no scx_vcpack running (%s/ctl: %s)\n",
			prog, dir, strerror(errno));
		return 1;
	}
	if (pin_path(path, sizeof(path), dir, "classes") ||
	    (classes_fd = bpf_obj_get(path)) < 0) {
		fprintf(stderr, "%s: %s/classes: %s\n", prog, dir,
			strerror(errno));
		return 1;
	}
	if (!strcmp(argv[0], "level") && argc == 2) {
		if (parse_level(argv[1], &level)) {
			fprintf(stderr, "%s: bad level '%s' (0, 1 or 2)\n",
				prog, argv[1]);
			return 1;
		}
		err = set_level(ctl_fd, level);
	} else if (!strcmp(argv[0], "class") && argc == 3) {
		if (parse_class(argv[2], &class)) {
			fprintf(stderr, "%s: bad class '%s' (spread, balanced, pack or none)\n",
				prog, argv[2]);
			return 1;
		}
		err = set_class(ctl_fd, classes_fd, argv[1], class);
	} else if (!strcmp(argv[0], "show") && argc == 1) {
		err = show(ctl_fd, classes_fd);
	} else {
		fprintf(stderr, usage_fmt, prog, prog, prog, prog);
		return 1;
	}
	if (err) {
		fprintf(stderr, "%s: %s %s: %s\n", prog, argv[0],
			argc > 1 ? argv[1] : "", strerror(-err));
		return 1;
	}
	return 0;
}

#define MAX_INIT_CLASSES 64

struct opts {
	__u32 level;
	int interval;
	int nr_classes;
	char *cg[MAX_INIT_CLASSES];
	int class[MAX_INIT_CLASSES];
};

static int run(const char *prog, const char *dir, struct opts *o)
{
	struct bpf_link *link = NULL;
	struct scx_vcpack *skel;
	int nr_cpus, nr_pkgs, err, i, ctl_fd, classes_fd, rc = 0, t = 0;
	__u64 enq_last = 0;
	long seq;

	if (scx_ready(prog))
		return 1;
	skel = scx_vcpack__open();
	if (!skel) {
		fprintf(stderr, "%s: cannot open the BPF object: %s\n", prog,
			strerror(errno));
		return 1;
	}
	err = read_topology(skel, &nr_cpus, &nr_pkgs);
	if (err) {
		fprintf(stderr, "%s: cannot read the CPU topology from /sys/devices/system/cpu: %s\n",
			prog, strerror(-err));
		goto out_destroy;
	}
	seq = scx_hotplug_seq();
	if (seq >= 0)
		skel->struct_ops.vcpack_ops->hotplug_seq = seq;
	err = kernel_enum("scx_ops_flags", "SCX_OPS_ENQ_LAST", &enq_last);
	if (err > 0) {
		fprintf(stderr, "%s: this kernel's sched_ext has no SCX_OPS_ENQ_LAST (enum scx_ops_flags in its BTF)\n",
			prog);
		goto out_destroy;
	}
	if (err) {
		fprintf(stderr, "%s: cannot read this kernel's BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF): %s\n",
			prog, strerror(-err));
		goto out_destroy;
	}
	skel->struct_ops.vcpack_ops->flags = enq_last;
	err = scx_vcpack__load(skel);
	if (err) {
		load_failed(prog, err);
		goto out_destroy;
	}
	mark_online(skel, nr_cpus);
	ctl_fd = bpf_map__fd(skel->maps.ctl);
	classes_fd = bpf_map__fd(skel->maps.classes);
	err = set_level(ctl_fd, o->level);
	for (i = 0; !err && i < o->nr_classes; i++) {
		err = set_class(ctl_fd, classes_fd, o->cg[i], o->class[i]);
		if (err)
			fprintf(stderr, "%s: class of %s: %s\n", prog, o->cg[i],
				strerror(-err));
	}
	if (err)
		goto out_destroy;
	link = bpf_map__attach_struct_ops(skel->maps.vcpack_ops);
	if (!link) {
		err = -errno;
		/* one loaded since scx_ready() looked: say which */
		if (err == -EBUSY && scx_ready(prog))
			goto out_destroy;
		fprintf(stderr, "%s: cannot attach the scheduler: %s (dmesg may say more)\n",
			prog, strerror(-err));
		goto out_destroy;
	}
	err = pin_maps(skel, dir);
	if (err) {
		fprintf(stderr, "%s: cannot pin the control maps in %s (mount -t bpf bpf /sys/fs/bpf): %s\n",
			prog, dir, strerror(-err));
		goto out_detach;
	}
	printf("scx_vcpack: loaded, level %u, %d CPUs in %d packages, control maps in %s\n",
	       o->level, nr_cpus, nr_pkgs, dir);
	fflush(stdout);

	while (!exit_req && !__sync_fetch_and_add(&skel->bss->vcp_exit.kind, 0)) {
		sleep(1);
		if (o->interval && ++t % o->interval == 0) {
			printf("scx_vcpack: packed %llu gathered %llu spilled %llu spread %llu slice-ends %llu\n",
			       (unsigned long long)skel->bss->nr_packed,
			       (unsigned long long)skel->bss->nr_gathered,
			       (unsigned long long)skel->bss->nr_spilled,
			       (unsigned long long)skel->bss->nr_spread,
			       (unsigned long long)skel->bss->nr_slice_ends);
			fflush(stdout);
		}
	}
	if (!exit_req) {
		fprintf(stderr, "%s: the kernel ejected the scheduler (exit kind %d, code %lld; see dmesg)\n",
			prog, skel->bss->vcp_exit.kind,
			(long long)skel->bss->vcp_exit.exit_code);
		rc = 2;
	}
	unpin_maps(dir);
out_detach:
	bpf_link__destroy(link);
out_destroy:
	scx_vcpack__destroy(skel);
	if (err)
		return 1;
	if (!rc)
		printf("scx_vcpack: unloaded\n");
	return rc;
}

int main(int argc, char **argv)
{
	const char *dir = DEFAULT_PINDIR, *prog = "scx_vcpack";
	struct opts o = { .level = 1 };
	char *eq;
	int opt;

	libbpf_set_print(libbpf_print_fn);
	while ((opt = getopt(argc, argv, "+l:c:x:d:i:vh")) != -1) {
		switch (opt) {
		case 'l':
			if (parse_level(optarg, &o.level)) {
				fprintf(stderr, "%s: bad level '%s' (0, 1 or 2)\n",
					prog, optarg);
				return 1;
			}
			break;
		case 'c':
			eq = strrchr(optarg, '=');
			if (!eq || o.nr_classes == MAX_INIT_CLASSES) {
				fprintf(stderr, "%s: bad -c '%s' (CGROUP=CLASS)\n",
					prog, optarg);
				return 1;
			}
			*eq = '\0';
			if (parse_class(eq + 1, &o.class[o.nr_classes])) {
				fprintf(stderr, "%s: bad class '%s' (spread, balanced, pack or none)\n",
					prog, eq + 1);
				return 1;
			}
			o.cg[o.nr_classes++] = optarg;
			break;
		case 'x':
			if (parse_cpulist(optarg, excluded)) {
				fprintf(stderr, "%s: bad -x '%s' (a CPU list: 8 or 0-3,8)\n",
					prog, optarg);
				return 1;
			}
			break;
		case 'd':
			dir = optarg;
			break;
		case 'i':
			o.interval = atoi(optarg);
			break;
		case 'v':
			verbose = true;
			break;
		default:
			fprintf(stderr, usage_fmt, prog, prog, prog, prog);
			return opt != 'h';
		}
	}
	if (optind < argc)
		return control(prog, dir, argc - optind, argv + optind);
	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);
	return run(prog, dir, &o);
}
