// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * standbycfg.c - the fleet file's "standby" object: when the fleet loop
 * may put emptied hosts in standby and wake them, and how. Validated key
 * by key; errors name the key path. No I/O.
 *
 *   "standby": {"low": 0.45, "high": 0.81,     band, of the capacity on
 *               "low_hold": 2400,   s below low before a standby
 *               "high_hold": 300,   s above high before a wake
 *               "min_spare_hosts": 1,
 *               "host_migrations_per_hour": 30, "migrations_per_round": 8,
 *               "wake_cooldown": 900, "wake_deadline": 600,
 *               "interval": 60,
 *               "host_defaults": {HOST KEYS},
 *               "hosts": {"h1": {HOST KEYS}, ...}}
 *   HOST KEYS: "action": "none" | "libvirt-suspend" | "command",
 *              "standby_command": ["ipmitool", "-H", "h1-bmc", ...],
 *              "wake_command": [ARGV...],
 *              "command_timeout": 120, "suspend_duration": 3600,
 *              "stay_on": false
 *
 * The defaults are vSphere DPM's: a target of 63% +- 18% (the band
 * 45%-81%), 40 minutes below before a power-off, 5 above before a
 * power-on. A host sleeps only with an action (the default is "none"):
 * host_defaults applies to every host, hosts.NAME overrides it for the
 * host of that fleet name. "command" needs both commands. A command is
 * an argv array (the program, then its arguments), run without a shell:
 * nothing in a host's name or settings is ever parsed by sh.
 */
#include "standby.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "fleetcfg.h"
#include "jsonfile.h"

static const char *const action_names[] = {
	[VCP_SB_ACTION_NONE] = "none",
	[VCP_SB_ACTION_LIBVIRT] = "libvirt-suspend",
	[VCP_SB_ACTION_COMMAND] = "command",
};

const char *vcp_sb_action_name(enum vcp_sb_action a)
{
	return (unsigned int)a < 3 ? action_names[a] : NULL;
}

void vcp_sb_cfg_defaults(struct vcp_sb_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->low = 0.45;
	c->high = 0.81;
	c->low_hold_s = 2400;
	c->high_hold_s = 300;
	c->min_spare_hosts = 1;
	c->min_hosts_on = 1;
	c->host_migrations_per_hour = 30;
	c->migrations_per_round = 8;
	c->wake_cooldown_s = 900;
	c->woken_grace_s = 3600;
	c->wake_deadline_s = 600;
	c->interval_s = 60;
}

static void host_clear(struct vcp_sb_host_cfg *h)
{
	vcp_argv_free(h->standby_command);
	vcp_argv_free(h->wake_command);
	memset(h, 0, sizeof(*h));
}

void vcp_sb_cfg_clear(struct vcp_sb_cfg *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_hosts; i++)
		host_clear(&c->hosts[i]);
	free(c->hosts);
	memset(c, 0, sizeof(*c));
}

static int get_action(const struct vcp_jkey *c, const char *path,
		      struct json_object *v, enum vcp_sb_action *ret)
{
	const char *s = json_object_get_string(v);

	for (unsigned int a = 0; json_object_is_type(v, json_type_string) &&
	     a < 3; a++)
		if (!strcmp(s, action_names[a])) {
			*ret = (enum vcp_sb_action)a;
			return 0;
		}
	return vcp_err(c->err, -EINVAL,
		       "%s: %s: must be \"none\", \"libvirt-suspend\" or \"command\", got %s",
		       c->src, path, vcp_json_shown(v));
}

static int host_key(const struct vcp_jkey *c, const char *hp, const char *key,
		    struct json_object *v, struct vcp_sb_host_cfg *h)
{
	char path[512];

	snprintf(path, sizeof(path), "%s.%s", hp, key);
	if (!strcmp(key, "action"))
		return get_action(c, path, v, &h->action);
	if (!strcmp(key, "standby_command"))
		return vcp_jget_argv(c, path, v, &h->standby_command);
	if (!strcmp(key, "wake_command"))
		return vcp_jget_argv(c, path, v, &h->wake_command);
	if (!strcmp(key, "command_timeout"))
		return vcp_jget_uint(c, path, v, 1, 3600, &h->command_timeout_s);
	if (!strcmp(key, "suspend_duration"))
		return vcp_jget_uint(c, path, v, 60, 2592000,
				     &h->suspend_duration_s);
	if (!strcmp(key, "stay_on"))
		return vcp_jget_bool(c, path, v, &h->stay_on);
	return vcp_err(c->err, -EINVAL, "%s: %s: unknown key", c->src, path);
}

/* Apply the keys of object @o (at path @hp) over @h. */
static int host_obj(const struct vcp_jkey *c, const char *hp,
		    struct json_object *o, struct vcp_sb_host_cfg *h)
{
	int r;

	if (!json_object_is_type(o, json_type_object))
		return vcp_err(c->err, -EINVAL, "%s: %s: must be an object, got %s",
			       c->src, hp, vcp_json_shown(o));
	json_object_object_foreach(o, key, v) {
		r = host_key(c, hp, key, v, h);
		if (r < 0)
			return r;
	}
	return 0;
}

static char **argv_dup(char **a)
{
	size_t n = 0;
	char **d;

	while (a[n])
		n++;
	d = calloc(n + 1, sizeof(*d));
	for (size_t k = 0; d && k < n; k++)
		if (!(d[k] = strdup(a[k]))) {
			vcp_argv_free(d);
			return NULL;
		}
	return d;
}

static int host_copy(const struct vcp_sb_host_cfg *from,
		     struct vcp_sb_host_cfg *to)
{
	*to = *from;
	to->standby_command = NULL;
	to->wake_command = NULL;
	if (from->standby_command &&
	    !(to->standby_command = argv_dup(from->standby_command)))
		return -ENOMEM;
	if (from->wake_command &&
	    !(to->wake_command = argv_dup(from->wake_command)))
		return -ENOMEM;
	return 0;
}

static int host_check(const struct vcp_jkey *c, const char *hp,
		      const struct vcp_sb_host_cfg *h)
{
	if (h->action != VCP_SB_ACTION_COMMAND)
		return 0;
	if (!h->standby_command || !h->wake_command)
		return vcp_err(c->err, -EINVAL,
			       "%s: %s: action \"command\" needs \"standby_command\" and \"wake_command\"",
			       c->src, hp);
	return 0;
}

static long name_index(const char *const *names, size_t n, const char *k)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], k))
			return (long)i;
	return -1;
}

/* host_defaults, then hosts.NAME over it; then each host checked. */
static int parse_hosts(const struct vcp_jkey *c, struct json_object *o,
		       const char *const *names, struct vcp_sb_cfg *cfg)
{
	struct vcp_sb_host_cfg def = { .command_timeout_s = 120,
				       .suspend_duration_s = 3600 };
	struct json_object *d = NULL, *hs = NULL;
	char hp[512];
	int r = 0;

	if (json_object_object_get_ex(o, "host_defaults", &d))
		r = host_obj(c, "standby.host_defaults", d, &def);
	for (size_t i = 0; i < cfg->n_hosts && r == 0; i++)
		r = host_copy(&def, &cfg->hosts[i]);
	if (r == 0 && json_object_object_get_ex(o, "hosts", &hs) &&
	    !json_object_is_type(hs, json_type_object))
		r = vcp_err(c->err, -EINVAL,
			    "%s: standby.hosts: must be an object (host name: settings), got %s",
			    c->src, vcp_json_shown(hs));
	else if (r == 0 && hs) {
		json_object_object_foreach(hs, name, v) {
			long i = name_index(names, cfg->n_hosts, name);

			snprintf(hp, sizeof(hp), "standby.hosts.%.400s", name);
			if (i < 0)
				r = vcp_err(c->err, -EINVAL,
					    "%s: %s: no host of that name in \"hosts\"",
					    c->src, hp);
			if (r == 0)
				r = host_obj(c, hp, v, &cfg->hosts[i]);
			if (r < 0)
				break;
		}
	}
	for (size_t i = 0; i < cfg->n_hosts && r == 0; i++) {
		snprintf(hp, sizeof(hp), "standby.hosts.%.400s", names[i]);
		r = host_check(c, hp, &cfg->hosts[i]);
	}
	host_clear(&def);
	return r;
}

static int policy_key(const struct vcp_jkey *c, const char *key,
		      struct json_object *v, struct vcp_sb_cfg *cfg)
{
	char path[256];

	snprintf(path, sizeof(path), "standby.%.200s", key);
	if (!strcmp(key, "low"))
		return vcp_jget_num(c, path, v, 0, 1, &cfg->low);
	if (!strcmp(key, "high"))
		return vcp_jget_num(c, path, v, 0, 1, &cfg->high);
	if (!strcmp(key, "low_hold"))
		return vcp_jget_uint(c, path, v, 0, 86400, &cfg->low_hold_s);
	if (!strcmp(key, "high_hold"))
		return vcp_jget_uint(c, path, v, 0, 86400, &cfg->high_hold_s);
	/* 0 would let the whole fleet sleep, with nothing left on to wake
	 * it: refused by the range */
	if (!strcmp(key, "min_hosts_on"))
		return vcp_jget_uint(c, path, v, 1, 100000, &cfg->min_hosts_on);
	if (!strcmp(key, "min_spare_hosts"))
		return vcp_jget_uint(c, path, v, 0, 1000, &cfg->min_spare_hosts);
	if (!strcmp(key, "host_migrations_per_hour"))
		return vcp_jget_uint(c, path, v, 1, VCP_SB_MAX_HOST_BUDGET,
				&cfg->host_migrations_per_hour);
	if (!strcmp(key, "migrations_per_round"))
		return vcp_jget_uint(c, path, v, 1, 1000, &cfg->migrations_per_round);
	if (!strcmp(key, "woken_grace"))
		return vcp_jget_uint(c, path, v, 0, 604800,
				     &cfg->woken_grace_s);
	if (!strcmp(key, "wake_cooldown"))
		return vcp_jget_uint(c, path, v, 0, 86400, &cfg->wake_cooldown_s);
	if (!strcmp(key, "wake_deadline"))
		return vcp_jget_uint(c, path, v, 10, 86400, &cfg->wake_deadline_s);
	if (!strcmp(key, "interval"))
		return vcp_jget_uint(c, path, v, 5, 3600, &cfg->interval_s);
	if (!strcmp(key, "host_defaults") || !strcmp(key, "hosts"))
		return 0;
	return vcp_err(c->err, -EINVAL, "%s: %s: unknown key", c->src, path);
}

static int parse_obj(const struct vcp_jkey *c, struct json_object *o,
		     const char *const *names, struct vcp_sb_cfg *cfg)
{
	int r;

	if (!json_object_is_type(o, json_type_object))
		return vcp_err(c->err, -EINVAL,
			       "%s: standby: must be an object, got %s", c->src,
			       vcp_json_shown(o));
	json_object_object_foreach(o, key, v) {
		r = policy_key(c, key, v, cfg);
		if (r < 0)
			return r;
	}
	if (cfg->low >= cfg->high)
		return vcp_err(c->err, -EINVAL,
			       "%s: standby.low: %g must be below standby.high (%g)",
			       c->src, cfg->low, cfg->high);
	return parse_hosts(c, o, names, cfg);
}

int vcp_sb_cfg_parse(struct json_object *o, const char *src,
		     const char *const *names, size_t n,
		     struct vcp_sb_cfg *ret, char **ret_err)
{
	struct vcp_jkey c = { src ? src : "fleet", ret_err };
	struct vcp_sb_cfg cfg;
	int r = 0;

	vcp_sb_cfg_defaults(&cfg);
	cfg.hosts = calloc(n ? n : 1, sizeof(*cfg.hosts));
	if (!cfg.hosts)
		return -ENOMEM;
	cfg.n_hosts = n;
	for (size_t i = 0; i < n; i++) {
		cfg.hosts[i].command_timeout_s = 120;
		cfg.hosts[i].suspend_duration_s = 3600;
	}
	if (o) {
		cfg.enabled = true;
		r = parse_obj(&c, o, names, &cfg);
	}
	if (r < 0) {
		vcp_sb_cfg_clear(&cfg);
		return r;
	}
	*ret = cfg;
	return 0;
}

int vcp_sb_cfg_parse_fleet(struct json_object *o, const char *src,
			   struct vcp_fleet_cfg *cfg, char **ret_err)
{
	const char **names = calloc(cfg->n_hosts + 1, sizeof(*names));
	struct json_object *sb = NULL;
	int r;

	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->n_hosts; i++)
		names[i] = cfg->hosts[i].name;
	json_object_object_get_ex(o, "standby", &sb);
	r = vcp_sb_cfg_parse(sb, src, names, cfg->n_hosts, &cfg->standby,
			     ret_err);
	free(names);
	return r;
}
