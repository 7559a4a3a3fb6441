/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * virt.h - the one module that talks to libvirt.
 *
 * Everything else sees libvirt through these calls and plain model
 * structs. Errors come back as -errno plus a message (malloc'd, the
 * caller frees) made from virGetLastErrorMessage(); the errno tells the
 * caller how to sort the failure, as irqbalance's activate does:
 *   -ENOENT  the domain is gone (skip it)
 *   -EAGAIN  transient (timeouts, a busy job lock: retry next cycle)
 *   -ENOTSUP the driver cannot do it (say so once, leave the VM)
 *   -ENOTCONN the connection to libvirt closed (libvirtd stopped or
 *            restarting): transient, nothing more can be done on this
 *            connection; try again once reconnected. Whether a call that
 *            was under way took effect is unknown.
 *   others   permanent (leave that VM unmanaged, say so once)
 */
#ifndef VCP_VIRT_H
#define VCP_VIRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "tags.h"

struct vcp_virt;

/* A problem with one VM that leaves it untouched (bad tag etc.). */
struct vcp_vm_issue {
	char *vm;
	char *msg;
};

void vcp_vm_issues_free(struct vcp_vm_issue *v, size_t n);

int vcp_virt_open(const char *uri, bool readonly, struct vcp_virt **ret,
		  char **ret_err);
void vcp_virt_close(struct vcp_virt *v);
/*
 * Is the host behind @uri this machine (its /sys, /proc and counters)?
 * NULL when it is; else why not, a static sentence: libvirt's test
 * driver (test:, test+unix:...) is a simulated host, a URI naming a host
 * (qemu+ssh://h1/system) a remote one. Pure.
 */
const char *vcp_uri_not_here(const char *uri);

/* The URI libvirt actually connected to, e.g. "test:///default". */
const char *vcp_virt_uri(const struct vcp_virt *v);
/* libvirt driver name as virConnectGetType() says: "QEMU", "TEST". */
const char *vcp_virt_driver(const struct vcp_virt *v);
bool vcp_virt_is_test_driver(const struct vcp_virt *v);
/* Host name as libvirt reports it. */
const char *vcp_virt_hostname(const struct vcp_virt *v);

/*
 * Host topology: capabilities cells first, virNodeGetInfo where they are
 * empty (the test driver with a custom node XML).
 */
int vcp_virt_host(struct vcp_virt *v, struct vcp_host **ret,
		  char **ret_err);

/*
 * Running domains, sorted by name, with tags, current pins (maps of
 * host->max_cpus), saved-original flag and QEMU pid where known. A VM
 * whose tag is bad is listed with managed = false and an issue naming it.
 */
int vcp_virt_list_vms(struct vcp_virt *v, const struct vcp_host *host,
		      struct vcp_vm **ret_vms, size_t *ret_n,
		      struct vcp_vm_issue **ret_issues, size_t *ret_n_issues,
		      char **ret_err);

/*
 * Defined domains that are shut off, sorted by name: name, UUID, vCPUs
 * and the tag of their persistent definition (running false, no pins).
 * A bad tag: managed false and an issue, as above.
 */
int vcp_virt_list_inactive(struct vcp_virt *v, struct vcp_vm **ret_vms,
			   size_t *ret_n, struct vcp_vm_issue **ret_issues,
			   size_t *ret_n_issues, char **ret_err);

/* Cumulative vCPU run time (ns) of every running domain, by name. */
struct vcp_vcpu_sample {
	char *name;
	unsigned int n_vcpus;
	uint64_t *time_ns;	/* vcpu.N.time */
	uint64_t *delay_ns;	/* vcpu.N.delay (0 where absent) */
};

struct vcp_sample {
	uint64_t at_ns;		/* CLOCK_MONOTONIC when taken */
	struct vcp_vcpu_sample *vms;
	size_t n_vms;
	bool have_vcpu_time;	/* the driver reports vcpu.N.time */
};

int vcp_virt_sample(struct vcp_virt *v, struct vcp_sample **ret,
		    char **ret_err);
void vcp_sample_free(struct vcp_sample *s);

int vcp_virt_pin_vcpu(struct vcp_virt *v, const char *name,
		      unsigned int vcpu, const struct vcp_cpuset *set,
		      unsigned int max_cpus, char **ret_err);
int vcp_virt_pin_emulator(struct vcp_virt *v, const char *name,
			  const struct vcp_cpuset *set, unsigned int max_cpus,
			  char **ret_err);

/*
 * Move a running VM's memory to @nodes (node ids): the nodeset of its
 * <numatune><memory>, live (virDomainSetNumaParameters). libvirt's QEMU
 * driver does this only for strict and restrictive mode and only with
 * the cgroup cpuset controller (not in a session daemon); a refusal of a
 * VM that still runs is -ENOTSUP with libvirt's reason.
 */
int vcp_virt_set_mem_nodes(struct vcp_virt *v, const char *name,
			   const struct vcp_cpuset *nodes, char **ret_err);

/* The VM's record of its original pins: -ENOENT (no message) if none. */
int vcp_virt_get_saved(struct vcp_virt *v, const char *name,
		       struct vcp_saved_pins *ret, char **ret_err);
int vcp_virt_set_saved(struct vcp_virt *v, const char *name,
		       const struct vcp_saved_pins *s, char **ret_err);
int vcp_virt_clear_saved(struct vcp_virt *v, const char *name,
			 char **ret_err);

/* vcpackd's record of its host in a VM it manages (live only). */
int vcp_virt_set_host_rec(struct vcp_virt *v, const char *name,
			  const struct vcp_host_rec *h, char **ret_err);

/* Write the owner's tag, live (if running) and persistent (if defined). */
int vcp_virt_set_tag(struct vcp_virt *v, const char *name,
		     const struct vcp_tag *tag, char **ret_err);
/* The raw tag element, -ENOENT (no message) if the VM has none. */
int vcp_virt_get_tag_xml(struct vcp_virt *v, const char *name,
			 char **ret_xml, char **ret_err);

/* Host memory in KiB (virNodeGetInfo). */
int vcp_virt_host_memory(struct vcp_virt *v, unsigned long long *ret_kib,
			 char **ret_err);
/* Suspend the host to RAM for @seconds (0: until woken otherwise),
 * virNodeSuspendForDuration; -ENOTSUP and libvirt's reason where the
 * host or driver refuses. */
int vcp_virt_node_suspend(struct vcp_virt *v, unsigned long long seconds,
			  char **ret_err);
/* How many domains run on the host now (virConnectNumOfDomains). */
int vcp_virt_count_running(struct vcp_virt *v, unsigned int *ret_n,
			   char **ret_err);
/* The capabilities XML (malloc'd), NULL on failure. */
char *vcp_virt_capabilities(struct vcp_virt *v);
/* Can a guest made for the CPU described by @cpu_xml (a <cpu> element of
 * another host's capabilities) run on this host (identical or superset,
 * virConnectCompareCPU)? -ENOTSUP where the driver cannot tell. */
int vcp_virt_cpu_runs_here(struct vcp_virt *v, const char *cpu_xml,
			   bool *ret_ok, char **ret_err);

/* ---- live migration (the fleet) ---- */

struct vcp_migrate_opts {
	bool p2p;		/* the source libvirtd talks to the destination */
	/* Address the migration stream uses (the destination listens there):
	 * NULL to let libvirt use the destination's host name. */
	const char *address;
	bool tls;		/* VIR_MIGRATE_TLS */
	bool auto_converge;	/* VIR_MIGRATE_AUTO_CONVERGE */
	unsigned int bandwidth_mib;	/* VIR_MIGRATE_PARAM_BANDWIDTH, MiB/s; 0: none */
};

/* The names of the VIR_MIGRATE_* flags vcp_virt_migrate() passes for @o
 * (a persistent guest adds PERSIST_DEST and UNDEFINE_SOURCE), at most
 * @max into @ret_names; how many there are. */
size_t vcp_virt_migrate_flags(const struct vcp_migrate_opts *o,
			      const char **ret_names, size_t max);

/*
 * Live-migrate running domain @name from @src to @dst (persistent domains
 * become persistent there and are undefined here). On failure libvirt
 * leaves the domain running on @src (VIR_MIGRATE_ABORT_ON_ERROR).
 */
int vcp_virt_migrate(struct vcp_virt *src, struct vcp_virt *dst,
		     const char *name, const struct vcp_migrate_opts *o,
		     char **ret_err);
/* A migration's own progress, as its source libvirtd reports it
 * (virDomainGetJobStats); each figure is 0 when libvirt gives none. */
struct vcp_job_progress {
	bool active;		/* a job runs on the domain */
	unsigned long long total, processed, remaining;	/* bytes */
	unsigned long long bps;		/* transfer rate, bytes/s */
	unsigned long long elapsed_ms;
};

/* The job of @name on @v. May be called while another thread migrates
 * it over the same connection; libvirt may hold the call while QEMU
 * finishes the migration. 0, -ENOENT, -EIO. */
int vcp_virt_job_progress(struct vcp_virt *v, const char *name,
			  struct vcp_job_progress *ret);
/* Abort the job of @name (virDomainAbortJob): a migration in flight
 * ends failed and the guest keeps running on @v. */
int vcp_virt_abort_job(struct vcp_virt *v, const char *name, char **ret_err);
/* Does @name exist on @v, and is it running? -ENOENT if not defined. */
/*
 * The name of the domain @spec names as virsh takes it: an ID (digits),
 * a UUID, else a name. 0 with *ret_name (malloc'd), -ENOENT with
 * "no domain 'SPEC' (by ID, UUID or name)" in *ret_err.
 */
int vcp_virt_domain_name(struct vcp_virt *v, const char *spec,
			 char **ret_name, char **ret_err);
int vcp_virt_domain_state(struct vcp_virt *v, const char *name,
			  bool *ret_running);
/* The same, with its UUID (36 characters and a NUL) in @ret_uuid. */
int vcp_virt_domain_uuid(struct vcp_virt *v, const char *name,
			 char ret_uuid[37], bool *ret_running);

/* ---- events (the caller must have registered an event loop
 * implementation, e.g. libvirt-glib's gvir_event_register(), before
 * vcp_virt_open) ---- */

enum vcp_virt_event {
	VCP_EV_STARTED = 0,	/* started, resumed or migrated in */
	VCP_EV_STOPPED,		/* stopped, crashed, migrated out */
	VCP_EV_METADATA,	/* our namespace's metadata changed */
	VCP_EV_TUNABLE,		/* someone changed pins (cputune) */
	VCP_EV_OTHER,
};

struct vcp_virt_watch {
	/* @name is the domain; @what says which event. */
	void (*domain)(void *opaque, const char *name,
		       enum vcp_virt_event what);
	/* The connection closed (libvirtd restarted or gone). */
	void (*closed)(void *opaque);
	void *opaque;
};

/* Register for lifecycle, metadata-change (urn:vcpack:metadata:1 and
 * any other) and tunable events, and for the close callback. */
int vcp_virt_watch(struct vcp_virt *v, const struct vcp_virt_watch *w,
		   char **ret_err);
/* Is the connection still open (false once libvirtd closed it)? */
bool vcp_virt_alive(struct vcp_virt *v);
/* Ask libvirt to keep the connection alive (detects a dead daemon). */
int vcp_virt_keepalive(struct vcp_virt *v, int interval_s, unsigned int count);
/*
 * libvirt's event loop on a thread of its own, for a program that runs
 * none (vcpack): connections opened after it get keepalive
 * (VCP_VIRT_KEEPALIVE_S x VCP_VIRT_KEEPALIVE_COUNT), so that a call to a
 * libvirtd that stopped answering fails after about 20 s instead of
 * waiting for ever. Once per process; 0 or -ENOTSUP.
 */
int vcp_virt_event_thread(void);
#define VCP_VIRT_KEEPALIVE_S 5
#define VCP_VIRT_KEEPALIVE_COUNT 3

#endif
