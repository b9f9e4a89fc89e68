// SPDX-License-Identifier: GPL-2.0
/*
 * Discovery: a SCSI class interface sees every scsi_device as it is added
 * and removed (and all present ones when it is registered or unregistered).
 * A disk with a VPD page 0x83 LU designator is a candidate; it becomes a
 * lunpath when the claim rules take its LU (claim.c), or when the
 * administrator claims it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <scsi/scsi.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_driver.h>
#include <scsi/scsi_host.h>

#include <mpath_shim/claim.h>
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

/* sd binding to, unbinding from and having unbound from a lunpath's device. */
static int mpath_bus_notify(struct notifier_block *nb, unsigned long action,
			    void *data)
{
	struct device *dev = data;

	if (!scsi_is_sdev_device(dev))
		return NOTIFY_DONE;
	/* The driver is gone: only a path sd was unbinding from is DETACHING. */
	if (action == BUS_NOTIFY_UNBOUND_DRIVER) {
		mpath_path_unbound(to_scsi_device(dev));
		return NOTIFY_DONE;
	}
	if (!dev->driver || strcmp(dev->driver->name, "sd"))
		return NOTIFY_DONE;
	if (action == BUS_NOTIFY_BOUND_DRIVER)
		mpath_path_bound(to_scsi_device(dev));
	else if (action == BUS_NOTIFY_UNBIND_DRIVER)
		mpath_path_unbind(to_scsi_device(dev));
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

/*
 * Candidates: every disk with a LU designator, a lunpath or not.  The claim
 * rules (claim.c) decide per LU; once a LU is claimed, each path of it that
 * appears joins it.  A rule change claims what it now allows; it never takes
 * a LUN away: a release does that.
 */

/**
 * struct mpath_cand - a disk that is, or may become, a lunpath
 * @node:	entry in mpath_cands
 * @sdev:	its device: valid while on the list (mpath_remove_dev() takes
 *		it off, under mpath_claim_lock)
 * @wwid:	its LU designator
 * @hctl:	H:C:T:L
 * @vendor:	INQUIRY vendor
 * @product:	INQUIRY product
 * @tpgs:	it reports TPGS
 * @claimed:	it is a lunpath
 * @rescan:	it reaches another LU now and is rescanned before it may
 *		join that LU (mpath_rehome())
 * @verdict:	the last verdict on its LU; -1 before the first
 *
 * All fields under mpath_claim_lock.
 */
struct mpath_cand {
	struct list_head	node;
	struct scsi_device	*sdev;
	char			wwid[MPATH_WWID_LEN];
	char			hctl[MPATH_HCTL_LEN];
	char			vendor[9];
	char			product[17];
	bool			tpgs;
	bool			claimed;
	bool			rescan;
	int			verdict;
};

/**
 * struct mpath_mark - what the administrator said of one LU, kept while
 * the module is loaded: its paths may all go and come back
 * @node:	entry in mpath_marks
 * @admin:	claimed by hand
 * @released:	released, and not claimed since
 * @wwid:	its LU designator
 *
 * All fields under mpath_claim_lock.
 */
struct mpath_mark {
	struct list_head	node;
	bool			admin;
	bool			released;
	char			wwid[];
};

/**
 * struct mpath_unid - a disk whose LU designator the kernel did not have
 * when the disk was added: its VPD page 0x83 was not read at scan (the LU
 * not ready, a busy port, an INQUIRY that timed out).  The kernel reads it
 * again when the device is rescanned (echo 1 > .../device/rescan), and
 * tells nobody: the designator is looked at again, without a command, at
 * each tick of mpath_ident_work (every path_probe_interval seconds while
 * there is such a disk) and at a claim of its H:C:T:L.  Once it is there
 * the disk is a candidate like any other.
 * @node:	entry in mpath_unids
 * @sdev:	its device: valid while on the list (mpath_remove_dev() takes
 *		it off, under mpath_claim_lock)
 *
 * All fields under mpath_claim_lock.
 */
struct mpath_unid {
	struct list_head	node;
	struct scsi_device	*sdev;
};

/* Ordered before mpath_shim.lock; the SCSI class mutex before it. */
static DEFINE_MUTEX(mpath_claim_lock);
static LIST_HEAD(mpath_cands);			/* under mpath_claim_lock */
static LIST_HEAD(mpath_unids);			/* under mpath_claim_lock */
static LIST_HEAD(mpath_marks);			/* under mpath_claim_lock */
static struct mpath_claim_rule mpath_claim_rules[MPATH_CLAIM_RULES_MAX];
static struct mpath_claim_config mpath_claim_cfg = {	/* mpath_claim_lock */
	.rules		= mpath_claim_rules,
	.min_paths	= 2,
	.tpgs		= true,
};

static struct mpath_cand *mpath_cand_of(const struct scsi_device *sdev)
{
	struct mpath_cand *c;

	lockdep_assert_held(&mpath_claim_lock);

	list_for_each_entry(c, &mpath_cands, node)
		if (c->sdev == sdev)
			return c;
	return NULL;
}

static struct mpath_cand *mpath_cand_at(const char *hctl)
{
	struct mpath_cand *c;

	lockdep_assert_held(&mpath_claim_lock);

	list_for_each_entry(c, &mpath_cands, node)
		if (!strcmp(c->hctl, hctl))
			return c;
	return NULL;
}

static void mpath_sdev_hctl(const struct scsi_device *sdev,
			    char buf[MPATH_HCTL_LEN])
{
	snprintf(buf, MPATH_HCTL_LEN, "%u:%u:%u:%llu", sdev->host->host_no,
		 sdev->channel, sdev->id, sdev->lun);
}

static struct mpath_unid *mpath_unid_of(const struct scsi_device *sdev)
{
	struct mpath_unid *u;

	lockdep_assert_held(&mpath_claim_lock);

	list_for_each_entry(u, &mpath_unids, node)
		if (u->sdev == sdev)
			return u;
	return NULL;
}

static struct mpath_unid *mpath_unid_at(const char *hctl)
{
	char buf[MPATH_HCTL_LEN];
	struct mpath_unid *u;

	lockdep_assert_held(&mpath_claim_lock);

	list_for_each_entry(u, &mpath_unids, node) {
		mpath_sdev_hctl(u->sdev, buf);
		if (!strcmp(buf, hctl))
			return u;
	}
	return NULL;
}

static struct mpath_mark *mpath_mark_find(const char *wwid)
{
	struct mpath_mark *m;

	lockdep_assert_held(&mpath_claim_lock);

	list_for_each_entry(m, &mpath_marks, node)
		if (!strcmp(m->wwid, wwid))
			return m;
	return NULL;
}

/* The mark of @wwid, made if there is none; NULL without memory. */
static struct mpath_mark *mpath_mark_get(const char *wwid)
{
	struct mpath_mark *m = mpath_mark_find(wwid);
	size_t len = strlen(wwid) + 1;

	if (m)
		return m;
	m = kzalloc(struct_size(m, wwid, len), GFP_KERNEL);
	if (!m)
		return NULL;
	memcpy(m->wwid, wwid, len);
	list_add_tail(&m->node, &mpath_marks);
	return m;
}

/* Is a candidate of @wwid a lunpath? */
static bool mpath_claim_any(const char *wwid)
{
	struct mpath_cand *c;

	lockdep_assert_held(&mpath_claim_lock);

	list_for_each_entry(c, &mpath_cands, node)
		if (c->claimed && !strcmp(c->wwid, wwid))
			return true;
	return false;
}

/*
 * The verdict on the LU of @wwid from what its candidates and its mark say;
 * @claimed: it is multipathed now (a lunpath, or a LUN waiting for one).
 */
static enum mpath_claim_verdict mpath_claim_verdict(const char *wwid,
						    bool *claimed)
{
	struct mpath_claim_lu lu = { .wwid = wwid };
	struct mpath_cand *c;

	lockdep_assert_held(&mpath_claim_lock);

	struct mpath_mark *m = mpath_mark_find(wwid);

	lu.admin = m && m->admin;
	lu.released = m && m->released;
	*claimed = false;
	list_for_each_entry(c, &mpath_cands, node) {
		if (strcmp(c->wwid, wwid))
			continue;
		if (!lu.nr_paths++) {
			lu.vendor = c->vendor;
			lu.product = c->product;
		}
		lu.tpgs |= c->tpgs;
		*claimed |= c->claimed;
	}
	if (!lu.nr_paths)
		return MPATH_CLAIM_FEW_PATHS;
	/* All its paths went and one is back: it rejoins its LUN. */
	*claimed = *claimed || mpath_lun_present(wwid);
	return mpath_claim_decide(&lu, &mpath_claim_cfg);
}

/*
 * Make lunpaths of the candidates of @wwid if their LU is claimed (or is
 * already: a new path joins it), else say once why not.
 */
static void mpath_claim_eval(const char *wwid)
{
	enum mpath_claim_verdict verdict;
	struct mpath_cand *c;
	bool claim, claimed;
	int ret;

	lockdep_assert_held(&mpath_claim_lock);

	verdict = mpath_claim_verdict(wwid, &claimed);
	claim = mpath_claim_yes(verdict) ||
		(claimed && verdict != MPATH_CLAIM_RELEASED);
	list_for_each_entry(c, &mpath_cands, node) {
		if (strcmp(c->wwid, wwid) || c->claimed || c->rescan)
			continue;
		if (!claim) {
			if (c->verdict != verdict)
				sdev_printk(KERN_INFO, c->sdev,
					    "mpath_shim: not multipathed: %s\n",
					    mpath_claim_verdict_name(verdict));
			c->verdict = verdict;
			continue;
		}
		c->verdict = verdict;
		ret = mpath_path_add(c->sdev, c->wwid);
		if (ret)
			sdev_printk(KERN_WARNING, c->sdev,
				    "mpath_shim: cannot add lunpath: %d\n", ret);
		else
			c->claimed = true;
	}
}

/* Evaluate every LU that has an unclaimed candidate (the rules changed). */
static void mpath_claim_eval_all(void)
{
	struct mpath_cand *c;

	lockdep_assert_held(&mpath_claim_lock);

	/* mpath_claim_eval() never takes a candidate off the list. */
	list_for_each_entry(c, &mpath_cands, node)
		if (!c->claimed)
			mpath_claim_eval(c->wwid);
}

/* @c, whose designator mpath_designator() read, is a candidate now. */
static void mpath_cand_add(struct mpath_cand *c, struct scsi_device *sdev)
{
	lockdep_assert_held(&mpath_claim_lock);

	c->sdev = sdev;
	c->tpgs = scsi_device_tpgs(sdev);
	c->verdict = -1;
	mpath_sdev_hctl(sdev, c->hctl);
	memcpy(c->vendor, sdev->vendor, 8);
	memcpy(c->product, sdev->model, 16);
	list_add_tail(&c->node, &mpath_cands);
	mpath_claim_eval(c->wwid);
}

static void mpath_ident_tick(struct work_struct *work);
static DECLARE_DELAYED_WORK(mpath_ident_work, mpath_ident_tick);

/*
 * Is the designator of @u's disk there now?  If so the disk is a candidate
 * (and @u is freed): returns true.  No command is sent.
 */
static bool mpath_ident_retry(struct mpath_unid *u)
{
	char wwid[MPATH_WWID_LEN];
	struct mpath_cand *c;

	lockdep_assert_held(&mpath_claim_lock);

	if (!rcu_access_pointer(u->sdev->vpd_pg83) ||
	    mpath_designator(u->sdev, wwid))
		return false;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return false;
	memcpy(c->wwid, wwid, sizeof(wwid));
	sdev_printk(KERN_INFO, u->sdev,
		    "mpath_shim: LU designator %s read since the disk was added: a candidate\n",
		    c->wwid);
	list_del(&u->node);
	mpath_cand_add(c, u->sdev);
	kfree(u);
	return true;
}

static void mpath_ident_arm(unsigned long delay)
{
	lockdep_assert_held(&mpath_claim_lock);

	if (!list_empty(&mpath_unids))
		mod_delayed_work(system_long_wq, &mpath_ident_work, delay);
}

static void mpath_ident_tick(struct work_struct *work)
{
	struct mpath_unid *u, *next;

	mutex_lock(&mpath_claim_lock);
	list_for_each_entry_safe(u, next, &mpath_unids, node)
		mpath_ident_retry(u);
	mpath_ident_arm(READ_ONCE(mpath_path_probe_interval) * HZ);
	mutex_unlock(&mpath_claim_lock);
}

/*
 * path_probe_interval was shortened: look at the unidentified disks now.
 * Not under mpath_claim_lock, which may be held long (a removal waiting
 * for an attach): the caller holds the module's parameter lock.  A tick
 * that finds no such disk does nothing and is not armed again.
 */
void mpath_discovery_probe_now(void)
{
	mod_delayed_work(system_long_wq, &mpath_ident_work, 0);
}

static int mpath_add_dev(struct device *dev)
{
	struct scsi_device *sdev = mpath_class_dev_to_sdev(dev);
	struct mpath_unid *u = NULL;
	const char *reason;
	struct mpath_cand *c;

	mpath_watch_bus(sdev);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c) {
		sdev_printk(KERN_WARNING, sdev,
			    "mpath_shim: not multipathed: out of memory\n");
		return 0;
	}
	reason = mpath_designator(sdev, c->wwid);
	if (reason) {
		kfree(c);
		/* Looked at again: page 0x83 may be read by a rescan. */
		if (sdev->type == TYPE_DISK && scsi_device_supports_vpd(sdev) &&
		    !rcu_access_pointer(sdev->vpd_pg83))
			u = kzalloc(sizeof(*u), GFP_KERNEL);
		sdev_printk(KERN_INFO, sdev, "mpath_shim: not multipathed: %s%s\n",
			    reason, u ? " (yet: a rescan of the device reads it again)" : "");
		if (u) {
			u->sdev = sdev;
			mutex_lock(&mpath_claim_lock);
			list_add_tail(&u->node, &mpath_unids);
			if (!delayed_work_pending(&mpath_ident_work))
				mpath_ident_arm(READ_ONCE(mpath_path_probe_interval) * HZ);
			mutex_unlock(&mpath_claim_lock);
		}
		/* A device we cannot use must not fail the SCSI scan. */
		return 0;
	}
	mutex_lock(&mpath_claim_lock);
	mpath_cand_add(c, sdev);
	mutex_unlock(&mpath_claim_lock);
	return 0;
}

static void mpath_remove_dev(struct device *dev)
{
	struct scsi_device *sdev = mpath_class_dev_to_sdev(dev);
	struct mpath_unid *u;
	struct mpath_cand *c;

	mutex_lock(&mpath_claim_lock);
	c = mpath_cand_of(sdev);
	if (c)
		list_del(&c->node);
	if (c && c->claimed)
		mpath_path_remove(sdev);
	u = mpath_unid_of(sdev);
	if (u)
		list_del(&u->node);
	mutex_unlock(&mpath_claim_lock);
	kfree(c);
	kfree(u);
}

static void mpath_rehome(struct work_struct *work);
static DECLARE_DELAYED_WORK(mpath_rehome_work, mpath_rehome);

/* A lunpath reaches another LU now (WRONG_LU): mpath_rehome() moves it. */
void mpath_discovery_remapped(void)
{
	mod_delayed_work(system_long_wq, &mpath_rehome_work, 0);
}

/*
 * The array mapped another LU behind the device of a lunpath (WRONG_LU,
 * out of service): the device leaves its LUN and is a candidate of the LU
 * it reaches now, which it joins if that LU is multipathed; otherwise its
 * disk is the host's again.  It used to stay WRONG_LU in its old LUN for
 * good: an sd rebind only checked it against the same LUN.  The LU is the
 * one the check that found the remap read (mpath_path_verify()): nothing
 * is asked of a device here, under mpath_claim_lock, which every SCSI
 * device add and removal takes.  A device that reported no designator
 * stays out of service.
 *
 * sd still has the old LU's capacity and block size (it reads them at a
 * rescan, not at an open): the device is rescanned, out of
 * mpath_claim_lock, as "echo 1 > .../device/rescan" does, before it may
 * join; until then claim evaluations pass it over.  A rescan that cannot
 * run (the device not running: a session in recovery) is tried again
 * every path_probe_interval seconds.  A device going away meanwhile is not
 * rescanned: its reference pins the LLD's module too (scsi_device_get()),
 * put outside the lock.  Held I/O of the new LU may wait for the join: no
 * I/O to reclaim with (sd's revalidation allocates).
 */
struct mpath_moved {
	struct list_head	node;
	struct scsi_device	*sdev;
	bool			rescanned;
};

static void mpath_rehome(struct work_struct *work)
{
	unsigned int noio = memalloc_noio_save();
	struct mpath_moved *m, *next;
	char wwid[MPATH_WWID_LEN];
	struct mpath_cand *c;
	bool again = false;
	LIST_HEAD(moved);

	mutex_lock(&mpath_claim_lock);
	list_for_each_entry(c, &mpath_cands, node) {
		if (c->claimed && mpath_path_remapped(c->sdev, wwid) && *wwid) {
			mpath_path_remove(c->sdev);
			sdev_printk(KERN_INFO, c->sdev,
				    "mpath_shim: a path of LU %s now (was %s)\n",
				    wwid, c->wwid);
			strscpy(c->wwid, wwid, sizeof(c->wwid));
			c->claimed = false;
			c->verdict = -1;
			c->rescan = true;
		}
		if (!c->rescan)
			continue;
		m = kzalloc(sizeof(*m), GFP_KERNEL);
		if (m && !scsi_device_get(c->sdev)) {
			m->sdev = c->sdev;
			list_add_tail(&m->node, &moved);
			continue;
		}
		/* No memory, or the device is going: as it was, unrescanned. */
		kfree(m);
		c->rescan = false;
		/* Never takes a candidate off the list. */
		mpath_claim_eval(c->wwid);
	}
	mutex_unlock(&mpath_claim_lock);

	list_for_each_entry(m, &moved, node)
		m->rescanned = !scsi_rescan_device(m->sdev);

	mutex_lock(&mpath_claim_lock);
	list_for_each_entry(m, &moved, node) {
		/* Gone meanwhile: mpath_remove_dev() took it off the list. */
		c = mpath_cand_of(m->sdev);
		if (!c || !c->rescan)
			continue;
		if (!m->rescanned) {
			again = true;
			continue;
		}
		c->rescan = false;
		mpath_claim_eval(c->wwid);
	}
	if (again)
		mod_delayed_work(system_long_wq, &mpath_rehome_work,
				 READ_ONCE(mpath_path_probe_interval) * HZ);
	mutex_unlock(&mpath_claim_lock);

	list_for_each_entry_safe(m, next, &moved, node) {
		scsi_device_put(m->sdev);
		kfree(m);
	}
	memalloc_noio_restore(noio);
}

/* /sys/kernel/mpath_shim/claim: multipath the LU of one disk. */
int mpath_claim_hctl(const char *hctl)
{
	bool was_admin, was_released, multipathed;
	struct mpath_claim_lu lu = {};
	struct mpath_mark *m;
	struct mpath_cand *c;
	int ret = 0;

	mutex_lock(&mpath_claim_lock);
	c = mpath_cand_at(hctl);
	/* A disk whose designator was not read at scan: has it been since? */
	if (!c) {
		struct mpath_unid *u = mpath_unid_at(hctl);

		if (u && mpath_ident_retry(u))
			c = mpath_cand_at(hctl);
	}
	if (!c) {
		ret = -ENODEV;
		goto out;
	}
	/*
	 * Its LU is multipathed already (a rule written since does not
	 * release it): nothing changes, no mark is set; this disk joins the
	 * LUN if it is not a lunpath yet.
	 */
	if (mpath_claim_verdict(c->wwid, &multipathed) != MPATH_CLAIM_RELEASED &&
	    multipathed) {
		if (!c->claimed) {
			mpath_claim_eval(c->wwid);
			if (!c->claimed)
				ret = -EIO;
		}
		goto out;
	}
	lu.wwid = c->wwid;
	lu.vendor = c->vendor;
	lu.product = c->product;
	if (mpath_claim_decide(&lu, &mpath_claim_cfg) == MPATH_CLAIM_DENIED) {
		ret = -EPERM;
		goto out;
	}
	m = mpath_mark_get(c->wwid);
	if (!m) {
		ret = -ENOMEM;
		goto out;
	}
	was_admin = m->admin;
	was_released = m->released;
	m->admin = true;
	m->released = false;
	mpath_claim_eval(c->wwid);
	if (!mpath_claim_any(c->wwid)) {
		/* No lunpath could be made: as it was. */
		m->admin = was_admin;
		m->released = was_released;
		ret = -EIO;
	} else if (!c->claimed) {
		/* Its LU is multipathed, but this device is no lunpath. */
		ret = -EIO;
	}
out:
	mutex_unlock(&mpath_claim_lock);
	return ret;
}

/*
 * /sys/kernel/mpath_shim/release: give the disks of the LUN of one lunpath
 * back, when nothing has it open.  mpath_claim_lock is held until they are
 * back: SCSI devices added meanwhile wait for it.
 */
int mpath_release_hctl(const char *hctl)
{
	struct mpath_lun *lun;
	struct mpath_cand *c, *o;
	struct mpath_mark *m;
	int ret = 0;

	mutex_lock(&mpath_claim_lock);
	c = mpath_cand_at(hctl);
	if (!c || !c->claimed) {
		ret = -ENODEV;
		goto out;
	}
	m = mpath_mark_get(c->wwid);
	if (!m) {
		ret = -ENOMEM;
		goto out;
	}
	lun = mpath_lun_begin_release(c->wwid);
	if (IS_ERR(lun)) {
		ret = PTR_ERR(lun);
		goto out;
	}
	m->admin = false;
	m->released = true;
	list_for_each_entry(o, &mpath_cands, node) {
		if (strcmp(o->wwid, c->wwid))
			continue;
		o->verdict = MPATH_CLAIM_RELEASED;
		if (!o->claimed)
			continue;
		mpath_path_give_back(o->sdev);
		o->claimed = false;
	}
	if (lun)
		mpath_lun_end_release(lun);
	pr_info("released %s (%s)\n", c->wwid, hctl);
out:
	mutex_unlock(&mpath_claim_lock);
	return ret;
}

/*
 * debugfs claims: each candidate and the verdict on its LU, then each disk
 * waiting for its designator (wwid "-").
 */
int mpath_claims_show(struct seq_file *m)
{
	enum mpath_claim_verdict verdict;
	char hctl[MPATH_HCTL_LEN];
	struct mpath_unid *u;
	struct mpath_cand *c;
	bool claimed;

	mutex_lock(&mpath_claim_lock);
	seq_puts(m, "hctl\tclaimed\tvendor:product\ttpgs\twwid\tverdict\n");
	list_for_each_entry(c, &mpath_cands, node) {
		verdict = mpath_claim_verdict(c->wwid, &claimed);
		seq_printf(m, "%s\t%s\t%.8s:%.16s\t%d\t%s\t%s\n", c->hctl,
			   c->claimed ? "yes" : "no", c->vendor, c->product,
			   c->tpgs, c->wwid, mpath_claim_verdict_name(verdict));
	}
	list_for_each_entry(u, &mpath_unids, node) {
		mpath_sdev_hctl(u->sdev, hctl);
		seq_printf(m, "%s\tno\t%.8s:%.16s\t%d\t-\t%s\n", hctl,
			   u->sdev->vendor, u->sdev->model,
			   scsi_device_tpgs(u->sdev),
			   "no LU designator yet (rescan the device)");
	}
	mutex_unlock(&mpath_claim_lock);
	return 0;
}

/* Module parameters: claim_rules, claim_min_paths, claim_tpgs. */

static bool mpath_discovery_on;	/* under mpath_claim_lock */

static int mpath_claim_rules_set(const char *val, const struct kernel_param *kp)
{
	struct mpath_claim_rule *rules;
	int nr;

	rules = kcalloc(MPATH_CLAIM_RULES_MAX, sizeof(*rules), GFP_KERNEL);
	if (!rules)
		return -ENOMEM;
	nr = mpath_claim_parse_rules(val, rules, MPATH_CLAIM_RULES_MAX);
	/* Rules that would not read back whole (escaped) are refused. */
	if (nr > 0) {
		char *shown = kmalloc(PAGE_SIZE, GFP_KERNEL);

		if (!shown)
			nr = -ENOMEM;
		else if (mpath_claim_show_rules(rules, nr, shown, PAGE_SIZE) >=
			 PAGE_SIZE - 2)
			nr = -EINVAL;
		kfree(shown);
	}
	if (nr >= 0) {
		mutex_lock(&mpath_claim_lock);
		memcpy(mpath_claim_rules, rules, sizeof(*rules) * nr);
		mpath_claim_cfg.nr_rules = nr;
		if (mpath_discovery_on)
			mpath_claim_eval_all();
		mutex_unlock(&mpath_claim_lock);
	}
	kfree(rules);
	return nr < 0 ? nr : 0;
}

static int mpath_claim_rules_get(char *buf, const struct kernel_param *kp)
{
	int len;

	mutex_lock(&mpath_claim_lock);
	len = mpath_claim_show_rules(mpath_claim_rules,
				     mpath_claim_cfg.nr_rules, buf,
				     PAGE_SIZE - 1);
	mutex_unlock(&mpath_claim_lock);
	buf[len++] = '\n';
	buf[len] = '\0';
	return len;
}

static const struct kernel_param_ops mpath_claim_rules_ops = {
	.set	= mpath_claim_rules_set,
	.get	= mpath_claim_rules_get,
};
module_param_cb(claim_rules, &mpath_claim_rules_ops, NULL, 0644);
MODULE_PARM_DESC(claim_rules,
		 "Which disks are multipathed, first match wins: allow:|deny: then VENDOR:PRODUCT (PRODUCT * for any) or wwid=WWID (a trailing * for a prefix), comma separated, blanks as \\x20 (default empty)");

static int mpath_claim_min_paths_set(const char *val,
				     const struct kernel_param *kp)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 10, &n);
	if (ret)
		return -EINVAL;
	if (n > MPATH_CLAIM_MAX_MIN_PATHS)
		return -EINVAL;
	mutex_lock(&mpath_claim_lock);
	mpath_claim_cfg.min_paths = n;
	if (mpath_discovery_on)
		mpath_claim_eval_all();
	mutex_unlock(&mpath_claim_lock);
	return 0;
}

static int mpath_claim_min_paths_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(mpath_claim_cfg.min_paths));
}

static const struct kernel_param_ops mpath_claim_min_paths_ops = {
	.set	= mpath_claim_min_paths_set,
	.get	= mpath_claim_min_paths_get,
};
module_param_cb(claim_min_paths, &mpath_claim_min_paths_ops, NULL, 0644);
MODULE_PARM_DESC(claim_min_paths,
		 "A LU with no claim rule is multipathed once this many paths to it are present; 1 takes single-path disks too, 0 only by rule or claim (default 2)");

static int mpath_claim_tpgs_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret;

	ret = mpath_parse_bool(val, &on);
	if (ret)
		return ret;
	mutex_lock(&mpath_claim_lock);
	mpath_claim_cfg.tpgs = on;
	if (mpath_discovery_on)
		mpath_claim_eval_all();
	mutex_unlock(&mpath_claim_lock);
	return 0;
}

static int mpath_claim_tpgs_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%c\n", READ_ONCE(mpath_claim_cfg.tpgs) ? 'Y' : 'N');
}

static const struct kernel_param_ops mpath_claim_tpgs_ops = {
	.set	= mpath_claim_tpgs_set,
	.get	= mpath_claim_tpgs_get,
};
module_param_cb(claim_tpgs, &mpath_claim_tpgs_ops, NULL, 0644);
MODULE_PARM_DESC(claim_tpgs,
		 "A LU with no claim rule that reports target port groups (ALUA) is multipathed from its first path (default Y)");

MPATH_DEFINE_CLASS_INTF(mpath_add_dev, mpath_remove_dev)

static struct class_interface mpath_interface = {
	.add_dev	= MPATH_CLASS_INTF_ADD(mpath_add_dev),
	.remove_dev	= MPATH_CLASS_INTF_REMOVE(mpath_remove_dev),
};

int mpath_discovery_init(void)
{
	struct mpath_lun *lun;
	int ret;

	mutex_lock(&mpath_claim_lock);
	mpath_discovery_on = true;
	mutex_unlock(&mpath_claim_lock);
	ret = scsi_register_interface(&mpath_interface);
	if (ret) {
		mutex_lock(&mpath_claim_lock);
		mpath_discovery_on = false;
		mutex_unlock(&mpath_claim_lock);
		return ret;
	}
	/*
	 * Every SCSI device there was seen (the registration ran add_dev for
	 * each): a LUN's disk may be offered now, once its lunpaths have
	 * tried their opens (attaches queued before this offer, on the same
	 * ordered queue).
	 */
	mpath_lock();
	mpath_shim.scanned = true;
	list_for_each_entry(lun, &mpath_shim.luns, node) {
		kobject_get(&lun->kobj);
		if (!queue_work(mpath_wq, &lun->offer_work))
			kobject_put(&lun->kobj);
	}
	mpath_unlock();
	return 0;
}

void mpath_discovery_exit(void)
{
	struct mpath_mark *m, *next;

	scsi_unregister_interface(&mpath_interface);
	/* No lunpath is left to queue it, no unidentified disk to re-arm it. */
	cancel_delayed_work_sync(&mpath_rehome_work);
	cancel_delayed_work_sync(&mpath_ident_work);
	mutex_lock(&mpath_claim_lock);
	mpath_discovery_on = false;
	list_for_each_entry_safe(m, next, &mpath_marks, node) {
		list_del(&m->node);
		kfree(m);
	}
	mutex_unlock(&mpath_claim_lock);
	if (mpath_scsi_bus)
		bus_unregister_notifier(mpath_scsi_bus, &mpath_bus_nb);
	mpath_scsi_bus = NULL;
}
