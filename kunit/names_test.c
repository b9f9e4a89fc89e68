// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: LUN names (names.c): bindings applied whole or not at all, the
 * lowest free N for a designator seen first, aliases.
 */

#include <kunit/test.h>
#include <linux/slab.h>

#include <mpath_shim/names.h>

struct name_want {
	const char	*wwid;
	int		index;		/* -1: not in the table */
	const char	*alias;
};

struct bind_case {
	const char	*desc;
	const char	*seen[3];	/* named first come, before the bindings */
	const char	*bindings;
	int		ret;
	struct name_want want[4];
	const char	*next;		/* a new designator after it all */
	int		next_index;
};

static const struct bind_case bind_cases[] = {
	{ "two bindings, then the lowest free N", {},
	  "naa.1=mpath3,naa.2=mpath0:dbdata", 2,
	  { { "naa.1", 3, "" }, { "naa.2", 0, "dbdata" } }, "naa.9", 1 },
	{ "white space separates too", {},
	  " naa.1=mpath1\nnaa.2=mpath2\t", 2,
	  { { "naa.1", 1, "" }, { "naa.2", 2, "" } }, "naa.9", 0 },
	{ "escaped blanks of a T10 designator", {},
	  "t10.LIO-ORG\\x20\\x20disk\\x2c1=mpath7", 1,
	  { { "t10.LIO-ORG  disk,1", 7, "" } }, "x", 0 },
	{ "empty string binds nothing", {}, "", 0, {}, "naa.1", 0 },
	{ "no name", {}, "naa.1", -EINVAL, { { "naa.1", -1 } }, "x", 0 },
	{ "no designator", {}, "=mpath1", -EINVAL, {}, "x", 0 },
	{ "no N", {}, "naa.1=mpath", -EINVAL, { { "naa.1", -1 } }, "x", 0 },
	{ "leading zero", {}, "naa.1=mpath01", -EINVAL, {}, "x", 0 },
	{ "N too large", {}, "naa.1=mpath1000000", -EINVAL, {}, "x", 0 },
	{ "not mpathN", {}, "naa.1=sda", -EINVAL, {}, "x", 0 },
	{ "bad alias", {}, "naa.1=mpath1:-x", -EINVAL, {}, "x", 0 },
	{ "alias with a slash", {}, "naa.1=mpath1:a/b", -EINVAL, {}, "x", 0 },
	{ "raw = in the designator", {}, "naa=1=mpath1", -EINVAL, {}, "x", 0 },
	{ "\\x00 in the designator", {}, "naa.1\\x00x=mpath1", -EINVAL,
	  { { "naa.1", -1 } }, "x", 0 },
	{ "a one-digit escape", {}, "naa\\x2=mpath1", -EINVAL,
	  { { "naa\x02", -1 } }, "x", 0 },
	{ "a backslash that escapes nothing", {}, "naa\\y=mpath1", -EINVAL,
	  { { "naa\\y", -1 } }, "x", 0 },
	{ "a raw control byte", {}, "naa\x01=mpath1", -EINVAL,
	  { { "naa\x01", -1 } }, "x", 0 },
	{ "a raw byte above ASCII", {}, "naa\xe9=mpath1", -EINVAL,
	  { { "naa\xe9", -1 } }, "x", 0 },
	{ "an escaped byte above ASCII", {}, "naa\\xe9=mpath1", 1,
	  { { "naa\xe9", 1, "" } }, "x", 0 },
	{ "designator twice", {}, "a=mpath1,a=mpath2", -EINVAL,
	  { { "a", -1 } }, "x", 0 },
	{ "N twice", {}, "a=mpath1,b=mpath1", -EINVAL,
	  { { "a", -1 }, { "b", -1 } }, "x", 0 },
	{ "alias twice", {}, "a=mpath1:x,b=mpath2:x", -EINVAL,
	  { { "a", -1 } }, "x", 0 },
	{ "a bad entry after good ones changes nothing", {},
	  "a=mpath4,b=mpath5,c=mpathX", -EINVAL,
	  { { "a", -1 }, { "b", -1 } }, "x", 0 },
	{ "as named already: accepted, nothing new", { "a", "b" },
	  "a=mpath0,b=mpath1", 0, { { "a", 0, "" }, { "b", 1, "" } }, "c", 2 },
	{ "a named designator with another N", { "a" }, "a=mpath1", -EEXIST,
	  { { "a", 0, "" } }, "x", 1 },
	{ "an N in use by another designator", { "a" }, "b=mpath0", -EEXIST,
	  { { "b", -1 } }, "x", 1 },
	{ "all or nothing against the table", { "a", "b" },
	  "c=mpath5,b=mpath0", -EEXIST, { { "c", -1 }, { "b", 1, "" } },
	  "x", 2 },
	{ "a named designator given an alias", { "a" }, "a=mpath0:db", -EEXIST,
	  { { "a", 0, "" } }, "x", 1 },
};

static char *names_strdup(struct kunit *test, const char *s)
{
	char *p = kunit_kmalloc(test, strlen(s) + 1, GFP_KERNEL);

	if (p)
		strcpy(p, s);
	return p;
}

static void bind_case_desc(const struct bind_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(bind, bind_cases, bind_case_desc);

static void names_bind_test(struct kunit *test)
{
	const struct bind_case *c = test->param_value;
	struct mpath_names *names;
	struct mpath_name *name;
	char *val;
	int i;

	names = kunit_kzalloc(test, sizeof(*names), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, names);
	mpath_names_init(names);
	for (i = 0; i < ARRAY_SIZE(c->seen) && c->seen[i]; i++)
		KUNIT_ASSERT_FALSE(test,
				   IS_ERR(mpath_names_get(names, c->seen[i])));
	val = names_strdup(test, c->bindings);
	KUNIT_ASSERT_NOT_NULL(test, val);
	KUNIT_EXPECT_EQ(test, mpath_names_bind(names, val), c->ret);
	for (i = 0; i < ARRAY_SIZE(c->want) && c->want[i].wwid; i++) {
		name = mpath_names_find(names, c->want[i].wwid);
		if (c->want[i].index < 0) {
			KUNIT_EXPECT_NULL(test, name);
			continue;
		}
		KUNIT_ASSERT_NOT_NULL(test, name);
		KUNIT_EXPECT_EQ(test, name->index, c->want[i].index);
		KUNIT_EXPECT_STREQ(test, name->alias, c->want[i].alias);
	}
	name = mpath_names_get(names, c->next);
	KUNIT_ASSERT_FALSE(test, IS_ERR(name));
	KUNIT_EXPECT_EQ(test, name->index, c->next_index);
	/* The same designator keeps its name. */
	KUNIT_EXPECT_PTR_EQ(test, mpath_names_get(names, c->next), name);
	mpath_names_destroy(names);
}

struct alias_case {
	const char	*alias;
	bool		valid;
};

static const struct alias_case alias_cases[] = {
	{ "dbdata", true }, { "db.data-1_x+y", true }, { "9", true },
	{ "", false }, { ".hidden", false }, { "-x", false }, { "a b", false },
	{ "a/b", false }, { "a:b", false },
	/* Latin-1 letters, which the kernel's isalnum() takes: not ASCII. */
	{ "db\xe9", false }, { "\xc0\x62", false }, { "a\xff", false },
	{ "a123456789012345678901234567890123456789012345678901234567890ab",
	  true },		/* 63 */
	{ "a123456789012345678901234567890123456789012345678901234567890abc",
	  false },		/* 64 */
};

static void alias_case_desc(const struct alias_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%.40s\"", c->alias);
}
KUNIT_ARRAY_PARAM(alias, alias_cases, alias_case_desc);

static void names_alias_valid_test(struct kunit *test)
{
	const struct alias_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, mpath_alias_valid(c->alias), c->valid);
}

/* The names whose LUN is there, for the alias test. */
static const struct mpath_name *names_present[2];

static bool names_has_lun(const struct mpath_name *name)
{
	return name == names_present[0] || name == names_present[1];
}

static void names_set_alias_test(struct kunit *test)
{
	struct mpath_names *names;
	struct mpath_name *a, *b, *c;
	char buf[MPATH_ALIAS_LEN];

	names = kunit_kzalloc(test, sizeof(*names), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, names);
	mpath_names_init(names);
	a = mpath_names_get(names, "a");
	b = mpath_names_get(names, "b");
	KUNIT_ASSERT_FALSE(test, IS_ERR(a) || IS_ERR(b));
	names_present[0] = a;
	names_present[1] = b;
	KUNIT_EXPECT_EQ(test, mpath_names_set_alias(names, a, "db",
						    names_has_lun), 0);
	mpath_name_alias(names, a, buf);
	KUNIT_EXPECT_STREQ(test, buf, "db");
	/* Taken by a, whose LUN is there; b keeps none. */
	KUNIT_EXPECT_EQ(test, mpath_names_set_alias(names, b, "db",
						    names_has_lun), -EEXIST);
	KUNIT_EXPECT_STREQ(test, b->alias, "");
	KUNIT_EXPECT_EQ(test, mpath_names_set_alias(names, b, "a b",
						    names_has_lun), -EINVAL);
	/* Setting one's own alias again is fine; clearing frees it. */
	KUNIT_EXPECT_EQ(test, mpath_names_set_alias(names, a, "db",
						    names_has_lun), 0);
	KUNIT_EXPECT_EQ(test, mpath_names_set_alias(names, a, "",
						    names_has_lun), 0);
	KUNIT_EXPECT_EQ(test, mpath_names_set_alias(names, b, "db",
						    names_has_lun), 0);
	KUNIT_EXPECT_STREQ(test, a->alias, "");
	/* A binding may not take an alias in use. */
	KUNIT_EXPECT_EQ(test, mpath_names_bind(names,
			names_strdup(test, "c=mpath5:db")), -EEXIST);
	KUNIT_EXPECT_NULL(test, mpath_names_find(names, "c"));
	/* b's LUN is gone: a new LU's takes its alias, b keeps none. */
	c = mpath_names_get(names, "c");
	KUNIT_ASSERT_FALSE(test, IS_ERR(c));
	names_present[1] = c;
	KUNIT_EXPECT_EQ(test, mpath_names_set_alias(names, c, "db",
						    names_has_lun), 0);
	KUNIT_EXPECT_STREQ(test, c->alias, "db");
	KUNIT_EXPECT_STREQ(test, b->alias, "");
	/* and b, back, may not take it again while c's LUN is there. */
	names_present[0] = b;
	KUNIT_EXPECT_EQ(test, mpath_names_set_alias(names, b, "db",
						    names_has_lun), -EEXIST);
	mpath_names_destroy(names);
}

static void names_parse_index_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mpath_name_parse_index("mpath0"), 0);
	KUNIT_EXPECT_EQ(test, mpath_name_parse_index("mpath999999"), 999999);
	KUNIT_EXPECT_EQ(test, mpath_name_parse_index("mpath-1"), -EINVAL);
	KUNIT_EXPECT_EQ(test, mpath_name_parse_index("mpath00"), -EINVAL);
	KUNIT_EXPECT_EQ(test, mpath_name_parse_index("mpath1x"), -EINVAL);
	KUNIT_EXPECT_EQ(test, mpath_name_parse_index("Mpath1"), -EINVAL);
}

static struct kunit_case names_test_cases[] = {
	KUNIT_CASE_PARAM(names_bind_test, bind_gen_params),
	KUNIT_CASE_PARAM(names_alias_valid_test, alias_gen_params),
	KUNIT_CASE(names_set_alias_test),
	KUNIT_CASE(names_parse_index_test),
	{}
};

static struct kunit_suite names_test_suite = {
	.name = "mpath_shim_names",
	.test_cases = names_test_cases,
};
kunit_test_suite(names_test_suite);

MODULE_LICENSE("GPL");
