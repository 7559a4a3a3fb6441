// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * placers.c - other placers on the host (see placers.h): numad, tuned,
 * and VMs that ask libvirt for automatic NUMA placement. vcpack pins
 * over whatever they decide, so `vcpack status`, `plan`, `apply` and
 * vcpackd's log say each one plainly; nothing here changes anything or
 * logs.
 */
#include "placers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "esc.h"
#include "sysfile.h"

static bool named(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE &&
	       strcmp((const char *)n->name, name) == 0;
}

/* A domain XML's document and its <domain> root; NULL when @xml is
 * none or not a domain. Free with xmlFreeDoc(). */
static xmlDocPtr read_domain(const char *xml, xmlNodePtr *ret_root)
{
	xmlDocPtr doc = xml ? xmlReadMemory(xml, (int)strlen(xml), "domain.xml",
					    NULL, XML_PARSE_NONET |
					    XML_PARSE_NOERROR |
					    XML_PARSE_NOWARNING) : NULL;
	xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;

	if (!root || !named(root, "domain")) {
		xmlFreeDoc(doc);
		return NULL;
	}
	*ret_root = root;
	return doc;
}

static const char *cputune_pins(const xmlNode *tune)
{
	for (const xmlNode *n = tune->children; n; n = n->next) {
		if (named(n, "vcpupin"))
			return "vcpupin";
		if (named(n, "emulatorpin"))
			return "emulatorpin";
	}
	return NULL;
}

int vcp_domxml_own_pins(const char *xml, const char **ret_what)
{
	const char *what = NULL;
	xmlDocPtr doc;
	xmlNodePtr root;

	doc = read_domain(xml, &root);
	if (!doc)
		return -EINVAL;
	for (xmlNodePtr n = root->children; n && !what; n = n->next) {
		if (named(n, "cputune"))
			what = cputune_pins(n);
		else if (named(n, "vcpu") &&
			 xmlHasProp(n, (const xmlChar *)"cpuset"))
			what = "vcpu cpuset";
	}
	xmlFreeDoc(doc);
	*ret_what = what;
	return what != NULL;
}

int vcp_domxml_placement(const char *xml, bool *ret_auto,
			 bool *ret_numatune)
{
	xmlDocPtr doc;
	xmlNodePtr root;
	bool aut = false, numa = false;

	doc = read_domain(xml, &root);
	if (!doc)
		return -EINVAL;
	for (xmlNodePtr n = root->children; n; n = n->next) {
		if (named(n, "numatune"))
			numa = true;
		if (named(n, "vcpu")) {
			xmlChar *pl = xmlGetProp(n, (const xmlChar *)"placement");

			aut = pl && strcmp((const char *)pl, "auto") == 0;
			xmlFree(pl);
		}
	}
	xmlFreeDoc(doc);
	*ret_auto = aut;
	*ret_numatune = numa;
	return 0;
}

static int mem_mode_of(const char *s, enum vcp_mem_mode *ret)
{
	static const char *const names[] = { "strict", "restrictive",
					     "preferred", "interleave" };

	if (!s) {
		*ret = VCP_MEM_STRICT;
		return 0;
	}
	for (size_t i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			*ret = (enum vcp_mem_mode)(VCP_MEM_STRICT + i);
			return 0;
		}
	return -EINVAL;
}

/* <memory> of <numatune>: 0 or -EINVAL. */
static int read_memory(xmlNodePtr m, enum vcp_mem_mode *mode,
		       struct vcp_cpuset *nodes, bool *aut)
{
	xmlChar *md = xmlGetProp(m, (const xmlChar *)"mode");
	xmlChar *ns = xmlGetProp(m, (const xmlChar *)"nodeset");
	xmlChar *pl = xmlGetProp(m, (const xmlChar *)"placement");
	int r = mem_mode_of((const char *)md, mode);

	vcp_cpuset_zero(nodes);
	if (r == 0 && ns && vcp_cpuset_parse((const char *)ns, nodes) < 0)
		r = -EINVAL;
	*aut = pl && strcmp((const char *)pl, "auto") == 0;
	xmlFree(md);
	xmlFree(ns);
	xmlFree(pl);
	return r;
}

int vcp_domxml_numatune(const char *xml, enum vcp_mem_mode *ret_mode,
			struct vcp_cpuset *ret_nodes, bool *ret_auto)
{
	enum vcp_mem_mode mode = VCP_MEM_NONE;
	struct vcp_cpuset nodes;
	bool aut = false;
	xmlNodePtr root = NULL;
	xmlDocPtr doc;
	int r = 0;

	vcp_cpuset_zero(&nodes);
	doc = read_domain(xml, &root);
	if (!doc)
		return -EINVAL;
	for (xmlNodePtr n = root->children; !r && n; n = n->next)
		for (xmlNodePtr m = named(n, "numatune") ? n->children : NULL;
		     !r && m; m = m->next)
			if (named(m, "memory"))
				r = read_memory(m, &mode, &nodes, &aut);
	xmlFreeDoc(doc);
	if (r < 0)
		return r;
	*ret_mode = mode;
	*ret_nodes = nodes;
	*ret_auto = aut;
	return 0;
}

void vcp_placers_detect(const char *root, struct vcp_placers *ret)
{
	struct vcp_placers p = { .checked = root != NULL };
	char *path;

	if (!root) {
		*ret = p;
		return;
	}
	p.numad_pid = vcp_proc_find_daemon(root, "/var/run/numad.pid", "numad");
	path = vcp_root_path(root, "/etc/tuned/active_profile");
	if (path &&
	    vcp_read_line(path, p.tuned_profile, sizeof(p.tuned_profile)) < 0)
		p.tuned_profile[0] = '\0';
	free(path);
	*ret = p;
}

static size_t numa_vms(const struct vcp_vm *vms, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += vms[i].placement_auto || vms[i].numatune;
	return k;
}

/* What vcpack does beside them: the same words in status and the log. */
#define NUMAD_WHAT \
	"it re-places VMs too; vcpack's pins override its CPU choices, so stop numad where vcpack manages the host (the two would move the same threads)"
#define NUMA_WHAT \
	"libvirt/numad place them; vcpack's pins override the CPU part"
#define NUMA_SHOWN 8

/* "N VM(s) with ... (NUMA_WHAT): 'a', 'b'", the first NUMA_SHOWN named
 * and ", ..." for more; @k of them (numa_vms()). */
static void put_numa_vms(FILE *f, const struct vcp_vm *vms, size_t n_vms,
			 size_t k)
{
	size_t shown = 0;

	fprintf(f,
		"%zu VM%s with placement='auto' or numatune (" NUMA_WHAT "):",
		k, k == 1 ? "" : "s");
	for (size_t i = 0; i < n_vms && shown < NUMA_SHOWN; i++)
		if (vms[i].placement_auto || vms[i].numatune)
			fprintf(f, "%s '%s'", shown++ ? "," : "",
				vcp_esc(vms[i].name));
	fprintf(f, "%s", k > shown ? ", ..." : "");
}

void vcp_placers_text(FILE *f, const struct vcp_placers *p,
		      const struct vcp_vm *vms, size_t n_vms)
{
	size_t k = numa_vms(vms, n_vms);

	if (!p->checked)
		fprintf(f, "local:  IRQ rates, numad and tuned not shown: this host's /proc is not on this machine (test driver or remote URI)\n");
	else if (p->numad_pid)
		fprintf(f, "numad:  running (pid %d): " NUMAD_WHAT "\n",
			p->numad_pid);
	else
		fprintf(f, "numad:  not running\n");
	if (!p->checked)
		;	/* said above */
	else if (p->tuned_profile[0])
		fprintf(f, "tuned:  active profile '%s'\n",
			vcp_esc(p->tuned_profile));
	else
		fprintf(f, "tuned:  no active profile\n");
	if (!k) {
		fprintf(f, "numa:   no VM asks for placement='auto' or numatune\n");
		return;
	}
	fprintf(f, "numa:   ");
	put_numa_vms(f, vms, n_vms, k);
	fputc('\n', f);
}

char *vcp_placers_say(const struct vcp_placers *p, const struct vcp_vm *vms,
		      size_t n_vms)
{
	size_t k = numa_vms(vms, n_vms), len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);
	const char *sep = "other placers: ";

	if (!f)
		return NULL;
	if (p->numad_pid) {
		fprintf(f, "%snumad running (pid %d): " NUMAD_WHAT, sep,
			p->numad_pid);
		sep = ". ";
	}
	if (p->tuned_profile[0]) {
		fprintf(f,
			"%stuned profile '%s' active: the plan does not take it into account",
			sep, vcp_esc(p->tuned_profile));
		sep = ". ";
	}
	if (k) {
		fputs(sep, f);
		put_numa_vms(f, vms, n_vms, k);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

struct json_object *vcp_placers_json(const struct vcp_placers *p,
				     const struct vcp_vm *vms, size_t n_vms)
{
	struct json_object *o = json_object_new_object();
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; i < n_vms; i++)
		if (vms[i].placement_auto || vms[i].numatune)
			json_object_array_add(arr, json_object_new_string(
						      vms[i].name));
	json_object_object_add(o, "checked",
			       json_object_new_boolean(p->checked));
	json_object_object_add(o, "numad_pid", p->numad_pid ?
			       json_object_new_int(p->numad_pid) : NULL);
	json_object_object_add(o, "tuned_profile", p->tuned_profile[0] ?
			       json_object_new_string(p->tuned_profile) : NULL);
	json_object_object_add(o, "numa_vms", arr);
	return o;
}
