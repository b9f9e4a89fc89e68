// SPDX-License-Identifier: GPL-2.0
/*
 * path_lockdown (HP-UX): every I/O goes to one lunpath the administrator
 * chose (the LUN's preferred_path; when none is set at the switch, the
 * first usable one of the best ALUA rank).  No failover: with MPATH_PS_NO_FAILOVER the map holds
 * that path alone, so when it fails the LUN has no usable path and I/O
 * waits up to no_path_timeout for it, then fails.
 */

#include <mpath_shim/mpath_shim.h>

static struct mpath_path *lockdown_select(const struct mpath_path_map *map,
					  struct mpath_ps_args *args)
{
	struct mpath_path *path = map->preferred;

	return path && mpath_path_usable(path) ? path : NULL;
}

struct mpath_policy mpath_ps_path_lockdown = {
	.name		= "path_lockdown",
	.flags		= MPATH_PS_NO_FAILOVER,
	.select		= lockdown_select,
};
