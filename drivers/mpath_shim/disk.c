// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/mpathN: the bio-based gendisk of a LUN.
 *
 * The disk is allocated with the LUN and added when its first lunpath is
 * attached, with that path's capacity; each attached path's queue limits
 * are stacked onto it.  The partition scan runs from a work item rather than
 * inside device_add_disk(), as NVMe multipath does, so that I/O waiting for
 * a path never blocks the work that attaches paths.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/blkdev.h>

#include <mpath_shim/mpath_shim.h>

static ssize_t wwid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct mpath_lun *lun = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%s\n", lun->wwid);
}
static DEVICE_ATTR_RO(wwid);

/* For udev: /dev/mpath/ALIAS (the LUN's alias is set in its sysfs). */
static ssize_t alias_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct mpath_lun *lun = dev_to_disk(dev)->private_data;
	char alias[MPATH_ALIAS_LEN];

	mpath_name_alias(&mpath_shim.names, lun->name, alias);
	return sysfs_emit(buf, "%s\n", alias);
}
static DEVICE_ATTR_RO(alias);

static struct attribute *mpath_disk_attrs[] = {
	&dev_attr_wwid.attr,
	&dev_attr_alias.attr,
	NULL,
};

static const struct attribute_group mpath_disk_group = {
	.attrs = mpath_disk_attrs,
};

static const struct attribute_group *mpath_disk_groups[] = {
	&mpath_disk_group,
	NULL,
};

int mpath_disk_alloc(struct mpath_lun *lun)
{
	struct queue_limits lim;
	struct gendisk *disk;
	int ret;

	ret = mpath_io_pool_init(lun);
	if (ret)
		goto out;
	blk_set_stacking_limits(&lim);
	/* Not zoned: a stacking limit here fails validation (6.12). */
	lim.max_zone_append_sectors = 0;
	disk = blk_alloc_disk(&lim, NUMA_NO_NODE);
	if (IS_ERR(disk)) {
		ret = PTR_ERR(disk);
		goto out_io_pool;
	}
	disk->fops = &mpath_fops;
	disk->private_data = lun;
	snprintf(disk->disk_name, DISK_NAME_LEN, "mpath%d", lun->name->index);
	/* One minor, as dm: partitions get blkext minors. */
	BUILD_BUG_ON(MPATH_MAX_INDEX > MINORMASK);
	disk->major = mpath_major;
	disk->first_minor = lun->name->index;
	disk->minors = 1;
	set_bit(GD_SUPPRESS_PART_SCAN, &disk->state);
	lun->disk = disk;
	return 0;

out_io_pool:
	mpath_io_pool_exit(lun);
out:
	return ret;
}

/*
 * Rotational, stable pages (digests, DIX), a volatile write cache and FUA
 * if any path has them.
 */
static void mpath_limits_stack(struct mpath_disk_limits *l,
			       struct block_device *bdev, const char *name)
{
	queue_limits_stack_bdev(&l->lim, bdev, 0, name);
	l->discard &= bdev_max_discard_sectors(bdev) != 0;
	l->write_zeroes &= bdev_write_zeroes_sectors(bdev) != 0;
	l->nowait &= bdev_nowait(bdev);
	if (bdev_rot(bdev))
		l->features |= BLK_FEAT_ROTATIONAL;
	if (bdev_stable_writes(bdev))
		l->features |= BLK_FEAT_STABLE_WRITES;
	if (bdev_write_cache(bdev))
		l->features |= BLK_FEAT_WRITE_CACHE;
	if (bdev_fua(bdev))
		l->features |= BLK_FEAT_FUA;
	l->ro |= bdev_read_only(bdev);
}

/*
 * How long a limits update waits for /dev/mpathN's queue to freeze.  A
 * submitter may sleep inside ->submit_bio, in bio_split_to_limits()'s
 * mempool, for a split bio held by I/O in the host queue, which waits for
 * the very lunpath whose attach is updating the limits.  Past this the
 * limits are committed with the freeze started (no submitter enters) but
 * not complete: the submitters still inside sleep past their split, and a
 * bio split to the old limits is split again by the path disk's queue.
 */
#define MPATH_LIMITS_FREEZE_TIMEOUT	HZ

/*
 * Commit @l to /dev/mpathN's queue, keeping what the administrator set in
 * its queue/ files (max_sectors_kb, discard_max_bytes, write_cache,
 * rotational, stable_writes, iostats, add_random) once the disk has its
 * paths' limits: a feature she turned on or off since the last commit stays
 * as she set it from then on (stable pages only on while a path needs
 * them).  Her read_ahead_kb stays too (a 6.9+ commit sets it from io_opt,
 * as a dm table load does).  Returns 0, or the error the block layer
 * refused them with.
 */
static int mpath_disk_commit_limits(struct mpath_lun *lun,
				    struct mpath_disk_limits *l)
{
	struct mpath_queue_admin *a = &lun->queue_admin;
	struct request_queue *q = lun->disk->queue;
	blk_features_t features = l->features, now, changed;
	struct queue_limits cur;
	unsigned long ra;
	bool frozen;
	int ret;

	lockdep_assert_held(&lun->limits_lock);

	if (mpath_should_fail(MPATH_FAULT_LIMITS))
		return -EINVAL;
	cur = queue_limits_start_update(q);
	ra = READ_ONCE(lun->disk->bdi->ra_pages);
	if (lun->limits_set) {
		now = mpath_queue_admin_features(q);
		changed = now ^ a->committed;
		a->set |= changed;
		a->on = (a->on & ~changed) | (now & changed);
		features = (features & ~a->set) | (a->on & a->set);
		/* Not off while a path needs stable pages (DIX, digests). */
		features |= l->features & BLK_FEAT_STABLE_WRITES;
		mpath_limits_keep_user(&l->lim, &cur, q, a);
		/* Hers, unless the block layer set it (her limit writes). */
		if (ra != a->committed_ra) {
			a->ra_set = ra != mpath_default_ra(&cur);
			a->ra_pages = ra;
		}
	}
	frozen = mpath_freeze_queue_timeout(q, MPATH_LIMITS_FREEZE_TIMEOUT);
	ret = mpath_queue_limits_commit(q, &l->lim, features, a);
	mpath_unfreeze_queue(q);
	if (!ret)
		mpath_queue_keep_ra(q, a);
	if (!frozen)
		pr_info_ratelimited("%s: queue limits updated with a submitter asleep in submit_bio\n",
				    lun->disk->disk_name);
	return ret;
}

/*
 * Recompute /dev/mpathN's queue limits and flags from the disks of its
 * lunpaths, published or about to be (@joining_bdev: the attach has stacked
 * it and may wait for the LUN's pr_lock before it publishes it; a recompute
 * meanwhile, a probe tick or another lunpath's detach, must not commit
 * limits that leave out a disk about to carry I/O), as if they were stacked
 * anew: a limit a departed path imposed goes with it, discard,
 * write zeroes and REQ_NOWAIT only if every path has them, stable pages and
 * read-only if any path needs them, a write cache (and FUA) if any path has
 * one.  What the administrator set on the queue is kept.  Called
 * when a path's disk is published or let go, and on every probe tick (sd
 * may turn UNMAP or the write cache off on a path without telling us).
 */
void mpath_disk_update_limits(struct mpath_lun *lun)
{
	const char *name = lun->disk->disk_name;
	struct mpath_disk_limits l;
	struct block_device *bdev;
	struct mpath_path *path;
	unsigned int n = 0;
	bool same;
	int ret;

	memset(&l, 0, sizeof(l));
	l.discard = l.write_zeroes = l.nowait = true;
	l.features = BLK_FEAT_IO_STAT;
	blk_set_stacking_limits(&l.lim);

	mutex_lock(&lun->limits_lock);
	/* A path's disk stays open while it is set, under the locks. */
	mpath_lock();
	list_for_each_entry(path, &lun->paths, lun_node) {
		bdev = path->bdev ?: path->joining_bdev;
		if (bdev) {
			mpath_limits_stack(&l, bdev, name);
			n++;
		}
	}
	mpath_unlock();
	if (!n)
		goto out;	/* no path: keep what it had */
	if (!l.discard) {
		l.lim.max_discard_sectors = 0;
		l.lim.max_hw_discard_sectors = 0;
	}
	if (!l.write_zeroes)
		l.lim.max_write_zeroes_sectors = 0;
	if (l.nowait)
		l.features |= BLK_FEAT_NOWAIT;
	l.lim.max_zone_append_sectors = 0;

	/*
	 * Unchanged since last tried: leave the queue (and its admin) be.
	 * Once the disk has its paths' limits, limits the block layer refused
	 * are not tried again, with a queue freeze and a message on every
	 * probe tick, until the paths' change (its validation gives the same
	 * answer for the same limits).  Before that the disk has only the
	 * defaults it was allocated with: tried on every tick, said once.
	 */
	same = lun->stacked_valid && !memcmp(&l, &lun->stacked, sizeof(l));
	if (!same || !lun->limits_set) {
		memcpy(&lun->stacked, &l, sizeof(l));
		lun->stacked_valid = true;
		ret = mpath_disk_commit_limits(lun, &l);
		if (!ret)
			lun->limits_set = true;
		else if (!same)
			pr_warn("%s: queue limits not updated: %d (%s)\n", name, ret,
				lun->limits_set ? "kept until its lunpaths' limits change" :
				"tried again at each probe tick");
	}
	if (get_disk_ro(lun->disk) != l.ro)
		set_disk_ro(lun->disk, l.ro);
out:
	mutex_unlock(&lun->limits_lock);
}

/* Runs on mpath_wq, without mpath_shim.lock. */
int mpath_disk_add(struct mpath_lun *lun, sector_t capacity)
{
	int ret;

	set_capacity(lun->disk, capacity);
	if (mpath_should_fail(MPATH_FAULT_DISK_ADD))
		ret = -ENOMEM;
	else
		ret = device_add_disk(NULL, lun->disk, mpath_disk_groups);
	if (ret)
		return ret;
	lun->disk_added = true;
	/* Here, on mpath_wq: after the debugfs of an earlier LUN of the name. */
	mpath_debugfs_lun_add(lun);
	ret = sysfs_create_link(&lun->kobj, &disk_to_dev(lun->disk)->kobj,
				"disk");
	if (ret)
		pr_warn("mpath%d: no disk link in sysfs: %d\n", lun->name->index, ret);
	queue_work(system_wq, &lun->scan_work);
	return 0;
}

void mpath_disk_scan_work(struct work_struct *work)
{
	struct mpath_lun *lun = container_of(work, struct mpath_lun, scan_work);

	if (!test_and_clear_bit(GD_SUPPRESS_PART_SCAN, &lun->disk->state))
		return;
	mutex_lock(&lun->disk->open_mutex);
	bdev_disk_changed(lun->disk, false);
	mutex_unlock(&lun->disk->open_mutex);
}

/*
 * Follow a capacity change of the LUN: its capacity is the smallest that a
 * lunpath with an open disk reports, so that no I/O goes past the end of
 * any path's disk (a LUN grown on the array grows here once every path has
 * seen it; one shrunk shrinks as soon as one path has).
 */
void mpath_disk_follow_capacity(struct mpath_lun *lun)
{
	struct mpath_path *path;
	sector_t size = 0, n;

	mpath_lock();
	list_for_each_entry(path, &lun->paths, lun_node) {
		/* 0: sd could not read it (READ CAPACITY refused), not empty. */
		n = path->bdev ? bdev_nr_sectors(path->bdev) : 0;
		if (n && (!size || n < size))
			size = n;
	}
	mpath_unlock();
	if (size && lun->disk_added && size != get_capacity(lun->disk)) {
		pr_info("mpath%d: capacity %llu -> %llu sectors\n", lun->name->index,
			(unsigned long long)get_capacity(lun->disk),
			(unsigned long long)size);
		set_capacity_and_notify(lun->disk, size);
	}
}

/* The LUN has no lunpath left: delete the disk (openers get errors). */
void mpath_disk_remove(struct mpath_lun *lun)
{
	if (lun->disk_added) {
		del_gendisk(lun->disk);
		lun->disk_added = false;
	}
}

void mpath_disk_free(struct mpath_lun *lun)
{
	put_disk(lun->disk);
	mpath_io_pool_exit(lun);
}
