// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs (no ABI): /sys/kernel/debug/mpath_shim/mpathN/
 *   latency     read and write latency histograms, log2 buckets of us
 *   paths       per lunpath: state, in flight, tag depth, cost
 *   selector    the policy and each CPU's state
 *   host_queue  length, longest, waits; bios waiting for a context
 *   rtpg        the last REPORT TARGET PORT GROUPS answer, decoded and raw
 * and at the top, claims (every candidate disk, and each one waiting for its
 * designator) and the fault injection points of fault.c.
 * Root only.  No kernel address is printed.
 */

#include <linux/debugfs.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <mpath_shim/mpath_shim.h>

static struct dentry *mpath_debugfs_root;

static int latency_show(struct seq_file *m, void *v)
{
	struct mpath_lun *lun = m->private;
	u64 sum[2][MPATH_LAT_BUCKETS] = { };
	unsigned int b, rw;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct mpath_lat *lat = per_cpu_ptr(lun->lat, cpu);

		for (rw = 0; rw < 2; rw++)
			for (b = 0; b < MPATH_LAT_BUCKETS; b++)
				sum[rw][b] += READ_ONCE(lat->hist[rw][b]);
	}
	seq_puts(m, "# latency (us, from..below)    reads   writes\n");
	for (b = 0; b < MPATH_LAT_BUCKETS; b++) {
		if (!sum[0][b] && !sum[1][b])
			continue;
		/* The last bucket takes every longer I/O: no upper bound. */
		if (b == MPATH_LAT_BUCKETS - 1)
			seq_printf(m, "%10llu..%-10s %8llu %8llu\n",
				   1ULL << (b - 1), "", sum[0][b], sum[1][b]);
		else
			seq_printf(m, "%10llu..%-10llu %8llu %8llu\n",
				   b ? 1ULL << (b - 1) : 0ULL, 1ULL << b,
				   sum[0][b], sum[1][b]);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(latency);

static int paths_show(struct seq_file *m, void *v)
{
	struct mpath_lun *lun = m->private;
	struct mpath_path *path;

	mpath_lock();
	seq_puts(m, "# hctl state access inflight depth active_bytes cost_ns_per_kib\n");
	list_for_each_entry(path, &lun->paths, lun_node)
		seq_printf(m, "%s %s %s %u %u %lld %llu\n", path->hctl,
			   mpath_path_state_name(READ_ONCE(path->state)),
			   mpath_alua_state_name(path->access_state),
			   mpath_path_inflight(path), path->depth,
			   (long long)atomic64_read(&path->active_bytes),
			   READ_ONCE(path->cost));
	mpath_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(paths);

static int selector_show(struct seq_file *m, void *v)
{
	struct mpath_lun *lun = m->private;
	struct mpath_selector *sel;
	int cpu;

	mpath_lock();
	sel = rcu_dereference_protected(lun->sel,
					lockdep_is_held(&mpath_shim.lock));
	seq_printf(m, "policy %s\n", sel->policy->name);
	/* Every built-in policy's per-CPU state starts with a cursor. */
	if (sel->policy->pcpu_size >= sizeof(unsigned int))
		for_each_possible_cpu(cpu)
			seq_printf(m, "cpu%d cursor %u\n", cpu,
				   *(unsigned int *)per_cpu_ptr(sel->pcpu, cpu));
	mpath_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(selector);

static int host_queue_show(struct seq_file *m, void *v)
{
	struct mpath_lun *lun = m->private;

	spin_lock_irq(&lun->requeue_lock);
	seq_printf(m, "length %u\nlongest %u\nwaits %llu\nwait_ns %llu\nctxwait %u\n",
		   lun->hq_len, lun->hq.max, lun->hq_waits, lun->hq_wait_ns,
		   lun->ctxwait_len);
	spin_unlock_irq(&lun->requeue_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(host_queue);

static int rtpg_show(struct seq_file *m, void *v)
{
	struct mpath_lun *lun = m->private;
	struct mpath_rtpg *rtpg = NULL;
	const struct mpath_tpg *tpg;
	unsigned int i;

	mutex_lock(&lun->alua_lock);
	if (!lun->rtpg_at) {
		seq_puts(m, "none sent (no ALUA, alua=N, or scsi_dh_alua owns RTPG)\n");
		goto out;
	}
	seq_printf(m, "through %s, %u ms ago, result %d\n", lun->rtpg_hctl,
		   jiffies_to_msecs(jiffies - lun->rtpg_at), lun->rtpg_ret);
	if (!lun->rtpg_len)
		goto out;
	/* No I/O from reclaim: the probe work waits for alua_lock. */
	rtpg = mpath_rtpg_parse(lun->rtpg, lun->rtpg_len, GFP_NOIO);
	if (IS_ERR(rtpg)) {
		seq_printf(m, "cannot decode %u bytes: %ld\n", lun->rtpg_len,
			   PTR_ERR(rtpg));
		rtpg = NULL;
		goto out;
	}
	seq_printf(m, "extended header %s, transition time %u s, %u bytes\n",
		   rtpg->ext ? "yes" : "no", rtpg->trans_secs, lun->rtpg_len);
	seq_puts(m, "# tpg state pref supported status ports\n");
	for (i = 0; i < rtpg->nr; i++) {
		tpg = &rtpg->tpg[i];
		seq_printf(m, "%u %s %d 0x%02x %u %u\n", tpg->id,
			   mpath_alua_state_name(tpg->state), tpg->pref,
			   tpg->supported, tpg->status, tpg->nr_ports);
	}
	seq_printf(m, "raw %*ph\n", min_t(int, lun->rtpg_len, 64), lun->rtpg);
out:
	mutex_unlock(&lun->alua_lock);
	kfree(rtpg);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtpg);

void mpath_debugfs_lun_add(struct mpath_lun *lun)
{
	char name[16];

	if (IS_ERR_OR_NULL(mpath_debugfs_root))
		return;
	snprintf(name, sizeof(name), "mpath%d", lun->name->index);
	lun->debugfs = debugfs_create_dir(name, mpath_debugfs_root);
	debugfs_create_file("latency", 0400, lun->debugfs, lun, &latency_fops);
	debugfs_create_file("paths", 0400, lun->debugfs, lun, &paths_fops);
	debugfs_create_file("selector", 0400, lun->debugfs, lun, &selector_fops);
	debugfs_create_file("host_queue", 0400, lun->debugfs, lun,
			    &host_queue_fops);
	debugfs_create_file("rtpg", 0400, lun->debugfs, lun, &rtpg_fops);
}

void mpath_debugfs_lun_remove(struct mpath_lun *lun)
{
	debugfs_remove_recursive(lun->debugfs);
	lun->debugfs = NULL;
}

/* Every disk with a LU designator and why its LU is multipathed or not. */
static int claims_show(struct seq_file *m, void *v)
{
	return mpath_claims_show(m);
}
DEFINE_SHOW_ATTRIBUTE(claims);

void mpath_debugfs_init(void)
{
	mpath_debugfs_root = debugfs_create_dir("mpath_shim", NULL);
	if (IS_ERR_OR_NULL(mpath_debugfs_root))
		return;
	debugfs_create_file("claims", 0400, mpath_debugfs_root, NULL,
			    &claims_fops);
	mpath_fault_init(mpath_debugfs_root);
}

void mpath_debugfs_exit(void)
{
	debugfs_remove_recursive(mpath_debugfs_root);
}
