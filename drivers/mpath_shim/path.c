// SPDX-License-Identifier: GPL-2.0
/*
 * Lunpaths: one object per scsi_device through which a LUN is reached.
 *
 * A lunpath's life is one state machine (pathstate.c has the legal moves,
 * Documentation/design.md the picture): every change goes through
 * mpath_path_set_state() under mpath_shim.lock.  A lunpath is created NEW
 * when its scsi_device appears; the attach work opens its sd disk
 * exclusively (ATTACHING) and publishes it (ACTIVE).  An I/O completion
 * never changes the state: it reports the error (MPATH_PATH_IO_ERR, which
 * takes the path out of selection at once) and the LUN's map_work makes the
 * path FAILED, or HELD when it flaps.  Each failed path has its own probe
 * work, so a device that blocks holds back no other path.  sd unbinding
 * makes it DETACHING: its I/O drains and its disk is let go, and once sd
 * has deleted the disk (BUS_NOTIFY_UNBOUND_DRIVER) it is NEW again (or
 * DISABLED if the administrator left it so); removal of the scsi_device
 * makes it REMOVED for good.
 *
 * Lifetime of the disk: @ref is created dead, revived when @bdev is
 * published and killed by the move into DETACHING or REMOVED; the detach
 * waits for it to drain before it lets go of @bdev, which the LUN's holder
 * work unlinks and closes (holder.c).  Whoever sends I/O or a probe to the
 * path holds @ref, so the disk is open while they use it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/sched/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_eh.h>
#include <scsi/scsi_host.h>

#include <mpath_shim/compat.h>
#include <mpath_shim/mpath_shim.h>

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

/*
 * Move @path to @new if the state machine allows it.  Leaving the states in
 * which the disk may be used kills the path's ref (the detach waits for it);
 * a change of usability republishes the LUN's map.
 */
bool mpath_path_set_state(struct mpath_path *path, enum mpath_path_state new)
{
	enum mpath_path_state old = path->state;

	lockdep_assert_held(&mpath_shim.lock);

	if (!mpath_path_state_next(old, new))
		return false;
	if (new == MPATH_PATH_ACTIVE) {
		clear_bit(MPATH_PATH_IO_ERR, &path->flags);
		clear_bit(MPATH_PATH_ALUA_CHECK, &path->flags);
		clear_bit(MPATH_PATH_CHECK, &path->flags);
	}
	WRITE_ONCE(path->state, new);
	if (path->bdev && mpath_path_state_holds_disk(old) &&
	    !mpath_path_state_holds_disk(new))
		percpu_ref_kill(&path->ref);
	/* The map, and the count of lunpaths in service with it. */
	if ((old == MPATH_PATH_ACTIVE) != (new == MPATH_PATH_ACTIVE) ||
	    mpath_path_state_in_service(old) !=
	    mpath_path_state_in_service(new))
		mpath_lun_publish_map(path->lun);
	return true;
}

static void mpath_path_ref_release(struct percpu_ref *ref)
{
	struct mpath_path *path = container_of(ref, struct mpath_path, ref);

	complete(&path->drained);
}

/* device_for_each_child() callback: the devt of the sd disk, if @dev is. */
static int mpath_match_disk(struct device *dev, void *data)
{
	if (!dev->class || strcmp(dev->class->name, "block") ||
	    !dev->type || strcmp(dev->type->name, "disk"))
		return 0;
	*(dev_t *)data = dev->devt;
	return 1;
}

/* The sd disk of @sdev, 0 if sd has not bound. */
static dev_t mpath_sd_devt(struct scsi_device *sdev)
{
	dev_t devt = 0;

	device_for_each_child(&sdev->sdev_gendev, &devt, mpath_match_disk);
	return devt;
}

/*
 * Open @path's sd disk for the LUN, read-write and exclusive with the LUN
 * as holder; NULL if it cannot be used yet, and *@empty if that is because
 * the disk has no sectors.  A write-protected LU (a read-only snapshot or
 * replica) refuses a write open (sd: -EROFS): its disk is opened read-only.
 * The clones are bios, which the open mode does not restrict: when the
 * LU turns writable, sd clears the disk's read-only flag, and so do the
 * LUN's limits (mpath_disk_update_limits()), without opening it again.
 */
static struct file *mpath_path_open(struct mpath_path *path, bool *empty)
{
	struct file *bdev_file;
	dev_t devt;

	/* Until this open says otherwise (EBUSY), nobody else holds it. */
	clear_bit(MPATH_PATH_IN_USE, &path->flags);
	/*
	 * sd is unbinding from the device and will delete the disk.  A lunpath
	 * made in that window (a claim, the module loaded) heard no UNBIND
	 * notice to keep it DETACHING; the driver core marks the device first.
	 */
	if (READ_ONCE(path->sdev->sdev_gendev.links.status) == DL_DEV_UNBINDING)
		return NULL;
	devt = mpath_sd_devt(path->sdev);
	if (!devt)
		return NULL;
	bdev_file = bdev_file_open_by_dev(devt, BLK_OPEN_READ | BLK_OPEN_WRITE,
					  path->lun, NULL);
	if (PTR_ERR_OR_ZERO(bdev_file) == -EROFS)
		bdev_file = bdev_file_open_by_dev(devt, BLK_OPEN_READ,
						  path->lun, NULL);
	/* Mounted, a PV, an md member: nothing of its LU is offered. */
	if (PTR_ERR_OR_ZERO(bdev_file) == -EBUSY)
		set_bit(MPATH_PATH_IN_USE, &path->flags);
	if (IS_ERR(bdev_file)) {
		/* Once per path until it attaches: the probe retries. */
		if (!test_and_set_bit(MPATH_PATH_CLAIM_WARNED, &path->flags))
			sdev_printk(KERN_WARNING, path->sdev,
				    "mpath_shim: cannot claim the disk: %ld\n",
				    PTR_ERR(bdev_file));
		return NULL;
	}
	if (!bdev_nr_sectors(file_bdev(bdev_file))) {
		/* Not ready; the probe tries again. */
		bdev_fput(bdev_file);
		*empty = true;
		return NULL;
	}
	clear_bit(MPATH_PATH_CLAIM_WARNED, &path->flags);
	return bdev_file;
}

/*
 * VPD page 0x83 of @sdev, read afresh from the device (the midlayer's copy
 * dates from the scan), with its length in @lenp; an ERR_PTR when it cannot
 * be read now.
 */
static u8 *mpath_read_vpd83(struct scsi_device *sdev, unsigned int *lenp)
{
	unsigned int len = 4096;
	u8 *page;

	for (;;) {
		page = kmalloc(len, GFP_NOIO);
		if (!page)
			return ERR_PTR(-ENOMEM);
		if (scsi_get_vpd_page(sdev, 0x83, page, len)) {
			kfree(page);
			return ERR_PTR(-EIO);
		}
		if (get_unaligned_be16(&page[2]) + 4 <= len || len >= SZ_64K)
			break;
		len = get_unaligned_be16(&page[2]) + 4;
		kfree(page);
	}
	*lenp = len;
	return page;
}

/*
 * Peripheral qualifier 1 (not connected now) or 3 (no LU at all) in byte 0
 * of an INQUIRY answer; 2 is reserved and 4-7 vendor specific.
 */
static bool mpath_pq_not_connected(u8 byte0)
{
	return byte0 >> 5 == 1 || byte0 >> 5 == 3;
}

/*
 * Does a standard INQUIRY say no LU is connected behind @sdev now?  Asked
 * when its VPD page cannot be read: LIO answers for an unmapped LUN 0 with
 * a virtual LUN that has no page 0x83 and serves reads (zeros) of its own.
 */
static bool mpath_lu_not_connected(struct scsi_device *sdev)
{
	const u8 cmd[6] = { INQUIRY, 0, 0, 0, 36, 0 };
	bool ret;
	u8 *buf;

	buf = kzalloc(36, GFP_NOIO);
	if (!buf)
		return false;
	ret = !scsi_execute_cmd(sdev, cmd, REQ_OP_DRV_IN, buf, 36, 10 * HZ, 3,
				NULL) && mpath_pq_not_connected(buf[0]);
	kfree(buf);
	return ret;
}

/*
 * Does @path still reach its LUN?  Its LU designator, read afresh, is
 * compared with the LUN's.  0: yes; -ESTALE: it reaches another LU now (a
 * remap behind the same H:C:T:L), kept in @path->lu_now for discovery to
 * move it there; -ENXIO: no LU is connected behind it now; another error:
 * cannot tell now.
 */
static int mpath_path_verify(struct mpath_path *path)
{
	unsigned int len;
	char *id;
	u8 *page;
	int ret;

	page = mpath_read_vpd83(path->sdev, &len);
	if (IS_ERR(page))
		return mpath_lu_not_connected(path->sdev) ? -ENXIO :
		       PTR_ERR(page);
	id = kmalloc(MPATH_WWID_LEN, GFP_NOIO);
	if (!id) {
		ret = -ENOMEM;
		goto out;
	}
	ret = mpath_vpd83_lu_id(page, len, id, MPATH_WWID_LEN);
	if (ret >= 0 && !strcmp(id, path->lun->wwid)) {
		mpath_path_set_port(path, page, len);
		ret = 0;
	} else if (mpath_pq_not_connected(page[0])) {
		/*
		 * Not our LU, and not connected (the LUN unmapped or masked,
		 * the array answering for it): no remap, and no LU to move
		 * the path to.  It is out until its LU answers again.
		 */
		ret = -ENXIO;
	} else {
		/* One too long for a LUN's wwid is none to discovery. */
		mpath_lock();
		strscpy(path->lu_now, ret < 0 || ret >= MPATH_WWID_LEN ? "" : id,
			sizeof(path->lu_now));
		mpath_unlock();
		sdev_printk(KERN_ERR, path->sdev,
			    "mpath_shim: reaches LU %s now, not %s (mpath%d): taken out of service\n",
			    ret < 0 ? "(no designator)" : id, path->lun->wwid,
			    path->lun->name->index);
		ret = -ESTALE;
	}
out:
	kfree(id);
	kfree(page);
	return ret;
}

/*
 * Does the lunpath of @sdev reach another LU than its LUN's now?  Then
 * that LU's designator is copied to @lu (MPATH_WWID_LEN bytes; "" when the
 * device reported none).
 */
bool mpath_path_remapped(struct scsi_device *sdev, char *lu)
{
	struct mpath_path *path;
	bool ret;

	mpath_lock();
	path = mpath_path_find(sdev);
	ret = path && path->state == MPATH_PATH_WRONG_LU;
	if (ret)
		strscpy(lu, path->lu_now, MPATH_WWID_LEN);
	mpath_unlock();
	return ret;
}

/*
 * @path's disk has no sectors.  sd reads the capacity when it binds, and
 * not again: behind a port that was not ready then (an ALUA port
 * unavailable, offline or in transition, a LU becoming ready) the disk
 * stays empty and the lunpath unattached after the port comes back.  Once
 * the port answers TEST UNIT READY, sd is asked to read it again: once,
 * and again only after the port was seen not ready, the rescan could not
 * run, or the lunpath attached.  On mpath_health_wq, not the ordered
 * mpath_wq: the commands may take long, and the rescan waits for the device
 * lock, which sd's unbind holds while it waits for the attach work.  Held
 * I/O may wait for the attach it leads to: a reclaiming queue, and no I/O
 * to reclaim with (sd's revalidation allocates).  The work holds a
 * reference on the lunpath; its removal cancels it or waits for it.
 */
static void mpath_path_rescan_work(struct work_struct *work)
{
	struct mpath_path *path = container_of(work, struct mpath_path,
					       rescan_work);
	unsigned int noio = memalloc_noio_save();
	struct scsi_sense_hdr sshdr;

	if (scsi_test_unit_ready(path->sdev, 10 * HZ, 3, &sshdr)) {
		clear_bit(MPATH_PATH_RESCANNED, &path->flags);
		goto out;
	}
	if (test_and_set_bit(MPATH_PATH_RESCANNED, &path->flags))
		goto out;
	sdev_printk(KERN_INFO, path->sdev,
		    "mpath_shim: the disk has no sectors and the port is ready: capacity read again\n");
	/* -EWOULDBLOCK: the device is not running; the probe comes back. */
	if (scsi_rescan_device(path->sdev)) {
		clear_bit(MPATH_PATH_RESCANNED, &path->flags);
		goto out;
	}
	mpath_lock();
	if (path->state == MPATH_PATH_NEW)
		queue_work(mpath_wq, &path->attach_work);
	mpath_unlock();
out:
	memalloc_noio_restore(noio);
	kobject_put(&path->kobj);
}

/* The removal's put, once no reader of a map that held the path is left. */
static void mpath_path_free_work(struct work_struct *work)
{
	struct mpath_path *path = container_of(to_rcu_work(work),
					       struct mpath_path, free_rwork);
	struct module *lld = path->lld;

	kobject_put(&path->kobj);
	module_put(lld);
}

/* Each attach of an empty disk: is its port ready now? */
static void mpath_path_queue_rescan(struct mpath_path *path)
{
	kobject_get(&path->kobj);
	if (!queue_work(mpath_health_wq, &path->rescan_work))
		kobject_put(&path->kobj);
}

/*
 * Add @lun's disk, /dev/mpathN, once a lunpath of it is attached, with the
 * smallest capacity of its attached lunpaths, and link each of them to it.
 * Not while a lunpath's disk is held by someone else (mounted, a PV in
 * use, an md member): a second block device of a LU in use would let the
 * same filesystem be mounted twice (udev gives mpathN its by-uuid links);
 * dm-multipath, which opens every path for its table, refuses it too.  The
 * probe tries that lunpath again at every tick, and once it attaches (or
 * goes: removed, sd unbound) the disk is added.  Nor before every new
 * lunpath has tried once, so that one in use is known.  After every attach
 * try, and at every probe tick while the LUN has no disk (offer_work), on
 * mpath_wq.
 */
static void mpath_lun_offer_disk(struct mpath_lun *lun)
{
	struct mpath_path *path, *busy = NULL;
	sector_t capacity = 0, size;
	bool untried = false;
	int ret;

	if (lun->disk_added || lun->disk_add_failed)
		return;
	mpath_lock();
	list_for_each_entry(path, &lun->paths, lun_node) {
		if (path->holder) {
			/* 0: sd could not read it (a port not ready). */
			size = bdev_nr_sectors(path->bdev);
			if (size && (!capacity || size < capacity))
				capacity = size;
		} else if (test_bit(MPATH_PATH_IN_USE, &path->flags)) {
			/* Disabled meanwhile too: she may mean to use it. */
			busy = path;
		} else if (path->state == MPATH_PATH_NEW &&
			   !test_bit(MPATH_PATH_TRIED, &path->flags)) {
			untried = true;
		}
	}
	if (busy && !lun->in_use_warned) {
		lun->in_use_warned = true;
		sdev_printk(KERN_WARNING, busy->sdev,
			    "mpath_shim: mpath%d is not offered while this path's disk is in use (mounted, or held by another driver); it is once the disk is let go\n",
			    lun->name->index);
	}
	/*
	 * Nor while the LUN fails I/O for want of a path (expired): the
	 * partition table would not be read, nor read again once a path is
	 * back (the probe tick's offer waits for one).  Nor at load before
	 * every SCSI device there has been seen: a lunpath in use may not
	 * exist yet when the first one attaches (mpath_discovery_init()
	 * offers every LUN after the scan).
	 */
	if (lun->state == MPATH_LUN_DYING || lun->state == MPATH_LUN_EXPIRED ||
	    lun->releasing || !mpath_shim.scanned)
		capacity = 0;
	mpath_unlock();
	if (busy || untried || !capacity)
		return;

	ret = mpath_disk_add(lun, capacity);
	if (ret) {
		/* A gendisk that failed to add cannot be added again. */
		lun->disk_add_failed = true;
		pr_err("mpath%d: cannot add the disk: %d; the LUN has no block device until its paths are removed\n",
		       lun->name->index, ret);
		return;
	}
	mpath_lock();
	list_for_each_entry(path, &lun->paths, lun_node)
		if (path->holder)
			mpath_holder_queue_link(lun, path->holder);
	mpath_unlock();
}

/*
 * The probe tick's offer of a LUN without its disk, and the one after the
 * scan at load; on mpath_wq.
 */
void mpath_lun_offer_work(struct work_struct *work)
{
	struct mpath_lun *lun = container_of(work, struct mpath_lun,
					     offer_work);
	unsigned int noio = memalloc_noio_save();

	mpath_lun_offer_disk(lun);
	memalloc_noio_restore(noio);
	kobject_put(&lun->kobj);
}

/* Open the path's disk and make the path usable. */
static void mpath_path_attach(struct mpath_path *path)
{
	struct mpath_lun *lun = path->lun;
	struct mpath_holder *holder = NULL;
	struct block_device *bdev;
	struct file *bdev_file;
	bool ok, added, empty = false;
	int ret;

	mpath_lock();
	ok = lun->state != MPATH_LUN_DYING &&
	     mpath_path_set_state(path, MPATH_PATH_ATTACHING);
	mpath_unlock();
	if (!ok)
		return;

	set_bit(MPATH_PATH_TRIED, &path->flags);
	bdev_file = mpath_path_open(path, &empty);
	if (empty)
		mpath_path_queue_rescan(path);
	/* An empty disk sd binds again later gets a rescan of its own. */
	if (bdev_file)
		clear_bit(MPATH_PATH_RESCANNED, &path->flags);
	/* The disk may belong to another LU by now (sd bound again). */
	ret = bdev_file ? mpath_path_verify(path) : -ENODEV;
	/* What links the disk to the LUN's and closes it in the end. */
	if (!ret) {
		holder = mpath_holder_alloc(file_bdev(bdev_file));
		if (!holder)
			ret = -ENOMEM;
	}
	if (ret) {
		if (bdev_file)
			bdev_fput(bdev_file);
		mpath_lock();
		/* A path the administrator disabled meanwhile stays so. */
		if (path->state == MPATH_PATH_ATTACHING)
			mpath_path_set_state(path, ret == -ESTALE ?
					     MPATH_PATH_WRONG_LU : MPATH_PATH_NEW);
		mpath_unlock();
		if (ret == -ESTALE)
			mpath_discovery_remapped();
		mpath_lun_offer_disk(lun);
		return;
	}
	/* Before any I/O can reach it: its access state is known, */
	mpath_alua_refresh(path);
	/* and the LUN's limits allow for its disk, from now on. */
	bdev = file_bdev(bdev_file);
	mutex_lock(&lun->limits_lock);
	path->joining_bdev = bdev;
	mutex_unlock(&lun->limits_lock);
	mpath_disk_update_limits(lun);

	/* And its nexus has the LUN's reservation key, if there is one. */
	mutex_lock(&lun->pr_lock);
	ret = mpath_pr_join(path, bdev);
	/* Published or let go under the limits' lock: never stacked twice. */
	mutex_lock(&lun->limits_lock);
	path->joining_bdev = NULL;
	mpath_lock();
	/*
	 * Still ours to publish only if nothing but the administrator moved
	 * the path meanwhile; after an unbind, a removal or an enable that
	 * queued a new attach, let go.
	 */
	if (lun->state == MPATH_LUN_DYING ||
	    (path->state != MPATH_PATH_ATTACHING &&
			   path->state != MPATH_PATH_DISABLED)) {
		mpath_unlock();
		mutex_unlock(&lun->limits_lock);
		mutex_unlock(&lun->pr_lock);
		/* What its disk imposed goes with it. */
		mpath_disk_update_limits(lun);
		mpath_holder_free(holder);
		bdev_fput(bdev_file);
		mpath_lun_offer_disk(lun);
		return;
	}
	/* A detach may take the disk from here on: what it needs, first. */
	path->bdev_file = bdev_file;
	path->bdev = bdev;
	path->holder = holder;
	reinit_completion(&path->drained);
	percpu_ref_reinit(&path->ref);
	mpath_path_apply_timeout(path);
	mpath_path_apply_sg_timeout(path);
	/* Disabled meanwhile: attached, and still disabled. */
	if (path->state == MPATH_PATH_ATTACHING)
		mpath_path_set_state(path, ret ? MPATH_PATH_FAILED :
					   MPATH_PATH_ACTIVE);
	/*
	 * Attached without carrying I/O (disabled meanwhile, or it could not
	 * join the reservation): no move into or out of ACTIVE published the
	 * map, and a LUN whose disk comes now needs its no-path timer.
	 */
	if (path->state != MPATH_PATH_ACTIVE)
		mpath_lun_publish_map(lun);
	mpath_unlock();
	mutex_unlock(&lun->limits_lock);
	mutex_unlock(&lun->pr_lock);

	added = lun->disk_added;
	mpath_lun_offer_disk(lun);
	/* Unless a detach took the disk back meanwhile. */
	mpath_lock();
	if (path->holder == holder) {
		/* Added now, it was linked with the others. */
		if (added)
			mpath_holder_queue_link(lun, holder);
		sdev_printk(KERN_INFO, path->sdev,
			    "mpath_shim: %pg is a path of %s\n", bdev,
			    lun->disk->disk_name);
	}
	mpath_unlock();
}

/*
 * On mpath_wq.  I/O held for the LUN may wait for this attach (its first
 * lunpath): nothing it allocates recurses into I/O.
 */
void mpath_path_attach_work(struct work_struct *work)
{
	unsigned int noio = memalloc_noio_save();

	mpath_path_attach(container_of(work, struct mpath_path, attach_work));
	memalloc_noio_restore(noio);
}

/*
 * Wait for the I/O in flight on @path and let go of its disk, which the
 * LUN's holder work closes.  The path has left the states with a disk (its
 * ref is killed), and its attach work is not running.
 */
static void mpath_path_close(struct mpath_path *path)
{
	struct block_device *bdev;
	bool tell_udev;

	/* A second caller (removal racing an unbind) waits for the first. */
	mutex_lock(&path->detach_lock);
	mpath_lock();
	bdev = path->bdev;
	/*
	 * Disabled, another LU or released: the disk is no longer a lunpath.
	 * Not when
	 * sd or the device goes, nor at unload: udev would open the disk
	 * as the low-level driver may be leaving (6.1 oopsed in
	 * scsi_device_put() when scsi_debug was removed right after).
	 */
	tell_udev = (path->state != MPATH_PATH_DETACHING &&
		     path->state != MPATH_PATH_REMOVED) ||
		    test_bit(MPATH_PATH_RELEASED, &path->flags);
	mpath_unlock();
	if (!bdev)
		goto out;
	wait_for_completion(&path->drained);

	mpath_lock();
	mpath_path_restore_timeout(path);
	mpath_path_restore_sg_timeout(path);
	/* Not here: the unlink may wait for the LUN's openers (holder.c). */
	mpath_holder_queue_close(path->lun, path->holder, path->bdev_file,
				 tell_udev);
	path->holder = NULL;
	path->bdev_file = NULL;
	path->bdev = NULL;
	mpath_unlock();
	/* What it imposed goes with it. */
	mpath_disk_update_limits(path->lun);
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
	INIT_WORK(&path->rescan_work, mpath_path_rescan_work);
	INIT_RCU_WORK(&path->free_rwork, mpath_path_free_work);
	INIT_WORK(&path->probe_work, mpath_path_probe_work);
	mutex_init(&path->detach_lock);
	init_completion(&path->drained);
	get_device(&sdev->sdev_gendev);
	path->sdev = sdev;
	path->state = MPATH_PATH_NEW;
	path->weight = 1;
	path->tpgs = scsi_device_tpgs(sdev);
	path->tpg_id = MPATH_ALUA_NONE;
	path->rel_port = MPATH_ALUA_NONE;
	memcpy(path->vendor, sdev->vendor, 8);
	memcpy(path->model, sdev->model, 16);
	path->device_depth = sdev->queue_depth;
	path->device_max_depth = sdev->max_queue_depth;
	path->depth_cap = clamp(sdev->host->can_queue, 1, MPATH_MAX_Q_DEPTH);
	path->stats = alloc_percpu(struct mpath_stats);
	if (!path->stats) {
		ret = -ENOMEM;
		goto out_put;
	}
	/* Dead until a disk is published: no I/O, no probe before. */
	ret = percpu_ref_init(&path->ref, mpath_path_ref_release,
			      PERCPU_REF_INIT_DEAD, GFP_KERNEL);
	if (ret)
		goto out_put;
	mpath_inflight_init(&path->inflight, jiffies);
	snprintf(path->hctl, sizeof(path->hctl), "%u:%u:%u:%llu",
		 sdev->host->host_no, sdev->channel, sdev->id, sdev->lun);

	mpath_lock();
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
	/* What its max_q_depth files show from the start; the device's last. */
	path->depth = mpath_path_resolve_depth(path);

	ret = kobject_add(&path->kobj, lun->paths_kobj, "%s", path->hctl);
	if (ret)
		goto out_lun;
	ret = sysfs_create_link(&path->kobj, &hba->kobj, "hba");
	if (ret)
		goto out_del;
	ret = sysfs_create_link(&path->kobj, &sdev->sdev_gendev.kobj, "device");
	if (ret)
		goto out_del;
	if (mpath_should_fail(MPATH_FAULT_PATH_ADD))
		ret = -ENOMEM;
	else
		ret = sysfs_create_link(hba->paths_kobj, &path->kobj,
					path->hctl);
	if (ret)
		goto out_del;
	/* Last: a failed add leaves the device and the LUN as they were. */
	mpath_path_apply_depth(path);
	WRITE_ONCE(lun->tpgs, lun->tpgs | path->tpgs);
	list_add_tail(&path->lun_node, &lun->paths);
	/* The preferred (locked-down) path is back. */
	if (!lun->preferred && !strcmp(lun->preferred_hctl, path->hctl))
		lun->preferred = path;
	queue_work(mpath_wq, &path->attach_work);
	mpath_unlock();

	kobject_uevent(&path->kobj, KOBJ_ADD);
	sdev_printk(KERN_INFO, sdev, "mpath_shim: lunpath of mpath%d\n",
		    lun->name->index);
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
	mpath_unlock();
out_put:
	kobject_put(&path->kobj);
	return ret;
}

void mpath_path_remove(struct scsi_device *sdev)
{
	struct mpath_path *path;
	struct mpath_lun *lun;
	struct module *lld;

	mpath_lock();
	path = mpath_path_find(sdev);
	if (!path) {
		mpath_unlock();
		return;
	}
	lun = path->lun;
	list_del_init(&path->lun_node);
	/* Away, not forgotten: preferred_hctl brings it back. */
	if (lun->preferred == path)
		lun->preferred = NULL;
	mpath_path_set_state(path, MPATH_PATH_REMOVED);
	mpath_lun_publish_map(lun);
	sysfs_remove_link(path->hba->paths_kobj, path->hctl);
	kobject_del(&path->kobj);
	mpath_hba_keep_stats(path, false);
	mpath_hba_leave(path->hba);
	mpath_unlock();

	cancel_work_sync(&path->attach_work);
	cancel_work_sync(&path->probe_work);
	/* Not under the device lock here: a running rescan ends. */
	if (cancel_work_sync(&path->rescan_work))
		kobject_put(&path->kobj);
	mpath_path_close(path);
	/* The device stays (an unload, a release): as it was before us. */
	mpath_path_restore_depth(path);
	sdev_printk(KERN_INFO, sdev, "mpath_shim: lunpath of mpath%d removed\n",
		    lun->name->index);

	/* Only now: the LUN may go once its last path has drained. */
	mpath_lock();
	/* What the I/O in flight as it left its HBA counted, too. */
	mpath_hba_keep_stats(path, true);
	mpath_lun_leave(lun);
	mpath_unlock();
	/*
	 * Readers of a map that held the path are gone before it is freed:
	 * after a grace period, on mpath_holder_wq (unbound: not behind an
	 * attach waiting on mpath_wq).  Waiting for one here cost a host's
	 * removal a grace period per lunpath.  The put may be the last
	 * one on the scsi_device and the host, whose release runs code of
	 * their low-level driver: its module stays until then.  One that is
	 * going (its exit removes its hosts; 6.1's scsi_device release then
	 * sets hostt->module to NULL), or a built-in one, is not taken: the
	 * grace period is waited out here.
	 */
	lld = READ_ONCE(sdev->host->hostt->module);
	if (lld && try_module_get(lld)) {
		path->lld = lld;
		queue_rcu_work(mpath_holder_wq, &path->free_rwork);
		return;
	}
	synchronize_rcu();
	kobject_put(&path->kobj);
}

/*
 * The administrator released the LUN of @sdev: as a removal, but the device
 * stays, and udev hears that its disk is no longer a lunpath.
 */
void mpath_path_give_back(struct scsi_device *sdev)
{
	struct mpath_path *path;

	mpath_lock();
	path = mpath_path_find(sdev);
	if (path)
		set_bit(MPATH_PATH_RELEASED, &path->flags);
	mpath_unlock();
	mpath_path_remove(sdev);
}

/*
 * sd has bound to @sdev: attach its disk.  An attach running now may have
 * looked for the disk before it was there: it runs once more (a work item
 * queued while it runs is run again after it), and returns at once if the
 * first one attached.
 */
void mpath_path_bound(struct scsi_device *sdev)
{
	struct mpath_path *path;

	mpath_lock();
	path = mpath_path_find(sdev);
	if (path && (path->state == MPATH_PATH_NEW ||
		     path->state == MPATH_PATH_ATTACHING))
		queue_work(mpath_wq, &path->attach_work);
	mpath_unlock();
}

/*
 * sd is unbinding from @sdev: let go of its disk, whatever the path was
 * doing.  The path stays DETACHING until sd has deleted the disk
 * (mpath_path_unbound()): until then the disk is live, and a probe tick or
 * an enable would open it again.
 */
void mpath_path_unbind(struct scsi_device *sdev)
{
	struct mpath_path *path;
	bool detaching;

	mpath_lock();
	path = mpath_path_find(sdev);
	if (!path) {
		mpath_unlock();
		return;
	}
	kobject_get(&path->kobj);
	assign_bit(MPATH_PATH_UNBIND_DISABLED, &path->flags,
		   path->state == MPATH_PATH_DISABLED);
	detaching = mpath_path_set_state(path, MPATH_PATH_DETACHING);
	mpath_unlock();

	if (detaching) {
		cancel_work_sync(&path->attach_work);
		mpath_path_close(path);
	}
	kobject_put(&path->kobj);
}

/*
 * sd has unbound from @sdev and its disk is gone: the path is ready to
 * attach again when sd binds (or disabled, if the administrator disabled
 * it).
 */
void mpath_path_unbound(struct scsi_device *sdev)
{
	struct mpath_path *path;

	mpath_lock();
	path = mpath_path_find(sdev);
	if (path && path->state == MPATH_PATH_DETACHING)
		mpath_path_set_state(path,
				     test_bit(MPATH_PATH_UNBIND_DISABLED, &path->flags) ?
				     MPATH_PATH_DISABLED : MPATH_PATH_NEW);
	mpath_unlock();
}

/* Seconds a HELD path has left before it is probed again, else 0. */
unsigned int mpath_path_held_secs(const struct mpath_path *path)
{
	unsigned long until = READ_ONCE(path->held_until);

	if (READ_ONCE(path->state) != MPATH_PATH_HELD ||
	    !time_before(jiffies, until))
		return 0;
	return DIV_ROUND_UP(jiffies_to_msecs(until - jiffies), 1000);
}

/*
 * Count a failure of @path: flap_threshold failures within flap_window
 * seconds hold it out for flap_holdoff seconds.  Returns whether it is
 * flapping.
 */
static bool mpath_path_count_flap(struct mpath_path *path)
{
	unsigned int threshold = READ_ONCE(mpath_flap_threshold);
	unsigned long now = jiffies;

	lockdep_assert_held(&mpath_shim.lock);

	if (!threshold)
		return false;
	if (!path->flaps ||
	    time_after(now, path->flap_start + READ_ONCE(mpath_flap_window) * HZ)) {
		path->flap_start = now;
		path->flaps = 0;
	}
	if (++path->flaps < threshold)
		return false;
	WRITE_ONCE(path->held_until, now + READ_ONCE(mpath_flap_holdoff) * HZ);
	path->flaps = 0;
	sdev_printk(KERN_WARNING, path->sdev,
		    "mpath_shim: lunpath of mpath%d flapping: held out for %u s\n",
		    path->lun->name->index, READ_ONCE(mpath_flap_holdoff));
	return true;
}

/*
 * An I/O failed on @path with a path error, or hung on it; any context.
 * The path stops being chosen at once; the LUN's map_work fails it.
 * Returns false if an error was already reported and not yet handled.
 */
bool mpath_path_report_error(struct mpath_path *path)
{
	if (test_and_set_bit(MPATH_PATH_IO_ERR, &path->flags))
		return false;
	queue_work(mpath_health_wq, &path->lun->map_work);
	return true;
}

/*
 * An SG_IO command sent down @path ended with a transport error in the
 * host byte of the header sd wrote back to its caller: a command of the
 * caller's own (its timeout, its transfer length), and a byte the caller
 * may have changed since.  Not a verdict on the path: its probe asks it
 * (TEST UNIT READY) and reports an error only if it does not answer.  The
 * probe is queued by the LUN's map_work, under the lock and only for an
 * active path, as for an ALUA verdict: the caller's reference on the path
 * may be the last thing that keeps a path being removed, whose probe work
 * has been cancelled already.
 */
void mpath_path_check(struct mpath_path *path)
{
	set_bit(MPATH_PATH_CHECK, &path->flags);
	queue_work(mpath_health_wq, &path->lun->map_work);
}

/* Fail @path, an active lunpath (held out if it flaps). */
void mpath_path_fail(struct mpath_path *path)
{
	lockdep_assert_held(&mpath_shim.lock);

	clear_bit(MPATH_PATH_IO_ERR, &path->flags);
	if (path->state != MPATH_PATH_ACTIVE)
		return;
	sdev_printk(KERN_WARNING, path->sdev,
		    "mpath_shim: lunpath of mpath%d failed\n", path->lun->name->index);
	mpath_path_set_state(path, mpath_path_count_flap(path) ?
			     MPATH_PATH_HELD : MPATH_PATH_FAILED);
}

/*
 * Fail the active lunpaths of @lun that had an I/O error reported.  On an
 * ALUA LU the path's probe decides first (access.c): its port may have
 * gone to standby, which is no failure.  The error flag keeps it out of
 * selection meanwhile.  An active one an SG_IO named (mpath_path_check())
 * has its probe queued.
 */
void mpath_lun_fail_paths(struct mpath_lun *lun)
{
	struct mpath_path *path;

	lockdep_assert_held(&mpath_shim.lock);

	list_for_each_entry(path, &lun->paths, lun_node) {
		/* An SG_IO's transport error: its probe asks it. */
		if (test_bit(MPATH_PATH_CHECK, &path->flags)) {
			if (path->state == MPATH_PATH_ACTIVE)
				queue_work(mpath_health_wq, &path->probe_work);
			else
				clear_bit(MPATH_PATH_CHECK, &path->flags);
		}
		if (!test_bit(MPATH_PATH_IO_ERR, &path->flags))
			continue;
		if (path->state == MPATH_PATH_ACTIVE && mpath_path_alua(path)) {
			if (!test_and_set_bit(MPATH_PATH_ALUA_CHECK, &path->flags))
				queue_work(mpath_health_wq, &path->probe_work);
			continue;
		}
		mpath_path_fail(path);
	}
}

/* sysfs: "enable", "disable" or "force_disable"; mpath_shim.lock held. */
int mpath_path_set_admin(struct mpath_path *path, const char *cmd)
{
	struct mpath_lun *lun = path->lun;
	struct mpath_path *p;
	unsigned int others = 0;

	lockdep_assert_held(&mpath_shim.lock);

	if (path->state == MPATH_PATH_REMOVED)
		return -ENODEV;
	if (!strcmp(cmd, "enable")) {
		/*
		 * sd is unbinding it: it ends unattached, not disabled, and
		 * attaches when sd binds (not now: its disk is being deleted).
		 */
		if (path->state == MPATH_PATH_DETACHING) {
			clear_bit(MPATH_PATH_UNBIND_DISABLED, &path->flags);
			return 0;
		}
		switch (path->state) {
		case MPATH_PATH_ACTIVE:
		case MPATH_PATH_ATTACHING:
			return 0;	/* in service, or on its way */
		case MPATH_PATH_WRONG_LU:
			return -EBUSY;	/* it moves to the LU it reaches */
		case MPATH_PATH_NEW:
			queue_work(mpath_wq, &path->attach_work);
			return 0;
		case MPATH_PATH_HELD:
			/* The administrator ends the hold-off: probed now. */
			mpath_path_set_state(path, MPATH_PATH_FAILED);
			fallthrough;
		case MPATH_PATH_FAILED:
			queue_work(mpath_health_wq, &path->probe_work);
			goto out;
		default:
			break;
		}
		/*
		 * Back through the probe, at once: it answers, reaches the
		 * LU and has the LUN's reservation key before I/O goes there.
		 */
		if (path->bdev) {
			mpath_path_set_state(path, MPATH_PATH_FAILED);
			queue_work(mpath_health_wq, &path->probe_work);
		} else {
			mpath_path_set_state(path, MPATH_PATH_NEW);
			queue_work(mpath_wq, &path->attach_work);
		}
	} else if (!strcmp(cmd, "disable") || !strcmp(cmd, "force_disable")) {
		if (path->state == MPATH_PATH_DISABLED)
			return 0;
		/*
		 * sd is unbinding it: its disk is being closed, and the
		 * detach decides the state it ends in.  A disable now would
		 * be lost, and an "enable" after it would leave a failed
		 * path with no disk.
		 */
		if (path->state == MPATH_PATH_DETACHING)
			return -EBUSY;
		/*
		 * A standby port's lunpath is usable but carries no I/O; nor
		 * does any but the locked one under path_lockdown.
		 */
		if (!mpath_lun_pinned(lun) || lun->preferred != path)
			list_for_each_entry(p, &lun->paths, lun_node)
				if (p != path && mpath_path_serves_io(p))
					others++;
		/* Like HP-UX: not the last usable path, unless forced. */
		if (!others && mpath_path_serves_io(path) &&
		    strcmp(cmd, "force_disable"))
			return -EBUSY;
		/* Only while its disk is being let go. */
		if (!mpath_path_set_state(path, MPATH_PATH_DISABLED))
			return -EBUSY;
	} else {
		return -EINVAL;
	}
out:
	sdev_printk(KERN_INFO, path->sdev, "mpath_shim: lunpath %s by the administrator\n",
		    strcmp(cmd, "enable") ? "disabled" : "enabled");
	return 0;
}

/*
 * Does @path answer TEST UNIT READY as a failed path must to come back:
 * GOOD, or on an ALUA LU with its port's access state (standby,
 * unavailable, in transition)?  UNIT ATTENTIONs are asked again.
 */
static bool mpath_path_answers(struct mpath_path *path)
{
	struct scsi_sense_hdr sshdr;
	int ret;

	ret = scsi_test_unit_ready(path->sdev, 10 * HZ, 3, &sshdr);
	return !ret || (ret > 0 && mpath_path_alua(path) &&
			mpath_alua_sense(&sshdr) >= MPATH_ALUA_SENSE_TRANSITIONING);
}

/*
 * Probe one lunpath: a failed one gets TEST UNIT READY and, if it answers
 * and still reaches its LU (and has the LUN's reservation key, pr.c), is
 * reinstated; an active one has its identity checked, and is asked TEST
 * UNIT READY too after an SG_IO's transport error (mpath_path_check()),
 * failed as by an I/O error if it does not answer.  A path that reaches
 * another LU is taken out for good (until sd binds again).  One work per
 * path on mpath_health_wq, so a device that does not answer (a blocked
 * iSCSI session, FC dev_loss_tmo) delays no other path.
 */
static void mpath_path_probe(struct mpath_path *path)
{
	struct mpath_lun *lun = path->lun;
	enum mpath_alua_sense sense = MPATH_ALUA_SENSE_NONE;
	enum mpath_path_state state;
	struct scsi_sense_hdr sshdr;
	bool ok, reinstate, rejoin, verdict, access;
	int ret;

	mpath_lock();
	state = path->state;
	verdict = state == MPATH_PATH_ACTIVE &&
		  test_bit(MPATH_PATH_ALUA_CHECK, &path->flags);
	/* The ref keeps the disk open while we probe. */
	ok = (state == MPATH_PATH_FAILED || state == MPATH_PATH_ACTIVE) &&
	     percpu_ref_tryget_live(&path->ref);
	mpath_unlock();
	if (!ok)
		return;
	/* An SG_IO saw a transport error: does the path still answer? */
	if (state == MPATH_PATH_ACTIVE &&
	    test_and_clear_bit(MPATH_PATH_CHECK, &path->flags) &&
	    !verdict && !mpath_path_answers(path)) {
		mpath_path_report_error(path);
		percpu_ref_put(&path->ref);
		return;
	}
	if (verdict) {
		/* An I/O error on an ALUA LU: its access state, or a failure? */
		access = mpath_alua_verdict(path);
		percpu_ref_put(&path->ref);
		mpath_lock();
		clear_bit(MPATH_PATH_ALUA_CHECK, &path->flags);
		if (access && test_and_clear_bit(MPATH_PATH_IO_ERR, &path->flags))
			/* Out of the map by its access state, not failed. */
			mpath_lun_publish_map(lun);
		else if (!access && test_bit(MPATH_PATH_IO_ERR, &path->flags))
			mpath_path_fail(path);
		mpath_unlock();
		return;
	}
	/*
	 * Retries: a UNIT ATTENTION (power on, ALUA or LUN inventory change)
	 * is an answer, not a failure: ask again at once.  A port in standby,
	 * unavailable or in transition answers too: its access state says
	 * whether it may carry I/O.
	 */
	if (state == MPATH_PATH_FAILED) {
		ret = mpath_path_hung(path) ? -EBUSY :
		      scsi_test_unit_ready(path->sdev, 10 * HZ, 3, &sshdr);
		if (ret > 0 && mpath_path_alua(path))
			sense = mpath_alua_sense(&sshdr);
		if (ret && sense < MPATH_ALUA_SENSE_TRANSITIONING) {
			percpu_ref_put(&path->ref);
			return;
		}
	}
	ret = mpath_path_verify(path);
	/*
	 * A failed path comes back only if its port answers RTPG too; with
	 * the state it named if RTPG gave none.
	 */
	if (!ret && mpath_alua_refresh_sense(path, sense) == -EIO &&
	    state == MPATH_PATH_FAILED)
		ret = -EIO;
	reinstate = !ret && state == MPATH_PATH_FAILED;
	/* Active, out of the map until its nexus has the LUN's key. */
	rejoin = !ret && state == MPATH_PATH_ACTIVE && mpath_pr_join_due(path);
	if (reinstate || rejoin) {
		/* Held until it is active (or back in the map): see pr.c. */
		mutex_lock(&lun->pr_lock);
		/* A REGISTER may have reached an active one meanwhile. */
		if (reinstate || mpath_pr_join_due(path))
			ret = mpath_pr_join(path, path->bdev);
	}

	/*
	 * The ref is put after the move: while it is held, the disk probed is
	 * the path's (a detach waits for it), and the path cannot have been
	 * detached and attached again, to a state this probe did not see.
	 */
	mpath_lock();
	if (ret == -ESTALE && mpath_path_set_state(path, MPATH_PATH_WRONG_LU)) {
		mpath_unlock();
		percpu_ref_put(&path->ref);
		/* Its I/O drains; no more goes there. */
		mpath_path_close(path);
		mpath_discovery_remapped();
		return;
	}
	if (ret == -ENXIO && state == MPATH_PATH_ACTIVE &&
	    path->state == MPATH_PATH_ACTIVE) {
		sdev_printk(KERN_WARNING, path->sdev,
			    "mpath_shim: no LU connected behind the lunpath of mpath%d now\n",
			    lun->name->index);
		mpath_path_fail(path);
	}
	if (reinstate && !ret && mpath_path_set_state(path, MPATH_PATH_ACTIVE))
		sdev_printk(KERN_INFO, path->sdev,
			    "mpath_shim: lunpath of mpath%d reinstated\n",
			    lun->name->index);
	if (rejoin && !ret)
		mpath_lun_publish_map(lun);
	mpath_unlock();
	percpu_ref_put(&path->ref);
	if (reinstate || rejoin)
		mutex_unlock(&lun->pr_lock);
}

/*
 * I/O held for a path may wait for this work (a reinstatement, the LUN's
 * key registered on a nexus): nothing it allocates recurses into I/O.
 */
void mpath_path_probe_work(struct work_struct *work)
{
	unsigned int noio = memalloc_noio_save();

	mpath_path_probe(container_of(work, struct mpath_path, probe_work));
	memalloc_noio_restore(noio);
}

/*
 * Every mpath_path_probe_interval seconds: attach lunpaths whose disk is
 * not open yet, end the hold-off of held ones, probe failed ones, and
 * follow a capacity change and a device's own queue depth.
 */
static void mpath_lun_probe(struct mpath_lun *lun)
{
	unsigned long interval = max(1U, READ_ONCE(mpath_path_probe_interval));
	struct mpath_path *path;
	bool fast;

	mpath_lock();
	if (lun->state == MPATH_LUN_DYING) {
		mpath_unlock();
		return;
	}
	list_for_each_entry(path, &lun->paths, lun_node) {
		mpath_path_follow_depth(path);
		switch (path->state) {
		case MPATH_PATH_NEW:
			queue_work(mpath_wq, &path->attach_work);
			break;
		case MPATH_PATH_HELD:
			if (time_before(jiffies, path->held_until))
				break;
			mpath_path_set_state(path, MPATH_PATH_FAILED);
			fallthrough;
		case MPATH_PATH_FAILED:
		case MPATH_PATH_ACTIVE:
			queue_work(mpath_health_wq, &path->probe_work);
			break;
		default:
			break;
		}
	}

	/*
	 * After the attaches queued above: whether one is in use is known.
	 * Only while a lunpath carries I/O: the partition scan of a disk
	 * added without one waits in the host queue, holding the disk's
	 * open_mutex, and fails if the LUN expires; it is not read again.
	 */
	if (!lun->disk_added && !lun->disk_add_failed &&
	    mpath_lun_has_path(lun)) {
		kobject_get(&lun->kobj);
		if (!queue_work(mpath_wq, &lun->offer_work))
			kobject_put(&lun->kobj);
	}

	/*
	 * Only standby ports, and the explicit failover did not take (the
	 * target refused SET TARGET PORT GROUPS): asked again, once per
	 * path_probe_interval at most.
	 */
	if (!mpath_lun_has_path(lun) &&
	    (!lun->stpg_next || time_after_eq(jiffies, lun->stpg_next))) {
		lun->stpg_next = (jiffies + interval * HZ) ?: 1;
		mpath_lun_check_standby(lun);
	}
	/* A port group in transition, or old states: every second. */
	fast = mpath_lun_probe_fast(lun);
	mpath_unlock();

	mpath_disk_follow_capacity(lun);
	mpath_disk_update_limits(lun);
	queue_delayed_work(mpath_health_wq, &lun->probe_work,
			   fast ? HZ : interval * HZ);
}

/* Held I/O waits for the probes it queues: as mpath_path_probe_work(). */
void mpath_probe_work(struct work_struct *work)
{
	unsigned int noio = memalloc_noio_save();

	mpath_lun_probe(container_of(to_delayed_work(work), struct mpath_lun,
				     probe_work));
	memalloc_noio_restore(noio);
}
