/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fleetrule.h - the rule language of `vcpack fleet --match`: comma-
 * separated KEY=VALUE terms that must all match. name=GLOB, host=GLOB
 * and group=GLOB are shell patterns (fnmatch) on the VM's name and its
 * host's name and group; class=spread|balanced|pack|untouched,
 * priority=high|normal|low|none and tagged=yes|no compare the VM's. The
 * host= and group= terms select hosts, the others VMs. Pure.
 */
#ifndef VCP_FLEETRULE_H
#define VCP_FLEETRULE_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

enum vcp_rule_key {
	VCP_RULE_NAME,
	VCP_RULE_HOST,
	VCP_RULE_GROUP,
	VCP_RULE_CLASS,
	VCP_RULE_PRIORITY,
	VCP_RULE_TAGGED,
};

struct vcp_rule_term {
	enum vcp_rule_key key;
	char *pat;
};

struct vcp_rule {
	struct vcp_rule_term *terms;
	size_t n_terms;
};

/* What terms are matched on: a host's name and group (NULL: none),
 * and for VM terms the VM and its class's name. */
struct vcp_rule_subject {
	const char *host;
	const char *group;
	const struct vcp_vm *vm;
	const char *class_name;
};

/*
 * Parse @s into *ret: 0; -EINVAL with *ret_err the message ("--match:
 * ..." naming the bad term), or -ENOMEM. *ret untouched on failure.
 */
int vcp_rule_parse(const char *s, struct vcp_rule *ret, char **ret_err);
void vcp_rule_clear(struct vcp_rule *r);

const char *vcp_rule_key_name(enum vcp_rule_key k);
/* Whether @t selects hosts (host=, group=) rather than VMs. */
bool vcp_rule_term_is_host(const struct vcp_rule_term *t);
bool vcp_rule_term_matches(const struct vcp_rule_term *t,
			   const struct vcp_rule_subject *s);
/* Every term of @r matches @s (with @hosts_only: every host term). */
bool vcp_rule_matches(const struct vcp_rule *r,
		      const struct vcp_rule_subject *s, bool hosts_only);

#endif
