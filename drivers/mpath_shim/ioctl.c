// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/mpathN beyond I/O: open and release, ioctls and SG_IO, geometry and
 * unique id, each passed to one usable lunpath's sd disk.
 *
 * An opener holds a reference on the LUN (as NVMe's multipath head does):
 * after the LUN is torn down its disk may stay open, and an ioctl still
 * reaches these operations, which read the LUN.  The reference is taken in
 * open, which the block layer serialises with del_gendisk() (open_mutex and
 * disk_live()), so the LUN is alive when it is taken.
 *
 * An ioctl goes to the lunpath the LUN's policy chooses, holding a
 * reference on the path's ref so that its disk stays open, with the
 * caller's open mode: sd applies the checks it applies to its own openers
 * (a write-class SG_IO command needs a writer, an unknown one
 * CAP_SYS_RAWIO), and a partition of /dev/mpathN needs CAP_SYS_RAWIO, as a
 * partition of sd does.  Nothing is gained by going through /dev/mpathN.
 *
 * When the chosen path is gone (ENODEV, ENXIO: offline, being deleted),
 * the path is reported failed, as an I/O error would, and the ioctl is sent
 * again on another usable path; each path is tried once.  An SG_IO command
 * that ends with a transport error in its host byte is sent again too, but
 * fails no path by itself: the command and its timeout are the caller's,
 * and so is the header the byte is read back from, which the caller may
 * write meanwhile.  The path's probe asks it (TEST UNIT READY) and fails
 * it only if it does not answer.  Without a usable path an
 * ioctl waits as I/O does (within no_path_timeout), looking again every
 * 10 ms as dm does, until a fatal signal.
 *
 * SG_SET_TIMEOUT sets a SCSI device's default timeout for SG_IO commands
 * that give none: through /dev/mpathN it is the LUN's, which every attached
 * lunpath's device takes (one attached later too; each gets back the value
 * it had when the LUN's was applied, when the shim lets its disk go), so
 * that a command's timeout does not depend on the path it goes down.  It
 * needs no lunpath, nor does SG_GET_TIMEOUT once it is set; it lasts as
 * long as the LUN.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/hdreg.h>
#include <linux/sched/signal.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_ioctl.h>
#include <scsi/sg.h>

#include <mpath_shim/mpath_shim.h>

static bool mpath_was_tried(const struct mpath_tried *t,
			    const struct mpath_path *path)
{
	unsigned int i;

	for (i = 0; i < t->nr; i++)
		if (t->paths[i] == path)
			return true;
	return false;
}

static bool mpath_ioctl_take(struct mpath_path *path,
			     const struct mpath_tried *t)
{
	return path && mpath_path_usable(path) && !mpath_was_tried(t, path) &&
	       percpu_ref_tryget_live(&path->ref);
}

/*
 * May an ioctl that found no untried lunpath in the map go down @path?
 * One that may carry I/O, of a lower ALUA rank than the map's (or the
 * policy's lock left it out); for a reservation command also one whose
 * port is standby, which takes it (a map of standby ports only is empty
 * until a failover).  Not one waiting to join the LUN's key: its nexus is
 * not registered.
 */
static bool mpath_ioctl_fallback_ok(const struct mpath_path *path, bool pr)
{
	if (!pr)
		return mpath_path_serves_io(path);
	return mpath_path_usable(path) &&
	       !test_bit(MPATH_PATH_PR_STALE, &path->flags) &&
	       (!mpath_path_alua(path) ||
		mpath_alua_takes_pr(READ_ONCE(path->access_state)));
}

/*
 * A usable lunpath of @lun not in @t, the policy's choice first, then the
 * rest of the map, then one the map leaves out (mpath_ioctl_fallback_ok());
 * with a reference on its ref; NULL if there is none.  The map holds the
 * best ALUA rank only, and a path whose SG_IO command met a transport error
 * stays in it until its probe answers: without the fallback, an ioctl on
 * a LUN with one optimized port was not sent on to the non-optimized ones,
 * and a RESERVE by the holder whose nexus is now non-optimized met the
 * conflict of the optimized one alone.
 */
static struct mpath_path *mpath_ioctl_choose(struct mpath_lun *lun,
					     const struct mpath_tried *t)
{
	struct mpath_path_map *map;
	struct mpath_path *path;
	unsigned int i;

	rcu_read_lock();
	map = rcu_dereference(lun->map);
	if (!map || !map->nr)
		goto none;
	path = mpath_selector_select(rcu_dereference(lun->sel), map,
				     numa_node_id(), 0);
	if (mpath_ioctl_take(path, t))
		goto out;
	for (i = 0; i < map->nr; i++) {
		path = map->paths[i];
		if (mpath_ioctl_take(path, t))
			goto out;
	}
none:
	path = NULL;
out:
	rcu_read_unlock();
	if (path)
		return path;

	mpath_lock();
	list_for_each_entry(path, &lun->paths, lun_node)
		if (mpath_ioctl_fallback_ok(path, t->pr) &&
		    mpath_ioctl_take(path, t))
			goto found;
	path = NULL;
found:
	mpath_unlock();
	return path;
}

/*
 * A usable lunpath for an ioctl or a reservation command, waiting for one
 * within no_path_timeout, with @unlock (if not NULL) released while it
 * waits: the path may come back only through the work that needs it.
 * ERR_PTR(-EIO) when the LUN fails I/O without a path, or every usable path
 * was tried; -EINTR on a fatal signal.
 */
struct mpath_path *mpath_ioctl_path(struct mpath_lun *lun,
				    struct mpath_tried *t,
				    struct mutex *unlock)
{
	struct mpath_path *path;

	if (t->nr == MPATH_IOCTL_MAX_TRIES)
		return ERR_PTR(-EIO);
	while (!(path = mpath_ioctl_choose(lun, t))) {
		/* Paths were tried and none is left: no waiting. */
		if (t->nr || mpath_lun_no_path_fails(lun))
			return ERR_PTR(-EIO);
		if (fatal_signal_pending(current))
			return ERR_PTR(-EINTR);
		if (unlock)
			mutex_unlock(unlock);
		fsleep(10000);
		if (unlock)
			mutex_lock(unlock);
	}
	t->paths[t->nr++] = path;
	return path;
}

/*
 * Did the ioctl fail because of the path it went down?  MPATH_IOCTL_GONE:
 * the path's device is; MPATH_IOCTL_TRANSPORT: an SG_IO command's host
 * byte, in the header sd wrote back to the caller, says so;
 * MPATH_IOCTL_TRANSPORT_FINAL: so, but the LU may have carried the command
 * out and a second run would answer otherwise (mpath_sg_resend_ok()): the
 * caller gets it, and the path is asked whether it answers.
 */
enum mpath_ioctl_outcome {
	MPATH_IOCTL_DONE,
	MPATH_IOCTL_GONE,
	MPATH_IOCTL_TRANSPORT,
	MPATH_IOCTL_TRANSPORT_FINAL,	/* ran maybe, not to be sent again */
};

/* The operation code of the SG_IO command at @arg: 0, or -EFAULT. */
static int mpath_sg_io_opcode(unsigned long arg, struct sg_io_hdr *hdr,
			      u8 *opcode)
{
	if (get_sg_io_hdr(hdr, (const void __user *)arg) || !hdr->cmd_len ||
	    get_user(*opcode, (const u8 __user *)hdr->cmdp))
		return -EFAULT;
	return 0;
}

static enum mpath_ioctl_outcome mpath_ioctl_outcome(int ret, unsigned int cmd,
						     unsigned long arg)
{
	struct sg_io_hdr hdr;
	u8 opcode;

	if (mpath_errno_path_error(ret))
		return MPATH_IOCTL_GONE;
	if (ret || cmd != SG_IO)
		return MPATH_IOCTL_DONE;
	if (get_sg_io_hdr(&hdr, (const void __user *)arg))
		return MPATH_IOCTL_DONE;
	if (!mpath_host_byte_path_error(hdr.host_status))
		return MPATH_IOCTL_DONE;
	if (!mpath_sg_io_opcode(arg, &hdr, &opcode) &&
	    !mpath_sg_resend_ok(opcode, hdr.host_status))
		return MPATH_IOCTL_TRANSPORT_FINAL;
	return MPATH_IOCTL_TRANSPORT;
}

/* Give @path's device the LUN's SG_IO default timeout, if it has one. */
void mpath_path_apply_sg_timeout(struct mpath_path *path)
{
	struct mpath_lun *lun = path->lun;

	lockdep_assert_held(&mpath_shim.lock);

	if (!path->bdev || !lun->sg_timeout_set)
		return;
	if (!path->sg_timeout_kept) {
		path->dev_sg_timeout = READ_ONCE(path->sdev->sg_timeout);
		path->sg_timeout_kept = true;
	}
	WRITE_ONCE(path->sdev->sg_timeout, lun->sg_timeout);
}

/* The path's disk is being let go: its device's own SG_IO timeout back. */
void mpath_path_restore_sg_timeout(struct mpath_path *path)
{
	lockdep_assert_held(&mpath_shim.lock);

	if (path->sg_timeout_kept)
		WRITE_ONCE(path->sdev->sg_timeout, path->dev_sg_timeout);
	path->sg_timeout_kept = false;
}

/* SG_SET_TIMEOUT (clock ticks, as the SCSI midlayer takes it): the LUN's. */
static int mpath_sg_set_timeout(struct mpath_lun *lun, int __user *p)
{
	struct mpath_path *path;
	int timeout;

	if (get_user(timeout, p))
		return -EFAULT;
	mpath_lock();
	WRITE_ONCE(lun->sg_timeout, clock_t_to_jiffies(timeout));
	WRITE_ONCE(lun->sg_timeout_set, true);
	list_for_each_entry(path, &lun->paths, lun_node)
		mpath_path_apply_sg_timeout(path);
	mpath_unlock();
	return 0;
}

static int mpath_ioctl(struct block_device *bdev, blk_mode_t mode,
		       unsigned int cmd, unsigned long arg)
{
	struct mpath_lun *lun = bdev->bd_disk->private_data;
	struct mpath_tried tried = { };
	const struct block_device_operations *fops;
	enum mpath_ioctl_outcome outcome;
	struct mpath_path *path;
	struct sg_io_hdr hdr;
	int ret = -EIO;
	u8 opcode;

	/* As sd_ioctl(): nothing but the generic ioctls on a partition. */
	if (bdev_is_partition(bdev) && !capable(CAP_SYS_RAWIO))
		return -ENOIOCTLCMD;
	if (cmd == SG_SET_TIMEOUT)
		return mpath_sg_set_timeout(lun, (int __user *)arg);
	/* The LUN's, also with no usable lunpath. */
	if (cmd == SG_GET_TIMEOUT && READ_ONCE(lun->sg_timeout_set))
		return jiffies_to_clock_t(READ_ONCE(lun->sg_timeout));
	/* sg_persist, fence_scsi: a standby port takes them, as IOC_PR_*. */
	if (cmd == SG_IO && !mpath_sg_io_opcode(arg, &hdr, &opcode))
		tried.pr = opcode == PERSISTENT_RESERVE_IN ||
			   opcode == PERSISTENT_RESERVE_OUT;
	for (;;) {
		path = mpath_ioctl_path(lun, &tried, NULL);
		if (IS_ERR(path))
			return tried.nr ? ret : PTR_ERR(path);
		fops = path->bdev->bd_disk->fops;
		ret = fops->ioctl ? fops->ioctl(path->bdev, mode, cmd, arg) :
				    -ENOTTY;
		outcome = mpath_ioctl_outcome(ret, cmd, arg);
		if (outcome == MPATH_IOCTL_TRANSPORT_FINAL)
			mpath_path_check(path);
		if (outcome == MPATH_IOCTL_DONE ||
		    outcome == MPATH_IOCTL_TRANSPORT_FINAL) {
			percpu_ref_put(&path->ref);
			return ret;
		}
		atomic_long_inc(&lun->ioctl_failovers);
		if (outcome == MPATH_IOCTL_GONE)
			mpath_path_report_error(path);
		else
			mpath_path_check(path);
		percpu_ref_put(&path->ref);
	}
}

/* The geometry sd makes up for the LUN, from one of its paths. */
static int mpath_getgeo(struct gendisk *disk, struct hd_geometry *geo)
{
	struct mpath_lun *lun = disk->private_data;
	struct mpath_tried tried = { };
	const struct block_device_operations *fops;
	struct mpath_path *path;
	int ret;

	path = mpath_ioctl_path(lun, &tried, NULL);
	if (IS_ERR(path))
		return PTR_ERR(path);
	fops = path->bdev->bd_disk->fops;
	ret = fops->getgeo ? mpath_call_getgeo(fops, path->bdev, geo) : -ENOTTY;
	percpu_ref_put(&path->ref);
	return ret;
}

/* The LU's identifier (pNFS SCSI layouts): the same on every path. */
static int mpath_get_unique_id(struct gendisk *disk, u8 id[16],
			       enum blk_unique_id type)
{
	struct mpath_lun *lun = disk->private_data;
	struct mpath_tried tried = { };
	const struct block_device_operations *fops;
	struct mpath_path *path;
	int ret;

	path = mpath_ioctl_path(lun, &tried, NULL);
	if (IS_ERR(path))
		return PTR_ERR(path);
	fops = path->bdev->bd_disk->fops;
	ret = fops->get_unique_id ?
	      fops->get_unique_id(path->bdev->bd_disk, id, type) : -EINVAL;
	percpu_ref_put(&path->ref);
	return ret;
}

static int mpath_open(struct gendisk *disk, blk_mode_t mode)
{
	struct mpath_lun *lun = disk->private_data;

	lockdep_assert_held(&disk->open_mutex);
	/* Being released: the disk is on its way out. */
	if (lun->releasing)
		return -ENXIO;
	kobject_get(&lun->kobj);
	return 0;
}

static void mpath_release(struct gendisk *disk)
{
	struct mpath_lun *lun = disk->private_data;

	kobject_put(&lun->kobj);
}

MPATH_DEFINE_FOPS_OPEN(mpath_open, mpath_release)
MPATH_DEFINE_FOPS_GETGEO(mpath_getgeo)

const struct block_device_operations mpath_fops = {
	.owner		= THIS_MODULE,
	.submit_bio	= mpath_submit_bio,
	.open		= MPATH_FOPS_OPEN(mpath_open),
	.release	= MPATH_FOPS_RELEASE(mpath_release),
	.ioctl		= mpath_ioctl,
	.compat_ioctl	= blkdev_compat_ptr_ioctl,
	.getgeo		= MPATH_FOPS_GETGEO(mpath_getgeo),
	.get_unique_id	= mpath_get_unique_id,
	.pr_ops		= &mpath_pr_ops,
};
