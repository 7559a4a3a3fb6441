/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * irq.h - device interrupts and sleeping packages: read /proc/interrupts
 * and /proc/irq/N/ under a root, decide (purely) which device IRQs to
 * steer off the packages the plan idles and what to restore when they
 * wake, carry that out through kernel.c (or through irqbalance where it
 * runs: irqbal.h), and turn two
 * reads of /proc/interrupts into interrupts per package per second.
 *
 * Every path is under a root ("/" in production, a fixture tree in
 * tests). Readers return 0 or -errno with *ret untouched on failure;
 * nothing here logs.
 */
#ifndef VCP_IRQ_H
#define VCP_IRQ_H

#include <stdbool.h>
#include <stddef.h>

#include "irqbal.h"
#include "model.h"

/* ---- /proc/interrupts counts ---- */

struct vcp_irq_counts {
	unsigned int n_cols;
	unsigned int *col_cpu;		/* column -> CPU id ("CPU12") */
	unsigned long long *all;	/* per column: every row summed */
	unsigned long long *dev;	/* per column: numbered (device) rows */
};

void vcp_irq_counts_clear(struct vcp_irq_counts *c);
/* Parse the text of /proc/interrupts. -EBADMSG on a malformed header or
 * row; -ENOMEM. */
int vcp_irq_counts_parse(const char *text, struct vcp_irq_counts *ret);
/* Read ROOT/proc/interrupts. */
int vcp_irq_counts_read(const char *root, struct vcp_irq_counts *ret);

/*
 * Interrupts per second per package (host->packages order) between two
 * reads @a and @b taken @seconds apart: every row into @ret_all, the
 * numbered (device) rows into @ret_dev (arrays of n_packages). CPUs of
 * the counts that the host does not list are ignored; a counter that
 * went backwards counts 0. Pure. -EINVAL when @seconds <= 0.
 */
int vcp_irq_rates(const struct vcp_host *host, const struct vcp_irq_counts *a,
		  const struct vcp_irq_counts *b, double seconds,
		  double *ret_all, double *ret_dev);

/* ---- device IRQs and their affinity ---- */

struct vcp_irq {
	unsigned int irq;
	char name[96];			/* /proc/interrupts description */
	struct vcp_cpuset affinity;	/* smp_affinity_list */
	struct vcp_cpuset effective;	/* effective_affinity_list; empty
					 * where the kernel has none */
	bool managed;			/* a write was refused with EIO */
};

/*
 * The numbered IRQs of ROOT/proc/interrupts that have
 * ROOT/proc/irq/N/smp_affinity_list, sorted by number. *ret is malloc'd.
 */
int vcp_irq_list(const char *root, struct vcp_irq **ret, size_t *ret_n);

/* What vcpack changed: the IRQ's affinity before (@orig) and what it
 * wrote (@set). Kept in ROOT/run/vcpack/irq-affinity between runs. */
struct vcp_irq_saved {
	unsigned int irq;
	struct vcp_cpuset orig;
	struct vcp_cpuset set;
};

#define VCP_IRQ_STATE_PATH "/run/vcpack/irq-affinity"
/* The file's text: one line per IRQ, "IRQ ORIG-LIST SET-LIST". *ret is
 * malloc'd (NULL for none). -EBADMSG on a malformed line; -ENOMEM. */
int vcp_irq_saved_parse(const char *text, struct vcp_irq_saved **ret,
			size_t *ret_n);
/* Missing file: 0 with nothing saved. -EBADMSG on a malformed line. */
int vcp_irq_saved_load(const char *root, struct vcp_irq_saved **ret,
		       size_t *ret_n);
/* Replace the file atomically (vcp_file_replace(); the directories
 * above it made); an empty table removes it. */
int vcp_irq_saved_store(const char *root, const struct vcp_irq_saved *s,
			size_t n);

struct vcp_irq_move {
	unsigned int irq;
	struct vcp_cpuset from;		/* its affinity now */
	struct vcp_cpuset to;		/* what to write */
	bool restore;			/* back to its original */
};

struct vcp_irq_plan {
	struct vcp_irq_move *moves;
	size_t n_moves;
	/* The saved table after the moves are done. */
	struct vcp_irq_saved *saved;
	size_t n_saved;
	size_t n_managed;	/* managed IRQs, left alone */
	size_t n_kept;		/* already off the idle packages */
};

void vcp_irq_plan_clear(struct vcp_irq_plan *p);

/*
 * The CPUs of the packages @plan idles: not active and not reserved
 * whole for the host. Pure.
 */
void vcp_irq_idle_cpus(const struct vcp_host *host,
		       const struct vcp_plan *plan, struct vcp_cpuset *ret);

/*
 * Pure. For every IRQ not managed: its base is the original saved for it
 * (when its affinity is still what vcpack wrote; anyone else's change
 * wins and drops the record), else its affinity now; the new affinity is
 * base minus @idle, or, when that leaves nothing, @online minus @idle
 * (the awake packages' CPUs). A move is listed where that differs from
 * now; the record is kept while the new affinity differs from the base.
 * With @idle empty every recorded IRQ goes back to its original.
 */
int vcp_irq_plan_compute(const struct vcp_irq *irqs, size_t n_irqs,
			 const struct vcp_irq_saved *saved, size_t n_saved,
			 const struct vcp_cpuset *online,
			 const struct vcp_cpuset *idle,
			 struct vcp_irq_plan *ret);

struct vcp_irq_result {
	size_t moved, restored, managed, failed;
	int first_error;	/* -errno of the first other failure */
	unsigned int first_failed_irq;
};

/*
 * Carry out @p under @root: each move through
 * vcp_kernel_set_irq_affinity(); EIO means the kernel manages the IRQ
 * (counted in managed, its record dropped); other failures are counted
 * and leave that IRQ's record as it was. Then stores the saved table.
 */
int vcp_irq_apply(const char *root, const struct vcp_irq_plan *p,
		  struct vcp_irq_result *ret);

/* ---- following a plan ---- */

struct vcp_irq_report {
	bool acted;		/* anything was looked at */
	bool enabled;		/* policy irq_affinity */
	bool dry_run;		/* res counts what would be done */
	struct vcp_cpuset idle;	/* CPUs of the idle packages */
	struct vcp_irqbalance irqbalance;
	struct vcp_irqbal_result told; /* where irqbalance runs */
	size_t n_irqs;		/* device IRQs with an affinity file */
	size_t kept;		/* already off the idle packages */
	struct vcp_irq_result res;
};

/*
 * Keep device IRQs off the packages @plan idles (@enabled: the policy's
 * irq_affinity) and put back what an earlier run moved once they wake,
 * or once @enabled is off (then every record is restored). Where
 * irqbalance runs no affinity is written: irqbalance is asked to ban the
 * idle packages' CPUs, and given its own list back when they wake
 * (vcp_irqbal_follow(); ret->told).
 * 0 or -errno of a read that failed; *ret untouched on failure.
 */
int vcp_irq_follow(const char *root, const struct vcp_host *host,
		   const struct vcp_plan *plan, bool enabled,
		   struct vcp_irq_report *ret);
/* The same without writing or asking anything (`vcpack plan`): res counts the
 * moves and restores that would be made; managed IRQs only show as such
 * once a write was refused, so they count as moves here. */
int vcp_irq_preview(const char *root, const struct vcp_host *host,
		    const struct vcp_plan *plan, bool enabled,
		    struct vcp_irq_report *ret);

#endif
