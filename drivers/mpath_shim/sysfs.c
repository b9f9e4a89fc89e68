// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs: /sys/kernel/mpath_shim/{luns,hbas}, documented in
 * Documentation/ABI/testing/sysfs-mpath_shim.
 *
 * Objects are removed from sysfs with mpath_shim.lock held, and kobject_del()
 * waits for running attribute methods: a store that needs the lock only
 * tries it and restarts the system call when it is busy (as net-sysfs does
 * with rtnl), so it never waits for the lock while pinning its object.
 */

#include <linux/ctype.h>
#include <linux/ktime.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

#include <mpath_shim/mpath_shim.h>

/* LUN */

static struct mpath_lun *to_lun(struct kobject *kobj)
{
	return container_of(kobj, struct mpath_lun, kobj);
}

static ssize_t wwid_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", to_lun(kobj)->wwid);
}
static struct kobj_attribute lun_wwid_attr = __ATTR_RO(wwid);

static ssize_t no_path_timeout_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_lun(kobj)->no_path_timeout));
}

static ssize_t no_path_timeout_store(struct kobject *kobj,
				     struct kobj_attribute *attr,
				     const char *buf, size_t count)
{
	struct mpath_lun *lun = to_lun(kobj);
	int ret, val;

	ret = kstrtoint(buf, 0, &val);
	if (ret)
		return -EINVAL;
	if (val < -1 || val > MPATH_MAX_NO_PATH_TIMEOUT)
		return -EINVAL;
	if (!mpath_trylock())
		return restart_syscall();
	WRITE_ONCE(lun->no_path_timeout, val);
	/* Waiting for a path now: the new timeout counts from now. */
	if (lun->disk_added && lun->state == MPATH_LUN_WAITING)
		mpath_lun_arm_nopath(lun, val);
	mpath_unlock();
	return count;
}
static struct kobj_attribute lun_no_path_timeout_attr =
	__ATTR_RW_MODE(no_path_timeout, 0644);

static ssize_t policy_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	const struct mpath_policy *policy;

	rcu_read_lock();
	policy = rcu_dereference(to_lun(kobj)->sel)->policy;
	rcu_read_unlock();
	/* Policies are registered for the module's lifetime. */
	return mpath_policy_show_all(policy, buf);
}

static ssize_t policy_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	const struct mpath_policy *policy = mpath_policy_find(buf);
	struct mpath_lun *lun = to_lun(kobj);
	int ret;

	if (!policy)
		return -EINVAL;
	if (!mpath_trylock())
		return restart_syscall();
	ret = lun->state == MPATH_LUN_DYING ? -ENODEV :
					       mpath_lun_set_policy(lun, policy);
	mpath_unlock();
	return ret ?: count;
}
static struct kobj_attribute lun_policy_attr = __ATTR_RW_MODE(policy, 0644);

static ssize_t preferred_path_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	struct mpath_lun *lun = to_lun(kobj);
	ssize_t ret;

	if (!mpath_trylock())
		return restart_syscall();
	ret = sysfs_emit(buf, "%s\n", lun->preferred ? lun->preferred->hctl :
						      "none");
	mpath_unlock();
	return ret;
}

static ssize_t preferred_path_store(struct kobject *kobj,
				    struct kobj_attribute *attr,
				    const char *buf, size_t count)
{
	struct mpath_lun *lun = to_lun(kobj);
	struct mpath_path *path, *found = NULL;

	if (!mpath_trylock())
		return restart_syscall();
	list_for_each_entry(path, &lun->paths, lun_node)
		if (sysfs_streq(buf, path->hctl))
			found = path;
	if (!found && !sysfs_streq(buf, "none")) {
		mpath_unlock();
		return -EINVAL;
	}
	/*
	 * Under path_lockdown the locked lunpath is the only one I/O goes
	 * to: not moved off one that carries I/O to none, or to one that
	 * cannot, which would leave the LUN without a path.
	 */
	if (mpath_lun_pinned(lun) && lun->preferred != found &&
	    (!found || !mpath_path_serves_io(found)) &&
	    lun->preferred && mpath_path_serves_io(lun->preferred)) {
		mpath_unlock();
		return -EBUSY;
	}
	mpath_lun_set_preferred(lun, found);
	mpath_lun_publish_map(lun);
	mpath_unlock();
	return count;
}
static struct kobj_attribute lun_preferred_path_attr =
	__ATTR_RW_MODE(preferred_path, 0644);

/* "none" (0) or 1 .. MPATH_MAX_Q_DEPTH */
static int mpath_parse_depth(const char *buf, unsigned int *depth)
{
	int ret;

	if (sysfs_streq(buf, "none")) {
		*depth = 0;
		return 0;
	}
	ret = kstrtouint(buf, 0, depth);
	if (ret)
		return -EINVAL;
	return *depth < 1 || *depth > MPATH_MAX_Q_DEPTH ? -EINVAL : 0;
}

static ssize_t lun_max_q_depth_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	unsigned int depth = READ_ONCE(to_lun(kobj)->max_q_depth);

	return depth ? sysfs_emit(buf, "%u\n", depth) : sysfs_emit(buf, "none\n");
}

/* "none" clears; otherwise 1 .. the smallest can_queue of the LUN's paths. */
static ssize_t lun_max_q_depth_store(struct kobject *kobj,
				     struct kobj_attribute *attr,
				     const char *buf, size_t count)
{
	struct mpath_lun *lun = to_lun(kobj);
	struct mpath_path *path;
	unsigned int depth;
	int ret;

	ret = mpath_parse_depth(buf, &depth);
	if (ret)
		return ret;
	if (!mpath_trylock())
		return restart_syscall();
	list_for_each_entry(path, &lun->paths, lun_node) {
		if (depth > path->depth_cap) {
			mpath_unlock();
			return -EINVAL;
		}
	}
	WRITE_ONCE(lun->max_q_depth, depth);
	list_for_each_entry(path, &lun->paths, lun_node)
		mpath_path_apply_depth(path);
	mpath_unlock();
	return count;
}
static struct kobj_attribute lun_max_q_depth_attr =
	__ATTR(max_q_depth, 0644, lun_max_q_depth_show, lun_max_q_depth_store);

static ssize_t host_queue_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_lun(kobj)->hq_len));
}
static struct kobj_attribute lun_host_queue_attr = __ATTR_RO(host_queue);

static ssize_t lun_state_show(struct kobject *kobj, struct kobj_attribute *attr,
			      char *buf)
{
	static const char * const names[] = {
		[MPATH_LUN_WAITING]	= "waiting",
		[MPATH_LUN_LIVE]	= "live",
		[MPATH_LUN_EXPIRED]	= "expired",
		[MPATH_LUN_DYING]	= "dying",
	};

	return sysfs_emit(buf, "%s\n", names[READ_ONCE(to_lun(kobj)->state)]);
}
static struct kobj_attribute lun_state_attr = __ATTR(state, 0444,
						     lun_state_show, NULL);

static ssize_t io_tries_exhausted_show(struct kobject *kobj,
				       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n",
			  atomic_long_read(&to_lun(kobj)->io_tries_exhausted));
}
static struct kobj_attribute lun_io_tries_exhausted_attr =
	__ATTR_RO(io_tries_exhausted);

static ssize_t ioctl_failovers_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n",
			  atomic_long_read(&to_lun(kobj)->ioctl_failovers));
}
static struct kobj_attribute lun_ioctl_failovers_attr =
	__ATTR_RO(ioctl_failovers);

/* The key registered through /dev/mpathN (what a joining lunpath gets). */
static ssize_t pr_key_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	u64 key = READ_ONCE(to_lun(kobj)->pr_key);

	return key ? sysfs_emit(buf, "0x%llx\n", key) : sysfs_emit(buf, "none\n");
}
static struct kobj_attribute lun_pr_key_attr = __ATTR_RO(pr_key);

/* Documentation/ABI/testing/sysfs-mpath_shim gives the fields. */
static ssize_t lun_stat_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	struct mpath_lun *lun = to_lun(kobj);
	u64 now = ktime_get_ns(), waits, wait_ns, integral;
	unsigned int max, len;
	struct mpath_stats st;

	mpath_stats_sum(lun->stats, &st);
	spin_lock_irq(&lun->requeue_lock);
	waits = lun->hq_waits;
	wait_ns = lun->hq_wait_ns;
	integral = mpath_qlen_integral(&lun->hq, now);
	max = lun->hq.max;
	len = lun->hq_len;
	spin_unlock_irq(&lun->requeue_lock);
	return sysfs_emit(buf, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %u %u\n",
			  st.ios[0], st.ios[1], st.bytes[0], st.bytes[1],
			  st.errors, st.failovers, st.service_ns, integral,
			  wait_ns, waits, max, len);
}
static struct kobj_attribute lun_stat_attr =
	__ATTR(stat, 0444, lun_stat_show, NULL);

/* Writing 1 zeroes the counters (HP-UX scsimgr clear_stat). */
static int mpath_parse_reset(const char *buf)
{
	return sysfs_streq(buf, "1") ? 0 : -EINVAL;
}

static void mpath_path_reset_stats(struct mpath_path *path)
{
	u64 since = READ_ONCE(path->busy_since);

	/* A busy period under way counts from now (0: not counted at all). */
	if (since && mpath_path_inflight(path))
		WRITE_ONCE(path->busy_since, max(since, ktime_get_ns()));
	mpath_stats_reset(path->stats);
	WRITE_ONCE(path->max_outstanding, mpath_path_inflight(path));
}

static ssize_t lun_reset_stats_store(struct kobject *kobj,
				     struct kobj_attribute *attr,
				     const char *buf, size_t count)
{
	struct mpath_lun *lun = to_lun(kobj);
	int ret = mpath_parse_reset(buf);

	if (ret)
		return ret;
	mpath_stats_reset(lun->stats);
	mpath_lat_reset(lun->lat);
	spin_lock_irq(&lun->requeue_lock);
	/* The I/Os waiting now are this period's waiters, from now on. */
	lun->hq_waits = lun->hq_len;
	lun->hq_wait_ns = 0;
	lun->hq_reset_ns = ktime_get_ns();
	mpath_qlen_reset(&lun->hq, lun->hq_reset_ns);
	spin_unlock_irq(&lun->requeue_lock);
	return count;
}
static struct kobj_attribute lun_reset_stats_attr =
	__ATTR(reset_stats, 0200, NULL, lun_reset_stats_store);

static ssize_t lun_alias_show(struct kobject *kobj, struct kobj_attribute *attr,
			      char *buf)
{
	char alias[MPATH_ALIAS_LEN];

	mpath_name_alias(&mpath_shim.names, to_lun(kobj)->name, alias);
	return sysfs_emit(buf, "%s\n", alias);
}

/* An alias, or an empty line to clear it; udev is told (KOBJ_CHANGE). */
static ssize_t lun_alias_store(struct kobject *kobj,
			       struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	struct mpath_lun *lun = to_lun(kobj);
	char alias[MPATH_ALIAS_LEN];
	size_t len = count;
	int ret;

	if (len && buf[len - 1] == '\n')
		len--;
	if (len >= sizeof(alias))
		return -EINVAL;
	memcpy(alias, buf, len);
	alias[len] = '\0';
	if (strlen(alias) != len)
		return -EINVAL;
	if (!mpath_trylock())
		return restart_syscall();
	ret = mpath_names_set_alias(&mpath_shim.names, lun->name, alias,
				    mpath_name_has_lun);
	/* The disk's and its partitions': each has an alias link. */
	if (!ret && lun->disk_added && lun->state != MPATH_LUN_DYING)
		disk_uevent(lun->disk, KOBJ_CHANGE);
	mpath_unlock();
	return ret ?: count;
}
static struct kobj_attribute lun_alias_attr =
	__ATTR(alias, 0644, lun_alias_show, lun_alias_store);

static ssize_t alua_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	unsigned int tpgs = READ_ONCE(to_lun(kobj)->tpgs);

	if (tpgs && !READ_ONCE(mpath_alua))
		return sysfs_emit(buf, "ignored\n");
	return sysfs_emit(buf, "%s\n", mpath_alua_mode_name(tpgs));
}
static struct kobj_attribute lun_alua_attr = __ATTR_RO(alua);

static ssize_t alua_changes_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n", READ_ONCE(to_lun(kobj)->alua_changes));
}
static struct kobj_attribute lun_alua_changes_attr = __ATTR_RO(alua_changes);

static ssize_t alua_transitions_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n",
			  READ_ONCE(to_lun(kobj)->alua_transitions));
}
static struct kobj_attribute lun_alua_transitions_attr =
	__ATTR_RO(alua_transitions);

static ssize_t explicit_failover_show(struct kobject *kobj,
				      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_lun(kobj)->explicit_failover));
}

static ssize_t explicit_failover_store(struct kobject *kobj,
				       struct kobj_attribute *attr,
				       const char *buf, size_t count)
{
	struct mpath_lun *lun = to_lun(kobj);
	bool val;
	int ret;

	ret = mpath_parse_bool(buf, &val);
	if (ret)
		return ret;
	if (!mpath_trylock())
		return restart_syscall();
	WRITE_ONCE(lun->explicit_failover, val);
	/* Only standby ports now: at once. */
	if (val && !mpath_lun_has_path(lun))
		mpath_lun_check_standby(lun);
	mpath_unlock();
	return count;
}
static struct kobj_attribute lun_explicit_failover_attr =
	__ATTR_RW_MODE(explicit_failover, 0644);

static struct attribute *mpath_lun_attrs[] = {
	&lun_explicit_failover_attr.attr,
	&lun_alua_attr.attr,
	&lun_alua_changes_attr.attr,
	&lun_alua_transitions_attr.attr,
	&lun_alias_attr.attr,
	&lun_reset_stats_attr.attr,
	&lun_wwid_attr.attr,
	&lun_no_path_timeout_attr.attr,
	&lun_policy_attr.attr,
	&lun_preferred_path_attr.attr,
	&lun_max_q_depth_attr.attr,
	&lun_host_queue_attr.attr,
	&lun_io_tries_exhausted_attr.attr,
	&lun_ioctl_failovers_attr.attr,
	&lun_pr_key_attr.attr,
	&lun_state_attr.attr,
	&lun_stat_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(mpath_lun);

static void mpath_lun_release(struct kobject *kobj)
{
	struct mpath_lun *lun = to_lun(kobj);

	if (lun->disk)
		mpath_disk_free(lun);
	/* No reader is left: the disk is gone and so are the paths. */
	mpath_selector_free(rcu_dereference_protected(lun->sel, 1));
	free_percpu(lun->stats);
	free_percpu(lun->lat);
	kfree(lun->rtpg);
	kfree(lun);
}

/*
 * The stores of LUNs, lunpaths and HBAs: a value with more after a NUL
 * byte is refused (-EINVAL), not cut there: kstrto*() and sysfs_streq()
 * stop at the NUL, and "5\0junk" set 5.  Trailing NULs (a C string
 * written with its terminator) and a newline are allowed.
 */
static ssize_t mpath_attr_show(struct kobject *kobj, struct attribute *attr,
			       char *buf)
{
	return kobj_sysfs_ops.show(kobj, attr, buf);
}

static ssize_t mpath_attr_store(struct kobject *kobj, struct attribute *attr,
				const char *buf, size_t count)
{
	size_t i, len = count;
	ssize_t ret;

	for (i = strnlen(buf, count); i < count; i++)
		if (buf[i] && buf[i] != '\n')
			return -EINVAL;
	/* Without the trailing NULs (buf stays terminated): "db01\0" is "db01". */
	while (len && !buf[len - 1])
		len--;
	ret = kobj_sysfs_ops.store(kobj, attr, buf, len);
	/* All of it was taken: a shorter count would be written again. */
	return ret == (ssize_t)len ? count : ret;
}

static const struct sysfs_ops mpath_sysfs_ops = {
	.show	= mpath_attr_show,
	.store	= mpath_attr_store,
};

const struct kobj_type mpath_lun_ktype = {
	.release	= mpath_lun_release,
	.sysfs_ops	= &mpath_sysfs_ops,
	.default_groups	= mpath_lun_groups,
};

/* lunpath */

static struct mpath_path *to_path(struct kobject *kobj)
{
	return container_of(kobj, struct mpath_path, kobj);
}

static ssize_t hctl_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", to_path(kobj)->hctl);
}
static struct kobj_attribute path_hctl_attr = __ATTR_RO(hctl);

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct mpath_path *path = to_path(kobj);

	return sysfs_emit(buf, "%s\n",
			  mpath_path_state_name(READ_ONCE(path->state)));
}
static ssize_t state_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	static const char * const cmds[] = {
		"enable", "disable", "force_disable",
	};
	int ret, i;

	i = sysfs_match_string(cmds, buf);
	if (i < 0)
		return -EINVAL;
	if (!mpath_trylock())
		return restart_syscall();
	ret = mpath_path_set_admin(to_path(kobj), cmds[i]);
	mpath_unlock();
	return ret ?: count;
}
static struct kobj_attribute path_state_attr = __ATTR_RW_MODE(state, 0644);

static ssize_t locality_show(struct kobject *kobj,
			     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_path(kobj)->locality));
}

/* A NUMA node, -1 for none, or "auto" for the HBA's node. */
static ssize_t locality_store(struct kobject *kobj, struct kobj_attribute *attr,
			      const char *buf, size_t count)
{
	struct mpath_path *path = to_path(kobj);
	bool set = true;
	int node, ret;

	if (sysfs_streq(buf, "auto")) {
		node = path->hba->numa_node;
		set = false;
	} else {
		ret = kstrtoint(buf, 0, &node);
		if (ret)
			return -EINVAL;
		if (node < NUMA_NO_NODE || node >= nr_node_ids)
			return -EINVAL;
	}
	if (!mpath_trylock())
		return restart_syscall();
	WRITE_ONCE(path->locality, node);
	path->locality_set = set;
	if (path->state != MPATH_PATH_REMOVED)
		mpath_lun_publish_map(path->lun);
	mpath_unlock();
	return count;
}
static struct kobj_attribute path_locality_attr = __ATTR_RW_MODE(locality, 0644);

static ssize_t weight_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_path(kobj)->weight));
}

static ssize_t weight_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	struct mpath_path *path = to_path(kobj);
	unsigned int weight;
	int ret;

	ret = kstrtouint(buf, 0, &weight);
	if (ret)
		return -EINVAL;
	if (weight < 1 || weight > MPATH_WEIGHT_MAX)
		return -EINVAL;
	if (!mpath_trylock())
		return restart_syscall();
	WRITE_ONCE(path->weight, weight);
	if (path->state != MPATH_PATH_REMOVED)
		mpath_lun_publish_map(path->lun);
	mpath_unlock();
	return count;
}
static struct kobj_attribute path_weight_attr = __ATTR_RW_MODE(weight, 0644);

static ssize_t path_max_q_depth_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_path(kobj)->depth));
}

/* "none" clears the lunpath's own value; otherwise 1 .. its can_queue. */
static ssize_t path_max_q_depth_store(struct kobject *kobj,
				      struct kobj_attribute *attr,
				      const char *buf, size_t count)
{
	struct mpath_path *path = to_path(kobj);
	unsigned int depth;
	int ret;

	ret = mpath_parse_depth(buf, &depth);
	if (ret)
		return ret;
	if (depth > path->depth_cap)
		return -EINVAL;
	if (!mpath_trylock())
		return restart_syscall();
	path->max_q_depth = depth;
	if (path->state != MPATH_PATH_REMOVED)
		mpath_path_apply_depth(path);
	mpath_unlock();
	return count;
}
static struct kobj_attribute path_max_q_depth_attr =
	__ATTR(max_q_depth, 0644, path_max_q_depth_show, path_max_q_depth_store);

static ssize_t max_q_depth_source_show(struct kobject *kobj,
				       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  mpath_qd_source_name(READ_ONCE(to_path(kobj)->depth_source)));
}
static struct kobj_attribute path_max_q_depth_source_attr =
	__ATTR_RO(max_q_depth_source);

static ssize_t inflight_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%u\n", mpath_path_inflight(to_path(kobj)));
}
static struct kobj_attribute path_inflight_attr = __ATTR_RO(inflight);

/* @path's busy time at @now, @busy_ns counted and the current period. */
static u64 mpath_path_busy_ns(struct mpath_path *path, u64 busy_ns, u64 now)
{
	u64 since = READ_ONCE(path->busy_since);

	/* 0: a busy period begun with stats off is not counted. */
	if (mpath_stats_on() && mpath_path_inflight(path) && since &&
	    now > since)
		busy_ns += now - since;
	return busy_ns;
}

static ssize_t path_stat_show(struct kobject *kobj, struct kobj_attribute *attr,
			      char *buf)
{
	struct mpath_path *path = to_path(kobj);
	unsigned int active = mpath_path_inflight(path);
	struct mpath_stats st;

	mpath_stats_sum(path->stats, &st);
	return sysfs_emit(buf, "%llu %llu %llu %llu %llu %llu %llu %llu %u %u\n",
			  st.ios[0], st.ios[1], st.bytes[0], st.bytes[1],
			  st.errors, st.failovers,
			  mpath_path_busy_ns(path, st.busy_ns, ktime_get_ns()),
			  st.service_ns, READ_ONCE(path->max_outstanding),
			  active);
}
static struct kobj_attribute path_stat_attr =
	__ATTR(stat, 0444, path_stat_show, NULL);

static ssize_t path_reset_stats_store(struct kobject *kobj,
				      struct kobj_attribute *attr,
				      const char *buf, size_t count)
{
	int ret = mpath_parse_reset(buf);

	if (ret)
		return ret;
	mpath_path_reset_stats(to_path(kobj));
	return count;
}
static struct kobj_attribute path_reset_stats_attr =
	__ATTR(reset_stats, 0200, NULL, path_reset_stats_store);

static ssize_t held_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%u\n", mpath_path_held_secs(to_path(kobj)));
}
static struct kobj_attribute path_held_attr = __ATTR_RO(held);

static ssize_t io_timeout_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	struct mpath_path *path = to_path(kobj);

	return sysfs_emit(buf, "%u\n",
			  jiffies_to_msecs(READ_ONCE(path->sdev->request_queue->rq_timeout)) / 1000);
}

/* "none" clears the lunpath's own value; otherwise 1 .. 3600 seconds. */
static ssize_t io_timeout_store(struct kobject *kobj,
				struct kobj_attribute *attr,
				const char *buf, size_t count)
{
	struct mpath_path *path = to_path(kobj);
	unsigned int secs;
	int ret;

	if (sysfs_streq(buf, "none")) {
		secs = 0;
	} else {
		ret = kstrtouint(buf, 10, &secs);
		if (ret)
			return -EINVAL;
		if (!secs || secs > MPATH_MAX_IO_TIMEOUT)
			return -EINVAL;
	}
	if (!mpath_trylock())
		return restart_syscall();
	path->io_timeout = secs;
	if (path->state != MPATH_PATH_REMOVED)
		mpath_path_apply_timeout(path);
	mpath_unlock();
	return count;
}
static struct kobj_attribute path_io_timeout_attr =
	__ATTR_RW_MODE(io_timeout, 0644);

static ssize_t io_timeouts_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n", READ_ONCE(to_path(kobj)->io_timeouts));
}
static struct kobj_attribute path_io_timeouts_attr = __ATTR_RO(io_timeouts);

static ssize_t resv_conflicts_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n",
			  atomic_long_read(&to_path(kobj)->resv_conflicts));
}
static struct kobj_attribute path_resv_conflicts_attr =
	__ATTR_RO(resv_conflicts);

static ssize_t pr_joins_show(struct kobject *kobj,
			     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n",
			  atomic_long_read(&to_path(kobj)->pr_joins));
}
static struct kobj_attribute path_pr_joins_attr = __ATTR_RO(pr_joins);

static ssize_t access_state_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	u8 state = READ_ONCE(to_path(kobj)->access_state);

	return sysfs_emit(buf, "%s%s\n", mpath_alua_state_name(state),
			  state & SCSI_ACCESS_STATE_PREFERRED ? " preferred" : "");
}
static struct kobj_attribute path_access_state_attr = __ATTR_RO(access_state);

static ssize_t access_changes_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu\n",
			  READ_ONCE(to_path(kobj)->access_changes));
}
static struct kobj_attribute path_access_changes_attr =
	__ATTR_RO(access_changes);

static ssize_t mpath_emit_port_id(char *buf, int id)
{
	if (id == MPATH_ALUA_NONE)
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "%d\n", id);
}

static ssize_t tpg_id_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return mpath_emit_port_id(buf, READ_ONCE(to_path(kobj)->tpg_id));
}
static struct kobj_attribute path_tpg_id_attr = __ATTR_RO(tpg_id);

static ssize_t rel_port_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return mpath_emit_port_id(buf, READ_ONCE(to_path(kobj)->rel_port));
}
static struct kobj_attribute path_rel_port_attr = __ATTR_RO(rel_port);

static struct attribute *mpath_path_attrs[] = {
	&path_access_state_attr.attr,
	&path_access_changes_attr.attr,
	&path_tpg_id_attr.attr,
	&path_rel_port_attr.attr,
	&path_io_timeout_attr.attr,
	&path_io_timeouts_attr.attr,
	&path_resv_conflicts_attr.attr,
	&path_pr_joins_attr.attr,
	&path_held_attr.attr,
	&path_reset_stats_attr.attr,
	&path_hctl_attr.attr,
	&path_state_attr.attr,
	&path_locality_attr.attr,
	&path_weight_attr.attr,
	&path_max_q_depth_attr.attr,
	&path_max_q_depth_source_attr.attr,
	&path_inflight_attr.attr,
	&path_stat_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(mpath_path);

static void mpath_path_release(struct kobject *kobj)
{
	struct mpath_path *path = to_path(kobj);

	if (path->lun)
		kobject_put(&path->lun->kobj);
	if (path->hba)
		kobject_put(&path->hba->kobj);
	put_device(&path->sdev->sdev_gendev);
	percpu_ref_exit(&path->ref);
	free_percpu(path->stats);
	kfree(path);
}

const struct kobj_type mpath_path_ktype = {
	.release	= mpath_path_release,
	.sysfs_ops	= &mpath_sysfs_ops,
	.default_groups	= mpath_path_groups,
};

/* HBA */

static struct mpath_hba *to_hba(struct kobject *kobj)
{
	return container_of(kobj, struct mpath_hba, kobj);
}

static ssize_t host_no_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%u\n", to_hba(kobj)->host_no);
}
static struct kobj_attribute hba_host_no_attr = __ATTR_RO(host_no);

static ssize_t driver_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n", to_hba(kobj)->proc_name);
}
static struct kobj_attribute hba_driver_attr = __ATTR_RO(driver);

static ssize_t hba_numa_node_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", to_hba(kobj)->numa_node);
}
static struct kobj_attribute hba_numa_node_attr =
	__ATTR(numa_node, 0444, hba_numa_node_show, NULL);

/* Add @path's counters to @sum, an HBA's (busy: the busiest lunpath's). */
static void mpath_hba_sum_path(struct mpath_stats *sum,
			       struct mpath_path *path, u64 now)
{
	struct mpath_stats st;
	unsigned int i;

	mpath_stats_sum(path->stats, &st);
	for (i = 0; i < 2; i++) {
		sum->ios[i] += st.ios[i];
		sum->bytes[i] += st.bytes[i];
	}
	sum->errors += st.errors;
	sum->failovers += st.failovers;
	sum->service_ns += st.service_ns;
	/* busy: the HBA is busy while any of its paths is */
	sum->busy_ns = max(sum->busy_ns,
			   mpath_path_busy_ns(path, st.busy_ns, now));
}

/*
 * @path leaves its HBA: its counters stay in the HBA's figures, which go
 * down only on a reset (an interval reader would take a drop for one).
 * Called as it leaves the HBA's lists, and again once the I/O then in
 * flight on it has @drained, which adds what that I/O counted.  In
 * between, nothing resets its counters: its files and its HBA's list of
 * lunpaths no longer have it.
 */
void mpath_hba_keep_stats(struct mpath_path *path, bool drained)
{
	struct mpath_stats *kept = &path->hba_kept, now = { }, st;
	unsigned int i;

	lockdep_assert_held(&mpath_shim.lock);

	if (!drained)
		memset(kept, 0, sizeof(*kept));
	mpath_hba_sum_path(&now, path, ktime_get_ns());
	st = path->hba->gone;
	for (i = 0; i < 2; i++) {
		st.ios[i] += now.ios[i] - kept->ios[i];
		st.bytes[i] += now.bytes[i] - kept->bytes[i];
	}
	st.errors += now.errors - kept->errors;
	st.failovers += now.failovers - kept->failovers;
	st.service_ns += now.service_ns - kept->service_ns;
	st.busy_ns = max(st.busy_ns, now.busy_ns);
	path->hba->gone = st;
	*kept = now;
}

/*
 * An HBA's figures are the sum of its lunpaths', those that left it
 * included (fields as a lunpath's).
 */
static ssize_t hba_stat_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	struct mpath_hba *hba = to_hba(kobj);
	unsigned int max = 0, active = 0;
	struct mpath_path *path;
	struct mpath_stats sum;
	struct mpath_lun *lun;
	u64 now = ktime_get_ns();

	if (!mpath_trylock())
		return restart_syscall();
	sum = hba->gone;
	list_for_each_entry(lun, &mpath_shim.luns, node) {
		list_for_each_entry(path, &lun->paths, lun_node) {
			if (path->hba != hba)
				continue;
			mpath_hba_sum_path(&sum, path, now);
			max += READ_ONCE(path->max_outstanding);
			active += mpath_path_inflight(path);
		}
	}
	mpath_unlock();
	return sysfs_emit(buf, "%llu %llu %llu %llu %llu %llu %llu %llu %u %u\n",
			  sum.ios[0], sum.ios[1], sum.bytes[0], sum.bytes[1],
			  sum.errors, sum.failovers, sum.busy_ns,
			  sum.service_ns, max, active);
}
static struct kobj_attribute hba_stat_attr =
	__ATTR(stat, 0444, hba_stat_show, NULL);

static ssize_t hba_reset_stats_store(struct kobject *kobj,
				     struct kobj_attribute *attr,
				     const char *buf, size_t count)
{
	struct mpath_hba *hba = to_hba(kobj);
	struct mpath_path *path;
	struct mpath_lun *lun;
	int ret = mpath_parse_reset(buf);

	if (ret)
		return ret;
	if (!mpath_trylock())
		return restart_syscall();
	list_for_each_entry(lun, &mpath_shim.luns, node)
		list_for_each_entry(path, &lun->paths, lun_node)
			if (path->hba == hba)
				mpath_path_reset_stats(path);
	memset(&hba->gone, 0, sizeof(hba->gone));
	mpath_unlock();
	return count;
}
static struct kobj_attribute hba_reset_stats_attr =
	__ATTR(reset_stats, 0200, NULL, hba_reset_stats_store);

static struct attribute *mpath_hba_attrs[] = {
	&hba_stat_attr.attr,
	&hba_reset_stats_attr.attr,
	&hba_host_no_attr.attr,
	&hba_driver_attr.attr,
	&hba_numa_node_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(mpath_hba);

static void mpath_hba_release(struct kobject *kobj)
{
	struct mpath_hba *hba = to_hba(kobj);

	put_device(&hba->shost->shost_gendev);
	kfree(hba);
}

const struct kobj_type mpath_hba_ktype = {
	.release	= mpath_hba_release,
	.sysfs_ops	= &mpath_sysfs_ops,
	.default_groups	= mpath_hba_groups,
};

/* /sys/kernel/mpath_shim */

/*
 * A switch written to sysfs or a module parameter: a whole word of 1/0,
 * y/n, yes/no, on/off (any case; a newline allowed).  kstrtobool() looks at
 * the first characters only and would take "1x" or "yes please".
 */
int mpath_parse_bool(const char *buf, bool *val)
{
	static const char * const on[] = { "1", "y", "yes", "on" };
	static const char * const off[] = { "0", "n", "no", "off" };
	char word[4];
	size_t len = strcspn(buf, "\n");
	unsigned int i;

	if (!len || len >= sizeof(word) || (buf[len] && strcmp(buf + len, "\n")))
		return -EINVAL;
	for (i = 0; i < len; i++)
		word[i] = tolower(buf[i]);
	word[len] = '\0';
	for (i = 0; i < ARRAY_SIZE(on); i++) {
		if (!strcmp(word, on[i]) || !strcmp(word, off[i])) {
			*val = !strcmp(word, on[i]);
			return 0;
		}
	}
	return -EINVAL;
}

static int mpath_parse_hctl(const char *buf, size_t count, char *hctl)
{
	char tmp[MPATH_HCTL_LEN], *p = tmp, *f[4];
	unsigned int h, c, t, i;
	unsigned long long l;

	if (count && buf[count - 1] == '\n')
		count--;
	if (!count || count >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf, count);
	tmp[count] = '\0';
	for (i = 0; i < 4; i++)
		f[i] = strsep(&p, ":");
	/* kstrto*() refuse what does not fit, where sscanf() would wrap. */
	if (p || !f[3] || kstrtouint(f[0], 10, &h) || kstrtouint(f[1], 10, &c) ||
	    kstrtouint(f[2], 10, &t) || kstrtoull(f[3], 10, &l))
		return -EINVAL;
	snprintf(hctl, MPATH_HCTL_LEN, "%u:%u:%u:%llu", h, c, t, l);
	return 0;
}

static ssize_t claim_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	char hctl[MPATH_HCTL_LEN];
	int ret;

	ret = mpath_parse_hctl(buf, count, hctl);
	if (!ret)
		ret = mpath_claim_hctl(hctl);
	return ret ?: count;
}
static struct kobj_attribute claim_attr = __ATTR_WO(claim);

static ssize_t release_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	char hctl[MPATH_HCTL_LEN];
	int ret;

	ret = mpath_parse_hctl(buf, count, hctl);
	if (!ret)
		ret = mpath_release_hctl(hctl);
	return ret ?: count;
}
static struct kobj_attribute release_attr = __ATTR_WO(release);

static struct attribute *mpath_root_attrs[] = {
	&claim_attr.attr,
	&release_attr.attr,
	NULL,
};

static const struct attribute_group mpath_root_group = {
	.attrs	= mpath_root_attrs,
};

int mpath_sysfs_init(void)
{
	int ret = -ENOMEM;

	mpath_shim.root = kobject_create_and_add("mpath_shim", kernel_kobj);
	if (!mpath_shim.root)
		goto out;
	ret = sysfs_create_group(mpath_shim.root, &mpath_root_group);
	if (ret)
		goto out_root;
	ret = -ENOMEM;
	mpath_shim.luns_kset = kset_create_and_add("luns", NULL,
						   mpath_shim.root);
	if (!mpath_shim.luns_kset)
		goto out_root;
	mpath_shim.hbas_kset = kset_create_and_add("hbas", NULL,
						   mpath_shim.root);
	if (!mpath_shim.hbas_kset)
		goto out_luns;
	return 0;

out_luns:
	kset_unregister(mpath_shim.luns_kset);
out_root:
	kobject_put(mpath_shim.root);
out:
	return ret;
}

void mpath_sysfs_exit(void)
{
	kset_unregister(mpath_shim.hbas_kset);
	kset_unregister(mpath_shim.luns_kset);
	kobject_put(mpath_shim.root);
}
