/* SPDX-License-Identifier: GPL-2.0 */
/*
 * I/O in flight on a lunpath, counted in two age generations.
 *
 * One atomic64 counts the path's I/O in flight, generation 0 in its low 32
 * bits and generation 1 in its high 32 bits.  An I/O joins the current
 * generation when it takes a tag and leaves the generation it joined when
 * it completes: one atomic add each way on the path's hot cache line, which
 * is the count the policies and the utilization figures read anyway.  No
 * per-I/O timestamp is stored.
 *
 * The LUN's watchdog, and the prober of a path outside the map, age the
 * generations (mpath_inflight_tick(), under @lock): when the older
 * generation is empty, every I/O that
 * joined it has completed, so the current one becomes the older one and
 * the empty one takes new I/O from now on (@since).  While the older
 * generation is not empty, its I/Os all read @gen before @since: each has
 * been in flight longer than now - @since, the age the watchdog compares
 * with the path's timeout.  That bound is never too high (no path is failed
 * early); it is low by at most one tick for an I/O that hangs while
 * everything else completes, more only while an older I/O also waits.
 */
#ifndef _MPATH_SHIM_INFLIGHT_H
#define _MPATH_SHIM_INFLIGHT_H

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/kernel.h>

/**
 * struct mpath_inflight - a lunpath's I/O in flight, by generation
 * @count:	generation 0 in the low half, generation 1 in the high half
 * @gen:	the generation I/O joins now; under @lock, read per I/O
 * @since:	jiffies when @gen became the current generation; under @lock
 * @lock:	serialises the ticks (never taken by I/O)
 */
struct mpath_inflight {
	atomic64_t	count;
	unsigned int	gen;
	unsigned long	since;
	spinlock_t	lock;
};

static inline u64 mpath_inflight_unit(unsigned int gen)
{
	return gen ? 1ULL << 32 : 1;
}

static inline unsigned int mpath_inflight_total(u64 count)
{
	return lower_32_bits(count) + upper_32_bits(count);
}

/* An I/O joins the current generation, kept in @gen; returns the total. */
static inline unsigned int mpath_inflight_start(struct mpath_inflight *f,
						u8 *gen)
{
	*gen = READ_ONCE(f->gen);
	return mpath_inflight_total(atomic64_add_return(mpath_inflight_unit(*gen),
							&f->count));
}

/* The I/O of generation @gen completed; returns how many are left. */
static inline unsigned int mpath_inflight_end(struct mpath_inflight *f, u8 gen)
{
	return mpath_inflight_total(atomic64_sub_return(mpath_inflight_unit(gen),
							&f->count));
}

/*
 * An I/O takes one of the path's @depth tags: it joins the current
 * generation if fewer than @depth are in flight (a compare-and-exchange, so
 * the count never goes past @depth for a moment, as an add taken back
 * would).  Returns the total with it, or 0 if the path is full.
 */
static inline unsigned int mpath_inflight_get(struct mpath_inflight *f,
					      u8 *gen, unsigned int depth)
{
	s64 old = atomic64_read(&f->count);
	s64 new;

	do {
		if (mpath_inflight_total(old) >= depth)
			return 0;
		*gen = READ_ONCE(f->gen);
		new = old + mpath_inflight_unit(*gen);
	} while (!atomic64_try_cmpxchg(&f->count, &old, new));
	return mpath_inflight_total(new);
}

/* I/Os in flight. */
static inline unsigned int mpath_inflight_read(const struct mpath_inflight *f)
{
	return mpath_inflight_total(atomic64_read(&f->count));
}

void mpath_inflight_init(struct mpath_inflight *f, unsigned long now);
unsigned long mpath_inflight_age(const struct mpath_inflight *f,
				 unsigned long now);
unsigned long mpath_inflight_tick(struct mpath_inflight *f, unsigned long now);

#endif /* _MPATH_SHIM_INFLIGHT_H */
