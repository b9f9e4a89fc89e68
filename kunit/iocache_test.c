// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a CPU's cache of free I/O contexts and where a freed context goes
 * (include/mpath_shim/iocache.h).  Each case is a script of pushes, pops
 * and placements on one cache of at most CACHE_MAX contexts.
 */

#include <kunit/test.h>
#include <linux/percpu.h>
#include <linux/preempt.h>

#include <mpath_shim/iocache.h>

#define CACHE_MAX	3
#define NR_OBJS		5
#define NONE		(-1)

enum step_op { END_OF_SCRIPT, PUSH, POP, FREE_TO };

/*
 * PUSH: context @obj is offered (expect: 1 kept, 0 refused);
 * POP: expect the context taken out, NONE if the cache was empty;
 * FREE_TO: a context is freed while the LUN's reserve holds @curr of @min
 * (expect: enum mpath_io_free_to).  After each step the cache holds
 * @nr contexts.
 */
struct step {
	enum step_op	op;
	int		obj;
	int		curr;
	int		min;
	int		expect;
	unsigned int	nr;
};

struct iocache_case {
	const char	*desc;
	struct step	steps[16];
};

static const struct iocache_case iocache_cases[] = {
	{ "empty: nothing to take", {
		{ POP, 0, 0, 0, NONE, 0 }, { POP, 0, 0, 0, NONE, 0 },
	} },
	{ "last freed is first used (its lines are warm)", {
		{ PUSH, 0, 0, 0, 1, 1 }, { PUSH, 1, 0, 0, 1, 2 },
		{ POP, 0, 0, 0, 1, 1 }, { PUSH, 2, 0, 0, 1, 2 },
		{ POP, 0, 0, 0, 2, 1 }, { POP, 0, 0, 0, 0, 0 },
		{ POP, 0, 0, 0, NONE, 0 },
	} },
	{ "full: refuses until one is taken", {
		{ PUSH, 0, 0, 0, 1, 1 }, { PUSH, 1, 0, 0, 1, 2 },
		{ PUSH, 2, 0, 0, 1, 3 }, { PUSH, 3, 0, 0, 0, 3 },
		{ POP, 0, 0, 0, 2, 2 }, { PUSH, 4, 0, 0, 1, 3 },
		{ POP, 0, 0, 0, 4, 2 }, { POP, 0, 0, 0, 1, 1 },
		{ POP, 0, 0, 0, 0, 0 },
	} },
	{ "a short reserve is refilled first, even with room here", {
		{ FREE_TO, 0, 0, 2, MPATH_IO_TO_RESERVE, 0 },
		{ FREE_TO, 0, 1, 2, MPATH_IO_TO_RESERVE, 0 },
		{ FREE_TO, 0, 2, 2, MPATH_IO_TO_CACHE, 0 },
	} },
	{ "a full reserve: the cache while it has room, then the slab", {
		{ FREE_TO, 0, 2, 2, MPATH_IO_TO_CACHE, 0 },
		{ PUSH, 0, 0, 0, 1, 1 }, { PUSH, 1, 0, 0, 1, 2 },
		{ FREE_TO, 0, 2, 2, MPATH_IO_TO_CACHE, 2 },
		{ PUSH, 2, 0, 0, 1, 3 },
		{ FREE_TO, 0, 2, 2, MPATH_IO_TO_SLAB, 3 },
		{ FREE_TO, 0, 1, 2, MPATH_IO_TO_RESERVE, 3 },
		{ POP, 0, 0, 0, 2, 2 },
		{ FREE_TO, 0, 2, 2, MPATH_IO_TO_CACHE, 2 },
	} },
};

static void iocache_case_desc(const struct iocache_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(iocache, iocache_cases, iocache_case_desc);

static void iocache_script_test(struct kunit *test)
{
	const struct iocache_case *c = test->param_value;
	struct mpath_io_free objs[NR_OBJS];
	struct mpath_io_cache __percpu *pc;
	struct mpath_io_cache *cache;
	const struct step *s;
	unsigned int i, nr;
	int got, which;
	void *obj;

	pc = alloc_percpu(struct mpath_io_cache);
	KUNIT_ASSERT_NOT_NULL(test, pc);
	/* The script runs on one CPU's cache, each step as the driver's do. */
	migrate_disable();
	cache = this_cpu_ptr(pc);
	for (i = 0; i < ARRAY_SIZE(c->steps) && c->steps[i].op; i++) {
		s = &c->steps[i];
		preempt_disable();
		switch (s->op) {
		case PUSH:
			got = mpath_io_cache_push(pc, &objs[s->obj], CACHE_MAX);
			break;
		case POP:
			obj = mpath_io_cache_pop(pc);
			got = obj ? (int)((struct mpath_io_free *)obj - objs) :
				    NONE;
			break;
		case FREE_TO:
			got = mpath_io_free_to(s->curr, s->min,
					       this_cpu_read(pc->nr), CACHE_MAX);
			break;
		default:
			got = NONE - 1;
		}
		nr = this_cpu_read(pc->nr);
		preempt_enable();
		KUNIT_EXPECT_EQ_MSG(test, got, s->expect, "step %u", i);
		KUNIT_EXPECT_EQ_MSG(test, nr, s->nr, "step %u", i);
	}
	/* An empty cache has no head: nothing freed is handed out again. */
	which = !cache->nr && cache->head;
	migrate_enable();
	KUNIT_EXPECT_EQ(test, which, 0);
	free_percpu(pc);
}

static struct kunit_case iocache_test_cases[] = {
	KUNIT_CASE_PARAM(iocache_script_test, iocache_gen_params),
	{}
};

static struct kunit_suite iocache_test_suite = {
	.name = "mpath_shim_iocache",
	.test_cases = iocache_test_cases,
};
kunit_test_suite(iocache_test_suite);

MODULE_LICENSE("GPL");
