// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the lunpath state machine's legal moves (pathstate.c), and the
 * I/O path's view of a state (mpath_path_usable()).
 */

#include <kunit/test.h>

#include <mpath_shim/mpath_shim.h>

#define NEW		MPATH_PATH_NEW
#define ATTACHING	MPATH_PATH_ATTACHING
#define ACTIVE		MPATH_PATH_ACTIVE
#define FAILED		MPATH_PATH_FAILED
#define HELD		MPATH_PATH_HELD
#define DISABLED	MPATH_PATH_DISABLED
#define DETACHING	MPATH_PATH_DETACHING
#define WRONG_LU	MPATH_PATH_WRONG_LU
#define REMOVED		MPATH_PATH_REMOVED

struct move_case {
	const char		*desc;
	enum mpath_path_state	from;
	enum mpath_path_state	to;
	bool			legal;
};

static const struct move_case move_cases[] = {
	/* The life of a path. */
	{ "attach work starts", NEW, ATTACHING, true },
	{ "disk published", ATTACHING, ACTIVE, true },
	{ "open failed: tried again later", ATTACHING, NEW, true },
	{ "path error", ACTIVE, FAILED, true },
	{ "path error, flapping", ACTIVE, HELD, true },
	{ "probe answered", FAILED, ACTIVE, true },
	{ "hold-off over", HELD, FAILED, true },
	{ "admin disables", ACTIVE, DISABLED, true },
	{ "admin disables while attaching", ATTACHING, DISABLED, true },
	{ "admin enables, disk open: the probe reinstates", DISABLED, FAILED, true },
	{ "attached, reservation key not registered", ATTACHING, FAILED, true },
	{ "admin enables, no disk", DISABLED, NEW, true },
	{ "sd unbinds", ACTIVE, DETACHING, true },
	{ "sd unbinds an unattached path", NEW, DETACHING, true },
	{ "sd unbinds during attach", ATTACHING, DETACHING, true },
	{ "detached: may attach again", DETACHING, NEW, true },
	{ "detached: stays disabled", DETACHING, DISABLED, true },
	{ "device removed while detaching", DETACHING, REMOVED, true },
	{ "device removed", FAILED, REMOVED, true },
	{ "attach finds another LU", ATTACHING, WRONG_LU, true },
	{ "probe finds another LU", FAILED, WRONG_LU, true },
	{ "identity check of an active path", ACTIVE, WRONG_LU, true },
	{ "another LU: out until sd binds again", WRONG_LU, DETACHING, true },
	{ "another LU: removed", WRONG_LU, REMOVED, true },
	{ "another LU never carries I/O", WRONG_LU, ACTIVE, false },
	{ "another LU is not probed", WRONG_LU, FAILED, false },
	{ "another LU is not enabled", WRONG_LU, NEW, false },
	/* What must never happen. */
	{ "removed is final", REMOVED, NEW, false },
	{ "removed is final (active)", REMOVED, ACTIVE, false },
	{ "no I/O without a disk", NEW, ACTIVE, false },
	{ "no I/O while detaching", DETACHING, ACTIVE, false },
	{ "held skips the probe", HELD, ACTIVE, false },
	{ "enable skips no probe (registration)", DISABLED, ACTIVE, false },
	{ "failed needs a new failure to be held", FAILED, HELD, false },
	{ "no admin change while detaching", DETACHING, DETACHING, false },
	{ "no self move", ACTIVE, ACTIVE, false },
	{ "out of range", MPATH_PATH_NR_STATES, NEW, false },
	{ "out of range target", NEW, MPATH_PATH_NR_STATES, false },
};

static void move_case_desc(const struct move_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(move, move_cases, move_case_desc);

static void state_move_test(struct kunit *test)
{
	const struct move_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, mpath_path_state_next(c->from, c->to), c->legal);
}

/*
 * Only ACTIVE without a reported error carries I/O; every state has a name;
 * the disk is usable (the ref lives) in ACTIVE, FAILED, HELD and DISABLED.
 */
static void state_usable_test(struct kunit *test)
{
	struct mpath_path *path;
	int s;

	path = kunit_kzalloc(test, sizeof(*path), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, path);
	for (s = 0; s < MPATH_PATH_NR_STATES; s++) {
		path->state = s;
		KUNIT_EXPECT_EQ(test, mpath_path_usable(path), s == ACTIVE);
		KUNIT_EXPECT_STRNEQ(test, mpath_path_state_name(s), "unknown");
		KUNIT_EXPECT_EQ(test, mpath_path_state_holds_disk(s),
				s == ACTIVE || s == FAILED || s == HELD ||
				s == DISABLED);
	}
	path->state = ACTIVE;
	set_bit(MPATH_PATH_IO_ERR, &path->flags);
	KUNIT_EXPECT_FALSE(test, mpath_path_usable(path));
	KUNIT_EXPECT_STREQ(test, mpath_path_state_name(MPATH_PATH_NR_STATES),
			   "unknown");
}

static struct kunit_case mpath_shim_pathstate_cases[] = {
	KUNIT_CASE_PARAM(state_move_test, move_gen_params),
	KUNIT_CASE(state_usable_test),
	{}
};

static struct kunit_suite mpath_shim_pathstate_suite = {
	.name		= "mpath_shim_pathstate",
	.test_cases	= mpath_shim_pathstate_cases,
};

kunit_test_suites(&mpath_shim_pathstate_suite);

MODULE_LICENSE("GPL");
