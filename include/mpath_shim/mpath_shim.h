/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mpath_shim: native multipathing for SCSI LUNs.
 *
 * Objects shared by the files of drivers/mpath_shim/.  See core.c for the
 * design: objects, lifetimes and locking.
 */
#ifndef _MPATH_SHIM_H
#define _MPATH_SHIM_H

#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

struct scsi_device;
struct Scsi_Host;

/* Longest LU designator string we keep ("naa." + 64 hex digits is 68). */
#define MPATH_WWID_LEN		256
/* "4294967295:4294967295:4294967295:18446744073709551615" fits. */
#define MPATH_HCTL_LEN		64

enum mpath_path_state {
	MPATH_PATH_ACTIVE,	/* usable for I/O */
	MPATH_PATH_STANDBY,	/* usable only when no active path is */
	MPATH_PATH_FAILED,	/* I/O failed on it; the prober brings it back */
	MPATH_PATH_DISABLED,	/* taken out by the administrator */
	MPATH_PATH_REMOVING,	/* its SCSI device is going away */
};

const char *mpath_path_state_name(enum mpath_path_state state);

/**
 * struct mpath_hba - a SCSI host that carries at least one lunpath
 * @kobj:	/sys/kernel/mpath_shim/hbas/hostN; the HBA lives as long as it
 * @paths_kobj:	hostN/paths/, one symlink per lunpath
 * @node:	entry in mpath_shim.hbas, under mpath_shim.lock
 * @shost:	the host; a reference on its device is held
 * @host_no:	SCSI host number
 * @nr_paths:	lunpaths on this HBA, under mpath_shim.lock
 * @proc_name:	name of the low-level driver, copied at discovery
 */
struct mpath_hba {
	struct kobject		kobj;
	struct kobject		*paths_kobj;
	struct list_head	node;
	struct Scsi_Host	*shost;
	unsigned int		host_no;
	unsigned int		nr_paths;
	char			proc_name[32];
};

/**
 * struct mpath_lun - one logical unit, reached through one or more lunpaths
 * @kobj:	/sys/kernel/mpath_shim/luns/mpathN
 * @paths_kobj:	mpathN/paths/, parent of the lunpaths' kobjects
 * @node:	entry in mpath_shim.luns, under mpath_shim.lock
 * @paths:	its lunpaths (mpath_path.lun_node), under mpath_shim.lock
 * @nr_paths:	length of @paths, under mpath_shim.lock
 * @index:	N of mpathN, unique while the module is loaded
 * @wwid:	the VPD page 0x83 LU designator, as scsi_vpd_lun_id() formats it
 */
struct mpath_lun {
	struct kobject		kobj;
	struct kobject		*paths_kobj;
	struct list_head	node;
	struct list_head	paths;
	unsigned int		nr_paths;
	int			index;
	char			wwid[MPATH_WWID_LEN];
};

/**
 * struct mpath_path - a lunpath: one scsi_device through which a LUN is reached
 * @kobj:	/sys/kernel/mpath_shim/luns/mpathN/paths/H:C:T:L
 * @lun_node:	entry in @lun->paths, under mpath_shim.lock
 * @lun:	the LUN; the path holds a reference on its kobject
 * @hba:	the HBA; the path holds a reference on its kobject
 * @sdev:	the SCSI device; a reference on its device is held
 * @state:	enum mpath_path_state, written under mpath_shim.lock,
 *		read locklessly (READ_ONCE) by sysfs
 * @hctl:	"H:C:T:L", the name of @kobj
 */
struct mpath_path {
	struct kobject		kobj;
	struct list_head	lun_node;
	struct mpath_lun	*lun;
	struct mpath_hba	*hba;
	struct scsi_device	*sdev;
	int			state;
	char			hctl[MPATH_HCTL_LEN];
};

/**
 * struct mpath_shim - the module's global state
 * @lock:	the topology lock: LUN, lunpath and HBA lists and membership
 * @luns:	all LUNs (mpath_lun.node)
 * @hbas:	all HBAs (mpath_hba.node)
 * @root:	/sys/kernel/mpath_shim
 * @luns_kset:	/sys/kernel/mpath_shim/luns
 * @hbas_kset:	/sys/kernel/mpath_shim/hbas
 */
struct mpath_shim {
	struct mutex		lock;
	struct list_head	luns;
	struct list_head	hbas;
	struct kobject		*root;
	struct kset		*luns_kset;
	struct kset		*hbas_kset;
};

extern struct mpath_shim mpath_shim;

/* discovery.c */
int mpath_discovery_init(void);
void mpath_discovery_exit(void);

/* hba.c: membership counted in nr_paths, both under mpath_shim.lock */
struct mpath_hba *mpath_hba_join(struct Scsi_Host *shost);
void mpath_hba_leave(struct mpath_hba *hba);

/* lun.c: membership counted in nr_paths, both under mpath_shim.lock */
struct mpath_lun *mpath_lun_join(const char *wwid);
void mpath_lun_leave(struct mpath_lun *lun);
void mpath_lun_exit(void);

/* path.c */
int mpath_path_add(struct scsi_device *sdev, const char *wwid);
void mpath_path_remove(struct scsi_device *sdev);

/* sysfs.c */
extern const struct kobj_type mpath_hba_ktype;
extern const struct kobj_type mpath_lun_ktype;
extern const struct kobj_type mpath_path_ktype;
int mpath_sysfs_init(void);
void mpath_sysfs_exit(void);

#endif /* _MPATH_SHIM_H */
