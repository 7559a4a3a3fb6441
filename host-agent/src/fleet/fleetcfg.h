/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fleetcfg.h - the fleet file (`vcpack fleet --hosts FLEET.json`): which
 * hosts, reached by which libvirt URI, and the fleet-wide defaults. The
 * format is documented at the top of fleetcfg.c and in vcpack(1).
 * Credentials are libvirt's (ssh keys, TLS certificates, SASL): this file
 * holds none.
 */
#ifndef VCP_FLEETCFG_H
#define VCP_FLEETCFG_H

#include <stdbool.h>
#include <stddef.h>

#include "standby.h"

struct vcp_fleet_entry {
	char *uri;		/* libvirt URI, e.g. qemu+ssh://h1/system */
	char *name;		/* shown name; defaults to the URI's host */
	char *group;		/* e.g. "rack1"; NULL if none */
	bool accepts;		/* may receive VMs (false: maintenance) */
	/* Where migration streams to this host go (it listens there); NULL:
	 * libvirt's default, the host's name. */
	char *migration_address;
	/* The power model's vendor (fleetwatts.h): from the fleet file, or
	 * VCP_VENDOR_UNKNOWN (then libvirt's host CPU says). */
	int vendor;
	/* The host's whole idle draw as the operator measured it (a PDU, the
	 * BMC's DCMI reading), in W; < 0: not given (modelled). */
	double idle_watts;
	/* The operator's command that prints the host's power now (an
	 * argv, no shell: powerreading.h says what it may print); NULL:
	 * the fleet's default (defaults.power_command), if any. */
	char **power_command;
	/* Seconds it may run; 0: the fleet's default. */
	unsigned int power_timeout_s;
};

struct vcp_fleet_cfg {
	struct vcp_fleet_entry *hosts;
	size_t n_hosts;
	unsigned int concurrency;	/* hosts queried at once */
	unsigned int timeout_s;		/* per host */
	bool move_spread;		/* fleet plan may migrate spread VMs */
	double mem_reserve;		/* receiver memory kept free */
	bool p2p;			/* peer-to-peer migration */
	bool tls;			/* migration stream over TLS */
	bool auto_converge;		/* throttle a guest that dirties fast */
	unsigned int bandwidth_mib;	/* MiB/s a migration may use; 0: any */
	unsigned int migration_timeout_s;	/* aborted past it; 0: never */
	double package_watts;		/* modelled saving per package asleep */
	double host_watts;		/* and per host emptied, beyond that */
	/* Every host's power_command unless it has its own, and the
	 * seconds one may run. */
	char **power_command;
	unsigned int power_timeout_s;
	struct vcp_sb_cfg standby;	/* the "standby" object (standbycfg.c) */
};

#define VCP_FLEET_MAX_HOSTS 100000

/* Parse FLEET.json text; @source names it in messages. 0, -EINVAL with
 * *ret_err naming the key path ("fleet.json: hosts[2].uri: ...") or
 * -ENOMEM; *ret untouched on failure. */
int vcp_fleet_cfg_parse(const char *text, const char *source,
			struct vcp_fleet_cfg *ret, char **ret_err);
int vcp_fleet_cfg_load(const char *path, struct vcp_fleet_cfg *ret,
		       char **ret_err);
void vcp_fleet_cfg_clear(struct vcp_fleet_cfg *c);
/* Free what a host entry holds (the entry itself is the caller's). */
void vcp_fleet_entry_clear(struct vcp_fleet_entry *e);
/* Host @i's power_command (its own, else the fleet's; NULL: none) and
 * its timeout. */
char *const *vcp_fleet_power_command(const struct vcp_fleet_cfg *c, size_t i);
unsigned int vcp_fleet_power_timeout(const struct vcp_fleet_cfg *c, size_t i);

/* Host names must be unique: the first name given twice, in O(n log n).
 * 1 with *ret_later the smallest index whose name came before, at
 * *ret_earlier (its first index); 0 when all differ; -ENOMEM. */
int vcp_first_duplicate(char *const *names, size_t n, size_t *ret_earlier,
			size_t *ret_later);

/* The host @uri reaches, as text two URIs of one host share: driver and
 * transport (libvirt's defaults filled in), host (no user@, no trailing
 * dot), port (none for the transport's default), path (no trailing
 * slash) and the query as written; names are not resolved. malloc'd,
 * NULL on allocation failure. */
char *vcp_fleet_uri_key(const char *uri);

#endif
