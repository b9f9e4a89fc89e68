// SPDX-License-Identifier: GPL-2.0
/*
 * The policy registry, and helpers shared by policies.
 */

#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include <mpath_shim/mpath_shim.h>

static LIST_HEAD(mpath_policies);		/* under mpath_policies_lock */
static DEFINE_MUTEX(mpath_policies_lock);

int mpath_policy_register(struct mpath_policy *policy)
{
	int ret = 0;

	mutex_lock(&mpath_policies_lock);
	if (mpath_policy_find(policy->name))
		ret = -EEXIST;
	else
		list_add_tail(&policy->list, &mpath_policies);
	mutex_unlock(&mpath_policies_lock);
	return ret;
}

void mpath_policy_unregister(struct mpath_policy *policy)
{
	mutex_lock(&mpath_policies_lock);
	list_del(&policy->list);
	mutex_unlock(&mpath_policies_lock);
}

/* Policies are built in and registered for the module's lifetime. */
const struct mpath_policy *mpath_policy_find(const char *name)
{
	struct mpath_policy *policy;

	list_for_each_entry(policy, &mpath_policies, list)
		if (sysfs_streq(policy->name, name))
			return policy;
	return NULL;
}

/* "[current] other other\n", as the kernel shows schedulers. */
ssize_t mpath_policy_show_all(const struct mpath_policy *current_policy,
			      char *buf)
{
	struct mpath_policy *policy;
	ssize_t len = 0;

	list_for_each_entry(policy, &mpath_policies, list)
		len += sysfs_emit_at(buf, len, policy == current_policy ?
				     "[%s] " : "%s ", policy->name);
	if (len)
		len--;
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

static struct mpath_policy *mpath_builtin_policies[] = {
	&mpath_ps_round_robin,
	&mpath_ps_least_cmd_load,
	&mpath_ps_cell_local_rr,
	&mpath_ps_path_lockdown,
	&mpath_ps_preferred_path,
	&mpath_ps_weighted_rr,
	&mpath_ps_service_time,
};

int mpath_policies_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(mpath_builtin_policies); i++) {
		ret = mpath_policy_register(mpath_builtin_policies[i]);
		if (ret)
			goto out_unregister;
	}
	return 0;

out_unregister:
	while (--i >= 0)
		mpath_policy_unregister(mpath_builtin_policies[i]);
	return ret;
}

void mpath_policies_exit(void)
{
	int i;

	for (i = ARRAY_SIZE(mpath_builtin_policies) - 1; i >= 0; i--)
		mpath_policy_unregister(mpath_builtin_policies[i]);
}
