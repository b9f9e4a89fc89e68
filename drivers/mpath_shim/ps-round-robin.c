// SPDX-License-Identifier: GPL-2.0
/*
 * round_robin (HP-UX): each CPU walks the usable paths with a cursor of its
 * own.  Written per I/O: that CPU's cursor, nothing shared.
 */

#include <mpath_shim/mpath_shim.h>

/* Not static: the core calls it directly (INDIRECT_CALL_1). */
struct mpath_path *mpath_ps_rr_select(const struct mpath_path_map *map,
				      struct mpath_ps_args *args)
{
	return mpath_ps_rr_next(map->paths, map->nr, args->pcpu);
}

struct mpath_policy mpath_ps_round_robin = {
	.name		= "round_robin",
	.pcpu_size	= sizeof(unsigned int),
	.select		= mpath_ps_rr_select,
};
