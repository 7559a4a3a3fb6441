/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fleetstate.h - the fleet loop's state file (VCP_FLEET_STATE, or the
 * file VCPACK_FLEET_STATE or `--state` names): which hosts vcpack put in
 * standby, since when and why, what it last ran on each and what that
 * printed. Read strictly, written whole (temporary file, fsync, rename).
 */
#ifndef VCP_FLEETSTATE_H
#define VCP_FLEETSTATE_H

#include "standby.h"

#define VCP_FLEET_STATE "/var/lib/vcpack/fleet-state.json"

/* @given if not NULL, else $VCPACK_FLEET_STATE if set and not empty,
 * else VCP_FLEET_STATE. */
const char *vcp_fleet_state_path(const char *given);

/*
 * Read the state file @path for the fleet's @n hosts @names: no file is
 * a fresh state (every host on). A file that is not strict JSON or holds
 * a bad record is refused with -EINVAL and *ret_err naming the file and
 * the record (the file is left as it is: nothing is lost). *ret
 * untouched on failure.
 */
int vcp_fleet_state_load(const char *path, const char *const *names,
			 size_t n, struct vcp_sb_state *ret, char **ret_err);
/* Write @s to @path atomically (PATH.tmp.PID, fsync, rename; the
 * directories above it are made if missing). 0 or -errno. */
int vcp_fleet_state_save(const char *path, const struct vcp_sb_state *s);

/* Hold PATH.lock (flock, exclusive; created, with its directory, if
 * missing) while the state is read, changed and written: a loop's round
 * and `fleet clear` never interleave. 0 and *ret_fd, or -errno. */
int vcp_fleet_state_lock(const char *path, int *ret_fd);
void vcp_fleet_state_unlock(int fd);
/*
 * The loop's own lock, held while one `fleet run` or `fleet apply` acts
 * on the state file at @path (the file @path.run, which holds its pid):
 * 0 with *ret_fd, or -EBUSY with *ret_pid the holder's (0 if unknown)
 * when another process holds it, or -errno.
 */
int vcp_fleet_state_run_lock(const char *path, int *ret_fd, long *ret_pid);

#endif
