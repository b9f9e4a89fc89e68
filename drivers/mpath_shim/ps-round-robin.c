// SPDX-License-Identifier: GPL-2.0
/*
 * round_robin: each CPU walks the path map with a cursor of its own.
 * Written per I/O: that CPU's cursor, nothing shared.
 */

#include <linux/percpu.h>

#include <mpath_shim/mpath_shim.h>

struct mpath_path *mpath_rr_select(struct mpath_lun *lun,
				   const struct mpath_path_map *map)
{
	unsigned int *cursor = get_cpu_ptr(lun->rr_cursor);
	struct mpath_path *path = NULL;
	unsigned int i, n = map->nr, c = *cursor;

	for (i = 0; i < n; i++) {
		if (mpath_path_usable(map->paths[(c + i) % n])) {
			path = map->paths[(c + i) % n];
			*cursor = c + i + 1;
			break;
		}
	}
	put_cpu_ptr(lun->rr_cursor);
	return path;
}
