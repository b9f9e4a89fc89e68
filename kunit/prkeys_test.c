// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what a READ KEYS answer says of the LUN's registration
 * (drivers/mpath_shim/prkeys.c).
 */

#include <kunit/test.h>

#include <mpath_shim/compat.h>
#include <mpath_shim/prkeys.h>

#define K1	0xabcULL
#define K2	0xbbbULL
#define OTHER	0x123ULL

struct count_case {
	const char	*desc;
	u32		listed;		/* the header's additional length */
	unsigned int	nkeys;		/* keys in the buffer */
	u64		keys[4];
	size_t		size;		/* bytes of the buffer read */
	unsigned int	count;		/* of K1 */
};

static const struct count_case count_cases[] = {
	{ "empty list", 0, 0, { }, 40, 0 },
	{ "one", 8, 1, { K1 }, 40, 1 },
	{ "two nexuses with it, one other", 24, 3, { K1, OTHER, K1 }, 40, 2 },
	{ "others only", 16, 2, { OTHER, K2 }, 40, 0 },
	{ "list longer than the buffer: what arrived", 32, 4,
	  { K1, K1, K1, K1 }, 8 + 16, 2 },
	{ "header longer than the keys listed", 64, 2, { K1, K1 }, 40, 2 },
	{ "a partial key is not read", 12, 2, { K1, K1 }, 40, 1 },
	{ "no header", 8, 1, { K1 }, 4, 0 },
};

static void count_case_desc(const struct count_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(keys_count, count_cases, count_case_desc);

static void keys_count_test(struct kunit *test)
{
	const struct count_case *c = test->param_value;
	u8 buf[40] = { };
	unsigned int i;

	put_unaligned_be32(c->listed, &buf[4]);
	for (i = 0; i < c->nkeys; i++)
		put_unaligned_be64(c->keys[i], &buf[8 + 8 * i]);
	KUNIT_EXPECT_EQ(test, mpath_pr_keys_count(buf, c->size, K1), c->count);
}

struct settled_case {
	const char	*desc;
	u64		key;
	unsigned int	nkey;
	u64		tried;
	unsigned int	ntried;
	unsigned int	nexuses;
	u64		settled;
};

static const struct settled_case settled_cases[] = {
	{ "carried out on none: the old key", K1, 2, K2, 0, 2, K1 },
	{ "carried out on some: the old key, put back", K1, 1, K2, 1, 2, K1 },
	{ "carried out on every nexus: the new key", K1, 0, K2, 2, 2, K2 },
	{ "another initiator holds the new key too", K1, 0, K2, 3, 2, K2 },
	{ "fenced while it went round: the old key, gone", K1, 0, K2, 1, 2, K1 },
	{ "fenced, nothing left", K1, 0, K2, 0, 2, K1 },
	{ "first registration carried out", 0, 0, K2, 2, 2, K2 },
	{ "first registration carried out on some", 0, 0, K2, 1, 2, 0 },
	{ "first registration on none", 0, 0, K2, 0, 1, 0 },
	{ "unregister carried out", K1, 0, 0, 0, 2, 0 },
	{ "unregister carried out on some: put back", K1, 1, 0, 0, 2, K1 },
	{ "no nexus counted: one at least", K1, 0, K2, 0, 0, K1 },
};

static void settled_case_desc(const struct settled_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(settled_key, settled_cases, settled_case_desc);

static void settled_key_test(struct kunit *test)
{
	const struct settled_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, mpath_pr_settled_key(c->key, c->nkey, c->tried,
						   c->ntried, c->nexuses),
			c->settled);
}

static struct kunit_case prkeys_test_cases[] = {
	KUNIT_CASE_PARAM(keys_count_test, keys_count_gen_params),
	KUNIT_CASE_PARAM(settled_key_test, settled_key_gen_params),
	{}
};

static struct kunit_suite prkeys_test_suite = {
	.name = "mpath_shim_prkeys",
	.test_cases = prkeys_test_cases,
};
kunit_test_suite(prkeys_test_suite);
