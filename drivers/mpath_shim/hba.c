// SPDX-License-Identifier: GPL-2.0
/*
 * HBAs: one object per Scsi_Host that carries at least one lunpath.
 */

#include <linux/slab.h>
#include <linux/string.h>
#include <scsi/scsi_host.h>

#include <mpath_shim/mpath_shim.h>

/* Find the HBA of @shost or create it; count one more lunpath on it. */
struct mpath_hba *mpath_hba_join(struct Scsi_Host *shost)
{
	struct mpath_hba *hba;
	int ret;

	lockdep_assert_held(&mpath_shim.lock);

	list_for_each_entry(hba, &mpath_shim.hbas, node) {
		if (hba->shost == shost) {
			hba->nr_paths++;
			return hba;
		}
	}

	hba = kzalloc(sizeof(*hba), GFP_KERNEL);
	if (!hba)
		return ERR_PTR(-ENOMEM);
	get_device(&shost->shost_gendev);
	hba->shost = shost;
	hba->host_no = shost->host_no;
	hba->numa_node = dev_to_node(shost->dma_dev ?: shost->shost_gendev.parent);
	strscpy(hba->proc_name, shost->hostt->proc_name ?: "",
		sizeof(hba->proc_name));
	hba->kobj.kset = mpath_shim.hbas_kset;
	ret = kobject_init_and_add(&hba->kobj, &mpath_hba_ktype, NULL,
				   "host%u", shost->host_no);
	if (ret)
		goto out_put;
	hba->paths_kobj = kobject_create_and_add("paths", &hba->kobj);
	if (!hba->paths_kobj) {
		ret = -ENOMEM;
		goto out_del;
	}
	ret = sysfs_create_link(&hba->kobj, &shost->shost_gendev.kobj,
				"device");
	if (ret)
		goto out_paths;

	hba->nr_paths = 1;
	list_add_tail(&hba->node, &mpath_shim.hbas);
	kobject_uevent(&hba->kobj, KOBJ_ADD);
	return hba;

out_paths:
	kobject_put(hba->paths_kobj);
out_del:
	kobject_del(&hba->kobj);
out_put:
	kobject_put(&hba->kobj);
	return ERR_PTR(ret);
}

/* One lunpath fewer on @hba; the last one takes the HBA away. */
void mpath_hba_leave(struct mpath_hba *hba)
{
	lockdep_assert_held(&mpath_shim.lock);

	if (--hba->nr_paths)
		return;
	list_del(&hba->node);
	sysfs_remove_link(&hba->kobj, "device");
	kobject_put(hba->paths_kobj);
	kobject_del(&hba->kobj);
	kobject_put(&hba->kobj);
}
