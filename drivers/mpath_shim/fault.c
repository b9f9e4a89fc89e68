// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection, for kernels built with CONFIG_FAULT_INJECTION_DEBUG_FS
 * (the test kernel; not Debian's): steps that almost never fail, made to
 * fail on demand so that their error paths are run by the tests.  Each
 * point is a directory under /sys/kernel/debug/mpath_shim/ with the
 * kernel's usual knobs (probability, times, interval, task-filter, ...;
 * Documentation/fault-injection/fault-injection.rst).  No ABI.
 *
 *   fail_path_add	the last step of adding a lunpath that can fail
 *			(its link under the HBA): the lunpath is not added
 *   fail_disk_add	device_add_disk() of a LUN's /dev/mpathN
 *   fail_limits	the commit of /dev/mpathN's new queue limits, as if
 *			the block layer refused them (-EINVAL): the queue
 *			keeps the limits it had
 *   fail_pr_answer	the answer of a REGISTER the LU carried out on one
 *			nexus, or of a PREEMPT, CLEAR or RESERVE it carried
 *			out, as if the transport lost it (a path error)
 *
 * Without that option the points are constant false (mpath_shim.h).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fault-inject.h>

#include <mpath_shim/mpath_shim.h>

static DECLARE_FAULT_ATTR(mpath_fail_path_add);
static DECLARE_FAULT_ATTR(mpath_fail_disk_add);
static DECLARE_FAULT_ATTR(mpath_fail_limits);
static DECLARE_FAULT_ATTR(mpath_fail_pr_answer);

static struct fault_attr *const mpath_faults[MPATH_FAULT_NR] = {
	[MPATH_FAULT_PATH_ADD]	= &mpath_fail_path_add,
	[MPATH_FAULT_DISK_ADD]	= &mpath_fail_disk_add,
	[MPATH_FAULT_LIMITS]	= &mpath_fail_limits,
	[MPATH_FAULT_PR_ANSWER]	= &mpath_fail_pr_answer,
};

static const char *const mpath_fault_names[MPATH_FAULT_NR] = {
	[MPATH_FAULT_PATH_ADD]	= "fail_path_add",
	[MPATH_FAULT_DISK_ADD]	= "fail_disk_add",
	[MPATH_FAULT_LIMITS]	= "fail_limits",
	[MPATH_FAULT_PR_ANSWER]	= "fail_pr_answer",
};

bool mpath_should_fail(enum mpath_fault fault)
{
	return should_fail(mpath_faults[fault], 1);
}

/* Under @root, the module's debugfs directory; a failure is only logged. */
void mpath_fault_init(struct dentry *root)
{
	struct dentry *dir;
	int i;

	for (i = 0; i < MPATH_FAULT_NR; i++) {
		dir = fault_create_debugfs_attr(mpath_fault_names[i], root,
						mpath_faults[i]);
		if (IS_ERR(dir))
			pr_warn("no %s: %ld\n", mpath_fault_names[i], PTR_ERR(dir));
	}
}
