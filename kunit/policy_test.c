// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: every path selection policy against fake path maps.
 */

#include <kunit/test.h>
#include <linux/numa.h>
#include <linux/slab.h>

#include <mpath_shim/mpath_shim.h>

#define MAX_PATHS	8

struct fake_lun {
	struct mpath_path	*paths[MAX_PATHS];
	unsigned int		nr;
	struct mpath_selector	*sel;
	struct mpath_path_map	*map;
};

static struct fake_lun *fake_lun(struct kunit *test, unsigned int nr,
				 const struct mpath_policy *policy)
{
	struct fake_lun *lun = kunit_kzalloc(test, sizeof(*lun), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, lun);
	lun->nr = nr;
	for (i = 0; i < nr; i++) {
		lun->paths[i] = kunit_kzalloc(test, sizeof(struct mpath_path),
					      GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, lun->paths[i]);
		lun->paths[i]->state = MPATH_PATH_ACTIVE;
		lun->paths[i]->locality = NUMA_NO_NODE;
		lun->paths[i]->weight = 1;
	}
	lun->sel = mpath_selector_alloc(policy);
	KUNIT_ASSERT_NOT_NULL(test, lun->sel);
	return lun;
}

/* Build the map as the core does: the usable paths, in order. */
static void fake_publish(struct kunit *test, struct fake_lun *lun,
			 struct mpath_path *preferred)
{
	struct mpath_path *usable[MAX_PATHS];
	unsigned int i, n = 0;

	for (i = 0; i < lun->nr; i++)
		if (mpath_path_usable(lun->paths[i]))
			usable[n++] = lun->paths[i];
	kfree(lun->map);
	lun->map = mpath_path_map_build(usable, n, preferred, lun->sel->policy,
					GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lun->map);
}

static void fake_free(struct fake_lun *lun)
{
	kfree(lun->map);
	mpath_selector_free(lun->sel);
}

static int fake_index(struct fake_lun *lun, struct mpath_path *path)
{
	unsigned int i;

	for (i = 0; i < lun->nr; i++)
		if (lun->paths[i] == path)
			return i;
	return -1;
}

/* Pick @picks times from @node; count the picks per path (-1: none). */
static void fake_picks(struct kunit *test, struct fake_lun *lun, int node,
		       unsigned int picks, unsigned int *count)
{
	struct mpath_path *path;
	unsigned int i;

	memset(count, 0, sizeof(*count) * (MAX_PATHS + 1));
	rcu_read_lock();
	for (i = 0; i < picks; i++) {
		path = mpath_selector_select(lun->sel, lun->map, node, 4096);
		count[path ? fake_index(lun, path) : MAX_PATHS]++;
	}
	rcu_read_unlock();
}

/* round_robin */

struct rr_case {
	const char	*desc;
	unsigned int	nr;
	unsigned int	down;		/* bitmask of paths not usable */
	int		down_state;
};

static const struct rr_case rr_cases[] = {
	{ "1 path", 1, 0, 0 },
	{ "2 paths", 2, 0, 0 },
	{ "4 paths", 4, 0, 0 },
	{ "8 paths", 8, 0, 0 },
	{ "4 paths, 1 failed", 4, 0x2, MPATH_PATH_FAILED },
	{ "4 paths, 2 disabled", 4, 0x9, MPATH_PATH_DISABLED },
	{ "3 paths, 1 held", 3, 0x4, MPATH_PATH_HELD },
	{ "4 paths, all failed", 4, 0xf, MPATH_PATH_FAILED },
};

static void rr_desc(const struct rr_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(rr, rr_cases, rr_desc);

static void rr_test(struct kunit *test, bool stale_map)
{
	const struct rr_case *c = test->param_value;
	struct fake_lun *lun = fake_lun(test, c->nr, &mpath_ps_round_robin);
	unsigned int count[MAX_PATHS + 1], i, up = 0, picks = 840 * 10;

	if (!stale_map)
		for (i = 0; i < c->nr; i++)
			if (c->down & BIT(i))
				lun->paths[i]->state = c->down_state;
	fake_publish(test, lun, NULL);
	/* A map built before the paths failed must skip them too. */
	for (i = 0; i < c->nr; i++)
		if (c->down & BIT(i))
			lun->paths[i]->state = c->down_state;
	for (i = 0; i < c->nr; i++)
		up += !(c->down & BIT(i));
	fake_picks(test, lun, NUMA_NO_NODE, picks, count);
	for (i = 0; i < c->nr; i++)
		KUNIT_EXPECT_EQ_MSG(test, count[i],
				    (c->down & BIT(i)) ? 0 : picks / up,
				    "path %u", i);
	KUNIT_EXPECT_EQ(test, count[MAX_PATHS], up ? 0 : picks);
	fake_free(lun);
}

static void rr_even_test(struct kunit *test)
{
	rr_test(test, false);
}

static void rr_stale_map_test(struct kunit *test)
{
	rr_test(test, true);
}

/* The round-robin cursor: no division per pick, any stale value is safe. */
struct rr_cursor_case {
	const char	*desc;
	unsigned int	nr;
	unsigned int	down;		/* bitmask of failed paths */
	unsigned int	cursor;		/* before the pick */
	int		pick;		/* -1: none */
	unsigned int	after;		/* cursor after the pick */
};

static const struct rr_cursor_case rr_cursor_cases[] = {
	{ "first pick", 4, 0, 0, 0, 1 },
	{ "last path wraps", 4, 0, 3, 3, 0 },
	{ "skips a failed path", 4, 0x2, 1, 2, 3 },
	{ "skips failed paths across the end", 4, 0x9, 3, 1, 2 },
	{ "map shrank under the cursor", 3, 0, 7, 1, 2 },
	{ "cursor at UINT_MAX", 2, 0, UINT_MAX, 1, 0 },
	{ "all failed: cursor kept", 3, 0x7, 1, -1, 1 },
	{ "no paths", 0, 0, 5, -1, 5 },
};

static void rr_cursor_desc(const struct rr_cursor_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(rr_cursor, rr_cursor_cases, rr_cursor_desc);

static void rr_cursor_test(struct kunit *test)
{
	const struct rr_cursor_case *c = test->param_value;
	struct fake_lun *lun = fake_lun(test, max(c->nr, 1U),
					&mpath_ps_round_robin);
	unsigned int i, cursor = c->cursor;
	struct mpath_path *path;

	for (i = 0; i < c->nr; i++)
		if (c->down & BIT(i))
			lun->paths[i]->state = MPATH_PATH_FAILED;
	path = mpath_ps_rr_next(lun->paths, c->nr, &cursor);
	if (c->pick < 0)
		KUNIT_EXPECT_NULL(test, path);
	else
		KUNIT_EXPECT_PTR_EQ(test, path, lun->paths[c->pick]);
	KUNIT_EXPECT_EQ(test, cursor, c->after);
	fake_free(lun);
}

/* least_cmd_load */

struct lcl_case {
	const char	*desc;
	unsigned int	nr;
	int		load[MAX_PATHS];
	unsigned int	expect;		/* bitmask of acceptable picks */
};

static const struct lcl_case lcl_cases[] = {
	{ "minimum first", 4, { 0, 3, 5, 7 }, 0x1 },
	{ "minimum last", 4, { 9, 3, 5, 1 }, 0x8 },
	{ "minimum middle", 3, { 4, 2, 4 }, 0x2 },
	{ "two minima", 4, { 2, 1, 1, 3 }, 0x6 },
	{ "failed minimum skipped", 3, { -1, 5, 4 }, 0x4 },
	{ "all equal", 4, { 3, 3, 3, 3 }, 0xf },
};

static void lcl_desc(const struct lcl_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(lcl, lcl_cases, lcl_desc);

static void lcl_min_test(struct kunit *test)
{
	const struct lcl_case *c = test->param_value;
	struct fake_lun *lun = fake_lun(test, c->nr, &mpath_ps_least_cmd_load);
	unsigned int count[MAX_PATHS + 1], i, ties = 0, picks = 1200;

	for (i = 0; i < c->nr; i++) {
		if (c->load[i] < 0)
			lun->paths[i]->state = MPATH_PATH_FAILED;
		else
			atomic64_set(&lun->paths[i]->inflight.count, c->load[i]);
	}
	fake_publish(test, lun, NULL);
	/* the failed one stays in a stale map: put it back */
	for (i = 0; i < c->nr; i++)
		if (c->load[i] < 0)
			KUNIT_EXPECT_EQ(test, lun->map->nr, c->nr - 1);
	fake_picks(test, lun, NUMA_NO_NODE, picks, count);
	for (i = 0; i < c->nr; i++)
		ties += !!(c->expect & BIT(i));
	for (i = 0; i < c->nr; i++) {
		/* Ties are shared without bias: exactly evenly here. */
		KUNIT_EXPECT_EQ_MSG(test, count[i],
				    (c->expect & BIT(i)) ? picks / ties : 0,
				    "path %u", i);
	}
	fake_free(lun);
}

/* A path whose load grows as it is chosen: the policy evens the loads. */
static void lcl_tracks_load_test(struct kunit *test)
{
	struct fake_lun *lun = fake_lun(test, 4, &mpath_ps_least_cmd_load);
	struct mpath_path *path;
	unsigned int i;

	fake_publish(test, lun, NULL);
	atomic64_set(&lun->paths[2]->inflight.count, 10);
	rcu_read_lock();
	for (i = 0; i < 30; i++) {
		path = mpath_selector_select(lun->sel, lun->map, 0, 4096);
		atomic64_inc(&path->inflight.count);
	}
	rcu_read_unlock();
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ_MSG(test, mpath_path_inflight(lun->paths[i]),
				    10, "path %u", i);
	fake_free(lun);
}

/* cell_local_rr */

struct clrr_case {
	const char	*desc;
	unsigned int	nr;
	int		locality[MAX_PATHS];
	unsigned int	down;
	int		node;
	unsigned int	expect;		/* bitmask of paths used, evenly */
};

static const struct clrr_case clrr_cases[] = {
	{ "node 0 of 2x2", 4, { 0, 0, 1, 1 }, 0, 0, 0x3 },
	{ "node 1 of 2x2", 4, { 0, 0, 1, 1 }, 0, 1, 0xc },
	{ "interleaved", 4, { 0, 1, 0, 1 }, 0, 1, 0xa },
	{ "no local path: all", 4, { 0, 0, 1, 1 }, 0, 2, 0xf },
	{ "local paths failed: all others", 4, { 0, 0, 1, 1 }, 0x3, 0, 0xc },
	{ "one local failed", 4, { 0, 0, 1, 1 }, 0x1, 0, 0x2 },
	{ "no localities: all", 3, { -1, -1, -1 }, 0, 0, 0x7 },
};

static void clrr_desc(const struct clrr_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(clrr, clrr_cases, clrr_desc);

static void clrr_local_test(struct kunit *test)
{
	const struct clrr_case *c = test->param_value;
	struct fake_lun *lun = fake_lun(test, c->nr, &mpath_ps_cell_local_rr);
	unsigned int count[MAX_PATHS + 1], i, used = 0, picks = 1200;

	for (i = 0; i < c->nr; i++) {
		lun->paths[i]->locality = c->locality[i];
		if (c->down & BIT(i))
			lun->paths[i]->state = MPATH_PATH_FAILED;
	}
	fake_publish(test, lun, NULL);
	fake_picks(test, lun, c->node, picks, count);
	for (i = 0; i < c->nr; i++)
		used += !!(c->expect & BIT(i));
	for (i = 0; i < c->nr; i++)
		KUNIT_EXPECT_EQ_MSG(test, count[i],
				    (c->expect & BIT(i)) ? picks / used : 0,
				    "path %u", i);
	fake_free(lun);
}

/* path_lockdown and preferred_path */

static void lockdown_never_moves_test(struct kunit *test)
{
	struct fake_lun *lun = fake_lun(test, 4, &mpath_ps_path_lockdown);
	unsigned int count[MAX_PATHS + 1];

	fake_publish(test, lun, lun->paths[2]);
	KUNIT_EXPECT_EQ(test, lun->map->nr, 1);
	fake_picks(test, lun, 0, 1000, count);
	KUNIT_EXPECT_EQ(test, count[2], 1000);

	/* Its path fails: nothing, no failover (stale map and rebuilt). */
	lun->paths[2]->state = MPATH_PATH_FAILED;
	fake_picks(test, lun, 0, 100, count);
	KUNIT_EXPECT_EQ(test, count[MAX_PATHS], 100);
	fake_publish(test, lun, lun->paths[2]);
	KUNIT_EXPECT_EQ(test, lun->map->nr, 0);
	KUNIT_EXPECT_FALSE(test, mpath_path_map_has_usable(lun->map));

	/* Back: I/O returns to it and only to it. */
	lun->paths[2]->state = MPATH_PATH_ACTIVE;
	fake_publish(test, lun, lun->paths[2]);
	fake_picks(test, lun, 0, 1000, count);
	KUNIT_EXPECT_EQ(test, count[2], 1000);
	fake_free(lun);
}

static void preferred_falls_back_and_returns_test(struct kunit *test)
{
	struct fake_lun *lun = fake_lun(test, 4, &mpath_ps_preferred_path);
	unsigned int count[MAX_PATHS + 1], i;

	fake_publish(test, lun, lun->paths[1]);
	fake_picks(test, lun, 0, 1000, count);
	KUNIT_EXPECT_EQ(test, count[1], 1000);

	lun->paths[1]->state = MPATH_PATH_FAILED;
	fake_publish(test, lun, lun->paths[1]);
	KUNIT_EXPECT_NULL(test, lun->map->preferred);
	fake_picks(test, lun, 0, 999, count);
	KUNIT_EXPECT_EQ(test, count[1], 0);
	for (i = 0; i < 4; i += 2)
		KUNIT_EXPECT_EQ_MSG(test, count[i], 333, "path %u", i);
	KUNIT_EXPECT_EQ(test, count[3], 333);

	lun->paths[1]->state = MPATH_PATH_ACTIVE;
	fake_publish(test, lun, lun->paths[1]);
	fake_picks(test, lun, 0, 1000, count);
	KUNIT_EXPECT_EQ(test, count[1], 1000);

	/* No preferred path: round robin. */
	fake_publish(test, lun, NULL);
	fake_picks(test, lun, 0, 1000, count);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ_MSG(test, count[i], 250, "path %u", i);
	fake_free(lun);
}

/* weighted_rr */

struct wrr_case {
	const char	*desc;
	unsigned int	nr;
	unsigned int	weight[MAX_PATHS];
};

static const struct wrr_case wrr_cases[] = {
	{ "1:1", 2, { 1, 1 } },
	{ "1:2:3:4", 4, { 1, 2, 3, 4 } },
	{ "5:1", 2, { 5, 1 } },
	{ "30:20:10", 3, { 30, 20, 10 } },
	{ "7:3:1:1", 4, { 7, 3, 1, 1 } },
	{ "1000:1:1", 3, { 1000, 1, 1 } },
	{ "997:991:983", 3, { 997, 991, 983 } },
};

static void wrr_desc(const struct wrr_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(wrr, wrr_cases, wrr_desc);

static void wrr_share_test(struct kunit *test)
{
	const struct wrr_case *c = test->param_value;
	struct fake_lun *lun = fake_lun(test, c->nr, &mpath_ps_weighted_rr);
	unsigned int count[MAX_PATHS + 1], i, sum = 0, picks = 10000;

	for (i = 0; i < c->nr; i++) {
		lun->paths[i]->weight = c->weight[i];
		sum += c->weight[i];
	}
	fake_publish(test, lun, NULL);
	fake_picks(test, lun, 0, picks, count);
	for (i = 0; i < c->nr; i++) {
		int want = picks * c->weight[i] / sum;

		/* within 1 % of the picks */
		KUNIT_EXPECT_LE_MSG(test, abs((int)count[i] - want), picks / 100,
				    "path %u: %u picks, want %d", i, count[i], want);
	}
	fake_free(lun);
}

/* weighted_rr interleaves: 3:1 never sends 4 in a row to one path. */
static void wrr_smooth_test(struct kunit *test)
{
	struct fake_lun *lun = fake_lun(test, 2, &mpath_ps_weighted_rr);
	struct mpath_path *path, *last = NULL;
	unsigned int i, run = 0, longest = 0;

	lun->paths[0]->weight = 3;
	fake_publish(test, lun, NULL);
	rcu_read_lock();
	for (i = 0; i < 400; i++) {
		path = mpath_selector_select(lun->sel, lun->map, 0, 4096);
		run = path == last ? run + 1 : 1;
		longest = max(longest, run);
		last = path;
	}
	rcu_read_unlock();
	KUNIT_EXPECT_LE(test, longest, 3);
	fake_free(lun);
}

/* service_time */

/*
 * Two paths serve 3 and 1 I/Os per tick, first in first out; 4 new I/Os
 * arrive each tick and the policy places them.  The core's accounting is
 * done as in io.c.  The faster path must end up with about 3/4 of the I/O.
 */
struct st_io {
	unsigned int	path;
	u64		sent, ahead;
};

static void st_prefers_faster_test(struct kunit *test)
{
	struct fake_lun *lun = fake_lun(test, 2, &mpath_ps_service_time);
	static const unsigned int rate[2] = { 3, 1 };
	const unsigned int bytes = 4096, ticks = 3000, tick_ns = 1000000;
	struct st_io *q[2];
	unsigned int head[2] = { 0 }, tail[2] = { 0 }, done[2] = { 0 };
	unsigned int t, i, p, n;
	struct mpath_path *path;

	for (p = 0; p < 2; p++) {
		q[p] = kunit_kcalloc(test, ticks * 4, sizeof(struct st_io),
				     GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, q[p]);
	}
	fake_publish(test, lun, NULL);
	for (t = 0; t < ticks; t++) {
		rcu_read_lock();
		for (i = 0; i < 4; i++) {
			path = mpath_selector_select(lun->sel, lun->map, 0, bytes);
			KUNIT_ASSERT_NOT_NULL(test, path);
			p = fake_index(lun, path);
			atomic64_inc(&path->inflight.count);
			q[p][tail[p]].ahead = atomic64_add_return(bytes,
								  &path->active_bytes);
			q[p][tail[p]++].sent = (u64)t * tick_ns;
		}
		rcu_read_unlock();
		for (p = 0; p < 2; p++) {
			path = lun->paths[p];
			for (n = 0; n < rate[p] && head[p] < tail[p]; n++) {
				struct st_io *io = &q[p][head[p]++];

				atomic64_dec(&path->inflight.count);
				atomic64_sub(bytes, &path->active_bytes);
				mpath_path_cost_update(path,
						       (u64)(t + 1) * tick_ns - io->sent,
						       io->ahead);
				if (t >= ticks / 2)
					done[p]++;
			}
		}
	}
	/* Second half, in steady state: 3:1 within 10 %. */
	kunit_info(test, "fast %u, slow %u, costs %llu %llu", done[0], done[1],
		   lun->paths[0]->cost, lun->paths[1]->cost);
	KUNIT_EXPECT_GE(test, done[0] * 10, done[1] * 3 * 9);
	KUNIT_EXPECT_LE(test, done[0] * 10, done[1] * 3 * 11);
	/* and the queue of the slow path did not grow without bound */
	KUNIT_EXPECT_LE(test, tail[1] - head[1], 64);
	fake_free(lun);
}

static void st_unmeasured_path_used_test(struct kunit *test)
{
	struct fake_lun *lun = fake_lun(test, 3, &mpath_ps_service_time);
	unsigned int count[MAX_PATHS + 1];

	lun->paths[0]->cost = 1000;
	lun->paths[1]->cost = 1000;
	fake_publish(test, lun, NULL);
	/* Idle paths, equal or unknown cost: all are used. */
	fake_picks(test, lun, 0, 300, count);
	KUNIT_EXPECT_EQ(test, count[0], 100);
	KUNIT_EXPECT_EQ(test, count[1], 100);
	KUNIT_EXPECT_EQ(test, count[2], 100);
	/* An unmeasured path is charged the lowest measured cost. */
	lun->paths[1]->cost = 250;
	atomic64_set(&lun->paths[1]->active_bytes, 3 * 4096);
	atomic64_set(&lun->paths[0]->active_bytes, 4096);
	atomic64_set(&lun->paths[2]->active_bytes, 4096);
	fake_picks(test, lun, 0, 10, count);
	KUNIT_EXPECT_EQ(test, count[2], 10);
	/* A cheaper path wins while its queue is not longer in time. */
	lun->paths[2]->cost = 1000;
	fake_picks(test, lun, 0, 10, count);
	KUNIT_EXPECT_EQ(test, count[1], 10);
	fake_free(lun);
}

/* The registry and the policy file */

static void policy_registry_test(struct kunit *test)
{
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_PTR_EQ(test, mpath_policy_find("round_robin"),
			    (const struct mpath_policy *)&mpath_ps_round_robin);
	KUNIT_EXPECT_PTR_EQ(test, mpath_policy_find("service_time\n"),
			    (const struct mpath_policy *)&mpath_ps_service_time);
	KUNIT_EXPECT_NULL(test, mpath_policy_find("round"));
	KUNIT_EXPECT_NULL(test, mpath_policy_find(""));
	KUNIT_EXPECT_EQ(test, mpath_policy_register(&mpath_ps_round_robin),
			-EEXIST);
	mpath_policy_show_all(&mpath_ps_least_cmd_load, buf);
	KUNIT_EXPECT_STREQ(test, buf,
			   "round_robin [least_cmd_load] cell_local_rr path_lockdown preferred_path weighted_rr service_time\n");
}

static int policy_suite_init(struct kunit_suite *suite)
{
	return mpath_policies_init();
}

static void policy_suite_exit(struct kunit_suite *suite)
{
	mpath_policies_exit();
}

static struct kunit_case mpath_shim_policy_cases[] = {
	KUNIT_CASE_PARAM(rr_even_test, rr_gen_params),
	KUNIT_CASE_PARAM(rr_stale_map_test, rr_gen_params),
	KUNIT_CASE_PARAM(rr_cursor_test, rr_cursor_gen_params),
	KUNIT_CASE_PARAM(lcl_min_test, lcl_gen_params),
	KUNIT_CASE(lcl_tracks_load_test),
	KUNIT_CASE_PARAM(clrr_local_test, clrr_gen_params),
	KUNIT_CASE(lockdown_never_moves_test),
	KUNIT_CASE(preferred_falls_back_and_returns_test),
	KUNIT_CASE_PARAM(wrr_share_test, wrr_gen_params),
	KUNIT_CASE(wrr_smooth_test),
	KUNIT_CASE(st_prefers_faster_test),
	KUNIT_CASE(st_unmeasured_path_used_test),
	KUNIT_CASE(policy_registry_test),
	{}
};

static struct kunit_suite mpath_shim_policy_suite = {
	.name		= "mpath_shim_policy",
	.suite_init	= policy_suite_init,
	.suite_exit	= policy_suite_exit,
	.test_cases	= mpath_shim_policy_cases,
};

kunit_test_suites(&mpath_shim_policy_suite);

MODULE_LICENSE("GPL");
