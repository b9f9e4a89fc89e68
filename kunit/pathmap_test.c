// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: path maps and the cost arithmetic of load tracking.
 */

#include <kunit/test.h>
#include <linux/slab.h>

#include <mpath_shim/mpath_shim.h>

static struct mpath_path *fake_paths(struct kunit *test, unsigned int nr)
{
	struct mpath_path *paths;
	unsigned int i;

	paths = kunit_kcalloc(test, nr, sizeof(*paths), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, paths);
	for (i = 0; i < nr; i++)
		paths[i].state = MPATH_PATH_ACTIVE;
	return paths;
}

struct map_case {
	const char			*desc;
	unsigned int			nr;
	int				preferred;	/* index, -1 none */
	const struct mpath_policy	*policy;
	unsigned int			want_nr;
	bool				want_preferred;
	unsigned int			others;	/* of a lower rank */
	unsigned int			want_wc;	/* for flushes only */
};

static const struct map_case map_cases[] = {
	{ "plain", 4, -1, &mpath_ps_round_robin, 4, false, 0, 0 },
	{ "preferred in map", 4, 2, &mpath_ps_preferred_path, 4, true, 0, 0 },
	{ "lockdown: its path only", 4, 1, &mpath_ps_path_lockdown, 1, true, 0, 3 },
	{ "lockdown without a path", 4, -1, &mpath_ps_path_lockdown, 0, false, 0, 4 },
	{ "empty", 0, -1, &mpath_ps_weighted_rr, 0, false, 0, 0 },
	{ "with data", 3, -1, &mpath_ps_cell_local_rr, 3, false, 0, 0 },
	{ "lower rank for flushes", 2, -1, &mpath_ps_round_robin, 2, false, 2, 2 },
	{ "lockdown, lower rank", 2, 0, &mpath_ps_path_lockdown, 1, true, 2, 3 },
	{ "only a lower rank", 0, -1, &mpath_ps_service_time, 0, false, 2, 2 },
};

static void map_desc(const struct map_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(map, map_cases, map_desc);

static void map_build_test(struct kunit *test)
{
	const struct map_case *c = test->param_value;
	struct mpath_path *paths = fake_paths(test, 6);
	struct mpath_path *ptrs[4] = { &paths[0], &paths[1], &paths[2], &paths[3] };
	struct mpath_path *others[2] = { &paths[4], &paths[5] };
	struct mpath_path *preferred = c->preferred >= 0 ? ptrs[c->preferred] : NULL;
	struct mpath_path_map *map;
	unsigned int i, j;

	map = mpath_path_map_build_all(ptrs, c->nr, others, c->others,
				       preferred, c->policy, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, map);
	KUNIT_EXPECT_EQ(test, map->nr, c->want_nr);
	KUNIT_EXPECT_EQ(test, map->nr_wc, c->want_wc);
	/* Every path given is in the map once: for I/O, or for flushes. */
	for (i = 0; i < 6; i++) {
		unsigned int seen = 0;

		for (j = 0; j < map->nr + map->nr_wc; j++)
			seen += map->paths[j] == &paths[i];
		KUNIT_EXPECT_EQ(test, seen,
				(unsigned int)(i < 4 ? i < c->nr :
					       i - 4 < c->others));
	}
	KUNIT_EXPECT_PTR_EQ(test, map->policy, c->policy);
	KUNIT_EXPECT_PTR_EQ(test, map->preferred,
			    c->want_preferred ? preferred : NULL);
	KUNIT_EXPECT_EQ(test, !!map->ps_data, !!c->policy->data_size);
	if (c->want_nr == 1 && preferred)
		KUNIT_EXPECT_PTR_EQ(test, map->paths[0], preferred);
	else
		for (i = 0; i < map->nr; i++)
			KUNIT_EXPECT_PTR_EQ(test, map->paths[i], ptrs[i]);
	KUNIT_EXPECT_EQ(test, mpath_path_map_has_usable(map), map->nr > 0);
	kfree(map);
}

static void map_has_usable_test(struct kunit *test)
{
	struct mpath_path *paths = fake_paths(test, 2);
	struct mpath_path *ptrs[2] = { &paths[0], &paths[1] };
	struct mpath_path_map *map;

	map = mpath_path_map_build(ptrs, 2, NULL, &mpath_ps_round_robin,
				   GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, map);
	KUNIT_EXPECT_TRUE(test, mpath_path_map_has_usable(map));
	paths[0].state = MPATH_PATH_FAILED;
	KUNIT_EXPECT_TRUE(test, mpath_path_map_has_usable(map));
	paths[1].state = MPATH_PATH_DISABLED;
	KUNIT_EXPECT_FALSE(test, mpath_path_map_has_usable(map));
	KUNIT_EXPECT_FALSE(test, mpath_path_map_has_usable(NULL));
	kfree(map);
}

struct cost_case {
	const char	*desc;
	u64		ns;
	u64		ahead;
	u64		want;	/* after many samples */
};

static const struct cost_case cost_cases[] = {
	{ "1 ms for 4 KiB", 1000000, 4096, 250000 },
	{ "1 ms for 64 KiB", 1000000, 65536, 15625 },
	{ "rounds up to 1 KiB", 5000, 1, 5000 },
	{ "nothing ahead counts as 1 KiB", 7000, 0, 7000 },
};

static void cost_desc(const struct cost_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(cost, cost_cases, cost_desc);

static void cost_converges_test(struct kunit *test)
{
	const struct cost_case *c = test->param_value;
	struct mpath_path *path = fake_paths(test, 1);
	unsigned int i;

	mpath_path_cost_update(path, c->ns, c->ahead);
	/* The first sample is taken whole. */
	KUNIT_EXPECT_EQ(test, path->cost, c->want);
	path->cost = c->want * 4;
	for (i = 0; i < 200; i++)
		mpath_path_cost_update(path, c->ns, c->ahead);
	/* EWMA 1/8: within 1 % after 200 samples */
	KUNIT_EXPECT_LE(test, path->cost, c->want + c->want / 100 + 8);
	KUNIT_EXPECT_GE(test, path->cost, c->want - c->want / 100 - 8);
}

static struct kunit_case mpath_shim_pathmap_cases[] = {
	KUNIT_CASE_PARAM(map_build_test, map_gen_params),
	KUNIT_CASE(map_has_usable_test),
	KUNIT_CASE_PARAM(cost_converges_test, cost_gen_params),
	{}
};

static struct kunit_suite mpath_shim_pathmap_suite = {
	.name		= "mpath_shim_pathmap",
	.test_cases	= mpath_shim_pathmap_cases,
};

kunit_test_suites(&mpath_shim_pathmap_suite);

MODULE_LICENSE("GPL");
