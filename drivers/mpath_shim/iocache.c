// SPDX-License-Identifier: GPL-2.0
/*
 * Per-I/O contexts: struct mpath_io, with the clone bio it sends embedded.
 *
 * Each I/O to /dev/mpathN holds one from submission to completion, across
 * its failovers too (io.c sets the same clone up again).  They come from one
 * slab of the module's, "mpath_io", by way of:
 *
 *  1. this CPU's cache (iocache.h): at most MPATH_IO_CACHE_MAX free
 *     contexts, shared by all LUNs, touched only by its own CPU, with
 *     this-CPU compare-and-exchange, not with interrupts off (an I/O
 *     completes in any context and frees there; only task context takes,
 *     which keeps the list free of ABA; submit_bio() from an interrupt,
 *     which is rare, goes to the mempool);
 *  2. the LUN's mempool: the slab, then MPATH_IO_RESERVE contexts of the
 *     LUN's own, so that under memory pressure a LUN's I/O makes progress
 *     whatever other LUNs hold (what a bio_set per LUN gave before, and what
 *     dm gives each mapped device).
 *
 * A freed context refills its LUN's reserve first, then this CPU's cache,
 * and goes back to the slab when both are full.  The cache takes the
 * slab's allocation and free, and bio_alloc_clone()'s set-up, off each I/O
 * (Documentation/performance.md has the instructions).  The block layer's
 * own per-CPU bio cache cannot do it: it keeps only bios freed in task
 * context (6.1: polled I/O only), and completions run in interrupts.
 *
 * A clone is never freed with bio_put(): it has no bio_set, and nothing but
 * the shim holds it (submit_bio_noacct() and bio_endio() take no
 * reference).  Its cgroup reference is dropped when it is freed, not when
 * the context is used again.  A CPU taken offline keeps its cache until the
 * module is unloaded: MPATH_IO_CACHE_MAX contexts at most.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/mempool.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/slab.h>

#include <mpath_shim/mpath_shim.h>
#include <mpath_shim/iocache.h>

/*
 * Free contexts a CPU keeps: I/Os completing on it, a burst's worth.  None
 * with KASAN: a context in the cache is free to us but allocated to the
 * slab, so a use after free would go unseen.  Freed to the slab (or the
 * mempool's reserve, which mempool poisons) it is caught.
 */
#define MPATH_IO_CACHE_MAX	(IS_ENABLED(CONFIG_KASAN) ? 0 : 64)

/* Contexts each LUN keeps for itself when the slab has none. */
#define MPATH_IO_RESERVE	BIO_POOL_SIZE

static struct kmem_cache *mpath_io_slab;
static DEFINE_PER_CPU(struct mpath_io_cache, mpath_io_caches);

/* A context for an I/O of @lun: @gfp as for mempool_alloc(). */
struct mpath_io *mpath_io_alloc(struct mpath_lun *lun, gfp_t gfp)
{
	struct mpath_io *io = NULL;

	if (likely(in_task())) {
		preempt_disable();
		io = mpath_io_cache_pop(&mpath_io_caches);
		preempt_enable();
	}
	if (likely(io))
		return io;
	return mempool_alloc(&lun->io_pool, gfp);
}

/* @io is done with: its clone is released, the context kept or freed. */
void mpath_io_free(struct mpath_lun *lun, struct mpath_io *io)
{
	mempool_t *pool = &lun->io_pool;
	bool kept = false;

	bio_uninit(&io->clone);
	preempt_disable();
	if (mpath_io_free_to(READ_ONCE(pool->curr_nr), pool->min_nr,
			     this_cpu_read(mpath_io_caches.nr),
			     MPATH_IO_CACHE_MAX) == MPATH_IO_TO_CACHE)
		kept = mpath_io_cache_push(&mpath_io_caches, io,
					   MPATH_IO_CACHE_MAX);
	preempt_enable();
	if (!kept)
		mempool_free(io, pool);
}

int mpath_io_pool_init(struct mpath_lun *lun)
{
	return mempool_init_slab_pool(&lun->io_pool, MPATH_IO_RESERVE,
				      mpath_io_slab);
}

void mpath_io_pool_exit(struct mpath_lun *lun)
{
	mempool_exit(&lun->io_pool);
}

int __init mpath_iocache_init(void)
{
	mpath_io_slab = KMEM_CACHE(mpath_io, SLAB_HWCACHE_ALIGN);
	return mpath_io_slab ? 0 : -ENOMEM;
}

/* After the last LUN's pool is gone. */
void mpath_iocache_exit(void)
{
	struct mpath_io_cache *c;
	struct mpath_io_free *f;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&mpath_io_caches, cpu);
		while ((f = c->head)) {
			c->head = f->next;
			kmem_cache_free(mpath_io_slab, f);
		}
		c->nr = 0;
	}
	kmem_cache_destroy(mpath_io_slab);
}
