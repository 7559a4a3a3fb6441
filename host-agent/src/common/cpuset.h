/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpuset.h - fixed-size CPU bitmaps and the kernel's cpu-list syntax.
 *
 * A struct vcp_cpuset is plain data (no allocation), so it can be copied
 * and embedded in the planner's model; compare sets with
 * vcp_cpuset_equal(), not memcmp(). It holds CPUs 0 to VCP_MAX_CPUS - 1:
 * 16,384, libvirt's own limit (a domain's cpumask, the cpumaps its RPC
 * carries). Operations cost the words up to the highest CPU a set has
 * held (nw), so a small host's sets stay as fast as they were.
 */
#ifndef VCP_CPUSET_H
#define VCP_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VCP_MAX_CPUS 16384
#define VCP_CPUSET_WORDS (VCP_MAX_CPUS / 64)

struct vcp_cpuset {
	unsigned int nw; /* words past w[nw - 1] are all zero */
	uint64_t w[VCP_CPUSET_WORDS];
};

void vcp_cpuset_zero(struct vcp_cpuset *s);
/* *dst = *src for a @dst already a set (zeroed or calloc'd): copies only
 * the words either has used, where hot loops copy many sets. */
void vcp_cpuset_copy(struct vcp_cpuset *dst, const struct vcp_cpuset *src);
void vcp_cpuset_set(struct vcp_cpuset *s, unsigned int cpu);
void vcp_cpuset_clear(struct vcp_cpuset *s, unsigned int cpu);
bool vcp_cpuset_test(const struct vcp_cpuset *s, unsigned int cpu);
unsigned int vcp_cpuset_count(const struct vcp_cpuset *s);
bool vcp_cpuset_empty(const struct vcp_cpuset *s);
bool vcp_cpuset_equal(const struct vcp_cpuset *a, const struct vcp_cpuset *b);
bool vcp_cpuset_subset(const struct vcp_cpuset *sub,
		       const struct vcp_cpuset *super);
bool vcp_cpuset_intersects(const struct vcp_cpuset *a,
			   const struct vcp_cpuset *b);
void vcp_cpuset_or(struct vcp_cpuset *dst, const struct vcp_cpuset *src);
void vcp_cpuset_and(struct vcp_cpuset *dst, const struct vcp_cpuset *src);
void vcp_cpuset_andnot(struct vcp_cpuset *dst, const struct vcp_cpuset *src);
/* Lowest set CPU at or after @from, or -1. */
int vcp_cpuset_next(const struct vcp_cpuset *s, unsigned int from);
/* Highest set CPU, or -1. */
int vcp_cpuset_last(const struct vcp_cpuset *s);

/*
 * Parse "0-3,8,10-11" (the kernel's cpulist, as in cpuset.cpus and
 * /sys/devices/system/cpu/online). Empty string gives an empty set.
 * Returns 0, -EINVAL on syntax errors or -ERANGE past VCP_MAX_CPUS;
 * @ret is untouched on failure.
 */
int vcp_cpuset_parse(const char *str, struct vcp_cpuset *ret);

/*
 * Format as a cpulist into @buf of @len bytes (always NUL-terminated).
 * Returns 0 or -ENOBUFS if it did not fit.
 */
int vcp_cpuset_format(const struct vcp_cpuset *s, char *buf, size_t len);
/* Bytes that hold any cpulist of VCP_MAX_CPUS CPUs, a newline and the
 * NUL (every other CPU of 16,384 is 43,596 characters): a file line that
 * fills a buffer this long is no cpulist. */
#define VCP_CPULIST_MAX ((size_t)VCP_MAX_CPUS * 6 + 2)
/* The cpulist in a malloc'd string of its own length; NULL when out of
 * memory. */
char *vcp_cpuset_format_alloc(const struct vcp_cpuset *s);

/* libvirt's cpumap bytes (bit i of byte i/8 is CPU i) to and from a set. */
void vcp_cpuset_from_map(struct vcp_cpuset *s, const unsigned char *map,
			 size_t maplen);
void vcp_cpuset_to_map(const struct vcp_cpuset *s, unsigned char *map,
		       size_t maplen);

#define vcp_cpuset_foreach(cpu, set)                               \
	for ((cpu) = vcp_cpuset_next((set), 0); (cpu) >= 0;            \
	     (cpu) = vcp_cpuset_next((set), (unsigned int)(cpu) + 1))

#endif
