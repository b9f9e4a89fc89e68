// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper: hold a SCSI device's driver unbind for a while, after the
 * bus notifiers that run before this one (mpath_shim's) and before the
 * driver's remove (sd_remove(): the disk is still live).  Test 526 opens
 * the window between mpath_shim hearing of the unbind and sd deleting the
 * disk, which is otherwise microseconds long.
 *
 *   insmod hold_unbind.ko hctl=H:C:T:L ms=4000
 */
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/module.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

static char *hctl;
module_param(hctl, charp, 0444);
MODULE_PARM_DESC(hctl, "the SCSI device whose unbind is held, H:C:T:L (required)");

static unsigned int ms = 4000;
module_param(ms, uint, 0644);
MODULE_PARM_DESC(ms, "how long each unbind is held, in milliseconds (default 4000)");

/* Holds begun, and whether one is on now: what a test polls. */
static unsigned int held;
module_param(held, uint, 0444);
MODULE_PARM_DESC(held, "(read-only) unbinds held so far (starts at 0)");

static bool holding;
module_param(holding, bool, 0444);
MODULE_PARM_DESC(holding, "(read-only) whether an unbind is held now (starts N)");

/*
 * Held with its low-level driver (scsi_device_get()): the device's release
 * runs in that module.  run-tests unloads this module first.
 */
static struct scsi_device *hold_sdev;

static int hold_unbind_notify(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	if (data != &hold_sdev->sdev_gendev ||
	    action != BUS_NOTIFY_UNBIND_DRIVER)
		return NOTIFY_DONE;
	sdev_printk(KERN_INFO, hold_sdev, "hold_unbind: holding the unbind for %u ms\n",
		    ms);
	WRITE_ONCE(holding, true);
	WRITE_ONCE(held, held + 1);
	msleep(ms);
	WRITE_ONCE(holding, false);
	sdev_printk(KERN_INFO, hold_sdev, "hold_unbind: unbind goes on\n");
	return NOTIFY_DONE;
}

/* After the notifiers of priority 0 (mpath_shim's). */
static struct notifier_block hold_unbind_nb = {
	.notifier_call = hold_unbind_notify,
	.priority = -1,
};

static int __init hold_unbind_init(void)
{
	unsigned int host, channel, id;
	struct Scsi_Host *shost;
	unsigned long long lun;
	int ret;

	if (!hctl || sscanf(hctl, "%u:%u:%u:%llu", &host, &channel, &id,
			    &lun) != 4)
		return -EINVAL;
	shost = scsi_host_lookup(host);
	if (IS_ERR_OR_NULL(shost))
		return -ENODEV;
	hold_sdev = scsi_device_lookup(shost, channel, id, lun);
	scsi_host_put(shost);
	if (!hold_sdev)
		return -ENODEV;
	ret = bus_register_notifier(hold_sdev->sdev_gendev.bus, &hold_unbind_nb);
	if (ret)
		goto out_put;
	return 0;

out_put:
	scsi_device_put(hold_sdev);
	return ret;
}

static void __exit hold_unbind_exit(void)
{
	bus_unregister_notifier(hold_sdev->sdev_gendev.bus, &hold_unbind_nb);
	scsi_device_put(hold_sdev);
}

module_init(hold_unbind_init);
module_exit(hold_unbind_exit);
MODULE_DESCRIPTION("mpath_shim test helper: hold a SCSI device's unbind");
MODULE_LICENSE("GPL");
