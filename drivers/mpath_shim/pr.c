// SPDX-License-Identifier: GPL-2.0
/*
 * Persistent reservations on /dev/mpathN (pr_ops: the IOC_PR_* ioctls and
 * in-kernel users).
 *
 * A SCSI-3 registration belongs to an I_T nexus, one per lunpath.  REGISTER
 * therefore goes down every active lunpath, all or nothing: when the LU
 * refuses it on one (a reservation conflict: the old key is not that
 * nexus's), the lunpaths done are put back as they were and the error is
 * returned.  A lunpath that fails with a path error meanwhile is failed as
 * an I/O error would fail it; it is registered when it returns.  RELEASE
 * too goes down every active lunpath: only the holder's nexus releases, and
 * which one reserved is not known; READ RESERVATION after it tells whether
 * the holder was among them.  RESERVE, PREEMPT and CLEAR go through
 * one usable lunpath, sent again on another after a path error, as ioctls
 * are; a RESERVE also after a reservation conflict, since only the
 * holder's nexus may reserve again.  A PREEMPT of the LUN's own key (a
 * holder changing the reservation's type) or of key 0 (every registrant's
 * under an all-registrants reservation) takes every other lunpath out of
 * the map and drains its I/O first,
 * since their nexuses lose the key, and registers it there again after:
 * no write meets RESERVATION CONFLICT meanwhile.  Of the reservation types,
 * those of all registrants or registrants only suit a multipath LUN: with
 * the others only the holder's nexus may write, and I/O goes down every
 * path.
 *
 * REGISTER skips a lunpath whose ALUA port refuses reservation commands
 * (unavailable, offline, in transition): a controller that is down does
 * not stop a cluster agent from registering.  One whose port went so since
 * the shim last looked refuses it with NOT READY: the port's group is
 * asked (mpath_pr_port_refused()), and it is skipped the same way; a
 * command that goes through one lunpath goes on to the next.  Those go to
 * non-optimized and standby ports too once the map's are tried (ioctl.c):
 * a standby port takes reservation commands.  Every lunpath a REGISTER
 * missed is marked MPATH_PATH_PR_STALE and joins before it carries I/O; an
 * active one is out of the map until then (lun.c), and its probe joins it
 * once its port takes the command.  RELEASE goes to such a port too, and on
 * to the others past its refusal, which it returns: the holder's nexus may
 * be behind it.
 *
 * The LUN remembers the key it registered (pr_key).  A lunpath that becomes
 * usable later, attached or reinstated by the probe, is registered with it
 * (REGISTER AND IGNORE EXISTING KEY) before it carries I/O, so a
 * reservation held through /dev/mpathN never meets RESERVATION CONFLICT on
 * a new path.  Only while the key is still registered on the LU (READ KEYS
 * through that lunpath): a key that another initiator preempted or cleared
 * (fenced) is forgotten, never registered again by the kernel.  A lunpath
 * whose registration fails stays failed, and the probe tries again.
 *
 * A REGISTER whose every answer is a path error may have been carried out
 * by the LU on every nexus, some or none: it returns EIO, the LUN keeps its
 * key and remembers the new one (pr_tried), and every lunpath joins before
 * its next I/O.  The first join asks READ KEYS which key holds
 * (mpath_pr_settled_key(): the LU lists one key per registered nexus): the
 * old one while any nexus has it, the new one if it is on every nexus the
 * REGISTER went to, else the old one, fenced; the joins put every nexus on
 * it.
 *
 * pr_lock serialises the LUN's reservation commands with that join and is
 * held across the join's move to ACTIVE: a REGISTER either finds the
 * lunpath active or the lunpath finds the new key.  Order: pr_lock, then
 * mpath_shim.lock.  Held I/O waits for the probe, which takes pr_lock:
 * nothing allocated under it reclaims through I/O (GFP_NOIO).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/pr.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_proto.h>
#include <scsi/scsi_status.h>

#include <mpath_shim/mpath_shim.h>
#include <mpath_shim/prkeys.h>

/* READ KEYS: 8 header bytes and up to 1023 keys. */
#define MPATH_PR_KEYS_LEN	8192

static const struct pr_ops *mpath_path_pr_ops(struct block_device *bdev)
{
	return bdev->bd_disk->fops->pr_ops;
}

struct mpath_pr_cmd {
	int	(*fn)(struct block_device *bdev, const struct pr_ops *ops,
		      const struct mpath_pr_cmd *c);
	int	(*undo)(struct block_device *bdev, const struct pr_ops *ops,
			const struct mpath_pr_cmd *c);
	u64	key;
	u64	sa_key;
	enum pr_type type;
	u32	flags;
	bool	abort;
	bool	registers;	/* lunpaths it did not reach join later */
	bool	every_port;	/* RELEASE: refusing ports too, go on past them */
	bool	conflict_next;	/* RESERVE: past a conflict, to the next nexus */
	bool	once;		/* not sent again after its answer was lost */
	u64	gone_key;	/* with @once: carried out if no longer registered */
	u64	undo_key;	/* set by mpath_pr_undo(): the nexuses' key before */
	void	*data;
};

/*
 * @fn on one lunpath's disk.  Each nexus gets a UNIT ATTENTION when another
 * one releases, preempts or clears, and 6.1's sd returns it (CHECK
 * CONDITION, 2): the command was not carried out, so it is sent again, up
 * to twice.  Not where sd retries it itself (6.9 on): there a 2 is the LU's
 * refusal, or a timeout (PR_STS_IOERR) after which the LU may have carried
 * the command out, and a REGISTER or CLEAR sent again would meet a
 * conflict on the same nexus.
 */
static int mpath_pr_call(int (*fn)(struct block_device *bdev,
				   const struct pr_ops *ops,
				   const struct mpath_pr_cmd *c),
			 struct block_device *bdev,
			 const struct mpath_pr_cmd *c)
{
	const struct pr_ops *ops = mpath_path_pr_ops(bdev);
	int tries = MPATH_SD_PR_RETRIES_UA ? 1 : 3, ret;

	if (!ops)
		return -EOPNOTSUPP;
	do {
		ret = fn(bdev, ops, c);
	} while (ret == SAM_STAT_CHECK_CONDITION && --tries);
	return ret;
}

/*
 * May a reservation command go to @path's port now?  Not while it is
 * unavailable, offline or in transition (ALUA): the port refuses it.
 */
static bool mpath_pr_port_ok(const struct mpath_path *path)
{
	return !mpath_path_alua(path) ||
	       mpath_alua_takes_pr(READ_ONCE(path->access_state));
}

/*
 * @ret, a refusal other than a conflict, came from @path: was it its ALUA
 * port's state, changed since the shim last looked (unavailable or in
 * transition: NOT READY, which 6.1's sd returns as CHECK CONDITION and
 * 6.5 on as PR_STS_IOERR)?  The port group's states are read again (such
 * a port answers REPORT TARGET PORT GROUPS); true if the port now refuses
 * reservation commands: the command goes on to another lunpath, as after a
 * path error, and the lunpath is not failed.
 */
static bool mpath_pr_port_refused(struct mpath_path *path, int ret)
{
	if (ret <= 0 || mpath_pr_result_conflict(ret) || !mpath_path_alua(path))
		return false;
	mpath_alua_refresh(path);
	return !mpath_pr_port_ok(path);
}

/*
 * Does @c go on to another lunpath after @path refused it with @ret?  Where
 * its port refused it (mpath_pr_port_refused()).  Where sd retries UNIT
 * ATTENTIONs itself (6.9 on), its 2 is also a timeout, after which the LU
 * may have carried the command out: only a RESERVE, which goes on past a
 * conflict anyway, is sent again; a PREEMPT or CLEAR sent twice would meet
 * a conflict the second time.
 */
static bool mpath_pr_refused_next(const struct mpath_pr_cmd *c,
				  struct mpath_path *path, int ret)
{
	if (MPATH_SD_PR_RETRIES_UA && !c->conflict_next)
		return false;
	return mpath_pr_port_refused(path, ret);
}

static int mpath_pr_keys_seen(struct scsi_device *sdev, u64 key, u64 tried,
			      unsigned int *nkey, unsigned int *ntried);

/*
 * May @ret, a path error, have come after the LU carried the command out
 * (a timeout, a disrupted transport)?  Not when it cannot have reached the
 * LU (no connection, the host busy, the transport failing it fast; the
 * device gone), as for SG_IO (mpath_sg_resend_ok()).
 */
static bool mpath_pr_answer_lost(int ret)
{
	return ret > 0 &&
	       !mpath_sg_resend_ok(PERSISTENT_RESERVE_OUT, (ret >> 16) & 0xff);
}

/*
 * @c's answer through a lunpath was lost after the LU may have carried it
 * out.  It is not sent again: a second run answers otherwise than the first
 * (a PREEMPT of a key already gone, a CLEAR from a nexus no longer
 * registered, a RESERVE from a nexus other than the holder's: RESERVATION
 * CONFLICT).  READ KEYS through another lunpath tells a PREEMPT or CLEAR
 * carried out, its @gone_key no longer registered: 0.  Else @ret, as
 * through one sd path.
 */
static int mpath_pr_lost_answer(struct mpath_lun *lun,
				const struct mpath_pr_cmd *c,
				struct mpath_tried *tried, bool locked, int ret)
{
	unsigned int nkey, unused;
	struct mpath_path *path;
	int err;

	if (!c->gone_key)
		return ret;
	path = mpath_ioctl_path(lun, tried, locked ? &lun->pr_lock : NULL);
	if (IS_ERR(path))
		return ret;
	err = mpath_pr_keys_seen(path->sdev, c->gone_key, 0, &nkey, &unused);
	percpu_ref_put(&path->ref);
	return !err && !nkey ? 0 : ret;
}

/*
 * @c through one usable lunpath, again on another after a path error; with
 * @lun's pr_lock held if @locked (it is let go while waiting for a path).
 * With @c->conflict_next, a RESERVATION CONFLICT too is sent on to the next
 * lunpath, and returned once every one refused it.
 */
static int mpath_pr_one(struct mpath_lun *lun, const struct mpath_pr_cmd *c,
			bool locked)
{
	struct mpath_tried tried = { .pr = true };
	struct mpath_path *path;
	int ret = -EIO, conflict = 0;

	for (;;) {
		path = mpath_ioctl_path(lun, &tried,
					locked ? &lun->pr_lock : NULL);
		if (IS_ERR(path))
			return conflict ?: tried.nr ? ret : PTR_ERR(path);
		ret = mpath_pr_call(c->fn, path->bdev, c);
		if (!ret && c->once && mpath_should_fail(MPATH_FAULT_PR_ANSWER))
			ret = DID_TRANSPORT_DISRUPTED << 16;
		if (c->once && mpath_pr_result_path_error(ret) &&
		    mpath_pr_answer_lost(ret)) {
			mpath_path_report_error(path);
			percpu_ref_put(&path->ref);
			return mpath_pr_lost_answer(lun, c, &tried, locked, ret);
		}
		if (c->conflict_next && mpath_pr_result_conflict(ret)) {
			conflict = ret;
			percpu_ref_put(&path->ref);
			continue;
		}
		if (!mpath_pr_result_path_error(ret) &&
		    !mpath_pr_refused_next(c, path, ret)) {
			percpu_ref_put(&path->ref);
			return ret;
		}
		atomic_long_inc(&lun->ioctl_failovers);
		if (mpath_pr_result_path_error(ret))
			mpath_path_report_error(path);
		percpu_ref_put(&path->ref);
	}
}

/*
 * PERSISTENT RESERVE IN with service action @sa through @sdev, @len bytes
 * into @buf: 0, -EREMOTEIO when the LU refused it (a CHECK CONDITION, a
 * RESERVATION CONFLICT), or another negative errno when the LU did not
 * answer.  A UNIT ATTENTION (a reservation change) is asked again.
 */
static int mpath_pr_in(struct scsi_device *sdev, u8 sa, u8 *buf, u16 len)
{
	u8 cmd[10] = { PERSISTENT_RESERVE_IN, sa };
	struct scsi_sense_hdr sshdr;
	const struct scsi_exec_args args = { .sshdr = &sshdr };
	int tries = 3, ret;

	put_unaligned_be16(len, &cmd[7]);
	do {
		ret = scsi_execute_cmd(sdev, cmd, REQ_OP_DRV_IN, buf, len,
				       30 * HZ, 3, &args);
	} while (ret > 0 && scsi_sense_valid(&sshdr) &&
		 sshdr.sense_key == UNIT_ATTENTION && --tries);
	if (ret > 0)
		return mpath_pr_result_path_error(ret) ? -EIO : -EREMOTEIO;
	return ret;
}

/*
 * On how many nexuses are @key and @tried registered?  READ KEYS through
 * @sdev: 0, or a negative errno when the LU did not answer.
 */
static int mpath_pr_keys_seen(struct scsi_device *sdev, u64 key, u64 tried,
			      unsigned int *nkey, unsigned int *ntried)
{
	int ret;
	u8 *buf;

	buf = kzalloc(MPATH_PR_KEYS_LEN, GFP_NOIO);
	if (!buf)
		return -ENOMEM;
	ret = mpath_pr_in(sdev, 0 /* READ KEYS */, buf, MPATH_PR_KEYS_LEN);
	if (!ret) {
		*nkey = mpath_pr_keys_count(buf, MPATH_PR_KEYS_LEN, key);
		*ntried = mpath_pr_keys_count(buf, MPATH_PR_KEYS_LEN, tried);
	}
	kfree(buf);
	return ret;
}

/*
 * Is @key registered on the LU?  READ KEYS through @sdev: 1 yes, 0 no, or a
 * negative errno when the LU did not answer.
 */
static int mpath_pr_key_registered(struct scsi_device *sdev, u64 key)
{
	unsigned int n, unused;
	int ret;

	ret = mpath_pr_keys_seen(sdev, key, key, &n, &unused);
	return ret ?: n > 0;
}

/*
 * Does a reservation with @key still hold the LU?  READ RESERVATION through
 * @sdev: 1 yes, 0 no (none, or another key's), or a negative errno when the
 * LU did not answer.
 */
static int mpath_pr_reserved_by(struct scsi_device *sdev, u64 key)
{
	u8 buf[24] = { };
	int ret;

	ret = mpath_pr_in(sdev, 1 /* READ RESERVATION */, buf, sizeof(buf));
	if (ret)
		return ret;
	/* The additional length is 0 with no reservation, 16 with one. */
	return get_unaligned_be32(&buf[4]) >= 16 &&
	       get_unaligned_be64(&buf[8]) == key;
}

/*
 * The active lunpaths of @lun that have its key (not waiting to join), and
 * unless @every_port, whose port takes reservation commands; each with a
 * reference on its ref.
 */
static unsigned int mpath_pr_active_paths(struct mpath_lun *lun,
					  struct mpath_path ***pathsp,
					  bool every_port)
{
	struct mpath_path **paths, *path;
	unsigned int n = 0;

	mpath_lock();
	/* No I/O from reclaim under the lock the path map is built under. */
	paths = kcalloc(max(lun->nr_paths, 1U), sizeof(*paths), GFP_NOIO);
	if (paths) {
		list_for_each_entry(path, &lun->paths, lun_node)
			if (mpath_path_usable(path) &&
			    !test_bit(MPATH_PATH_PR_STALE, &path->flags) &&
			    (every_port || mpath_pr_port_ok(path)) &&
			    percpu_ref_tryget_live(&path->ref))
				paths[n++] = path;
	}
	mpath_unlock();
	*pathsp = paths;
	return n;
}

/*
 * A REGISTER went down @paths (@ok: those it was done on).  Every other
 * lunpath of @lun missed it: failed, disabled, not attached yet, its port
 * unavailable, or a path error meanwhile.  Each joins (mpath_pr_join())
 * before it carries I/O again; an active one is out of the map until then.
 */
static void mpath_pr_mark_missed(struct mpath_lun *lun,
				 struct mpath_path **paths, unsigned int n,
				 const unsigned long *ok)
{
	struct mpath_path *path;
	bool out = false;
	unsigned int i;

	lockdep_assert_held(&lun->pr_lock);

	mpath_lock();
	list_for_each_entry(path, &lun->paths, lun_node) {
		for (i = 0; i < n && paths[i] != path; i++)
			;
		if (i < n && test_bit(i, ok)) {
			/* Back in the map, if it was out for that. */
			out |= test_and_clear_bit(MPATH_PATH_PR_STALE,
						  &path->flags) &&
			       path->state == MPATH_PATH_ACTIVE;
		} else {
			set_bit(MPATH_PATH_PR_STALE, &path->flags);
			out |= path->state == MPATH_PATH_ACTIVE;
		}
	}
	if (out)
		mpath_lun_publish_map(lun);
	mpath_unlock();
}

/*
 * The key the nexuses of @paths held before a REGISTER AND IGNORE EXISTING
 * KEY, which names none: the LUN's, which each active nexus joined with,
 * if READ KEYS through any of @paths still shows it on the LU.  Asked after
 * the refusal, so that a fence while the REGISTER went round is seen; a
 * fenced key is forgotten, never registered again.  -EIO: no answer.
 */
static int mpath_pr_undo_key(struct mpath_lun *lun, struct mpath_path **paths,
			     unsigned int n, u64 *key)
{
	unsigned int i;
	int ret = -EIO;

	lockdep_assert_held(&lun->pr_lock);

	*key = 0;
	if (!lun->pr_key)
		return 0;
	for (i = 0; i < n && ret < 0; i++)
		ret = mpath_pr_key_registered(paths[i]->sdev, lun->pr_key);
	if (ret > 0) {
		*key = lun->pr_key;
	} else if (!ret) {
		pr_warn("mpath%d: key 0x%llx is no longer registered on the LU (preempted or cleared): forgotten\n",
			lun->name->index, lun->pr_key);
		WRITE_ONCE(lun->pr_key, 0);
	}
	return ret < 0 ? ret : 0;
}

/*
 * The lunpaths of @paths in @unknown may or may not have had a REGISTER
 * carried out (a path error after the LU took it, an undo that failed):
 * each joins before it carries I/O again, out of the map until its probe
 * has joined it.
 */
static void mpath_pr_mark_unknown(struct mpath_lun *lun,
				  struct mpath_path **paths, unsigned int n,
				  const unsigned long *unknown)
{
	bool out = false;
	unsigned int i;

	lockdep_assert_held(&lun->pr_lock);

	mpath_lock();
	for_each_set_bit(i, unknown, n) {
		set_bit(MPATH_PATH_PR_STALE, &paths[i]->flags);
		out |= paths[i]->state == MPATH_PATH_ACTIVE;
	}
	if (out)
		mpath_lun_publish_map(lun);
	mpath_unlock();
}

/* The I_T nexuses (H:C:T) of the lunpaths of @paths in @set. */
static unsigned int mpath_pr_nexuses(struct mpath_path **paths, unsigned int n,
				     const unsigned long *set)
{
	struct scsi_device *a, *b;
	unsigned int i, j, nr = 0;

	for_each_set_bit(i, set, n) {
		a = paths[i]->sdev;
		for_each_set_bit(j, set, i) {
			b = paths[j]->sdev;
			if (a->host == b->host && a->channel == b->channel &&
			    a->id == b->id)
				break;
		}
		nr += j >= i;
	}
	return nr;
}

/*
 * A REGISTER (@c) done on the lunpaths of @paths in @ok was refused on
 * another: put them back.  Each lunpath whose registration is not known
 * then joins before it carries I/O again (out of the map until its probe
 * has joined it): one in @unknown (a path error while the REGISTER went
 * round: it may have reached the LU), one whose undo failed, and every
 * one done when the key they held could not be told.
 */
static void mpath_pr_undo(struct mpath_lun *lun, const struct mpath_pr_cmd *c,
			  struct mpath_path **paths, unsigned int n,
			  const unsigned long *ok, unsigned long *unknown)
{
	struct mpath_pr_cmd u = *c;
	bool unsure = false;
	unsigned int i;

	lockdep_assert_held(&lun->pr_lock);

	if (c->flags & PR_FL_IGNORE_KEY)
		unsure = mpath_pr_undo_key(lun, paths, n, &u.undo_key) < 0;
	for_each_set_bit(i, ok, n)
		if (mpath_pr_call(c->undo, paths[i]->bdev, &u) || unsure)
			set_bit(i, unknown);
	mpath_pr_mark_unknown(lun, paths, n, unknown);
}

/*
 * @c down every active lunpath of @lun whose port takes it.  A lunpath
 * that fails with a path error is failed; the LU refusing @c on one stops
 * there, and @c->undo, if any, puts back the ones done.  After a REGISTER
 * (@c->registers), the lunpaths it did not reach join before their next
 * I/O, and so do those that failed with a path error when it was done on
 * none (the LU may have carried it out before the error).  A RELEASE
 * (@c->every_port) goes to refusing ports too and on past a refusal, which
 * it returns: only the holder's nexus releases, and it may be the one that
 * refused.  0 once done on at least one lunpath.
 */
static int mpath_pr_all(struct mpath_lun *lun, const struct mpath_pr_cmd *c)
{
	struct mpath_path **paths;
	unsigned int n, i, done = 0;
	unsigned long *ok, *perr;
	int ret = 0, err;

	lockdep_assert_held(&lun->pr_lock);

	n = mpath_pr_active_paths(lun, &paths, c->every_port);
	ok = bitmap_zalloc(max(n, 1U), GFP_NOIO);
	perr = bitmap_zalloc(max(n, 1U), GFP_NOIO);
	if (!paths || !ok || !perr) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		err = mpath_pr_call(c->fn, paths[i]->bdev, c);
		if (!err && c->registers &&
		    mpath_should_fail(MPATH_FAULT_PR_ANSWER))
			err = DID_TRANSPORT_DISRUPTED << 16;
		if (!err) {
			set_bit(i, ok);
			done++;
		} else if (mpath_pr_result_path_error(err)) {
			set_bit(i, perr);
			mpath_path_report_error(paths[i]);
		} else if (!c->every_port &&
			   mpath_pr_port_refused(paths[i], err)) {
			/* Skipped as a port known to refuse it is. */
			continue;
		} else {
			ret = ret ?: err;
			if (!c->every_port)
				break;
		}
	}
	if (ret && c->undo) {
		mpath_pr_undo(lun, c, paths, n, ok, perr);
	} else if (!ret && !done) {
		ret = -EIO;	/* no active path, or each one failed */
		/*
		 * Failed after the LU took it, maybe: nothing is undone, and
		 * every lunpath joins on the key the first join finds holds.
		 */
		if (c->registers && !bitmap_empty(perr, n)) {
			lun->pr_tried = c->sa_key;
			lun->pr_tried_nexuses = mpath_pr_nexuses(paths, n, perr);
			mpath_pr_mark_missed(lun, paths, n, ok);
		}
	}
	/* Unless it was undone (nothing changed), the others join later. */
	if (c->registers && !(c->undo && ret))
		mpath_pr_mark_missed(lun, paths, n, ok);
out:
	for (i = 0; i < n; i++)
		percpu_ref_put(&paths[i]->ref);
	bitmap_free(perr);
	bitmap_free(ok);
	kfree(paths);
	return ret;
}

static int mpath_pr_do_register(struct block_device *bdev,
				const struct pr_ops *ops,
				const struct mpath_pr_cmd *c)
{
	return ops->pr_register(bdev, c->key, c->sa_key, c->flags);
}

/* Put a nexus back as it was before mpath_pr_do_register(). */
static int mpath_pr_undo_register(struct block_device *bdev,
				  const struct pr_ops *ops,
				  const struct mpath_pr_cmd *c)
{
	if (c->flags & PR_FL_IGNORE_KEY)
		return ops->pr_register(bdev, 0, c->undo_key,
					PR_FL_IGNORE_KEY);
	return ops->pr_register(bdev, c->sa_key, c->key, 0);
}

/* A registration belongs to a nexus: every active lunpath registers. */
static int mpath_pr_register(struct block_device *bdev, u64 old_key,
			     u64 new_key, u32 flags)
{
	struct mpath_lun *lun = bdev->bd_disk->private_data;
	struct mpath_pr_cmd c = {
		.fn = mpath_pr_do_register, .undo = mpath_pr_undo_register,
		.key = old_key, .sa_key = new_key, .flags = flags,
		.registers = true,
	};
	int ret;

	mutex_lock(&lun->pr_lock);
	ret = mpath_pr_all(lun, &c);
	if (!ret) {
		WRITE_ONCE(lun->pr_key, new_key);
		lun->pr_tried_nexuses = 0;
	}
	mutex_unlock(&lun->pr_lock);
	return ret;
}

static int mpath_pr_do_reserve(struct block_device *bdev,
			       const struct pr_ops *ops,
			       const struct mpath_pr_cmd *c)
{
	return ops->pr_reserve(bdev, c->key, c->type, c->flags);
}

/*
 * The holder's nexus may RESERVE again (GOOD, nothing changes), any other
 * one meets RESERVATION CONFLICT, though registered with the same key: a
 * holder that asserts its reservation again (nfsd's SCSI layouts at every
 * GETDEVICEINFO) is answered by the nexus that holds it.
 */
static int mpath_pr_reserve(struct block_device *bdev, u64 key,
			    enum pr_type type, u32 flags)
{
	struct mpath_pr_cmd c = {
		.fn = mpath_pr_do_reserve, .key = key, .type = type,
		.flags = flags, .conflict_next = true, .once = true,
	};

	return mpath_pr_one(bdev->bd_disk->private_data, &c, false);
}

static int mpath_pr_do_release(struct block_device *bdev,
			       const struct pr_ops *ops,
			       const struct mpath_pr_cmd *c)
{
	return ops->pr_release(bdev, c->key, c->type);
}

/*
 * A RELEASE with @key went down every active lunpath of @lun that has its
 * key.  If it missed one (failed, disabled, unattached, not joined yet),
 * does a reservation with @key still hold the LU?  Then the holder's nexus
 * may be behind it, which the caller is told (-EIO): the reservation stays
 * until it is released there.  0 if it missed none (the holder is another
 * initiator's nexus, with the same key), if the LU says the reservation
 * went, or if no lunpath's LU answers.
 */
static int mpath_pr_release_check(struct mpath_lun *lun, u64 key)
{
	struct mpath_path **paths, *path;
	bool missed = false;
	unsigned int n, i;
	int ret = -EIO;

	lockdep_assert_held(&lun->pr_lock);

	mpath_lock();
	list_for_each_entry(path, &lun->paths, lun_node)
		missed |= !mpath_path_usable(path) ||
			  test_bit(MPATH_PATH_PR_STALE, &path->flags);
	mpath_unlock();
	if (!missed)
		return 0;
	n = mpath_pr_active_paths(lun, &paths, false);
	for (i = 0; i < n; i++) {
		if (ret < 0)
			ret = mpath_pr_reserved_by(paths[i]->sdev, key);
		percpu_ref_put(&paths[i]->ref);
	}
	kfree(paths);
	if (ret <= 0)
		return 0;
	pr_warn("mpath%d: RELEASE did not reach the nexus that holds the reservation of key 0x%llx: its lunpath is out of service\n",
		lun->name->index, key);
	return -EIO;
}

/*
 * Only the holder's nexus releases a reservation (elsewhere RELEASE is
 * answered GOOD and changes nothing), and which lunpath reserved is not
 * known here: every active one releases, and the LU is asked after whether
 * the reservation went.
 */
static int mpath_pr_release(struct block_device *bdev, u64 key,
			    enum pr_type type)
{
	struct mpath_lun *lun = bdev->bd_disk->private_data;
	struct mpath_pr_cmd c = {
		.fn = mpath_pr_do_release, .key = key, .type = type,
		.every_port = true,
	};
	int ret;

	mutex_lock(&lun->pr_lock);
	ret = mpath_pr_all(lun, &c);
	if (!ret)
		ret = mpath_pr_release_check(lun, key);
	mutex_unlock(&lun->pr_lock);
	return ret;
}

static int mpath_pr_do_preempt(struct block_device *bdev,
			       const struct pr_ops *ops,
			       const struct mpath_pr_cmd *c)
{
	return ops->pr_preempt(bdev, c->key, c->sa_key, c->type, c->abort);
}

/*
 * Take every lunpath of @lun but @keep out of service for reservations:
 * mark it as one that missed a REGISTER, so an active one is out of the
 * map until it joins.  Then wait for their I/O in flight to end, whatever
 * their state: a submitter that chose one from the old map took its tag
 * inside the map's RCU section, and a write of one already failing may
 * still reach the LU.  Polled: the completion path has no hook for a
 * waiter, and this runs once per PREEMPT.  Returns the lunpaths in *@pathsp,
 * each with a reference, and their number in *@np; 0, or -ETIMEDOUT after
 * the longest io_timeout among them (30 s without one), -EINTR on a fatal
 * signal, -ENOLINK if @keep failed meanwhile, -ENOMEM with nothing done.
 */
static int mpath_pr_isolate(struct mpath_lun *lun, struct mpath_path *keep,
			    struct mpath_path ***pathsp, unsigned int *np)
{
	struct mpath_path **paths, *path;
	unsigned int n = 0, i, secs = 0;
	unsigned long deadline;

	lockdep_assert_held(&lun->pr_lock);

	mpath_lock();
	/* No I/O from reclaim under the lock the path map is built under. */
	paths = kcalloc(max(lun->nr_paths, 1U), sizeof(*paths), GFP_NOIO);
	if (!paths) {
		mpath_unlock();
		return -ENOMEM;
	}
	list_for_each_entry(path, &lun->paths, lun_node) {
		if (path == keep)
			continue;
		set_bit(MPATH_PATH_PR_STALE, &path->flags);
		if (percpu_ref_tryget(&path->ref))
			paths[n++] = path;
	}
	mpath_lun_publish_map(lun);
	mpath_unlock();
	*pathsp = paths;
	*np = n;

	synchronize_rcu();
	for (i = 0; i < n; i++)
		secs = max(secs, mpath_path_io_timeout(paths[i]));
	deadline = jiffies + (secs ?: 30) * HZ;
	for (i = 0; i < n; i++) {
		while (mpath_path_inflight(paths[i])) {
			if (!mpath_path_usable(keep))
				return -ENOLINK;
			if (fatal_signal_pending(current))
				return -EINTR;
			if (time_after(jiffies, deadline))
				return -ETIMEDOUT;
			usleep_range(500, 1000);
		}
	}
	return 0;
}

/*
 * @paths, taken out by mpath_pr_isolate(), join again (mpath_pr_join():
 * the LUN's key registered on each nexus, or forgotten when it is gone
 * from the LU) and go back in the map.  One that is not active, or cannot
 * join, stays out: it joins when it returns, or at its next probe.
 */
static void mpath_pr_rejoin(struct mpath_lun *lun, struct mpath_path **paths,
			    unsigned int n)
{
	unsigned int i;

	lockdep_assert_held(&lun->pr_lock);

	for (i = 0; i < n; i++)
		if (mpath_path_usable(paths[i]))
			mpath_pr_join(paths[i], paths[i]->bdev);
	mpath_lock();
	mpath_lun_publish_map(lun);
	mpath_unlock();
	for (i = 0; i < n; i++)
		percpu_ref_put(&paths[i]->ref);
	kfree(paths);
}

/*
 * PREEMPT of the LUN's own key (@c->sa_key): a holder changing the
 * reservation's type, or with none held, every registration of the key
 * dropped.  The nexus it goes through keeps its registration and the
 * reservation; every other nexus loses its own when the LU carries it out
 * (SPC-4, preempting a persistent reservation), and a write reaching the
 * LU through one of them then ends in RESERVATION CONFLICT.  So the other
 * lunpaths are out of the map, their I/O drained, from before the PREEMPT
 * until they are registered again; I/O goes on through the one it is sent
 * down.  READ KEYS through that one tells whether the key is still
 * registered, or forgotten.  After a path error (or that lunpath failing
 * while the others drain) each other lunpath joins the same way, since the
 * LU may have carried the PREEMPT out, before the next try.  Not drained:
 * SG_IO commands sent through /dev/mpathN meanwhile (they hold no tag).
 */
static int mpath_pr_preempt_self(struct mpath_lun *lun,
				 const struct mpath_pr_cmd *c)
{
	struct mpath_tried tried = { .pr = true };
	struct mpath_path *path, **paths;
	bool path_error;
	unsigned int n;
	int ret = -EIO, reg;

	lockdep_assert_held(&lun->pr_lock);

	for (;;) {
		path = mpath_ioctl_path(lun, &tried, &lun->pr_lock);
		if (IS_ERR(path))
			return tried.nr ? ret : PTR_ERR(path);
		ret = mpath_pr_isolate(lun, path, &paths, &n);
		if (ret == -ENOMEM) {
			percpu_ref_put(&path->ref);
			return ret;
		}
		if (!ret)
			ret = mpath_pr_call(c->fn, path->bdev, c);
		/* -ENOLINK: @path failed while the others drained. */
		path_error = ret == -ENOLINK || mpath_pr_result_path_error(ret);
		if (path_error) {
			atomic_long_inc(&lun->ioctl_failovers);
			if (ret != -ENOLINK)
				mpath_path_report_error(path);
		} else if (!ret && c->sa_key) {
			reg = mpath_pr_key_registered(path->sdev, c->sa_key);
			if (!reg && lun->pr_key == c->sa_key)
				WRITE_ONCE(lun->pr_key, 0);
			else if (reg < 0)
				pr_warn("mpath%d: key 0x%llx preempted by this host; cannot tell whether it is still registered (%d)\n",
					lun->name->index, c->sa_key, reg);
		}
		percpu_ref_put(&path->ref);
		mpath_pr_rejoin(lun, paths, n);
		if (!path_error)
			return ret;
	}
}

static int mpath_pr_preempt(struct block_device *bdev, u64 old_key,
			    u64 new_key, enum pr_type type, bool abort)
{
	struct mpath_lun *lun = bdev->bd_disk->private_data;
	struct mpath_pr_cmd c = {
		.fn = mpath_pr_do_preempt, .key = old_key, .sa_key = new_key,
		.type = type, .abort = abort, .once = true, .gone_key = new_key,
	};
	int ret;

	mutex_lock(&lun->pr_lock);
	/*
	 * A pending REGISTER's key may turn out to be ours (pr_tried).  Key 0
	 * (allowed under an all-registrants reservation) unregisters every
	 * nexus but the sender's, ours too: when the LUN has a key (else the
	 * joins after it would unregister nexuses it never registered).
	 */
	if ((!new_key && (lun->pr_key || lun->pr_tried_nexuses)) ||
	    (new_key && new_key == lun->pr_key) ||
	    (lun->pr_tried_nexuses && new_key == lun->pr_tried))
		ret = mpath_pr_preempt_self(lun, &c);
	else
		ret = mpath_pr_one(lun, &c, true);
	mutex_unlock(&lun->pr_lock);
	return ret;
}

static int mpath_pr_do_clear(struct block_device *bdev,
			     const struct pr_ops *ops,
			     const struct mpath_pr_cmd *c)
{
	return ops->pr_clear(bdev, c->key);
}

static int mpath_pr_clear(struct block_device *bdev, u64 key)
{
	struct mpath_lun *lun = bdev->bd_disk->private_data;
	struct mpath_pr_cmd c = {
		.fn = mpath_pr_do_clear, .key = key, .once = true,
		.gone_key = key,
	};
	int ret;

	mutex_lock(&lun->pr_lock);
	ret = mpath_pr_one(lun, &c, true);
	/* Every registration is gone, ours too. */
	if (!ret) {
		WRITE_ONCE(lun->pr_key, 0);
		lun->pr_tried_nexuses = 0;
	}
	mutex_unlock(&lun->pr_lock);
	return ret;
}

#ifdef MPATH_HAVE_PR_READ_KEYS
static int mpath_pr_do_read_keys(struct block_device *bdev,
				 const struct pr_ops *ops,
				 const struct mpath_pr_cmd *c)
{
	return ops->pr_read_keys ? ops->pr_read_keys(bdev, c->data) :
				   -EOPNOTSUPP;
}

static int mpath_pr_read_keys(struct block_device *bdev,
			      struct pr_keys *keys)
{
	struct mpath_pr_cmd c = { .fn = mpath_pr_do_read_keys, .data = keys };

	return mpath_pr_one(bdev->bd_disk->private_data, &c, false);
}

static int mpath_pr_do_read_reservation(struct block_device *bdev,
					const struct pr_ops *ops,
					const struct mpath_pr_cmd *c)
{
	return ops->pr_read_reservation ?
	       ops->pr_read_reservation(bdev, c->data) : -EOPNOTSUPP;
}

static int mpath_pr_read_reservation(struct block_device *bdev,
				     struct pr_held_reservation *rsv)
{
	struct mpath_pr_cmd c = {
		.fn = mpath_pr_do_read_reservation, .data = rsv,
	};

	return mpath_pr_one(bdev->bd_disk->private_data, &c, false);
}
#endif

const struct pr_ops mpath_pr_ops = {
	.pr_register	= mpath_pr_register,
	.pr_reserve	= mpath_pr_reserve,
	.pr_release	= mpath_pr_release,
	.pr_preempt	= mpath_pr_preempt,
	.pr_clear	= mpath_pr_clear,
#ifdef MPATH_HAVE_PR_READ_KEYS
	.pr_read_keys	= mpath_pr_read_keys,
	.pr_read_reservation = mpath_pr_read_reservation,
#endif
};

/*
 * Should the probe of active @path join it now: it missed a REGISTER (it is
 * out of the map for that), and its port takes reservation commands again?
 */
bool mpath_pr_join_due(const struct mpath_path *path)
{
	return test_bit(MPATH_PATH_PR_STALE, &path->flags) &&
	       mpath_pr_port_ok(path);
}

/*
 * A REGISTER whose answers were all lost is pending (pr_tried_nexuses):
 * READ KEYS through @path says which key the LUN holds now.  An LU that
 * refuses READ KEYS cannot tell: the LUN keeps its key, as before the
 * REGISTER.  0, or a negative errno when the LU did not answer (still
 * pending).
 */
static int mpath_pr_settle(struct mpath_lun *lun, struct mpath_path *path)
{
	unsigned int nkey = 0, ntried = 0;
	u64 key;
	int ret;

	lockdep_assert_held(&lun->pr_lock);

	ret = mpath_pr_keys_seen(path->sdev, lun->pr_key, lun->pr_tried,
				 &nkey, &ntried);
	if (ret == -EREMOTEIO) {
		pr_warn("mpath%d: READ KEYS refused: whether the REGISTER of key 0x%llx whose answers were lost was carried out is not known; the LUN keeps key 0x%llx\n",
			lun->name->index, lun->pr_tried, lun->pr_key);
		lun->pr_tried_nexuses = 0;
		return 0;
	}
	if (ret)
		return ret;
	key = mpath_pr_settled_key(lun->pr_key, nkey, lun->pr_tried, ntried,
				   lun->pr_tried_nexuses);
	if (key != lun->pr_key) {
		if (key)
			pr_info("mpath%d: the REGISTER of key 0x%llx whose answers were lost was carried out on every nexus: the LUN's key is 0x%llx\n",
				lun->name->index, key, key);
		else
			pr_info("mpath%d: the unregister of key 0x%llx whose answers were lost was carried out: the LUN has no key\n",
				lun->name->index, lun->pr_key);
		WRITE_ONCE(lun->pr_key, key);
	}
	lun->pr_tried_nexuses = 0;
	return 0;
}

/*
 * @path, whose disk @bdev is open, is about to carry I/O: register the
 * LUN's key on its nexus, or, if the LUN unregistered while the nexus
 * missed it, drop the old key there.  A port that refuses reservation
 * commands now (unavailable, in transition) carries no I/O either: the
 * path goes ahead, out of the map, and joins when its probe finds the port
 * back.  0: go ahead; an error: keep it out of service.
 */
int mpath_pr_join(struct mpath_path *path, struct block_device *bdev)
{
	struct mpath_lun *lun = path->lun;
	struct mpath_pr_cmd c = { .flags = PR_FL_IGNORE_KEY };
	int ret;

	lockdep_assert_held(&lun->pr_lock);

	if (!mpath_path_pr_ops(bdev)) {
		clear_bit(MPATH_PATH_PR_STALE, &path->flags);
		return 0;
	}
	if (!lun->pr_key && !lun->pr_tried_nexuses &&
	    !test_bit(MPATH_PATH_PR_STALE, &path->flags))
		return 0;
	if (!mpath_pr_port_ok(path)) {
		set_bit(MPATH_PATH_PR_STALE, &path->flags);
		return 0;
	}
	if (lun->pr_tried_nexuses) {
		ret = mpath_pr_settle(lun, path);
		if (ret)
			goto fail;
	}
	c.sa_key = lun->pr_key;
	if (!lun->pr_key) {
		/* REGISTER AND IGNORE EXISTING KEY with 0: unregistered. */
		ret = mpath_pr_call(mpath_pr_do_register, bdev, &c);
		if (ret)
			goto fail;
		goto joined;
	}
	ret = mpath_pr_key_registered(path->sdev, lun->pr_key);
	if (ret < 0)
		goto fail;
	if (!ret) {
		pr_warn("mpath%d: key 0x%llx is no longer registered on the LU (preempted or cleared): forgotten, not registered on %s\n",
			lun->name->index, lun->pr_key, path->hctl);
		WRITE_ONCE(lun->pr_key, 0);
		c.sa_key = 0;
		/* A key this nexus kept from before goes too (fenced). */
		if (test_bit(MPATH_PATH_PR_STALE, &path->flags)) {
			ret = mpath_pr_call(mpath_pr_do_register, bdev, &c);
			if (ret)
				goto fail;
		}
		clear_bit(MPATH_PATH_PR_STALE, &path->flags);
		return 0;
	}
	ret = mpath_pr_call(mpath_pr_do_register, bdev, &c);
	if (ret)
		goto fail;
joined:
	clear_bit(MPATH_PATH_PR_STALE, &path->flags);
	atomic_long_inc(&path->pr_joins);
	return 0;
fail:
	sdev_printk(KERN_WARNING, path->sdev,
		    "mpath_shim: cannot register the key of mpath%d on this lunpath (%d): kept out of service\n",
		    lun->name->index, ret);
	return ret < 0 ? ret : -EIO;
}
