/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * powerreading.h - a host's power as its operator reads it (the fleet
 * file's power_command): what the command printed, parsed. Pure.
 */
#ifndef VCP_POWERREADING_H
#define VCP_POWERREADING_H

/* The most watts a reading may say (a host, not a room). */
#define VCP_READING_MAX_WATTS 100000.0

enum vcp_reading_format {
	VCP_READING_NUMBER = 0, /* a bare number of watts */
	VCP_READING_DCMI, /* ipmitool dcmi power reading */
	VCP_READING_PROM_HOST, /* vcpack metrics: vcpack_host_power_watts */
	VCP_READING_PROM_ZONES, /* vcpack metrics: package + dram zones */
};

struct vcp_reading {
	double watts;
	enum vcp_reading_format format;
};

/*
 * Parse what a power command printed on stdout:
 *  - a bare number of watts ("212", "212.5"), alone on its line;
 *  - ipmitool's `dcmi power reading` output: its line
 *    "Instantaneous power reading:   212 Watts" (the others ignored);
 *  - Prometheus text as `vcpack metrics` prints it: the host total
 *    vcpack_host_power_watts, else the sum of the vcpack_power_watts
 *    samples of zone "package" and "dram" (core and uncore are parts of
 *    the package zone; psys is left out); every line must be a comment,
 *    blank or a sample.
 * Watts must be finite, from 0 to VCP_READING_MAX_WATTS. 0, or -EINVAL
 * with *ret_err saying why and quoting the first bad line ("line 2:
 * 'Instantaneous power reading: n/a Watts': ..."), -ENOMEM; *ret
 * untouched on failure.
 */
int vcp_reading_parse(const char *text, struct vcp_reading *ret,
		      char **ret_err);
/* "bare number", "ipmitool dcmi", "vcpack_host_power_watts",
 * "vcpack_power_watts package+dram". */
const char *vcp_reading_format_name(enum vcp_reading_format f);

#endif
