/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trialstate.h - the last verdict `vcpack trial` recorded on this host
 * (VCP_TRIAL_STATE, or the file VCPACK_TRIAL_STATE names): what the
 * policy key require_trial asks for before the `auto` level packs.
 */
#ifndef VCP_TRIALSTATE_H
#define VCP_TRIALSTATE_H

#include "trial.h"

/* $VCPACK_TRIAL_STATE if set and not empty, else VCP_TRIAL_STATE. */
const char *vcp_trial_state_path(void);

/*
 * The "verdict" of the state file @path: 0 and *ret, -ENOENT when there
 * is no file, -EINVAL when it holds no known verdict, or -errno.
 */
int vcp_trial_state_verdict(const char *path, enum vcp_trial_verdict *ret);

#endif
