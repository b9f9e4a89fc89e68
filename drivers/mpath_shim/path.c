// SPDX-License-Identifier: GPL-2.0
/*
 * Lunpaths: one object per scsi_device through which a LUN is reached.
 */

#include <linux/slab.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

#include <mpath_shim/mpath_shim.h>

static struct mpath_path *mpath_path_find(struct scsi_device *sdev)
{
	struct mpath_lun *lun;
	struct mpath_path *path;

	lockdep_assert_held(&mpath_shim.lock);

	list_for_each_entry(lun, &mpath_shim.luns, node)
		list_for_each_entry(path, &lun->paths, lun_node)
			if (path->sdev == sdev)
				return path;
	return NULL;
}

int mpath_path_add(struct scsi_device *sdev, const char *wwid)
{
	struct mpath_path *path;
	struct mpath_lun *lun;
	struct mpath_hba *hba;
	int ret;

	path = kzalloc(sizeof(*path), GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	kobject_init(&path->kobj, &mpath_path_ktype);
	INIT_LIST_HEAD(&path->lun_node);
	get_device(&sdev->sdev_gendev);
	path->sdev = sdev;
	path->state = MPATH_PATH_ACTIVE;
	snprintf(path->hctl, sizeof(path->hctl), "%u:%u:%u:%llu",
		 sdev->host->host_no, sdev->channel, sdev->id, sdev->lun);

	mutex_lock(&mpath_shim.lock);
	hba = mpath_hba_join(sdev->host);
	if (IS_ERR(hba)) {
		ret = PTR_ERR(hba);
		goto out_unlock;
	}
	path->hba = hba;
	kobject_get(&hba->kobj);
	lun = mpath_lun_join(wwid);
	if (IS_ERR(lun)) {
		ret = PTR_ERR(lun);
		goto out_hba;
	}
	path->lun = lun;
	kobject_get(&lun->kobj);

	ret = kobject_add(&path->kobj, lun->paths_kobj, "%s", path->hctl);
	if (ret)
		goto out_lun;
	ret = sysfs_create_link(&path->kobj, &hba->kobj, "hba");
	if (ret)
		goto out_del;
	ret = sysfs_create_link(&path->kobj, &sdev->sdev_gendev.kobj, "device");
	if (ret)
		goto out_del;
	ret = sysfs_create_link(hba->paths_kobj, &path->kobj, path->hctl);
	if (ret)
		goto out_del;
	list_add_tail(&path->lun_node, &lun->paths);
	mutex_unlock(&mpath_shim.lock);

	kobject_uevent(&path->kobj, KOBJ_ADD);
	sdev_printk(KERN_INFO, sdev, "mpath_shim: lunpath of mpath%d\n",
		    lun->index);
	return 0;

out_del:
	/* Removing a link that was never made is harmless. */
	sysfs_remove_link(&path->kobj, "hba");
	sysfs_remove_link(&path->kobj, "device");
	kobject_del(&path->kobj);
out_lun:
	mpath_lun_leave(lun);
out_hba:
	mpath_hba_leave(hba);
out_unlock:
	mutex_unlock(&mpath_shim.lock);
	kobject_put(&path->kobj);
	return ret;
}

void mpath_path_remove(struct scsi_device *sdev)
{
	struct mpath_path *path;

	mutex_lock(&mpath_shim.lock);
	path = mpath_path_find(sdev);
	if (!path) {
		mutex_unlock(&mpath_shim.lock);
		return;
	}
	WRITE_ONCE(path->state, MPATH_PATH_REMOVING);
	list_del_init(&path->lun_node);
	sysfs_remove_link(path->hba->paths_kobj, path->hctl);
	kobject_del(&path->kobj);
	sdev_printk(KERN_INFO, sdev, "mpath_shim: lunpath of mpath%d removed\n",
		    path->lun->index);
	mpath_lun_leave(path->lun);
	mpath_hba_leave(path->hba);
	mutex_unlock(&mpath_shim.lock);

	kobject_put(&path->kobj);
}
