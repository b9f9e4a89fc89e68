// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: which LUs are multipathed (drivers/mpath_shim/claim.c): parsing
 * claim_rules and showing them back, matching by WWID and vendor:product,
 * and the verdict's precedence (release, claim, rules, TPGS, path count).
 */

#include <kunit/test.h>
#include <linux/slab.h>

#include <mpath_shim/claim.h>

#define T10_WWID	"t10.Linux   scsi_debug      4000"

struct parse_case {
	const char	*desc;
	const char	*buf;
	int		nr;		/* or -EINVAL */
	const char	*shown;		/* what the parameter reads back */
};

static const struct parse_case parse_cases[] = {
	{ "empty clears", "", 0, "" },
	{ "newline only", "\n", 0, "" },
	{ "vendor:product", "allow:Linux:scsi_debug\n", 1,
	  "allow:Linux:scsi_debug" },
	{ "any product", "deny:ATA:*", 1, "deny:ATA:*" },
	{ "wwid", "deny:wwid=naa.6001405abcdef", 1, "deny:wwid=naa.6001405abcdef" },
	{ "wwid prefix", "allow:wwid=naa.6001405*", 1, "allow:wwid=naa.6001405*" },
	{ "t10 wwid escaped", "deny:wwid=t10.Linux\\x20\\x20\\x20scsi_debug", 1,
	  "deny:wwid=t10.Linux\\x20\\x20\\x20scsi_debug" },
	{ "blanks around", " allow:LIO-ORG:* , deny:wwid=x ", 2,
	  "allow:LIO-ORG:*,deny:wwid=x" },
	{ "product with a blank", "allow:VMware:Virtual disk", 1,
	  "allow:VMware:Virtual\\x20disk" },
	{ "no action", "Linux:scsi_debug", -EINVAL, NULL },
	{ "bad action", "permit:Linux:scsi_debug", -EINVAL, NULL },
	{ "no product", "allow:Linux", -EINVAL, NULL },
	{ "empty vendor", "allow::x", -EINVAL, NULL },
	{ "empty product", "allow:x:", -EINVAL, NULL },
	{ "empty wwid", "deny:wwid=", -EINVAL, NULL },
	{ "vendor too long", "allow:ABCDEFGHI:x", -EINVAL, NULL },
	{ "product too long", "allow:x:ABCDEFGHIJKLMNOPQ", -EINVAL, NULL },
	{ "trailing comma", "allow:x:y,", -EINVAL, NULL },
	{ "empty rule", "allow:x:y,,deny:a:b", -EINVAL, NULL },
	{ "bad escape", "deny:wwid=a\\q", -EINVAL, NULL },
	{ "short escape", "deny:wwid=a\\x2", -EINVAL, NULL },
	{ "NUL escape", "deny:wwid=a\\x00", -EINVAL, NULL },
};

static void parse_desc(const struct parse_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(parse, parse_cases, parse_desc);

static void parse_test(struct kunit *test)
{
	const struct parse_case *c = test->param_value;
	struct mpath_claim_rule *rules, *again;
	char *buf;
	int nr;

	rules = kunit_kcalloc(test, MPATH_CLAIM_RULES_MAX, sizeof(*rules),
			      GFP_KERNEL);
	again = kunit_kcalloc(test, MPATH_CLAIM_RULES_MAX, sizeof(*again),
			      GFP_KERNEL);
	buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rules);
	KUNIT_ASSERT_NOT_NULL(test, again);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	nr = mpath_claim_parse_rules(c->buf, rules, MPATH_CLAIM_RULES_MAX);
	KUNIT_EXPECT_EQ(test, nr, c->nr);
	if (nr < 0)
		return;
	mpath_claim_show_rules(rules, nr, buf, PAGE_SIZE);
	KUNIT_EXPECT_STREQ(test, buf, c->shown);
	/* What is shown parses back to the same rules. */
	KUNIT_EXPECT_EQ(test, mpath_claim_parse_rules(buf, again,
						      MPATH_CLAIM_RULES_MAX), nr);
	KUNIT_EXPECT_EQ(test, memcmp(rules, again, sizeof(*rules) * nr), 0);
}

static void parse_limits_test(struct kunit *test)
{
	struct mpath_claim_rule *rules;
	char *buf;
	int i;

	rules = kunit_kcalloc(test, MPATH_CLAIM_RULES_MAX + 1, sizeof(*rules),
			      GFP_KERNEL);
	buf = kunit_kzalloc(test, MPATH_CLAIM_RULES_LEN + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rules);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	for (i = 0; i < MPATH_CLAIM_RULES_MAX; i++)
		strcat(buf, i ? ",allow:a:b" : "allow:a:b");
	KUNIT_EXPECT_EQ(test, mpath_claim_parse_rules(buf, rules,
						      MPATH_CLAIM_RULES_MAX),
			MPATH_CLAIM_RULES_MAX);
	strcat(buf, ",allow:a:b");
	KUNIT_EXPECT_EQ(test, mpath_claim_parse_rules(buf, rules,
						      MPATH_CLAIM_RULES_MAX),
			-EINVAL);
	memset(buf, 'a', MPATH_CLAIM_RULES_LEN);
	memcpy(buf, "deny:wwid=", 10);
	buf[MPATH_CLAIM_RULES_LEN] = '\0';
	KUNIT_EXPECT_EQ(test, mpath_claim_parse_rules(buf, rules,
						      MPATH_CLAIM_RULES_MAX),
			-EINVAL);
}

struct decide_case {
	const char		*desc;
	const char		*rules;
	unsigned int		min_paths;
	bool			cfg_tpgs;
	const char		*wwid;
	bool			tpgs;
	unsigned int		nr_paths;
	bool			admin, released;
	enum mpath_claim_verdict want;
};

static const struct decide_case decide_cases[] = {
	{ "one path, no TPGS", "", 2, true, "naa.1", false, 1, false, false,
	  MPATH_CLAIM_FEW_PATHS },
	{ "two paths", "", 2, true, "naa.1", false, 2, false, false,
	  MPATH_CLAIM_PATHS },
	{ "one path with TPGS", "", 2, true, "naa.1", true, 1, false, false,
	  MPATH_CLAIM_TPGS },
	{ "TPGS not counted", "", 2, false, "naa.1", true, 1, false, false,
	  MPATH_CLAIM_FEW_PATHS },
	{ "min_paths 1", "", 1, false, "naa.1", false, 1, false, false,
	  MPATH_CLAIM_PATHS },
	{ "min_paths 0: by rule only", "", 0, false, "naa.1", false, 8, false,
	  false, MPATH_CLAIM_FEW_PATHS },
	{ "allow by vendor:product", "allow:Linux:scsi_debug", 2, true,
	  "naa.1", false, 1, false, false, MPATH_CLAIM_ALLOWED },
	{ "deny by vendor, any product", "deny:Linux:*", 2, true, "naa.1", true,
	  4, false, false, MPATH_CLAIM_DENIED },
	{ "deny by wwid", "deny:wwid=naa.1", 2, true, "naa.1", true, 4, false,
	  false, MPATH_CLAIM_DENIED },
	{ "wwid is not a prefix", "deny:wwid=naa.1", 2, true, "naa.12", true,
	  4, false, false, MPATH_CLAIM_TPGS },
	{ "wwid prefix", "deny:wwid=naa.1*", 2, true, "naa.12", true, 4,
	  false, false, MPATH_CLAIM_DENIED },
	{ "t10 wwid", "deny:wwid=t10.Linux\\x20\\x20\\x20scsi_debug*", 2, true,
	  T10_WWID, true, 2, false, false, MPATH_CLAIM_DENIED },
	{ "first match wins: allow", "allow:wwid=naa.1,deny:Linux:*", 2, true,
	  "naa.1", false, 1, false, false, MPATH_CLAIM_ALLOWED },
	{ "first match wins: deny", "deny:Linux:*,allow:wwid=naa.1", 2, true,
	  "naa.1", false, 1, false, false, MPATH_CLAIM_DENIED },
	{ "other vendor unmatched", "deny:ATA:*", 2, true, "naa.1", false, 2,
	  false, false, MPATH_CLAIM_PATHS },
	{ "product must match", "deny:Linux:other", 2, true, "naa.1", false, 2,
	  false, false, MPATH_CLAIM_PATHS },
	{ "claimed by hand", "", 0, false, "naa.1", false, 1, true, false,
	  MPATH_CLAIM_ADMIN },
	{ "claimed by hand over a later deny", "deny:Linux:*", 2, true,
	  "naa.1", false, 1, true, false, MPATH_CLAIM_ADMIN },
	{ "released beats everything", "allow:Linux:*", 1, true, "naa.1", true,
	  4, false, true, MPATH_CLAIM_RELEASED },
};

static void decide_desc(const struct decide_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(decide, decide_cases, decide_desc);

static void decide_test(struct kunit *test)
{
	const struct decide_case *c = test->param_value;
	struct mpath_claim_config cfg = {
		.min_paths	= c->min_paths,
		.tpgs		= c->cfg_tpgs,
	};
	struct mpath_claim_lu lu = {
		.wwid		= c->wwid,
		.vendor		= "Linux   ",
		.product	= "scsi_debug      ",
		.tpgs		= c->tpgs,
		.nr_paths	= c->nr_paths,
		.admin		= c->admin,
		.released	= c->released,
	};
	struct mpath_claim_rule *rules;
	enum mpath_claim_verdict v;
	int nr;

	rules = kunit_kcalloc(test, MPATH_CLAIM_RULES_MAX, sizeof(*rules),
			      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rules);
	nr = mpath_claim_parse_rules(c->rules, rules, MPATH_CLAIM_RULES_MAX);
	KUNIT_ASSERT_GE(test, nr, 0);
	cfg.rules = rules;
	cfg.nr_rules = nr;

	v = mpath_claim_decide(&lu, &cfg);
	KUNIT_EXPECT_EQ(test, v, c->want);
	KUNIT_EXPECT_EQ(test, mpath_claim_yes(v), c->want <= MPATH_CLAIM_PATHS);
	KUNIT_EXPECT_STRNEQ(test, mpath_claim_verdict_name(v), "unknown");
}

static struct kunit_case claim_test_cases[] = {
	KUNIT_CASE_PARAM(parse_test, parse_gen_params),
	KUNIT_CASE(parse_limits_test),
	KUNIT_CASE_PARAM(decide_test, decide_gen_params),
	{}
};

static struct kunit_suite claim_test_suite = {
	.name = "mpath_shim_claim",
	.test_cases = claim_test_cases,
};
kunit_test_suite(claim_test_suite);

MODULE_LICENSE("GPL");
