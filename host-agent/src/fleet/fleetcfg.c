// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleetcfg.c - the fleet file. Validated key by key before anything is
 * contacted; errors name the key path. No I/O beyond reading the file.
 *
 *   {"hosts": [{"uri": "qemu+ssh://h1/system", "name": "h1",
 *               "group": "rack1", "accepts": true,
 *               "migration_address": "10.0.0.1",
 *               "vendor": "intel", "idle_watts": 180,
 *               "power_command": ["ipmitool", ..., "dcmi", "power",
 *                                 "reading"], "power_timeout": 5}, ...],
 *    "defaults": {"concurrency": 16, "timeout": 10, "move_spread": false,
 *                 "mem_reserve": 0.1, "p2p": false, "tls": false,
 *                 "bandwidth": 100, "auto_converge": false, "package_watts": 40,
 *                 "host_watts": 100, "migration_timeout": 600,
 *                 "power_command": [ARGV...], "power_timeout": 5}}
 *
 * name defaults to the URI's host part (user@ dropped), or the whole URI
 * when it has none (qemu:///system); names must be unique. accepts false
 * keeps a host out of the receivers (maintenance); migration_address is
 * where migration streams to that host go (default: libvirt's choice, the
 * destination's host name). The watts are the
 * power model `fleet status` and `fleet plan` quote: what a package
 * saves asleep, and what an emptied host saves beyond its packages.
 * power_command prints the host's power now (fleetpower.c runs it for
 * `fleet status`); a host's own, else the defaults' one.
 */
#include "fleetcfg.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "errmsg.h"
#include "fleetwatts.h"
#include "jsonfile.h"

#define MAX_FILE (16 << 20)

void vcp_fleet_entry_clear(struct vcp_fleet_entry *e)
{
	free(e->uri);
	free(e->name);
	free(e->group);
	free(e->migration_address);
	vcp_argv_free(e->power_command);
	memset(e, 0, sizeof(*e));
}

void vcp_fleet_cfg_clear(struct vcp_fleet_cfg *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_hosts; i++)
		vcp_fleet_entry_clear(&c->hosts[i]);
	free(c->hosts);
	vcp_argv_free(c->power_command);
	vcp_sb_cfg_clear(&c->standby);
	memset(c, 0, sizeof(*c));
}

char *const *vcp_fleet_power_command(const struct vcp_fleet_cfg *c, size_t i)
{
	return c->hosts[i].power_command ? c->hosts[i].power_command :
					   c->power_command;
}

unsigned int vcp_fleet_power_timeout(const struct vcp_fleet_cfg *c, size_t i)
{
	return c->hosts[i].power_timeout_s ? c->hosts[i].power_timeout_s :
					     c->power_timeout_s;
}

static void defaults(struct vcp_fleet_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->concurrency = 16;
	c->timeout_s = 10;
	c->mem_reserve = 0.1;
	c->package_watts = 40;
	c->host_watts = 100;
	c->power_timeout_s = 5;
}

/* "qemu+ssh://root@h1:22/system" -> "h1:22"; NULL if no host part. */
static char *uri_host(const char *uri)
{
	const char *p = strstr(uri, "://"), *end, *at;

	if (!p)
		return NULL;
	p += 3;
	end = p + strcspn(p, "/?");
	at = memchr(p, '@', (size_t)(end - p));
	if (at)
		p = at + 1;
	return end > p ? strndup(p, (size_t)(end - p)) : NULL;
}

/* A host name (RFC 1123: labels of letters, digits and inner hyphens,
 * 1-63 characters each, 253 in all, a trailing dot allowed) that is not
 * an IPv4 address gone wrong (all labels digits). */
static bool host_name_ok(const char *s)
{
	size_t n = strlen(s), label = 0;
	bool digits = true;

	if (n > 1 && s[n - 1] == '.')
		n--;
	for (size_t i = 0; i <= n; i++) {
		char ch = i < n ? s[i] : '.';

		if (ch == '.') {
			if (!label || s[i - 1] == '-')
				return false;
			label = 0;
			continue;
		}
		if (!label && ch == '-')
			return false;
		if (!(ch >= 'a' && ch <= 'z') && !(ch >= 'A' && ch <= 'Z') &&
		    !(ch >= '0' && ch <= '9') && ch != '-')
			return false;
		digits &= ch >= '0' && ch <= '9';
		label++;
	}
	return !digits;
}

/*
 * migration_address: what libvirt listens on at the destination and
 * puts in tcp://ADDRESS (tcp://[ADDRESS] for IPv6): an IPv4 or IPv6
 * address or a host name, nothing around it. Refused by name, never
 * cut short.
 */
static int check_migration_address(const struct vcp_jkey *c, const char *path,
				   const char *s)
{
	unsigned char buf[sizeof(struct in6_addr)];
	size_t n = strlen(s), label = 0;

	if (inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1)
		return 0;
	if (n > 253 + (s[n - 1] == '.'))
		return vcp_err(
			c->err, -EINVAL,
			"%s: %s: '%.40s...' is %zu characters long: a host name has at most 253",
			c->src, path, s, n);
	for (size_t i = 0; i < n; i++) {
		label = s[i] == '.' ? 0 : label + 1;
		if (label > 63)
			return vcp_err(
				c->err, -EINVAL,
				"%s: %s: '%s': a label longer than 63 characters",
				c->src, path, s);
	}
	if (!host_name_ok(s))
		return vcp_err(
			c->err, -EINVAL,
			"%s: %s: '%s' is not a host name or IP address (no port, no scheme, no brackets)",
			c->src, path, s);
	return 0;
}

static int host_key(const struct vcp_jkey *c, const char *hp, const char *key,
		    struct json_object *v, struct vcp_fleet_entry *e)
{
	char path[64];

	snprintf(path, sizeof(path), "%s.%s", hp, key);
	if (!strcmp(key, "uri"))
		return vcp_jget_str(c, path, v, 1024, &e->uri);
	if (!strcmp(key, "name"))
		return vcp_jget_str(c, path, v, 1024, &e->name);
	if (!strcmp(key, "group"))
		return vcp_jget_str(c, path, v, 1024, &e->group);
	if (!strcmp(key, "accepts"))
		return vcp_jget_bool(c, path, v, &e->accepts);
	if (!strcmp(key, "migration_address")) {
		int r = vcp_jget_str(c, path, v, 1024, &e->migration_address);

		return r < 0 ? r :
			       check_migration_address(c, path,
						       e->migration_address);
	}
	if (!strcmp(key, "idle_watts"))
		return vcp_jget_num(c, path, v, 0, 100000, &e->idle_watts);
	if (!strcmp(key, "power_command"))
		return vcp_jget_argv(c, path, v, &e->power_command);
	if (!strcmp(key, "power_timeout"))
		return vcp_jget_uint(c, path, v, 1, 600, &e->power_timeout_s);
	if (!strcmp(key, "vendor")) {
		const char *s = json_object_get_string(v);
		int vd = json_object_is_type(v, json_type_string) ?
			 vcp_vendor_from_name(s) : -1;

		if (vd <= 0)
			return vcp_err(c->err, -EINVAL,
				       "%s: %s: must be \"intel\" or \"amd\", got %s",
				       c->src, path, vcp_json_shown(v));
		e->vendor = vd;
		return 0;
	}
	return vcp_err(c->err, -EINVAL, "%s: %s: unknown key", c->src, path);
}

static int one_host(const struct vcp_jkey *c, size_t i, struct json_object *o,
		    struct vcp_fleet_entry *e)
{
	char hp[40];
	int r;

	snprintf(hp, sizeof(hp), "hosts[%zu]", i);
	if (!json_object_is_type(o, json_type_object))
		return vcp_err(c->err, -EINVAL, "%s: %s: must be an object, got %s",
			       c->src, hp, vcp_json_shown(o));
	e->accepts = true;
	e->idle_watts = -1;
	json_object_object_foreach(o, key, v) {
		r = host_key(c, hp, key, v, e);
		if (r < 0)
			return r;
	}
	if (!e->uri)
		return vcp_err(c->err, -EINVAL, "%s: %s: needs \"uri\"", c->src,
			       hp);
	if (!strstr(e->uri, ":/"))
		return vcp_err(c->err, -EINVAL,
			       "%s: %s.uri: '%s' is not a libvirt URI (e.g. qemu+ssh://host/system)",
			       c->src, hp, e->uri);
	if (!e->name)
		e->name = uri_host(e->uri);
	if (!e->name)
		e->name = strdup(e->uri);
	return e->name ? 0 : -ENOMEM;
}

struct named {
	const char *name;
	size_t idx;
};

static int by_name(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

int vcp_first_duplicate(char *const *names, size_t n, size_t *ret_earlier,
			size_t *ret_later)
{
	struct named *v = calloc(n ? n : 1, sizeof(*v));
	size_t first = 0, later = SIZE_MAX, earlier = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = (struct named){ names[i], i };
	qsort(v, n, sizeof(*v), by_name);
	for (size_t i = 1; i < n; i++) {
		if (strcmp(v[i].name, v[i - 1].name)) {
			first = i;
			continue;
		}
		if (i == first + 1 && v[i].idx < later) {
			later = v[i].idx;
			earlier = v[first].idx;
		}
	}
	free(v);
	if (later == SIZE_MAX)
		return 0;
	*ret_earlier = earlier;
	*ret_later = later;
	return 1;
}

static int unique_names(const struct vcp_jkey *c, struct vcp_fleet_cfg *cfg)
{
	char **names = calloc(cfg->n_hosts, sizeof(*names));
	size_t j, i;
	int r;

	if (!names)
		return -ENOMEM;
	for (size_t k = 0; k < cfg->n_hosts; k++)
		names[k] = cfg->hosts[k].name;
	r = vcp_first_duplicate(names, cfg->n_hosts, &j, &i);
	free(names);
	if (r <= 0)
		return r;
	return vcp_err(
		c->err, -EINVAL,
		"%s: hosts[%zu].name: '%s' is also hosts[%zu] (give each host a \"name\")",
		c->src, i, cfg->hosts[i].name, j);
}

/* A transport's default port, "" when it has none. */
static const char *default_port(const char *transport)
{
	if (!strcmp(transport, "ssh") || !strcmp(transport, "libssh") ||
	    !strcmp(transport, "libssh2"))
		return "22";
	if (!strcmp(transport, "tls"))
		return "16514";
	if (!strcmp(transport, "tcp"))
		return "16509";
	return "";
}

/*
 * The host a URI reaches, as text to compare: driver and transport
 * (libvirt's defaults filled in: tls with a host, local without), host
 * without user@ or a trailing dot, the port unless the transport's
 * default, the path without trailing slashes, in lower case but the path
 * and what follows it (a query's socket=, say), which stay as written.
 * Names and addresses are not resolved: two names of one machine are
 * two hosts here. malloc'd; NULL on allocation failure.
 */
char *vcp_fleet_uri_key(const char *uri)
{
	const char *sep = strstr(uri, "://"), *auth, *end, *at, *colon;
	char drv[64], tr[64] = "", host[1024], port[32] = "";
	const char *path, *rest;
	size_t pl, hl;
	char *k = NULL;

	if (!sep || (size_t)(sep - uri) >= sizeof(drv))
		return strdup(uri);
	snprintf(drv, sizeof(drv), "%.*s", (int)(sep - uri), uri);
	for (char *p = drv; *p; p++)
		*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
	if (strchr(drv, '+')) {
		snprintf(tr, sizeof(tr), "%s", strchr(drv, '+') + 1);
		*strchr(drv, '+') = '\0';
	}
	auth = sep + 3;
	end = auth + strcspn(auth, "/?#");
	at = memchr(auth, '@', (size_t)(end - auth));
	if (at)
		auth = at + 1;
	/* [v6]:port or host:port */
	colon = *auth == '[' ? memchr(auth, ']', (size_t)(end - auth)) : auth;
	colon = colon ? memchr(colon, ':', (size_t)(end - colon)) : NULL;
	hl = (size_t)((colon ? colon : end) - auth);
	if (hl >= sizeof(host) ||
	    (colon && (size_t)(end - colon - 1) >= sizeof(port)))
		return strdup(uri);
	snprintf(host, sizeof(host), "%.*s", (int)hl, auth);
	if (colon)
		snprintf(port, sizeof(port), "%.*s", (int)(end - colon - 1),
			 colon + 1);
	for (char *p = host; *p; p++)
		*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
	if (hl > 1 && host[hl - 1] == '.')
		host[hl - 1] = '\0';
	if (!tr[0])
		snprintf(tr, sizeof(tr), "%s", host[0] ? "tls" : "unix");
	if (!strcmp(port, default_port(tr)))
		port[0] = '\0';
	path = end;
	rest = path + strcspn(path, "?#");
	for (pl = (size_t)(rest - path); pl > 1 && path[pl - 1] == '/'; pl--)
		;
	if (asprintf(&k, "%s+%s://%s:%s%.*s%s", drv, tr, host, port, (int)pl,
		     path, rest) < 0)
		return NULL;
	return k;
}

/* One entry a host: the same host under two names would be counted
 * twice (its capacity, its watts, a receiver of its own guests). */
static int unique_uris(const struct vcp_jkey *c, struct vcp_fleet_cfg *cfg)
{
	char **keys = calloc(cfg->n_hosts ? cfg->n_hosts : 1, sizeof(*keys));
	size_t j = 0, i = 0;
	int r = keys ? 0 : -ENOMEM;

	for (size_t k = 0; r == 0 && k < cfg->n_hosts; k++)
		if (!(keys[k] = vcp_fleet_uri_key(cfg->hosts[k].uri)))
			r = -ENOMEM;
	if (r == 0)
		r = vcp_first_duplicate(keys, cfg->n_hosts, &j, &i);
	for (size_t k = 0; keys && k < cfg->n_hosts; k++)
		free(keys[k]);
	free(keys);
	if (r <= 0)
		return r;
	return vcp_err(
		c->err, -EINVAL,
		"%s: hosts[%zu].uri: '%s' is the host of hosts[%zu] ('%s', '%s'): one entry a host",
		c->src, i, cfg->hosts[i].uri, j, cfg->hosts[j].name,
		cfg->hosts[j].uri);
}

static int parse_hosts(const struct vcp_jkey *c, struct json_object *a,
		       struct vcp_fleet_cfg *cfg)
{
	size_t n;
	int r = 0;

	if (!json_object_is_type(a, json_type_array) ||
	    !(n = json_object_array_length(a)))
		return vcp_err(c->err, -EINVAL,
			       "%s: hosts: must be a non-empty array, got %s",
			       c->src, vcp_json_shown(a));
	if (n > VCP_FLEET_MAX_HOSTS)
		return vcp_err(c->err, -EINVAL, "%s: hosts: more than %d hosts",
			       c->src, VCP_FLEET_MAX_HOSTS);
	cfg->hosts = calloc(n, sizeof(*cfg->hosts));
	if (!cfg->hosts)
		return -ENOMEM;
	cfg->n_hosts = n;
	for (size_t i = 0; i < n && r == 0; i++)
		r = one_host(c, i, json_object_array_get_idx(a, i),
			     &cfg->hosts[i]);
	if (r == 0)
		r = unique_names(c, cfg);
	return r ? r : unique_uris(c, cfg);
}

static int default_key(const struct vcp_jkey *c, const char *key,
		       struct json_object *v, struct vcp_fleet_cfg *cfg)
{
	char path[64];

	snprintf(path, sizeof(path), "defaults.%s", key);
	if (!strcmp(key, "concurrency"))
		return vcp_jget_uint(c, path, v, 1, 1024, &cfg->concurrency);
	if (!strcmp(key, "timeout"))
		return vcp_jget_uint(c, path, v, 1, 3600, &cfg->timeout_s);
	if (!strcmp(key, "move_spread"))
		return vcp_jget_bool(c, path, v, &cfg->move_spread);
	if (!strcmp(key, "mem_reserve"))
		return vcp_jget_num(c, path, v, 0, 0.9, &cfg->mem_reserve);
	if (!strcmp(key, "p2p"))
		return vcp_jget_bool(c, path, v, &cfg->p2p);
	if (!strcmp(key, "tls"))
		return vcp_jget_bool(c, path, v, &cfg->tls);
	if (!strcmp(key, "auto_converge"))
		return vcp_jget_bool(c, path, v, &cfg->auto_converge);
	if (!strcmp(key, "bandwidth"))
		return vcp_jget_uint(c, path, v, 1, 1000000, &cfg->bandwidth_mib);
	if (!strcmp(key, "migration_timeout"))
		return vcp_jget_uint(c, path, v, 0, 86400,
				     &cfg->migration_timeout_s);
	if (!strcmp(key, "package_watts"))
		return vcp_jget_num(c, path, v, 0, 10000, &cfg->package_watts);
	if (!strcmp(key, "host_watts"))
		return vcp_jget_num(c, path, v, 0, 100000, &cfg->host_watts);
	if (!strcmp(key, "power_command"))
		return vcp_jget_argv(c, path, v, &cfg->power_command);
	if (!strcmp(key, "power_timeout"))
		return vcp_jget_uint(c, path, v, 1, 600, &cfg->power_timeout_s);
	return vcp_err(c->err, -EINVAL, "%s: %s: unknown key", c->src, path);
}

static int parse_obj(const struct vcp_jkey *c, struct json_object *o,
		     struct vcp_fleet_cfg *cfg)
{
	struct json_object *d;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return vcp_err(c->err, -EINVAL, "%s: must be a JSON object",
			       c->src);
	json_object_object_foreach(o, key, val) {
		(void)val;
		if (strcmp(key, "hosts") && strcmp(key, "defaults") &&
		    strcmp(key, "_comment") && strcmp(key, "standby"))
			return vcp_err(c->err, -EINVAL, "%s: %s: unknown key",
				       c->src, key);
	}
	if (json_object_object_get_ex(o, "defaults", &d)) {
		if (!json_object_is_type(d, json_type_object))
			return vcp_err(c->err, -EINVAL,
				       "%s: defaults: must be an object, got %s",
				       c->src, vcp_json_shown(d));
		json_object_object_foreach(d, dkey, v) {
			r = default_key(c, dkey, v, cfg);
			if (r < 0)
				return r;
		}
	}
	if (!json_object_object_get_ex(o, "hosts", &d))
		return vcp_err(c->err, -EINVAL,
			       "%s: needs \"hosts\" (an array of hosts)",
			       c->src);
	r = parse_hosts(c, d, cfg);
	return r ? r : vcp_sb_cfg_parse_fleet(o, c->src, cfg, c->err);
}

int vcp_fleet_cfg_parse(const char *text, const char *source,
			struct vcp_fleet_cfg *ret, char **ret_err)
{
	struct vcp_jkey c = { source ? source : "fleet", ret_err };
	struct vcp_fleet_cfg cfg;
	struct json_object *o = NULL;
	int r = vcp_json_parse(text, c.src, &o, ret_err);

	if (r < 0)
		return r;
	defaults(&cfg);
	r = parse_obj(&c, o, &cfg);
	json_object_put(o);
	if (r < 0) {
		vcp_fleet_cfg_clear(&cfg);
		return r;
	}
	*ret = cfg;
	return 0;
}

int vcp_fleet_cfg_load(const char *path, struct vcp_fleet_cfg *ret,
		       char **ret_err)
{
	char *text = NULL;
	int r = vcp_file_read(path, MAX_FILE, &text, ret_err);

	if (r < 0)
		return r;
	r = vcp_fleet_cfg_parse(text, path, ret, ret_err);
	free(text);
	return r;
}
