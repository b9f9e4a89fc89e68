// SPDX-License-Identifier: GPL-2.0
/*
 * service_time: the usable path on which the I/O is expected to complete
 * first.
 *
 * For each lunpath the core measures, for load-tracking policies, how long
 * an I/O took for each KiB that was queued on the path ahead of it, its own
 * included (path->cost, an EWMA).  A path that moves 4 times the bytes per
 * second of another has a quarter of its cost.  The expected completion time
 * of a new I/O on a path is then
 *
 *	(bytes in flight on the path + bytes of the I/O) / 1 KiB * cost
 *
 * and the I/O goes where it is least.  In steady state each path's queue
 * grows in proportion to its throughput, and so does its share of I/O, which
 * is what a mixed set of fast and slow paths needs (round robin would hold
 * every path to the pace of the slowest).  A path not yet measured (cost 0)
 * is charged the lowest cost measured, so it gets I/O and is measured.  Ties
 * are broken from a per-CPU cursor that moves on every I/O.
 */

#include <linux/atomic.h>
#include <linux/limits.h>

#include <mpath_shim/mpath_shim.h>

static struct mpath_path *st_select(const struct mpath_path_map *map,
				    struct mpath_ps_args *args)
{
	unsigned int *cursor = args->pcpu;
	unsigned int i, start = (*cursor)++;
	u64 cost, est, best_est = U64_MAX, min_cost = U64_MAX;
	struct mpath_path *path, *best = NULL;

	for (i = 0; i < map->nr; i++) {
		cost = READ_ONCE(map->paths[i]->cost);
		if (cost && cost < min_cost)
			min_cost = cost;
	}
	if (min_cost == U64_MAX)
		min_cost = 1;
	for (i = 0; i < map->nr; i++) {
		path = map->paths[(start + i) % map->nr];
		if (!mpath_path_usable(path))
			continue;
		cost = READ_ONCE(path->cost) ?: min_cost;
		est = (atomic64_read(&path->active_bytes) + args->bytes + 1023) /
		      1024 * cost;
		if (est < best_est) {
			best = path;
			best_est = est;
		}
	}
	return best;
}

struct mpath_policy mpath_ps_service_time = {
	.name		= "service_time",
	.flags		= MPATH_PS_TRACK_LOAD,
	.pcpu_size	= sizeof(unsigned int),
	.select		= st_select,
};
