// SPDX-License-Identifier: GPL-2.0
/*
 * Holder links: /sys/block/mpathN/slaves/sdX and /sys/block/sdX/holders/mpathN,
 * which lsblk and udev read, one per attached lunpath.
 *
 * bd_link_disk_holder() and bd_unlink_disk_holder() take the LUN disk's
 * open_mutex, and an opener of /dev/mpathN may hold it for as long as the
 * LUN holds I/O without a usable path: a partition scan reads under it, for
 * up to no_path_timeout seconds, or for ever.  A lunpath's detach runs in
 * the SCSI removal (the host's scan_mutex held) and in sd's unbind (the
 * device lock held), so it must not wait for that mutex: it hands the
 * unlink to the LUN's holder work instead, which unlinks once the mutex is
 * free.  The path's disk is closed at once; the record keeps a reference on
 * the disk's device and its driver's module, which the unlink needs.  The
 * LUN's removal fails its held I/O and then waits for this work before it
 * deletes its disk (the block layer drops a holder disk's slaves directory
 * there).  The link is made by the attach after the path is published, so
 * an opener waiting for a path gets it before the attach waits for the
 * mutex.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <mpath_shim/mpath_shim.h>

/**
 * struct mpath_holder - the holder link of one lunpath's disk
 * @node:	entry in the LUN's @holders_gone once the disk is closed,
 *		under mpath_shim.lock
 * @bdev:	the lunpath's disk; a reference on its device and its driver's
 *		module is held from the close to the unlink
 * @tell_udev:	send a change event for @bdev once unlinked (it is no
 *		longer a lunpath, and stays)
 */
struct mpath_holder {
	struct list_head	node;
	struct block_device	*bdev;
	bool			tell_udev;
};

/*
 * Link @lun's disk as holder of @bdev, which the caller has open; NULL if
 * it could not be linked (the links are for tools: the path works without).
 */
struct mpath_holder *mpath_holder_link(struct mpath_lun *lun,
				       struct block_device *bdev)
{
	struct mpath_holder *h;
	int ret;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return NULL;
	ret = bd_link_disk_holder(bdev, lun->disk);
	if (ret) {
		pr_warn("mpath%d: no holder link to %pg: %d\n",
			lun->name->index, bdev, ret);
		kfree(h);
		return NULL;
	}
	h->bdev = bdev;
	INIT_LIST_HEAD(&h->node);
	return h;
}

/*
 * @h's disk is about to be closed: unlink it on the LUN's holder work.
 * Called with the disk still open, so that its device and module can be
 * held until then.
 */
void mpath_holder_unlink(struct mpath_lun *lun, struct mpath_holder *h,
			 bool tell_udev)
{
	struct gendisk *disk = h->bdev->bd_disk;

	get_device(disk_to_dev(disk));
	__module_get(disk->fops->owner);
	h->tell_udev = tell_udev;
	mutex_lock(&mpath_shim.lock);
	list_add_tail(&h->node, &lun->holders_gone);
	mutex_unlock(&mpath_shim.lock);
	queue_work(mpath_holder_wq, &lun->holder_work);
}

/* Unlink the closed lunpath disks of a LUN; on mpath_holder_wq. */
void mpath_holder_work(struct work_struct *work)
{
	struct mpath_lun *lun = container_of(work, struct mpath_lun,
					     holder_work);
	struct mpath_holder *h, *next;
	LIST_HEAD(gone);

	mutex_lock(&mpath_shim.lock);
	list_splice_init(&lun->holders_gone, &gone);
	mutex_unlock(&mpath_shim.lock);

	list_for_each_entry_safe(h, next, &gone, node) {
		struct gendisk *disk = h->bdev->bd_disk;
		struct module *owner = disk->fops->owner;

		/* Waits while an opener of the LUN holds its open_mutex. */
		bd_unlink_disk_holder(h->bdev, lun->disk);
		if (h->tell_udev)
			kobject_uevent(&disk_to_dev(disk)->kobj, KOBJ_CHANGE);
		put_device(disk_to_dev(disk));
		module_put(owner);
		kfree(h);
	}
}

/*
 * Before @lun's disk is deleted, with no lunpath left to close and its
 * held I/O failed: every unlink done.
 */
void mpath_holder_flush(struct mpath_lun *lun)
{
	flush_work(&lun->holder_work);
}
