/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * powerread.h - read the host's power counters into a struct
 * vcp_pwr_snap (power.h), every file under a sysfs root directory
 * ("/sys" in production, a fixture tree in tests):
 *
 *   ROOT/class/powercap/intel-rapl:N[:M], intel-rapl-mmio:N[:M]
 *       name, energy_uj, max_energy_range_uj (rescanned at every read, so
 *       a zone may appear or vanish; an mmio zone is used only where no
 *       MSR zone has the same name)
 *   ROOT/bus/event_source/devices/{cstate_pkg,cstate_core}/
 *       type, cpumask, events/cN-residency ("event=0x03"); counted on the
 *       cpumask's CPUs; msr/events/tsc on one CPU per package is the base
 *   ROOT/devices/system/cpu/online, cpuN/topology/physical_package_id,
 *       cpuN/cpuidle/stateK/{name,time,usage}
 *   ROOT/devices/system/cpu/intel_uncore_frequency/
 *       package_PP_die_DD/ or uncoreNN/ (package_id, domain_id):
 *       current_freq_khz, min_freq_khz, max_freq_khz
 *
 * Counters are opened through struct vcp_power_ops: perf_event_open in
 * production (vcp_power_perf_ops), files in tests.
 */
#ifndef VCP_POWERREAD_H
#define VCP_POWERREAD_H

#include <stddef.h>
#include <stdint.h>

#include "power.h"

struct vcp_power_ops {
	/* First line of @path, as vcp_read_line(); 0 or -errno. */
	int (*read_line)(void *data, const char *path, char *buf, size_t len);
	/* Open event @event (config @config) of PMU @pmu (perf type
	 * @type) on @cpu: 0 and *ret_handle (>= 0), or -errno. */
	int (*open)(void *data, const char *pmu, const char *event,
		    uint32_t type, uint64_t config, int cpu, int *ret_handle);
	/* The counter's value now. 0 or -errno. */
	int (*read)(void *data, int handle, uint64_t *ret_value);
	void (*close)(void *data, int handle);
	/* CLOCK_MONOTONIC in ns (tests may fix it); 0 when the clock gives
	 * no time (a fixture's bad clock_ns), then clock_why says why. */
	uint64_t (*now_ns)(void *data);
	const char *(*clock_why)(void *data); /* optional */
	/* Optional (NULL: read by path every time): open @path once, then
	 * read its first line again and again (pread at offset 0, which
	 * sysfs answers afresh), then close_file. Used for the cpuidle
	 * files, up to half the descriptors RLIMIT_NOFILE leaves. */
	int (*open_file)(void *data, const char *path, int *ret_fd);
	int (*read_fd)(void *data, int fd, char *buf, size_t len);
	void (*close_file)(void *data, int fd);
	void *data;
};

/* sysfs through read(2) (cpuidle files kept open), counters through
 * perf_event_open(2). */
extern const struct vcp_power_ops vcp_power_perf_ops;

/*
 * For fixture trees: sysfs as files read by path at every read (so a
 * test may rewrite or swap them), and each counter's value in the
 * file ROOT/vcpack-counters/PMU/EVENT/cpuN (read at every read; a test
 * advances it by writing the file); the clock is the nanoseconds in
 * ROOT/vcpack-counters/clock_ns where that file exists, else the real
 * monotonic clock. A file whose first line is "!EACCES" (!EPERM, !EIO)
 * reads as that error; one that says "!watts W ..." is an energy counter
 * computed at each read from the time vcp_power_read() took
 * (powerfixture.h). Free with vcp_power_file_ops_free().
 * 0 or -ENOMEM.
 */
int vcp_power_file_ops_new(const char *root, struct vcp_power_ops **ret);
void vcp_power_file_ops_free(struct vcp_power_ops *ops);

struct vcp_power_reader;

/*
 * Find what @root offers (PMUs and their events, CPUs and cpuidle
 * states, uncore domains) and open the residency counters through @ops
 * (NULL: vcp_power_perf_ops; kept by pointer, must outlive the reader).
 * A missing or unreadable source is not an error: its *_err field says
 * why at each read. 0, -ENOMEM, -ENAMETOOLONG for a long @root, or
 * -ENOENT / -ENOTDIR when @root is not a directory (a wrong root is no
 * host without counters).
 */
int vcp_power_reader_open(const char *root, const struct vcp_power_ops *ops,
			  struct vcp_power_reader **ret);

/* One read of every counter into *ret (free with vcp_pwr_snap_clear).
 * Every file is read through rdfile.h (never blocking; a FIFO is an
 * unreadable file, named in the zone's or the snapshot's why). 0,
 * -ENOMEM, or -EINVAL when the ops' clock gave no time (clock_why). */
int vcp_power_read(struct vcp_power_reader *r, struct vcp_pwr_snap *ret);

void vcp_power_reader_close(struct vcp_power_reader *r);

#endif
