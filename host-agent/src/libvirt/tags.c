// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tags.c - parse and format the VM owner's <consolidation> tag and
 * vcpack's <original> pinning record (see tags.h and the schemas in xml/).
 *
 * Promises: input is bounded in size before libxml2 sees it; no network,
 * no DTD, no entity expansion; nothing is printed; every refusal names
 * the attribute, element or value at fault; outputs are written only on
 * success. The parser accepts exactly what xml/vcpack-metadata.rng and
 * xml/vcpack-state.rng accept, plus the unqualified form that
 * virDomainGetMetadata() returns.
 */
#include "tags.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

/* The wrapper lets us read a fragment with several top-level elements
 * (the hook passes every element of our namespace, to catch duplicates). */
#define WRAP_OPEN "<vcpack-fragment>"
#define WRAP_CLOSE "</vcpack-fragment>"

static const char *skip_xml_decl(const char *s)
{
	const char *end;

	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if (strncmp(s, "<?xml", 5) != 0)
		return s;
	end = strstr(s, "?>");
	return end ? end + 2 : s;
}

static int parse_error(xmlParserCtxtPtr ctxt, char **ret_err)
{
	const xmlError *e = xmlCtxtGetLastError(ctxt);
	char msg[256];
	size_t n;

	snprintf(msg, sizeof(msg), "%s",
		 e && e->message ? e->message : "parse error");
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	if (e && e->line > 0)
		return vcp_err(ret_err, -EINVAL, "not well-formed XML: %s (line %d)", msg,
			    e->line);
	return vcp_err(ret_err, -EINVAL, "not well-formed XML: %s", msg);
}

/* Parse @xml (at most @limit bytes) as the content of a wrapper element. */
static int read_fragment(const char *xml, size_t limit, const char *what,
			 xmlDocPtr *ret, char **ret_err)
{
	size_t len = strlen(xml);
	xmlParserCtxtPtr ctxt;
	xmlDocPtr doc;
	char *buf;
	int r = 0;

	if (len > limit)
		return vcp_err(ret_err, -EINVAL, "%s is %zu bytes, over the %zu limit", what,
			    len, limit);
	xml = skip_xml_decl(xml);
	if (asprintf(&buf, WRAP_OPEN "%s" WRAP_CLOSE, xml) < 0)
		return -ENOMEM;
	ctxt = xmlNewParserCtxt();
	if (!ctxt) {
		free(buf);
		return -ENOMEM;
	}
	doc = xmlCtxtReadMemory(ctxt, buf, (int)strlen(buf), what, NULL,
				XML_PARSE_NONET | XML_PARSE_NOERROR |
				XML_PARSE_NOWARNING | XML_PARSE_NOCDATA);
	if (!doc || !ctxt->wellFormed || !ctxt->nsWellFormed)
		r = parse_error(ctxt, ret_err);
	if (r < 0)
		xmlFreeDoc(doc);
	xmlFreeParserCtxt(ctxt);
	free(buf);
	if (r == 0)
		*ret = doc;
	return r;
}

static bool blank(const xmlChar *s)
{
	for (; s && *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return false;
	return true;
}

/* Unqualified, or in @ns under any prefix. */
static int check_ns(xmlNodePtr n, const char *ns, char **ret_err)
{
	if (!n->ns || !n->ns->href)
		return 0;
	if (strcmp((const char *)n->ns->href, ns) == 0)
		return 0;
	return vcp_err(ret_err, -EINVAL, "wrong namespace '%s'",
		    (const char *)n->ns->href);
}

/* Refuse a non-blank text node; @where: "inside 'x'" or similar. */
static int check_text(xmlNodePtr n, const char *where, char **ret_err)
{
	if ((n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) &&
	    !blank(n->content))
		return vcp_err(ret_err, -EINVAL, "unexpected text %s", where);
	return 0;
}

/* The one top-level element named @name, in @ns or unqualified. */
static int find_root(xmlDocPtr doc, const char *name, const char *ns,
		     xmlNodePtr *ret, char **ret_err)
{
	xmlNodePtr wrap = xmlDocGetRootElement(doc);
	xmlNodePtr found = NULL;
	char where[64];
	int r;

	snprintf(where, sizeof(where), "outside '%s'", name);
	for (xmlNodePtr n = wrap->children; n; n = n->next) {
		r = check_text(n, where, ret_err);
		if (r < 0)
			return r;
		if (n->type != XML_ELEMENT_NODE)
			continue;
		r = check_ns(n, ns, ret_err);
		if (r < 0)
			return r;
		if (strcmp((const char *)n->name, name) != 0)
			return vcp_err(ret_err, -EINVAL, "unexpected element '%s'",
				    (const char *)n->name);
		if (found)
			return vcp_err(ret_err, -EINVAL, "duplicate element '%s'", name);
		found = n;
	}
	if (!found)
		return vcp_err(ret_err, -EINVAL, "no element '%s'", name);
	*ret = found;
	return 0;
}

static const char *attr_value(xmlAttrPtr a)
{
	if (a->children && a->children->type == XML_TEXT_NODE &&
	    !a->children->next && a->children->content)
		return (const char *)a->children->content;
	return "";
}

static int unknown_attr(xmlAttrPtr a, char **ret_err)
{
	if (a->ns && a->ns->prefix)
		return vcp_err(ret_err, -EINVAL, "unknown attribute '%s:%s'",
			    (const char *)a->ns->prefix, (const char *)a->name);
	return vcp_err(ret_err, -EINVAL, "unknown attribute '%s'", (const char *)a->name);
}

/* ---- <consolidation> ---- */

int vcp_tag_set_class(struct vcp_tag *t, const char *s)
{
	if (s && strcmp(s, "unmanaged") == 0) {
		t->unmanaged = true;
		return 0;
	}
	if (vcp_class_from_name(s, &t->class) < 0)
		return -EINVAL;
	t->has_class = true;
	return 0;
}

static int tag_attr(xmlAttrPtr a, struct vcp_tag *t, char **ret_err)
{
	const char *v = attr_value(a);

	if (a->ns)
		return unknown_attr(a, ret_err);
	if (strcmp((const char *)a->name, "priority") == 0) {
		if (vcp_priority_from_name(v, &t->priority) < 0)
			return vcp_err(ret_err, -EINVAL, "priority '%s' is not one of high, normal, low",
				    v);
		t->has_priority = true;
		return 0;
	}
	if (strcmp((const char *)a->name, "class") == 0) {
		if (vcp_tag_set_class(t, v) < 0)
			return vcp_err(ret_err, -EINVAL, "class '%s' is not one of " VCP_TAG_CLASSES,
				    v);
		return 0;
	}
	return unknown_attr(a, ret_err);
}

/* Only blank text, comments and processing instructions inside. */
static int check_empty(xmlNodePtr el, char **ret_err)
{
	char where[64];
	int r;

	snprintf(where, sizeof(where), "inside '%s'", (const char *)el->name);
	for (xmlNodePtr n = el->children; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE)
			return vcp_err(ret_err, -EINVAL, "unexpected element '%s' inside '%s'",
				    (const char *)n->name,
				    (const char *)el->name);
		r = check_text(n, where, ret_err);
		if (r < 0)
			return r;
	}
	return 0;
}

static int tag_element(xmlNodePtr el, struct vcp_tag *ret, char **ret_err)
{
	struct vcp_tag t = { 0 };
	int r;

	for (xmlAttrPtr a = el->properties; a; a = a->next) {
		r = tag_attr(a, &t, ret_err);
		if (r < 0)
			return r;
	}
	r = check_empty(el, ret_err);
	if (r < 0)
		return r;
	if (!t.has_priority && !t.has_class && !t.unmanaged)
		return vcp_err(ret_err, -EINVAL, "'consolidation' needs a priority or a class attribute");
	*ret = t;
	return 0;
}

int vcp_tag_parse(const char *xml, struct vcp_tag *ret, char **ret_err)
{
	xmlDocPtr doc = NULL;
	xmlNodePtr el;
	int r;

	if (!xml)
		return vcp_err(ret_err, -EINVAL, "no tag");
	r = read_fragment(xml, VCP_TAG_MAX_BYTES, "tag", &doc, ret_err);
	if (r < 0)
		return r;
	r = find_root(doc, "consolidation", VCP_TAG_NS, &el, ret_err);
	if (r == 0)
		r = tag_element(el, ret, ret_err);
	xmlFreeDoc(doc);
	return r;
}

/* ---- does a record fit the VM and the host? ---- */

static int set_off_host(const struct vcp_cpuset *set,
			const struct vcp_host *host, const char *what,
			char **ret_err)
{
	char rec[256], on[256];

	if (vcp_cpuset_subset(set, &host->online))
		return 0;
	if (vcp_cpuset_format(set, rec, sizeof(rec)) < 0)
		snprintf(rec, sizeof(rec), "(a long list)");
	if (vcp_cpuset_format(&host->online, on, sizeof(on)) < 0)
		snprintf(on, sizeof(on), "(a long list)");
	return vcp_err(
		ret_err, -EINVAL,
		"%s's recorded CPUs %s are not all online on this host (online: %s)",
		what, rec, on);
}

static int memory_fits(const struct vcp_saved_pins *s, const struct vcp_vm *vm,
		       const struct vcp_host *host, char **ret_err)
{
	struct vcp_cpuset nodes;
	char rec[256], on[256];

	if (vm->mem_mode != VCP_MEM_STRICT &&
	    vm->mem_mode != VCP_MEM_RESTRICTIVE)
		return vcp_err(
			ret_err, -EINVAL,
			"the record holds memory nodes, but the VM's memory mode is %s, whose nodeset libvirt cannot change while it runs",
			vcp_mem_mode_name(vm->mem_mode));
	vcp_cpuset_zero(&nodes);
	for (size_t i = 0; i < host->n_cpus; i++)
		if (host->cpus[i].node >= 0)
			vcp_cpuset_set(&nodes,
				       (unsigned int)host->cpus[i].node);
	if (vcp_cpuset_subset(&s->mem_nodes, &nodes))
		return 0;
	if (vcp_cpuset_format(&s->mem_nodes, rec, sizeof(rec)) < 0)
		snprintf(rec, sizeof(rec), "(a long list)");
	if (vcp_cpuset_format(&nodes, on, sizeof(on)) < 0)
		snprintf(on, sizeof(on), "(a long list)");
	return vcp_err(
		ret_err, -EINVAL,
		"the recorded memory nodes %s are not all on this host (nodes: %s)",
		rec, on);
}

int vcp_saved_pins_fit(const struct vcp_saved_pins *s, const struct vcp_vm *vm,
		       const struct vcp_host *host, char **ret_err)
{
	char what[32];
	int r;

	if (s->n_vcpus != vm->n_vcpus)
		return vcp_err(ret_err, -EINVAL,
			       "the record is for %u vCPU%s, the VM has %u",
			       s->n_vcpus, s->n_vcpus == 1 ? "" : "s",
			       vm->n_vcpus);
	for (unsigned int i = 0; i < s->n_vcpus; i++) {
		snprintf(what, sizeof(what), "vCPU %u", i);
		r = set_off_host(&s->vcpu[i], host, what, ret_err);
		if (r < 0)
			return r;
	}
	if (s->has_emulator) {
		r = set_off_host(&s->emulator, host, "the emulator", ret_err);
		if (r < 0)
			return r;
	}
	return s->has_memory ? memory_fits(s, vm, host, ret_err) : 0;
}

/* ---- the tag inside a whole domain XML (the hook, vcpack, vcpackd) ---- */

static xmlNodePtr find_child(xmlNodePtr parent, const char *name)
{
	for (xmlNodePtr n = parent ? parent->children : NULL; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE &&
		    strcmp((const char *)n->name, name) == 0)
			return n;
	return NULL;
}

/*
 * Dump @n as a document of its own: a copy declares the namespaces it
 * uses even where the domain XML declared them on <metadata> or above.
 */
static int dump_alone(xmlBufferPtr buf, xmlNodePtr n)
{
	xmlDocPtr one = xmlNewDoc(BAD_CAST "1.0");
	xmlNodePtr copy = one ? xmlDocCopyNode(n, one, 1) : NULL;

	if (!copy) {
		xmlFreeDoc(one);
		return -ENOMEM;
	}
	xmlDocSetRootElement(one, copy);
	xmlNodeDump(buf, one, copy, 0, 0);
	xmlFreeDoc(one);
	return 0;
}

/* Every element of our namespace directly inside <metadata>, dumped one
 * after the other (so a second one is a duplicate); -ENOENT: none. */
static int extract_tag(xmlDocPtr doc, char **ret_xml)
{
	xmlNodePtr meta = find_child(xmlDocGetRootElement(doc), "metadata");
	xmlBufferPtr buf = xmlBufferCreate();
	int found = 0;

	if (!buf)
		return -ENOMEM;
	for (xmlNodePtr n = meta ? meta->children : NULL; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE || !n->ns || !n->ns->href ||
		    strcmp((const char *)n->ns->href, VCP_TAG_NS) != 0)
			continue;
		if (dump_alone(buf, n) < 0) {
			xmlBufferFree(buf);
			return -ENOMEM;
		}
		found++;
	}
	*ret_xml = found ? strdup((const char *)xmlBufferContent(buf)) : NULL;
	xmlBufferFree(buf);
	if (!found)
		return -ENOENT;
	return *ret_xml ? 0 : -ENOMEM;
}

int vcp_tag_from_domain(struct _xmlDoc *doc, struct vcp_tag *ret,
			char **ret_err)
{
	char *xml = NULL;
	int r = extract_tag(doc, &xml);

	if (r < 0)
		return r;
	r = vcp_tag_parse(xml, ret, ret_err);
	free(xml);
	return r;
}

int vcp_tag_from_domain_xml(const char *xml, struct vcp_tag *ret,
			    char **ret_err)
{
	xmlDocPtr doc;
	int r;

	doc = xmlReadMemory(
		xml, (int)strnlen(xml, INT32_MAX), "domain.xml", NULL,
		XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc)
		return vcp_err(
			ret_err, -EINVAL,
			"the domain XML cannot be read, so neither can its tag");
	r = vcp_tag_from_domain(doc, ret, ret_err);
	xmlFreeDoc(doc);
	return r;
}

char *vcp_tag_format(const struct vcp_tag *tag)
{
	const char *prio = tag->has_priority ?
		vcp_priority_name(tag->priority) : NULL;
	const char *cls = tag->unmanaged ? "unmanaged" : tag->has_class ?
			  vcp_class_name(tag->class) : NULL;
	char *s = NULL;
	int n;

	if ((tag->has_priority && !prio) ||
	    (tag->has_class && !tag->unmanaged && !vcp_class_name(tag->class)) ||
	    (!prio && !cls)) {
		errno = EINVAL;
		return NULL;
	}
	if (prio && cls)
		n = asprintf(&s, "<consolidation priority=\"%s\" class=\"%s\"/>",
			     prio, cls);
	else if (prio)
		n = asprintf(&s, "<consolidation priority=\"%s\"/>", prio);
	else
		n = asprintf(&s, "<consolidation class=\"%s\"/>", cls);
	return n < 0 ? NULL : s;
}

/* ---- <original> ---- */

void vcp_saved_pins_clear(struct vcp_saved_pins *s)
{
	if (!s)
		return;
	free(s->vcpu);
	memset(s, 0, sizeof(*s));
}

/* Plain decimal, no sign, no spaces, at most 6 digits. */
static int parse_uint(const char *s, unsigned int *ret)
{
	unsigned int v = 0;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9' || i >= 6)
			return -EINVAL;
		v = v * 10 + (unsigned int)(s[i] - '0');
	}
	if (i == 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* The schema's cpulist: [0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)* exactly
 * (vcp_cpuset_parse is laxer: it reads sysfs files too). */
static bool strict_cpulist(const char *s)
{
	bool range = false;

	for (;;) {
		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
		if (*s == '-' && !range) {
			range = true;
			s++;
			continue;
		}
		if (*s == '\0')
			return true;
		if (*s != ',')
			return false;
		range = false;
		s++;
	}
}

static int parse_pin(const char *v, const char *who, struct vcp_cpuset *ret,
		     char **ret_err)
{
	struct vcp_cpuset set;

	if (!strict_cpulist(v) || vcp_cpuset_parse(v, &set) < 0)
		return vcp_err(ret_err, -EINVAL, "%s: bad cpuset '%s'", who, v);
	*ret = set;
	return 0;
}

/*
 * The attributes of a <vcpu> (@id non-NULL) or <emulator>: exactly the
 * ones named, cpuset required.
 */
static int pin_attrs(xmlNodePtr el, const char **ret_id,
		     const char **ret_cpuset, char **ret_err)
{
	const char *id = NULL, *cpuset = NULL;

	for (xmlAttrPtr a = el->properties; a; a = a->next) {
		if (a->ns)
			return unknown_attr(a, ret_err);
		if (ret_id && strcmp((const char *)a->name, "id") == 0)
			id = attr_value(a);
		else if (strcmp((const char *)a->name, "cpuset") == 0)
			cpuset = attr_value(a);
		else
			return unknown_attr(a, ret_err);
	}
	if (ret_id && !id)
		return vcp_err(ret_err, -EINVAL, "'vcpu' without an id");
	if (!cpuset)
		return vcp_err(ret_err, -EINVAL, "'%s' without a cpuset",
			    (const char *)el->name);
	if (ret_id)
		*ret_id = id;
	*ret_cpuset = cpuset;
	return check_empty(el, ret_err);
}

static int add_vcpu(xmlNodePtr el, struct vcp_saved_pins *s, char **ret_err)
{
	const char *ids, *cpuset;
	struct vcp_cpuset *v;
	char who[32];
	unsigned int id;
	int r = pin_attrs(el, &ids, &cpuset, ret_err);

	if (r < 0)
		return r;
	if (parse_uint(ids, &id) < 0)
		return vcp_err(ret_err, -EINVAL, "vcpu id '%s' is not a number", ids);
	if (id < s->n_vcpus)
		return vcp_err(ret_err, -EINVAL, "duplicate vcpu id %u", id);
	if (id > s->n_vcpus)
		return vcp_err(ret_err, -EINVAL, "vcpu id %u out of order (expected %u)", id,
			    s->n_vcpus);
	v = realloc(s->vcpu, (s->n_vcpus + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->vcpu = v;
	snprintf(who, sizeof(who), "vcpu %u", id);
	r = parse_pin(cpuset, who, &s->vcpu[s->n_vcpus], ret_err);
	if (r == 0)
		s->n_vcpus++;
	return r;
}

static int add_emulator(xmlNodePtr el, struct vcp_saved_pins *s,
			char **ret_err)
{
	const char *cpuset;
	int r;

	if (s->has_emulator)
		return vcp_err(ret_err, -EINVAL, "duplicate element 'emulator'");
	r = pin_attrs(el, NULL, &cpuset, ret_err);
	if (r == 0)
		r = parse_pin(cpuset, "emulator", &s->emulator, ret_err);
	if (r == 0)
		s->has_emulator = true;
	return r;
}

static int add_memory(xmlNodePtr el, struct vcp_saved_pins *s, char **ret_err)
{
	const char *nodeset = NULL;
	struct vcp_cpuset set;

	if (s->has_memory)
		return vcp_err(ret_err, -EINVAL, "duplicate element 'memory'");
	for (xmlAttrPtr a = el->properties; a; a = a->next) {
		if (a->ns || strcmp((const char *)a->name, "nodeset") != 0)
			return unknown_attr(a, ret_err);
		nodeset = attr_value(a);
	}
	if (!nodeset)
		return vcp_err(ret_err, -EINVAL, "'memory' without a nodeset");
	if (!strict_cpulist(nodeset) || vcp_cpuset_parse(nodeset, &set) < 0)
		return vcp_err(ret_err, -EINVAL, "memory: bad nodeset '%s'",
			       nodeset);
	if (check_empty(el, ret_err) < 0)
		return -EINVAL;
	s->mem_nodes = set;
	s->has_memory = true;
	return 0;
}

/* version="1", or none (the first format had none). */
static int original_version(xmlNodePtr el, char **ret_err)
{
	const char *version = NULL;

	for (xmlAttrPtr a = el->properties; a; a = a->next) {
		if (a->ns || strcmp((const char *)a->name, "version") != 0)
			return unknown_attr(a, ret_err);
		version = attr_value(a);
	}
	if (version && strcmp(version, "1") != 0)
		return vcp_err(ret_err, -EINVAL, "unsupported version '%s' (vcpack reads 1)",
			    version);
	return 0;
}

static int original_child(xmlNodePtr n, struct vcp_saved_pins *s,
			  char **ret_err)
{
	int r = check_text(n, "inside 'original'", ret_err);

	if (r < 0 || n->type != XML_ELEMENT_NODE)
		return r;
	r = check_ns(n, VCP_STATE_NS, ret_err);
	if (r < 0)
		return r;
	if (strcmp((const char *)n->name, "vcpu") == 0)
		return add_vcpu(n, s, ret_err);
	if (strcmp((const char *)n->name, "emulator") == 0)
		return add_emulator(n, s, ret_err);
	if (strcmp((const char *)n->name, "memory") == 0)
		return add_memory(n, s, ret_err);
	return vcp_err(ret_err, -EINVAL, "unexpected element '%s' inside 'original'",
		    (const char *)n->name);
}

static int original_element(xmlNodePtr el, struct vcp_saved_pins *ret,
			    char **ret_err)
{
	struct vcp_saved_pins s = { 0 };
	int r = original_version(el, ret_err);

	for (xmlNodePtr n = el->children; r == 0 && n; n = n->next)
		r = original_child(n, &s, ret_err);
	if (r == 0 && s.n_vcpus == 0)
		r = vcp_err(ret_err, -EINVAL, "'original' records no vcpu");
	if (r < 0) {
		vcp_saved_pins_clear(&s);
		return r;
	}
	*ret = s;
	return 0;
}

int vcp_saved_pins_parse(const char *xml, struct vcp_saved_pins *ret,
			 char **ret_err)
{
	xmlDocPtr doc = NULL;
	xmlNodePtr el;
	int r;

	if (!xml)
		return vcp_err(ret_err, -EINVAL, "no record");
	r = read_fragment(xml, VCP_STATE_MAX_BYTES, "record", &doc, ret_err);
	if (r < 0)
		return r;
	r = find_root(doc, "original", VCP_STATE_NS, &el, ret_err);
	if (r == 0)
		r = original_element(el, ret, ret_err);
	xmlFreeDoc(doc);
	return r;
}

/* A cpulist as long as VCP_MAX_CPUS alternating CPUs need. */
#define CPULIST_MAX (VCP_MAX_CPUS * 5 + 1)

static int print_pin(FILE *f, const char *head, const struct vcp_cpuset *set,
		     char *buf)
{
	if (vcp_cpuset_format(set, buf, CPULIST_MAX) < 0)
		return -ENOBUFS;
	return fprintf(f, "  %s cpuset=\"%s\"/>\n", head, buf) < 0 ? -EIO : 0;
}

char *vcp_saved_pins_format(const struct vcp_saved_pins *s)
{
	char *out = NULL, *buf = malloc(CPULIST_MAX);
	size_t len = 0;
	char head[32];
	FILE *f;
	int r = 0;

	if (!buf)
		return NULL;
	f = open_memstream(&out, &len);
	if (!f) {
		free(buf);
		return NULL;
	}
	fputs("<original version=\"1\">\n", f);
	for (unsigned int i = 0; r == 0 && i < s->n_vcpus; i++) {
		snprintf(head, sizeof(head), "<vcpu id=\"%u\"", i);
		r = print_pin(f, head, &s->vcpu[i], buf);
	}
	if (r == 0 && s->has_emulator)
		r = print_pin(f, "<emulator", &s->emulator, buf);
	if (r == 0 && s->has_memory) {
		if (vcp_cpuset_format(&s->mem_nodes, buf, CPULIST_MAX) < 0)
			r = -ENOBUFS;
		else if (fprintf(f, "  <memory nodeset=\"%s\"/>\n", buf) < 0)
			r = -EIO;
	}
	fputs("</original>\n", f);
	if (fclose(f) != 0)
		r = -EIO;
	free(buf);
	if (r == 0 && len > VCP_STATE_MAX_BYTES)
		r = -EFBIG; /* restore could not read it back */
	if (r < 0) {
		free(out);
		errno = -r;
		return NULL;
	}
	return out;
}

/* ---- the host record ---- */

static int host_attr(xmlAttrPtr a, struct vcp_host_rec *h, unsigned int *seen,
		     char **ret_err)
{
	const char *name = (const char *)a->name, *v = attr_value(a);
	char *end;

	if (a->ns)
		return unknown_attr(a, ret_err);
	if (!strcmp(name, "mode")) {
		if (strcmp(v, "pin") && strcmp(v, "kernel") && strcmp(v, "scx"))
			return vcp_err(ret_err, -EINVAL, "mode '%s' is not one of pin, kernel, scx", v);
		h->mode = !strcmp(v, "kernel") ? VCP_MODE_KERNEL :
			  !strcmp(v, "scx") ? VCP_MODE_SCX : VCP_MODE_PIN;
		*seen |= 1;
	} else if (!strcmp(name, "level")) {
		if (strlen(v) != 1 || v[0] < '0' || v[0] > '2')
			return vcp_err(ret_err, -EINVAL, "level '%s' is not one of 0, 1, 2", v);
		h->level = v[0] - '0';
		*seen |= 2;
	} else if (!strcmp(name, "at")) {
		errno = 0;
		h->at = strtoll(v, &end, 10);
		if (!*v || *end || errno || h->at < 0 || v[0] == '+')
			return vcp_err(ret_err, -EINVAL, "at '%s' is not a time in seconds", v);
		*seen |= 4;
	} else {
		return unknown_attr(a, ret_err);
	}
	return 0;
}

int vcp_host_rec_parse(const char *xml, struct vcp_host_rec *ret,
		       char **ret_err)
{
	struct vcp_host_rec h = { 0 };
	unsigned int seen = 0;
	xmlDocPtr doc = NULL;
	xmlNodePtr el;
	int r;

	if (!xml)
		return vcp_err(ret_err, -EINVAL, "no record");
	r = read_fragment(xml, VCP_TAG_MAX_BYTES, "host record", &doc, ret_err);
	if (r < 0)
		return r;
	r = find_root(doc, "host", VCP_HOST_NS, &el, ret_err);
	for (xmlAttrPtr a = r == 0 ? el->properties : NULL; a && r == 0;
	     a = a->next)
		r = host_attr(a, &h, &seen, ret_err);
	if (r == 0)
		r = check_empty(el, ret_err);
	if (r == 0 && seen != 7)
		r = vcp_err(ret_err, -EINVAL, "'host' needs mode, level and at");
	xmlFreeDoc(doc);
	if (r == 0)
		*ret = h;
	return r;
}

char *vcp_host_rec_format(const struct vcp_host_rec *r)
{
	char *s = NULL;

	if (r->level < 0 || r->level > 2 || r->at < 0)
		return NULL;
	if (asprintf(&s, "<host mode=\"%s\" level=\"%d\" at=\"%lld\"/>",
		     vcp_mode_name(r->mode), r->level,
		     r->at) < 0)
		return NULL;
	return s;
}
