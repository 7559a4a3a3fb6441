/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tags.h - the VM owner's tag (<consolidation> in urn:vcpack:metadata:1)
 * and vcpack's own record of a VM's original pinning (<original> in
 * urn:vcpack:state:1), both kept in the libvirt domain's <metadata>.
 *
 * The parsers accept the element as virDomainGetMetadata() returns it
 * (unqualified) or qualified with the right namespace, under any prefix;
 * a different namespace is refused. Errors come back as a malloc'd
 * message in *ret_err (free() it); outputs are untouched on failure.
 */
#ifndef VCP_TAGS_H
#define VCP_TAGS_H

#include <stdbool.h>

#include "model.h"

#define VCP_TAG_NS "urn:vcpack:metadata:1"
#define VCP_TAG_KEY "vcpack"
#define VCP_TAG_MAX_BYTES 4096

/*
 * Parse <consolidation priority="high|normal|low" class="spread|balanced|
 * pack|unmanaged"/> (at least one attribute, no children); "unmanaged"
 * is the owner's opt-out (tag.unmanaged: vcpack never changes the VM). 0, -EINVAL with a
 * message (bad value, unknown attribute, unexpected or duplicate element,
 * wrong namespace, over VCP_TAG_MAX_BYTES, not well-formed), or -ENOMEM.
 */
int vcp_tag_parse(const char *xml, struct vcp_tag *ret, char **ret_err);
/* The words a tag's class may be, for messages. */
#define VCP_TAG_CLASSES "spread, balanced, pack, unmanaged"
/* Set @t's class from @s (one of VCP_TAG_CLASSES): 0, or -EINVAL with
 * @t untouched. */
int vcp_tag_set_class(struct vcp_tag *t, const char *s);
/*
 * The tag of a whole domain XML, as libvirt gives it to the hook and
 * virDomainGetXMLDesc to vcpack and vcpackd: every element in our
 * namespace directly inside <metadata> goes to vcp_tag_parse, so a
 * second one is a duplicate (refused) in all three alike. -ENOENT when
 * there is none; otherwise as vcp_tag_parse. The _xml form parses the
 * text first (-EINVAL when it cannot).
 */
struct _xmlDoc;
int vcp_tag_from_domain(struct _xmlDoc *doc, struct vcp_tag *ret,
			char **ret_err);
int vcp_tag_from_domain_xml(const char *xml, struct vcp_tag *ret,
			    char **ret_err);
/*
 * The element text for virDomainSetMetadata (no namespace declaration:
 * libvirt adds it from key + uri), e.g. "<consolidation class=\"pack\"/>".
 * malloc'd; NULL on allocation failure or (errno EINVAL) for a tag with
 * neither attribute or an out-of-range value.
 */
char *vcp_tag_format(const struct vcp_tag *tag);

#define VCP_STATE_NS "urn:vcpack:state:1"
#define VCP_STATE_KEY "vcpack-state"
/* A record's pins may be as long as a 16,384-CPU host's cpulists (43,596
 * bytes each): a MiB holds 24 such; a larger record is neither written
 * nor read. */
#define VCP_STATE_MAX_BYTES (1u << 20)

struct vcp_saved_pins {
	unsigned int n_vcpus;
	struct vcp_cpuset *vcpu;	/* n_vcpus, malloc'd */
	struct vcp_cpuset emulator;
	bool has_emulator;
	/* The nodeset of its <numatune><memory> before vcpack first moved
	 * its memory (node ids as a cpuset). */
	struct vcp_cpuset mem_nodes;
	bool has_memory;
};

/* Free vcpu[] and zero the struct; accepts NULL. */
void vcp_saved_pins_clear(struct vcp_saved_pins *s);
/*
 * Parse <original version="1"><vcpu id="0" cpuset="0-7"/>...<emulator
 * cpuset="0-7"/><memory nodeset="0"/></original>: version absent or 1,
 * vcpu ids 0, 1, 2... in order, each cpuset (and the nodeset) a non-empty
 * list in strict syntax, at least one vcpu, at most one emulator and one
 * memory, at most VCP_STATE_MAX_BYTES.
 * 0, -EINVAL with a message, or -ENOMEM. @ret is overwritten on success
 * (clear it first if it held a record).
 */
int vcp_saved_pins_parse(const char *xml, struct vcp_saved_pins *ret,
			 char **ret_err);
/* The element text for virDomainSetMetadata; malloc'd, NULL on failure
 * (errno EFBIG: over VCP_STATE_MAX_BYTES, which the parser would refuse). */
char *vcp_saved_pins_format(const struct vcp_saved_pins *s);
/*
 * Can @s be restored exactly on @vm and @host? One set per vCPU of the
 * VM (no more, no fewer), every CPU of every set (emulator too) online
 * on the host; a recorded nodeset only on a VM whose memory mode lets it
 * change live (strict, restrictive), naming only nodes the host's CPUs
 * are on ("the recorded memory nodes 0-3 are not all on this host
 * (nodes: 0-1)"). 0, or -EINVAL with the reason ("the record is for 3
 * vCPUs, the VM has 2"; "vCPU 1's recorded CPUs 64-65 are not all
 * online on this host (online: 0-15)"). Pure.
 */
int vcp_saved_pins_fit(const struct vcp_saved_pins *s, const struct vcp_vm *vm,
		       const struct vcp_host *host, char **ret_err);

/*
 * What a host's vcpackd last said about its host, kept in each VM it
 * manages (libvirt has no host metadata): <host mode="kernel" level="2"
 * at="UNIX-SECONDS"/>. `vcpack fleet status` reads it from any VM of a
 * remote host, whose kernel knobs are out of libvirt's reach.
 */
#define VCP_HOST_NS "urn:vcpack:host:1"
#define VCP_HOST_KEY "vcpack-host"

struct vcp_host_rec {
	enum vcp_mode mode;
	int level;		/* 0, 1 or 2 */
	long long at;		/* when written, seconds since the epoch */
};

/* All three attributes required, nothing else. 0, -EINVAL with a message
 * or -ENOMEM; @ret untouched on failure. */
int vcp_host_rec_parse(const char *xml, struct vcp_host_rec *ret,
		       char **ret_err);
char *vcp_host_rec_format(const struct vcp_host_rec *r);

#endif
