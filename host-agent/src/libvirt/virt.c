// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * virt.c - the one place that talks to libvirt.
 *
 * Reads the host topology, the running domains (tags, pins, saved
 * originals), vCPU statistics; writes vCPU/emulator pins and vcpack's
 * metadata. libvirt's default error printer is silenced; every failure
 * becomes -errno plus a message the caller reports once.
 *
 * What concerns a running VM (its pins, vcpack's records of its original
 * pins and of its host) is read and written live only
 * (VIR_DOMAIN_AFFECT_LIVE), never VIR_DOMAIN_AFFECT_CURRENT: a VM that
 * stops between our read and our write (a destroy waits for no one, and
 * our call then waits for its job) would otherwise have the write land in
 * its persistent definition, and start next time pinned as we pinned it,
 * with a record that is not true of it. Live only, such a call fails as
 * "domain is not running": -ENOENT, the VM is gone. The test driver's
 * vCPU pinning takes no flags (0, CURRENT), and pins running domains only.
 */
#include "virt.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "clock.h"
#include "errmsg.h"
#include "placers.h"
#include "rdfile.h"
#include "sysfile.h"
#include "topology.h"

struct vcp_virt {
	virConnectPtr conn;
	struct vcp_virt_watch watch;
	int cb_ids[3];
	int n_cb;
	bool close_cb;
	char *uri;
	char *hostname;
	char driver[32];
	bool local;
};

static void quiet_error(void *opaque, virErrorPtr err)
{
}

/* Sort libvirt's last error into an errno (see virt.h). */
static int last_errno(void)
{
	virErrorPtr e = virGetLastError();

	if (!e)
		return -EIO;
	/* The client's own transport: "End of file while reading data",
	 * "Cannot recv data", "client socket is closed" (libvirtd stopped or
	 * restarted, a keepalive timeout). Errors of the daemon's drivers
	 * come back with their own domain. */
	if (e->domain == VIR_FROM_RPC && (e->code == VIR_ERR_SYSTEM_ERROR ||
					  e->code == VIR_ERR_INTERNAL_ERROR))
		return -ENOTCONN;
	switch (e->code) {
	case VIR_ERR_NO_DOMAIN:
	case VIR_ERR_NO_DOMAIN_METADATA:
		return -ENOENT;
	case VIR_ERR_OPERATION_TIMEOUT:
	case VIR_ERR_AGENT_UNRESPONSIVE:
	case VIR_ERR_RPC:
		return -EAGAIN;
	case VIR_ERR_NO_SUPPORT:
	case VIR_ERR_ARGUMENT_UNSUPPORTED:
		return -ENOTSUP;
	case VIR_ERR_OPERATION_DENIED:
	case VIR_ERR_AUTH_FAILED:
	case VIR_ERR_AUTH_CANCELLED:
		return -EPERM;
	case VIR_ERR_OPERATION_INVALID:
		/* "domain is not running": it went away under us */
		return -ENOENT;
	case VIR_ERR_INVALID_ARG:
		return -EINVAL;
	default:
		return -EIO;
	}
}

static char *vfmt(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

/* "<context>: <libvirt's message>"; returns the errno to hand back. */
static int fail(char **ret_err, const char *fmt, ...)
{
	int r = last_errno();
	const char *msg = virGetLastErrorMessage();
	char *ctx;
	va_list ap;

	va_start(ap, fmt);
	ctx = vfmt(fmt, ap);
	va_end(ap);
	if (ret_err) {
		free(*ret_err);
		*ret_err = NULL;
		if (asprintf(ret_err, "%s: %s", ctx ? ctx : "libvirt",
			     msg ? msg : "unknown error") < 0)
			*ret_err = NULL;
	}
	free(ctx);
	virResetLastError();
	return r;
}

static int set_err(char **ret_err, int r, const char *fmt, ...)
{
	va_list ap;

	if (ret_err) {
		free(*ret_err);
		va_start(ap, fmt);
		*ret_err = vfmt(fmt, ap);
		va_end(ap);
	}
	return r;
}

void vcp_vm_issues_free(struct vcp_vm_issue *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++) {
		free(v[i].vm);
		free(v[i].msg);
	}
	free(v);
}

/* ---- libvirt's event loop on a thread of its own ---- */

static bool events_run;
static pthread_once_t events_once = PTHREAD_ONCE_INIT;

static void *run_events(void *unused)
{
	for (;;)
		if (virEventRunDefaultImpl() < 0)
			virResetLastError();
	return NULL;
}

static void start_events(void)
{
	pthread_t t;
	sigset_t all, old;

	if (virEventRegisterDefaultImpl() < 0) {
		virResetLastError();
		return;
	}
	/* signals stay the main thread's */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	events_run = pthread_create(&t, NULL, run_events, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (events_run)
		pthread_detach(t);
}

int vcp_virt_event_thread(void)
{
	pthread_once(&events_once, start_events);
	return events_run ? 0 : -ENOTSUP;
}

int vcp_virt_open(const char *uri, bool readonly, struct vcp_virt **ret,
		  char **ret_err)
{
	struct vcp_virt *v;
	const char *type;
	char *u;

	virSetErrorFunc(NULL, quiet_error);
	if (virInitialize() < 0)
		return fail(ret_err, "Failed to initialise libvirt");
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->conn = readonly ? virConnectOpenReadOnly(uri) : virConnectOpen(uri);
	if (!v->conn) {
		free(v);
		return fail(ret_err, "Failed to connect to '%s'",
			    uri ? uri : "default URI");
	}
	virConnSetErrorFunc(v->conn, NULL, quiet_error);
	/* every call bounded: libvirtd that stops answering is given up */
	if (events_run && virConnectSetKeepAlive(v->conn, VCP_VIRT_KEEPALIVE_S,
						 VCP_VIRT_KEEPALIVE_COUNT) < 0)
		virResetLastError();
	u = virConnectGetURI(v->conn);
	v->uri = u ? u : strdup(uri ? uri : "");
	v->hostname = virConnectGetHostname(v->conn);
	type = virConnectGetType(v->conn);
	snprintf(v->driver, sizeof(v->driver), "%s", type ? type : "?");
	/* no host part: this machine (qemu:///system, qemu+unix:///...) */
	v->local = strstr(v->uri, ":///") != NULL;
	virResetLastError();
	*ret = v;
	return 0;
}

static void unwatch(struct vcp_virt *v);

void vcp_virt_close(struct vcp_virt *v)
{
	if (!v)
		return;
	unwatch(v);
	if (v->conn)
		virConnectClose(v->conn);
	free(v->uri);
	free(v->hostname);
	free(v);
}

const char *vcp_uri_not_here(const char *uri)
{
	const char *h = uri ? strstr(uri, "://") : NULL;

	if (uri && (strncmp(uri, "test:", 5) == 0 || strncmp(uri, "test+", 5) == 0))
		return "libvirt's test driver is a simulated host";
	if (h && h[3] != '/' && h[3] != '\0')
		return "a remote host";
	return NULL;
}

const char *vcp_virt_uri(const struct vcp_virt *v)
{
	return v->uri;
}

const char *vcp_virt_driver(const struct vcp_virt *v)
{
	return v->driver;
}

bool vcp_virt_is_test_driver(const struct vcp_virt *v)
{
	return strcmp(v->driver, "TEST") == 0 || strcmp(v->driver, "Test") == 0;
}

const char *vcp_virt_hostname(const struct vcp_virt *v)
{
	return v->hostname ? v->hostname : "?";
}

int vcp_virt_host(struct vcp_virt *v, struct vcp_host **ret, char **ret_err)
{
	virNodeInfo info;
	char *caps = virConnectGetCapabilities(v->conn);
	int r;

	if (!caps)
		return fail(ret_err, "Failed to read the host capabilities of '%s'",
			    v->uri);
	r = vcp_topology_from_caps(caps, ret, ret_err);
	free(caps);
	if (r != -ENODATA)
		return r;
	if (virNodeGetInfo(v->conn, &info) < 0)
		return fail(ret_err, "Failed to read node info of '%s'", v->uri);
	return vcp_topology_from_nodeinfo(info.nodes, info.sockets, info.cores,
					  info.threads, ret, ret_err);
}

int vcp_virt_host_memory(struct vcp_virt *v, unsigned long long *ret_kib,
			 char **ret_err)
{
	virNodeInfo info;

	if (virNodeGetInfo(v->conn, &info) < 0)
		return fail(ret_err, "Failed to read node info of '%s'", v->uri);
	*ret_kib = info.memory;
	return 0;
}

int vcp_virt_node_suspend(struct vcp_virt *v, unsigned long long seconds,
			  char **ret_err)
{
	if (virNodeSuspendForDuration(v->conn, VIR_NODE_SUSPEND_TARGET_MEM,
				      seconds, 0) < 0) {
		int r = fail(ret_err, "Failed to suspend '%s'", v->uri);

		return r == -EIO ? -ENOTSUP : r;
	}
	return 0;
}

int vcp_virt_count_running(struct vcp_virt *v, unsigned int *ret_n,
			   char **ret_err)
{
	int n = virConnectNumOfDomains(v->conn);

	if (n < 0)
		return fail(ret_err, "Failed to count the domains of '%s'",
			    v->uri);
	*ret_n = (unsigned int)n;
	return 0;
}

char *vcp_virt_capabilities(struct vcp_virt *v)
{
	char *caps = virConnectGetCapabilities(v->conn);

	virResetLastError();
	return caps;
}

int vcp_virt_cpu_runs_here(struct vcp_virt *v, const char *cpu_xml,
			   bool *ret_ok, char **ret_err)
{
	int r = virConnectCompareCPU(v->conn, cpu_xml, 0);

	if (r == VIR_CPU_COMPARE_ERROR)
		return fail(ret_err, "Failed to compare a CPU with the host CPU of '%s'",
			    v->uri);
	*ret_ok = r == VIR_CPU_COMPARE_IDENTICAL ||
		  r == VIR_CPU_COMPARE_SUPERSET;
	return 0;
}

/* ---- domains ---- */

/* Flags for a write that concerns a running VM only (see the top). */
static unsigned int live_only(const struct vcp_virt *v, bool vcpu_pin)
{
	if (vcpu_pin && vcp_virt_is_test_driver(v))
		return VIR_DOMAIN_AFFECT_CURRENT;
	return VIR_DOMAIN_AFFECT_LIVE;
}

/*
 * The bytes of a cpumap for a host of @max_cpus: no more than a set holds
 * (VCP_MAX_CPUS, libvirt's own limit, whose RPC carries 2,048 bytes a
 * cpumap), so a wider host's pins are read and written too.
 */
static int cpumap_len(unsigned int max_cpus)
{
	return VIR_CPU_MAPLEN(
		(int)(max_cpus < VCP_MAX_CPUS ? max_cpus : VCP_MAX_CPUS));
}

static int read_pins(virDomainPtr dom, struct vcp_vm *vm, unsigned int maxcpus,
		     char **ret_err)
{
	int maplen = cpumap_len(maxcpus);
	unsigned char *maps = calloc(vm->n_vcpus ? vm->n_vcpus : 1,
				     (size_t)maplen);
	int n;

	if (!maps)
		return -ENOMEM;
	n = virDomainGetVcpuPinInfo(dom, (int)vm->n_vcpus, maps, maplen,
				    VIR_DOMAIN_AFFECT_LIVE);
	if (n < 0) {
		free(maps);
		return fail(ret_err, "Failed to read vCPU pins of '%s'",
			    vm->name);
	}
	for (int i = 0; i < n && (unsigned int)i < vm->n_vcpus; i++)
		vcp_cpuset_from_map(&vm->vcpu_pins[i],
				    maps + (size_t)i * (size_t)maplen,
				    (size_t)maplen);
	n = virDomainGetEmulatorPinInfo(dom, maps, maplen,
					VIR_DOMAIN_AFFECT_LIVE);
	if (n < 0) {
		free(maps);
		return fail(ret_err, "Failed to read emulator pins of '%s'",
			    vm->name);
	}
	vcp_cpuset_from_map(&vm->emulator_pins, maps, (size_t)maplen);
	free(maps);
	return 0;
}

/* Of a running VM: live (a VM that stopped meanwhile has none). */
/* @flags: VIR_DOMAIN_AFFECT_LIVE (running), _CONFIG (shut off) */
static char *get_meta_of(virDomainPtr dom, const char *ns, unsigned int flags)
{
	char *s = virDomainGetMetadata(dom, VIR_DOMAIN_METADATA_ELEMENT, ns,
				       flags);

	if (!s)
		virResetLastError();
	return s;
}

static char *get_meta(virDomainPtr dom, const char *ns)
{
	char *s = virDomainGetMetadata(dom, VIR_DOMAIN_METADATA_ELEMENT, ns,
				       VIR_DOMAIN_AFFECT_LIVE);

	if (!s)
		virResetLastError();
	return s;
}

static int add_issue(struct vcp_vm_issue **issues, size_t *n,
		     const char *vm, const char *msg)
{
	struct vcp_vm_issue *t = realloc(*issues, (*n + 1) * sizeof(**issues));

	if (!t)
		return -ENOMEM;
	*issues = t;
	t[*n].vm = strdup(vm);
	t[*n].msg = strdup(msg ? msg : "unknown error");
	(*n)++;
	return 0;
}

/* The QEMU pid from libvirt's runtime state, for a local QEMU driver. */
static int qemu_pid(const struct vcp_virt *v, const char *name)
{
	char path[512];
	const char *rt = getenv("XDG_RUNTIME_DIR");
	char buf[32];
	uint64_t n;

	if (!v->local || strcmp(v->driver, "QEMU") != 0)
		return 0;
	if (strstr(v->uri, "/system"))
		snprintf(path, sizeof(path), "/run/libvirt/qemu/%s.pid", name);
	else if (rt)
		snprintf(path, sizeof(path), "%s/libvirt/qemu/run/%s.pid", rt,
			 name);
	else
		return 0;
	if (vcp_read_line(path, buf, sizeof(buf)) < 0 ||
	    vcp_parse_u64(buf, &n) < 0 || n == 0 || n > INT_MAX)
		return 0;
	return (int)n;
}

/* A bad or absent host record is simply not there: it is ours, and the
 * next vcpackd pass rewrites it. */
static void read_host_rec(virDomainPtr dom, struct vcp_vm *vm)
{
	char *xml = get_meta(dom, VCP_HOST_NS), *err = NULL;
	struct vcp_host_rec h;

	if (xml && vcp_host_rec_parse(xml, &h, &err) == 0) {
		vm->has_host_rec = true;
		vm->host_rec_mode = h.mode;
		vm->host_rec_level = h.level;
		vm->host_rec_at = h.at;
	}
	free(err);
	free(xml);
}

/*
 * The tag as the hook judges it: from the whole domain XML (libvirt's
 * metadata call returns only the first element of a namespace), read
 * only for VMs that have one.
 */
static int parse_tag(virDomainPtr dom, const char *meta, struct vcp_tag *ret,
		     char **ret_err)
{
	char *xml = virDomainGetXMLDesc(dom, 0);
	int r;

	if (!xml) {
		virResetLastError();
		return vcp_tag_parse(meta, ret, ret_err);
	}
	r = vcp_tag_from_domain_xml(xml, ret, ret_err);
	free(xml);
	return r;
}

static void read_tag(virDomainPtr dom, struct vcp_vm *vm,
		     struct vcp_vm_issue **issues, size_t *n_issues)
{
	char *xml = get_meta_of(dom, VCP_TAG_NS, vm->running ?
				VIR_DOMAIN_AFFECT_LIVE : VIR_DOMAIN_AFFECT_CONFIG);
	char *err = NULL;
	int r;

	vm->managed = true;
	if (!xml)
		return;
	r = parse_tag(dom, xml, &vm->tag, &err);
	if (r == -ENOENT) { /* the tag went between the two reads */
		free(xml);
		return;
	}
	if (r < 0) {
		char *msg = NULL;

		vm->managed = false;
		if (asprintf(&msg, "bad vcpack tag, VM left untouched: %s",
			     err ? err : "invalid") < 0)
			msg = NULL;
		add_issue(issues, n_issues, vm->name, msg);
		free(msg);
	} else {
		vm->has_tag = true;
		if (vm->tag.unmanaged) {
			vm->managed = false;
			vm->unmanaged_why = "its tag says class unmanaged: vcpack never changes it";
		}
	}
	free(err);
	free(xml);
}

/*
 * A VM its own XML pins (vcpupin, emulatorpin, <vcpu cpuset>) and that
 * carries no vcpack tag was placed by hand: left as it is. The XML is its
 * definition (vcpack pins live only, so its pins never show there), or,
 * for a transient VM, the live XML of one vcpack never changed.
 */
static void read_own_pins(virDomainPtr dom, struct vcp_vm *vm)
{
	const char *what = NULL;
	char *xml;

	if (!vm->managed || vm->has_tag || vm->has_saved)
		return;
	xml = virDomainGetXMLDesc(dom, vm->persistent ?
				  VIR_DOMAIN_XML_INACTIVE : 0);
	if (!xml) {
		virResetLastError();
		return;
	}
	if (vcp_domxml_own_pins(xml, &what) == 1) {
		vm->managed = false;
		vm->unmanaged_why = strcmp(what, "vcpupin") == 0 ?
			"its own XML pins it (vcpupin) and it has no vcpack tag: left as it is; tag it to let vcpack place it" :
			strcmp(what, "emulatorpin") == 0 ?
			"its own XML pins it (emulatorpin) and it has no vcpack tag: left as it is; tag it to let vcpack place it" :
			"its own XML pins it (<vcpu cpuset>) and it has no vcpack tag: left as it is; tag it to let vcpack place it";
	}
	free(xml);
}

/* <vcpu placement='auto'>, <numatune>: libvirt (and numad) place it;
 * its memory mode and nodeset as running. */
static void read_placement(virDomainPtr dom, struct vcp_vm *vm)
{
	char *xml = virDomainGetXMLDesc(dom, 0);

	if (xml && vcp_domxml_placement(xml, &vm->placement_auto,
					&vm->numatune) < 0)
		vm->placement_auto = vm->numatune = false;
	if (xml && vcp_domxml_numatune(xml, &vm->mem_mode, &vm->mem_nodes,
				       &vm->mem_auto) < 0)
		vm->mem_mode = VCP_MEM_NONE;
	free(xml);
}

/* @s as one shell word: as it is when it holds only characters no
 * shell treats specially, else in single quotes ('it'\''s'). malloc'd. */
static char *sh_word(const char *s)
{
	size_t n = strlen(s), q = 0;
	char *r, *p;

	if (n &&
	    strspn(s,
		   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.,:+-=@%/") ==
		    n)
		return strdup(s);
	for (size_t i = 0; i < n; i++)
		q += s[i] == '\'';
	r = malloc(n + 3 * q + 3);
	if (!r)
		return NULL;
	p = r;
	*p++ = '\'';
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = s[i];
		}
	}
	*p++ = '\'';
	*p = '\0';
	return r;
}

/*
 * A record that cannot be read holds the only copy of the VM's original
 * pins: the VM is left exactly as it is (re-pinning it would lose them
 * for good, as apply records only a VM without one) and reported each
 * pass until the operator fixes the record or drops it.
 */
static void saved_unreadable(struct vcp_vm *vm, const char *err,
			     struct vcp_vm_issue **issues, size_t *n_issues)
{
	char *word = sh_word(vm->name), *msg = NULL;

	vm->saved_unreadable = true;
	vm->managed = false;
	vm->unmanaged_why =
		"its vcpack record of its original pins (urn:vcpack:state:1) is unreadable: left as it is until the record is fixed or dropped ('vcpack restore --forget DOMAIN')";
	if (asprintf(
		    &msg,
		    "its vcpack record of its original pins is unreadable (%s), VM left untouched until the record is fixed or dropped: 'vcpack restore --forget %s' drops it and leaves its pins as they are",
		    err ? err : "invalid", word ? word : vm->name) < 0)
		msg = NULL;
	add_issue(issues, n_issues, vm->name, msg);
	free(msg);
	free(word);
}

/* Is there a record, can it be read, and does it hold the original
 * memory nodeset? */
static void read_saved(virDomainPtr dom, struct vcp_vm *vm,
		       struct vcp_vm_issue **issues, size_t *n_issues)
{
	char *saved = get_meta(dom, VCP_STATE_NS), *err = NULL;
	struct vcp_saved_pins s = { 0 };
	int r;

	vm->has_saved = saved != NULL;
	if (!saved)
		return;
	r = vcp_saved_pins_parse(saved, &s, &err);
	if (r == -EINVAL) {
		saved_unreadable(vm, err, issues, n_issues);
	} else if (r == 0) {
		vm->has_saved_mem = s.has_memory;
		if (s.n_vcpus == vm->n_vcpus) {
			vm->orig_pins = s.vcpu;	/* taken over */
			s.vcpu = NULL;
			s.n_vcpus = 0;
			vm->orig_emulator = s.emulator;
			vm->has_orig_emulator = s.has_emulator;
		}
	}
	vcp_saved_pins_clear(&s);
	free(err);
	free(saved);
}

/* What a domain says of itself, running or not: name, UUID, vCPUs and
 * memory. */
static int read_identity(virDomainPtr dom, struct vcp_vm *vm, char **ret_err)
{
	virDomainInfo info;
	int r;

	vm->name = strdup(virDomainGetName(dom));
	if (!vm->name)
		return -ENOMEM;
	if (virDomainGetUUIDString(dom, vm->uuid) < 0)
		vm->uuid[0] = '\0';
	if (virDomainGetInfo(dom, &info) < 0)
		return fail(ret_err, "Failed to read '%s'", vm->name);
	r = vcp_vm_alloc_vcpus(vm, info.nrVirtCpu);
	if (r < 0)
		return r;
	vm->mem_kib = info.memory;
	vm->mem_node = -1;
	return 0;
}

static int read_vm(struct vcp_virt *v, virDomainPtr dom,
		   const struct vcp_host *host, struct vcp_vm *vm,
		   struct vcp_vm_issue **issues, size_t *n_issues,
		   char **ret_err)
{
	int r = read_identity(dom, vm, ret_err);

	if (r < 0)
		return r;
	vm->running = true;
	vm->persistent = virDomainIsPersistent(dom) == 1;
	r = read_pins(dom, vm, host->max_cpus, ret_err);
	if (r < 0)
		return r;
	read_tag(dom, vm, issues, n_issues);
	read_saved(dom, vm, issues, n_issues);
	read_own_pins(dom, vm);
	read_host_rec(dom, vm);
	read_placement(dom, vm);
	vm->pid = qemu_pid(v, vm->name);
	virResetLastError();
	return 0;
}

static int cmp_vm_name(const void *a, const void *b)
{
	const struct vcp_vm *x = a, *y = b;

	return strcmp(x->name, y->name);
}

int vcp_virt_list_vms(struct vcp_virt *v, const struct vcp_host *host,
		      struct vcp_vm **ret_vms, size_t *ret_n,
		      struct vcp_vm_issue **ret_issues, size_t *ret_n_issues,
		      char **ret_err)
{
	virDomainPtr *doms = NULL;
	struct vcp_vm *vms;
	struct vcp_vm_issue *issues = NULL;
	size_t n = 0, n_issues = 0;
	int nd, r = 0;

	nd = virConnectListAllDomains(v->conn, &doms,
				      VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	if (nd < 0)
		return fail(ret_err, "Failed to list the domains of '%s'",
			    v->uri);
	vms = calloc((size_t)nd + 1, sizeof(*vms));
	if (!vms)
		r = -ENOMEM;
	for (int i = 0; r == 0 && i < nd; i++) {
		char *err = NULL;
		int q = read_vm(v, doms[i], host, &vms[n], &issues, &n_issues,
				&err);

		if (q == 0) {
			n++;
		} else if (q == -ENOENT) {
			/* gone between list and read: not ours to report */
			vcp_vm_clear(&vms[n]);
		} else if (q == -ENOMEM) {
			r = q;
		} else if (q == -ENOTCONN) {
			/* no VM can be read any more: the pass is over */
			r = q;
			vcp_vm_clear(&vms[n]);
			if (ret_err) {
				free(*ret_err);
				*ret_err = err;
				err = NULL;
			}
		} else {
			add_issue(&issues, &n_issues,
				  vms[n].name ? vms[n].name : "?", err);
			vcp_vm_clear(&vms[n]);
		}
		free(err);
	}
	for (int i = 0; i < nd; i++)
		virDomainFree(doms[i]);
	free(doms);
	if (r < 0) {
		vcp_vms_free(vms, n);
		vcp_vm_issues_free(issues, n_issues);
		return r;
	}
	qsort(vms, n, sizeof(*vms), cmp_vm_name);
	*ret_vms = vms;
	*ret_n = n;
	*ret_issues = issues;
	*ret_n_issues = n_issues;
	return 0;
}

/* A shut-off domain: its name, UUID, vCPUs and tag (as defined). */
static int read_inactive(virDomainPtr dom, struct vcp_vm *vm,
			 struct vcp_vm_issue **issues, size_t *n_issues,
			 char **ret_err)
{
	int r = read_identity(dom, vm, ret_err);

	if (r < 0)
		return r;
	vm->persistent = true;
	read_tag(dom, vm, issues, n_issues);
	virResetLastError();
	return 0;
}

int vcp_virt_list_inactive(struct vcp_virt *v, struct vcp_vm **ret_vms,
			   size_t *ret_n, struct vcp_vm_issue **ret_issues,
			   size_t *ret_n_issues, char **ret_err)
{
	virDomainPtr *doms = NULL;
	struct vcp_vm *vms;
	struct vcp_vm_issue *issues = NULL;
	size_t n = 0, n_issues = 0;
	int nd, r = 0;

	nd = virConnectListAllDomains(v->conn, &doms,
				      VIR_CONNECT_LIST_DOMAINS_INACTIVE);
	if (nd < 0)
		return fail(ret_err, "Failed to list the domains of '%s'",
			    v->uri);
	vms = calloc((size_t)nd + 1, sizeof(*vms));
	if (!vms)
		r = -ENOMEM;
	for (int i = 0; r == 0 && i < nd; i++) {
		int q = read_inactive(doms[i], &vms[n], &issues, &n_issues,
				      NULL);

		if (q == 0)
			n++;
		else if (q == -ENOMEM)
			r = q;
		else	/* gone or unreadable: not listed */
			vcp_vm_clear(&vms[n]);
	}
	for (int i = 0; i < nd; i++)
		virDomainFree(doms[i]);
	free(doms);
	if (r < 0) {
		vcp_vms_free(vms, n);
		vcp_vm_issues_free(issues, n_issues);
		return r;
	}
	qsort(vms, n, sizeof(*vms), cmp_vm_name);
	*ret_vms = vms;
	*ret_n = n;
	*ret_issues = issues;
	*ret_n_issues = n_issues;
	return 0;
}

/* ---- statistics ---- */

void vcp_sample_free(struct vcp_sample *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_vms; i++) {
		free(s->vms[i].name);
		free(s->vms[i].time_ns);
		free(s->vms[i].delay_ns);
	}
	free(s->vms);
	free(s);
}

static void take_param(struct vcp_vcpu_sample *vs, const virTypedParameter *p,
		       bool *have_time)
{
	unsigned int idx;
	char what[16];

	if (sscanf(p->field, "vcpu.%u.%15s", &idx, what) != 2 ||
	    idx >= vs->n_vcpus || p->type != VIR_TYPED_PARAM_ULLONG)
		return;
	if (strcmp(what, "time") == 0) {
		vs->time_ns[idx] = p->value.ul;
		*have_time = true;
	} else if (strcmp(what, "delay") == 0) {
		vs->delay_ns[idx] = p->value.ul;
	}
}

static int fill_sample(struct vcp_vcpu_sample *vs, virDomainStatsRecordPtr rec,
		       bool *have_time)
{
	unsigned int n = 0;

	for (int j = 0; j < rec->nparams; j++)
		if (strcmp(rec->params[j].field, "vcpu.current") == 0)
			n = rec->params[j].value.ui;
	vs->name = strdup(virDomainGetName(rec->dom));
	vs->n_vcpus = n;
	vs->time_ns = calloc(n ? n : 1, sizeof(uint64_t));
	vs->delay_ns = calloc(n ? n : 1, sizeof(uint64_t));
	if (!vs->name || !vs->time_ns || !vs->delay_ns)
		return -ENOMEM;
	for (int j = 0; j < rec->nparams; j++)
		take_param(vs, &rec->params[j], have_time);
	return 0;
}

int vcp_virt_sample(struct vcp_virt *v, struct vcp_sample **ret,
		    char **ret_err)
{
	virDomainStatsRecordPtr *recs = NULL;
	struct vcp_sample *s;
	int n, r = 0;

	n = virConnectGetAllDomainStats(v->conn, VIR_DOMAIN_STATS_VCPU, &recs,
					VIR_CONNECT_GET_ALL_DOMAINS_STATS_ACTIVE);
	if (n < 0)
		return fail(ret_err, "Failed to read domain statistics of '%s'",
			    v->uri);
	s = calloc(1, sizeof(*s));
	if (!s) {
		virDomainStatsRecordListFree(recs);
		return -ENOMEM;
	}
	s->vms = calloc((size_t)n + 1, sizeof(*s->vms));
	if (!s->vms)
		r = -ENOMEM;
	s->at_ns = vcp_mono_ns();
	for (int i = 0; r == 0 && i < n; i++, s->n_vms++)
		r = fill_sample(&s->vms[i], recs[i], &s->have_vcpu_time);
	virDomainStatsRecordListFree(recs);
	if (r < 0) {
		vcp_sample_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

/* ---- writes ---- */

static virDomainPtr lookup(struct vcp_virt *v, const char *name,
			   char **ret_err, int *ret_r)
{
	virDomainPtr d = virDomainLookupByName(v->conn, name);

	if (!d)
		*ret_r = fail(ret_err, "Failed to find domain '%s'", name);
	return d;
}

static int pin(struct vcp_virt *v, const char *name, int vcpu,
	       const struct vcp_cpuset *set, unsigned int max_cpus,
	       char **ret_err)
{
	int maplen = cpumap_len(max_cpus);
	unsigned char *map = calloc(1, (size_t)maplen);
	virDomainPtr d;
	int r = 0;

	if (!map)
		return -ENOMEM;
	if (vcp_cpuset_empty(set)) {
		free(map);
		return set_err(ret_err, -EINVAL, "Refusing an empty cpuset for '%s'",
			       name);
	}
	vcp_cpuset_to_map(set, map, (size_t)maplen);
	d = lookup(v, name, ret_err, &r);
	if (d && vcpu >= 0 &&
	    virDomainPinVcpuFlags(d, (unsigned int)vcpu, map, maplen,
				  live_only(v, true)) < 0)
		r = fail(ret_err, "Failed to pin vCPU %d of '%s'", vcpu, name);
	if (d && vcpu < 0 &&
	    virDomainPinEmulator(d, map, maplen, live_only(v, false)) < 0)
		r = fail(ret_err, "Failed to pin the emulator threads of '%s'",
			 name);
	if (d)
		virDomainFree(d);
	free(map);
	return r;
}

int vcp_virt_pin_vcpu(struct vcp_virt *v, const char *name,
		      unsigned int vcpu, const struct vcp_cpuset *set,
		      unsigned int max_cpus, char **ret_err)
{
	return pin(v, name, (int)vcpu, set, max_cpus, ret_err);
}

int vcp_virt_pin_emulator(struct vcp_virt *v, const char *name,
			  const struct vcp_cpuset *set, unsigned int max_cpus,
			  char **ret_err)
{
	return pin(v, name, -1, set, max_cpus, ret_err);
}

int vcp_virt_set_mem_nodes(struct vcp_virt *v, const char *name,
			   const struct vcp_cpuset *nodes, char **ret_err)
{
	virTypedParameterPtr params = NULL;
	int n = 0, max = 0, r = 0;
	char buf[1024];
	virDomainPtr d;

	if (vcp_cpuset_empty(nodes) ||
	    vcp_cpuset_format(nodes, buf, sizeof(buf)) < 0)
		return set_err(ret_err, -EINVAL, "No memory nodes to give '%s'",
			       name);
	d = lookup(v, name, ret_err, &r);
	if (!d)
		return r;
	if (virTypedParamsAddString(&params, &n, &max, VIR_DOMAIN_NUMA_NODESET,
				    buf) < 0) {
		r = -ENOMEM;
	} else if (virDomainSetNumaParameters(d, params, n,
					      VIR_DOMAIN_AFFECT_LIVE) < 0) {
		r = fail(ret_err,
			 "Failed to move the memory of '%s' to node %s", name,
			 buf);
		/* "requires strict or restrictive numa mode", "cgroup cpuset
		 * controller is required": refused, though it still runs */
		if (r == -ENOENT && virDomainIsActive(d) == 1)
			r = -ENOTSUP;
		if (r == -EIO || r == -EINVAL)
			r = -ENOTSUP;
	}
	virTypedParamsFree(params, n);
	virDomainFree(d);
	return r;
}

/* @persistent_too: the owner's tag, live and persistent where the VM is
 * both, else as it is; otherwise one of our records of a running VM:
 * live only. */
static int set_meta(struct vcp_virt *v, const char *name, const char *xml,
		    const char *key, const char *ns, bool persistent_too,
		    char **ret_err)
{
	unsigned int flags = VIR_DOMAIN_AFFECT_LIVE;
	virDomainPtr d;
	int r = 0;

	d = lookup(v, name, ret_err, &r);
	if (!d)
		return r;
	if (persistent_too)
		flags = virDomainIsActive(d) == 1 && virDomainIsPersistent(d) == 1 ?
			VIR_DOMAIN_AFFECT_LIVE | VIR_DOMAIN_AFFECT_CONFIG :
			VIR_DOMAIN_AFFECT_CURRENT;
	if (virDomainSetMetadata(d, VIR_DOMAIN_METADATA_ELEMENT, xml,
				 xml ? key : NULL, ns, flags) < 0)
		r = fail(ret_err, "Failed to write the %s metadata of '%s'",
			 ns, name);
	virDomainFree(d);
	return r;
}

static int get_meta_named(struct vcp_virt *v, const char *name,
			  const char *ns, unsigned int flags, char **ret_xml,
			  char **ret_err)
{
	virDomainPtr d;
	char *s;
	int r = 0;

	d = lookup(v, name, ret_err, &r);
	if (!d)
		return r;
	s = virDomainGetMetadata(d, VIR_DOMAIN_METADATA_ELEMENT, ns, flags);
	if (!s) {
		r = last_errno();
		if (r != -ENOENT)
			r = fail(ret_err, "Failed to read the %s metadata of '%s'",
				 ns, name);
		virResetLastError();
	}
	virDomainFree(d);
	if (s)
		*ret_xml = s;
	return r;
}

int vcp_virt_get_saved(struct vcp_virt *v, const char *name,
		       struct vcp_saved_pins *ret, char **ret_err)
{
	char *xml = NULL;
	char *err = NULL;
	int r = get_meta_named(v, name, VCP_STATE_NS, VIR_DOMAIN_AFFECT_LIVE,
			       &xml, ret_err);

	if (r < 0)
		return r;
	r = vcp_saved_pins_parse(xml, ret, &err);
	if (r == -EINVAL) {
		char *word = sh_word(name);

		set_err(ret_err, r,
			"The saved original pins of '%s' are unreadable: %s; the record is kept ('vcpack restore --forget %s' drops it and leaves the pins as they are)",
			name, err ? err : "invalid", word ? word : name);
		free(word);
	} else if (r < 0) {
		set_err(ret_err, r,
			"The saved original pins of '%s' are unreadable: %s",
			name, err ? err : strerror(-r));
	}
	free(err);
	free(xml);
	return r;
}

int vcp_virt_set_saved(struct vcp_virt *v, const char *name,
		       const struct vcp_saved_pins *s, char **ret_err)
{
	char *xml = vcp_saved_pins_format(s);
	int r;

	if (!xml && errno == EFBIG)
		return set_err(
			ret_err, -EFBIG,
			"The original pins of '%s' would take a record over the %u bytes vcpack reads back; left as it is",
			name, VCP_STATE_MAX_BYTES);
	if (!xml)
		return -ENOMEM;
	r = set_meta(v, name, xml, VCP_STATE_KEY, VCP_STATE_NS, false, ret_err);
	free(xml);
	return r;
}

int vcp_virt_clear_saved(struct vcp_virt *v, const char *name,
			 char **ret_err)
{
	return set_meta(v, name, NULL, VCP_STATE_KEY, VCP_STATE_NS, false,
			ret_err);
}

int vcp_virt_set_host_rec(struct vcp_virt *v, const char *name,
			  const struct vcp_host_rec *h, char **ret_err)
{
	char *xml = vcp_host_rec_format(h);
	int r;

	if (!xml)
		return -EINVAL;
	r = set_meta(v, name, xml, VCP_HOST_KEY, VCP_HOST_NS, false, ret_err);
	free(xml);
	return r;
}

int vcp_virt_set_tag(struct vcp_virt *v, const char *name,
		     const struct vcp_tag *tag, char **ret_err)
{
	char *xml = vcp_tag_format(tag);
	int r;

	if (!xml)
		return -ENOMEM;
	r = set_meta(v, name, xml, VCP_TAG_KEY, VCP_TAG_NS, true, ret_err);
	free(xml);
	return r;
}

int vcp_virt_get_tag_xml(struct vcp_virt *v, const char *name,
			 char **ret_xml, char **ret_err)
{
	return get_meta_named(v, name, VCP_TAG_NS, VIR_DOMAIN_AFFECT_CURRENT,
			      ret_xml, ret_err);
}

/* ---- events ---- */

static enum vcp_virt_event lifecycle_kind(int event)
{
	switch (event) {
	case VIR_DOMAIN_EVENT_STARTED:
	case VIR_DOMAIN_EVENT_RESUMED:
		return VCP_EV_STARTED;
	case VIR_DOMAIN_EVENT_STOPPED:
	case VIR_DOMAIN_EVENT_CRASHED:
	case VIR_DOMAIN_EVENT_UNDEFINED:
		return VCP_EV_STOPPED;
	default:
		return VCP_EV_OTHER;
	}
}

static int on_lifecycle(virConnectPtr conn, virDomainPtr dom, int event,
			int detail, void *opaque)
{
	struct vcp_virt *v = opaque;

	v->watch.domain(v->watch.opaque, virDomainGetName(dom),
			lifecycle_kind(event));
	return 0;
}

static void on_metadata(virConnectPtr conn, virDomainPtr dom, int type,
			const char *nsuri, void *opaque)
{
	struct vcp_virt *v = opaque;

	/* only the owner's tag is news: not our own records, not other
	 * applications' metadata */
	if (nsuri && strcmp(nsuri, VCP_TAG_NS) != 0)
		return;
	v->watch.domain(v->watch.opaque, virDomainGetName(dom),
			VCP_EV_METADATA);
}

static void on_tunable(virConnectPtr conn, virDomainPtr dom,
		       virTypedParameterPtr params, int nparams, void *opaque)
{
	struct vcp_virt *v = opaque;
	bool pins = false;

	for (int i = 0; i < nparams; i++)
		if (strncmp(params[i].field, "cputune.vcpupin", 15) == 0 ||
		    strncmp(params[i].field, "cputune.emulatorpin", 19) == 0)
			pins = true;
	if (pins)
		v->watch.domain(v->watch.opaque, virDomainGetName(dom),
				VCP_EV_TUNABLE);
}

static void on_close(virConnectPtr conn, int reason, void *opaque)
{
	struct vcp_virt *v = opaque;

	if (v->watch.closed)
		v->watch.closed(v->watch.opaque);
}

static void unwatch(struct vcp_virt *v)
{
	for (int i = 0; i < v->n_cb; i++)
		virConnectDomainEventDeregisterAny(v->conn, v->cb_ids[i]);
	v->n_cb = 0;
	if (v->close_cb)
		virConnectUnregisterCloseCallback(v->conn, on_close);
	v->close_cb = false;
	virResetLastError();
}

int vcp_virt_watch(struct vcp_virt *v, const struct vcp_virt_watch *w,
		   char **ret_err)
{
	static const int ids[] = { VIR_DOMAIN_EVENT_ID_LIFECYCLE,
				   VIR_DOMAIN_EVENT_ID_METADATA_CHANGE,
				   VIR_DOMAIN_EVENT_ID_TUNABLE };
	virConnectDomainEventGenericCallback cbs[] = {
		VIR_DOMAIN_EVENT_CALLBACK(on_lifecycle),
		VIR_DOMAIN_EVENT_CALLBACK(on_metadata),
		VIR_DOMAIN_EVENT_CALLBACK(on_tunable),
	};

	unwatch(v);
	v->watch = *w;
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		int id = virConnectDomainEventRegisterAny(v->conn, NULL, ids[i],
							  cbs[i], v, NULL);

		if (id < 0) {
			int r = fail(ret_err, "Failed to register for domain events on '%s'",
				     v->uri);

			unwatch(v);
			return r;
		}
		v->cb_ids[v->n_cb++] = id;
	}
	if (virConnectRegisterCloseCallback(v->conn, on_close, v, NULL) == 0)
		v->close_cb = true;
	virResetLastError();
	return 0;
}

bool vcp_virt_alive(struct vcp_virt *v)
{
	int r = virConnectIsAlive(v->conn);

	virResetLastError();
	return r == 1;
}

int vcp_virt_keepalive(struct vcp_virt *v, int interval_s, unsigned int count)
{
	int r = virConnectSetKeepAlive(v->conn, interval_s, count);

	virResetLastError();
	return r < 0 ? -ENOTSUP : 0;
}

/* ---- live migration (the fleet) ---- */

/* The flags for @o, each with its name: one list for what is passed and
 * what is shown. */
static unsigned int migrate_flags(const struct vcp_migrate_opts *o,
				  const char **ret_names, size_t max,
				  size_t *ret_n)
{
	const struct { bool on; unsigned int flag; const char *name; } f[] = {
		{ true, VIR_MIGRATE_LIVE, "VIR_MIGRATE_LIVE" },
		{ true, VIR_MIGRATE_ABORT_ON_ERROR, "VIR_MIGRATE_ABORT_ON_ERROR" },
		{ o->p2p, VIR_MIGRATE_PEER2PEER, "VIR_MIGRATE_PEER2PEER" },
		{ o->tls, VIR_MIGRATE_TLS, "VIR_MIGRATE_TLS" },
		{ o->auto_converge, VIR_MIGRATE_AUTO_CONVERGE,
		  "VIR_MIGRATE_AUTO_CONVERGE" },
	};
	unsigned int flags = 0;
	size_t n = 0;

	for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
		if (!f[k].on)
			continue;
		flags |= f[k].flag;
		if (n < max)
			ret_names[n] = f[k].name;
		n++;
	}
	*ret_n = n;
	return flags;
}

size_t vcp_virt_migrate_flags(const struct vcp_migrate_opts *o,
			      const char **ret_names, size_t max)
{
	size_t n;

	migrate_flags(o, ret_names, max, &n);
	return n;
}

int vcp_virt_migrate(struct vcp_virt *src, struct vcp_virt *dst,
		     const char *name, const struct vcp_migrate_opts *o,
		     char **ret_err)
{
	virTypedParameterPtr params = NULL;
	int nparams = 0, maxp = 0, r = 0;
	size_t n_flags;
	unsigned int flags = migrate_flags(o, NULL, 0, &n_flags);
	char uri[300];
	virDomainPtr dom = lookup(src, name, ret_err, &r), moved = NULL;

	if (!dom)
		return r;
	if (virDomainIsPersistent(dom) == 1)
		flags |= VIR_MIGRATE_PERSIST_DEST | VIR_MIGRATE_UNDEFINE_SOURCE;
	/* an IPv6 address goes in brackets; the fleet file holds no
	 * address that does not fit (fleetcfg.c), and none is cut short */
	if (o->address && *o->address &&
	    snprintf(uri, sizeof(uri),
		     strchr(o->address, ':') ? "tcp://[%s]" : "tcp://%s",
		     o->address) >= (int)sizeof(uri))
		r = set_err(
			ret_err, -EINVAL,
			"Failed to migrate '%s': migration address '%.40s...' is too long",
			name, o->address);
	if (r == 0 && o->address && *o->address) {
		if (virTypedParamsAddString(&params, &nparams, &maxp,
					    VIR_MIGRATE_PARAM_URI, uri) < 0 ||
		    virTypedParamsAddString(&params, &nparams, &maxp,
					    VIR_MIGRATE_PARAM_LISTEN_ADDRESS,
					    o->address) < 0)
			r = -ENOMEM;
	}
	if (r == 0 && o->bandwidth_mib &&
	    virTypedParamsAddULLong(&params, &nparams, &maxp,
				    VIR_MIGRATE_PARAM_BANDWIDTH,
				    o->bandwidth_mib) < 0)
		r = -ENOMEM;
	if (r == 0 && o->p2p) {
		if (virDomainMigrateToURI3(dom, vcp_virt_uri(dst), params,
					   (unsigned int)nparams, flags) < 0)
			r = fail(ret_err, "Failed to migrate '%s' to '%s'", name,
				 vcp_virt_uri(dst));
	} else if (r == 0) {
		moved = virDomainMigrate3(dom, dst->conn, params,
					  (unsigned int)nparams, flags);
		if (!moved)
			r = fail(ret_err, "Failed to migrate '%s' to '%s'", name,
				 vcp_virt_uri(dst));
	}
	if (moved)
		virDomainFree(moved);
	virTypedParamsFree(params, nparams);
	virDomainFree(dom);
	return r;
}

int vcp_virt_domain_name(struct vcp_virt *v, const char *spec,
			 char **ret_name, char **ret_err)
{
	virDomainPtr d = NULL;
	char *end = NULL;
	unsigned long id;
	char *name;

	if (*spec >= '0' && *spec <= '9') {
		id = strtoul(spec, &end, 10);
		if (!*end && id <= INT32_MAX)
			d = virDomainLookupByID(v->conn, (int)id);
	}
	if (!d && strlen(spec) >= 32)
		d = virDomainLookupByUUIDString(v->conn, spec);
	if (!d)
		d = virDomainLookupByName(v->conn, spec);
	virResetLastError();
	if (!d)
		return vcp_err(ret_err, -ENOENT, "no domain '%s' (by ID, UUID or name)", spec);
	name = strdup(virDomainGetName(d));
	virDomainFree(d);
	if (!name)
		return -ENOMEM;
	*ret_name = name;
	return 0;
}

int vcp_virt_domain_state(struct vcp_virt *v, const char *name,
			  bool *ret_running)
{
	virDomainPtr d = virDomainLookupByName(v->conn, name);
	int active;

	if (!d) {
		virResetLastError();
		return -ENOENT;
	}
	active = virDomainIsActive(d);
	virDomainFree(d);
	virResetLastError();
	if (active < 0)
		return -EIO;
	*ret_running = active == 1;
	return 0;
}

int vcp_virt_domain_uuid(struct vcp_virt *v, const char *name,
			 char ret_uuid[VIR_UUID_STRING_BUFLEN], bool *ret_running)
{
	virDomainPtr d = virDomainLookupByName(v->conn, name);
	char uuid[VIR_UUID_STRING_BUFLEN];
	int active, r;

	if (!d) {
		virResetLastError();
		return -ENOENT;
	}
	r = virDomainGetUUIDString(d, uuid);
	active = virDomainIsActive(d);
	virDomainFree(d);
	virResetLastError();
	if (r < 0 || active < 0)
		return -EIO;
	memcpy(ret_uuid, uuid, sizeof(uuid));
	*ret_running = active == 1;
	return 0;
}

int vcp_virt_job_progress(struct vcp_virt *v, const char *name,
			  struct vcp_job_progress *ret)
{
	virDomainPtr d = virDomainLookupByName(v->conn, name);
	virTypedParameterPtr params = NULL;
	struct vcp_job_progress p = { 0 };
	int type = 0, n = 0;

	if (!d) {
		virResetLastError();
		return -ENOENT;
	}
	if (virDomainGetJobStats(d, &type, &params, &n, 0) < 0) {
		virDomainFree(d);
		virResetLastError();
		return -EIO;
	}
	p.active = type != VIR_DOMAIN_JOB_NONE;
	virTypedParamsGetULLong(params, n, VIR_DOMAIN_JOB_DATA_TOTAL, &p.total);
	virTypedParamsGetULLong(params, n, VIR_DOMAIN_JOB_DATA_PROCESSED,
				&p.processed);
	virTypedParamsGetULLong(params, n, VIR_DOMAIN_JOB_DATA_REMAINING,
				&p.remaining);
	virTypedParamsGetULLong(params, n, VIR_DOMAIN_JOB_MEMORY_BPS, &p.bps);
	virTypedParamsGetULLong(params, n, VIR_DOMAIN_JOB_TIME_ELAPSED,
				&p.elapsed_ms);
	virTypedParamsFree(params, n);
	virDomainFree(d);
	virResetLastError();
	*ret = p;
	return 0;
}

int vcp_virt_abort_job(struct vcp_virt *v, const char *name, char **ret_err)
{
	int r = 0;
	virDomainPtr d = lookup(v, name, ret_err, &r);

	if (!d)
		return r;
	if (virDomainAbortJob(d) < 0)
		r = fail(ret_err, "Failed to abort the job of '%s'", name);
	virDomainFree(d);
	return r;
}
