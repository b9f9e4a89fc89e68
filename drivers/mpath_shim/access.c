// SPDX-License-Identifier: GPL-2.0
/*
 * Asymmetric access states of lunpaths: where they come from and what a
 * change does.  The decoding is alua.c's (pure logic).
 *
 * Who owns REPORT TARGET PORT GROUPS: scsi_dh_alua, when it is attached to
 * the lunpath's scsi_device, and the shim otherwise.  scsi_dh_alua's prep
 * function fails I/O to a port it believes standby or unavailable, so the
 * shim must not disagree with it: the access state of such a lunpath is
 * sdev->access_state, which scsi_dh_alua keeps for every device of a port
 * group from its own RTPGs (on UNIT ATTENTION 2A/06 and 29/xx, on a
 * transition, on activation).  The shim's probe sends such a path TEST UNIT
 * READY, which hands a pending UNIT ATTENTION to scsi_dh_alua's check_sense,
 * and then reads the field; a sense that names the port's own state (NOT
 * READY 04/0A-0C) is newer than the field and wins.  Without scsi_dh_alua
 * the shim sends RTPG itself (with the extended header, without it if the
 * target refuses that) through each lunpath at each probe, at attach, and
 * when an I/O error may be a state change; one answer gives the state of
 * every target port group, so it is applied to every lunpath of the LUN in
 * a group it names.  Answers are numbered: one that was overtaken by a
 * newer one is not applied.
 *
 * An I/O error on a lunpath of an ALUA LU does not fail it at once: the
 * path stops being chosen (MPATH_PATH_IO_ERR) and its probe decides
 * (mpath_alua_verdict()).  A port that answers that it is in standby,
 * unavailable or in transition (NOT READY 04/0A-0C), or whose group RTPG
 * names offline, keeps its lunpath ACTIVE, out of the path map by its
 * access state (lun.c builds the map from the best rank present); anything
 * else fails it as before, NOT READY 04/12 too: that port alone is offline
 * (a secondary state), which RTPG through another port does not show.  So
 * a standby port is never "failed" and never flaps.
 *
 * Explicit failover (the LUN's explicit_failover, off by default): when the
 * map is empty and a lunpath's port is in standby or unavailable while the
 * LU supports explicit ALUA, its group is asked to become active/optimized
 * with SET TARGET PORT GROUPS (through scsi_dh_alua's activate when it owns
 * the device), then the states are read again.  Not while an active
 * lunpath's verdict is pending or its group is in transition.
 *
 * The module parameter alua=N ignores access states: every lunpath is
 * taken as active/optimized (scsi_debug reports made-up states while it
 * serves I/O on every port).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_dh.h>
#include <scsi/scsi_eh.h>
#include <scsi/scsi_proto.h>

#include <mpath_shim/compat.h>
#include <mpath_shim/mpath_shim.h>

/* Does the shim follow @path's access state? */
bool mpath_path_alua(const struct mpath_path *path)
{
	return READ_ONCE(mpath_alua) && path->tpgs;
}

/* Is scsi_dh_alua attached to @sdev?  Then it owns RTPG. */
static bool mpath_dh_alua(struct scsi_device *sdev)
{
	return sdev->handler && !strcmp(sdev->handler->name, "alua");
}

/* @path's port group and relative port, from a VPD page 0x83 read afresh. */
void mpath_path_set_port(struct mpath_path *path, const u8 *page, size_t len)
{
	int tpg, rel;

	mpath_vpd83_port(page, len, &tpg, &rel);
	WRITE_ONCE(path->tpg_id, tpg);
	WRITE_ONCE(path->rel_port, rel);
}

/* Give @path the access state @state; true if its rank changed. */
static bool mpath_path_set_access(struct mpath_path *path, u8 state)
{
	struct mpath_lun *lun = path->lun;
	u8 old = path->access_state;

	lockdep_assert_held(&mpath_shim.lock);

	if (state == old)
		return false;
	WRITE_ONCE(path->access_state, state);
	path->access_changes++;
	lun->alua_changes++;
	if ((state & SCSI_ACCESS_STATE_MASK) == SCSI_ACCESS_STATE_TRANSITIONING &&
	    (old & SCSI_ACCESS_STATE_MASK) != SCSI_ACCESS_STATE_TRANSITIONING)
		lun->alua_transitions++;
	if ((state ^ old) & SCSI_ACCESS_STATE_MASK)
		sdev_printk(KERN_INFO, path->sdev,
			    "mpath_shim: lunpath of mpath%d is %s (was %s)\n",
			    lun->name->index, mpath_alua_state_name(state),
			    mpath_alua_state_name(old));
	return mpath_alua_rank(state) != mpath_alua_rank(old);
}

/* @path answers, and only its port's access state keeps it out of the map. */
static bool mpath_path_access_bound(const struct mpath_path *path)
{
	return path->state == MPATH_PATH_ACTIVE &&
	       mpath_alua_rank(path->access_state) < 0;
}

/*
 * Should @lun's lunpaths be probed every second rather than every
 * path_probe_interval?  While one waits for its port group's transition
 * to end, and for a while after the LUN lost its last usable path while
 * lunpaths answer (only their ports' access states keep them out): the
 * states they hold may be old (scsi_dh_alua read them through another
 * port, a UNIT ATTENTION went to a port that carries no I/O).
 */
bool mpath_lun_probe_fast(struct mpath_lun *lun)
{
	struct mpath_path *path;
	bool recent = lun->state == MPATH_LUN_WAITING && lun->fast_until &&
		      time_before(jiffies, lun->fast_until);

	lockdep_assert_held(&mpath_shim.lock);

	list_for_each_entry(path, &lun->paths, lun_node) {
		if ((path->access_state & SCSI_ACCESS_STATE_MASK) ==
		    SCSI_ACCESS_STATE_TRANSITIONING)
			return true;
		if (recent && mpath_path_access_bound(path))
			return true;
	}
	return false;
}

/*
 * @lun has just lost its last usable lunpath: if some answer and only
 * their ports' access states keep them out, read those at once and every
 * second for MPATH_FAST_PROBE_SECS (bounded: a LUN seen only through
 * standby ports may wait so for ever).
 */
void mpath_lun_probe_soon(struct mpath_lun *lun)
{
	struct mpath_path *path;

	lockdep_assert_held(&mpath_shim.lock);

	list_for_each_entry(path, &lun->paths, lun_node) {
		if (mpath_path_access_bound(path)) {
			lun->fast_until = (jiffies + MPATH_FAST_PROBE_SECS * HZ) ?: 1;
			mod_delayed_work(mpath_health_wq, &lun->probe_work, 0);
			return;
		}
	}
}

/* Did a command that returned @ret reach the port and get an answer? */
static bool mpath_answered(int ret)
{
	if (ret == -ENOMEM)
		return true;
	return !mpath_pr_result_path_error(ret) && ret >= 0;
}

/* Keep the last RTPG answer of @lun, read into @len bytes of @buf. */
static void mpath_rtpg_keep(struct mpath_lun *lun, struct mpath_path *path,
			    const u8 *buf, unsigned int len, int ret)
{
	u8 *copy = NULL;

	if (!ret) {
		len = min(len, mpath_rtpg_needed(buf, len));
		copy = kmemdup(buf, len, GFP_NOIO);
	}
	mutex_lock(&lun->alua_lock);
	kfree(lun->rtpg);
	lun->rtpg = copy;
	lun->rtpg_len = copy ? len : 0;
	lun->rtpg_ret = ret;
	lun->rtpg_at = jiffies;
	strscpy(lun->rtpg_hctl, path->hctl, sizeof(lun->rtpg_hctl));
	mutex_unlock(&lun->alua_lock);
}

/*
 * REPORT TARGET PORT GROUPS to @sdev, @len bytes into @buf; a UNIT
 * ATTENTION is asked again.
 */
static int mpath_rtpg_send(struct scsi_device *sdev, u8 *buf, unsigned int len,
			   bool ext, struct scsi_sense_hdr *sshdr)
{
	u8 cmd[12] = { MAINTENANCE_IN, MI_REPORT_TARGET_PGS };
	const struct scsi_exec_args args = { .sshdr = sshdr };
	int tries = 3, ret;

	if (ext)
		cmd[1] |= MI_EXT_HDR_PARAM_FMT;
	put_unaligned_be32(len, &cmd[6]);
	do {
		memset(buf, 0, len);
		ret = scsi_execute_cmd(sdev, cmd, REQ_OP_DRV_IN, buf, len,
				       10 * HZ, 1, &args);
	} while (ret > 0 && scsi_sense_valid(sshdr) &&
		 sshdr->sense_key == UNIT_ATTENTION && --tries);
	return ret;
}

/*
 * Read the RTPG answer of @path's port into *@bufp, *@lenp bytes.  An
 * answer that says it is longer is read again into a buffer of its length
 * (it may grow between two reads), which replaces *@bufp only if it was
 * answered.  Returns what the first command returned: after that, the
 * longest answer read is kept, even if it is cut short.
 */
static int mpath_rtpg_read(struct mpath_path *path, u8 **bufp,
			   unsigned int *lenp)
{
	unsigned int max = min_t(u64, MPATH_RTPG_MAX_LEN,
				 (u64)queue_max_hw_sectors(path->sdev->request_queue) <<
				 SECTOR_SHIFT);
	unsigned int len = *lenp, need;
	struct scsi_sense_hdr sshdr;
	int tries = 3, ret;
	bool ext = true;
	u8 *buf = *bufp;

	for (;;) {
		ret = mpath_rtpg_send(path->sdev, buf, len, ext, &sshdr);
		/* A target that does not know the extended header. */
		if (ret > 0 && ext && scsi_sense_valid(&sshdr) &&
		    sshdr.sense_key == ILLEGAL_REQUEST) {
			ext = false;
			ret = mpath_rtpg_send(path->sdev, buf, len, ext, &sshdr);
		}
		if (buf != *bufp) {
			if (ret) {
				kfree(buf);
				break;
			}
			kfree(*bufp);
			*bufp = buf;
			*lenp = len;
		} else if (ret) {
			return ret;
		}
		need = min(mpath_rtpg_needed(buf, len), max);
		if (need <= len) {
			if (mpath_rtpg_needed(buf, len) <= len)
				return 0;
			break;
		}
		buf = --tries ? kmalloc(need, GFP_NOIO | __GFP_NOWARN) : NULL;
		if (!buf)
			break;
		len = need;
	}
	pr_warn_ratelimited("mpath%d: REPORT TARGET PORT GROUPS answer of %u bytes read as %u through %s: groups past them keep their state\n",
			    path->lun->name->index,
			    mpath_rtpg_needed(*bufp, *lenp), *lenp, path->hctl);
	return 0;
}

/*
 * The shim owns RTPG for @path: ask, and apply the answer to every lunpath
 * of the LUN.  0 if the port answered, -EIO if it did not.
 */
static int mpath_alua_rtpg(struct mpath_path *path)
{
	unsigned int len = MPATH_RTPG_LEN;
	struct mpath_lun *lun = path->lun;
	struct mpath_rtpg *rtpg = NULL;
	const struct mpath_tpg *tpg;
	bool republish = false;
	struct mpath_path *p;
	u8 *buf, state;
	int ret;
	u64 seq;

	buf = kmalloc(len, GFP_NOIO);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	mpath_lock();
	seq = ++lun->rtpg_seq;
	mpath_unlock();

	ret = mpath_rtpg_read(path, &buf, &len);
	mpath_rtpg_keep(lun, path, buf, len, ret);
	/* Refused (a port in transition may refuse it): no states. */
	if (ret) {
		ret = mpath_answered(ret) ? -ENODATA : -EIO;
		goto out;
	}
	rtpg = mpath_rtpg_parse(buf, len, GFP_NOIO);
	if (IS_ERR(rtpg)) {
		ret = PTR_ERR(rtpg);
		rtpg = NULL;
		goto out;
	}

	mpath_lock();
	if (seq > lun->rtpg_applied) {
		lun->rtpg_applied = seq;
		list_for_each_entry(p, &lun->paths, lun_node) {
			tpg = mpath_rtpg_find(rtpg, READ_ONCE(p->tpg_id));
			if (!tpg || !mpath_path_alua(p) || mpath_dh_alua(p->sdev))
				continue;
			state = tpg->state;
			if (tpg->pref)
				state |= SCSI_ACCESS_STATE_PREFERRED;
			republish |= mpath_path_set_access(p, state);
		}
		if (republish)
			mpath_lun_publish_map(lun);
	}
	mpath_unlock();
out:
	kfree(rtpg);
	kfree(buf);
	return ret;
}

/*
 * scsi_dh_alua owns RTPG for @path: TEST UNIT READY hands it a pending
 * UNIT ATTENTION, then its view (or the port's own word) is taken.
 * 0 if the port answered, -EIO if it did not.
 */
static int mpath_alua_dh(struct mpath_path *path)
{
	struct scsi_sense_hdr sshdr;
	enum mpath_alua_sense sense;
	u8 state;
	int ret;

	ret = scsi_test_unit_ready(path->sdev, 10 * HZ, 3, &sshdr);
	if (!mpath_answered(ret))
		return -EIO;
	state = READ_ONCE(path->sdev->access_state);
	sense = ret > 0 ? mpath_alua_sense(&sshdr) : MPATH_ALUA_SENSE_NONE;
	if (sense >= MPATH_ALUA_SENSE_TRANSITIONING)
		state = mpath_alua_sense_state(sense);
	mpath_lock();
	if (mpath_path_set_access(path, state))
		mpath_lun_publish_map(path->lun);
	mpath_unlock();
	return 0;
}

/*
 * Read the access state of @path's port group again (and, when the shim
 * owns RTPG, of every group of its LU).  0 if the port answered or the LU
 * has no ALUA, -ENODATA if it answered without the states (RTPG refused),
 * -EIO if the port did not answer, -ENOMEM.
 */
int mpath_alua_refresh(struct mpath_path *path)
{
	if (!mpath_path_alua(path))
		return 0;
	if (mpath_dh_alua(path->sdev))
		return mpath_alua_dh(path);
	return mpath_alua_rtpg(path);
}

/*
 * mpath_alua_refresh(), where @sense is what the port said to TEST UNIT
 * READY: if the states could not be read and the port named its own
 * (standby, unavailable, in transition), that is its state.
 */
int mpath_alua_refresh_sense(struct mpath_path *path,
			     enum mpath_alua_sense sense)
{
	int ret = mpath_alua_refresh(path);

	if (ret && sense >= MPATH_ALUA_SENSE_TRANSITIONING) {
		mpath_lock();
		if (mpath_path_set_access(path, mpath_alua_sense_state(sense)))
			mpath_lun_publish_map(path->lun);
		mpath_unlock();
	}
	return ret;
}

/*
 * An I/O failed on @path, a lunpath of an ALUA LU: was it the port's access
 * state?  The port is asked (TEST UNIT READY, then the states again).
 * Returns true if it answered and its group may carry no I/O now: not a
 * path failure.  Called from the path's probe work.
 */
bool mpath_alua_verdict(struct mpath_path *path)
{
	struct scsi_sense_hdr sshdr;
	enum mpath_alua_sense sense;
	int ret;

	ret = scsi_test_unit_ready(path->sdev, 10 * HZ, 3, &sshdr);
	sense = ret > 0 ? mpath_alua_sense(&sshdr) : MPATH_ALUA_SENSE_NONE;
	/* No answer, or an answer about something else: a failure. */
	if (ret && sense < MPATH_ALUA_SENSE_TRANSITIONING)
		return false;
	mpath_alua_refresh_sense(path, sense);
	return mpath_alua_rank(READ_ONCE(path->access_state)) < 0;
}

/*
 * A lunpath of @lun whose port may be asked to become active, or NULL.
 * None while an active lunpath's probe has still to say whether its I/O
 * error was its access state or a failure (MPATH_PATH_ALUA_CHECK), or its
 * port group is in transition: the target is moving the states itself, and
 * one error on the only optimized port would move the LU to the other
 * controller.  The map published after the verdict or the transition asks
 * again.
 */
static struct mpath_path *mpath_standby_path(struct mpath_lun *lun)
{
	struct mpath_path *path;
	u8 state;

	lockdep_assert_held(&mpath_shim.lock);

	list_for_each_entry(path, &lun->paths, lun_node) {
		state = path->access_state & SCSI_ACCESS_STATE_MASK;
		/* (IO_ERR: map_work has yet to set ALUA_CHECK.) */
		if (path->state == MPATH_PATH_ACTIVE && mpath_path_alua(path) &&
		    (test_bit(MPATH_PATH_ALUA_CHECK, &path->flags) ||
		     test_bit(MPATH_PATH_IO_ERR, &path->flags) ||
		     state == SCSI_ACCESS_STATE_TRANSITIONING))
			return NULL;
	}
	list_for_each_entry(path, &lun->paths, lun_node) {
		state = path->access_state & SCSI_ACCESS_STATE_MASK;
		if (path->state == MPATH_PATH_ACTIVE && mpath_path_alua(path) &&
		    (path->tpgs & MPATH_TPGS_EXPLICIT) &&
		    path->tpg_id != MPATH_ALUA_NONE &&
		    (state == SCSI_ACCESS_STATE_STANDBY ||
		     state == SCSI_ACCESS_STATE_UNAVAILABLE))
			return path;
	}
	return NULL;
}

/* @lun has no path for I/O: may a standby port be made active? */
void mpath_lun_check_standby(struct mpath_lun *lun)
{
	lockdep_assert_held(&mpath_shim.lock);

	if (READ_ONCE(lun->explicit_failover) && lun->state != MPATH_LUN_DYING &&
	    mpath_standby_path(lun))
		queue_work(mpath_health_wq, &lun->alua_work);
}

/* SET TARGET PORT GROUPS: @path's group becomes active/optimized. */
static int mpath_stpg_send(struct mpath_path *path)
{
	u8 cmd[12] = { MAINTENANCE_OUT, MO_SET_TARGET_PGS };
	struct scsi_sense_hdr sshdr;
	const struct scsi_exec_args args = { .sshdr = &sshdr };
	u8 *buf;
	int ret;

	buf = kzalloc(8, GFP_NOIO);
	if (!buf)
		return -ENOMEM;
	buf[4] = SCSI_ACCESS_STATE_OPTIMAL;
	put_unaligned_be16(READ_ONCE(path->tpg_id), &buf[6]);
	put_unaligned_be32(8, &cmd[6]);
	ret = scsi_execute_cmd(path->sdev, cmd, REQ_OP_DRV_OUT, buf, 8,
			       30 * HZ, 3, &args);
	kfree(buf);
	return ret;
}

/* Explicit failover to a standby port group; on mpath_health_wq. */
void mpath_alua_failover_work(struct work_struct *work)
{
	struct mpath_lun *lun = container_of(work, struct mpath_lun, alua_work);
	struct mpath_path *path;
	bool ok;
	int ret;

	mpath_lock();
	path = mpath_lun_has_path(lun) ? NULL : mpath_standby_path(lun);
	ok = path && percpu_ref_tryget_live(&path->ref);
	mpath_unlock();
	if (!ok)
		return;
	if (mpath_dh_alua(path->sdev))
		ret = scsi_dh_activate(path->sdev->request_queue, NULL, NULL);
	else
		ret = mpath_stpg_send(path);
	sdev_printk(KERN_INFO, path->sdev,
		    "mpath_shim: mpath%d: only standby ports: SET TARGET PORT GROUPS to group %d: %s (%d)\n",
		    lun->name->index, READ_ONCE(path->tpg_id),
		    ret ? "failed" : "done", ret);
	mpath_alua_refresh(path);
	percpu_ref_put(&path->ref);
}
