/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A CPU's cache of free per-I/O contexts, and where a freed context goes.
 *
 * The cache is a LIFO list of at most about @max free contexts, linked
 * through their first bytes (unused while a context is free, as a slab
 * freelist does).  It is changed with this-CPU compare-and-exchange, which
 * no interrupt on the CPU can split (on x86 one instruction without a lock
 * prefix), not with interrupts turned off: contexts are freed from any
 * context, taken only from the CPU's task context.  Free of SCSI and block
 * plumbing, for KUnit (kunit/iocache_test.c).
 */
#ifndef _MPATH_SHIM_IOCACHE_H
#define _MPATH_SHIM_IOCACHE_H

#include <linux/percpu.h>
#include <linux/types.h>

/* The link in a free context's first bytes. */
struct mpath_io_free {
	struct mpath_io_free	*next;
};

/**
 * struct mpath_io_cache - one CPU's free contexts, changed by that CPU only
 * @head:	the last freed, NULL when empty
 * @nr:		how many (the bound's count: an interrupt between a push and
 *		its count may put one more per nesting level)
 */
struct mpath_io_cache {
	struct mpath_io_free	*head;
	unsigned int		nr;
};

/*
 * Keep @obj (at least a pointer's size) in this CPU's cache of @pc, unless
 * it holds @max already.  Any context, preemption off.  A push from an
 * interrupt in between changes the head: the exchange fails and the loop
 * links @obj to the new one.
 */
static inline bool mpath_io_cache_push(struct mpath_io_cache __percpu *pc,
				       void *obj, unsigned int max)
{
	struct mpath_io_free *f = obj, *head;

	if (this_cpu_read(pc->nr) >= max)
		return false;
	do {
		head = this_cpu_read(pc->head);
		f->next = head;
	} while (this_cpu_cmpxchg(pc->head, head, f) != head);
	this_cpu_inc(pc->nr);
	return true;
}

/*
 * The last context kept in this CPU's cache of @pc, or NULL.  Task context
 * only, preemption off: so nothing else takes from this CPU's cache while
 * we do, an interrupt may only push.  @head therefore stays in the list
 * until our exchange, and head->next is still its successor: the exchange
 * cannot succeed on a stale pair (no ABA).
 */
static inline void *mpath_io_cache_pop(struct mpath_io_cache __percpu *pc)
{
	struct mpath_io_free *head;

	do {
		head = this_cpu_read(pc->head);
		if (!head)
			return NULL;
	} while (this_cpu_cmpxchg(pc->head, head, head->next) != head);
	this_cpu_dec(pc->nr);
	return head;
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
 * away from their LUN; then the cache (@nr of at most @max) while it has
 * room.
 */
static inline enum mpath_io_free_to
mpath_io_free_to(int curr_nr, int min_nr, unsigned int nr, unsigned int max)
{
	if (curr_nr < min_nr)
		return MPATH_IO_TO_RESERVE;
	if (nr < max)
		return MPATH_IO_TO_CACHE;
	return MPATH_IO_TO_SLAB;
}

#endif /* _MPATH_SHIM_IOCACHE_H */
