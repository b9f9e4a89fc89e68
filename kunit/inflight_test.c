// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a lunpath's I/O in flight by generation, and the age the watchdog
 * reads from it (drivers/mpath_shim/inflight.c).  Each case is a script of
 * I/Os sent and completed and watchdog ticks at given jiffies.
 */

#include <kunit/test.h>

#include <mpath_shim/inflight.h>

enum step_op { END_OF_SCRIPT, SEND, DONE, TICK, AGE, GET };

/*
 * SEND: I/O number @io joins (expect: total in flight after); GET: it takes
 * one of @t tags (expect: total in flight after, 0 if none was free: then
 * the count is as it was);
 * DONE: it completes (expect: total left); TICK / AGE: the watchdog's tick,
 * or a look without aging, at jiffies @t (expect: the age).
 */
struct step {
	enum step_op	op;
	unsigned int	io;
	unsigned long	t;
	unsigned long	expect;
};

#define MAX_IOS	4

/* @start: jiffies when the path was set up. */
struct inflight_case {
	const char	*desc;
	unsigned long	start;
	struct step	steps[16];
};

static const struct inflight_case inflight_cases[] = {
	{ "idle path: no age, ticks age nothing", 0, {
		{ TICK, 0, 100, 0 }, { TICK, 0, 200, 0 }, { AGE, 0, 900, 0 },
	} },
	{ "I/O completing between ticks is never old", 0, {
		{ SEND, 0, 0, 1 }, { TICK, 0, 10, 0 }, { DONE, 0, 0, 0 },
		{ SEND, 1, 0, 1 }, { TICK, 0, 20, 0 }, { DONE, 1, 0, 0 },
		{ TICK, 0, 30, 0 }, { TICK, 0, 500, 0 }, { AGE, 0, 900, 0 },
	} },
	{ "a hung I/O ages from the first tick after it was sent", 0, {
		{ SEND, 0, 0, 1 }, { TICK, 0, 10, 0 }, { TICK, 0, 20, 10 },
		{ AGE, 0, 35, 25 }, { TICK, 0, 1010, 1000 },
	} },
	{ "a hung I/O among completing ones still ages", 0, {
		{ SEND, 0, 0, 1 }, { SEND, 1, 0, 2 }, { TICK, 0, 10, 0 },
		{ DONE, 1, 0, 1 }, { SEND, 2, 0, 2 }, { TICK, 0, 20, 10 },
		{ DONE, 2, 0, 1 }, { SEND, 3, 0, 2 }, { DONE, 3, 0, 1 },
		{ TICK, 0, 30, 20 }, { TICK, 0, 40, 30 },
	} },
	{ "it completes: the age falls to 0 and aging resumes", 0, {
		{ SEND, 0, 0, 1 }, { TICK, 0, 10, 0 }, { TICK, 0, 50, 40 },
		{ DONE, 0, 0, 0 }, { AGE, 0, 60, 0 }, { TICK, 0, 70, 0 },
		{ SEND, 1, 0, 1 }, { TICK, 0, 80, 0 }, { TICK, 0, 90, 10 },
	} },
	{ "newer I/O is never aged by an older generation's start", 0, {
		/* I/O 1 is sent after the tick at 10: it may not look older. */
		{ SEND, 0, 0, 1 }, { TICK, 0, 10, 0 }, { SEND, 1, 0, 2 },
		{ DONE, 0, 0, 1 }, { TICK, 0, 20, 0 }, { TICK, 0, 30, 10 },
	} },
	{ "jiffies wrap", ULONG_MAX - 10, {
		{ TICK, 0, ULONG_MAX - 5, 0 }, { SEND, 0, 0, 1 },
		{ TICK, 0, ULONG_MAX - 2, 0 }, { TICK, 0, 7, 10 },
	} },
	{ "a clock behind the generation's start reads 0", 0, {
		{ SEND, 0, 0, 1 }, { TICK, 0, 100, 0 }, { AGE, 0, 90, 0 },
		{ TICK, 0, 90, 0 },
	} },
	{ "a tick with a clock behind does not move the start back", 0, {
		{ TICK, 0, 100, 0 }, { SEND, 0, 0, 1 }, { TICK, 0, 90, 0 },
		{ TICK, 0, 150, 50 },
	} },
	{ "tags: up to the depth, then none until one completes", 0, {
		{ GET, 0, 2, 1 }, { GET, 1, 2, 2 }, { GET, 2, 2, 0 },
		{ GET, 2, 2, 0 }, { DONE, 0, 0, 1 }, { GET, 2, 2, 2 },
		{ DONE, 1, 0, 1 }, { DONE, 2, 0, 0 },
	} },
	{ "a lowered depth: I/O above it drains, none joins", 0, {
		{ GET, 0, 3, 1 }, { GET, 1, 3, 2 }, { GET, 2, 3, 3 },
		{ GET, 3, 1, 0 }, { DONE, 0, 0, 2 }, { GET, 3, 1, 0 },
		{ DONE, 1, 0, 1 }, { GET, 3, 1, 0 }, { DONE, 2, 0, 0 },
		{ GET, 3, 1, 1 },
	} },
	{ "a tag taken across a tick leaves the right generation", 0, {
		{ GET, 0, 1, 1 }, { TICK, 0, 10, 0 }, { GET, 1, 1, 0 },
		{ TICK, 0, 20, 10 }, { DONE, 0, 0, 0 }, { GET, 1, 1, 1 },
		{ TICK, 0, 30, 0 }, { TICK, 0, 40, 10 },
	} },
};

static void inflight_case_desc(const struct inflight_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(inflight, inflight_cases, inflight_case_desc);

static void inflight_script_test(struct kunit *test)
{
	const struct inflight_case *c = test->param_value;
	struct mpath_inflight f;
	u8 gen[MAX_IOS] = {};
	unsigned int i, before;
	const struct step *s;
	unsigned long got;

	mpath_inflight_init(&f, c->start);
	for (i = 0; i < ARRAY_SIZE(c->steps) && c->steps[i].op; i++) {
		s = &c->steps[i];
		switch (s->op) {
		case SEND:
			got = mpath_inflight_start(&f, &gen[s->io]);
			break;
		case DONE:
			got = mpath_inflight_end(&f, gen[s->io]);
			break;
		case GET:
			before = mpath_inflight_read(&f);
			got = mpath_inflight_get(&f, &gen[s->io], s->t);
			if (!got)
				KUNIT_EXPECT_EQ_MSG(test, mpath_inflight_read(&f),
						    before, "step %u", i);
			break;
		case TICK:
			got = mpath_inflight_tick(&f, s->t);
			break;
		default:
			got = mpath_inflight_age(&f, s->t);
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, got, s->expect, "step %u", i);
	}
}

/* Each generation counts to the largest queue depth without spilling. */
static void inflight_halves_test(struct kunit *test)
{
	struct mpath_inflight f;
	unsigned int i;
	u8 gen;

	mpath_inflight_init(&f, 0);
	for (i = 0; i < 4096; i++)
		mpath_inflight_start(&f, &gen);
	KUNIT_EXPECT_EQ(test, gen, 0);
	KUNIT_EXPECT_EQ(test, mpath_inflight_tick(&f, 1), 0UL);
	for (i = 0; i < 4096; i++)
		mpath_inflight_start(&f, &gen);
	KUNIT_EXPECT_EQ(test, gen, 1);
	KUNIT_EXPECT_EQ(test, mpath_inflight_read(&f), 8192U);
	for (i = 0; i < 4096; i++)
		mpath_inflight_end(&f, 0);
	KUNIT_EXPECT_EQ(test, mpath_inflight_read(&f), 4096U);
	/* Generation 0 is empty: the tick makes it current again. */
	KUNIT_EXPECT_EQ(test, mpath_inflight_tick(&f, 2), 0UL);
	KUNIT_EXPECT_EQ(test, mpath_inflight_age(&f, 5), 3UL);
	for (i = 0; i < 4096; i++)
		mpath_inflight_end(&f, 1);
	KUNIT_EXPECT_EQ(test, mpath_inflight_read(&f), 0U);
	KUNIT_EXPECT_EQ(test, mpath_inflight_age(&f, 5), 0UL);
}

static struct kunit_case inflight_test_cases[] = {
	KUNIT_CASE_PARAM(inflight_script_test, inflight_gen_params),
	KUNIT_CASE(inflight_halves_test),
	{}
};

static struct kunit_suite inflight_test_suite = {
	.name = "mpath_shim_inflight",
	.test_cases = inflight_test_cases,
};
kunit_test_suite(inflight_test_suite);

MODULE_LICENSE("GPL");
