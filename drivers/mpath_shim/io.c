// SPDX-License-Identifier: GPL-2.0
/*
 * The I/O path of /dev/mpathN.
 *
 * submit_bio splits the bio to the LUN's limits, starts block-layer
 * accounting (unless /dev/mpathN's queue/iostats is 0), takes a context
 * (struct mpath_io, with its clone: this CPU's cache, else the LUN's
 * mempool, iocache.c; never asleep: a bio that finds none waits on the
 * LUN's ctxwait list), sets the clone up from the bio and sends it to a
 * lunpath chosen by the LUN's policy from the RCU-published path map,
 * holding one of that path's tags (at most max_q_depth I/Os are in flight
 * on a path).  Written per I/O: the submitting CPU's policy state (per
 * CPU), and on the chosen path its percpu_ref, its in-flight count, which
 * is its tags (one atomic, which also ages the I/O for the watchdog:
 * inflight.h), and this CPU's counters.  No lock.
 *
 * The LUN's host queue (the requeue list) holds, first in first out, I/O
 * that found every usable path at its queue depth, I/O that found no usable
 * path, and I/O sent again after a path error.  While it is not empty, new
 * I/O queues behind it: nothing overtakes a waiting I/O.  A completion that
 * frees a tag kicks the requeue work, which sends from the head as long as
 * tags are free.  I/O without a usable path waits up to no_path_timeout.
 *
 * A clone that fails with a path error (blk_path_error()) reports the error
 * on its path (which stops being chosen; map_work fails it) and goes to the
 * host queue; the same clone is set up again from the original before it
 * is sent again, so waiting and resending never allocate (no deadlock on the
 * LUN's reserve of contexts under memory pressure).  An I/O that keeps
 * failing with path errors on every path (2 per lunpath within 3 probe
 * intervals) ends with its error instead of going round for ever.  Any
 * other error ends the original bio.
 *
 * A REQ_NOWAIT bio (io_uring) never sleeps here: it ends with BLK_STS_AGAIN
 * where another would wait (no clone at once, the host queue) and its
 * caller sends it again from a context that may.  Its clone keeps
 * REQ_NOWAIT.  The path disk's BLK_STS_AGAIN (no request free there: a
 * host's tags are shared by all its LUNs) is not a path error; the I/O was
 * sent, so it is kept and sent again from the host queue, as after a path
 * error.  Sent again from there it goes without REQ_NOWAIT (kblockd may
 * sleep, and nobody would resubmit).  It enters /dev/mpathN's I/O
 * statistics when it is sent (or ends otherwise), not when it arrives: one
 * the shim sends back with BLK_STS_AGAIN is counted once, when its caller
 * submits it again.
 *
 * Clones are charged to the original bio's cgroup on the path disk, as dm
 * does, and are marked BIO_REMAPPED as NVMe does: /dev/mpathN checked the end
 * of device against the LUN's capacity, the smallest of its paths'.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/ioprio.h>
#include <linux/ktime.h>
#include <trace/events/block.h>

#include <mpath_shim/mpath_shim.h>

enum mpath_send {
	MPATH_SENT,
	MPATH_BUSY,	/* usable paths, all at their queue depth */
	MPATH_NO_PATH,
};

static struct mpath_io *to_io(struct bio *clone)
{
	return container_of(clone, struct mpath_io, clone);
}

/* @io's original enters /dev/mpathN's I/O statistics now (REQ_NOWAIT). */
static void mpath_io_acct_late(struct mpath_io *io)
{
	io->acct_late = false;
	io->acct = true;
	io->start = bio_start_io_acct(io->orig);
}

/*
 * Waiting for a context.  ->submit_bio never sleeps for one: it holds
 * /dev/mpathN's queue usage counter, and a freeze (a lunpath's attach that
 * changes the queue limits, before it publishes the lunpath) would wait
 * for a submitter that waits for a context that waits, in the host queue,
 * for that very lunpath.  A bio that finds none free joins the LUN's
 * ctxwait list, and bios behind it join it too (nothing overtakes a
 * waiting bio, as for the host queue).  Every freed context kicks the
 * ctxwait work while the list is not empty; the work takes contexts
 * without sleeping either, and stops when there is none: the next free
 * kicks it, and a timer, as mempool_alloc() has, in case a freed context
 * went to another CPU's cache.  The list shares requeue_lock.
 */
#define MPATH_CTXWAIT_RETRY	HZ

static void mpath_kick_ctxwait(struct mpath_lun *lun, unsigned long delay)
{
	kblockd_mod_delayed_work_on(WORK_CPU_UNBOUND, &lun->ctxwait_work,
				    delay);
}

static void mpath_io_end(struct mpath_io *io, blk_status_t status)
{
	struct bio *orig = io->orig;
	struct mpath_lun *lun = orig->bi_bdev->bd_disk->private_data;

	if (status) {
		orig->bi_status = status;
		/* An error the caller sees (AGAIN is "send it again"). */
		if (mpath_stats_on() && status != BLK_STS_AGAIN)
			this_cpu_inc(lun->stats->errors);
	}
	/* Ended here without a send: counted, unless sent again (AGAIN). */
	if (unlikely(io->acct_late) && status != BLK_STS_AGAIN)
		mpath_io_acct_late(io);
	if (io->acct)
		bio_end_io_acct(orig, io->start);
	mpath_io_free(lun, io);
	/* A bio waits for a context: one is free now. */
	if (unlikely(READ_ONCE(lun->ctxwait_len)))
		mpath_kick_ctxwait(lun, 0);
	bio_endio(orig);
}

void mpath_kick_requeue(struct mpath_lun *lun)
{
	kblockd_schedule_work(&lun->requeue_work);
}

static void mpath_ctxwait_add(struct mpath_lun *lun, struct bio *bio)
{
	unsigned long flags;
	bool first;

	/* Sent from a kworker: the submitter's priority, not kblockd's. */
	if (IOPRIO_PRIO_CLASS(bio->bi_ioprio) == IOPRIO_CLASS_NONE)
		bio->bi_ioprio = get_current_ioprio();
	spin_lock_irqsave(&lun->requeue_lock, flags);
	bio_list_add(&lun->ctxwait_list, bio);
	first = !lun->ctxwait_len;
	WRITE_ONCE(lun->ctxwait_len, lun->ctxwait_len + 1);
	spin_unlock_irqrestore(&lun->requeue_lock, flags);
	/* Those behind it wait for what the first waits for. */
	if (first)
		mpath_kick_ctxwait(lun, 0);
}

/*
 * Host queue.  hq_len is the length of the list, changed only under
 * requeue_lock together with the list.  An I/O leaves the list only once it
 * holds a path tag (or fails), in the same critical section, so a completion
 * that frees a tag after the requeue work found none sees a waiter and
 * kicks the work again (no lost wakeup).  Only the first waiter kicks: the
 * ones behind it wait for what the head waits for (a tag: a completion
 * kicks; a path: publishing a map kicks; the no-path timeout kicks).
 */

/* Most I/Os the requeue work takes out of the host queue per lock hold. */
#define MPATH_HQ_BATCH	16

/* Put @io at the tail of the host queue; true if it is the only waiter. */
static bool mpath_hq_add(struct mpath_lun *lun, struct mpath_io *io)
{
	u64 now = ktime_get_ns();
	unsigned long flags;
	bool first;

	spin_lock_irqsave(&lun->requeue_lock, flags);
	bio_list_add(&lun->requeue_list, &io->clone);
	if (!io->queued_ns) {
		io->queued_ns = now;
		lun->hq_waits++;
	}
	first = !lun->hq_len;
	WRITE_ONCE(lun->hq_len, lun->hq_len + 1);
	mpath_qlen_change(&lun->hq, now, 1);
	spin_unlock_irqrestore(&lun->requeue_lock, flags);
	return first;
}

/* The head of the host queue leaves it: count its wait.  Under the lock. */
static struct mpath_io *mpath_hq_leave(struct mpath_lun *lun, u64 now)
{
	struct mpath_io *io = to_io(bio_list_pop(&lun->requeue_list));
	u64 since;

	lockdep_assert_held(&lun->requeue_lock);

	/* Queued before a reset of the counters: its wait since. */
	since = max(io->queued_ns, lun->hq_reset_ns);
	if (io->queued_ns && now > since)
		lun->hq_wait_ns += now - since;
	io->queued_ns = 0;
	WRITE_ONCE(lun->hq_len, lun->hq_len - 1);
	mpath_qlen_change(&lun->hq, now, -1);
	return io;
}

/*
 * Take a tag of @path: count the I/O in flight on it, if fewer than the
 * path's queue depth are.  The tags are that count, not a bitmap: an I/O
 * needs no tag number, and the count is the one atomic it updates anyway.
 * Inline: every I/O takes this, and a call is a return for TCG to look up.
 */
static __always_inline bool mpath_path_get_tag(struct mpath_path *path,
						struct mpath_io *io)
{
	blk_opf_t opf = io->orig->bi_opf;
	unsigned int active, dev = 0;

	/* How its disk takes a flush (open while the path's ref is live). */
	if (unlikely(opf & (REQ_PREFLUSH | REQ_FUA))) {
		if (bdev_write_cache(path->bdev))
			dev |= MPATH_DEV_WC;
		if (bdev_fua(path->bdev))
			dev |= MPATH_DEV_FUA;
	}
	active = mpath_inflight_get(&path->inflight,
				    mpath_io_class_of(opf, dev), &io->gen,
				    READ_ONCE(path->depth));
	if (!active)
		return false;
	/* 0: a busy period begun with stats off is not counted. */
	if (active == 1)
		WRITE_ONCE(path->busy_since,
			   mpath_stats_on() ? ktime_get_ns() : 0);
	if (unlikely(active > READ_ONCE(path->max_outstanding)))
		WRITE_ONCE(path->max_outstanding, active);
	return true;
}

/*
 * Give the tag back.  The count's atomic is fully ordered: the tag is free
 * before the caller reads the host queue's length, which pairs with the
 * barrier of queue_work() in mpath_kick_requeue() after a waiter is added.
 */
static void mpath_path_put_tag(struct mpath_path *path, struct mpath_io *io,
			       u64 now)
{
	u64 since;

	if (!mpath_inflight_end(&path->inflight, io->gen) && now &&
	    mpath_stats_on()) {
		since = READ_ONCE(path->busy_since);
		if (since && now > since)
			this_cpu_add(path->stats->busy_ns, now - since);
	}
}

/*
 * May @path, whose ref is held, carry @io?  With @wc (a flush or FUA write)
 * only if its disk has a write cache: the block layer drops PREFLUSH and
 * FUA for a disk without one, so where the paths' disks disagree (sd's
 * MODE SENSE failed on one, or "write through" written to one's
 * queue/write_cache) such a path would end the flush having sent nothing.
 */
static __always_inline bool mpath_path_takes(struct mpath_path *path,
					     struct mpath_io *io, bool wc)
{
	if (unlikely(wc) && !bdev_write_cache(path->bdev))
		return false;
	return mpath_path_get_tag(path, io);
}

/*
 * mpath_get_path(), with @wc: only a path whose disk has a write cache, of
 * the map's or, if none of those has one, of the others that may carry I/O
 * (a lower ALUA rank, the ones path_lockdown leaves out).  MPATH_NO_PATH if
 * there is none, MPATH_BUSY if each is at its depth.
 */
static __always_inline enum mpath_send
__mpath_get_path(struct mpath_lun *lun, struct mpath_io *io,
		 struct mpath_path **pathp, bool wc)
{
	enum mpath_send ret = MPATH_NO_PATH;
	struct mpath_selector *sel;
	struct mpath_path_map *map;
	struct mpath_path *path;
	unsigned int i;

	rcu_read_lock();
	map = rcu_dereference(lun->map);
	sel = rcu_dereference(lun->sel);
	if (!map || !map->nr)
		goto out;
	path = mpath_selector_select(sel, map, numa_node_id(), io->bytes);
	if (path && percpu_ref_tryget_live_rcu(&path->ref)) {
		if (!wc || bdev_write_cache(path->bdev))
			ret = MPATH_BUSY;
		if (mpath_path_takes(path, io, wc))
			goto found;
		percpu_ref_put(&path->ref);
	}
	if (sel->policy->flags & MPATH_PS_NO_FAILOVER)
		goto wc_others;
	for (i = 0; i < map->nr; i++) {
		path = map->paths[i];
		if (!mpath_path_usable(path) ||
		    !percpu_ref_tryget_live_rcu(&path->ref))
			continue;
		if (!wc || bdev_write_cache(path->bdev))
			ret = MPATH_BUSY;
		if (mpath_path_takes(path, io, wc))
			goto found;
		percpu_ref_put(&path->ref);
	}
wc_others:
	if (!wc || ret != MPATH_NO_PATH)
		goto out;
	for (i = map->nr; i < map->nr + map->nr_wc; i++) {
		path = map->paths[i];
		if (!mpath_path_usable(path) ||
		    !bdev_write_cache(path->bdev) ||
		    !percpu_ref_tryget_live_rcu(&path->ref))
			continue;
		ret = MPATH_BUSY;
		if (mpath_path_takes(path, io, wc))
			goto found;
		percpu_ref_put(&path->ref);
	}
out:
	rcu_read_unlock();
	return ret;
found:
	io->counted = sel->policy->flags & MPATH_PS_TRACK_LOAD;
	rcu_read_unlock();
	if (io->counted)
		io->ahead = atomic64_add_return(io->bytes, &path->active_bytes);
	*pathp = path;
	return MPATH_SENT;
}

/*
 * Choose a usable path of @lun for @io with the LUN's policy and take a
 * reference on its ref and one of its tags.  When the policy's choice is at
 * its queue depth, any usable path with a free tag will do (unless the
 * policy has no failover).  A flush or FUA write goes to a path whose disk
 * has a write cache while one is usable, and waits for its tag.
 */
static enum mpath_send mpath_get_path(struct mpath_lun *lun,
				      struct mpath_io *io,
				      struct mpath_path **pathp)
{
	enum mpath_send ret;

	if (likely(!(io->orig->bi_opf & (REQ_PREFLUSH | REQ_FUA))))
		return __mpath_get_path(lun, io, pathp, false);
	ret = __mpath_get_path(lun, io, pathp, true);
	/* No usable path has a write cache: the LU has none, they say. */
	if (ret == MPATH_NO_PATH)
		ret = __mpath_get_path(lun, io, pathp, false);
	return ret;
}

static void mpath_clone_end_io(struct bio *clone);

/*
 * The block layer checks a bio for a split cheaply when it has one page
 * (bi_vcnt 1), and segment by segment otherwise (6.1, 6.12).  A
 * clone's bi_vcnt is 0, so every clone was checked again on the path disk
 * after its original passed on /dev/mpathN: a clone of a one-page original
 * says so, as the original does (both map the same bvec).
 */
static void mpath_clone_pages(struct bio *clone, const struct bio *orig)
{
	if (orig->bi_vcnt == 1)
		clone->bi_vcnt = 1;
}

/*
 * Set the clone of @io up for its original: what bio_alloc_clone() does,
 * on the context's own bio, which no bio_set frees (iocache.c).  A failover
 * releases the spent clone and sets it up again: it never allocates.
 * (/dev/mpathN has no crypto profile: blk-crypto's fallback took any
 * encryption context off the original.  REQ_ALLOC_CACHE is the original's
 * bio_set's business.)  Inline: every I/O sets its clone up once.
 */
static __always_inline void mpath_clone_init(struct mpath_io *io)
{
	struct bio *clone = &io->clone, *orig = io->orig;

	bio_init(clone, NULL, NULL, 0, orig->bi_opf & ~REQ_ALLOC_CACHE);
	bio_set_flag(clone, BIO_CLONED);
	clone->bi_ioprio = orig->bi_ioprio;
	mpath_bio_clone_hints(clone, orig);
	clone->bi_iter = orig->bi_iter;
	clone->bi_io_vec = orig->bi_io_vec;
	mpath_clone_pages(clone, orig);
}

/* Send @io to @path, whose reference and tag it holds. */
static void mpath_send(struct mpath_lun *lun, struct mpath_io *io,
		       struct mpath_path *path)
{
	struct bio *clone = &io->clone;

	if (unlikely(io->acct_late))
		mpath_io_acct_late(io);
	if (unlikely(io->spent)) {
		bio_uninit(clone);
		mpath_clone_init(io);
		/*
		 * Sent again from the host queue by kblockd, which may sleep
		 * for a tag: a path disk's BLK_STS_AGAIN would reach a
		 * submitter that is not there to send it again.
		 */
		clone->bi_opf &= ~REQ_NOWAIT;
	}
	/*
	 * The clone has no disk and no cgroup until it has a path: then the
	 * original's cgroup, on the path disk, in one blkg lookup (not
	 * bio_set_dev(), which takes the current task's: kblockd's when
	 * sent from the host queue).
	 */
	clone->bi_bdev = path->bdev;
	bio_clone_blkg_association(clone, io->orig);
	/* The end of device was checked on /dev/mpathN (the smallest path). */
	bio_set_flag(clone, BIO_REMAPPED);
	io->path = path;
	io->spent = true;
	/* The clock is read only for counters and load tracking. */
	io->sent_ns = mpath_stats_on() || io->counted ? ktime_get_ns() : 0;
	clone->bi_opf |= REQ_FAILFAST_TRANSPORT;
	clone->bi_end_io = mpath_clone_end_io;
	mpath_watchdog_arm(lun);
	trace_block_bio_remap(clone, disk_devt(lun->disk),
			      io->orig->bi_iter.bi_sector);
	submit_bio_noacct(clone);
}

static enum mpath_send mpath_try_send(struct mpath_lun *lun,
				      struct mpath_io *io)
{
	struct mpath_path *path;
	enum mpath_send ret = mpath_get_path(lun, io, &path);

	if (ret == MPATH_SENT)
		mpath_send(lun, io, path);
	return ret;
}

static void mpath_dispatch(struct mpath_lun *lun, struct mpath_io *io)
{
	enum mpath_send ret;

	/* Nothing overtakes I/O waiting in the host queue. */
	if (likely(!READ_ONCE(lun->hq_len))) {
		ret = mpath_try_send(lun, io);
		if (likely(ret == MPATH_SENT))
			return;
		if (ret == MPATH_NO_PATH && mpath_lun_no_path_fails(lun)) {
			mpath_io_end(io, BLK_STS_IOERR);
			return;
		}
	}
	/* It would wait: a caller that may not is told to send it again. */
	if (io->orig->bi_opf & REQ_NOWAIT) {
		mpath_io_end(io, BLK_STS_AGAIN);
		return;
	}
	/* The first waiter: a tag or a path may have come free since we looked. */
	if (mpath_hq_add(lun, io))
		mpath_kick_requeue(lun);
}

static void mpath_account(struct mpath_path *path, struct mpath_lun *lun,
			  struct mpath_io *io, blk_status_t status, u64 now)
{
	int rw = op_is_write(bio_op(io->orig));
	u64 ns = now - io->sent_ns;

	if (!mpath_stats_on() || !io->sent_ns || status == BLK_STS_AGAIN)
		return;
	this_cpu_add(path->stats->service_ns, ns);
	this_cpu_add(lun->stats->service_ns, ns);
	if (status) {
		this_cpu_inc(path->stats->errors);
		return;
	}
	this_cpu_inc(path->stats->ios[rw]);
	this_cpu_add(path->stats->bytes[rw], io->bytes);
	this_cpu_inc(lun->stats->ios[rw]);
	this_cpu_add(lun->stats->bytes[rw], io->bytes);
	mpath_lat_account(lun->lat, rw, ns);
}

/*
 * @io failed with a path error, @status: has it had its share?  Two per
 * lunpath in service (active, whatever its port's access state, or failed:
 * back by itself; lun->nr_io_paths, read at each error, since failing does
 * not take a lunpath out of service), within three probe intervals of its
 * first (an I/O that fails on every path while the paths keep answering the
 * probe would otherwise go round for ever, and the host queue being FIFO,
 * hold up the LUN).  Not two per lunpath of the LUN: a disabled or
 * unattached one fails no I/O, and with one of three in service an I/O
 * failed once per probe tick, never six times in three, and went round for
 * ever.  Nor two per lunpath in the map: a non-optimized group's lunpaths
 * take over when the optimized group is lost.  A device being
 * removed refuses I/O with BLK_STS_OFFLINE (SDEV_CANCEL) and the probe too,
 * and never comes back, so such a failure cannot go round and does not
 * count: while a host's devices are being removed their lunpaths fail I/O
 * before they leave, and the share shrinks as they leave.
 */
static bool mpath_io_tries_exhausted(struct mpath_lun *lun, struct mpath_io *io,
				     blk_status_t status)
{
	unsigned long window = 3UL * READ_ONCE(mpath_path_probe_interval) * HZ;
	unsigned int tries;

	if (status == BLK_STS_OFFLINE)
		return false;
	if (!io->path_errors || time_after(jiffies, io->first_error + window)) {
		io->first_error = jiffies;
		io->path_errors = 0;
	}
	tries = MPATH_IO_TRIES_PER_PATH *
		clamp(READ_ONCE(lun->nr_io_paths), 1U, (unsigned int)U16_MAX / 2);
	if (++io->path_errors < tries)
		return false;
	atomic_long_inc(&lun->io_tries_exhausted);
	pr_warn_ratelimited("mpath%d: an I/O failed on every path %u times: ending it with an error\n",
			    lun->name->index, io->path_errors);
	return true;
}

static void mpath_clone_end_io(struct bio *clone)
{
	struct mpath_io *io = to_io(clone);
	struct mpath_path *path = io->path;
	struct mpath_lun *lun = path->lun;
	blk_status_t status = clone->bi_status;
	u64 now = io->sent_ns ? ktime_get_ns() : 0;
	bool path_error;

	if (io->counted) {
		atomic64_sub(io->bytes, &path->active_bytes);
		if (!status)
			mpath_path_cost_update(path, now - io->sent_ns, io->ahead);
	}
	mpath_account(path, lun, io, status, now);
	mpath_path_put_tag(path, io, now);

	/*
	 * REQ_NOWAIT, and the path disk would have waited for a request: not
	 * a path error.  Sent again from the host queue, without REQ_NOWAIT,
	 * rather than handed back: /dev/mpathN counted it when it was sent,
	 * and a submitter that is not there (blk-throttle's work sends it)
	 * would pass EAGAIN on as an error.  Any other AGAIN is a path error,
	 * so it cannot go round for ever.
	 */
	if (unlikely(status == BLK_STS_AGAIN) &&
	    (clone->bi_opf & REQ_NOWAIT))
		goto requeue;
	path_error = unlikely(status) && blk_path_error(status);
	if (path_error && !mpath_io_tries_exhausted(lun, io, status)) {
		mpath_path_report_error(path);
		if (mpath_stats_on()) {
			this_cpu_inc(path->stats->failovers);
			this_cpu_inc(lun->stats->failovers);
		}
		goto requeue;
	}
	if (path_error)
		mpath_path_report_error(path);
	else if (unlikely(status == BLK_STS_RESV_CONFLICT))
		atomic_long_inc(&path->resv_conflicts);
	/* The tag is free: if I/O waits for one, send it. */
	if (READ_ONCE(lun->hq_len))
		mpath_kick_requeue(lun);
	mpath_io_end(io, status);
	percpu_ref_put(&path->ref);
	return;

requeue:
	/* Queue it while our path reference keeps the LUN alive. */
	io->path = NULL;
	mpath_hq_add(lun, io);
	mpath_kick_requeue(lun);
	percpu_ref_put(&path->ref);
}

/* @io takes @bio: set up, counted, and sent or queued. */
static void mpath_io_start(struct mpath_lun *lun, struct mpath_io *io,
			   struct bio *bio)
{
	bool acct;

	io->orig = bio;
	/* Without a disk: mpath_send() sets the path's and the cgroup. */
	mpath_clone_init(io);
	io->spent = false;
	io->path = NULL;
	io->path_errors = 0;
	io->counted = false;
	io->queued_ns = 0;
	io->bytes = bio->bi_iter.bi_size;
	/* queue/iostats 0: not in /proc/diskstats, as NVMe's multipath head. */
	acct = blk_queue_io_stat(lun->disk->queue);
	io->acct_late = acct && (bio->bi_opf & REQ_NOWAIT);
	io->acct = acct && !io->acct_late;
	if (io->acct)
		io->start = bio_start_io_acct(bio);
	mpath_dispatch(lun, io);
}

void mpath_submit_bio(struct bio *bio)
{
	struct mpath_lun *lun = bio->bi_bdev->bd_disk->private_data;
	struct mpath_io *io = NULL;

	bio = bio_split_to_limits(bio);
	if (!bio)
		return;
	/* Never asleep here (see mpath_ctxwait_add()), nor past a waiter. */
	if (likely(!READ_ONCE(lun->ctxwait_len)))
		io = mpath_io_alloc(lun, GFP_NOWAIT);
	if (unlikely(!io)) {
		if (bio->bi_opf & REQ_NOWAIT)
			bio_wouldblock_error(bio);
		else
			mpath_ctxwait_add(lun, bio);
		return;
	}
	mpath_io_start(lun, io, bio);
}

/*
 * The head of the ctxwait list with a context, or NULL: none waits, or no
 * context is free.  Under requeue_lock, so that mpath_fail_ctxwait() and
 * this never both take a bio.
 */
static struct bio *mpath_ctxwait_take(struct mpath_lun *lun,
				      struct mpath_io **io)
{
	struct bio *bio = NULL;

	spin_lock_irq(&lun->requeue_lock);
	if (!bio_list_empty(&lun->ctxwait_list)) {
		*io = mpath_io_alloc(lun, GFP_NOWAIT);
		if (*io) {
			bio = bio_list_pop(&lun->ctxwait_list);
			WRITE_ONCE(lun->ctxwait_len, lun->ctxwait_len - 1);
		}
	}
	spin_unlock_irq(&lun->requeue_lock);
	return bio;
}

/* Most bios the ctxwait work sends per run. */
#define MPATH_CTXWAIT_BATCH	64

/* Give the bios waiting for a context one each, in order, while any is free. */
void mpath_ctxwait_work(struct work_struct *work)
{
	struct mpath_lun *lun = container_of(to_delayed_work(work),
					     struct mpath_lun, ctxwait_work);
	struct blk_plug plug;
	struct mpath_io *io;
	unsigned int n = 0;
	struct bio *bio;

	blk_start_plug(&plug);
	while (n < MPATH_CTXWAIT_BATCH) {
		bio = mpath_ctxwait_take(lun, &io);
		if (!bio) {
			if (!READ_ONCE(lun->ctxwait_len))
				break;
			/*
			 * None free.  The retry first: a free from here on
			 * moves it up, and one just before it is seen below.
			 */
			mpath_kick_ctxwait(lun, MPATH_CTXWAIT_RETRY);
			bio = mpath_ctxwait_take(lun, &io);
			if (!bio)
				break;
		}
		mpath_io_start(lun, io, bio);
		n++;
	}
	blk_finish_plug(&plug);
	/* More to send: in another run, other work in between. */
	if (n == MPATH_CTXWAIT_BATCH && READ_ONCE(lun->ctxwait_len))
		mpath_kick_ctxwait(lun, 0);
}

/*
 * End the bios waiting for a context with an error: the LUN is going and
 * its disk is deleted (no new bio comes).  They were never counted.  A
 * context freed after this may still queue the work (it finds the list
 * empty): the caller cancels it again once nothing frees any more.
 */
void mpath_fail_ctxwait(struct mpath_lun *lun)
{
	struct bio_list fail;
	struct bio *bio;

	cancel_delayed_work_sync(&lun->ctxwait_work);
	spin_lock_irq(&lun->requeue_lock);
	fail = lun->ctxwait_list;
	bio_list_init(&lun->ctxwait_list);
	WRITE_ONCE(lun->ctxwait_len, 0);
	spin_unlock_irq(&lun->requeue_lock);
	while ((bio = bio_list_pop(&fail)))
		bio_io_error(bio);
}

/*
 * Take out of the host queue, from its head, the I/Os that can leave now:
 * those that got a path and a tag (@send, io->path set) and those that
 * have no path to wait for any more (@fail).  One lock hold and one clock
 * read for up to MPATH_HQ_BATCH I/Os; returns how many were taken.
 */
static unsigned int mpath_hq_take(struct mpath_lun *lun, struct bio_list *send,
				  struct bio_list *fail)
{
	struct mpath_path *path;
	enum mpath_send ret;
	unsigned int n = 0;
	struct bio *clone;
	u64 now;

	spin_lock_irq(&lun->requeue_lock);
	now = ktime_get_ns();
	while (n < MPATH_HQ_BATCH &&
	       (clone = bio_list_peek(&lun->requeue_list))) {
		ret = mpath_get_path(lun, to_io(clone), &path);
		if (ret == MPATH_SENT) {
			mpath_hq_leave(lun, now)->path = path;
			bio_list_add(send, clone);
		} else if (ret == MPATH_NO_PATH && mpath_lun_no_path_fails(lun)) {
			mpath_hq_leave(lun, now);
			bio_list_add(fail, clone);
		} else {
			/* Still waiting; whatever it waits for kicks us. */
			break;
		}
		n++;
	}
	spin_unlock_irq(&lun->requeue_lock);
	return n;
}

/* Send from the head of the host queue while tags and paths allow. */
void mpath_requeue_work(struct work_struct *work)
{
	struct mpath_lun *lun = container_of(work, struct mpath_lun,
					     requeue_work);
	struct bio_list send, fail;
	struct mpath_io *io;
	struct bio *clone;
	unsigned int n;

	do {
		bio_list_init(&send);
		bio_list_init(&fail);
		n = mpath_hq_take(lun, &send, &fail);
		while ((clone = bio_list_pop(&send))) {
			io = to_io(clone);
			mpath_send(lun, io, io->path);
		}
		while ((clone = bio_list_pop(&fail)))
			mpath_io_end(to_io(clone), BLK_STS_IOERR);
	} while (n == MPATH_HQ_BATCH);
}

/* End every I/O in the host queue with an error. */
void mpath_fail_queued(struct mpath_lun *lun)
{
	struct bio_list fail = BIO_EMPTY_LIST;
	struct bio *clone;
	u64 now;

	spin_lock_irq(&lun->requeue_lock);
	now = ktime_get_ns();
	while (!bio_list_empty(&lun->requeue_list))
		bio_list_add(&fail, &mpath_hq_leave(lun, now)->clone);
	spin_unlock_irq(&lun->requeue_lock);
	while ((clone = bio_list_pop(&fail)))
		mpath_io_end(to_io(clone), BLK_STS_IOERR);
}

/* The LUN has had no usable path for no_path_timeout seconds. */
void mpath_nopath_work(struct work_struct *work)
{
	struct mpath_lun *lun = container_of(to_delayed_work(work),
					     struct mpath_lun, nopath_work);

	mpath_lock();
	/*
	 * While this instance waited for the lock, the wait may have been
	 * restarted (a new no_path_timeout, the last path lost again after
	 * one came back) or made endless (-1): the deadline set last says.
	 */
	if (!lun->nopath_deadline ||
	    time_before(jiffies, lun->nopath_deadline) ||
	    mpath_lun_has_path(lun) ||
	    !mpath_lun_set_state(lun, MPATH_LUN_EXPIRED)) {
		mpath_unlock();
		return;
	}
	if (!lun->nr_paths)
		mpath_lun_queue_remove(lun);
	/* Kick rather than fail all: I/O waiting for a tag stays. */
	mpath_kick_requeue(lun);
	mpath_unlock();

	pr_warn("mpath%d: no usable path for %d s: failing I/O\n", lun->name->index,
		READ_ONCE(lun->no_path_timeout));
}
