/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mpath_shim: native multipathing for SCSI LUNs.
 *
 * Objects shared by the files of drivers/mpath_shim/.  See core.c for the
 * design: objects, lifetimes and locking.
 */
#ifndef _MPATH_SHIM_H
#define _MPATH_SHIM_H

#include <linux/bio.h>
#include <linux/indirect_call_wrapper.h>
#include <linux/jump_label.h>
#include <linux/completion.h>
#include <linux/kobject.h>
#include <linux/log2.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mempool.h>
#include <linux/mutex.h>
#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <mpath_shim/alua.h>
#include <mpath_shim/compat.h>
#include <mpath_shim/inflight.h>
#include <mpath_shim/names.h>
#include <mpath_shim/patherr.h>
#include <mpath_shim/policy.h>
#include <mpath_shim/qdepth.h>

struct block_device;
struct dentry;
struct gendisk;
struct pr_ops;
struct scsi_device;
struct Scsi_Host;
struct mpath_holder;
struct mpath_lun;
struct mpath_path;

/* What /dev/mpathN's queue says, derived from its paths' disks (disk.c). */
struct mpath_disk_limits {
	struct queue_limits	lim;
	blk_features_t		features;
	bool			discard;	/* all paths discard */
	bool			write_zeroes;	/* all paths write zeroes */
	bool			nowait;		/* all paths take REQ_NOWAIT */
	bool			ro;		/* a path is read-only */
};

/* Longest no_path_timeout accepted, in seconds: a day. */
#define MPATH_MAX_NO_PATH_TIMEOUT	86400

/* Module parameters (core.c) */
extern int mpath_no_path_timeout;
extern unsigned int mpath_path_probe_interval;
extern char *mpath_default_policy;
extern unsigned int mpath_max_q_depth;
extern unsigned int mpath_flap_threshold;
extern unsigned int mpath_flap_window;
extern unsigned int mpath_flap_holdoff;
extern unsigned int mpath_io_timeout;
extern bool mpath_alua;

/* The stats parameter: are the I/O counters kept?  (core.c) */
DECLARE_STATIC_KEY_TRUE(mpath_stats_key);

static inline bool mpath_stats_on(void)
{
	return static_branch_likely(&mpath_stats_key);
}

/* Path errors one I/O may have per lunpath of its LUN before it fails. */
#define MPATH_IO_TRIES_PER_PATH	2

/* Seconds of one-second probe rounds once a LUN lost its last usable path. */
#define MPATH_FAST_PROBE_SECS	10

/* Longest io_timeout of a lunpath, in seconds. */
#define MPATH_MAX_IO_TIMEOUT	3600

/* Range of a lunpath's weight (weighted_rr) */
#define MPATH_WEIGHT_MAX	1000

/* Longest LU designator string we keep ("naa." + 64 hex digits is 68). */
#define MPATH_WWID_LEN		256
/* "4294967295:4294967295:4294967295:18446744073709551615" fits. */
#define MPATH_HCTL_LEN		64

/*
 * The life of a lunpath, one field under mpath_shim.lock.  Every change goes
 * through mpath_path_set_state(); the legal moves are mpath_path_state_next()
 * (pathstate.c) and Documentation/design.md.  The I/O path only reads the
 * state and reports errors (MPATH_PATH_IO_ERR); it never changes it.
 */
enum mpath_path_state {
	MPATH_PATH_NEW,		/* no disk open: sd not bound, or not attached yet */
	MPATH_PATH_ATTACHING,	/* the attach work is opening its disk */
	MPATH_PATH_ACTIVE,	/* carries I/O */
	MPATH_PATH_FAILED,	/* a path error; the prober tests it */
	MPATH_PATH_HELD,	/* failed too often: not probed until held_until */
	MPATH_PATH_DISABLED,	/* taken out by the administrator */
	MPATH_PATH_DETACHING,	/* its disk is being let go (sd unbind) */
	MPATH_PATH_WRONG_LU,	/* it reaches another LU now: out until sd rebinds */
	MPATH_PATH_REMOVED,	/* its SCSI device is gone; final */
	MPATH_PATH_NR_STATES
};

/* mpath_path.flags */
enum {
	MPATH_PATH_IO_ERR,	/* an I/O failed on it; map_work fails it */
	MPATH_PATH_CLAIM_WARNED, /* "cannot claim the disk" said once */
	MPATH_PATH_ALUA_CHECK,	/* its probe decides: access state or failure */
	MPATH_PATH_RELEASED,	/* the administrator released its LUN */
	MPATH_PATH_PR_STALE,	/* its nexus missed a REGISTER: joins first */
	MPATH_PATH_RESCANNED,	/* its empty disk was read again since the port was ready */
	MPATH_PATH_UNBIND_DISABLED, /* sd's unbind ends it disabled */
	MPATH_PATH_CHECK,	/* an SG_IO said "transport": its probe asks it */
	MPATH_PATH_IN_USE,	/* its disk is held by another (EBUSY at open) */
	MPATH_PATH_TRIED,	/* its attach ran once: whether in use is known */
};

bool mpath_path_state_next(enum mpath_path_state old,
			   enum mpath_path_state new);

/*
 * In service: active (whatever its port's access state), or failed or held
 * out, and back by itself once it answers.  Not disabled, unattached,
 * detaching or of another LU.
 */
static inline bool mpath_path_state_in_service(enum mpath_path_state state)
{
	return state == MPATH_PATH_ACTIVE || state == MPATH_PATH_FAILED ||
	       state == MPATH_PATH_HELD;
}
bool mpath_path_state_holds_disk(enum mpath_path_state state);
const char *mpath_path_state_name(enum mpath_path_state state);

/**
 * struct mpath_stats - counters of a lunpath or a LUN, one set per CPU (and
 * an HBA's of the lunpaths that left it, one set)
 * @ios:	I/Os completed, [0] reads and [1] writes
 * @bytes:	their bytes
 * @service_ns:	time I/Os spent on the path, send to completion: the
 *		integral of the service queue length (Little's law)
 * @errors:	I/Os completed with an error
 * @failovers:	I/Os sent again on another path after a path error
 * @busy_ns:	time with at least one I/O outstanding (lunpaths)
 */
struct mpath_stats {
	u64	ios[2];
	u64	bytes[2];
	u64	service_ns;
	u64	errors;
	u64	failovers;
	u64	busy_ns;
};

/**
 * struct mpath_hba - a SCSI host that carries at least one lunpath
 * @kobj:	/sys/kernel/mpath_shim/hbas/hostN; the HBA lives as long as it
 * @paths_kobj:	hostN/paths/, one symlink per lunpath
 * @node:	entry in mpath_shim.hbas, under mpath_shim.lock
 * @shost:	the host; a reference on its device is held
 * @host_no:	SCSI host number
 * @nr_paths:	lunpaths on this HBA, under mpath_shim.lock
 * @proc_name:	name of the low-level driver, copied at discovery
 * @numa_node:	NUMA node of the HBA's device (NUMA_NO_NODE if none)
 * @gone:	counters of the lunpaths that left it, as they were when
 *		they left and the I/O then in flight on them (busy_ns: the
 *		busiest one's), so that its figures go down only on a reset
 */
struct mpath_hba {
	struct kobject		kobj;
	struct kobject		*paths_kobj;
	struct list_head	node;
	struct Scsi_Host	*shost;
	unsigned int		host_no;
	unsigned int		nr_paths;
	char			proc_name[32];
	int			numa_node;
	struct mpath_stats	gone;		/* under mpath_shim.lock */
};

/* Latency histogram: bucket b counts I/Os of [2^(b-1), 2^b) us */
#define MPATH_LAT_BUCKETS	24

/**
 * struct mpath_lat - read [0] and write [1] latency histograms, per CPU
 * @hist:	I/Os completed per log2 bucket of microseconds
 */
struct mpath_lat {
	u64	hist[2][MPATH_LAT_BUCKETS];
};

/**
 * struct mpath_path_map - the usable lunpaths of a LUN, immutable once built
 * @rcu:	frees the map after a grace period
 * @policy:	the policy the map was built for: @ps_data is its data
 * @ps_data:	data @policy derived from the map, in this allocation
 * @preferred:	the LUN's preferred (or locked-down) lunpath, if usable
 * @nr:		number of entries in @paths
 * @nr_wc:	number of entries after them, for flushes only
 * @paths:	the lunpaths I/O may be sent to; then the others that may carry
 *		I/O (a lower ALUA rank, or not the one a policy without
 *		failover keeps to), where a flush or FUA write goes when none
 *		of the first @nr has a write cache
 *
 * Published in mpath_lun.map with rcu_assign_pointer() under mpath_shim.lock
 * and read under rcu_read_lock() on the I/O path.
 */
struct mpath_path_map {
	struct rcu_head		rcu;
	const struct mpath_policy *policy;
	void			*ps_data;
	struct mpath_path	*preferred;
	unsigned int		nr;
	unsigned int		nr_wc;
	struct mpath_path	*paths[];
};

/**
 * struct mpath_selector - a policy at work for one LUN
 * @policy:	the policy
 * @pcpu:	its per-CPU state (policy->pcpu_size bytes, zeroed)
 *
 * Published in mpath_lun.sel with RCU; replaced whole on a policy switch.
 */
struct mpath_selector {
	const struct mpath_policy *policy;
	void __percpu		*pcpu;
};

/*
 * The life of a LUN, one field under mpath_shim.lock, changed only by
 * mpath_lun_set_state() (lun.c has the moves).
 */
enum mpath_lun_state {
	MPATH_LUN_WAITING,	/* no usable path (yet): I/O held up to no_path_timeout */
	MPATH_LUN_LIVE,		/* a usable path: I/O flows */
	MPATH_LUN_EXPIRED,	/* no path for no_path_timeout: I/O fails until one returns */
	MPATH_LUN_DYING,	/* being torn down: I/O fails; final */
};

/**
 * struct mpath_lun - one logical unit, reached through one or more lunpaths
 * @kobj:	/sys/kernel/mpath_shim/luns/mpathN
 * @paths_kobj:	mpathN/paths/, parent of the lunpaths' kobjects
 * @node:	entry in mpath_shim.luns, under mpath_shim.lock
 * @paths:	its lunpaths (mpath_path.lun_node), under mpath_shim.lock
 * @nr_paths:	length of @paths, under mpath_shim.lock
 * @nr_io_paths: lunpaths in service (mpath_path_state_in_service(): an
 *		I/O's share of path errors); set with the map, under
 *		mpath_shim.lock, read without
 * @name:	its name (N of mpathN, alias), kept while the module is loaded
 * @wwid:	the VPD page 0x83 LU designator, as scsi_vpd_lun_id() formats it
 * @map:	usable lunpaths, RCU; written under mpath_shim.lock
 * @sel:	the policy at work, RCU; written under mpath_shim.lock
 * @preferred:	lunpath chosen by the administrator for preferred_path and
 *		path_lockdown, or NULL; under mpath_shim.lock
 * @preferred_hctl: its H:C:T:L, kept while it is away so that it is the
 *		preferred (locked-down) path again when it returns; "" for
 *		none; under mpath_shim.lock
 * @disk:	/dev/mpathN, created with the first attached lunpath; set and
 *		cleared on mpath_wq only
 * @disk_added:	@disk is live (device_add_disk() succeeded); mpath_wq only
 * @disk_add_failed: device_add_disk() failed: a gendisk is not added twice;
 *		mpath_wq only
 * @limits_lock: serialises recomputing @disk's queue limits
 * @limits_set:	@disk's limits were committed from paths once; under
 *		@limits_lock
 * @stacked:	the paths' limits and features as last tried on @disk
 *		(committed or refused); under @limits_lock
 * @stacked_valid: @stacked holds a try; under @limits_lock
 * @queue_admin: what the administrator set in @disk's queue/ files, kept
 *		across commits; under @limits_lock
 * @io_pool:	its I/Os' contexts when this CPU's cache has none, with its
 *		own reserve (iocache.c)
 * @requeue_lock: protects @requeue_list
 * @requeue_list: clones waiting for a usable path (struct mpath_io.clone)
 * @requeue_work: dispatches @requeue_list again
 * @ctxwait_list: bios that found no free context, in order; under
 *		@requeue_lock
 * @ctxwait_len: their number; written under @requeue_lock, read locklessly
 *		(new bios join a list that is not empty; frees kick the work)
 * @ctxwait_work: gives them contexts as they come free (io.c)
 * @map_work:	republishes @map after an I/O completion failed a path
 * @probe_work:	every mpath_path_probe_interval s: TEST UNIT READY on failed
 *		lunpaths, attach unattached ones, follow capacity changes
 * @watchdog_work: while I/O is in flight, fails lunpaths holding an I/O
 *		longer than their io_timeout (watchdog.c)
 * @nopath_work: runs when the LUN has been without a usable path for
 *		@no_path_timeout seconds
 * @nopath_deadline: jiffies when that wait ends, 0 for no wait; under
 *		mpath_shim.lock (mpath_lun_arm_nopath())
 * @fast_until:	jiffies until which the LUN, out of usable lunpaths while
 *		some answer, is probed every second, 0 for none; under
 *		mpath_shim.lock
 * @stpg_next:	jiffies before which a refused explicit failover is not
 *		asked again; under mpath_shim.lock
 * @remove_work: tears down a LUN left without lunpaths (on mpath_wq)
 * @offer_work: adds the disk of a LUN that has none yet, once none of its
 *		lunpaths' disks is in use (on mpath_wq; holds a reference)
 * @scan_work:	partition scan, outside of device_add_disk() (as NVMe does)
 * @holder_ops: lunpath disks to link to @disk or to unlink and close, in
 *		order (struct mpath_holder.node); under mpath_shim.lock
 * @holder_work: does it, on mpath_holder_wq (holder.c)
 * @no_path_timeout: seconds to hold I/O without a usable path (0: fail at
 *		once, -1: forever); read locklessly, written by sysfs
 * @state:	enum mpath_lun_state, under mpath_shim.lock, changed only by
 *		mpath_lun_set_state(); read locklessly by the I/O path
 * @remove_queued: @remove_work is queued and has not started; under
 *		mpath_shim.lock (so it never runs twice)
 * @releasing:	the administrator is releasing it: no open, and its last
 *		lunpath takes it away at once; set under mpath_shim.lock and
 *		the disk's open_mutex, read under either
 * @hq_len:	length of the requeue list, the host queue: I/O waiting for a
 *		path tag or a usable path; written under @requeue_lock, read
 *		locklessly so that new I/O never overtakes waiting I/O
 * @hq:		its length over time, under @requeue_lock
 * @hq_waits:	I/Os that had to wait in it, under @requeue_lock
 * @hq_wait_ns:	their time in it, under @requeue_lock
 * @hq_reset_ns: when its counters were last zeroed: a wait counts from
 *		then on, under @requeue_lock
 * @io_tries_exhausted: I/Os ended with a path error after failing on
 *		every path (MPATH_IO_TRIES_PER_PATH per lunpath)
 * @ioctl_failovers: ioctls and reservation commands sent again on another
 *		path after a path error
 * @sg_timeout:	the default timeout (jiffies) of SG_IO commands that give
 *		none, set by SG_SET_TIMEOUT on the LUN's disk, which every
 *		attached lunpath's device takes; written under
 *		mpath_shim.lock, read by SG_GET_TIMEOUT without it
 * @sg_timeout_set: SG_SET_TIMEOUT was used on the LUN; as @sg_timeout
 * @pr_lock:	serialises reservation commands and the registration of a
 *		joining lunpath, held across its move to ACTIVE (pr.c)
 * @pr_key:	the key registered through /dev/mpathN, 0 for none; written
 *		under @pr_lock, read locklessly by sysfs
 * @pr_tried:	the new key of a REGISTER whose every answer was a path
 *		error (the LU may have carried it out), until a joining
 *		lunpath has asked READ KEYS which key holds (pr.c)
 * @pr_tried_nexuses: the I_T nexuses it went to; 0: none pending
 * @max_q_depth: depth for this LUN's lunpaths, 0 for none; under
 *		mpath_shim.lock
 * @rtpg_seq:	REPORT TARGET PORT GROUPS sent for this LUN; under
 *		mpath_shim.lock
 * @rtpg_applied: the newest of them whose answer was applied (an older
 *		answer that arrives later is not); under mpath_shim.lock
 * @tpgs:	TPGS of its lunpaths' INQUIRY, or-ed; under mpath_shim.lock,
 *		read locklessly
 * @alua_changes: access state changes of its lunpaths; under mpath_shim.lock
 * @alua_transitions: of them, moves into transitioning
 * @explicit_failover: send SET TARGET PORT GROUPS when only standby ports
 *		are left and the LU supports explicit ALUA (sysfs, default off);
 *		read locklessly
 * @alua_work:	sends it (access.c)
 * @alua_lock:	protects @rtpg, @rtpg_len, @rtpg_ret, @rtpg_at, @rtpg_hctl
 * @rtpg:	the last RTPG answer as read, for debugfs; NULL until the
 *		first, and after one that was refused
 * @rtpg_len:	its bytes (what the answer says it has, at most what was
 *		read)
 * @rtpg_ret:	what the command returned (0, a SCSI result, -errno)
 * @rtpg_at:	jiffies it was read
 * @rtpg_hctl:	the lunpath it was read through
 * @stats:	the LUN's counters, per CPU
 * @lat:	its latency histograms, per CPU
 * @debugfs:	its debugfs directory
 */
struct mpath_lun {
	struct kobject		kobj;
	struct kobject		*paths_kobj;
	struct list_head	node;
	struct list_head	paths;
	unsigned int		nr_paths;
	unsigned int		nr_io_paths;
	struct mpath_name	*name;	/* N of mpathN, alias: mpath_shim.names */
	char			wwid[MPATH_WWID_LEN];

	struct mpath_path_map __rcu *map;
	struct mpath_selector __rcu *sel;
	struct mpath_path	*preferred;
	char			preferred_hctl[MPATH_HCTL_LEN];
	struct gendisk		*disk;
	bool			disk_added;
	bool			disk_add_failed;
	bool			in_use_warned;	/* under mpath_shim.lock */
	struct mutex		limits_lock;
	bool			limits_set;
	struct mpath_disk_limits stacked;
	bool			stacked_valid;
	struct mpath_queue_admin queue_admin;
	mempool_t		io_pool;

	spinlock_t		requeue_lock;
	struct bio_list		requeue_list;
	struct work_struct	requeue_work;
	struct bio_list		ctxwait_list;
	unsigned int		ctxwait_len;
	struct delayed_work	ctxwait_work;
	struct work_struct	map_work;
	struct delayed_work	probe_work;
	struct delayed_work	nopath_work;
	struct delayed_work	watchdog_work;
	struct work_struct	remove_work;
	struct work_struct	offer_work;
	struct work_struct	scan_work;
	struct list_head	holder_ops;
	struct work_struct	holder_work;

	int			no_path_timeout;
	unsigned long		nopath_deadline;
	unsigned long		fast_until;
	unsigned long		stpg_next;
	int			state;
	bool			remove_queued;
	bool			releasing;

	unsigned int		hq_len;
	struct mpath_qlen	hq;
	u64			hq_waits;
	u64			hq_wait_ns;
	u64			hq_reset_ns;
	atomic_long_t		io_tries_exhausted;
	atomic_long_t		ioctl_failovers;
	unsigned int		sg_timeout;
	bool			sg_timeout_set;
	struct mutex		pr_lock;
	u64			pr_key;		/* under pr_lock */
	u64			pr_tried;	/* under pr_lock */
	unsigned int		pr_tried_nexuses; /* under pr_lock */
	unsigned int		max_q_depth;
	u8			tpgs;		/* under mpath_shim.lock */
	u64			rtpg_seq;	/* under mpath_shim.lock */
	u64			rtpg_applied;	/* under mpath_shim.lock */
	unsigned long		alua_changes;	/* under mpath_shim.lock */
	unsigned long		alua_transitions; /* under mpath_shim.lock */
	bool			explicit_failover;
	struct work_struct	alua_work;
	struct mutex		alua_lock;
	u8			*rtpg;		/* under alua_lock */
	unsigned int		rtpg_len;	/* under alua_lock */
	int			rtpg_ret;	/* under alua_lock */
	unsigned long		rtpg_at;	/* under alua_lock */
	char			rtpg_hctl[MPATH_HCTL_LEN]; /* under alua_lock */
	struct mpath_stats __percpu *stats;
	struct mpath_lat __percpu *lat;
	struct dentry		*debugfs;
};

/**
 * struct mpath_path - a lunpath: one scsi_device through which a LUN is reached
 * @kobj:	/sys/kernel/mpath_shim/luns/mpathN/paths/H:C:T:L
 * @lun_node:	entry in @lun->paths, under mpath_shim.lock
 * @lun:	the LUN; the path holds a reference on its kobject
 * @hba:	the HBA; the path holds a reference on its kobject
 * @sdev:	the SCSI device; a reference on its device is held
 * @state:	enum mpath_path_state, under mpath_shim.lock (changed only by
 *		mpath_path_set_state()); read locklessly by the I/O path
 * @flags:	MPATH_PATH_IO_ERR: set by an I/O completion or the watchdog
 *		in any context, consumed by the LUN's map_work;
 *		MPATH_PATH_PR_STALE: set and cleared under the LUN's pr_lock;
 *		MPATH_PATH_UNBIND_DISABLED: under mpath_shim.lock
 * @hctl:	"H:C:T:L", the name of @kobj
 * @bdev_file:	the path's sd disk, opened exclusively with the LUN as
 *		holder; under mpath_shim.lock: set when the attach work
 *		publishes it, cleared by the detach once its I/O has drained
 * @bdev:	file_bdev(@bdev_file), for the I/O path; set and cleared with it
 * @joining_bdev: the disk its attach work has stacked onto the LUN's limits
 *		and not yet published or let go, stacked meanwhile as if
 *		@bdev; under the LUN's limits_lock: set and cleared by the
 *		attach (cleared with @bdev's publication, under both locks)
 * @ref:	one reference per I/O (or probe) on @bdev: created dead,
 *		revived when @bdev is published, killed when the path leaves
 *		a state with a disk (mpath_path_set_state()); exited only when
 *		the path is freed
 * @drained:	completed when @ref drops to zero after the kill
 * @holder:	@bdev's holder link, which closes it in the end (holder.c);
 *		under mpath_shim.lock: published with @bdev, taken with
 *		@bdev_file by the detach
 * @detach_lock: serialises closing @bdev (hot removal against sd unbind)
 * @locality:	NUMA node the lunpath is local to (cell_local_rr), NUMA_NO_NODE
 *		for none; its HBA's unless the administrator set it
 * @locality_set: @locality was set by the administrator
 * @weight:	share of I/O under weighted_rr, 1..MPATH_WEIGHT_MAX
 * @inflight:	I/Os in flight on the path, by age generation (inflight.h;
 *		aged by the LUN's watchdog); they are its tags: at most @depth
 * @active_bytes: their bytes, counted for load-tracking policies
 * @cost:	EWMA of the time an I/O took per KiB queued ahead of it, in
 *		ns (service_time); 0 until measured
 * @max_q_depth: set on this lunpath, 0 for none; under mpath_shim.lock
 * @depth:	the effective max_q_depth; written under mpath_shim.lock,
 *		read per I/O
 * @depth_cap:	the largest allowed: the host's can_queue, at most 4096
 * @device_depth: the device's own queue depth: as it is while
 *		@depth_set is false, as it was before the shim changed it while
 *		true (given back then)
 * @device_max_depth: and its max_queue_depth, given back with it
 * @depth_set:	the shim set the device's queue depth (a max_q_depth from
 *		the path, LUN, a rule or the module); under mpath_shim.lock
 * @depth_source: where @depth comes from
 * @vendor:	INQUIRY vendor, for max_q_depth rules
 * @model:	INQUIRY product
 * @max_outstanding: most I/Os seen in flight at once
 * @busy_since:	when @inflight last went from 0 to 1; 0 while the period is
 *		not counted (begun with stats off, or stats went off)
 * @flap_start:	jiffies when the current flap window began
 * @flaps:	failures in that window
 * @held_until:	jiffies until which a HELD path is not probed
 *		(the three under mpath_shim.lock)
 * @io_timeout:	seconds, set on this lunpath, 0 for none; under
 *		mpath_shim.lock
 * @hba_kept:	its counters as last added to its HBA's @gone (it left the
 *		HBA), under mpath_shim.lock
 * @dev_timeout: the device's own command timeout (jiffies) while ours is
 *		applied, else 0; under mpath_shim.lock
 * @dev_sg_timeout: the device's own SG_IO default timeout while the LUN's
 *		is applied (@sg_timeout_kept); both under mpath_shim.lock
 * @io_timeouts: times the watchdog failed the path (written by the LUN's
 *		watchdog only)
 * @resv_conflicts: I/Os that ended with RESERVATION CONFLICT on it
 * @pr_joins:	times the LUN's reservation key was registered on it as it
 *		joined (pr.c)
 * @tpgs:	the TPGS field of its INQUIRY: 1 implicit, 2 explicit ALUA
 * @access_state: asymmetric access state of its target port group,
 *		SCSI_ACCESS_STATE_* with the PREFERRED bit; active/optimized
 *		when the LU has no ALUA; under mpath_shim.lock (access.c),
 *		read locklessly
 * @tpg_id:	its target port group, MPATH_ALUA_NONE if unknown
 * @rel_port:	its relative target port, MPATH_ALUA_NONE if unknown (both
 *		from VPD page 0x83, written by the attach and probe works)
 * @access_changes: changes of @access_state; under mpath_shim.lock
 * @stats:	the lunpath's counters, per CPU
 * @attach_work: opens @bdev once sd has bound (on mpath_wq)
 * @probe_work:	TEST UNIT READY on a failed lunpath, one per path so that
 *		a blocked device holds back no other (mpath_health_wq)
 * @lu_now:	the LU designator its device reported when it was found to
 *		reach another LU ("" for none), for discovery to move it
 *		there (WRONG_LU); under mpath_shim.lock
 * @free_rwork:	the removal's put, after an RCU grace period (mpath_holder_wq)
 * @lld:	the low-level driver's module, held from the removal until
 *		that put (mpath_path_remove())
 */
struct mpath_path {
	struct kobject		kobj;
	struct list_head	lun_node;
	struct mpath_lun	*lun;
	struct mpath_hba	*hba;
	struct scsi_device	*sdev;
	int			state;
	unsigned long		flags;
	char			hctl[MPATH_HCTL_LEN];

	struct file		*bdev_file;
	struct block_device	*bdev;
	struct block_device	*joining_bdev;	/* lun->limits_lock */
	struct percpu_ref	ref;
	struct completion	drained;
	struct mpath_holder	*holder;
	struct mutex		detach_lock;
	struct work_struct	attach_work;
	struct work_struct	probe_work;
	struct work_struct	rescan_work;	/* holds a kobj reference */
	struct rcu_work		free_rwork;
	struct module		*lld;

	int			locality;
	bool			locality_set;
	unsigned int		weight;
	char			lu_now[MPATH_WWID_LEN];	/* mpath_shim.lock */

	/* Written per I/O by every CPU: a cache line apart from the rest. */
	struct mpath_inflight	inflight ____cacheline_aligned_in_smp;
	unsigned int		max_outstanding;
	atomic64_t		active_bytes;
	u64			cost;
	u64			busy_since;

	unsigned int		max_q_depth ____cacheline_aligned_in_smp;
	unsigned int		depth;
	unsigned int		depth_cap;
	unsigned int		device_depth;
	unsigned int		device_max_depth;
	bool			depth_set;
	enum mpath_qd_source	depth_source;
	char			vendor[9];
	char			model[17];
	unsigned long		flap_start;
	unsigned int		flaps;
	unsigned long		held_until;
	unsigned int		io_timeout;
	unsigned int		dev_timeout;
	unsigned int		dev_sg_timeout;
	bool			sg_timeout_kept;
	unsigned long		io_timeouts;
	atomic_long_t		resv_conflicts;
	atomic_long_t		pr_joins;
	u8			tpgs;
	u8			access_state;	/* under mpath_shim.lock */
	int			tpg_id;
	int			rel_port;
	unsigned long		access_changes;	/* under mpath_shim.lock */
	struct mpath_stats __percpu *stats;
	struct mpath_stats	hba_kept;	/* under mpath_shim.lock */
};

/**
 * struct mpath_io - per-I/O context, with its clone (iocache.c)
 * @orig:	the bio submitted to /dev/mpathN
 * @path:	where the clone was sent, holding a reference on path->ref;
 *		NULL while the clone waits in the requeue list
 * @start:	bio_start_io_acct() time of @orig, if @acct
 * @acct:	@orig is in /dev/mpathN's I/O statistics (queue/iostats was
 *		on when it was submitted)
 * @acct_late:	@orig (REQ_NOWAIT) enters them when it is sent or ends: one
 *		ended with BLK_STS_AGAIN here is submitted again by its
 *		caller, and counted once, then
 * @spent:	the clone was submitted once; it is made new again from
 *		@orig before it is sent again
 * @path_errors: path errors it had since @first_error
 * @first_error: jiffies of the first path error of the current window
 * @counted:	counted in path->active_bytes (load-tracking policy)
 * @gen:	the field of path->inflight it joined (its class and generation)
 * @queued_ns:	when it entered the host queue, 0 if it never did
 * @bytes:	size of the I/O
 * @ahead:	bytes in flight on the path when it was sent, its own included
 * @sent_ns:	when it was sent (counted I/O only)
 * @clone:	the bio sent to the path
 */
struct mpath_io {
	struct bio		*orig;
	struct mpath_path	*path;
	unsigned long		start;
	bool			acct;
	bool			acct_late;
	bool			spent;
	bool			counted;
	u8			gen;
	u16			path_errors;
	unsigned long		first_error;
	unsigned int		bytes;
	u64			queued_ns;
	u64			ahead;
	u64			sent_ns;
	struct bio		clone;
};

/**
 * struct mpath_shim - the module's global state
 * @lock:	the topology lock: LUN, lunpath and HBA lists and membership
 * @luns:	all LUNs (mpath_lun.node)
 * @hbas:	all HBAs (mpath_hba.node)
 * @root:	/sys/kernel/mpath_shim
 * @luns_kset:	/sys/kernel/mpath_shim/luns
 * @hbas_kset:	/sys/kernel/mpath_shim/hbas
 * @noio:	the memalloc_noio_save() flags of @lock's holder
 */
struct mpath_shim {
	struct mutex		lock;
	unsigned int		noio;	/* under lock */
	struct list_head	luns;
	struct list_head	hbas;
	struct kobject		*root;
	struct kset		*luns_kset;
	struct kset		*hbas_kset;
	struct mpath_names	names;	/* under lock */
	/* under lock: every SCSI device there at load was seen */
	bool			scanned;
};

extern struct mpath_shim mpath_shim;

/*
 * mpath_shim.lock is what held I/O on /dev/mpathN waits for (a lunpath's
 * return, the map), so its holder allocates as GFP_NOIO, whatever flags it
 * names: reclaim must not wait on that I/O while the lock is held.
 */
static inline void mpath_lock(void)
{
	mutex_lock(&mpath_shim.lock);
	mpath_shim.noio = memalloc_noio_save();
}

static inline bool mpath_trylock(void)
{
	if (!mutex_trylock(&mpath_shim.lock))
		return false;
	mpath_shim.noio = memalloc_noio_save();
	return true;
}

static inline void mpath_unlock(void)
{
	memalloc_noio_restore(mpath_shim.noio);
	mutex_unlock(&mpath_shim.lock);
}

extern struct workqueue_struct *mpath_wq;

extern struct workqueue_struct *mpath_health_wq;

extern struct workqueue_struct *mpath_holder_wq;

extern int mpath_major;

/* Is @lun being torn down?  Lockless, for works that stop re-arming. */
static inline bool mpath_lun_dying(const struct mpath_lun *lun)
{
	return READ_ONCE(lun->state) == MPATH_LUN_DYING;
}

/* May I/O be sent to @path?  Lockless: the I/O path's view. */
static inline bool mpath_path_usable(const struct mpath_path *path)
{
	return READ_ONCE(path->state) == MPATH_PATH_ACTIVE &&
	       !test_bit(MPATH_PATH_IO_ERR, &path->flags);
}

/*
 * The next usable path of @paths after *@cursor, advancing the cursor past
 * it; NULL if none is usable.  For policies (round_robin's on every I/O).
 */
static inline struct mpath_path *
mpath_ps_rr_next(struct mpath_path * const *paths, unsigned int nr,
		 unsigned int *cursor)
{
	unsigned int i, c = *cursor;

	/* One division when the map changed size, none per I/O. */
	if (unlikely(c >= nr))
		c %= nr ?: 1;
	for (i = 0; i < nr; i++) {
		struct mpath_path *path = paths[c];

		if (++c == nr)
			c = 0;
		if (mpath_path_usable(path)) {
			*cursor = c;
			return path;
		}
	}
	return NULL;
}

/* I/Os in flight on @path.  Lockless. */
static inline unsigned int mpath_path_inflight(const struct mpath_path *path)
{
	return mpath_inflight_read(&path->inflight);
}

/* The LUN gave up waiting for a path: I/O without one fails.  Lockless. */
static inline bool mpath_lun_no_path_fails(const struct mpath_lun *lun)
{
	return READ_ONCE(lun->state) >= MPATH_LUN_EXPIRED ||
	       !READ_ONCE(lun->no_path_timeout);
}

/* access.c: asymmetric access states of lunpaths */
bool mpath_path_alua(const struct mpath_path *path);
void mpath_path_set_port(struct mpath_path *path, const u8 *page, size_t len);
int mpath_alua_refresh(struct mpath_path *path);
int mpath_alua_refresh_sense(struct mpath_path *path,
			     enum mpath_alua_sense sense);
bool mpath_alua_verdict(struct mpath_path *path);
bool mpath_lun_probe_fast(struct mpath_lun *lun);
void mpath_lun_probe_soon(struct mpath_lun *lun);
void mpath_lun_arm_nopath(struct mpath_lun *lun, int timeout);
void mpath_lun_check_standby(struct mpath_lun *lun);
void mpath_alua_failover_work(struct work_struct *work);

/* discovery.c */
int mpath_discovery_init(void);
void mpath_discovery_remapped(void);
void mpath_discovery_probe_now(void);
void mpath_discovery_exit(void);
int mpath_claim_hctl(const char *hctl);
int mpath_release_hctl(const char *hctl);
struct seq_file;
int mpath_claims_show(struct seq_file *m);

/* lun.c: the administrator's release of a LUN */
struct mpath_lun *mpath_lun_begin_release(const char *wwid);
bool mpath_lun_present(const char *wwid);
bool mpath_name_has_lun(const struct mpath_name *name);
void mpath_lun_end_release(struct mpath_lun *lun);

/* holder.c: holder links to lunpath disks, and their close */
struct mpath_holder *mpath_holder_alloc(struct block_device *bdev);
void mpath_holder_free(struct mpath_holder *h);
void mpath_holder_queue_link(struct mpath_lun *lun, struct mpath_holder *h);
void mpath_holder_queue_close(struct mpath_lun *lun, struct mpath_holder *h,
			      struct file *bdev_file, bool tell_udev);
void mpath_holder_work(struct work_struct *work);
void mpath_holder_flush(struct mpath_lun *lun);

/* disk.c */
int mpath_disk_alloc(struct mpath_lun *lun);
int mpath_disk_add(struct mpath_lun *lun, sector_t capacity);
void mpath_disk_update_limits(struct mpath_lun *lun);
void mpath_disk_follow_capacity(struct mpath_lun *lun);
void mpath_disk_remove(struct mpath_lun *lun);
void mpath_disk_free(struct mpath_lun *lun);
void mpath_disk_scan_work(struct work_struct *work);

/* ioctl.c */
extern const struct block_device_operations mpath_fops;

/* Paths one ioctl (or reservation command) may be tried on. */
#define MPATH_IOCTL_MAX_TRIES	16

/*
 * The lunpaths an ioctl went down, each tried once; @pr: a reservation
 * command, which a standby port takes too.
 */
struct mpath_tried {
	unsigned int		nr;
	bool			pr;
	struct mpath_path	*paths[MPATH_IOCTL_MAX_TRIES];
};

struct mpath_path *mpath_ioctl_path(struct mpath_lun *lun,
				    struct mpath_tried *t,
				    struct mutex *unlock);

/* pr.c */
extern const struct pr_ops mpath_pr_ops;
int mpath_pr_join(struct mpath_path *path, struct block_device *bdev);
bool mpath_pr_join_due(const struct mpath_path *path);

/* watchdog.c */
#define MPATH_WATCHDOG_TICK	(HZ / 4)
unsigned int mpath_path_io_timeout(const struct mpath_path *path);
void mpath_path_apply_timeout(struct mpath_path *path);
void mpath_path_restore_timeout(struct mpath_path *path);
void mpath_path_apply_sg_timeout(struct mpath_path *path);
void mpath_path_restore_sg_timeout(struct mpath_path *path);

/* An I/O was sent: make sure the watchdog looks while it is in flight. */
static inline void mpath_watchdog_arm(struct mpath_lun *lun)
{
	if (!delayed_work_pending(&lun->watchdog_work))
		queue_delayed_work(mpath_health_wq, &lun->watchdog_work,
				   MPATH_WATCHDOG_TICK);
}

bool mpath_path_hung(struct mpath_path *path);
void mpath_watchdog_work(struct work_struct *work);

/* iocache.c */
struct mpath_io *mpath_io_alloc(struct mpath_lun *lun, gfp_t gfp);
void mpath_io_free(struct mpath_lun *lun, struct mpath_io *io);
int mpath_io_pool_init(struct mpath_lun *lun);
void mpath_io_pool_exit(struct mpath_lun *lun);
int mpath_iocache_init(void);
void mpath_iocache_exit(void);

/* io.c */
void mpath_submit_bio(struct bio *bio);
void mpath_requeue_work(struct work_struct *work);
void mpath_kick_requeue(struct mpath_lun *lun);
void mpath_fail_queued(struct mpath_lun *lun);
void mpath_ctxwait_work(struct work_struct *work);
void mpath_fail_ctxwait(struct mpath_lun *lun);
void mpath_nopath_work(struct work_struct *work);

/* identity.c: pure logic */
int mpath_vpd83_lu_id(const u8 *page, size_t len, char *id, size_t id_len);

/* pathmap.c: pure logic, no SCSI or block plumbing */
struct mpath_path_map *
mpath_path_map_build_all(struct mpath_path * const *paths, unsigned int nr,
			 struct mpath_path * const *others,
			 unsigned int nr_others, struct mpath_path *preferred,
			 const struct mpath_policy *policy, gfp_t gfp);

/* A map of @paths alone: nothing else for flushes. */
static inline struct mpath_path_map *
mpath_path_map_build(struct mpath_path * const *paths, unsigned int nr,
		     struct mpath_path *preferred,
		     const struct mpath_policy *policy, gfp_t gfp)
{
	return mpath_path_map_build_all(paths, nr, NULL, 0, preferred, policy,
					gfp);
}
bool mpath_path_map_has_usable(const struct mpath_path_map *map);
struct mpath_selector *mpath_selector_alloc(const struct mpath_policy *policy);
void mpath_selector_free(struct mpath_selector *sel);

/* Ask @sel's policy for a path of @map; under rcu_read_lock(). */
static inline struct mpath_path *
mpath_selector_select(const struct mpath_selector *sel,
		      const struct mpath_path_map *map, int node,
		      unsigned int bytes)
{
	struct mpath_ps_args args = {
		.data	= map->policy == sel->policy ? map->ps_data : NULL,
		.node	= node,
		.bytes	= bytes,
	};
	struct mpath_path *path;

	args.pcpu = get_cpu_ptr(sel->pcpu);
	/* The default policy without a retpoline. */
	path = INDIRECT_CALL_1(sel->policy->select, mpath_ps_rr_select,
			       map, &args);
	put_cpu_ptr(sel->pcpu);
	return path;
}

void mpath_path_cost_update(struct mpath_path *path, u64 ns, u64 ahead);

/* lun.c */
void mpath_apply_to_paths(void (*fn)(struct mpath_path *path));
unsigned int mpath_path_resolve_depth(struct mpath_path *path);
void mpath_path_apply_depth(struct mpath_path *path);
void mpath_path_restore_depth(struct mpath_path *path);
void mpath_path_follow_depth(struct mpath_path *path);
int mpath_set_qd_rules(const char *buf);
ssize_t mpath_show_qd_rules(char *buf);
bool mpath_path_serves_io(const struct mpath_path *path);
void mpath_lun_publish_map(struct mpath_lun *lun);
bool mpath_lun_has_path(struct mpath_lun *lun);
bool mpath_lun_pinned(struct mpath_lun *lun);
bool mpath_lun_set_state(struct mpath_lun *lun, enum mpath_lun_state new);
int mpath_lun_set_policy(struct mpath_lun *lun,
			 const struct mpath_policy *policy);
void mpath_lun_set_preferred(struct mpath_lun *lun, struct mpath_path *path);

/* hba.c: membership counted in nr_paths, both under mpath_shim.lock */
struct mpath_hba *mpath_hba_join(struct Scsi_Host *shost);
void mpath_hba_leave(struct mpath_hba *hba);

/* lun.c: membership counted in nr_paths, both under mpath_shim.lock */
struct mpath_lun *mpath_lun_join(const char *wwid);
void mpath_lun_leave(struct mpath_lun *lun);
void mpath_lun_exit(void);
void mpath_lun_remove_work(struct work_struct *work);
void mpath_lun_offer_work(struct work_struct *work);
void mpath_lun_queue_remove(struct mpath_lun *lun);
void mpath_lun_map_work(struct work_struct *work);

/* path.c */
int mpath_path_add(struct scsi_device *sdev, const char *wwid);
void mpath_path_remove(struct scsi_device *sdev);
bool mpath_path_remapped(struct scsi_device *sdev, char *lu);
void mpath_path_give_back(struct scsi_device *sdev);
void mpath_path_bound(struct scsi_device *sdev);
void mpath_path_unbind(struct scsi_device *sdev);
void mpath_path_unbound(struct scsi_device *sdev);
bool mpath_path_set_state(struct mpath_path *path,
			  enum mpath_path_state new);
bool mpath_path_report_error(struct mpath_path *path);
void mpath_path_check(struct mpath_path *path);
void mpath_path_fail(struct mpath_path *path);
void mpath_lun_fail_paths(struct mpath_lun *lun);
unsigned int mpath_path_held_secs(const struct mpath_path *path);
void mpath_path_attach_work(struct work_struct *work);
void mpath_path_probe_work(struct work_struct *work);
int mpath_path_set_admin(struct mpath_path *path, const char *cmd);
void mpath_probe_work(struct work_struct *work);


/* fault.c: fault injection points, with CONFIG_FAULT_INJECTION_DEBUG_FS */
enum mpath_fault {
	MPATH_FAULT_PATH_ADD,
	MPATH_FAULT_DISK_ADD,
	MPATH_FAULT_LIMITS,
	MPATH_FAULT_PR_ANSWER,
	MPATH_FAULT_NR,
};

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
bool mpath_should_fail(enum mpath_fault fault);
void mpath_fault_init(struct dentry *root);
#else
static inline bool mpath_should_fail(enum mpath_fault fault)
{
	return false;
}

static inline void mpath_fault_init(struct dentry *root)
{
}
#endif

/* debugfs.c */
void mpath_debugfs_init(void);
void mpath_debugfs_exit(void);
void mpath_debugfs_lun_add(struct mpath_lun *lun);
void mpath_debugfs_lun_remove(struct mpath_lun *lun);

/* stats.c */
void mpath_stats_sum(struct mpath_stats __percpu *pcpu, struct mpath_stats *sum);
void mpath_stats_reset(struct mpath_stats __percpu *pcpu);
void mpath_lat_reset(struct mpath_lat __percpu *lat);

/* Count an I/O of @ns in its log2 bucket of microseconds. */
static inline void mpath_lat_account(struct mpath_lat __percpu *lat, int rw,
				     u64 ns)
{
	u64 us = div_u64(ns, NSEC_PER_USEC);
	unsigned int b = us ? min_t(unsigned int, ilog2(us) + 1,
				    MPATH_LAT_BUCKETS - 1) : 0;

	this_cpu_inc(lat->hist[rw][b]);
}

/* sysfs.c */
extern const struct kobj_type mpath_hba_ktype;
extern const struct kobj_type mpath_lun_ktype;
extern const struct kobj_type mpath_path_ktype;
int mpath_sysfs_init(void);
void mpath_sysfs_exit(void);
int mpath_parse_bool(const char *buf, bool *val);
void mpath_hba_keep_stats(struct mpath_path *path, bool drained);

#endif /* _MPATH_SHIM_H */
