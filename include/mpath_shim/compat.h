/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mpath_shim: the kernel APIs of today, on the older kernels it supports.
 *
 * The module is written against the newest block and driver-core API; this
 * header supplies it on older kernels (Debian 12's 6.1).  Which API a kernel
 * has is decided by feature probes, not version numbers: Kbuild greps the
 * target's headers and defines MPATH_HAVE_* (distributions backport).
 *
 * Supported: 6.1 and 6.9 or later.  6.5 to 6.8 (blk_mode_t with holder ops,
 * bdev_handle) are refused below rather than guessed at.
 */
#ifndef _MPATH_SHIM_COMPAT_H
#define _MPATH_SHIM_COMPAT_H

#include <linux/backing-dev.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/pagemap.h>

#ifdef MPATH_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>		/* 6.12 */
#else
#include <asm/unaligned.h>
#endif

/* 6.4: class interface callbacks lost their interface argument. */
#ifdef MPATH_HAVE_CLASS_INTF_DEV_ONLY
#define MPATH_CLASS_INTF_ADD(fn)	fn
#define MPATH_CLASS_INTF_REMOVE(fn)	fn
#define MPATH_DEFINE_CLASS_INTF(add, remove)
#else
#define MPATH_CLASS_INTF_ADD(fn)	fn##_intf
#define MPATH_CLASS_INTF_REMOVE(fn)	fn##_intf
#define MPATH_DEFINE_CLASS_INTF(add, remove)				\
static int add##_intf(struct device *dev, struct class_interface *intf)	\
{									\
	return add(dev);						\
}									\
static void remove##_intf(struct device *dev, struct class_interface *intf) \
{									\
	remove(dev);							\
}
#endif

/*
 * 6.9: a block device is opened as a file.  Before that (6.1) the handle
 * is the block_device itself, behind a struct file pointer that is never
 * dereferenced: only file_bdev() and bdev_fput() below take it.  Every
 * open is exclusive (a holder is always given), and read-write unless sd
 * refused that (a write-protected disk).
 */
#ifdef MPATH_HAVE_BDEV_FILE
#ifndef MPATH_HAVE_BDEV_FPUT
#define bdev_fput(file)		fput(file)	/* 6.9 */
#endif
#else
#ifdef MPATH_HAVE_BLK_MODE
#error "mpath_shim supports 6.1 and 6.9 or later, not 6.5 to 6.8"
#endif
#define blk_mode_t		fmode_t
#define BLK_OPEN_READ		FMODE_READ
#define BLK_OPEN_WRITE		FMODE_WRITE
/*
 * What the put gives back: 6.1's blkdev_put() reads only FMODE_EXCL of it
 * (the claim; whether the claim blocked media events is kept in the bdev)
 * and sd's release none, so a disk opened read-only is put the same way.
 */
#define MPATH_COMPAT_FMODE	(FMODE_READ | FMODE_WRITE | FMODE_EXCL)

struct blk_holder_ops;

static inline struct file *
bdev_file_open_by_dev(dev_t dev, blk_mode_t mode, void *holder,
		      const struct blk_holder_ops *hops)
{
	struct block_device *bdev;

	WARN_ON_ONCE(!(mode & BLK_OPEN_READ) || !holder);
	bdev = blkdev_get_by_dev(dev, mode | FMODE_EXCL, holder);
	if (IS_ERR(bdev))
		return ERR_CAST(bdev);
	return (struct file *)bdev;
}

static inline struct block_device *file_bdev(struct file *bdev_file)
{
	return (struct block_device *)bdev_file;
}

static inline void bdev_fput(struct file *bdev_file)
{
	blkdev_put(file_bdev(bdev_file), MPATH_COMPAT_FMODE);
}
#endif

/*
 * 6.5: a disk's open and release take the gendisk and no mode on release.
 * The shim's are written that way; on 6.1 a wrapper adapts each.
 */
#ifdef MPATH_HAVE_OPEN_GENDISK
#define MPATH_FOPS_OPEN(fn)		fn
#define MPATH_FOPS_RELEASE(fn)		fn
#define MPATH_DEFINE_FOPS_OPEN(open, release)
#else
#define MPATH_FOPS_OPEN(fn)		fn##_bdev
#define MPATH_FOPS_RELEASE(fn)		fn##_mode
#define MPATH_DEFINE_FOPS_OPEN(open, release)				\
static int open##_bdev(struct block_device *bdev, fmode_t mode)		\
{									\
	return open(bdev->bd_disk, mode);				\
}									\
static void release##_mode(struct gendisk *disk, fmode_t mode)		\
{									\
	release(disk);							\
}
#endif

/* Later kernels (sid's 7.2): ->getgeo takes the gendisk, all it used. */
#ifdef MPATH_HAVE_GETGEO_GENDISK
#define MPATH_FOPS_GETGEO(fn)		fn
#define MPATH_DEFINE_FOPS_GETGEO(getgeo)
static inline int mpath_call_getgeo(const struct block_device_operations *fops,
				    struct block_device *bdev,
				    struct hd_geometry *geo)
{
	return fops->getgeo(bdev->bd_disk, geo);
}
#else
#define MPATH_FOPS_GETGEO(fn)		fn##_bdev
#define MPATH_DEFINE_FOPS_GETGEO(getgeo)				\
static int getgeo##_bdev(struct block_device *bdev,			\
			 struct hd_geometry *geo)			\
{									\
	return getgeo(bdev->bd_disk, geo);				\
}
static inline int mpath_call_getgeo(const struct block_device_operations *fops,
				    struct block_device *bdev,
				    struct hd_geometry *geo)
{
	return fops->getgeo(bdev, geo);
}
#endif

/*
 * What bio_alloc_clone() copies besides the shim's own fields: the write
 * lifetime hint (6.9) and write stream (6.16) of the original.
 */
static inline void mpath_bio_clone_hints(struct bio *dst, const struct bio *src)
{
#ifdef MPATH_HAVE_BIO_WRITE_HINT
	dst->bi_write_hint = src->bi_write_hint;
#endif
#ifdef MPATH_HAVE_BIO_WRITE_STREAM
	dst->bi_write_stream = src->bi_write_stream;
#endif
}

/* 6.5: BLK_STS_NEXUS was renamed for what it is. */
#ifndef MPATH_HAVE_BLK_STS_RESV_CONFLICT
#define BLK_STS_RESV_CONFLICT	BLK_STS_NEXUS
#endif

/*
 * 6.3: scsi_execute_cmd() with its optional arguments in a structure.
 * The shim passes a sense header only; data in or out by the op.
 */
#ifndef MPATH_HAVE_SCSI_EXECUTE_CMD
#include <scsi/scsi_device.h>

struct scsi_exec_args {
	struct scsi_sense_hdr *sshdr;
};

static inline int scsi_execute_cmd(struct scsi_device *sdev,
				   const unsigned char *cmd, blk_opf_t opf,
				   void *buffer, unsigned int bufflen,
				   int timeout, int retries,
				   const struct scsi_exec_args *args)
{
	return scsi_execute_req(sdev, cmd, opf == REQ_OP_DRV_OUT ?
				DMA_TO_DEVICE : DMA_FROM_DEVICE, buffer,
				bufflen, args ? args->sshdr : NULL, timeout,
				retries, NULL);
}
#endif

/*
 * 6.9: sd retries a UNIT ATTENTION of its own reservation commands (struct
 * scsi_failures came with that).  Before, it returned CHECK CONDITION, 2,
 * which 6.5 to 6.8 return for a timeout too (PR_STS_IOERR).
 */
#ifdef MPATH_HAVE_SCSI_FAILURES
#define MPATH_SD_PR_RETRIES_UA	true
#else
#define MPATH_SD_PR_RETRIES_UA	false
#endif

/* 7.x: bdev_nonrot() became bdev_rot(). */
#ifndef MPATH_HAVE_BDEV_ROT
static inline bool bdev_rot(struct block_device *bdev)
{
	return !bdev_nonrot(bdev);
}
#endif

/* 6.9: stacking limits from a block device. */
#ifndef MPATH_HAVE_LIMITS_STACK_BDEV
static inline void queue_limits_stack_bdev(struct queue_limits *t,
					   struct block_device *bdev,
					   sector_t offset, const char *pfx)
{
	blk_stack_limits(t, &bdev_get_queue(bdev)->limits,
			 get_start_sect(bdev) + offset);
}
#endif

/*
 * 6.9: blk_alloc_disk() takes the queue limits and returns an ERR_PTR.
 * 6.1's is a macro taking the node only.
 */
#ifndef MPATH_HAVE_ALLOC_DISK_LIMITS
#undef blk_alloc_disk
#define blk_alloc_disk(lim, node_id)					\
({									\
	static struct lock_class_key __key;				\
									\
	mpath_compat_alloc_disk(lim, node_id, &__key);			\
})

static inline struct gendisk *
mpath_compat_alloc_disk(struct queue_limits *lim, int node,
			struct lock_class_key *lkclass)
{
	struct gendisk *disk = __blk_alloc_disk(node, lkclass);

	if (!disk)
		return ERR_PTR(-ENOMEM);
	if (lim)
		disk->queue->limits = *lim;
	return disk;
}
#endif

/*
 * 6.11: the queue flags NONROT (inverted: ROTATIONAL), STABLE_WRITES, WC,
 * FUA, IO_STAT and NOWAIT became features in queue_limits.  The shim computes the
 * features it wants as BLK_FEAT_* bits and sets limits and features in one
 * go with mpath_queue_limits_commit(), after queue_limits_start_update().
 */
#ifdef MPATH_HAVE_BLK_FEAT
#define MPATH_FEATURES	(BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA |		\
			 BLK_FEAT_ROTATIONAL | BLK_FEAT_STABLE_WRITES |	\
			 BLK_FEAT_IO_STAT | BLK_FEAT_NOWAIT)
#else
typedef unsigned int __bitwise blk_features_t;
#define BLK_FEAT_WRITE_CACHE	((__force blk_features_t)(1u << 0))
#define BLK_FEAT_FUA		((__force blk_features_t)(1u << 1))
#define BLK_FEAT_ROTATIONAL	((__force blk_features_t)(1u << 2))
#define BLK_FEAT_IO_STAT	((__force blk_features_t)(1u << 4))
#define BLK_FEAT_STABLE_WRITES	((__force blk_features_t)(1u << 5))
#define BLK_FEAT_NOWAIT		((__force blk_features_t)(1u << 7))

static inline void mpath_compat_flag(struct request_queue *q,
				     unsigned int flag, bool on)
{
	if (on)
		blk_queue_flag_set(flag, q);
	else
		blk_queue_flag_clear(flag, q);
}
#endif

/*
 * 6.9: limits are changed between a start and a commit, under the queue's
 * limits_lock, which its queue/ files' stores take too.  Before, those take
 * sysfs_lock: held here until mpath_queue_limits_commit(), so an
 * administrator's write is not lost between the snapshot and the commit.
 */
#ifndef MPATH_HAVE_LIMITS_COMMIT
static inline struct queue_limits
queue_limits_start_update(struct request_queue *q)
	__acquires(&q->sysfs_lock)
{
	mutex_lock(&q->sysfs_lock);
	return q->limits;
}
#endif

/* 6.14: a freeze started apart is ended without restoring memalloc flags. */
#ifdef MPATH_HAVE_UNFREEZE_NOMEMRESTORE
#define mpath_unfreeze_queue(q)	blk_mq_unfreeze_queue_nomemrestore(q)
#else
#define mpath_unfreeze_queue(q)	blk_mq_unfreeze_queue(q)
#endif

/*
 * Freeze @q, waiting at most @timeout for the submitters inside its
 * ->submit_bio to leave; false if one did not (it may be asleep for a bio
 * only the caller would let end).  Either way the freeze is started (no
 * new submitter enters) and ends with mpath_unfreeze_queue().
 */
static inline bool mpath_freeze_queue_timeout(struct request_queue *q,
					      unsigned long timeout)
{
	blk_freeze_queue_start(q);
	return blk_mq_freeze_queue_wait_timeout(q, timeout) > 0;
}

/*
 * What the administrator set in /dev/mpathN's queue/ files, kept when the
 * shim stacks its paths' limits again (mpath_limits_keep_user()).  6.11
 * keeps a write cache turned off (BLK_FLAG_WRITE_CACHE_DISABLED) and
 * discard_max_bytes (max_user_discard_sectors) in the limits, 6.9
 * max_sectors_kb (max_user_sectors); before, her write overwrites the
 * queue's flag or limit, and the shim tells it apart from what it
 * committed last.  Under the LUN's limits_lock.
 * @set:	features she turned on or off (of MPATH_ADMIN_FEATURES)
 * @on:		and their values
 * @committed:	the features of MPATH_ADMIN_FEATURES last committed
 * @wc_off:	she turned the write cache off (before 6.11)
 * @discard_set: she set discard_max_bytes, to @max_discard (sectors)
 * @max_sectors: her max_sectors_kb in sectors, 0 for none (before 6.9)
 * @committed_max_discard: and @committed_max_sectors: the values last
 *		committed
 * @ra_set:	she set read_ahead_kb, to @ra_pages
 * @committed_ra: the read-ahead (pages) the last commit left
 */
struct mpath_queue_admin {
	blk_features_t	set;
	blk_features_t	on;
	blk_features_t	committed;
	bool		ra_set;
	unsigned long	ra_pages;
	unsigned long	committed_ra;
#ifndef MPATH_HAVE_BLK_FEAT
	bool		wc_off;
	bool		discard_set;
	unsigned int	max_discard;
	unsigned int	committed_max_discard;
#endif
#ifndef MPATH_HAVE_LIMITS_COMMIT
	unsigned int	max_sectors;
	unsigned int	committed_max_sectors;
#endif
};

/*
 * Features an administrator may turn on or off in a disk's queue/ files
 * that the commit sets (6.1 leaves add_random's flag alone).
 */
#ifdef MPATH_HAVE_BLK_FEAT
#define MPATH_ADMIN_FEATURES	(BLK_FEAT_ROTATIONAL | BLK_FEAT_STABLE_WRITES | \
				 BLK_FEAT_IO_STAT | BLK_FEAT_ADD_RANDOM)
#else
#define MPATH_ADMIN_FEATURES	(BLK_FEAT_ROTATIONAL | BLK_FEAT_STABLE_WRITES | \
				 BLK_FEAT_IO_STAT)
#endif

/* The features of MPATH_ADMIN_FEATURES @q has now. */
static inline blk_features_t mpath_queue_admin_features(struct request_queue *q)
{
#ifdef MPATH_HAVE_BLK_FEAT
	return q->limits.features & MPATH_ADMIN_FEATURES;
#else
	blk_features_t f = 0;

	if (!blk_queue_nonrot(q))
		f |= BLK_FEAT_ROTATIONAL;
	if (test_bit(QUEUE_FLAG_STABLE_WRITES, &q->queue_flags))
		f |= BLK_FEAT_STABLE_WRITES;
	if (blk_queue_io_stat(q))
		f |= BLK_FEAT_IO_STAT;
	return f;
#endif
}

/*
 * Keep in @lim, about to be committed to @q, the limits the administrator
 * set: @cur, @q's limits now, holds them, or (before 6.9 and 6.11) what
 * differs from @a's last committed values.
 */
static inline void mpath_limits_keep_user(struct queue_limits *lim,
					  const struct queue_limits *cur,
					  struct request_queue *q,
					  struct mpath_queue_admin *a)
{
#ifdef MPATH_HAVE_LIMITS_COMMIT
	lim->max_user_sectors = cur->max_user_sectors;
#else
	if (cur->max_sectors != a->committed_max_sectors)
		a->max_sectors = cur->max_sectors;
	if (a->max_sectors)
		lim->max_sectors = min3(a->max_sectors, lim->max_hw_sectors,
					lim->max_dev_sectors ?: UINT_MAX);
#endif
#ifdef MPATH_HAVE_BLK_FEAT
	lim->max_user_discard_sectors = cur->max_user_discard_sectors;
	lim->flags |= cur->flags & BLK_FLAG_WRITE_CACHE_DISABLED;
#else
	if (cur->max_discard_sectors != a->committed_max_discard) {
		a->discard_set = true;
		a->max_discard = cur->max_discard_sectors;
	}
	if (a->discard_set)
		lim->max_discard_sectors = min(a->max_discard,
					       lim->max_hw_discard_sectors);
	/* "write through" clears WC; the device's cache (HW_WC) stays. */
	if (test_bit(QUEUE_FLAG_HW_WC, &q->queue_flags))
		a->wc_off = !test_bit(QUEUE_FLAG_WC, &q->queue_flags);
#endif
}

/*
 * Set @q's limits to @lim and its features (of MPATH_FEATURES) to
 * @features, the write cache off if the administrator turned it off (@a);
 * after queue_limits_start_update(), with the queue frozen.  Once
 * committed, @a remembers what was.
 */
static inline int mpath_queue_limits_commit(struct request_queue *q,
					    struct queue_limits *lim,
					    blk_features_t features,
					    struct mpath_queue_admin *a)
#ifndef MPATH_HAVE_LIMITS_COMMIT
	__releases(&q->sysfs_lock)
#endif
{
	int ret = 0;

#ifdef MPATH_HAVE_BLK_FEAT
	lim->features = (lim->features & ~MPATH_FEATURES) | features;
	ret = queue_limits_commit_update(q, lim);
#else
#ifdef MPATH_HAVE_LIMITS_COMMIT
	ret = queue_limits_commit_update(q, lim);
#else
	q->limits = *lim;
#endif
	mpath_compat_flag(q, QUEUE_FLAG_NONROT,
			  !(features & BLK_FEAT_ROTATIONAL));
	mpath_compat_flag(q, QUEUE_FLAG_STABLE_WRITES,
			  features & BLK_FEAT_STABLE_WRITES);
	mpath_compat_flag(q, QUEUE_FLAG_IO_STAT, features & BLK_FEAT_IO_STAT);
	mpath_compat_flag(q, QUEUE_FLAG_NOWAIT, features & BLK_FEAT_NOWAIT);
	/* As blk_queue_write_cache(), "write through" kept (no wbt here). */
	mpath_compat_flag(q, QUEUE_FLAG_HW_WC, features & BLK_FEAT_WRITE_CACHE);
	mpath_compat_flag(q, QUEUE_FLAG_WC, (features & BLK_FEAT_WRITE_CACHE) &&
			  !a->wc_off);
	mpath_compat_flag(q, QUEUE_FLAG_FUA, features & BLK_FEAT_FUA);
	if (!ret)
		a->committed_max_discard = q->limits.max_discard_sectors;
#endif
#ifndef MPATH_HAVE_LIMITS_COMMIT
	a->committed_max_sectors = q->limits.max_sectors;
	mutex_unlock(&q->sysfs_lock);
#endif
	if (!ret)
		a->committed = mpath_queue_admin_features(q);
	return ret;
}

/*
 * 6.9: a commit sets the disk's read-ahead from io_opt
 * (blk_apply_bdi_limits(); 6.12 raises it to twice io_opt, 128 KiB at
 * least, and never lowers it), over the administrator's read_ahead_kb:
 * hers, if she wrote one since the last commit, is put back.  Under
 * limits_lock, which the block layer names for ra_pages: the commit writes
 * it under that lock, and so do her writes on later kernels (6.12's take
 * sysfs_lock: one landing between the commit and this may give way to her
 * previous value).  Called after the commit, with the queue no longer
 * frozen by the caller: her write may take limits_lock, then freeze.
 * Before 6.9 a commit leaves it be.
 */
static inline void mpath_queue_keep_ra(struct request_queue *q,
				       struct mpath_queue_admin *a)
{
	struct backing_dev_info *bdi = q->disk->bdi;

#ifdef MPATH_HAVE_LIMITS_COMMIT
	mutex_lock(&q->limits_lock);
	if (a->ra_set)
		WRITE_ONCE(bdi->ra_pages, a->ra_pages);
	a->committed_ra = READ_ONCE(bdi->ra_pages);
	mutex_unlock(&q->limits_lock);
#else
	a->committed_ra = READ_ONCE(bdi->ra_pages);
#endif
}

/*
 * The read-ahead a 6.9+ commit gives a disk with limits @lim, that
 * blk_apply_bdi_limits() sets (6.12: raises a lower one to): one equal to
 * it is the block layer's, not the administrator's, and follows io_opt.
 */
static inline unsigned long mpath_default_ra(const struct queue_limits *lim)
{
	return max_t(unsigned long, lim->io_opt * 2 / PAGE_SIZE,
		     VM_READAHEAD_PAGES);
}

#endif /* _MPATH_SHIM_COMPAT_H */
