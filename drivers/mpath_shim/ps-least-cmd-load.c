// SPDX-License-Identifier: GPL-2.0
/*
 * least_cmd_load (HP-UX): the usable path with the fewest I/Os in flight.
 * Ties go to the first path found from a per-CPU cursor that moves on every
 * I/O, so no path is favoured.  Written per I/O: the CPU's cursor, and (by
 * the core, for MPATH_PS_TRACK_LOAD) the chosen path's nr_active.
 */

#include <linux/atomic.h>
#include <linux/limits.h>

#include <mpath_shim/mpath_shim.h>

static struct mpath_path *lcl_select(const struct mpath_path_map *map,
				     struct mpath_ps_args *args)
{
	unsigned int *cursor = args->pcpu;
	unsigned int i, load, best_load = UINT_MAX, start = (*cursor)++;
	struct mpath_path *path, *best = NULL;

	for (i = 0; i < map->nr; i++) {
		path = map->paths[(start + i) % map->nr];
		if (!mpath_path_usable(path))
			continue;
		load = atomic_read(&path->nr_active);
		if (load < best_load) {
			best = path;
			best_load = load;
		}
	}
	return best;
}

struct mpath_policy mpath_ps_least_cmd_load = {
	.name		= "least_cmd_load",
	.flags		= MPATH_PS_TRACK_LOAD,
	.pcpu_size	= sizeof(unsigned int),
	.select		= lcl_select,
};
