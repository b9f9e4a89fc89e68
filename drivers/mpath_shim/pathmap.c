// SPDX-License-Identifier: GPL-2.0
/*
 * Path maps and selectors: the pure logic of path selection, free of SCSI
 * and block plumbing so that KUnit can drive it with fake lunpaths.
 *
 * A path map is the immutable, RCU-published set of lunpaths a LUN sends I/O
 * to, rebuilt whenever a lunpath joins, leaves or changes state, or the
 * policy changes.  One allocation holds the map and the data its policy
 * derives from it, so kfree_rcu() frees both.
 */

#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include <mpath_shim/mpath_shim.h>

/*
 * The map of @paths (the best ALUA rank present) for @policy, and after them
 * @others (the lower ranks), for flushes only.  A policy without failover
 * keeps to @preferred alone; the rest of @paths join @others.
 */
struct mpath_path_map *
mpath_path_map_build_all(struct mpath_path * const *paths, unsigned int nr,
			 struct mpath_path * const *others,
			 unsigned int nr_others, struct mpath_path *preferred,
			 const struct mpath_policy *policy, gfp_t gfp)
{
	struct mpath_path * const *chosen = paths;
	struct mpath_path_map *map;
	unsigned int i, n, nr_chosen = nr;
	size_t size, data = 0;

	/* A policy without failover sends I/O to its one path or nowhere. */
	if (policy && (policy->flags & MPATH_PS_NO_FAILOVER)) {
		for (i = 0; i < nr && paths[i] != preferred; i++)
			;
		chosen = &paths[i];
		nr_chosen = i < nr;
	}
	if (policy && policy->data_size)
		data = policy->data_size(chosen, nr_chosen);
	size = ALIGN(struct_size_t(struct mpath_path_map, paths,
				   nr + nr_others), 8);
	map = kzalloc(size + data, gfp);
	if (!map)
		return NULL;
	map->policy = policy;
	map->nr = nr_chosen;
	for (i = 0; i < nr_chosen; i++) {
		map->paths[i] = chosen[i];
		if (chosen[i] == preferred)
			map->preferred = preferred;
	}
	n = nr_chosen;
	for (i = 0; i < nr; i++)
		if (nr_chosen < nr && paths[i] != preferred)
			map->paths[n++] = paths[i];
	for (i = 0; i < nr_others; i++)
		map->paths[n++] = others[i];
	map->nr_wc = n - nr_chosen;
	if (data) {
		map->ps_data = (char *)map + size;
		policy->build(map, map->ps_data);
	}
	return map;
}

bool mpath_path_map_has_usable(const struct mpath_path_map *map)
{
	unsigned int i;

	for (i = 0; map && i < map->nr; i++)
		if (mpath_path_usable(map->paths[i]))
			return true;
	return false;
}

struct mpath_selector *mpath_selector_alloc(const struct mpath_policy *policy)
{
	struct mpath_selector *sel;

	sel = kzalloc(sizeof(*sel), GFP_KERNEL);
	if (!sel)
		return NULL;
	sel->policy = policy;
	sel->pcpu = __alloc_percpu(max_t(size_t, policy->pcpu_size, 1),
				   sizeof(long));
	if (!sel->pcpu) {
		kfree(sel);
		return NULL;
	}
	return sel;
}

void mpath_selector_free(struct mpath_selector *sel)
{
	if (!sel)
		return;
	free_percpu(sel->pcpu);
	kfree(sel);
}

/*
 * An I/O that had @ahead bytes queued on @path (its own included) took @ns:
 * fold ns per KiB ahead into the path's cost, an EWMA with weight 1/8.
 */
void mpath_path_cost_update(struct mpath_path *path, u64 ns, u64 ahead)
{
	u64 sample = div64_u64(ns, max_t(u64, DIV_ROUND_UP_ULL(ahead, 1024), 1));
	u64 old = READ_ONCE(path->cost);

	WRITE_ONCE(path->cost, old ? old - (old >> 3) + (sample >> 3) : sample);
}
