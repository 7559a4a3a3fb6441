// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topology.c - the host's CPU topology into struct vcp_host, from three
 * sources: libvirt's capabilities XML, virNodeGetInfo's counts, and sysfs
 * under a root directory (so tests run on fixtures).
 *
 * Promises: only online CPUs are listed; max_cpus still covers offline
 * CPUs the source knows of (libvirt's cpumaps need it); every loader ends
 * in vcp_host_finish(); nothing is printed; *ret is set only on success
 * and every error message names the file, CPU or attribute at fault.
 */
#include "topology.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "sysfile.h"
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

/* Whole-string decimal integer, optionally negative, within int range. */
static int parse_int(const char *s, int *ret)
{
	char *end;
	long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	while (*end == '\n' || *end == ' ')
		end++;
	if (errno || *end || v < INT_MIN || v > INT_MAX)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

static struct vcp_host *host_new(size_t n_cpus)
{
	struct vcp_host *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->cpus = calloc(n_cpus ? n_cpus : 1, sizeof(*h->cpus));
	if (!h->cpus) {
		free(h);
		return NULL;
	}
	return h;
}

/* vcp_host_finish(), with a message; frees @h on failure. */
static int finish(struct vcp_host *h, const char *src, struct vcp_host **ret,
		  char **ret_err)
{
	int r = vcp_host_finish(h);

	if (r < 0) {
		vcp_host_free(h);
		if (r == -EINVAL)
			return vcp_err(ret_err, r, "%s lists a CPU twice or one numbered %d or more",
				    src, VCP_MAX_CPUS);
		return r;
	}
	*ret = h;
	return 0;
}

/* The one limit left, said by name. */
static int too_many_cpus(char **ret_err, unsigned long long n)
{
	return vcp_err(ret_err, -E2BIG,
		       "host has %llu CPUs; vcpack supports at most %d", n,
		       VCP_MAX_CPUS);
}

int vcp_host_fits(const struct vcp_host *h, char **ret_err)
{
	return h->too_wide ? too_many_cpus(ret_err, h->too_wide) : 0;
}

/* ---- libvirt capabilities XML ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static xmlNodePtr child(xmlNodePtr n, const char *name)
{
	for (n = n ? n->children : NULL; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE &&
		    strcmp((const char *)n->name, name) == 0)
			return n;
	return NULL;
}

static xmlNodePtr next_named(xmlNodePtr n, const char *name)
{
	for (; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE &&
		    strcmp((const char *)n->name, name) == 0)
			return n;
	return NULL;
}

#define foreach_named(it, parent, name)                                  \
	for ((it) = next_named((parent) ? (parent)->children : NULL, name); \
	     (it); (it) = next_named((it)->next, name))

/* Integer attribute @name of @n: 0, -ENOENT (absent) or -EINVAL. */
static int int_attr(xmlNodePtr n, const char *name, int *ret)
{
	xmlChar *v = xmlGetNoNsProp(n, (const xmlChar *)name);
	int r;

	if (!v)
		return -ENOENT;
	r = parse_int((const char *)v, ret);
	xmlFree(v);
	return r;
}

static int attr_or_fail(xmlNodePtr n, const char *name, const char *what,
			int id, bool required, int *ret, char **ret_err)
{
	int r = int_attr(n, name, ret);

	if (r == -ENOENT && !required)
		return 0;
	if (r == -ENOENT)
		return vcp_err(ret_err, -EINVAL, "capabilities: %s %d has no %s",
			    what, id, name);
	if (r < 0)
		return vcp_err(ret_err, -EINVAL, "capabilities: %s %d has a bad %s",
			    what, id, name);
	return 0;
}

/* One <cpu>: appended to @h when it carries topology (online). */
static int caps_cpu(xmlNodePtr n, int node, struct vcp_host *h,
		    char **ret_err)
{
	struct vcp_cpu c = { .node = node };
	int id, r;

	r = int_attr(n, "id", &id);
	if (r < 0 || id < 0)
		return vcp_err(ret_err, -EINVAL, "capabilities: cell %d has a cpu with a bad or missing id",
			    node);
	if ((unsigned int)id + 1 > h->max_cpus)
		h->max_cpus = (unsigned int)id + 1;
	if (id >= VCP_MAX_CPUS)
		return 0; /* a too wide host: see vcp_host_fits */
	r = int_attr(n, "socket_id", &c.package);
	if (r == -ENOENT)
		return 0;	/* listed without topology: offline */
	if (r < 0)
		return vcp_err(ret_err, -EINVAL, "capabilities: cpu %d has a bad socket_id",
			    id);
	r = attr_or_fail(n, "die_id", "cpu", id, false, &c.die, ret_err);
	if (r == 0)
		r = attr_or_fail(n, "core_id", "cpu", id, true, &c.core,
				 ret_err);
	if (r < 0)
		return r;
	c.id = (unsigned int)id;
	h->cpus[h->n_cpus++] = c;
	return 0;
}

static size_t caps_count_cpus(xmlNodePtr cells)
{
	xmlNodePtr cell, cpu;
	size_t n = 0;

	foreach_named(cell, cells, "cell")
		foreach_named(cpu, child(cell, "cpus"), "cpu")
			n++;
	return n;
}

/* How many CPUs the cells' highest id says the host has. */
static unsigned long long caps_width(xmlNodePtr cells)
{
	unsigned long long n = 0;
	xmlNodePtr cell, cpu;
	int id;

	foreach_named(cell, cells, "cell")
		foreach_named(cpu, child(cell, "cpus"), "cpu")
			if (int_attr(cpu, "id", &id) == 0 && id >= 0 &&
			    (unsigned long long)id + 1 > n)
				n = (unsigned long long)id + 1;
	return n;
}

static int caps_cells(xmlNodePtr cells, struct vcp_host *h, char **ret_err)
{
	xmlNodePtr cell, cpu;
	int node, r;

	foreach_named(cell, cells, "cell") {
		r = int_attr(cell, "id", &node);
		if (r < 0 || node < 0)
			return vcp_err(ret_err, -EINVAL, "capabilities: a cell has a bad or missing id");
		foreach_named(cpu, child(cell, "cpus"), "cpu") {
			r = caps_cpu(cpu, node, h, ret_err);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int caps_read(const char *xml, xmlDocPtr *ret, char **ret_err)
{
	xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
	const xmlError *e;
	xmlDocPtr doc;
	int r = 0;

	if (!ctxt)
		return -ENOMEM;
	doc = xmlCtxtReadMemory(ctxt, xml, (int)strlen(xml), "capabilities",
				NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
				XML_PARSE_NOWARNING);
	if (!doc) {
		e = xmlCtxtGetLastError(ctxt);
		r = vcp_err(ret_err, -EINVAL, "capabilities XML is not well-formed: %.*s",
			 e && e->message ? (int)strcspn(e->message, "\n") : 5,
			 e && e->message ? e->message : "error");
	}
	xmlFreeParserCtxt(ctxt);
	if (r == 0)
		*ret = doc;
	return r;
}

int vcp_topology_from_caps(const char *caps_xml, struct vcp_host **ret,
			   char **ret_err)
{
	xmlDocPtr doc = NULL;
	xmlNodePtr root, cells;
	struct vcp_host *h;
	int r;

	if (!caps_xml)
		return -ENODATA;
	r = caps_read(caps_xml, &doc, ret_err);
	if (r < 0)
		return r;
	root = xmlDocGetRootElement(doc);
	cells = child(child(child(root, "host"), "topology"), "cells");
	if (!root || strcmp((const char *)root->name, "capabilities") != 0 ||
	    !cells || !caps_count_cpus(cells)) {
		xmlFreeDoc(doc);
		return -ENODATA;
	}
	if (caps_width(cells) > VCP_TOPOLOGY_MAX_WIDE) {
		r = too_many_cpus(ret_err, caps_width(cells));
		xmlFreeDoc(doc);
		return r;
	}
	h = host_new(caps_count_cpus(cells));
	if (h && caps_width(cells) > VCP_MAX_CPUS)
		h->too_wide = caps_width(cells);
	r = h ? caps_cells(cells, h, ret_err) : -ENOMEM;
	xmlFreeDoc(doc);
	if (r == 0 && !h->n_cpus)
		r = -ENODATA;
	if (r < 0) {
		vcp_host_free(h);
		return r;
	}
	return finish(h, "capabilities XML", ret, ret_err);
}

/* "vendor model feature,feature" (features sorted) of a host <cpu>. */
static int cpu_key(xmlNodePtr cpu, char **ret)
{
	xmlNodePtr f, vendor = child(cpu, "vendor"), model = child(cpu, "model");
	xmlChar *vs = vendor ? xmlNodeGetContent(vendor) : NULL;
	xmlChar *ms = model ? xmlNodeGetContent(model) : NULL;
	char *feat = NULL, *key = NULL;
	size_t n = 0, len = 0;
	char **names = NULL;

	foreach_named(f, cpu, "feature")
		n++;
	names = calloc(n + 1, sizeof(*names));
	n = 0;
	foreach_named(f, cpu, "feature") {
		if (!names)
			break;
		names[n] = (char *)xmlGetProp(f, BAD_CAST "name");
		if (names[n])
			len += strlen(names[n++]) + 1;
	}
	if (names)
		qsort(names, n, sizeof(*names), cmp_str);
	feat = names ? calloc(1, len + 1) : NULL;
	for (size_t i = 0; feat && i < n; i++) {
		if (i)
			strcat(feat, ",");
		strcat(feat, names[i]);
	}
	if (feat && asprintf(&key, "%s %s %s", vs ? (char *)vs : "?",
			     ms ? (char *)ms : "?", feat) < 0)
		key = NULL;
	for (size_t i = 0; names && i < n; i++)
		xmlFree(names[i]);
	free(names);
	free(feat);
	xmlFree(vs);
	xmlFree(ms);
	*ret = key;
	return key ? 0 : -ENOMEM;
}

int vcp_caps_host_cpu(const char *caps_xml, char **ret_xml, char **ret_key,
		      char **ret_err)
{
	xmlDocPtr doc = NULL;
	xmlNodePtr cpu;
	xmlBufferPtr buf;
	char *key = NULL;
	int r = caps_read(caps_xml, &doc, ret_err);

	if (r < 0)
		return r;
	cpu = child(child(xmlDocGetRootElement(doc), "host"), "cpu");
	if (!cpu || !child(cpu, "arch")) {
		xmlFreeDoc(doc);
		return vcp_err(ret_err, -ENODATA, "capabilities XML has no host <cpu>");
	}
	buf = xmlBufferCreate();
	r = buf ? cpu_key(cpu, &key) : -ENOMEM;
	if (r == 0 && xmlNodeDump(buf, doc, cpu, 0, 0) < 0)
		r = -ENOMEM;
	if (r == 0) {
		*ret_xml = strdup((const char *)xmlBufferContent(buf));
		r = *ret_xml ? 0 : -ENOMEM;
	}
	if (r == 0)
		*ret_key = key;
	else
		free(key);
	xmlBufferFree(buf);
	xmlFreeDoc(doc);
	return r;
}

/* ---- virNodeGetInfo ---- */

int vcp_topology_from_nodeinfo(unsigned int nodes, unsigned int sockets,
			       unsigned int cores, unsigned int threads,
			       struct vcp_host **ret, char **ret_err)
{
	unsigned long long pkgs, total;
	struct vcp_host *h;

	if (!nodes || !sockets || !cores || !threads)
		return -EINVAL;
	pkgs = (unsigned long long)nodes * sockets;
	if (__builtin_mul_overflow(pkgs, (unsigned long long)cores, &total) ||
	    __builtin_mul_overflow(total, (unsigned long long)threads, &total))
		total = ULLONG_MAX;
	if (total > VCP_TOPOLOGY_MAX_WIDE)
		return too_many_cpus(ret_err, total);
	h = host_new(total > VCP_MAX_CPUS ? VCP_MAX_CPUS : (size_t)total);
	if (!h)
		return -ENOMEM;
	if (total > VCP_MAX_CPUS) {
		h->too_wide = total;
		h->max_cpus = (unsigned int)total;
	}
	/* Linux x86: thread 0 of every core of every package, then 1, ... */
	for (unsigned int id = 0; id < total && id < VCP_MAX_CPUS; id++) {
		unsigned int rem = id % (unsigned int)(pkgs * cores);
		struct vcp_cpu *cpu = &h->cpus[h->n_cpus++];

		cpu->id = id;
		cpu->package = (int)(rem / cores);
		cpu->core = (int)(rem % cores);
		cpu->node = (int)(rem / cores / sockets);
	}
	return finish(h, "node info", ret, ret_err);
}

/* ---- sysfs ---- */

/* Read the first line of @root/@rel into @buf; 0 or -errno. */
static int read_line(const char *root, const char *rel, char *buf,
		     size_t len)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	return vcp_read_line(path, buf, len);
}

static int sysfs_fail(char **ret_err, int r, const char *root,
		      const char *rel)
{
	return vcp_err(ret_err, r, "Failed to read '%s/%s': %s", root, rel,
		    strerror(-r));
}

static int sysfs_cpuset(const char *root, const char *rel, bool required,
			struct vcp_cpuset *ret, char **ret_err)
{
	char *buf = malloc(VCP_CPULIST_MAX);
	int r = buf ? read_line(root, rel, buf, VCP_CPULIST_MAX) : -ENOMEM;

	if (r == -ENOENT && !required)
		r = -ENOENT;
	else if (r < 0)
		r = sysfs_fail(ret_err, r, root, rel);
	else if (strlen(buf) >= VCP_CPULIST_MAX - 2)
		r = vcp_err(ret_err, -EINVAL,
			    "'%s/%s' is longer than any cpu list of %d CPUs",
			    root, rel, VCP_MAX_CPUS);
	else if ((r = vcp_cpuset_parse(buf, ret)) == -ERANGE)
		r = vcp_err(
			ret_err, -E2BIG,
			"'%s/%s' lists a CPU past the %d vcpack supports: '%.200s'",
			root, rel, VCP_MAX_CPUS, buf);
	else if (r < 0)
		r = vcp_err(ret_err, -EINVAL,
			    "'%s/%s' is not a cpu list: '%.200s'", root, rel,
			    buf);
	free(buf);
	return r;
}

/* An integer topology file of CPU @cpu; -ENOENT only when optional. */
static int sysfs_int(const char *root, unsigned int cpu, const char *file,
		     bool required, int *ret, char **ret_err)
{
	char rel[128], buf[64];
	int r;

	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/topology/%s", cpu,
		 file);
	r = read_line(root, rel, buf, sizeof(buf));
	if (r == -ENOENT && !required)
		return -ENOENT;
	if (r < 0)
		return sysfs_fail(ret_err, r, root, rel);
	if (parse_int(buf, ret) < 0)
		return vcp_err(ret_err, -EINVAL, "'%s/%s' is not a number: '%s'",
			    root, rel, buf);
	return 0;
}

static int sysfs_cpu(const char *root, unsigned int id, struct vcp_cpu *c,
		     char **ret_err)
{
	int r;

	c->id = id;
	r = sysfs_int(root, id, "physical_package_id", true, &c->package,
		      ret_err);
	if (r == 0)
		r = sysfs_int(root, id, "core_id", true, &c->core, ret_err);
	if (r < 0)
		return r;
	r = sysfs_int(root, id, "die_id", false, &c->die, ret_err);
	return r == -ENOENT ? 0 : r;	/* die_id: Linux 5.2 and later */
}

static void assign_node(struct vcp_host *h, const struct vcp_cpuset *cpus,
			int node)
{
	for (size_t i = 0; i < h->n_cpus; i++)
		if (vcp_cpuset_test(cpus, h->cpus[i].id))
			h->cpus[i].node = node;
}

/* devices/system/node/nodeN/cpulist; no node directory: all node 0. */
static int sysfs_nodes(const char *root, struct vcp_host *h, char **ret_err)
{
	char path[PATH_MAX], rel[128];
	struct vcp_cpuset cpus;
	struct dirent *d;
	DIR *dir;
	int node, r = 0;

	snprintf(path, sizeof(path), "%s/devices/system/node", root);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? 0 : sysfs_fail(ret_err, -errno, root,
							"devices/system/node");
	while (r == 0 && (d = readdir(dir))) {
		if (strncmp(d->d_name, "node", 4) != 0 ||
		    parse_int(d->d_name + 4, &node) < 0 || node < 0)
			continue;
		snprintf(rel, sizeof(rel), "devices/system/node/node%d/cpulist",
			 node);
		r = sysfs_cpuset(root, rel, true, &cpus, ret_err);
		if (r == 0)
			assign_node(h, &cpus, node);
	}
	closedir(dir);
	return r;
}

static int sysfs_cpus(const char *root, const struct vcp_cpuset *online,
		      struct vcp_host *h, char **ret_err)
{
	int cpu, r;

	vcp_cpuset_foreach(cpu, online) {
		r = sysfs_cpu(root, (unsigned int)cpu, &h->cpus[h->n_cpus],
			      ret_err);
		if (r < 0)
			return r;
		h->n_cpus++;
	}
	return sysfs_nodes(root, h, ret_err);
}

int vcp_topology_load(const char *root, struct vcp_host **ret,
		      char **ret_err)
{
	struct vcp_cpuset online, present;
	struct vcp_host *h;
	int r;

	r = sysfs_cpuset(root, "devices/system/cpu/online", true, &online,
			 ret_err);
	if (r < 0)
		return r;
	if (vcp_cpuset_empty(&online))
		return vcp_err(ret_err, -ENODATA, "'%s/devices/system/cpu/online' lists no CPU",
			    root);
	h = host_new(vcp_cpuset_count(&online));
	if (!h)
		return -ENOMEM;
	r = sysfs_cpuset(root, "devices/system/cpu/present", false, &present,
			 ret_err);
	if (r == 0)
		h->max_cpus = (unsigned int)(vcp_cpuset_last(&present) + 1);
	else if (r == -ENOENT)
		r = 0;
	if (r == 0)
		r = sysfs_cpus(root, &online, h, ret_err);
	if (r < 0) {
		vcp_host_free(h);
		return r;
	}
	return finish(h, "sysfs", ret, ret_err);
}
