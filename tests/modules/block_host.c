// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper: keep a SCSI host's requests from its devices from the load
 * of this module to its unload (scsi_block_requests(), as a driver does
 * while its link is down).  The I/O waits in the block layer: it never
 * reaches the device, so no SCSI command timer runs for it, and only
 * mpath_shim's watchdog can see it hang.  Test 507 uses it.
 *
 *   insmod block_host.ko host=N     ...     rmmod block_host
 */
#include <linux/limits.h>
#include <linux/module.h>
#include <scsi/scsi_host.h>

static int host = -1;
module_param(host, int, 0444);
MODULE_PARM_DESC(host, "the number of the SCSI host blocked (required; default -1: none)");

/*
 * The host (scsi_host_lookup()) and its low-level driver's module: the
 * driver cannot be unloaded while its host is blocked (the removal of its
 * disks would wait on it for ever).  run-tests unloads this module first.
 */
static struct Scsi_Host *block_shost;

static int __init block_host_init(void)
{
	if (host < 0 || host > USHRT_MAX)	/* 6.1 takes an unsigned short */
		return -EINVAL;
	block_shost = scsi_host_lookup(host);
	if (IS_ERR_OR_NULL(block_shost))
		return -ENODEV;
	if (!try_module_get(block_shost->hostt->module)) {
		scsi_host_put(block_shost);
		return -ENODEV;
	}
	scsi_block_requests(block_shost);
	shost_printk(KERN_INFO, block_shost, "block_host: requests blocked\n");
	return 0;
}

static void __exit block_host_exit(void)
{
	scsi_unblock_requests(block_shost);
	shost_printk(KERN_INFO, block_shost, "block_host: requests unblocked\n");
	module_put(block_shost->hostt->module);
	scsi_host_put(block_shost);
}

module_init(block_host_init);
module_exit(block_host_exit);
MODULE_DESCRIPTION("mpath_shim test helper: block a SCSI host's requests");
MODULE_LICENSE("GPL");
