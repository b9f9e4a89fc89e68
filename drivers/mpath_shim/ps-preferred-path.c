// SPDX-License-Identifier: GPL-2.0
/*
 * preferred_path (HP-UX): the LUN's preferred lunpath while it is usable,
 * round robin over the others otherwise; I/O returns to the preferred path
 * as soon as it is usable again (the map is rebuilt when it is).
 * Written per I/O: only the CPU's cursor, and only while failed over.
 */

#include <mpath_shim/mpath_shim.h>

static struct mpath_path *preferred_select(const struct mpath_path_map *map,
					   struct mpath_ps_args *args)
{
	struct mpath_path *path = map->preferred;

	if (path && mpath_path_usable(path))
		return path;
	return mpath_ps_rr_next(map->paths, map->nr, args->pcpu);
}

struct mpath_policy mpath_ps_preferred_path = {
	.name		= "preferred_path",
	.pcpu_size	= sizeof(unsigned int),
	.select		= preferred_select,
};
