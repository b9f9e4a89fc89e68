// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: max_q_depth precedence and rules, and queue-length integrals
 * against a fake clock.
 */

#include <kunit/test.h>
#include <linux/slab.h>

#include <mpath_shim/qdepth.h>

struct resolve_case {
	const char		*desc;
	unsigned int		path, lun, rule, global, device, cap;
	unsigned int		want;
	enum mpath_qd_source	source;
};

static const struct resolve_case resolve_cases[] = {
	{ "device only", 0, 0, 0, 0, 32, 192, 32, MPATH_QD_DEVICE },
	{ "global over device", 0, 0, 0, 8, 32, 192, 8, MPATH_QD_GLOBAL },
	{ "rule over global", 0, 0, 4, 8, 32, 192, 4, MPATH_QD_RULE },
	{ "lun over rule", 0, 16, 4, 8, 32, 192, 16, MPATH_QD_LUN },
	{ "path over all", 2, 16, 4, 8, 32, 192, 2, MPATH_QD_PATH },
	{ "path over lun only", 3, 16, 0, 0, 32, 192, 3, MPATH_QD_PATH },
	{ "capped by can_queue", 0, 0, 0, 4096, 32, 64, 64, MPATH_QD_GLOBAL },
	{ "device depth 0 gives 1", 0, 0, 0, 0, 0, 64, 1, MPATH_QD_DEVICE },
};

static void resolve_desc(const struct resolve_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(resolve, resolve_cases, resolve_desc);

static void resolve_test(struct kunit *test)
{
	const struct resolve_case *c = test->param_value;
	enum mpath_qd_source source;

	KUNIT_EXPECT_EQ(test, mpath_qd_resolve(c->path, c->lun, c->rule,
					       c->global, c->device, c->cap,
					       &source), c->want);
	KUNIT_EXPECT_EQ(test, source, c->source);
	KUNIT_EXPECT_STRNEQ(test, mpath_qd_source_name(source), "unknown");
}

struct rules_case {
	const char	*desc;
	const char	*buf;
	int		nr;		/* or -EINVAL */
	const char	*vendor, *product;
	unsigned int	depth;		/* for vendor/product */
};

static const struct rules_case rules_cases[] = {
	{ "empty clears", "", 0, "Linux   ", "scsi_debug      ", 0 },
	{ "newline only", "\n", 0, "Linux   ", "scsi_debug      ", 0 },
	{ "one rule", "Linux:scsi_debug=4", 1, "Linux   ", "scsi_debug      ", 4 },
	{ "trailing newline", "Linux:scsi_debug=4\n", 1, "Linux   ", "scsi_debug      ", 4 },
	{ "product wildcard", "Linux:*=6", 1, "Linux   ", "anything        ", 6 },
	{ "first match wins", "HP:OPEN-V=8,Linux:*=5,Linux:scsi_debug=4", 3,
	  "Linux   ", "scsi_debug      ", 5 },
	{ "no match", "HP:OPEN-V=8", 1, "Linux   ", "scsi_debug      ", 0 },
	{ "prefix is no match", "Lin:scsi_debug=8", 1, "Linux   ", "scsi_debug      ", 0 },
	{ "depth 0", "Linux:scsi_debug=0", -EINVAL, "", "", 0 },
	{ "depth too big", "Linux:scsi_debug=4097", -EINVAL, "", "", 0 },
	{ "negative", "Linux:scsi_debug=-1", -EINVAL, "", "", 0 },
	{ "no product", "Linux=4", -EINVAL, "", "", 0 },
	{ "trailing comma, newline", "Linux:*=4,\n", -EINVAL, "", "", 0 },
	{ "no depth", "Linux:scsi_debug", -EINVAL, "", "", 0 },
	{ "text depth", "Linux:scsi_debug=four", -EINVAL, "", "", 0 },
	{ "vendor too long", "LinuxLinux:x=4", -EINVAL, "", "", 0 },
	{ "empty vendor", ":x=4", -EINVAL, "", "", 0 },
	{ "dangling comma", "Linux:x=4,", -EINVAL, "", "", 0 },
	{ "double comma", "Linux:x=4,,Linux:y=2", -EINVAL, "", "", 0 },
};

static void rules_desc(const struct rules_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(rules, rules_cases, rules_desc);

static void rules_test(struct kunit *test)
{
	const struct rules_case *c = test->param_value;
	struct mpath_qd_rule *rules;
	int nr;

	rules = kunit_kcalloc(test, MPATH_QD_RULES_MAX, sizeof(*rules),
			      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rules);
	nr = mpath_qd_parse_rules(c->buf, rules, MPATH_QD_RULES_MAX);
	KUNIT_EXPECT_EQ(test, nr, c->nr);
	if (nr >= 0)
		KUNIT_EXPECT_EQ(test, mpath_qd_rule_depth(rules, nr, c->vendor,
							  c->product), c->depth);
}

static void rules_limits_test(struct kunit *test)
{
	struct mpath_qd_rule *rules;
	char *buf;
	int i;

	rules = kunit_kcalloc(test, MPATH_QD_RULES_MAX + 1, sizeof(*rules),
			      GFP_KERNEL);
	buf = kunit_kzalloc(test, 2 * MPATH_QD_RULES_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rules);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i <= MPATH_QD_RULES_MAX; i++)
		strcat(buf, i ? ",V:P=1" : "V:P=1");
	KUNIT_EXPECT_EQ(test, mpath_qd_parse_rules(buf, rules,
						   MPATH_QD_RULES_MAX), -EINVAL);
	memset(buf, 'a', 2 * MPATH_QD_RULES_LEN - 1);
	KUNIT_EXPECT_EQ(test, mpath_qd_parse_rules(buf, rules,
						   MPATH_QD_RULES_MAX), -EINVAL);
}

/* Queue length over a fake clock: the integral is exact. */
static void qlen_integral_test(struct kunit *test)
{
	struct mpath_qlen q = { .last_ns = 1000 };

	mpath_qlen_change(&q, 1000, 1);		/* 1 from t=1000 */
	mpath_qlen_change(&q, 1500, 2);		/* 3 from t=1500 */
	KUNIT_EXPECT_EQ(test, mpath_qlen_integral(&q, 1500), 500);
	KUNIT_EXPECT_EQ(test, mpath_qlen_integral(&q, 2500), 500 + 3000);
	mpath_qlen_change(&q, 2500, -3);	/* empty */
	KUNIT_EXPECT_EQ(test, q.len, 0);
	KUNIT_EXPECT_EQ(test, q.max, 3);
	KUNIT_EXPECT_EQ(test, mpath_qlen_integral(&q, 9000), 3500);
	/* A clock read before the last change does not go backwards. */
	mpath_qlen_change(&q, 2400, 1);
	KUNIT_EXPECT_EQ(test, q.integral, 3500);
	KUNIT_EXPECT_EQ(test, mpath_qlen_integral(&q, 2600), 3600);
}

/*
 * Little's law: with waits entering and leaving a FIFO, the integral of the
 * queue length equals the sum of the waits once the queue is empty.
 */
static void qlen_little_test(struct kunit *test)
{
	static const u64 arrive[] = { 0, 10, 15, 40, 41, 42, 100 };
	static const u64 leave[] = { 30, 31, 45, 60, 61, 90, 130 };
	struct mpath_qlen q = { };
	u64 waits = 0, t;
	unsigned int a = 0, l = 0;

	for (t = 0; t <= 130; t++) {
		while (a < ARRAY_SIZE(arrive) && arrive[a] == t) {
			mpath_qlen_change(&q, t, 1);
			a++;
		}
		while (l < ARRAY_SIZE(leave) && leave[l] == t) {
			mpath_qlen_change(&q, t, -1);
			waits += leave[l] - arrive[l];
			l++;
		}
	}
	KUNIT_EXPECT_EQ(test, q.len, 0);
	KUNIT_EXPECT_EQ(test, q.integral, waits);
	KUNIT_EXPECT_EQ(test, q.max, 4);	/* at t=42 */
}

/*
 * A reset while the queue is not empty: the integral counts from the reset
 * (not from the last change before it), and the max is the length then.
 */
static void qlen_reset_test(struct kunit *test)
{
	struct mpath_qlen q = { };

	mpath_qlen_change(&q, 0, 4);		/* 4 from t=0 */
	mpath_qlen_change(&q, 100, -2);		/* 2 from t=100 */
	mpath_qlen_reset(&q, 1000);
	KUNIT_EXPECT_EQ(test, mpath_qlen_integral(&q, 1000), 0);
	KUNIT_EXPECT_EQ(test, mpath_qlen_integral(&q, 1500), 2 * 500);
	KUNIT_EXPECT_EQ(test, q.max, 2);
	mpath_qlen_change(&q, 2000, 1);		/* 3 from t=2000 */
	KUNIT_EXPECT_EQ(test, mpath_qlen_integral(&q, 3000), 2 * 1000 + 3000);
	KUNIT_EXPECT_EQ(test, q.max, 3);
	/* A clock read before the last change: nothing counted twice. */
	mpath_qlen_reset(&q, 2500);
	mpath_qlen_change(&q, 2400, -3);
	KUNIT_EXPECT_EQ(test, mpath_qlen_integral(&q, 9000), 0);
}

static struct kunit_case mpath_shim_qdepth_cases[] = {
	KUNIT_CASE_PARAM(resolve_test, resolve_gen_params),
	KUNIT_CASE_PARAM(rules_test, rules_gen_params),
	KUNIT_CASE(rules_limits_test),
	KUNIT_CASE(qlen_integral_test),
	KUNIT_CASE(qlen_little_test),
	KUNIT_CASE(qlen_reset_test),
	{}
};

static struct kunit_suite mpath_shim_qdepth_suite = {
	.name		= "mpath_shim_qdepth",
	.test_cases	= mpath_shim_qdepth_cases,
};

kunit_test_suites(&mpath_shim_qdepth_suite);

MODULE_LICENSE("GPL");
