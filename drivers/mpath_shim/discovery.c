// SPDX-License-Identifier: GPL-2.0
/*
 * Discovery: a SCSI class interface sees every scsi_device as it is added
 * and removed (and all present ones when it is registered or unregistered).
 * A disk with a VPD page 0x83 LU designator becomes a lunpath.
 */

#include <linux/device.h>
#include <scsi/scsi.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_driver.h>

#include <mpath_shim/compat.h>
#include <mpath_shim/mpath_shim.h>

static struct scsi_device *mpath_class_dev_to_sdev(struct device *dev)
{
	/* The class device (sdev_dev) is a child of the bus device. */
	return to_scsi_device(dev->parent);
}

/* Returns NULL when @sdev can be multipathed, else why it cannot. */
static const char *mpath_designator(struct scsi_device *sdev, char *wwid)
{
	int len;

	if (sdev->type != TYPE_DISK)
		return "not a disk";
	len = scsi_vpd_lun_id(sdev, wwid, MPATH_WWID_LEN);
	if (len < 0)
		return "no VPD page 0x83 LU designator";
	if (len >= MPATH_WWID_LEN)
		return "LU designator too long";
	return NULL;
}

/* sd binding to and unbinding from a lunpath's device. */
static int mpath_bus_notify(struct notifier_block *nb, unsigned long action,
			    void *data)
{
	struct device *dev = data;

	if (!scsi_is_sdev_device(dev) || !dev->driver ||
	    strcmp(dev->driver->name, "sd"))
		return NOTIFY_DONE;
	if (action == BUS_NOTIFY_BOUND_DRIVER)
		mpath_path_bound(to_scsi_device(dev));
	else if (action == BUS_NOTIFY_UNBIND_DRIVER)
		mpath_path_unbound(to_scsi_device(dev));
	return NOTIFY_DONE;
}

static struct notifier_block mpath_bus_nb = {
	.notifier_call = mpath_bus_notify,
};

/*
 * scsi_bus_type is not exported: the bus is that of the first device the
 * interface reports.  Interface callbacks are serialised by the SCSI class
 * mutex, which protects this.
 */
static typeof_member(struct device, bus) mpath_scsi_bus;

static void mpath_watch_bus(struct scsi_device *sdev)
{
	if (mpath_scsi_bus)
		return;
	if (!bus_register_notifier(sdev->sdev_gendev.bus, &mpath_bus_nb))
		mpath_scsi_bus = sdev->sdev_gendev.bus;
}

static int mpath_add_dev(struct device *dev)
{
	struct scsi_device *sdev = mpath_class_dev_to_sdev(dev);
	const char *reason;
	char *wwid;
	int ret;

	mpath_watch_bus(sdev);
	wwid = kzalloc(MPATH_WWID_LEN, GFP_KERNEL);
	if (!wwid)
		return -ENOMEM;
	reason = mpath_designator(sdev, wwid);
	if (reason) {
		sdev_printk(KERN_INFO, sdev, "mpath_shim: not multipathed: %s\n",
			    reason);
		ret = 0;
		goto out;
	}
	ret = mpath_path_add(sdev, wwid);
	if (ret)
		sdev_printk(KERN_WARNING, sdev,
			    "mpath_shim: cannot add lunpath: %d\n", ret);
out:
	kfree(wwid);
	/* A device we cannot use must not fail the SCSI scan. */
	return 0;
}

static void mpath_remove_dev(struct device *dev)
{
	mpath_path_remove(mpath_class_dev_to_sdev(dev));
}

MPATH_DEFINE_CLASS_INTF(mpath_add_dev, mpath_remove_dev)

static struct class_interface mpath_interface = {
	.add_dev	= MPATH_CLASS_INTF_ADD(mpath_add_dev),
	.remove_dev	= MPATH_CLASS_INTF_REMOVE(mpath_remove_dev),
};

int mpath_discovery_init(void)
{
	return scsi_register_interface(&mpath_interface);
}

void mpath_discovery_exit(void)
{
	scsi_unregister_interface(&mpath_interface);
	if (mpath_scsi_bus)
		bus_unregister_notifier(mpath_scsi_bus, &mpath_bus_nb);
	mpath_scsi_bus = NULL;
}
