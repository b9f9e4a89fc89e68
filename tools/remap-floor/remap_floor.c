// SPDX-License-Identifier: GPL-2.0
/*
 * remap_floor: the least a bio-based stacking driver does per I/O, for
 * scripts/bench only (its "floor" setup), never installed.
 *
 * One disk, /dev/floor0, over the one disk named by the parameter "path".
 * Each bio is split to the limits and remapped to that disk, as NVMe's
 * multipath head does (nvme_ns_head_submit_bio()): no clone, no completion
 * hook, no accounting, no path choice, no failover.  A multipath layer over
 * request-based disks cannot do less per I/O, so the floor's IOPS over the
 * bare disk's is the bound mpath_shim's can reach in the same boot.
 *
 * burn_loops and burn_calls add work per bio for calibration ("what does
 * an instruction, or a call and its return, cost here?"): that many turns
 * of an empty loop (three instructions each), and that many calls of an
 * empty function that is not inlined.  burn_irqs adds that many interrupt
 * disable/enable pairs (local_irq_save/restore, as a per-CPU cache takes),
 * burn_pages reads a byte of that many distinct pages (what a wider
 * memory footprint per I/O costs where the TLB is refilled often, as
 * QEMU's software TLB is).  All 0 by default.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/vmalloc.h>

#include <mpath_shim/compat.h>

static char *path;
module_param(path, charp, 0444);
MODULE_PARM_DESC(path, "the disk under /dev/floor0, e.g. /dev/sdb (no default: required)");

static unsigned int burn_loops;
module_param(burn_loops, uint, 0444);
MODULE_PARM_DESC(burn_loops, "turns of an empty loop per bio (default 0)");

static unsigned int burn_calls;
module_param(burn_calls, uint, 0444);
MODULE_PARM_DESC(burn_calls, "calls of an empty function per bio (default 0)");

static unsigned int burn_irqs;
module_param(burn_irqs, uint, 0444);
MODULE_PARM_DESC(burn_irqs, "interrupt disable/enable pairs per bio (default 0)");

#define FLOOR_BURN_PAGES_MAX	1024
static unsigned int burn_pages;
module_param(burn_pages, uint, 0444);
MODULE_PARM_DESC(burn_pages, "distinct pages read per bio, at most 1024 (default 0)");

static u8 *floor_burn_buf;
static struct file *floor_bdev_file;
static struct gendisk *floor_disk;

static noinline void floor_burn_call(void)
{
	barrier();
}

static void floor_burn(void)
{
	unsigned int i;

	for (i = 0; i < burn_loops; i++)
		barrier();
	for (i = 0; i < burn_calls; i++)
		floor_burn_call();
	for (i = 0; i < burn_irqs; i++) {
		unsigned long flags;

		local_irq_save(flags);
		barrier();
		local_irq_restore(flags);
	}
	for (i = 0; i < burn_pages; i++)
		(void)READ_ONCE(floor_burn_buf[(size_t)i * PAGE_SIZE]);
}

static void floor_submit_bio(struct bio *bio)
{
	bio = bio_split_to_limits(bio);
	if (!bio)
		return;
	if (burn_loops || burn_calls || burn_irqs || burn_pages)
		floor_burn();
	bio_set_dev(bio, file_bdev(floor_bdev_file));
	submit_bio_noacct(bio);
}

static const struct block_device_operations floor_fops = {
	.owner		= THIS_MODULE,
	.submit_bio	= floor_submit_bio,
};

static int __init floor_init(void)
{
	struct block_device *bdev;
	struct queue_limits lim;
	dev_t devt;
	int ret;

	if (!path || burn_pages > FLOOR_BURN_PAGES_MAX)
		return -EINVAL;
	if (burn_pages) {
		floor_burn_buf = vzalloc((size_t)burn_pages * PAGE_SIZE);
		if (!floor_burn_buf)
			return -ENOMEM;
	}
	ret = lookup_bdev(path, &devt);
	if (ret)
		goto out;
	floor_bdev_file = bdev_file_open_by_dev(devt,
						BLK_OPEN_READ | BLK_OPEN_WRITE,
						&floor_disk, NULL);
	if (IS_ERR(floor_bdev_file)) {
		ret = PTR_ERR(floor_bdev_file);
		goto out;
	}
	bdev = file_bdev(floor_bdev_file);

	blk_set_stacking_limits(&lim);
	lim.max_zone_append_sectors = 0;
	queue_limits_stack_bdev(&lim, bdev, 0, "floor0");
	floor_disk = blk_alloc_disk(&lim, NUMA_NO_NODE);
	if (IS_ERR(floor_disk)) {
		ret = PTR_ERR(floor_disk);
		goto out_bdev;
	}
	floor_disk->fops = &floor_fops;
	floor_disk->flags |= GENHD_FL_NO_PART;
	strscpy(floor_disk->disk_name, "floor0", DISK_NAME_LEN);
	set_capacity(floor_disk, bdev_nr_sectors(bdev));
	ret = add_disk(floor_disk);
	if (ret)
		goto out_disk;
	return 0;

out_disk:
	put_disk(floor_disk);
out_bdev:
	bdev_fput(floor_bdev_file);
out:
	vfree(floor_burn_buf);
	pr_err("remap_floor: %s: error %d\n", path ? path : "path= not given", ret);
	return ret;
}

static void __exit floor_exit(void)
{
	del_gendisk(floor_disk);
	put_disk(floor_disk);
	bdev_fput(floor_bdev_file);
	vfree(floor_burn_buf);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_DESCRIPTION("The bench's lower bound for a bio-based multipath layer");
MODULE_LICENSE("GPL");
