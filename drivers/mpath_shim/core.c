// SPDX-License-Identifier: GPL-2.0
/*
 * mpath_shim - native multipathing for SCSI LUNs
 *
 * Objects
 * -------
 * The kernel already knows every path to a LUN: each one is a scsi_device
 * (H:C:T:L) whose VPD page 0x83 carries the LU designator.  mpath_shim groups
 * them without any map table:
 *
 *   mpath_hba   one per Scsi_Host that carries a lunpath
 *   mpath_lun   one per LU designator ("wwid"), named mpathN (names.c:
 *               the lowest free N, or the one the bindings give, kept
 *               until unload; an alias for udev)
 *   mpath_path  one per scsi_device of a LUN ("lunpath")
 *
 * Discovery (discovery.c) registers a SCSI class interface: its add_dev and
 * remove_dev callbacks see every scsi_device that is added or removed,
 * including the ones present when the module loads and, on unload, all of
 * them again.  A disk with a designator becomes a lunpath when its LU is
 * claimed (TPGS, claim_min_paths paths, claim_rules, or by hand; claim.c);
 * everything else is left alone and the reason is logged once per device.
 *
 * Each LUN has a bio-based gendisk, /dev/mpathN (disk.c, io.c): a bio is
 * cloned and sent to a lunpath chosen from the LUN's path map, an immutable
 * array of usable lunpaths published with RCU (pathmap.c) and walked by a
 * per-CPU selector (ps-*.c).  A clone that fails with a path error is sent
 * again on another path; with no usable path the I/O waits in the LUN's
 * requeue list for up to no_path_timeout seconds.  A path that holds an
 * I/O longer than its io_timeout is failed by the LUN's watchdog
 * (watchdog.c), which runs only while the LUN has I/O in flight.  ioctls
 * and SG_IO go to one usable lunpath with failover (ioctl.c); persistent
 * reservation registrations go down every lunpath, and a lunpath that
 * joins later gets the LUN's key before it carries I/O (pr.c).
 *
 * Lifetimes
 * ---------
 * Every object is a kobject under /sys/kernel/mpath_shim and is freed by its
 * kobject release.  A lunpath holds a reference on its LUN and its HBA and on
 * the device of its scsi_device (not scsi_device_get(), which would pin the
 * low-level driver's module and keep it from unloading).  A removed
 * lunpath is put after an RCU grace period by a work that holds that module
 * only until then (mpath_path_remove()).  A LUN and an HBA
 * count their lunpaths in nr_paths; when the last one leaves, the object is
 * unlinked, removed from sysfs and put.  An opener of /dev/mpathN holds a
 * reference on its LUN too (ioctl.c).  kobject_del() waits for sysfs
 * readers (kernfs active references), so no attribute runs on a departing
 * object.  A lunpath's life is one state machine (path.c, pathstate.c):
 * its percpu_ref lives as long as the path, dead while it has no disk,
 * revived when the attach publishes the disk and killed by the move into
 * DETACHING, WRONG_LU or REMOVED; every I/O and every probe holds it, and
 * the disk is handed to the LUN's holder work to close only once it has
 * drained.  A LUN that loses its last usable lunpath holds I/O for
 * no_path_timeout seconds, then fails it (expired); once its last lunpath
 * has left too, its disk is deleted (openers get errors, as with NVMe) and
 * the LUN is freed.  A LUN whose disk was never offered goes with its
 * last lunpath.
 *
 * Locking
 * -------
 * mpath_shim.lock (a mutex) serialises topology: the LUN and HBA lists, the
 * lunpaths of each LUN and the nr_paths counts.  Held I/O waits for it (a
 * lunpath returns under it), so it is taken with mpath_lock(), which puts
 * its holder in a memalloc_noio scope: nothing allocated under it reclaims
 * through I/O.  It is taken in the class
 * interface callbacks, which the driver core calls with the SCSI class mutex
 * held, so mpath_shim.lock nests inside it and must never be held while
 * calling into the driver core in a way that takes the class mutex.
 * mpath_claim_lock (discovery.c) orders the claim decisions and the
 * candidate list; it sits between the class mutex and mpath_shim.lock.
 * Functions that need it say so with lockdep_assert_held().  Objects leave
 * sysfs with the lock held, so sysfs stores only mutex_trylock() it and
 * restart the system call when it is busy.  A lunpath's state changes only
 * in mpath_path_set_state(), under the lock; I/O completion and the watchdog
 * only set MPATH_PATH_IO_ERR (the path is not chosen from then on) and queue
 * the LUN's map_work, which fails the path.  lun->requeue_lock (a spinlock,
 * irq-safe) protects the requeue list.  A LUN's pr_lock nests outside its
 * limits_lock, which nests outside mpath_shim.lock: an attach publishes its
 * lunpath's disk under all three.  mpath_wq is ordered: attaching
 * lunpaths, adding disks and removing LUNs never overlap; mpath_health_wq
 * (WQ_MEM_RECLAIM) runs what held I/O waits for: probes, map rebuilds, the
 * no-path timer and the watchdog.  mpath_holder_wq links lunpath disks to
 * their LUN's in sysfs (slaves, holders) and unlinks and closes them, which
 * before 6.8 waits for the LUN disk's open_mutex; attaches, removals and
 * unbinds never do (holder.c).
 *
 * Module parameters outlive the module's own life at both ends: their
 * files are up before mpath_shim_init() runs and stay until the module is
 * freed, after mpath_shim_exit().  Every write holds the module's
 * parameter lock (kernel_param_lock()), and mpath_params, which says
 * whether a write is kept for init, applied, or refused, changes under it
 * too; it nests outside mpath_shim.lock and mpath_claim_lock.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <mpath_shim/mpath_shim.h>

int mpath_no_path_timeout = 60;
static int mpath_no_path_timeout_set(const char *val,
				     const struct kernel_param *kp)
{
	int ret, n;

	ret = kstrtoint(val, 0, &n);
	if (ret)
		return -EINVAL;
	if (n < -1 || n > MPATH_MAX_NO_PATH_TIMEOUT)
		return -EINVAL;
	*(int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops mpath_no_path_timeout_ops = {
	.set	= mpath_no_path_timeout_set,
	.get	= param_get_int,
};
module_param_cb(no_path_timeout, &mpath_no_path_timeout_ops,
		&mpath_no_path_timeout, 0644);
MODULE_PARM_DESC(no_path_timeout,
		 "Seconds a LUN holds I/O without a usable path, for LUNs created after it is set; 0 fails at once, -1 waits forever (default 60)");

static int mpath_uint_range_set(const char *val, const struct kernel_param *kp,
				unsigned int lo, unsigned int hi)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return -EINVAL;
	if (n < lo || n > hi)
		return -EINVAL;
	WRITE_ONCE(*(unsigned int *)kp->arg, n);
	return 0;
}

char *mpath_default_policy = "round_robin";
module_param_named(default_policy, mpath_default_policy, charp, 0444);
MODULE_PARM_DESC(default_policy,
		 "Path selection policy of new LUNs: round_robin, least_cmd_load, cell_local_rr, path_lockdown, preferred_path, weighted_rr or service_time (default round_robin)");

/*
 * What a parameter write does: kept for init to apply (at load), applied
 * (live), or refused once the module is going (exit ran or init failed).
 */
static enum {
	MPATH_PARAMS_AT_LOAD,
	MPATH_PARAMS_LIVE,
	MPATH_PARAMS_GONE,
} mpath_params;	/* under THIS_MODULE's param_lock */

/* 0 to apply a write now, 1 to keep it for init, -ENODEV if too late. */
static int mpath_params_when(void)
{
	lockdep_assert_held(&THIS_MODULE->param_lock);

	switch (mpath_params) {
	case MPATH_PARAMS_AT_LOAD:
		return 1;
	case MPATH_PARAMS_LIVE:
		return 0;
	default:
		return -ENODEV;
	}
}

unsigned int mpath_path_probe_interval = 5;
static int mpath_probe_interval_set(const char *val,
				    const struct kernel_param *kp)
{
	unsigned int old = mpath_path_probe_interval;
	struct mpath_lun *lun;
	int when, ret;

	when = mpath_params_when();
	if (when < 0)
		return when;
	ret = mpath_uint_range_set(val, kp, 1, 3600);
	if (ret || when || mpath_path_probe_interval >= old)
		return ret;
	/* Shorter: each LUN's next round is due now, not at the old end. */
	mpath_lock();
	list_for_each_entry(lun, &mpath_shim.luns, node)
		mod_delayed_work(mpath_health_wq, &lun->probe_work, 0);
	mpath_unlock();
	mpath_discovery_probe_now();
	return 0;
}

static const struct kernel_param_ops mpath_probe_interval_ops = {
	.set	= mpath_probe_interval_set,
	.get	= param_get_uint,
};
module_param_cb(path_probe_interval, &mpath_probe_interval_ops,
		&mpath_path_probe_interval, 0644);
MODULE_PARM_DESC(path_probe_interval,
		 "Seconds between TEST UNIT READY probes of failed lunpaths (and looks at disks without a LU designator), 1..3600 (default 5)");

unsigned int mpath_max_q_depth;
static int mpath_max_q_depth_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return -EINVAL;
	if (n > MPATH_MAX_Q_DEPTH)
		return -EINVAL;
	ret = mpath_params_when();
	if (ret < 0)
		return ret;
	if (ret) {
		WRITE_ONCE(mpath_max_q_depth, n);
		return 0;
	}
	/* With the paths': a probe tick between would apply it alone. */
	mpath_lock();
	WRITE_ONCE(mpath_max_q_depth, n);
	mpath_apply_to_paths(mpath_path_apply_depth);
	mpath_unlock();
	return 0;
}

static const struct kernel_param_ops mpath_max_q_depth_ops = {
	.set	= mpath_max_q_depth_set,
	.get	= param_get_uint,
};
module_param_cb(max_q_depth, &mpath_max_q_depth_ops, &mpath_max_q_depth, 0644);
MODULE_PARM_DESC(max_q_depth,
		 "I/Os in flight per lunpath, 1..4096, unless its LUN, the lunpath or a rule says otherwise; 0 keeps each device's own queue depth (default 0)");

static char mpath_qd_rules_at_load[MPATH_QD_RULES_LEN];
static int mpath_qd_rules_set(const char *val, const struct kernel_param *kp)
{
	struct mpath_qd_rule *rules;
	int ret;

	ret = mpath_params_when();
	if (ret < 0)
		return ret;
	if (!ret)
		return mpath_set_qd_rules(val);
	/* At load: check now, apply in init. */
	rules = kcalloc(MPATH_QD_RULES_MAX, sizeof(*rules), GFP_KERNEL);
	if (!rules)
		return -ENOMEM;
	ret = mpath_qd_parse_rules(val, rules, MPATH_QD_RULES_MAX);
	kfree(rules);
	if (ret < 0)
		return ret;
	strscpy(mpath_qd_rules_at_load, val, sizeof(mpath_qd_rules_at_load));
	return 0;
}

static int mpath_qd_rules_get(char *buf, const struct kernel_param *kp)
{
	return mpath_show_qd_rules(buf);
}

static const struct kernel_param_ops mpath_qd_rules_ops = {
	.set	= mpath_qd_rules_set,
	.get	= mpath_qd_rules_get,
};
module_param_cb(max_q_depth_rules, &mpath_qd_rules_ops, NULL, 0644);
MODULE_PARM_DESC(max_q_depth_rules,
		 "max_q_depth by device: VENDOR:PRODUCT=N[,...], PRODUCT * for any; below a LUN's or lunpath's own value (default empty)");

/*
 * The bindings given at load, each applied whole in init, in order, once the
 * table exists: modprobe.d's install line adds the bindings file's after
 * any given by hand, which it used to replace.  One that contradicts
 * another fails the load.
 */
#define MPATH_BINDINGS_AT_LOAD	8
static char *mpath_bindings_at_load[MPATH_BINDINGS_AT_LOAD];
static unsigned int mpath_bindings_nr;

static int mpath_bindings_set(const char *val, const struct kernel_param *kp)
{
	char *copy;
	int ret;

	ret = mpath_params_when();
	if (ret < 0)
		return ret;
	if (ret && mpath_bindings_nr == MPATH_BINDINGS_AT_LOAD)
		return -E2BIG;
	copy = kstrdup(val, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	if (ret) {
		mpath_bindings_at_load[mpath_bindings_nr++] = copy;
		return 0;
	}
	mpath_lock();
	ret = mpath_names_bind(&mpath_shim.names, copy);
	mpath_unlock();
	kfree(copy);
	return ret < 0 ? ret : 0;
}

/* At unload, or a failed load (parse_args() fails before init runs). */
static void mpath_bindings_free(void *arg)
{
	while (mpath_bindings_nr)
		kfree(mpath_bindings_at_load[--mpath_bindings_nr]);
}

static const struct kernel_param_ops mpath_bindings_ops = {
	.set	= mpath_bindings_set,
	.free	= mpath_bindings_free,
};
module_param_cb(bindings, &mpath_bindings_ops, NULL, 0200);
MODULE_PARM_DESC(bindings,
		 "Names kept across loads: WWID=mpathN[:ALIAS][,...], WWID's blanks and ,=\\ as \\xHH; written by mpathadm from /etc/mpath_shim/bindings (default empty)");

/*
 * The counters' switch is a static key: with stats off the I/O path runs no
 * counter code at all (a patched jump, not a load and a test per I/O).
 */
DEFINE_STATIC_KEY_TRUE(mpath_stats_key);

/*
 * Stats go off: a busy period under way is not counted on (0); or on: one
 * begun while they were off is not counted, nor one a submitter that saw
 * them on began as they went off.
 */
static void mpath_path_stop_busy(struct mpath_path *path)
{
	WRITE_ONCE(path->busy_since, 0);
}

static int mpath_stats_set(const char *val, const struct kernel_param *kp)
{
	int when, ret;
	bool on;

	when = mpath_params_when();
	if (when < 0)
		return when;
	ret = mpath_parse_bool(val, &on);
	if (ret)
		return ret;
	if (on == mpath_stats_on())
		return 0;
	if (!on)
		static_branch_disable(&mpath_stats_key);
	if (!when) {
		mpath_lock();
		mpath_apply_to_paths(mpath_path_stop_busy);
		mpath_unlock();
	}
	if (on)
		static_branch_enable(&mpath_stats_key);
	return 0;
}

static int mpath_stats_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%c\n", mpath_stats_on() ? 'Y' : 'N');
}

static const struct kernel_param_ops mpath_stats_ops = {
	.set	= mpath_stats_set,
	.get	= mpath_stats_get,
};
module_param_cb(stats, &mpath_stats_ops, NULL, 0644);
MODULE_PARM_DESC(stats, "Keep per-lunpath and per-LUN I/O counters (default Y)");

unsigned int mpath_flap_threshold = 5;
static int mpath_flap_threshold_set(const char *val,
				    const struct kernel_param *kp)
{
	return mpath_uint_range_set(val, kp, 0, 1000);
}

static const struct kernel_param_ops mpath_flap_threshold_ops = {
	.set	= mpath_flap_threshold_set,
	.get	= param_get_uint,
};
module_param_cb(flap_threshold, &mpath_flap_threshold_ops,
		&mpath_flap_threshold, 0644);
MODULE_PARM_DESC(flap_threshold,
		 "Failures of a lunpath within flap_window seconds that hold it out for flap_holdoff seconds, 0..1000, 0 never (default 5)");

unsigned int mpath_flap_window = 60;
unsigned int mpath_flap_holdoff = 30;
static int mpath_flap_seconds_set(const char *val, const struct kernel_param *kp)
{
	return mpath_uint_range_set(val, kp, 1, 86400);
}

static const struct kernel_param_ops mpath_flap_seconds_ops = {
	.set	= mpath_flap_seconds_set,
	.get	= param_get_uint,
};
module_param_cb(flap_window, &mpath_flap_seconds_ops, &mpath_flap_window, 0644);
MODULE_PARM_DESC(flap_window,
		 "Seconds in which flap_threshold failures make a lunpath flapping, 1..86400 (default 60)");
module_param_cb(flap_holdoff, &mpath_flap_seconds_ops, &mpath_flap_holdoff,
		0644);
MODULE_PARM_DESC(flap_holdoff,
		 "Seconds a flapping lunpath is held out before it may be reinstated, 1..86400 (default 30)");

unsigned int mpath_io_timeout;
static int mpath_io_timeout_set(const char *val, const struct kernel_param *kp)
{
	int when = mpath_params_when();
	int ret;

	if (when < 0)
		return when;
	ret = mpath_uint_range_set(val, kp, 0, MPATH_MAX_IO_TIMEOUT);
	if (ret || when)
		return ret;
	mpath_lock();
	mpath_apply_to_paths(mpath_path_apply_timeout);
	mpath_unlock();
	return 0;
}

static const struct kernel_param_ops mpath_io_timeout_ops = {
	.set	= mpath_io_timeout_set,
	.get	= param_get_uint,
};
module_param_cb(io_timeout, &mpath_io_timeout_ops, &mpath_io_timeout, 0644);
MODULE_PARM_DESC(io_timeout,
		 "Seconds an I/O may stay on a lunpath before the path is failed (and its SCSI command times out: sd may retry it on that path), 1..3600, unless the lunpath has its own; 0 keeps each device's own command timeout (default 0)");

bool mpath_alua = true;
module_param_named(alua, mpath_alua, bool, 0444);
MODULE_PARM_DESC(alua,
		 "Follow the asymmetric access states (ALUA) of LUNs that report target port groups: I/O only to the best group present; N takes every lunpath as active/optimized (default Y)");

/* Ordered: attaching paths, adding disks and removing LUNs never overlap. */
struct workqueue_struct *mpath_wq;
/*
 * Path health, which held I/O waits for: probes (one work per path, which
 * may block), map rebuilds after failures, the no-path timer, the watchdog.
 */
struct workqueue_struct *mpath_health_wq;
/* Holder links and disk closes, which may wait for open_mutex (holder.c). */
struct workqueue_struct *mpath_holder_wq;

/* The block major of /dev/mpathN: minor N, partitions in blkext's. */
int mpath_major;

struct mpath_shim mpath_shim = {
	.lock	= __MUTEX_INITIALIZER(mpath_shim.lock),
	.luns	= LIST_HEAD_INIT(mpath_shim.luns),
	.hbas	= LIST_HEAD_INIT(mpath_shim.hbas),
};

/*
 * What was written at load (on the command line or between the parameter
 * files' creation and here) takes effect, and from now on each write does.
 */
static int __init mpath_params_go_live(void)
{
	unsigned int i;
	int ret = 0;

	kernel_param_lock(THIS_MODULE);
	mpath_lock();
	for (i = 0; i < mpath_bindings_nr && ret >= 0; i++)
		ret = mpath_names_bind(&mpath_shim.names,
				       mpath_bindings_at_load[i]);
	mpath_unlock();
	mpath_bindings_free(NULL);
	/* Not EEXIST from init: modprobe takes that for "already loaded". */
	if (ret == -EEXIST)
		ret = -EINVAL;
	if (ret >= 0)
		ret = mpath_set_qd_rules(mpath_qd_rules_at_load);
	if (!ret)
		mpath_params = MPATH_PARAMS_LIVE;
	kernel_param_unlock(THIS_MODULE);
	return ret;
}

/*
 * The parameter files stay until the module is freed: from here on a
 * write is refused, not applied to objects that are going or gone.  (Before
 * going live a write is only kept; the kept bindings are freed with the
 * parameter, mpath_bindings_free().)
 */
static void mpath_params_end(void)
{
	kernel_param_lock(THIS_MODULE);
	mpath_params = MPATH_PARAMS_GONE;
	kernel_param_unlock(THIS_MODULE);
}

static int __init mpath_shim_init(void)
{
	int ret;

	mpath_names_init(&mpath_shim.names);
	ret = mpath_iocache_init();
	if (ret)
		goto out_names;
	ret = mpath_policies_init();
	if (ret)
		goto out_iocache;
	if (!mpath_policy_find(mpath_default_policy)) {
		pr_err("default_policy: unknown policy \"%s\"\n",
		       mpath_default_policy);
		ret = -EINVAL;
		goto out_policies;
	}
	ret = -ENOMEM;
	mpath_wq = alloc_ordered_workqueue("mpath_shim", WQ_MEM_RECLAIM);
	if (!mpath_wq)
		goto out_policies;
	mpath_health_wq = alloc_workqueue("mpath_shim_health",
					  WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!mpath_health_wq)
		goto out_wq;
	/* Flushed by LUN removals on mpath_wq, so it reclaims too. */
	mpath_holder_wq = alloc_workqueue("mpath_shim_holder",
					  WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!mpath_holder_wq)
		goto out_health_wq;
	/* A major of our own: SCSI tools take 259 (blkext) for NVMe. */
	ret = register_blkdev(0, "mpath");
	if (ret < 0)
		goto out_holder_wq;
	mpath_major = ret;
	mpath_debugfs_init();
	ret = mpath_sysfs_init();
	if (ret)
		goto out_debugfs;
	ret = mpath_params_go_live();
	if (ret)
		goto out_sysfs;
	ret = mpath_discovery_init();
	if (ret)
		goto out_params;
	pr_info("loaded\n");
	return 0;

out_params:
	mpath_params_end();
out_sysfs:
	mpath_sysfs_exit();
out_debugfs:
	mpath_debugfs_exit();
	unregister_blkdev(mpath_major, "mpath");
out_holder_wq:
	destroy_workqueue(mpath_holder_wq);
out_health_wq:
	destroy_workqueue(mpath_health_wq);
out_wq:
	destroy_workqueue(mpath_wq);
out_policies:
	mpath_policies_exit();
out_iocache:
	mpath_iocache_exit();
out_names:
	mpath_names_destroy(&mpath_shim.names);
	return ret;
}

static void __exit mpath_shim_exit(void)
{
	mpath_params_end();
	mpath_discovery_exit();
	/* The removed lunpaths are put (mpath_path_remove()). */
	rcu_barrier();
	flush_workqueue(mpath_holder_wq);
	mpath_lun_exit();
	mpath_sysfs_exit();
	mpath_debugfs_exit();
	unregister_blkdev(mpath_major, "mpath");
	destroy_workqueue(mpath_holder_wq);
	destroy_workqueue(mpath_health_wq);
	destroy_workqueue(mpath_wq);
	/* Maps freed with kfree_rcu() are gone before the module is. */
	rcu_barrier();
	mpath_policies_exit();
	mpath_iocache_exit();
	pr_info("unloaded\n");
}

module_init(mpath_shim_init);
module_exit(mpath_shim_exit);

MODULE_DESCRIPTION("Native multipathing for SCSI LUNs");
MODULE_AUTHOR("The mpath_shim developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(MPATH_SHIM_VERSION);
