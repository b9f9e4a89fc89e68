// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper: hold a module's unload for a while after its exit function
 * has run and before its sysfs files go (the module notifiers' GOING call,
 * which delete_module() makes between the two).  Test 528 writes the
 * parameters of mpath_shim in that window, which is otherwise a few
 * instructions long.
 *
 *   insmod hold_going.ko name=mpath_shim ms=4000
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/string.h>

static char *name = "mpath_shim";
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "the module whose unload is held (default mpath_shim)");

static unsigned int ms = 4000;
module_param(ms, uint, 0644);
MODULE_PARM_DESC(ms, "how long each unload is held, in milliseconds (default 4000)");

/* Holds begun, and whether one is on now: what a test polls. */
static unsigned int held;
module_param(held, uint, 0444);
MODULE_PARM_DESC(held, "(read-only) unloads held so far (starts at 0)");

static bool holding;
module_param(holding, bool, 0444);
MODULE_PARM_DESC(holding, "(read-only) whether an unload is held now (starts N)");

static int hold_going_notify(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	struct module *mod = data;

	if (action != MODULE_STATE_GOING || strcmp(mod->name, name))
		return NOTIFY_DONE;
	pr_info("hold_going: holding the unload of %s for %u ms\n", name, ms);
	WRITE_ONCE(holding, true);
	WRITE_ONCE(held, held + 1);
	msleep(ms);
	WRITE_ONCE(holding, false);
	pr_info("hold_going: the unload of %s goes on\n", name);
	return NOTIFY_DONE;
}

static struct notifier_block hold_going_nb = {
	.notifier_call = hold_going_notify,
};

static int __init hold_going_init(void)
{
	return register_module_notifier(&hold_going_nb);
}

static void __exit hold_going_exit(void)
{
	unregister_module_notifier(&hold_going_nb);
}

module_init(hold_going_init);
module_exit(hold_going_exit);
MODULE_DESCRIPTION("mpath_shim test helper: hold a module's unload after its exit");
MODULE_LICENSE("GPL");
