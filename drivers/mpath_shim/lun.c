// SPDX-License-Identifier: GPL-2.0
/*
 * LUNs: one object per LU designator, named mpathN.
 *
 * N is given once per designator and kept while the module is loaded, so a
 * LUN that loses all its paths and comes back is mpathN again; bindings
 * keep it across loads (names.c).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

#include <mpath_shim/mpath_shim.h>

static void mpath_lun_init(struct mpath_lun *lun)
{
	INIT_LIST_HEAD(&lun->paths);
	mutex_init(&lun->limits_lock);
	mutex_init(&lun->pr_lock);
	mutex_init(&lun->alua_lock);
	spin_lock_init(&lun->requeue_lock);
	bio_list_init(&lun->requeue_list);
	INIT_WORK(&lun->requeue_work, mpath_requeue_work);
	bio_list_init(&lun->ctxwait_list);
	INIT_DELAYED_WORK(&lun->ctxwait_work, mpath_ctxwait_work);
	INIT_WORK(&lun->map_work, mpath_lun_map_work);
	INIT_DELAYED_WORK(&lun->probe_work, mpath_probe_work);
	INIT_DELAYED_WORK(&lun->nopath_work, mpath_nopath_work);
	INIT_DELAYED_WORK(&lun->watchdog_work, mpath_watchdog_work);
	INIT_WORK(&lun->remove_work, mpath_lun_remove_work);
	INIT_WORK(&lun->offer_work, mpath_lun_offer_work);
	INIT_WORK(&lun->scan_work, mpath_disk_scan_work);
	INIT_LIST_HEAD(&lun->holder_ops);
	INIT_WORK(&lun->holder_work, mpath_holder_work);
	INIT_WORK(&lun->alua_work, mpath_alua_failover_work);
	lun->no_path_timeout = READ_ONCE(mpath_no_path_timeout);
}

/* Find the LUN of @wwid or create it; count one more lunpath on it. */
struct mpath_lun *mpath_lun_join(const char *wwid)
{
	const struct mpath_policy *policy;
	struct mpath_selector *sel;
	struct mpath_name *name;
	struct mpath_lun *lun;
	int ret;

	lockdep_assert_held(&mpath_shim.lock);

	list_for_each_entry(lun, &mpath_shim.luns, node) {
		if (!strcmp(lun->wwid, wwid)) {
			lun->nr_paths++;
			return lun;
		}
	}

	name = mpath_names_get(&mpath_shim.names, wwid);
	if (IS_ERR(name))
		return ERR_CAST(name);
	lun = kzalloc(sizeof(*lun), GFP_KERNEL);
	if (!lun)
		return ERR_PTR(-ENOMEM);
	lun->name = name;
	strscpy(lun->wwid, wwid, sizeof(lun->wwid));
	mpath_lun_init(lun);
	lun->kobj.kset = mpath_shim.luns_kset;
	kobject_init(&lun->kobj, &mpath_lun_ktype);

	policy = mpath_policy_find(mpath_default_policy) ?: &mpath_ps_round_robin;
	sel = mpath_selector_alloc(policy);
	if (!sel) {
		ret = -ENOMEM;
		goto out_put;
	}
	RCU_INIT_POINTER(lun->sel, sel);
	lun->stats = alloc_percpu(struct mpath_stats);
	lun->lat = alloc_percpu(struct mpath_lat);
	if (!lun->stats || !lun->lat) {
		ret = -ENOMEM;
		goto out_put;
	}
	ret = mpath_disk_alloc(lun);
	if (ret)
		goto out_put;
	ret = kobject_add(&lun->kobj, NULL, "mpath%d", lun->name->index);
	if (ret)
		goto out_put;
	lun->paths_kobj = kobject_create_and_add("paths", &lun->kobj);
	if (!lun->paths_kobj) {
		ret = -ENOMEM;
		goto out_del;
	}

	lun->nr_paths = 1;
	list_add_tail(&lun->node, &mpath_shim.luns);
	kobject_uevent(&lun->kobj, KOBJ_ADD);
	queue_delayed_work(mpath_health_wq, &lun->probe_work,
			   READ_ONCE(mpath_path_probe_interval) * HZ);
	pr_info("mpath%d: LUN %s\n", lun->name->index, lun->wwid);
	return lun;

out_del:
	kobject_del(&lun->kobj);
out_put:
	/* The release frees what was allocated. */
	kobject_put(&lun->kobj);
	return ERR_PTR(ret);
}

/*
 * One lunpath fewer on @lun.  The last one takes the LUN away at once if it
 * never carried I/O or has given up waiting for a path; otherwise the
 * no-path timer does (or, with no_path_timeout -1, nothing does).
 */
void mpath_lun_leave(struct mpath_lun *lun)
{
	lockdep_assert_held(&mpath_shim.lock);

	if (--lun->nr_paths)
		return;
	pr_info("mpath%d: last lunpath gone\n", lun->name->index);
	if (!lun->disk_added || lun->state == MPATH_LUN_EXPIRED ||
	    lun->releasing)
		mpath_lun_queue_remove(lun);
}

/* Queue @lun's teardown, once. */
void mpath_lun_queue_remove(struct mpath_lun *lun)
{
	lockdep_assert_held(&mpath_shim.lock);

	if (lun->remove_queued || lun->state == MPATH_LUN_DYING)
		return;
	lun->remove_queued = true;
	queue_work(mpath_wq, &lun->remove_work);
}

/*
 * Begin the administrator's release of the LUN of @wwid: refused while its
 * disk is open (-EBUSY); from here on it cannot be opened, and its last
 * lunpath takes it away at once.  Returns it with a reference, or NULL if
 * there is no such LUN.
 */
struct mpath_lun *mpath_lun_begin_release(const char *wwid)
{
	struct mpath_lun *lun, *found = NULL;
	int ret = 0;

	mpath_lock();
	list_for_each_entry(lun, &mpath_shim.luns, node) {
		if (!strcmp(lun->wwid, wwid)) {
			found = lun;
			kobject_get(&lun->kobj);
			break;
		}
	}
	mpath_unlock();
	if (!found)
		return NULL;
	/*
	 * mpath_open() runs under open_mutex: no opener slips in.  Held by
	 * someone (a partition scan waiting for a path): busy, rather than
	 * wait for it with mpath_claim_lock held.
	 */
	if (!mutex_trylock(&found->disk->open_mutex)) {
		kobject_put(&found->kobj);
		return ERR_PTR(-EBUSY);
	}
	mpath_lock();
	if (disk_openers(found->disk))
		ret = -EBUSY;
	else
		found->releasing = true;
	mpath_unlock();
	mutex_unlock(&found->disk->open_mutex);
	if (ret) {
		kobject_put(&found->kobj);
		return ERR_PTR(ret);
	}
	return found;
}

/* Does @name belong to a LUN now (not one being torn down)? */
bool mpath_name_has_lun(const struct mpath_name *name)
{
	struct mpath_lun *lun;

	lockdep_assert_held(&mpath_shim.lock);

	list_for_each_entry(lun, &mpath_shim.luns, node)
		if (lun->name == name && lun->state != MPATH_LUN_DYING)
			return true;
	return false;
}

/* Is there a LUN of @wwid (with lunpaths or waiting for one)? */
bool mpath_lun_present(const char *wwid)
{
	struct mpath_lun *lun;
	bool found = false;

	mpath_lock();
	list_for_each_entry(lun, &mpath_shim.luns, node) {
		if (!strcmp(lun->wwid, wwid) && lun->state != MPATH_LUN_DYING) {
			found = true;
			break;
		}
	}
	mpath_unlock();
	return found;
}

/* Its lunpaths are gone: wait for the LUN's disk to go, and let go of it. */
void mpath_lun_end_release(struct mpath_lun *lun)
{
	flush_work(&lun->remove_work);
	kobject_put(&lun->kobj);
}

/* max_q_depth rules, set by the module parameter; under mpath_shim.lock */
static struct mpath_qd_rule mpath_qd_rules[MPATH_QD_RULES_MAX];
static unsigned int mpath_qd_nr_rules;

/* @path's effective max_q_depth, and where it comes from (depth_source). */
unsigned int mpath_path_resolve_depth(struct mpath_path *path)
{
	unsigned int rule;

	lockdep_assert_held(&mpath_shim.lock);

	rule = mpath_qd_rule_depth(mpath_qd_rules, mpath_qd_nr_rules,
				   path->vendor, path->model);
	return mpath_qd_resolve(path->max_q_depth, path->lun->max_q_depth, rule,
				READ_ONCE(mpath_max_q_depth),
				path->device_depth, path->depth_cap,
				&path->depth_source);
}

/*
 * Set @sdev's queue depth to @depth, as a write to its queue_depth in sysfs
 * does, and @max as the depth the midlayer ramps up to (track_queue_depth
 * hosts: a good completion adds one while queue_depth is below
 * max_queue_depth, scsi_handle_queue_ramp_up()).  A lowered ceiling is
 * written first, a raised one last: queue_depth is never below it in
 * between, where a completion would ramp it past @depth.  A device that
 * took less than asked, or refused (ata_change_queue_depth() answers
 * -EINVAL to no change), ramps up to what it took and no more.  Without the
 * driver's change_queue_depth, sysfs refuses the change and so do we.
 * Returns the depth the device has.
 */
static int mpath_sdev_set_depth(struct scsi_device *sdev, int depth, int max)
{
	const struct scsi_host_template *sht = sdev->host->hostt;
	int took;

	if (!sht->change_queue_depth)
		return sdev->queue_depth;
	if (max < sdev->max_queue_depth)
		WRITE_ONCE(sdev->max_queue_depth, max);
	if (sdev->queue_depth != depth)
		sht->change_queue_depth(sdev, depth);
	took = READ_ONCE(sdev->queue_depth);
	if (took < depth)
		max = min(max, took);
	WRITE_ONCE(sdev->max_queue_depth, max);
	return took;
}

/*
 * Give @path its effective max_q_depth: its tags and its SCSI device's queue
 * depth both become that value, or what the device took if less.  With no
 * value set for it (source "device") the device's depth is left as it is,
 * however it was set (sysfs, a udev rule, QUEUE FULL tracking), and the
 * tags follow it; the depth the shim changed is given back first.
 */
void mpath_path_apply_depth(struct mpath_path *path)
{
	struct scsi_device *sdev = path->sdev;
	unsigned int depth, old = path->depth;
	int took;

	lockdep_assert_held(&mpath_shim.lock);

	if (!path->depth_set) {
		path->device_depth = READ_ONCE(sdev->queue_depth);
		path->device_max_depth = READ_ONCE(sdev->max_queue_depth);
	}
	depth = mpath_path_resolve_depth(path);
	if (path->depth_source == MPATH_QD_DEVICE) {
		mpath_path_restore_depth(path);
	} else {
		/* No ramping up past it. */
		took = mpath_sdev_set_depth(sdev, depth, depth);
		if (took > 0 && took < depth)
			depth = took;
		path->depth_set = true;
	}
	/* I/O in flight above a lowered depth drains; none is sent meanwhile. */
	WRITE_ONCE(path->depth, depth);
	/* Bios waiting in the host queue may go now, not at a completion. */
	if (depth > old)
		mpath_kick_requeue(path->lun);
}

/* The probe tick: a lunpath on its device's own depth follows a change. */
void mpath_path_follow_depth(struct mpath_path *path)
{
	unsigned int depth;

	lockdep_assert_held(&mpath_shim.lock);

	if (path->depth_set || path->state == MPATH_PATH_REMOVED)
		return;
	depth = clamp(READ_ONCE(path->sdev->queue_depth), 1, path->depth_cap);
	if (depth != path->depth)
		mpath_path_apply_depth(path);
}

/*
 * @path is let go and its device stays, or goes back to its own depth:
 * give it the depth it had before the shim changed it.  Under
 * mpath_shim.lock, or once @path is off every list.
 */
void mpath_path_restore_depth(struct mpath_path *path)
{
	struct scsi_device *sdev = path->sdev;

	if (!path->depth_set)
		return;
	path->depth_set = false;
	/* Not to a device on its way out. */
	if (READ_ONCE(sdev->sdev_state) == SDEV_CANCEL ||
	    READ_ONCE(sdev->sdev_state) == SDEV_DEL)
		return;
	mpath_sdev_set_depth(sdev, path->device_depth, path->device_max_depth);
}

/* Call @fn on every lunpath of every LUN (a module-wide setting changed). */
void mpath_apply_to_paths(void (*fn)(struct mpath_path *path))
{
	struct mpath_path *path;
	struct mpath_lun *lun;

	lockdep_assert_held(&mpath_shim.lock);

	list_for_each_entry(lun, &mpath_shim.luns, node)
		list_for_each_entry(path, &lun->paths, lun_node)
			fn(path);
}

int mpath_set_qd_rules(const char *buf)
{
	struct mpath_qd_rule *rules;
	int nr;

	rules = kcalloc(MPATH_QD_RULES_MAX, sizeof(*rules), GFP_KERNEL);
	if (!rules)
		return -ENOMEM;
	nr = mpath_qd_parse_rules(buf, rules, MPATH_QD_RULES_MAX);
	if (nr >= 0) {
		mpath_lock();
		memcpy(mpath_qd_rules, rules, sizeof(*rules) * nr);
		mpath_qd_nr_rules = nr;
		mpath_apply_to_paths(mpath_path_apply_depth);
		mpath_unlock();
	}
	kfree(rules);
	return nr < 0 ? nr : 0;
}

ssize_t mpath_show_qd_rules(char *buf)
{
	ssize_t len = 0;
	unsigned int i;

	mpath_lock();
	for (i = 0; i < mpath_qd_nr_rules; i++)
		len += scnprintf(buf + len, PAGE_SIZE - len, "%s%s:%s=%u",
				 i ? "," : "", mpath_qd_rules[i].vendor,
				 mpath_qd_rules[i].product,
				 mpath_qd_rules[i].depth);
	mpath_unlock();
	len += scnprintf(buf + len, PAGE_SIZE - len, "\n");
	return len;
}

/* The ALUA rank of @path: 0 optimized, 1 non-optimized, -1 no I/O. */
static int mpath_path_rank(const struct mpath_path *path)
{
	return mpath_path_alua(path) ? mpath_alua_rank(path->access_state) : 0;
}

/*
 * May I/O go to @path: usable, its port neither standby, unavailable,
 * offline nor in transition, and its nexus has the LUN's reservation key
 * (pr.c)?  (It is in the map when its rank is the best present.)
 */
bool mpath_path_serves_io(const struct mpath_path *path)
{
	return mpath_path_usable(path) && mpath_path_rank(path) >= 0 &&
	       !test_bit(MPATH_PATH_PR_STALE, &path->flags);
}

/*
 * Start @lun's wait for a usable lunpath anew: @timeout seconds, no wait
 * if negative.  The no-path work expires the LUN only at the deadline set
 * last, so an instance that ran while the wait was restarted ends there.
 */
void mpath_lun_arm_nopath(struct mpath_lun *lun, int timeout)
{
	lockdep_assert_held(&mpath_shim.lock);

	if (timeout < 0) {
		lun->nopath_deadline = 0;
		cancel_delayed_work(&lun->nopath_work);
		return;
	}
	/* 0 means no wait: a deadline that lands on it moves a jiffy on. */
	lun->nopath_deadline = (jiffies + (unsigned long)timeout * HZ) ?: 1;
	mod_delayed_work(mpath_health_wq, &lun->nopath_work,
			 (unsigned long)timeout * HZ);
}

/*
 * Build the map of @lun's usable lunpaths for its policy and publish it:
 * those of the best ALUA rank present (optimized, else non-optimized; all,
 * without ALUA), or the locked one of any rank.  A LUN that gains a path
 * dispatches its held I/O; one that loses its last path starts the no-path
 * timer.
 */
/*
 * path_lockdown with no lunpath set (none, or none usable when it was
 * chosen: the default policy of a LUN that has none attached yet, a switch
 * with every lunpath down) locks onto the first of the best ALUA rank that
 * may carry I/O, else the first usable one, once there is one.  A locked
 * lunpath that was removed is waited for (preferred_hctl).
 */
static void mpath_lun_lock_onto(struct mpath_lun *lun, bool any_usable)
{
	struct mpath_path *path, *best = NULL;

	lockdep_assert_held(&mpath_shim.lock);

	list_for_each_entry(path, &lun->paths, lun_node) {
		if (mpath_path_serves_io(path) &&
		    (!best || mpath_path_rank(path) < mpath_path_rank(best)))
			best = path;
	}
	/* A switch may lock onto a standby port (it asks for a failover). */
	list_for_each_entry(path, &lun->paths, lun_node) {
		if (!best && any_usable && mpath_path_usable(path))
			best = path;
	}
	if (best)
		mpath_lun_set_preferred(lun, best);
}

void mpath_lun_publish_map(struct mpath_lun *lun)
{
	struct mpath_path_map *map, *old;
	struct mpath_selector *sel;
	struct mpath_path **paths, **others, *path;
	unsigned int nr = 0, nr_others = 0, in_service = 0;
	int best = INT_MAX, rank;
	bool pinned, lost;

	lockdep_assert_held(&mpath_shim.lock);

	sel = rcu_dereference_protected(lun->sel,
					lockdep_is_held(&mpath_shim.lock));
	/*
	 * A policy without failover keeps to the administrator's lunpath
	 * whatever its rank, as long as it serves I/O (the map builder picks
	 * it out): not only when it is in the best group.
	 */
	pinned = mpath_lun_pinned(lun);
	if (pinned && !lun->preferred && !lun->preferred_hctl[0])
		mpath_lun_lock_onto(lun, false);
	/*
	 * A few pointers: never worth failing a state change for.  No I/O
	 * from reclaim: held I/O may be waiting for this very map.
	 */
	paths = kmalloc_array(lun->nr_paths, sizeof(*paths),
			      GFP_NOIO | __GFP_NOFAIL);
	others = kmalloc_array(lun->nr_paths, sizeof(*others),
			       GFP_NOIO | __GFP_NOFAIL);
	list_for_each_entry(path, &lun->paths, lun_node) {
		if (mpath_path_state_in_service(path->state))
			in_service++;
		rank = mpath_path_rank(path);
		if (!mpath_path_serves_io(path) || (!pinned && rank > best))
			continue;
		if (!pinned && rank < best) {
			best = rank;
			nr = 0;
		}
		paths[nr++] = path;
	}
	/* Those of a lower rank: for a flush no path of the best one takes. */
	list_for_each_entry(path, &lun->paths, lun_node)
		if (!pinned && mpath_path_serves_io(path) &&
		    mpath_path_rank(path) > best)
			others[nr_others++] = path;
	map = mpath_path_map_build_all(paths, nr, others, nr_others,
				       lun->preferred, sel->policy,
				       GFP_NOIO | __GFP_NOFAIL);
	kfree(others);
	kfree(paths);
	WRITE_ONCE(lun->nr_io_paths, in_service);
	old = rcu_replace_pointer(lun->map, map,
				  lockdep_is_held(&mpath_shim.lock));
	if (old)
		kfree_rcu(old, rcu);

	if (map->nr) {
		mpath_lun_set_state(lun, MPATH_LUN_LIVE);
		mpath_lun_arm_nopath(lun, -1);
		lun->fast_until = 0;
		mpath_kick_requeue(lun);
	} else {
		lost = mpath_lun_set_state(lun, MPATH_LUN_WAITING);
		/* Lost its last path, or never had one (all disabled). */
		if (lost || (lun->state == MPATH_LUN_WAITING &&
			     !lun->nopath_deadline))
			mpath_lun_arm_nopath(lun,
					     READ_ONCE(lun->no_path_timeout));
		if (lost)
			mpath_lun_probe_soon(lun);
	}
	if (!map->nr)
		mpath_lun_check_standby(lun);
}

/*
 * The LUN's moves: WAITING <-> LIVE, WAITING -> EXPIRED -> LIVE, and any
 * state but DYING -> DYING.  Returns whether @lun moved.
 */
bool mpath_lun_set_state(struct mpath_lun *lun, enum mpath_lun_state new)
{
	static const unsigned int moves[] = {
		[MPATH_LUN_WAITING]	= BIT(MPATH_LUN_LIVE) |
					  BIT(MPATH_LUN_EXPIRED) |
					  BIT(MPATH_LUN_DYING),
		[MPATH_LUN_LIVE]	= BIT(MPATH_LUN_WAITING) |
					  BIT(MPATH_LUN_DYING),
		[MPATH_LUN_EXPIRED]	= BIT(MPATH_LUN_LIVE) |
					  BIT(MPATH_LUN_DYING),
		[MPATH_LUN_DYING]	= 0,
	};

	lockdep_assert_held(&mpath_shim.lock);

	if (!(moves[lun->state] & BIT(new)))
		return false;
	WRITE_ONCE(lun->state, new);
	return true;
}

/* The administrator's preferred (locked-down) lunpath, NULL for none. */
void mpath_lun_set_preferred(struct mpath_lun *lun, struct mpath_path *path)
{
	lockdep_assert_held(&mpath_shim.lock);

	lun->preferred = path;
	strscpy(lun->preferred_hctl, path ? path->hctl : "",
		sizeof(lun->preferred_hctl));
}

/*
 * Is @lun's I/O pinned to its preferred lunpath (a policy without failover:
 * path_lockdown)?  Then that lunpath is the only one I/O goes to.
 */
bool mpath_lun_pinned(struct mpath_lun *lun)
{
	const struct mpath_selector *sel;

	lockdep_assert_held(&mpath_shim.lock);

	sel = rcu_dereference_protected(lun->sel,
					lockdep_is_held(&mpath_shim.lock));
	return sel->policy->flags & MPATH_PS_NO_FAILOVER;
}

/* Does @lun have a path I/O can go to now? */
bool mpath_lun_has_path(struct mpath_lun *lun)
{
	bool ret;

	rcu_read_lock();
	ret = mpath_path_map_has_usable(rcu_dereference(lun->map));
	rcu_read_unlock();
	return ret;
}

/*
 * Switch @lun to @policy, atomically for I/O: a submitter sees the old
 * selector or the new one, and a map built for the old policy makes the new
 * one fall back to plain choices until the new map is published.
 */
int mpath_lun_set_policy(struct mpath_lun *lun,
			 const struct mpath_policy *policy)
{
	struct mpath_selector *sel, *old;
	struct mpath_path *path;

	lockdep_assert_held(&mpath_shim.lock);

	/*
	 * Not onto a preferred lunpath that carries no I/O while another
	 * does: the LUN would be left without a path (as preferred_path and
	 * disable refuse under path_lockdown).
	 */
	if ((policy->flags & MPATH_PS_NO_FAILOVER) && !mpath_lun_pinned(lun) &&
	    lun->preferred && !mpath_path_serves_io(lun->preferred)) {
		list_for_each_entry(path, &lun->paths, lun_node)
			if (mpath_path_serves_io(path))
				return -EBUSY;
	}
	sel = mpath_selector_alloc(policy);
	if (!sel)
		return -ENOMEM;
	/* Onto the best lunpath, also when the preferred one was removed. */
	if ((policy->flags & MPATH_PS_NO_FAILOVER) && !lun->preferred)
		mpath_lun_lock_onto(lun, true);
	old = rcu_replace_pointer(lun->sel, sel,
				  lockdep_is_held(&mpath_shim.lock));
	mpath_lun_publish_map(lun);
	pr_info("mpath%d: policy %s\n", lun->name->index, policy->name);
	/* Readers are short: wait for them here, with the lock held. */
	synchronize_rcu();
	mpath_selector_free(old);
	return 0;
}

void mpath_lun_map_work(struct work_struct *work)
{
	struct mpath_lun *lun = container_of(work, struct mpath_lun, map_work);

	mpath_lock();
	if (lun->state != MPATH_LUN_DYING) {
		mpath_lun_fail_paths(lun);
		mpath_lun_publish_map(lun);
	}
	mpath_unlock();
}

/* Tear down a LUN without lunpaths; on mpath_wq. */
void mpath_lun_remove_work(struct work_struct *work)
{
	struct mpath_lun *lun = container_of(work, struct mpath_lun,
					     remove_work);
	struct mpath_path_map *map;

	mpath_lock();
	lun->remove_queued = false;
	/* A lunpath came back in time, or it is going already. */
	if (lun->nr_paths || !mpath_lun_set_state(lun, MPATH_LUN_DYING)) {
		mpath_unlock();
		return;
	}
	list_del(&lun->node);
	/*
	 * Out of sysfs now: a lunpath of this LUN that appears from here on
	 * makes a new LUN under the same name, whose disk is added on
	 * mpath_wq after this work has deleted ours.
	 */
	if (lun->disk_added)
		sysfs_remove_link(&lun->kobj, "disk");
	kobject_put(lun->paths_kobj);
	kobject_del(&lun->kobj);
	mpath_unlock();

	pr_info("mpath%d: removed\n", lun->name->index);
	/* Held I/O (the partition scan's too) fails from here on. */
	mpath_fail_queued(lun);
	cancel_work_sync(&lun->scan_work);
	/* Its openers get errors now: the last unlinks can take open_mutex. */
	mpath_holder_flush(lun);
	mpath_disk_remove(lun);
	/* No bio comes any more: those waiting for a context fail. */
	mpath_fail_ctxwait(lun);
	mpath_debugfs_lun_remove(lun);

	cancel_delayed_work_sync(&lun->probe_work);
	cancel_delayed_work_sync(&lun->nopath_work);
	cancel_delayed_work_sync(&lun->watchdog_work);
	cancel_work_sync(&lun->map_work);
	cancel_work_sync(&lun->alua_work);
	cancel_work_sync(&lun->requeue_work);
	mpath_fail_queued(lun);
	/* A context freed by the host queue's failures may have queued it. */
	cancel_delayed_work_sync(&lun->ctxwait_work);

	map = rcu_replace_pointer(lun->map, NULL, true);
	if (map)
		kfree_rcu(map, rcu);
	kobject_put(&lun->kobj);
}

/* Called after discovery has removed every lunpath. */
void mpath_lun_exit(void)
{
	struct mpath_lun *lun;

	/* LUNs still waiting for a path stop waiting. */
	flush_workqueue(mpath_wq);
	mpath_lock();
	list_for_each_entry(lun, &mpath_shim.luns, node) {
		mpath_lun_set_state(lun, MPATH_LUN_EXPIRED);
		mpath_lun_queue_remove(lun);
	}
	mpath_unlock();
	flush_workqueue(mpath_wq);

	mpath_lock();
	WARN_ON(!list_empty(&mpath_shim.luns));
	WARN_ON(!list_empty(&mpath_shim.hbas));
	mpath_names_destroy(&mpath_shim.names);
	mpath_unlock();
}
