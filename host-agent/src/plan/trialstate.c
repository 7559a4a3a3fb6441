// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trialstate.c - reads the verdict `vcpack trial` last recorded (the
 * state file cli-trial.c writes by rename, so a reader never sees half).
 */
#include "trialstate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsonfile.h"

const char *vcp_trial_state_path(void)
{
	const char *p = getenv("VCPACK_TRIAL_STATE");

	return p && *p ? p : VCP_TRIAL_STATE;
}

int vcp_trial_state_verdict(const char *path, enum vcp_trial_verdict *ret)
{
	static const enum vcp_trial_verdict all[] = {
		VCP_TRIAL_NO_DIFFERENCE, VCP_TRIAL_SAVES, VCP_TRIAL_COSTS,
	};
	struct json_object *o = NULL;
	char *text = NULL, *err = NULL;
	const char *v;
	int r = vcp_file_read(path, 1 << 20, &text, &err);

	free(err);
	err = NULL;
	if (r < 0)
		return r;
	r = vcp_json_parse(text, path, &o, &err);
	free(text);
	free(err);
	if (r < 0)
		return -EINVAL;
	v = json_object_get_string(json_object_object_get(o, "verdict"));
	r = -EINVAL;
	for (size_t i = 0; v && i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(v, vcp_trial_verdict_name(all[i])) == 0) {
			*ret = all[i];
			r = 0;
		}
	json_object_put(o);
	return r;
}
