// SPDX-License-Identifier: GPL-2.0
/*
 * LUNs: one object per LU designator, named mpathN.
 *
 * N is given once per designator and kept while the module is loaded, so a
 * LUN that loses all its paths and comes back is mpathN again.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/string.h>

#include <mpath_shim/mpath_shim.h>

/* A designator seen since load, and the index it was given. */
struct mpath_lun_name {
	struct list_head	node;	/* in mpath_lun_names, under mpath_shim.lock */
	int			index;
	char			wwid[];
};

static LIST_HEAD(mpath_lun_names);	/* under mpath_shim.lock */
static int mpath_lun_next_index;	/* under mpath_shim.lock */

static int mpath_lun_index(const char *wwid)
{
	struct mpath_lun_name *name;

	lockdep_assert_held(&mpath_shim.lock);

	list_for_each_entry(name, &mpath_lun_names, node)
		if (!strcmp(name->wwid, wwid))
			return name->index;
	name = kmalloc(struct_size(name, wwid, strlen(wwid) + 1), GFP_KERNEL);
	if (!name)
		return -ENOMEM;
	strcpy(name->wwid, wwid);
	name->index = mpath_lun_next_index++;
	list_add_tail(&name->node, &mpath_lun_names);
	return name->index;
}

/* Find the LUN of @wwid or create it; count one more lunpath on it. */
struct mpath_lun *mpath_lun_join(const char *wwid)
{
	struct mpath_lun *lun;
	int ret;

	lockdep_assert_held(&mpath_shim.lock);

	list_for_each_entry(lun, &mpath_shim.luns, node) {
		if (!strcmp(lun->wwid, wwid)) {
			lun->nr_paths++;
			return lun;
		}
	}

	ret = mpath_lun_index(wwid);
	if (ret < 0)
		return ERR_PTR(ret);
	lun = kzalloc(sizeof(*lun), GFP_KERNEL);
	if (!lun)
		return ERR_PTR(-ENOMEM);
	lun->index = ret;
	INIT_LIST_HEAD(&lun->paths);
	strscpy(lun->wwid, wwid, sizeof(lun->wwid));
	lun->kobj.kset = mpath_shim.luns_kset;
	ret = kobject_init_and_add(&lun->kobj, &mpath_lun_ktype, NULL,
				   "mpath%d", lun->index);
	if (ret)
		goto out_put;
	lun->paths_kobj = kobject_create_and_add("paths", &lun->kobj);
	if (!lun->paths_kobj) {
		ret = -ENOMEM;
		goto out_del;
	}

	lun->nr_paths = 1;
	list_add_tail(&lun->node, &mpath_shim.luns);
	kobject_uevent(&lun->kobj, KOBJ_ADD);
	pr_info("mpath%d: LUN %s\n", lun->index, lun->wwid);
	return lun;

out_del:
	kobject_del(&lun->kobj);
out_put:
	kobject_put(&lun->kobj);
	return ERR_PTR(ret);
}

/* One lunpath fewer on @lun; the last one takes the LUN away. */
void mpath_lun_leave(struct mpath_lun *lun)
{
	lockdep_assert_held(&mpath_shim.lock);

	if (--lun->nr_paths)
		return;
	pr_info("mpath%d: last lunpath gone\n", lun->index);
	list_del(&lun->node);
	kobject_put(lun->paths_kobj);
	kobject_del(&lun->kobj);
	kobject_put(&lun->kobj);
}

/* Called after discovery has removed every lunpath. */
void mpath_lun_exit(void)
{
	struct mpath_lun_name *name, *next;

	mutex_lock(&mpath_shim.lock);
	WARN_ON(!list_empty(&mpath_shim.luns));
	WARN_ON(!list_empty(&mpath_shim.hbas));
	list_for_each_entry_safe(name, next, &mpath_lun_names, node) {
		list_del(&name->node);
		kfree(name);
	}
	mutex_unlock(&mpath_shim.lock);
}
