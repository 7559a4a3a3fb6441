// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cpuset.c - CPU bitmaps: set algebra, the kernel cpulist syntax and
 * libvirt cpumaps. Pure functions on caller-owned memory.
 */
#include "cpuset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vcp_cpuset_zero(struct vcp_cpuset *s)
{
	memset(s, 0, sizeof(*s));
}

void vcp_cpuset_copy(struct vcp_cpuset *dst, const struct vcp_cpuset *src)
{
	if (dst->nw > src->nw)
		memset(&dst->w[src->nw], 0,
		       (dst->nw - src->nw) * sizeof(dst->w[0]));
	memcpy(dst->w, src->w, src->nw * sizeof(dst->w[0]));
	dst->nw = src->nw;
}

static unsigned int max_nw(const struct vcp_cpuset *a,
			   const struct vcp_cpuset *b)
{
	return a->nw > b->nw ? a->nw : b->nw;
}

void vcp_cpuset_set(struct vcp_cpuset *s, unsigned int cpu)
{
	if (cpu >= VCP_MAX_CPUS)
		return;
	s->w[cpu / 64] |= UINT64_C(1) << (cpu % 64);
	if (cpu / 64 >= s->nw)
		s->nw = cpu / 64 + 1;
}

void vcp_cpuset_clear(struct vcp_cpuset *s, unsigned int cpu)
{
	if (cpu / 64 < s->nw)
		s->w[cpu / 64] &= ~(UINT64_C(1) << (cpu % 64));
}

bool vcp_cpuset_test(const struct vcp_cpuset *s, unsigned int cpu)
{
	if (cpu / 64 >= s->nw)
		return false;
	return s->w[cpu / 64] & (UINT64_C(1) << (cpu % 64));
}

unsigned int vcp_cpuset_count(const struct vcp_cpuset *s)
{
	unsigned int n = 0;

	for (size_t i = 0; i < s->nw; i++)
		n += (unsigned int)__builtin_popcountll(s->w[i]);
	return n;
}

bool vcp_cpuset_empty(const struct vcp_cpuset *s)
{
	for (size_t i = 0; i < s->nw; i++)
		if (s->w[i])
			return false;
	return true;
}

bool vcp_cpuset_equal(const struct vcp_cpuset *a, const struct vcp_cpuset *b)
{
	for (size_t i = 0; i < max_nw(a, b); i++)
		if (a->w[i] != b->w[i])
			return false;
	return true;
}

bool vcp_cpuset_subset(const struct vcp_cpuset *sub,
		       const struct vcp_cpuset *super)
{
	for (size_t i = 0; i < sub->nw; i++)
		if (sub->w[i] & ~super->w[i])
			return false;
	return true;
}

bool vcp_cpuset_intersects(const struct vcp_cpuset *a,
			   const struct vcp_cpuset *b)
{
	for (size_t i = 0; i < a->nw && i < b->nw; i++)
		if (a->w[i] & b->w[i])
			return true;
	return false;
}

void vcp_cpuset_or(struct vcp_cpuset *dst, const struct vcp_cpuset *src)
{
	for (size_t i = 0; i < src->nw; i++)
		dst->w[i] |= src->w[i];
	dst->nw = max_nw(dst, src);
}

void vcp_cpuset_and(struct vcp_cpuset *dst, const struct vcp_cpuset *src)
{
	for (size_t i = 0; i < dst->nw; i++)
		dst->w[i] &= src->w[i];
}

void vcp_cpuset_andnot(struct vcp_cpuset *dst, const struct vcp_cpuset *src)
{
	for (size_t i = 0; i < dst->nw && i < src->nw; i++)
		dst->w[i] &= ~src->w[i];
}

int vcp_cpuset_next(const struct vcp_cpuset *s, unsigned int from)
{
	for (size_t i = from / 64; i < s->nw; i++) {
		uint64_t w = s->w[i];

		if (i == from / 64)
			w &= ~UINT64_C(0) << (from % 64);
		if (w)
			return (int)(i * 64 + (size_t)__builtin_ctzll(w));
	}
	return -1;
}

int vcp_cpuset_last(const struct vcp_cpuset *s)
{
	for (size_t i = s->nw; i-- > 0;)
		if (s->w[i])
			return (int)(i * 64 + 63 - (size_t)__builtin_clzll(s->w[i]));
	return -1;
}

static int parse_cpu(const char **p, unsigned int *ret)
{
	char *end;
	unsigned long v;

	if (**p < '0' || **p > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(*p, &end, 10);
	if (errno)
		return -ERANGE;
	if (v >= VCP_MAX_CPUS)
		return -ERANGE;
	*p = end;
	*ret = (unsigned int)v;
	return 0;
}

int vcp_cpuset_parse(const char *str, struct vcp_cpuset *ret)
{
	struct vcp_cpuset s;
	const char *p = str;
	int r;

	vcp_cpuset_zero(&s);
	while (*p == ' ' || *p == '\n')
		p++;
	while (*p && *p != '\n') {
		unsigned int lo, hi;

		r = parse_cpu(&p, &lo);
		if (r < 0)
			return r;
		hi = lo;
		if (*p == '-') {
			p++;
			r = parse_cpu(&p, &hi);
			if (r < 0)
				return r;
			if (hi < lo)
				return -EINVAL;
		}
		for (unsigned int c = lo; c <= hi; c++)
			vcp_cpuset_set(&s, c);
		if (*p == ',' && p[1] && p[1] != '\n')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	/* Only white space may follow (sysfs files end in a newline). */
	while (*p == ' ' || *p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	*ret = s;
	return 0;
}

int vcp_cpuset_format(const struct vcp_cpuset *s, char *buf, size_t len)
{
	size_t off = 0;
	int cpu = vcp_cpuset_next(s, 0);

	if (!len)
		return -ENOBUFS;
	buf[0] = '\0';
	while (cpu >= 0) {
		int end = cpu;
		int n;

		while (vcp_cpuset_test(s, (unsigned int)end + 1))
			end++;
		if (end == cpu)
			n = snprintf(buf + off, len - off, "%s%d",
				     off ? "," : "", cpu);
		else
			n = snprintf(buf + off, len - off, "%s%d-%d",
				     off ? "," : "", cpu, end);
		if (n < 0 || (size_t)n >= len - off) {
			buf[off] = '\0';
			return -ENOBUFS;
		}
		off += (size_t)n;
		cpu = vcp_cpuset_next(s, (unsigned int)end + 1);
	}
	return 0;
}

char *vcp_cpuset_format_alloc(const struct vcp_cpuset *s)
{
	/* each CPU's number (at most as wide as the highest) and a comma */
	int width = snprintf(NULL, 0, "%d,", VCP_MAX_CPUS - 1);
	size_t len = (size_t)vcp_cpuset_count(s) * (size_t)width + 1;
	char *buf = malloc(len);

	if (buf && vcp_cpuset_format(s, buf, len) < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

void vcp_cpuset_from_map(struct vcp_cpuset *s, const unsigned char *map,
			 size_t maplen)
{
	vcp_cpuset_zero(s);
	for (size_t i = 0; i < maplen * 8 && i < VCP_MAX_CPUS; i++)
		if (map[i / 8] & (1u << (i % 8)))
			vcp_cpuset_set(s, (unsigned int)i);
}

void vcp_cpuset_to_map(const struct vcp_cpuset *s, unsigned char *map,
		       size_t maplen)
{
	memset(map, 0, maplen);
	for (size_t i = 0; i < maplen * 8 && i < VCP_MAX_CPUS; i++)
		if (vcp_cpuset_test(s, (unsigned int)i))
			map[i / 8] |= (unsigned char)(1u << (i % 8));
}
