// SPDX-License-Identifier: GPL-2.0
/*
 * The age of a lunpath's I/O in flight, from its two generations (see
 * include/mpath_shim/inflight.h).  Pure logic (KUnit: kunit/inflight_test.c).
 */

#include <linux/jiffies.h>

#include <mpath_shim/inflight.h>

/* No I/O in flight; the current generation began at @now. */
void mpath_inflight_init(struct mpath_inflight *f, unsigned long now)
{
	spin_lock_init(&f->lock);
	atomic64_set(&f->count, 0);
	f->gen = 0;
	f->since = now;
}

static unsigned int mpath_inflight_older(const struct mpath_inflight *f,
					 unsigned int gen)
{
	u64 count = atomic64_read(&f->count);

	/* The older generation is the one I/O does not join now. */
	return gen ? lower_32_bits(count) : upper_32_bits(count);
}

/*
 * How long the oldest I/O in flight has at least been in flight at @now,
 * in jiffies: 0 when the older generation is empty.  Never more than the
 * oldest I/O's real age.
 */
unsigned long mpath_inflight_age(const struct mpath_inflight *f,
				 unsigned long now)
{
	unsigned int gen = READ_ONCE(f->gen);
	unsigned long since;

	/* Pairs with mpath_inflight_tick(): a new @gen with its @since. */
	smp_rmb();
	since = READ_ONCE(f->since);
	if (!mpath_inflight_older(f, gen) || !time_after(now, since))
		return 0;
	return now - since;
}

/*
 * A tick at @now (process context): when every I/O of the older generation
 * has completed, new I/O joins that one from now on and the current one
 * becomes the older.  Returns the age as mpath_inflight_age() after that.
 */
unsigned long mpath_inflight_tick(struct mpath_inflight *f, unsigned long now)
{
	unsigned long age = 0;

	spin_lock(&f->lock);
	/* Two tickers' clocks, read a moment apart: @since never goes back. */
	if (time_before(now, f->since))
		now = f->since;
	if (mpath_inflight_older(f, f->gen)) {
		age = now - f->since;
	} else {
		/*
		 * An I/O that read @gen before the store below joins the
		 * generation that becomes the older one; it began before
		 * @since, so its age is not overstated.
		 */
		WRITE_ONCE(f->since, now);
		/* Pairs with mpath_inflight_age(). */
		smp_wmb();
		WRITE_ONCE(f->gen, !f->gen);
	}
	spin_unlock(&f->lock);
	return age;
}
