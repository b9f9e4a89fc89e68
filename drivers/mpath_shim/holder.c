// SPDX-License-Identifier: GPL-2.0
/*
 * Holder links and the close of lunpath disks.
 *
 * /sys/block/mpathN/slaves/sdX and /sys/block/sdX/holders/mpathN, which
 * lsblk and udev read, link a LUN's disk with each attached lunpath's disk.
 * Before 6.8, bd_link_disk_holder() and bd_unlink_disk_holder() take the
 * LUN disk's open_mutex, and an opener of /dev/mpathN may hold it for as
 * long as the LUN holds I/O without a usable path: a partition scan reads
 * under it, for up to no_path_timeout seconds, or for ever.  A lunpath's
 * attach runs on the ordered mpath_wq and its detach in the SCSI removal
 * (the host's scan_mutex held) or sd's unbind (the device lock held), so
 * neither may wait for that mutex.  They queue their part on the LUN's
 * holder work instead, in order: the attach a link, the detach the close
 * of the disk, which unlinks first, as dm does.  Until then the record
 * keeps the disk open, which keeps it and its drivers there.
 *
 * The attach gives the record to the path when it publishes the disk and
 * queues the link once the LUN's disk is added, if the path still has it;
 * the detach takes it back with the disk under mpath_shim.lock, so the two
 * never both act on one disk.  The LUN's removal fails its held I/O and
 * then waits for the work, before it deletes its disk.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/file.h>
#include <linux/slab.h>

#include <mpath_shim/mpath_shim.h>

enum mpath_holder_op {
	MPATH_HOLDER_NONE,	/* nothing queued yet */
	MPATH_HOLDER_LINK,
	MPATH_HOLDER_CLOSE,
};

/**
 * struct mpath_holder - a lunpath disk's holder link, and its close
 * @node:	entry in the LUN's @holder_ops while @op waits there, else
 *		empty; under mpath_shim.lock
 * @op:		what the holder work does with it next; under mpath_shim.lock
 * @bdev:	the lunpath's disk
 * @bdev_file:	its open file, the record's from the detach on
 * @tell_udev:	send a change event for @bdev after the close (it is no
 *		longer a lunpath, and stays)
 * @linked:	bd_link_disk_holder() succeeded; the holder work only
 */
struct mpath_holder {
	struct list_head	node;
	enum mpath_holder_op	op;
	struct block_device	*bdev;
	struct file		*bdev_file;
	bool			tell_udev;
	bool			linked;
};

struct mpath_holder *mpath_holder_alloc(struct block_device *bdev)
{
	struct mpath_holder *h;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return NULL;
	INIT_LIST_HEAD(&h->node);
	h->bdev = bdev;
	return h;
}

/* Not published: the attach let go of its disk itself. */
void mpath_holder_free(struct mpath_holder *h)
{
	kfree(h);
}

static void mpath_holder_queue(struct mpath_lun *lun, struct mpath_holder *h,
			       enum mpath_holder_op op)
{
	lockdep_assert_held(&mpath_shim.lock);

	h->op = op;
	/* A link not done yet is not done at all. */
	if (list_empty(&h->node))
		list_add_tail(&h->node, &lun->holder_ops);
	queue_work(mpath_holder_wq, &lun->holder_work);
}

/* Link @lun's disk as holder of @h's disk, which a lunpath holds. */
void mpath_holder_queue_link(struct mpath_lun *lun, struct mpath_holder *h)
{
	mpath_holder_queue(lun, h, MPATH_HOLDER_LINK);
}

/* The detach: unlink and close @bdev_file, @h's disk, which it hands over. */
void mpath_holder_queue_close(struct mpath_lun *lun, struct mpath_holder *h,
			      struct file *bdev_file, bool tell_udev)
{
	lockdep_assert_held(&mpath_shim.lock);

	h->bdev_file = bdev_file;
	h->tell_udev = tell_udev;
	mpath_holder_queue(lun, h, MPATH_HOLDER_CLOSE);
}

/*
 * Link @lun's disk as holder of @bdev.  A removal may have queued the close
 * meanwhile and be deleting @bdev's disk, whose holders directory
 * del_gendisk() drops: 6.1's bd_link_disk_holder() would use it unchecked,
 * so hold it here while the disk is live, as later kernels do themselves.
 */
static int mpath_holder_link(struct mpath_lun *lun, struct block_device *bdev)
{
	struct gendisk *slave = bdev->bd_disk;
	struct kobject *dir;
	int ret;

	mutex_lock(&slave->open_mutex);
	if (!disk_live(slave)) {
		mutex_unlock(&slave->open_mutex);
		return -ENODEV;
	}
	dir = kobject_get(bdev->bd_holder_dir);
	mutex_unlock(&slave->open_mutex);
	ret = bd_link_disk_holder(bdev, lun->disk);
	kobject_put(dir);
	return ret;
}

/* A LUN's links and closes, in order; on mpath_holder_wq. */
void mpath_holder_work(struct work_struct *work)
{
	struct mpath_lun *lun = container_of(work, struct mpath_lun,
					     holder_work);
	struct mpath_holder *h;
	enum mpath_holder_op op;
	int ret;

	for (;;) {
		mpath_lock();
		h = list_first_entry_or_null(&lun->holder_ops,
					     struct mpath_holder, node);
		if (h) {
			list_del_init(&h->node);
			op = h->op;
		}
		mpath_unlock();
		if (!h)
			return;

		/* Both wait while an opener of the LUN holds its open_mutex. */
		if (op == MPATH_HOLDER_LINK) {
			ret = mpath_holder_link(lun, h->bdev);
			if (ret) {
				/* Not worth a word if the disk is going. */
				if (ret != -ENODEV)
					pr_warn("mpath%d: no holder link to %pg: %d\n",
						lun->name->index, h->bdev, ret);
				continue;
			}
			h->linked = true;
			/*
			 * udev: the disk is a lunpath now (holders/mpathN),
			 * and so are its partitions (the table sd read).
			 */
			disk_uevent(h->bdev->bd_disk, KOBJ_CHANGE);
			continue;
		}
		if (h->linked) {
			bd_unlink_disk_holder(h->bdev, lun->disk);
			if (h->tell_udev)
				disk_uevent(h->bdev->bd_disk, KOBJ_CHANGE);
		}
		bdev_fput(h->bdev_file);
		kfree(h);
	}
}

/*
 * Before @lun's disk is deleted, with no lunpath left to close and its
 * held I/O failed: every link undone and every disk closed, including the
 * final put a kworker's fput() defers, which releases the low-level
 * driver's module (rmmod of it right after ours finds it unused).
 */
void mpath_holder_flush(struct mpath_lun *lun)
{
	flush_work(&lun->holder_work);
	flush_delayed_fput();
}
