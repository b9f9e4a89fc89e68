// SPDX-License-Identifier: GPL-2.0
/*
 * The I/O path of /dev/mpathN.
 *
 * submit_bio splits the bio to the LUN's limits, starts block-layer
 * accounting, clones it from the LUN's bio_set (the front pad is struct
 * mpath_io) and sends the clone to a lunpath chosen from the RCU-published
 * path map.  Written per I/O, besides the bios themselves: the submitting
 * CPU's round-robin cursor (per CPU) and the chosen path's percpu_ref.  No
 * lock is taken and no shared counter is written.
 *
 * A clone that fails with a path error (blk_path_error()) fails its path and
 * goes to the LUN's requeue list; the requeue work sends it again, cloned
 * afresh from the original, on another path.  Any other error ends the
 * original bio.  With no usable path, clones wait in the requeue list until
 * a path returns or the LUN's no_path_timeout expires.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/ktime.h>
#include <trace/events/block.h>

#include <mpath_shim/mpath_shim.h>

static struct mpath_io *to_io(struct bio *clone)
{
	return container_of(clone, struct mpath_io, clone);
}

static void mpath_io_end(struct mpath_io *io, blk_status_t status)
{
	struct bio *orig = io->orig;

	if (status)
		orig->bi_status = status;
	bio_end_io_acct(orig, io->start);
	bio_put(&io->clone);
	bio_endio(orig);
}

void mpath_kick_requeue(struct mpath_lun *lun)
{
	kblockd_schedule_work(&lun->requeue_work);
}

static void mpath_requeue_add(struct mpath_lun *lun, struct mpath_io *io)
{
	unsigned long flags;

	spin_lock_irqsave(&lun->requeue_lock, flags);
	bio_list_add(&lun->requeue_list, &io->clone);
	spin_unlock_irqrestore(&lun->requeue_lock, flags);
}

/* Undo the load accounting of a counted I/O, and learn from its time. */
static void mpath_io_uncount(struct mpath_io *io, struct mpath_path *path,
			     blk_status_t status)
{
	atomic_dec(&path->nr_active);
	atomic64_sub(io->bytes, &path->active_bytes);
	if (!status)
		mpath_path_cost_update(path, ktime_get_ns() - io->sent_ns,
				       io->ahead);
}

static void mpath_clone_end_io(struct bio *clone)
{
	struct mpath_io *io = to_io(clone);
	struct mpath_path *path = io->path;
	struct mpath_lun *lun = path->lun;
	blk_status_t status = clone->bi_status;

	if (io->counted)
		mpath_io_uncount(io, path, status);
	if (unlikely(status) && blk_path_error(status)) {
		/* Queue it while our path reference keeps the LUN alive. */
		mpath_path_fail(path);
		io->path = NULL;
		mpath_requeue_add(lun, io);
		mpath_kick_requeue(lun);
		percpu_ref_put(&path->ref);
		return;
	}
	mpath_io_end(io, status);
	percpu_ref_put(&path->ref);
}

/*
 * A usable path of @lun for @io, chosen by the LUN's policy, with a
 * reference on its ref; NULL if there is none.
 */
static struct mpath_path *mpath_get_path(struct mpath_lun *lun,
					 struct mpath_io *io)
{
	struct mpath_selector *sel;
	struct mpath_path_map *map;
	struct mpath_path *path;
	unsigned int i;

	rcu_read_lock();
	map = rcu_dereference(lun->map);
	sel = rcu_dereference(lun->sel);
	if (!map || !map->nr)
		goto none;
	path = mpath_selector_select(sel, map, numa_node_id(), io->bytes);
	if (path && percpu_ref_tryget_live(&path->ref))
		goto found;
	if (sel->policy->flags & MPATH_PS_NO_FAILOVER)
		goto none;
	/* The choice went bad under us (failing or leaving): take any. */
	for (i = 0; i < map->nr; i++) {
		path = map->paths[i];
		if (mpath_path_usable(path) && percpu_ref_tryget_live(&path->ref))
			goto found;
	}
none:
	rcu_read_unlock();
	return NULL;
found:
	io->counted = sel->policy->flags & MPATH_PS_TRACK_LOAD;
	rcu_read_unlock();
	if (io->counted) {
		atomic_inc(&path->nr_active);
		io->ahead = atomic64_add_return(io->bytes, &path->active_bytes);
		io->sent_ns = ktime_get_ns();
	}
	return path;
}

/* No usable path: hold the I/O, or fail it if the LUN gave up waiting. */
static void mpath_hold_io(struct mpath_lun *lun, struct mpath_io *io)
{
	if (READ_ONCE(lun->nopath_expired) || !READ_ONCE(lun->no_path_timeout)) {
		mpath_io_end(io, BLK_STS_IOERR);
		return;
	}
	mpath_requeue_add(lun, io);
	/* A path may have been published since we looked: do not strand it. */
	if (mpath_lun_has_path(lun))
		mpath_kick_requeue(lun);
}

static void mpath_dispatch(struct mpath_lun *lun, struct mpath_io *io)
{
	struct mpath_path *path = mpath_get_path(lun, io);
	struct bio *clone;

	if (unlikely(!path)) {
		mpath_hold_io(lun, io);
		return;
	}
	if (unlikely(io->spent)) {
		/* A clone is sent once; send a fresh one. */
		struct mpath_io *old = io;

		clone = bio_alloc_clone(path->bdev, old->orig, GFP_NOIO, &lun->bs);
		if (unlikely(!clone)) {
			if (old->counted)
				mpath_io_uncount(old, path, BLK_STS_RESOURCE);
			percpu_ref_put(&path->ref);
			mpath_io_end(old, BLK_STS_RESOURCE);
			return;
		}
		io = to_io(clone);
		io->orig = old->orig;
		io->start = old->start;
		io->counted = old->counted;
		io->bytes = old->bytes;
		io->ahead = old->ahead;
		io->sent_ns = old->sent_ns;
		bio_put(&old->clone);
	} else {
		clone = &io->clone;
		bio_set_dev(clone, path->bdev);
	}
	io->path = path;
	io->spent = true;
	clone->bi_opf |= REQ_FAILFAST_TRANSPORT;
	clone->bi_end_io = mpath_clone_end_io;
	trace_block_bio_remap(clone, disk_devt(lun->disk),
			      io->orig->bi_iter.bi_sector);
	submit_bio_noacct(clone);
}

void mpath_submit_bio(struct bio *bio)
{
	struct mpath_lun *lun = bio->bi_bdev->bd_disk->private_data;
	struct mpath_io *io;
	struct bio *clone;

	bio = bio_split_to_limits(bio);
	if (!bio)
		return;
	clone = bio_alloc_clone(NULL, bio, GFP_NOIO, &lun->bs);
	if (unlikely(!clone)) {
		bio->bi_status = BLK_STS_RESOURCE;
		bio_endio(bio);
		return;
	}
	io = to_io(clone);
	io->orig = bio;
	io->path = NULL;
	io->spent = false;
	io->counted = false;
	io->bytes = bio->bi_iter.bi_size;
	io->start = bio_start_io_acct(bio);
	mpath_dispatch(lun, io);
}

void mpath_requeue_work(struct work_struct *work)
{
	struct mpath_lun *lun = container_of(work, struct mpath_lun,
					     requeue_work);
	struct bio_list list;
	struct bio *clone;

	spin_lock_irq(&lun->requeue_lock);
	list = lun->requeue_list;
	bio_list_init(&lun->requeue_list);
	spin_unlock_irq(&lun->requeue_lock);

	while ((clone = bio_list_pop(&list)))
		mpath_dispatch(lun, to_io(clone));
}

/* End every held I/O with an error. */
void mpath_fail_queued(struct mpath_lun *lun)
{
	struct bio_list list;
	struct bio *clone;

	spin_lock_irq(&lun->requeue_lock);
	list = lun->requeue_list;
	bio_list_init(&lun->requeue_list);
	spin_unlock_irq(&lun->requeue_lock);

	while ((clone = bio_list_pop(&list)))
		mpath_io_end(to_io(clone), BLK_STS_IOERR);
}

/* The LUN has had no usable path for no_path_timeout seconds. */
void mpath_nopath_work(struct work_struct *work)
{
	struct mpath_lun *lun = container_of(to_delayed_work(work),
					     struct mpath_lun, nopath_work);
	bool remove;

	mutex_lock(&mpath_shim.lock);
	if (lun->dying || mpath_lun_has_path(lun)) {
		mutex_unlock(&mpath_shim.lock);
		return;
	}
	WRITE_ONCE(lun->nopath_expired, true);
	remove = !lun->nr_paths;
	mutex_unlock(&mpath_shim.lock);

	pr_warn("mpath%d: no usable path for %d s: failing I/O\n", lun->index,
		READ_ONCE(lun->no_path_timeout));
	mpath_fail_queued(lun);
	if (remove)
		queue_work(mpath_wq, &lun->remove_work);
}
