// SPDX-License-Identifier: GPL-2.0
/*
 * Lunpaths: one object per scsi_device through which a LUN is reached.
 *
 * A lunpath is created when its scsi_device appears and attached when sd
 * has bound to it: its disk is opened exclusively with the LUN as holder,
 * and from then on it can carry I/O.  Until then, and after a path error,
 * it is "failed"; the LUN's probe work attaches it or, with a TEST UNIT
 * READY, finds it answering again and makes it "active".
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/slab.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_eh.h>
#include <scsi/scsi_host.h>

#include <mpath_shim/mpath_shim.h>

#define MPATH_FMODE	(FMODE_READ | FMODE_WRITE | FMODE_EXCL)

static struct mpath_path *mpath_path_find(struct scsi_device *sdev)
{
	struct mpath_lun *lun;
	struct mpath_path *path;

	lockdep_assert_held(&mpath_shim.lock);

	list_for_each_entry(lun, &mpath_shim.luns, node)
		list_for_each_entry(path, &lun->paths, lun_node)
			if (path->sdev == sdev)
				return path;
	return NULL;
}

static void mpath_path_ref_release(struct percpu_ref *ref)
{
	struct mpath_path *path = container_of(ref, struct mpath_path, ref);

	complete(&path->drained);
}

static int mpath_match_disk(struct device *dev, void *data)
{
	return dev->class && !strcmp(dev->class->name, "block") &&
	       dev->type && !strcmp(dev->type->name, "disk");
}

/* The sd disk of @sdev, 0 if sd has not bound. */
static dev_t mpath_sd_devt(struct scsi_device *sdev)
{
	struct device *dev;
	dev_t devt;

	dev = device_find_child(&sdev->sdev_gendev, NULL, mpath_match_disk);
	if (!dev)
		return 0;
	devt = dev->devt;
	put_device(dev);
	return devt;
}

/* Open the path's disk and make the path usable; on mpath_wq. */
void mpath_path_attach_work(struct work_struct *work)
{
	struct mpath_path *path = container_of(work, struct mpath_path,
					       attach_work);
	struct mpath_lun *lun = path->lun;
	struct block_device *bdev;
	dev_t devt;
	int ret;

	if (path->bdev || READ_ONCE(path->state) == MPATH_PATH_REMOVING)
		return;
	devt = mpath_sd_devt(path->sdev);
	if (!devt)
		return;
	bdev = blkdev_get_by_dev(devt, MPATH_FMODE, lun);
	if (IS_ERR(bdev)) {
		sdev_printk(KERN_WARNING, path->sdev,
			    "mpath_shim: cannot claim the disk: %ld\n",
			    PTR_ERR(bdev));
		return;
	}
	if (!bdev_nr_sectors(bdev))
		goto out_put;	/* not ready; the probe tries again */
	ret = percpu_ref_init(&path->ref, mpath_path_ref_release, 0,
			      GFP_KERNEL);
	if (ret)
		goto out_put;
	reinit_completion(&path->drained);
	path->bdev = bdev;
	mpath_disk_stack_limits(lun, path);

	mutex_lock(&mpath_shim.lock);
	if (path->state == MPATH_PATH_REMOVING || path->detaching || lun->dying) {
		mpath_path_restore_timeout(path);
		path->bdev = NULL;
		mutex_unlock(&mpath_shim.lock);
		goto out_exit;
	}
	if (path->state == MPATH_PATH_FAILED)
		WRITE_ONCE(path->state, MPATH_PATH_ACTIVE);
	mpath_path_apply_timeout(path);
	mpath_lun_publish_map(lun);
	mutex_unlock(&mpath_shim.lock);

	if (!lun->disk_added) {
		ret = mpath_disk_add(lun, path);
		if (ret)
			pr_err("mpath%d: cannot add the disk: %d\n", lun->index,
			       ret);
	}
	if (lun->disk_added && !bd_link_disk_holder(bdev, lun->disk))
		path->holder_linked = true;
	sdev_printk(KERN_INFO, path->sdev, "mpath_shim: %pg is a path of %s\n",
		    bdev, lun->disk->disk_name);
	return;

out_exit:
	percpu_ref_exit(&path->ref);
out_put:
	blkdev_put(bdev, MPATH_FMODE);
}

/*
 * Wait for the I/O in flight on @path and close its disk.  The path must
 * no longer be in the LUN's map, and its attach work must not be running.
 */
static void mpath_path_detach(struct mpath_path *path)
{
	struct block_device *bdev;

	/* A second caller (removal racing an unbind) waits for the first. */
	mutex_lock(&path->detach_lock);
	bdev = path->bdev;
	if (!bdev)
		goto out;
	percpu_ref_kill(&path->ref);
	wait_for_completion(&path->drained);
	/* No reader of an older map may still try the ref. */
	synchronize_rcu();
	percpu_ref_exit(&path->ref);

	mutex_lock(&mpath_shim.lock);
	mpath_path_restore_timeout(path);
	path->bdev = NULL;
	path->detaching = false;
	mutex_unlock(&mpath_shim.lock);
	if (path->holder_linked)
		bd_unlink_disk_holder(bdev, path->lun->disk);
	path->holder_linked = false;
	blkdev_put(bdev, MPATH_FMODE);
out:
	mutex_unlock(&path->detach_lock);
}

int mpath_path_add(struct scsi_device *sdev, const char *wwid)
{
	struct mpath_path *path;
	struct mpath_lun *lun;
	struct mpath_hba *hba;
	int ret;

	path = kzalloc(sizeof(*path), GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	kobject_init(&path->kobj, &mpath_path_ktype);
	INIT_LIST_HEAD(&path->lun_node);
	INIT_WORK(&path->attach_work, mpath_path_attach_work);
	mutex_init(&path->detach_lock);
	init_completion(&path->drained);
	get_device(&sdev->sdev_gendev);
	path->sdev = sdev;
	/* Failed until its disk is attached. */
	path->state = MPATH_PATH_FAILED;
	path->weight = 1;
	memcpy(path->vendor, sdev->vendor, 8);
	memcpy(path->model, sdev->model, 16);
	path->device_depth = sdev->queue_depth;
	path->depth_cap = clamp(sdev->host->can_queue, 1, MPATH_MAX_Q_DEPTH);
	path->stats = alloc_percpu(struct mpath_stats);
	if (!path->stats) {
		ret = -ENOMEM;
		goto out_put;
	}
	path->sent_at = kcalloc(path->depth_cap, sizeof(*path->sent_at),
				GFP_KERNEL);
	if (!path->sent_at) {
		ret = -ENOMEM;
		goto out_put;
	}
	ret = sbitmap_queue_init_node(&path->tags, path->depth_cap, -1, false,
				      GFP_KERNEL, NUMA_NO_NODE);
	if (ret)
		goto out_put;
	path->depth = path->depth_cap;
	snprintf(path->hctl, sizeof(path->hctl), "%u:%u:%u:%llu",
		 sdev->host->host_no, sdev->channel, sdev->id, sdev->lun);

	mutex_lock(&mpath_shim.lock);
	hba = mpath_hba_join(sdev->host);
	if (IS_ERR(hba)) {
		ret = PTR_ERR(hba);
		goto out_unlock;
	}
	path->hba = hba;
	kobject_get(&hba->kobj);
	lun = mpath_lun_join(wwid);
	if (IS_ERR(lun)) {
		ret = PTR_ERR(lun);
		goto out_hba;
	}
	path->lun = lun;
	kobject_get(&lun->kobj);
	path->locality = hba->numa_node;
	mpath_path_apply_depth(path);

	ret = kobject_add(&path->kobj, lun->paths_kobj, "%s", path->hctl);
	if (ret)
		goto out_lun;
	ret = sysfs_create_link(&path->kobj, &hba->kobj, "hba");
	if (ret)
		goto out_del;
	ret = sysfs_create_link(&path->kobj, &sdev->sdev_gendev.kobj, "device");
	if (ret)
		goto out_del;
	ret = sysfs_create_link(hba->paths_kobj, &path->kobj, path->hctl);
	if (ret)
		goto out_del;
	list_add_tail(&path->lun_node, &lun->paths);
	queue_work(mpath_wq, &path->attach_work);
	mutex_unlock(&mpath_shim.lock);

	kobject_uevent(&path->kobj, KOBJ_ADD);
	sdev_printk(KERN_INFO, sdev, "mpath_shim: lunpath of mpath%d\n",
		    lun->index);
	return 0;

out_del:
	/* Removing a link that was never made is harmless. */
	sysfs_remove_link(&path->kobj, "hba");
	sysfs_remove_link(&path->kobj, "device");
	kobject_del(&path->kobj);
out_lun:
	mpath_lun_leave(lun);
out_hba:
	mpath_hba_leave(hba);
out_unlock:
	mutex_unlock(&mpath_shim.lock);
out_put:
	kobject_put(&path->kobj);
	return ret;
}

void mpath_path_remove(struct scsi_device *sdev)
{
	struct mpath_path *path;
	struct mpath_lun *lun;

	mutex_lock(&mpath_shim.lock);
	path = mpath_path_find(sdev);
	if (!path) {
		mutex_unlock(&mpath_shim.lock);
		return;
	}
	lun = path->lun;
	WRITE_ONCE(path->state, MPATH_PATH_REMOVING);
	list_del_init(&path->lun_node);
	if (lun->preferred == path)
		lun->preferred = NULL;
	mpath_lun_publish_map(lun);
	sysfs_remove_link(path->hba->paths_kobj, path->hctl);
	kobject_del(&path->kobj);
	mpath_hba_leave(path->hba);
	mutex_unlock(&mpath_shim.lock);

	cancel_work_sync(&path->attach_work);
	mpath_path_detach(path);
	sdev_printk(KERN_INFO, sdev, "mpath_shim: lunpath of mpath%d removed\n",
		    lun->index);

	/* Only now: the LUN may go once its last path has drained. */
	mutex_lock(&mpath_shim.lock);
	mpath_lun_leave(lun);
	mutex_unlock(&mpath_shim.lock);
	/* Readers of a map that held the path are gone before it is freed. */
	synchronize_rcu();
	kobject_put(&path->kobj);
}

/* sd has bound to @sdev: attach its disk. */
void mpath_path_bound(struct scsi_device *sdev)
{
	struct mpath_path *path;

	mutex_lock(&mpath_shim.lock);
	path = mpath_path_find(sdev);
	if (path)
		queue_work(mpath_wq, &path->attach_work);
	mutex_unlock(&mpath_shim.lock);
}

/* sd is unbinding from @sdev: let go of its disk. */
void mpath_path_unbound(struct scsi_device *sdev)
{
	struct mpath_path *path;

	mutex_lock(&mpath_shim.lock);
	path = mpath_path_find(sdev);
	if (!path) {
		mutex_unlock(&mpath_shim.lock);
		return;
	}
	kobject_get(&path->kobj);
	path->detaching = true;
	if (path->state != MPATH_PATH_DISABLED)
		WRITE_ONCE(path->state, MPATH_PATH_FAILED);
	mpath_lun_publish_map(path->lun);
	mutex_unlock(&mpath_shim.lock);

	cancel_work_sync(&path->attach_work);
	mpath_path_detach(path);
	kobject_put(&path->kobj);
}

/* Is @path held out for flapping? */
bool mpath_path_held(const struct mpath_path *path)
{
	return READ_ONCE(path->held_until) &&
	       time_before(jiffies, READ_ONCE(path->held_until));
}

/*
 * Count a failure of @path: flap_threshold failures within flap_window
 * seconds hold it out for flap_holdoff seconds.  Only the caller that moved
 * the path from active to failed gets here, so there is one writer.
 */
static void mpath_path_count_flap(struct mpath_path *path)
{
	unsigned int threshold = READ_ONCE(mpath_flap_threshold);
	unsigned long now = jiffies;

	if (!threshold)
		return;
	if (!path->flaps ||
	    time_after(now, path->flap_start + READ_ONCE(mpath_flap_window) * HZ)) {
		path->flap_start = now;
		path->flaps = 0;
	}
	if (++path->flaps < threshold)
		return;
	WRITE_ONCE(path->held_until,
		   (now + READ_ONCE(mpath_flap_holdoff) * HZ) | 1);
	path->flaps = 0;
	sdev_printk(KERN_WARNING, path->sdev,
		    "mpath_shim: lunpath of mpath%d flapping: held out for %u s\n",
		    path->lun->index, READ_ONCE(mpath_flap_holdoff));
}

/* An I/O failed on @path with a path error; any context. */
bool mpath_path_fail(struct mpath_path *path)
{
	if (cmpxchg(&path->state, MPATH_PATH_ACTIVE, MPATH_PATH_FAILED) !=
	    MPATH_PATH_ACTIVE)
		return false;
	sdev_printk(KERN_WARNING, path->sdev,
		    "mpath_shim: lunpath of mpath%d failed\n", path->lun->index);
	mpath_path_count_flap(path);
	queue_work(system_wq, &path->lun->map_work);
	return true;
}

/* sysfs: "enable", "disable" or "force_disable"; mpath_shim.lock held. */
int mpath_path_set_admin(struct mpath_path *path, const char *cmd)
{
	struct mpath_lun *lun = path->lun;
	struct mpath_path *p;
	unsigned int others = 0;

	lockdep_assert_held(&mpath_shim.lock);

	if (path->state == MPATH_PATH_REMOVING)
		return -ENODEV;
	if (!strcmp(cmd, "enable")) {
		if (path->state != MPATH_PATH_DISABLED)
			return 0;
		WRITE_ONCE(path->state, path->bdev && !path->detaching ?
					MPATH_PATH_ACTIVE : MPATH_PATH_FAILED);
	} else if (!strcmp(cmd, "disable") || !strcmp(cmd, "force_disable")) {
		if (path->state == MPATH_PATH_DISABLED)
			return 0;
		list_for_each_entry(p, &lun->paths, lun_node)
			if (p != path && mpath_path_usable(p))
				others++;
		/* Like HP-UX: not the last usable path, unless forced. */
		if (!others && mpath_path_usable(path) && strcmp(cmd, "force_disable"))
			return -EBUSY;
		WRITE_ONCE(path->state, MPATH_PATH_DISABLED);
	} else {
		return -EINVAL;
	}
	mpath_lun_publish_map(lun);
	sdev_printk(KERN_INFO, path->sdev, "mpath_shim: lunpath %s by the administrator\n",
		    mpath_path_state_name(path->state));
	return 0;
}

/*
 * Every mpath_path_probe_interval seconds: attach lunpaths whose disk is
 * not open yet, send TEST UNIT READY to failed ones and reinstate those
 * that answer, and follow a capacity change.
 */
void mpath_probe_work(struct work_struct *work)
{
	struct mpath_lun *lun = container_of(to_delayed_work(work),
					     struct mpath_lun, probe_work);
	struct mpath_path **probe, *path;
	struct scsi_sense_hdr sshdr;
	unsigned int i, nr = 0;

	mutex_lock(&mpath_shim.lock);
	if (lun->dying) {
		mutex_unlock(&mpath_shim.lock);
		return;
	}
	probe = kmalloc_array(lun->nr_paths, sizeof(*probe), GFP_KERNEL);
	list_for_each_entry(path, &lun->paths, lun_node) {
		if (!path->bdev) {
			queue_work(mpath_wq, &path->attach_work);
			continue;
		}
		/* The ref keeps the disk open while we probe. */
		if (probe && path->state == MPATH_PATH_FAILED &&
		    !mpath_path_held(path) &&
		    percpu_ref_tryget_live(&path->ref))
			probe[nr++] = path;
	}
	mutex_unlock(&mpath_shim.lock);

	for (i = 0; i < nr; i++) {
		path = probe[i];
		if (!mpath_path_hung(path) &&
		    !scsi_test_unit_ready(path->sdev, 10 * HZ, 1, &sshdr)) {
			mutex_lock(&mpath_shim.lock);
			if (path->state == MPATH_PATH_FAILED && !path->detaching) {
				WRITE_ONCE(path->state, MPATH_PATH_ACTIVE);
				mpath_lun_publish_map(lun);
				sdev_printk(KERN_INFO, path->sdev,
					    "mpath_shim: lunpath of mpath%d reinstated\n",
					    lun->index);
			}
			mutex_unlock(&mpath_shim.lock);
		}
		percpu_ref_put(&path->ref);
	}
	kfree(probe);

	mpath_disk_follow_capacity(lun);
	queue_delayed_work(system_wq, &lun->probe_work,
			   max(1U, READ_ONCE(mpath_path_probe_interval)) * HZ);
}
