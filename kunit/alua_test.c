// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: ALUA decoding (drivers/mpath_shim/alua.c): REPORT TARGET PORT
 * GROUPS answers with and without the extended header, cut short or
 * overlong; the port designators of VPD page 0x83; what a sense says of an
 * access state; the rank that groups lunpaths.
 */

#include <kunit/test.h>
#include <linux/slab.h>
#include <scsi/scsi_common.h>

#include <mpath_shim/compat.h>

#include <mpath_shim/alua.h>

/*
 * A descriptor: state|pref, supported, group id (2), reserved, status,
 * vendor, port count; then 4 bytes per port (relative port id in the last 2).
 */

/* Two groups, no extended header (what scsi_debug sends). */
static const u8 rtpg_plain[] = {
	0, 0, 0, 24,
	0x00, 0x8f, 0x03, 0x01, 0, 0, 0, 1, 0, 0, 0x00, 0x01,
	0x03, 0x8f, 0x03, 0x81, 0, 0, 0, 1, 0, 0, 0x00, 0x02,
};

/* Extended header, transition time 10 s, three groups (LIO's layout). */
static const u8 rtpg_ext[] = {
	0, 0, 0, 40,
	0x10, 10, 0, 0,
	0x81, 0x8f, 0x00, 0x0a, 0, 2, 0, 2, 0, 0, 0x00, 0x01, 0, 0, 0x00, 0x02,
	0x02, 0x8f, 0x00, 0x14, 0, 1, 0, 1, 0, 0, 0x00, 0x03,
	0x0f, 0x8f, 0x00, 0x1e, 0, 0, 0, 0,
};

/*
 * LIO: extended header, its 4 bytes left out of the return data length
 * (32 for two descriptors of two ports each).
 */
static const u8 rtpg_lio[] = {
	0, 0, 0, 0x20,
	0x10, 0, 0, 0,
	0x00, 0xcf, 0x00, 0x0a, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2,
	0x01, 0xcf, 0x00, 0x14, 0, 2, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4,
};

/* The target says 24 bytes; only 20 were read: the second one is cut. */
static const u8 rtpg_cut[] = {
	0, 0, 0, 24,
	0x01, 0x8f, 0x00, 0x07, 0, 0, 0, 1, 0, 0, 0x00, 0x01,
	0x00, 0x8f, 0x00, 0x08, 0, 0, 0, 1,
};

/* A descriptor claims more ports than the return data holds. */
static const u8 rtpg_overlong[] = {
	0, 0, 0, 12,
	0x00, 0x8f, 0x00, 0x05, 0, 0, 0, 200, 0, 0, 0x00, 0x01,
};

/* Return data length 0: no groups. */
static const u8 rtpg_empty[] = { 0, 0, 0, 0 };

struct rtpg_case {
	const char	*desc;
	const u8	*buf;
	size_t		len;
	int		ret;
	bool		ext;
	u8		trans_secs;
	int		id0, state0, pref0, status0;	/* first group */
	int		id_last, state_last;		/* last group kept */
};

static const struct rtpg_case rtpg_cases[] = {
	{ "plain header, two groups", rtpg_plain, sizeof(rtpg_plain), 2,
	  false, 0, 0x0301, 0x00, 0, 0, 0x0381, 0x03 },
	{ "extended header, pref, status, three groups", rtpg_ext,
	  sizeof(rtpg_ext), 3, true, 10, 10, 0x01, 1, 2, 30, 0x0f },
	{ "LIO: extended header not in the length", rtpg_lio, sizeof(rtpg_lio),
	  2, true, 0, 10, 0x00, 0, 0, 20, 0x01 },
	{ "descriptor cut short by the read", rtpg_cut, sizeof(rtpg_cut), 1,
	  false, 0, 7, 0x01, 0, 0, 7, 0x01 },
	{ "ports past the return data", rtpg_overlong, sizeof(rtpg_overlong), 0,
	  false, 0, -1, -1, -1, -1, -1, -1 },
	{ "no groups", rtpg_empty, sizeof(rtpg_empty), 0,
	  false, 0, -1, -1, -1, -1, -1, -1 },
	{ "shorter than a header", rtpg_plain, 3, -EINVAL,
	  false, 0, -1, -1, -1, -1, -1, -1 },
	{ "read length caps the target's", rtpg_ext, 24, 1,
	  true, 10, 10, 0x01, 1, 2, 10, 0x01 },
};

static void rtpg_case_desc(const struct rtpg_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(rtpg, rtpg_cases, rtpg_case_desc);

static void rtpg_parse_test(struct kunit *test)
{
	const struct rtpg_case *c = test->param_value;
	struct mpath_rtpg *r;
	int ret;

	r = mpath_rtpg_parse(c->buf, c->len, GFP_KERNEL);
	ret = IS_ERR(r) ? PTR_ERR(r) : r->nr;
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (ret <= 0)
		goto out;
	KUNIT_EXPECT_EQ(test, r->ext, c->ext);
	KUNIT_EXPECT_EQ(test, r->trans_secs, c->trans_secs);
	KUNIT_EXPECT_EQ(test, r->tpg[0].id, c->id0);
	KUNIT_EXPECT_EQ(test, r->tpg[0].state, c->state0);
	KUNIT_EXPECT_EQ(test, r->tpg[0].pref, !!c->pref0);
	KUNIT_EXPECT_EQ(test, r->tpg[0].status, c->status0);
	KUNIT_EXPECT_EQ(test, r->tpg[ret - 1].id, c->id_last);
	KUNIT_EXPECT_EQ(test, r->tpg[ret - 1].state, c->state_last);
	KUNIT_EXPECT_PTR_EQ(test, mpath_rtpg_find(r, c->id_last),
			    &r->tpg[ret - 1]);
	KUNIT_EXPECT_NULL(test, mpath_rtpg_find(r, 0xbeef));
	KUNIT_EXPECT_NULL(test, mpath_rtpg_find(r, MPATH_ALUA_NONE));
out:
	if (!IS_ERR(r))
		kfree(r);
}

/*
 * Many groups, past what the first 512 bytes hold: every one is kept (the
 * decoding kept 16 and dropped the rest, so a lunpath in a later group
 * never had its state read).
 */
static void rtpg_many_test(struct kunit *test)
{
	const unsigned int n = 300;
	size_t len = 8 + 12 * n;
	struct mpath_rtpg *r;
	unsigned int i;
	u8 *buf;

	buf = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	put_unaligned_be32(len - 8, buf);
	buf[4] = 0x10;
	for (i = 0; i < n; i++) {
		buf[8 + 12 * i] = i == n - 1 ? SCSI_ACCESS_STATE_STANDBY : 0;
		put_unaligned_be16(i + 1, &buf[8 + 12 * i + 2]);
		buf[8 + 12 * i + 7] = 1;
		put_unaligned_be16(i + 1, &buf[8 + 12 * i + 10]);
	}
	r = mpath_rtpg_parse(buf, len, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(r));
	KUNIT_EXPECT_EQ(test, r->nr, n);
	KUNIT_EXPECT_EQ(test, r->tpg[n - 1].id, n);
	KUNIT_ASSERT_PTR_EQ(test, mpath_rtpg_find(r, n), &r->tpg[n - 1]);
	KUNIT_EXPECT_EQ(test, r->tpg[n - 1].state, SCSI_ACCESS_STATE_STANDBY);
	kfree(r);
	/* The first 512 bytes: the groups they hold whole, and the length. */
	r = mpath_rtpg_parse(buf, MPATH_RTPG_LEN, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(r));
	KUNIT_EXPECT_EQ(test, r->nr, (MPATH_RTPG_LEN - 8) / 12);
	KUNIT_EXPECT_NULL(test, mpath_rtpg_find(r, n));
	kfree(r);
	KUNIT_EXPECT_EQ(test, mpath_rtpg_needed(buf, MPATH_RTPG_LEN), len);
	KUNIT_EXPECT_EQ(test, mpath_rtpg_needed(buf, len), len);
	KUNIT_EXPECT_EQ(test, mpath_rtpg_needed(buf, 3), 0);
}

/* VPD 0x83: NAA (LU), relative port 2, target port group 0x0a. */
static const u8 vpd_lio[] = {
	0x00, 0x83, 0x00, 0x1c,
	0x01, 0x03, 0x00, 0x08, 0x60, 0x01, 0x40, 0x50, 0, 0, 0, 1,
	0x61, 0x94, 0x00, 0x04, 0, 0, 0x00, 0x02,
	0x61, 0x95, 0x00, 0x04, 0, 0, 0x00, 0x0a,
};
/* A group designator associated with the LU, not the port: not ours. */
static const u8 vpd_lu_assoc[] = {
	0x00, 0x83, 0x00, 0x08,
	0x01, 0x05, 0x00, 0x04, 0, 0, 0x00, 0x0a,
};
/* The group designator runs past the page. */
static const u8 vpd_cut[] = {
	0x00, 0x83, 0x00, 0x10,
	0x61, 0x94, 0x00, 0x04, 0, 0, 0x00, 0x03,
	0x61, 0x95, 0x00, 0x08, 0, 0, 0x00, 0x0a,
};
/* A designator too short for an identifier. */
static const u8 vpd_short[] = {
	0x00, 0x83, 0x00, 0x06,
	0x61, 0x95, 0x00, 0x02, 0x00, 0x0a,
};

struct vpd_case {
	const char	*desc;
	const u8	*page;
	size_t		len;
	int		ret, tpg, rel;
};

static const struct vpd_case vpd_cases[] = {
	{ "LU, relative port, group", vpd_lio, sizeof(vpd_lio), 0, 0x0a, 2 },
	{ "read cut before the group", vpd_lio, 24, -ENOENT, -1, 2 },
	{ "group associated with the LU", vpd_lu_assoc, sizeof(vpd_lu_assoc),
	  -ENOENT, -1, -1 },
	{ "group past the page", vpd_cut, sizeof(vpd_cut), -ENOENT, -1, 3 },
	{ "designator too short", vpd_short, sizeof(vpd_short), -ENOENT, -1, -1 },
	{ "empty read", vpd_lio, 0, -ENOENT, -1, -1 },
};

static void vpd_case_desc(const struct vpd_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(vpd, vpd_cases, vpd_case_desc);

static void vpd_port_test(struct kunit *test)
{
	const struct vpd_case *c = test->param_value;
	int tpg, rel;

	KUNIT_EXPECT_EQ(test, mpath_vpd83_port(c->page, c->len, &tpg, &rel),
			c->ret);
	KUNIT_EXPECT_EQ(test, tpg, c->tpg);
	KUNIT_EXPECT_EQ(test, rel, c->rel);
}

struct sense_case {
	const char	*desc;
	u8		response, key, asc, ascq;
	enum mpath_alua_sense want;
	u8		state;
};

static const struct sense_case sense_cases[] = {
	{ "no sense data", 0, NOT_READY, 0x04, 0x0b, MPATH_ALUA_SENSE_NONE, 0 },
	{ "not ready: transitioning", 0x70, NOT_READY, 0x04, 0x0a,
	  MPATH_ALUA_SENSE_TRANSITIONING, SCSI_ACCESS_STATE_TRANSITIONING },
	{ "not ready: standby", 0x72, NOT_READY, 0x04, 0x0b,
	  MPATH_ALUA_SENSE_STANDBY, SCSI_ACCESS_STATE_STANDBY },
	{ "not ready: unavailable", 0x70, NOT_READY, 0x04, 0x0c,
	  MPATH_ALUA_SENSE_UNAVAILABLE, SCSI_ACCESS_STATE_UNAVAILABLE },
	{ "unit attention: transitioning", 0x70, UNIT_ATTENTION, 0x04, 0x0a,
	  MPATH_ALUA_SENSE_TRANSITIONING, SCSI_ACCESS_STATE_TRANSITIONING },
	{ "not ready: becoming ready", 0x70, NOT_READY, 0x04, 0x01,
	  MPATH_ALUA_SENSE_NONE, 0 },
	{ "UA: access state changed", 0x70, UNIT_ATTENTION, 0x2a, 0x06,
	  MPATH_ALUA_SENSE_CHANGED, 0 },
	{ "UA: implicit transition failed", 0x70, UNIT_ATTENTION, 0x2a, 0x07,
	  MPATH_ALUA_SENSE_CHANGED, 0 },
	{ "UA: power on", 0x70, UNIT_ATTENTION, 0x29, 0x00,
	  MPATH_ALUA_SENSE_CHANGED, 0 },
	{ "UA: reported LUNs changed", 0x70, UNIT_ATTENTION, 0x3f, 0x0e,
	  MPATH_ALUA_SENSE_CHANGED, 0 },
	{ "UA: mode parameters changed", 0x70, UNIT_ATTENTION, 0x2a, 0x01,
	  MPATH_ALUA_SENSE_NONE, 0 },
	{ "not ready 2A/06 is not a UA", 0x70, NOT_READY, 0x2a, 0x06,
	  MPATH_ALUA_SENSE_NONE, 0 },
	{ "medium error", 0x70, MEDIUM_ERROR, 0x04, 0x0b,
	  MPATH_ALUA_SENSE_NONE, 0 },
};

static void sense_case_desc(const struct sense_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(sense, sense_cases, sense_case_desc);

static void sense_test(struct kunit *test)
{
	const struct sense_case *c = test->param_value;
	struct scsi_sense_hdr s = {
		.response_code	= c->response,
		.sense_key	= c->key,
		.asc		= c->asc,
		.ascq		= c->ascq,
	};
	enum mpath_alua_sense got = mpath_alua_sense(&s);

	KUNIT_EXPECT_EQ(test, got, c->want);
	KUNIT_EXPECT_EQ(test, mpath_alua_sense_state(got), c->state);
}

struct rank_case {
	u8		state;
	int		rank;
	bool		takes_pr;
	const char	*name;
};

static const struct rank_case rank_cases[] = {
	{ SCSI_ACCESS_STATE_OPTIMAL, 0, true, "active/optimized" },
	{ SCSI_ACCESS_STATE_OPTIMAL | SCSI_ACCESS_STATE_PREFERRED, 0, true,
	  "active/optimized" },
	{ SCSI_ACCESS_STATE_ACTIVE, 1, true, "active/non-optimized" },
	{ SCSI_ACCESS_STATE_LBA, 1, true, "lba-dependent" },
	{ SCSI_ACCESS_STATE_STANDBY, -1, true, "standby" },
	{ SCSI_ACCESS_STATE_STANDBY | SCSI_ACCESS_STATE_PREFERRED, -1, true,
	  "standby" },
	{ SCSI_ACCESS_STATE_UNAVAILABLE, -1, false, "unavailable" },
	{ SCSI_ACCESS_STATE_OFFLINE, -1, false, "offline" },
	{ SCSI_ACCESS_STATE_TRANSITIONING, -1, false, "transitioning" },
	{ 0x07, -1, false, "unknown" },
};

static void rank_case_desc(const struct rank_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "0x%02x %s", c->state, c->name);
}
KUNIT_ARRAY_PARAM(rank, rank_cases, rank_case_desc);

static void rank_test(struct kunit *test)
{
	const struct rank_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, mpath_alua_rank(c->state), c->rank);
	KUNIT_EXPECT_EQ(test, mpath_alua_takes_pr(c->state), c->takes_pr);
	KUNIT_EXPECT_STREQ(test, mpath_alua_state_name(c->state), c->name);
}

static void mode_name_test(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, mpath_alua_mode_name(0), "none");
	KUNIT_EXPECT_STREQ(test, mpath_alua_mode_name(1), "implicit");
	KUNIT_EXPECT_STREQ(test, mpath_alua_mode_name(2), "explicit");
	KUNIT_EXPECT_STREQ(test, mpath_alua_mode_name(3), "implicit,explicit");
}

static struct kunit_case alua_test_cases[] = {
	KUNIT_CASE_PARAM(rtpg_parse_test, rtpg_gen_params),
	KUNIT_CASE(rtpg_many_test),
	KUNIT_CASE_PARAM(vpd_port_test, vpd_gen_params),
	KUNIT_CASE_PARAM(sense_test, sense_gen_params),
	KUNIT_CASE_PARAM(rank_test, rank_gen_params),
	KUNIT_CASE(mode_name_test),
	{}
};

static struct kunit_suite alua_test_suite = {
	.name = "mpath_shim_alua",
	.test_cases = alua_test_cases,
};
kunit_test_suite(alua_test_suite);

MODULE_LICENSE("GPL");
