// SPDX-License-Identifier: GPL-2.0
/*
 * Hung lunpaths: the I/O timeout of a lunpath and the LUN's watchdog.
 *
 * A lunpath's io_timeout is how long an I/O may stay on it.  It is applied
 * to the path's SCSI device as its command timeout (the value of
 * /sys/block/sdX/device/timeout, as HP-UX's esd_secs per lunpath), so the
 * SCSI midlayer aborts a command the device does not answer after that
 * time, and it is the threshold of the LUN's watchdog for reads and
 * writes.  sd gives some commands longer: a cache flush twice the timeout,
 * UNMAP 30 s, WRITE SAME 120 s, and a write may come with a flush before it
 * and (a FUA write to a device without FUA) after it.  The watchdog gives
 * every I/O of that slow class the longest, max(5 x timeout, 120 s)
 * (mpath_inflight_limit()), so a slow flush on a healthy path does not
 * fail it.  With no value set (the default) the device's
 * own timeout is left alone and still used.  The device's own value is
 * restored when the path's disk is let go.
 *
 * The watchdog catches what the SCSI timeout does not: I/O that has not
 * even reached the device (a blocked or stalled queue below us) and a path
 * that keeps some I/O waiting while other I/O completes.  No time is
 * stored per I/O: a path counts its I/O in flight by class (plain, slow)
 * in two generations each (mpath_path.inflight, inflight.h: the one atomic
 * add per I/O it makes anyway), which the watchdog ages.  While the LUN has
 * I/O in flight, the watchdog looks every MPATH_WATCHDOG_TICK at the paths
 * of its map: where a class's older generation has emptied it starts a new
 * one, and a path where one began longer than its class's limit ago holds
 * an I/O older than that and is failed.  So new and waiting I/O goes to the other paths
 * at most two ticks after the timeout (more only while an older I/O waits
 * too, which is then the one failing the path).  The I/O already on the
 * hung path cannot be taken back (a late write could land after a newer
 * one); it ends when the SCSI layer aborts it, and if it fails it is sent
 * again on another path.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/jiffies.h>
#include <scsi/scsi_device.h>

#include <mpath_shim/mpath_shim.h>

/* The timeout of @path in jiffies: its device's command timeout. */
static unsigned long mpath_path_timeout(const struct mpath_path *path)
{
	return READ_ONCE(path->sdev->request_queue->rq_timeout);
}

/* Seconds of io_timeout for @path: its own, else the module's, else 0. */
unsigned int mpath_path_io_timeout(const struct mpath_path *path)
{
	return path->io_timeout ?: READ_ONCE(mpath_io_timeout);
}

/*
 * Give @path's device the lunpath's io_timeout, keeping the device's own
 * value to restore; with none set, restore it.  The path's disk is held.
 */
void mpath_path_apply_timeout(struct mpath_path *path)
{
	struct request_queue *q = path->sdev->request_queue;
	unsigned int secs = mpath_path_io_timeout(path);

	lockdep_assert_held(&mpath_shim.lock);

	if (!path->bdev)
		return;
	if (secs) {
		if (!path->dev_timeout)
			path->dev_timeout = q->rq_timeout;
		blk_queue_rq_timeout(q, secs * HZ);
	} else if (path->dev_timeout) {
		blk_queue_rq_timeout(q, path->dev_timeout);
		path->dev_timeout = 0;
	}
}

/* The path's disk is being let go: give the device its own timeout back. */
void mpath_path_restore_timeout(struct mpath_path *path)
{
	lockdep_assert_held(&mpath_shim.lock);

	if (path->dev_timeout)
		blk_queue_rq_timeout(path->sdev->request_queue,
				     path->dev_timeout);
	path->dev_timeout = 0;
}

/*
 * Age @path's I/O at @now, class by class: the age of the oldest I/O of a
 * class that has stayed longer than its class allows (@limit: that
 * allowance), else 0.
 */
static unsigned long mpath_path_overdue(struct mpath_path *path,
					unsigned long now, unsigned long *limit)
{
	unsigned long timeout = mpath_path_timeout(path), age, overdue = 0;
	unsigned int class;

	for (class = 0; class < MPATH_IO_CLASSES; class++) {
		age = mpath_inflight_tick(&path->inflight, class, now);
		if (!overdue && age > mpath_inflight_limit(class, timeout)) {
			overdue = age;
			*limit = mpath_inflight_limit(class, timeout);
		}
	}
	return overdue;
}

/*
 * Does @path hold an I/O older than its class allows?  The prober does not
 * reinstate such a path: it would only be failed again.  Its ticks age the
 * path's I/O while the path is out of the map, where the watchdog does not
 * look.
 */
bool mpath_path_hung(struct mpath_path *path)
{
	unsigned long limit;

	return mpath_path_overdue(path, jiffies, &limit);
}

void mpath_watchdog_work(struct work_struct *work)
{
	struct mpath_lun *lun = container_of(to_delayed_work(work),
					     struct mpath_lun, watchdog_work);
	unsigned long now = jiffies, age, limit;
	struct mpath_path_map *map;
	struct mpath_path *path;
	bool busy = false;
	unsigned int i;

	rcu_read_lock();
	map = rcu_dereference(lun->map);
	/* The map's lunpaths and those it carries for flushes only. */
	for (i = 0; map && i < map->nr + map->nr_wc; i++) {
		path = map->paths[i];
		age = mpath_path_overdue(path, now, &limit);
		if (!mpath_path_inflight(path))
			continue;
		busy = true;
		if (!age || !mpath_path_usable(path))
			continue;
		sdev_printk(KERN_WARNING, path->sdev,
			    "mpath_shim: mpath%d: an I/O has waited over %u ms on this lunpath, its limit %u ms (io_timeout %u ms)\n",
			    lun->name->index, jiffies_to_msecs(age),
			    jiffies_to_msecs(limit),
			    jiffies_to_msecs(mpath_path_timeout(path)));
		/* One watchdog runs per LUN at a time: the only writer. */
		if (mpath_path_report_error(path))
			WRITE_ONCE(path->io_timeouts, path->io_timeouts + 1);
	}
	rcu_read_unlock();
	if (busy && !mpath_lun_dying(lun))
		queue_delayed_work(mpath_health_wq, &lun->watchdog_work,
				   MPATH_WATCHDOG_TICK);
}
