// SPDX-License-Identifier: GPL-2.0
/*
 * The age of a lunpath's I/O in flight, from each class's two generations
 * (see include/mpath_shim/inflight.h).  Pure logic (KUnit:
 * kunit/inflight_test.c).
 */

#include <linux/jiffies.h>

#include <mpath_shim/inflight.h>

/* No I/O in flight; each class's current generation began at @now. */
void mpath_inflight_init(struct mpath_inflight *f, unsigned long now)
{
	unsigned int class;

	spin_lock_init(&f->lock);
	atomic64_set(&f->count, 0);
	for (class = 0; class < MPATH_IO_CLASSES; class++) {
		f->gen[class] = 0;
		f->since[class] = now;
	}
}

/* I/Os of @class in the generation that is not @gen: the older one. */
static unsigned int mpath_inflight_older(const struct mpath_inflight *f,
					 unsigned int class, unsigned int gen)
{
	u64 count = atomic64_read(&f->count);

	return (count >> (16 * (2 * class + !gen))) & 0xffff;
}

/*
 * How long the oldest I/O of @class in flight has at least been in flight
 * at @now, in jiffies: 0 when the class's older generation is empty.
 * Never more than the oldest I/O's real age.
 */
unsigned long mpath_inflight_age(const struct mpath_inflight *f,
				 enum mpath_io_class class, unsigned long now)
{
	unsigned int gen = READ_ONCE(f->gen[class]);
	unsigned long since;

	/* Pairs with mpath_inflight_tick(): a new @gen with its @since. */
	smp_rmb();
	since = READ_ONCE(f->since[class]);
	if (!mpath_inflight_older(f, class, gen) || !time_after(now, since))
		return 0;
	return now - since;
}

/*
 * A tick of @class at @now (process context): when every I/O of its older
 * generation has completed, new I/O of the class joins that one from now
 * on and the current one becomes the older.  Returns the age as
 * mpath_inflight_age() after that.
 */
unsigned long mpath_inflight_tick(struct mpath_inflight *f,
				  enum mpath_io_class class, unsigned long now)
{
	unsigned long age = 0;

	spin_lock(&f->lock);
	/* Two tickers' clocks, read a moment apart: @since never goes back. */
	if (time_before(now, f->since[class]))
		now = f->since[class];
	if (mpath_inflight_older(f, class, f->gen[class])) {
		age = now - f->since[class];
	} else {
		/*
		 * An I/O that read @gen before the store below joins the
		 * generation that becomes the older one; it began before
		 * @since, so its age is not overstated.
		 */
		WRITE_ONCE(f->since[class], now);
		/* Pairs with mpath_inflight_age(). */
		smp_wmb();
		WRITE_ONCE(f->gen[class], !f->gen[class]);
	}
	spin_unlock(&f->lock);
	return age;
}
