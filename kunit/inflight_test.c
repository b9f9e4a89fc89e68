// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a lunpath's I/O in flight by class and generation, and the age the
 * watchdog reads from it (drivers/mpath_shim/inflight.c).  Each case is a
 * script of I/Os sent and completed and watchdog ticks at given jiffies;
 * the classes of I/O and their limits are tables.
 */

#include <kunit/test.h>

#include <mpath_shim/inflight.h>

enum step_op { END_OF_SCRIPT, SEND, DONE, TICK, AGE, GET, SLOW, STICK, SAGE };

/*
 * SEND: plain I/O number @io joins (expect: total in flight after); SLOW: a
 * slow one does; GET: a plain one takes one of @t tags (expect: total in
 * flight after, 0 if none was free: then the count is as it was);
 * DONE: it completes (expect: total left); TICK / AGE: the watchdog's tick
 * of the plain class, or a look without aging, at jiffies @t (expect: the
 * age); STICK / SAGE: the same for the slow class.
 */
struct step {
	enum step_op	op;
	unsigned int	io;
	unsigned long	t;
	unsigned long	expect;
};

#define MAX_IOS	4
/* The largest queue depth (MPATH_MAX_Q_DEPTH). */
#define MPATH_MAX_DEPTH	4096

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
	{ "slow I/O ages apart from plain I/O", 0, {
		{ SLOW, 0, 0, 1 }, { SEND, 1, 0, 2 }, { TICK, 0, 10, 0 },
		{ STICK, 0, 10, 0 }, { TICK, 0, 20, 10 }, { STICK, 0, 20, 10 },
		{ DONE, 1, 0, 1 }, { TICK, 0, 30, 0 }, { AGE, 0, 40, 0 },
		{ STICK, 0, 40, 30 }, { SAGE, 0, 50, 40 }, { DONE, 0, 0, 0 },
		{ SAGE, 0, 60, 0 }, { STICK, 0, 60, 0 },
	} },
	{ "a hung plain I/O ages while slow ones complete", 0, {
		{ SEND, 0, 0, 1 }, { SLOW, 1, 0, 2 }, { TICK, 0, 10, 0 },
		{ STICK, 0, 10, 0 }, { DONE, 1, 0, 1 }, { STICK, 0, 20, 0 },
		{ SLOW, 2, 0, 2 }, { TICK, 0, 30, 20 }, { SAGE, 0, 30, 0 },
		{ STICK, 0, 40, 0 }, { STICK, 0, 50, 10 }, { AGE, 0, 50, 40 },
	} },
	{ "slow I/O takes the same tags", 0, {
		{ GET, 0, 2, 1 }, { SLOW, 1, 0, 2 }, { GET, 2, 2, 0 },
		{ DONE, 1, 0, 1 }, { GET, 2, 2, 2 },
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
		case SLOW:
			got = mpath_inflight_get(&f, s->op == SLOW ?
						 MPATH_IO_SLOW : MPATH_IO_PLAIN,
						 &gen[s->io], MPATH_MAX_DEPTH);
			break;
		case DONE:
			got = mpath_inflight_end(&f, gen[s->io]);
			break;
		case GET:
			before = mpath_inflight_read(&f);
			got = mpath_inflight_get(&f, MPATH_IO_PLAIN,
						 &gen[s->io], s->t);
			if (!got)
				KUNIT_EXPECT_EQ_MSG(test, mpath_inflight_read(&f),
						    before, "step %u", i);
			break;
		case TICK:
		case STICK:
			got = mpath_inflight_tick(&f, s->op == STICK ?
						  MPATH_IO_SLOW : MPATH_IO_PLAIN,
						  s->t);
			break;
		default:
			got = mpath_inflight_age(&f, s->op == SAGE ?
						 MPATH_IO_SLOW : MPATH_IO_PLAIN,
						 s->t);
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, got, s->expect, "step %u", i);
	}
}

/*
 * Each field (class and generation) counts to the largest queue depth
 * without spilling into the next, with the others full too.
 */
static void inflight_fields_test(struct kunit *test)
{
	unsigned int class, i, n = 0;
	struct mpath_inflight f;
	u8 field;

	mpath_inflight_init(&f, 0);
	for (class = 0; class < MPATH_IO_CLASSES; class++) {
		for (i = 0; i < MPATH_MAX_DEPTH; i++)
			n = mpath_inflight_get(&f, class, &field, U32_MAX);
		KUNIT_EXPECT_EQ(test, field, 2 * class);
		KUNIT_EXPECT_EQ(test, mpath_inflight_tick(&f, class, 1), 0UL);
		for (i = 0; i < MPATH_MAX_DEPTH; i++)
			n = mpath_inflight_get(&f, class, &field, U32_MAX);
		KUNIT_EXPECT_EQ(test, field, 2 * class + 1);
	}
	KUNIT_EXPECT_EQ(test, n, 4U * MPATH_MAX_DEPTH);
	KUNIT_EXPECT_EQ(test, mpath_inflight_get(&f, MPATH_IO_PLAIN, &field,
						 4 * MPATH_MAX_DEPTH), 0U);
	for (i = 0; i < MPATH_MAX_DEPTH; i++)
		mpath_inflight_end(&f, 0);
	KUNIT_EXPECT_EQ(test, mpath_inflight_read(&f), 3U * MPATH_MAX_DEPTH);
	/* Plain generation 0 is empty: the tick makes it current again. */
	KUNIT_EXPECT_EQ(test, mpath_inflight_tick(&f, MPATH_IO_PLAIN, 2), 0UL);
	KUNIT_EXPECT_EQ(test, mpath_inflight_age(&f, MPATH_IO_PLAIN, 5), 3UL);
	KUNIT_EXPECT_EQ(test, mpath_inflight_age(&f, MPATH_IO_SLOW, 5), 4UL);
	for (i = 0; i < MPATH_MAX_DEPTH; i++)
		mpath_inflight_end(&f, 1);
	KUNIT_EXPECT_EQ(test, mpath_inflight_age(&f, MPATH_IO_PLAIN, 5), 0UL);
	for (field = 2; field < 4; field++)
		for (i = 0; i < MPATH_MAX_DEPTH; i++)
			mpath_inflight_end(&f, field);
	KUNIT_EXPECT_EQ(test, mpath_inflight_read(&f), 0U);
	KUNIT_EXPECT_EQ(test, mpath_inflight_age(&f, MPATH_IO_SLOW, 5), 0UL);
}

#define WC	MPATH_DEV_WC
#define WC_FUA	(MPATH_DEV_WC | MPATH_DEV_FUA)

/* The class of each kind of bio, by how the path's device takes flushes. */
static const struct class_case {
	const char		*desc;
	blk_opf_t		opf;
	unsigned int		dev;
	enum mpath_io_class	class;
} class_cases[] = {
	{ "read", REQ_OP_READ, WC_FUA, MPATH_IO_PLAIN },
	{ "read-ahead", REQ_OP_READ | REQ_RAHEAD, 0, MPATH_IO_PLAIN },
	{ "write", REQ_OP_WRITE, WC, MPATH_IO_PLAIN },
	{ "sync write", REQ_OP_WRITE | REQ_SYNC, WC, MPATH_IO_PLAIN },
	{ "FUA write, device with FUA", REQ_OP_WRITE | REQ_FUA, WC_FUA,
	  MPATH_IO_PLAIN },
	{ "FUA write, device without FUA", REQ_OP_WRITE | REQ_FUA, WC,
	  MPATH_IO_SLOW },
	{ "FUA write, no write cache (FUA dropped)", REQ_OP_WRITE | REQ_FUA, 0,
	  MPATH_IO_PLAIN },
	{ "empty flush (preflush write)", REQ_OP_WRITE | REQ_PREFLUSH, WC_FUA,
	  MPATH_IO_SLOW },
	{ "preflush, no write cache (dropped)", REQ_OP_WRITE | REQ_PREFLUSH, 0,
	  MPATH_IO_PLAIN },
	{ "preflush + FUA write", REQ_OP_WRITE | REQ_PREFLUSH | REQ_FUA, WC,
	  MPATH_IO_SLOW },
	{ "discard", REQ_OP_DISCARD, 0, MPATH_IO_SLOW },
	{ "secure erase", REQ_OP_SECURE_ERASE, WC, MPATH_IO_SLOW },
	{ "write zeroes", REQ_OP_WRITE_ZEROES, 0, MPATH_IO_SLOW },
	{ "write zeroes, no unmap", REQ_OP_WRITE_ZEROES | REQ_NOUNMAP, WC_FUA,
	  MPATH_IO_SLOW },
};

static void class_case_desc(const struct class_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(class, class_cases, class_case_desc);

static void inflight_class_test(struct kunit *test)
{
	const struct class_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, mpath_io_class_of(c->opf, c->dev), c->class);
}

/* Each class's limit for a command timeout of @timeout jiffies. */
static const struct limit_case {
	const char		*desc;
	enum mpath_io_class	class;
	unsigned long		timeout;
	unsigned long		limit;
} limit_cases[] = {
	{ "plain: the timeout", MPATH_IO_PLAIN, 3 * HZ, 3 * HZ },
	{ "plain: sd's 30 s", MPATH_IO_PLAIN, 30 * HZ, 30 * HZ },
	{ "slow, short timeout: WRITE SAME's 120 s", MPATH_IO_SLOW, 3 * HZ,
	  120 * HZ },
	{ "slow, sd's 30 s: flush, write, flush", MPATH_IO_SLOW, 30 * HZ,
	  150 * HZ },
	{ "slow, long timeout: 5x", MPATH_IO_SLOW, 100 * HZ, 500 * HZ },
};

static void limit_case_desc(const struct limit_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(limit, limit_cases, limit_case_desc);

static void inflight_limit_test(struct kunit *test)
{
	const struct limit_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, mpath_inflight_limit(c->class, c->timeout),
			c->limit);
}

static struct kunit_case inflight_test_cases[] = {
	KUNIT_CASE_PARAM(inflight_script_test, inflight_gen_params),
	KUNIT_CASE(inflight_fields_test),
	KUNIT_CASE_PARAM(inflight_class_test, class_gen_params),
	KUNIT_CASE_PARAM(inflight_limit_test, limit_gen_params),
	{}
};

static struct kunit_suite inflight_test_suite = {
	.name = "mpath_shim_inflight",
	.test_cases = inflight_test_cases,
};
kunit_test_suite(inflight_test_suite);

MODULE_LICENSE("GPL");
