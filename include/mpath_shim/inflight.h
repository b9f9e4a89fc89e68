/* SPDX-License-Identifier: GPL-2.0 */
/*
 * I/O in flight on a lunpath, by class, each counted in two age generations.
 *
 * The watchdog gives an I/O as long as the SCSI layer gives its commands.
 * sd sends a read or write with the device's timeout T, but gives a cache
 * flush 2 T and UNMAP and WRITE SAME 30 s and 120 s, and the block layer
 * sends a write with a flush before it (REQ_PREFLUSH) and, to a device
 * without FUA, one after it (REQ_FUA): an I/O of the slow class may take
 * up to 2 T + T + 2 T, or 120 s, on a healthy path.  So the two classes are
 * aged apart.  (Sixteen bits per field leave room for two classes only: a
 * flush on a queue that stopped moving fails its path at 120 s, not 5 T,
 * unless reads and writes wait there too.)
 *
 * One atomic64 counts the path's I/O in flight in four 16-bit fields, one
 * per class and generation (a path has at most MPATH_MAX_Q_DEPTH, 4096,
 * in flight: no field spills).  An I/O joins its class's current
 * generation when it takes a tag and leaves the field it joined when it
 * completes: one atomic add each way on the path's hot cache line, which
 * is the count the policies and the utilization figures read anyway.  No
 * per-I/O timestamp is stored.
 *
 * The LUN's watchdog, and the prober of a path outside the map, age each
 * class's generations (mpath_inflight_tick(), under @lock): when the older
 * generation is empty, every I/O that joined it has completed, so the
 * current one becomes the older one and the empty one takes new I/O from
 * now on (@since).  While the older generation is not empty, its I/Os all
 * read @gen before @since: each has been in flight longer than now -
 * @since, the age the watchdog compares with the class's limit.  That bound
 * is never too high (no path is failed early); it is low by at most one
 * tick for an I/O that hangs while everything else completes, more only
 * while an older I/O also waits.
 */
#ifndef _MPATH_SHIM_INFLIGHT_H
#define _MPATH_SHIM_INFLIGHT_H

#include <linux/atomic.h>
#include <linux/blk_types.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/* The classes of I/O the watchdog times apart. */
enum mpath_io_class {
	MPATH_IO_PLAIN,		/* the command timeout */
	MPATH_IO_SLOW,		/* flush, discard, zeroes: see above */
	MPATH_IO_CLASSES,
};

/* sd's longest command time of the slow class: WRITE SAME's 120 s. */
#define MPATH_SLOW_IO_SECS	120

/**
 * struct mpath_inflight - a lunpath's I/O in flight, by class and generation
 * @count:	field 2 * class + generation holds bits 16 * field.. of it
 * @gen:	the generation each class's I/O joins now; under @lock, read
 *		per I/O
 * @since:	jiffies when that became the current generation; under @lock
 * @lock:	serialises the ticks (never taken by I/O)
 */
struct mpath_inflight {
	atomic64_t	count;
	u8		gen[MPATH_IO_CLASSES];
	unsigned long	since[MPATH_IO_CLASSES];
	spinlock_t	lock;
};

/* How the path's device takes flushes: a volatile cache, FUA. */
#define MPATH_DEV_WC	BIT(0)
#define MPATH_DEV_FUA	BIT(1)

/*
 * The class of an I/O of @opf sent to a path whose device has @dev
 * (MPATH_DEV_*).  Without a write cache the block layer drops REQ_PREFLUSH
 * and REQ_FUA (a plain write); without FUA it completes a FUA write with a
 * cache flush.  (REQ_OP_FLUSH never reaches a bio-based disk.)
 */
static inline enum mpath_io_class mpath_io_class_of(blk_opf_t opf,
						    unsigned int dev)
{
	switch (opf & REQ_OP_MASK) {
	case REQ_OP_DISCARD:
	case REQ_OP_SECURE_ERASE:
	case REQ_OP_WRITE_ZEROES:
		return MPATH_IO_SLOW;
	default:
		if (!(dev & MPATH_DEV_WC))
			return MPATH_IO_PLAIN;
		if ((opf & REQ_PREFLUSH) ||
		    ((opf & REQ_FUA) && !(dev & MPATH_DEV_FUA)))
			return MPATH_IO_SLOW;
		return MPATH_IO_PLAIN;
	}
}

/*
 * How long an I/O of @class may stay on a path whose command timeout is
 * @timeout jiffies: sd's own limits for its commands (a flush, the write
 * and a flush after it: 5 x @timeout; WRITE SAME: 120 s).
 */
static inline unsigned long mpath_inflight_limit(enum mpath_io_class class,
						 unsigned long timeout)
{
	if (class == MPATH_IO_PLAIN)
		return timeout;
	return max(5 * timeout, (unsigned long)MPATH_SLOW_IO_SECS * HZ);
}

static inline u64 mpath_inflight_unit(unsigned int field)
{
	return 1ULL << (16 * field);
}

static inline unsigned int mpath_inflight_total(u64 count)
{
	/* Two sums of two fields each (at most 2 x 65535: no carry out). */
	count = (count & 0x0000ffff0000ffffULL) +
		((count >> 16) & 0x0000ffff0000ffffULL);
	return lower_32_bits(count) + upper_32_bits(count);
}

/*
 * An I/O of @class takes one of the path's @depth tags: it joins the
 * class's current generation, kept in @field, if fewer than @depth are in
 * flight (a compare-and-exchange, so the count never goes past @depth for
 * a moment, as an add taken back would).  Returns the total with it, or 0
 * if the path is full (@field then counts for nothing: no tag is held).
 */
static inline unsigned int mpath_inflight_get(struct mpath_inflight *f,
					      enum mpath_io_class class,
					      u8 *field, unsigned int depth)
{
	s64 old = atomic64_read(&f->count);
	s64 new;

	do {
		if (mpath_inflight_total(old) >= depth)
			return 0;
		*field = 2 * class + READ_ONCE(f->gen[class]);
		new = old + mpath_inflight_unit(*field);
	} while (!atomic64_try_cmpxchg(&f->count, &old, new));
	return mpath_inflight_total(new);
}

/* The I/O counted in @field completed; returns how many are left. */
static inline unsigned int mpath_inflight_end(struct mpath_inflight *f,
					      u8 field)
{
	return mpath_inflight_total(atomic64_sub_return(mpath_inflight_unit(field),
							&f->count));
}

/* I/Os in flight. */
static inline unsigned int mpath_inflight_read(const struct mpath_inflight *f)
{
	return mpath_inflight_total(atomic64_read(&f->count));
}

void mpath_inflight_init(struct mpath_inflight *f, unsigned long now);
unsigned long mpath_inflight_age(const struct mpath_inflight *f,
				 enum mpath_io_class class, unsigned long now);
unsigned long mpath_inflight_tick(struct mpath_inflight *f,
				  enum mpath_io_class class, unsigned long now);

#endif /* _MPATH_SHIM_INFLIGHT_H */
