/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A CPU's cache of free per-I/O contexts, and where a freed context goes.
 *
 * The cache is a LIFO list of at most @max free contexts, linked through
 * their first bytes (unused while a context is free, as a slab freelist
 * does).  The caller makes it its CPU's own (interrupts off: contexts are
 * freed from any context); nothing here locks.  Free of SCSI and block
 * plumbing, for KUnit (kunit/iocache_test.c).
 */
#ifndef _MPATH_SHIM_IOCACHE_H
#define _MPATH_SHIM_IOCACHE_H

#include <linux/types.h>

/* The link in a free context's first bytes. */
struct mpath_io_free {
	struct mpath_io_free	*next;
};

/**
 * struct mpath_io_cache - one CPU's free contexts
 * @head:	the last freed, NULL when empty
 * @nr:		how many
 */
struct mpath_io_cache {
	struct mpath_io_free	*head;
	unsigned int		nr;
};

/* Keep @obj (at least a pointer's size) unless @c holds @max already. */
static inline bool mpath_io_cache_push(struct mpath_io_cache *c, void *obj,
				       unsigned int max)
{
	struct mpath_io_free *f = obj;

	if (c->nr >= max)
		return false;
	f->next = c->head;
	c->head = f;
	c->nr++;
	return true;
}

/* The last context kept, or NULL. */
static inline void *mpath_io_cache_pop(struct mpath_io_cache *c)
{
	struct mpath_io_free *f = c->head;

	if (f) {
		c->head = f->next;
		c->nr--;
	}
	return f;
}

enum mpath_io_free_to {
	MPATH_IO_TO_RESERVE,	/* the LUN's mempool: mempool_free() */
	MPATH_IO_TO_CACHE,	/* this CPU's cache */
	MPATH_IO_TO_SLAB,	/* the cache is full: mempool_free() frees it */
};

/*
 * Where a freed context goes: the LUN's reserve first while it is short of
 * @min_nr (@curr_nr: what mempool_free() itself checks, and its sleeping
 * allocators wait for), so that caching never takes the reserve's elements
 * away from their LUN; then the cache while it has room.
 */
static inline enum mpath_io_free_to
mpath_io_free_to(int curr_nr, int min_nr, const struct mpath_io_cache *c,
		 unsigned int max)
{
	if (curr_nr < min_nr)
		return MPATH_IO_TO_RESERVE;
	if (c->nr < max)
		return MPATH_IO_TO_CACHE;
	return MPATH_IO_TO_SLAB;
}

#endif /* _MPATH_SHIM_IOCACHE_H */
