// SPDX-License-Identifier: GPL-2.0
/*
 * Path maps: the immutable, RCU-published set of lunpaths a LUN sends I/O
 * to, rebuilt whenever a lunpath joins, leaves or changes state.
 */

#include <linux/slab.h>

#include <mpath_shim/mpath_shim.h>

struct mpath_path_map *mpath_path_map_alloc(unsigned int nr, gfp_t gfp)
{
	return kzalloc(struct_size_t(struct mpath_path_map, paths, nr), gfp);
}

/* Does @lun have a path I/O can go to now? */
bool mpath_lun_has_path(struct mpath_lun *lun)
{
	struct mpath_path_map *map;
	bool ret = false;
	unsigned int i;

	rcu_read_lock();
	map = rcu_dereference(lun->map);
	for (i = 0; map && i < map->nr && !ret; i++)
		ret = mpath_path_usable(map->paths[i]);
	rcu_read_unlock();
	return ret;
}

/*
 * Build the map of @lun's usable lunpaths and publish it.  A LUN that gains
 * a path dispatches its held I/O; one that loses its last path starts the
 * no-path timer.
 */
void mpath_lun_publish_map(struct mpath_lun *lun)
{
	struct mpath_path_map *map, *old;
	struct mpath_path *path;
	unsigned int nr = 0;
	int timeout;

	lockdep_assert_held(&mpath_shim.lock);

	/* A few pointers: never worth failing a state change for. */
	map = mpath_path_map_alloc(lun->nr_paths, GFP_KERNEL | __GFP_NOFAIL);
	list_for_each_entry(path, &lun->paths, lun_node)
		if (mpath_path_usable(path))
			map->paths[nr++] = path;
	map->nr = nr;
	old = rcu_replace_pointer(lun->map, map,
				  lockdep_is_held(&mpath_shim.lock));
	if (old)
		kfree_rcu(old, rcu);

	if (nr) {
		lun->had_path = true;
		WRITE_ONCE(lun->nopath_expired, false);
		cancel_delayed_work(&lun->nopath_work);
		mpath_kick_requeue(lun);
	} else if (lun->had_path) {
		lun->had_path = false;
		timeout = READ_ONCE(lun->no_path_timeout);
		if (timeout >= 0)
			mod_delayed_work(system_wq, &lun->nopath_work,
					 (unsigned long)timeout * HZ);
	}
}
