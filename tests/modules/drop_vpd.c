// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper: make a SCSI device forget its VPD page 0x83 (its LU
 * designator), as if the INQUIRY for it had failed when the device was
 * scanned.  A rescan of the device (echo 1 > .../device/rescan) reads it
 * again.  Test 007 uses it.
 *
 *   insmod drop_vpd.ko hctl=H:C:T:L     ...     rmmod drop_vpd
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

static char *hctl;
module_param(hctl, charp, 0444);
MODULE_PARM_DESC(hctl, "the SCSI device whose VPD page 0x83 is forgotten, H:C:T:L (required)");

static int __init drop_vpd_init(void)
{
	struct scsi_device *sdev;
	struct Scsi_Host *shost;
	unsigned int h, c, t;
	struct scsi_vpd *old;
	u64 l;

	if (!hctl || sscanf(hctl, "%u:%u:%u:%llu", &h, &c, &t, &l) != 4 ||
	    h > USHRT_MAX)	/* 6.1's scsi_host_lookup() takes an unsigned short */
		return -EINVAL;
	shost = scsi_host_lookup(h);
	if (IS_ERR_OR_NULL(shost))
		return -ENODEV;
	sdev = scsi_device_lookup(shost, c, t, l);
	scsi_host_put(shost);
	if (!sdev)
		return -ENODEV;
	/* As scsi_attach_vpd() replaces it. */
	mutex_lock(&sdev->inquiry_mutex);
	old = rcu_replace_pointer(sdev->vpd_pg83, NULL,
				  lockdep_is_held(&sdev->inquiry_mutex));
	mutex_unlock(&sdev->inquiry_mutex);
	if (old)
		kfree_rcu(old, rcu);
	sdev_printk(KERN_INFO, sdev, "drop_vpd: VPD page 0x83 forgotten\n");
	scsi_device_put(sdev);
	return 0;
}

static void __exit drop_vpd_exit(void)
{
}

module_init(drop_vpd_init);
module_exit(drop_vpd_exit);
MODULE_DESCRIPTION("mpath_shim test helper: forget a SCSI device's VPD page 0x83");
MODULE_LICENSE("GPL");
