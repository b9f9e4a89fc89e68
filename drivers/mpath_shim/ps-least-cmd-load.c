// SPDX-License-Identifier: GPL-2.0
/*
 * least_cmd_load (HP-UX): the usable path with the fewest I/Os in flight.
 * Among tied paths a per-CPU counter picks the next one in turn, so no path
 * is favoured (starting a scan at a rotating offset would not do: the path
 * after a run of busier ones would win more often).  Written per I/O: the
 * CPU's counter, and (by the core, for MPATH_PS_TRACK_LOAD) the chosen
 * path's count of I/O in flight.
 */

#include <linux/limits.h>

#include <mpath_shim/mpath_shim.h>

static struct mpath_path *lcl_select(const struct mpath_path_map *map,
				     struct mpath_ps_args *args)
{
	unsigned int *turn = args->pcpu;
	unsigned int i, load, pick, ties = 0, best_load = UINT_MAX;
	struct mpath_path *path;

	for (i = 0; i < map->nr; i++) {
		path = map->paths[i];
		if (!mpath_path_usable(path))
			continue;
		load = mpath_path_inflight(path);
		if (load < best_load) {
			best_load = load;
			ties = 0;
		}
		if (load == best_load)
			ties++;
	}
	if (!ties)
		return NULL;
	/* Loads move under us: take the pick-th path at or below the best. */
	pick = (*turn)++ % ties;
	for (i = 0; i < map->nr; i++) {
		path = map->paths[i];
		if (mpath_path_usable(path) &&
		    mpath_path_inflight(path) <= best_load && !pick--)
			return path;
	}
	return NULL;
}

struct mpath_policy mpath_ps_least_cmd_load = {
	.name		= "least_cmd_load",
	.flags		= MPATH_PS_TRACK_LOAD,
	.pcpu_size	= sizeof(unsigned int),
	.select		= lcl_select,
};
