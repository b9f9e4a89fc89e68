// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: which failures of a passed-through command are the path's
 * (drivers/mpath_shim/patherr.c).
 */

#include <kunit/test.h>
#include <linux/errno.h>
#include <scsi/scsi_proto.h>
#include <scsi/scsi_status.h>

#include <mpath_shim/patherr.h>

struct pr_case {
	const char	*desc;
	int		ret;
	bool		path_error;
};

static const struct pr_case pr_cases[] = {
	{ "success", 0, false },
	{ "device offline (ENODEV)", -ENODEV, true },
	{ "device gone (ENXIO)", -ENXIO, true },
	{ "no memory is not the path's", -ENOMEM, false },
	{ "not supported is not the path's", -EOPNOTSUPP, false },
	{ "bad argument is not the path's", -EINVAL, false },
	{ "reservation conflict", SAM_STAT_RESERVATION_CONFLICT, false },
	{ "check condition (6.1) / PR_STS_IOERR", SAM_STAT_CHECK_CONDITION, false },
	{ "DID_NO_CONNECT = PR_STS_PATH_FAILED", DID_NO_CONNECT << 16, true },
	{ "DID_TRANSPORT_DISRUPTED = PR_STS_RETRY_PATH_FAILURE",
	  DID_TRANSPORT_DISRUPTED << 16, true },
	{ "DID_TRANSPORT_FAILFAST = PR_STS_PATH_FAST_FAILED",
	  DID_TRANSPORT_FAILFAST << 16, true },
	{ "DID_TIME_OUT with a check condition", DID_TIME_OUT << 16 | 2, true },
	{ "DID_BAD_TARGET is the LU's", DID_BAD_TARGET << 16, false },
	/* 0x10-0x13: target, nexus (conflict), alloc and medium failures. */
	{ "old DID_TARGET_FAILURE is the LU's", 0x10 << 16, false },
	{ "old DID_NEXUS_FAILURE (conflict) is the LU's", 0x11 << 16, false },
	{ "old DID_MEDIUM_ERROR is the LU's", 0x13 << 16, false },
};

static void pr_case_desc(const struct pr_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(pr_result, pr_cases, pr_case_desc);

static void pr_result_test(struct kunit *test)
{
	const struct pr_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, mpath_pr_result_path_error(c->ret), c->path_error);
}

struct host_case {
	const char	*desc;
	u8		host;
	bool		path_error;
};

static const struct host_case host_cases[] = {
	{ "DID_OK", DID_OK, false },
	{ "DID_NO_CONNECT", DID_NO_CONNECT, true },
	{ "DID_BUS_BUSY", DID_BUS_BUSY, true },
	{ "DID_TIME_OUT", DID_TIME_OUT, true },
	{ "DID_ERROR", DID_ERROR, true },
	{ "DID_TRANSPORT_DISRUPTED", DID_TRANSPORT_DISRUPTED, true },
	{ "DID_TRANSPORT_FAILFAST", DID_TRANSPORT_FAILFAST, true },
	{ "DID_TRANSPORT_MARGINAL", DID_TRANSPORT_MARGINAL, true },
	{ "DID_BAD_TARGET", DID_BAD_TARGET, false },
	{ "DID_ABORT", DID_ABORT, false },
	{ "DID_RESET", DID_RESET, false },
	{ "DID_SOFT_ERROR", DID_SOFT_ERROR, false },
	{ "old DID_NEXUS_FAILURE", 0x11, false },
};

static void host_case_desc(const struct host_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(host_byte, host_cases, host_case_desc);

static void host_byte_test(struct kunit *test)
{
	const struct host_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, mpath_host_byte_path_error(c->host), c->path_error);
}

struct conflict_case {
	const char	*desc;
	int		ret;
	bool		conflict;
};

static const struct conflict_case conflict_cases[] = {
	{ "success", 0, false },
	{ "PR_STS_RESERVATION_CONFLICT (6.5 on)", SAM_STAT_RESERVATION_CONFLICT, true },
	{ "6.1: SCSIML_STAT_RESV_CONFLICT above the status", 0x0118, true },
	{ "old DID_NEXUS_FAILURE with the status", 0x11 << 16 | 0x18, true },
	{ "check condition", SAM_STAT_CHECK_CONDITION, false },
	{ "busy", SAM_STAT_BUSY, false },
	{ "PR_STS_PATH_FAILED", DID_NO_CONNECT << 16, false },
	{ "an errno", -ENODEV, false },
	{ "-EBADE is not a status", -EBADE, false },
};

static void conflict_case_desc(const struct conflict_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(conflict, conflict_cases, conflict_case_desc);

static void conflict_test(struct kunit *test)
{
	const struct conflict_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, mpath_pr_result_conflict(c->ret), c->conflict);
}

struct resend_case {
	const char	*desc;
	u8		opcode;
	u8		host;
	bool		resend;
};

static const struct resend_case resend_cases[] = {
	{ "INQUIRY timed out", INQUIRY, DID_TIME_OUT, true },
	{ "READ(10) after a broken transport", READ_10, DID_TRANSPORT_DISRUPTED, true },
	{ "WRITE(10) timed out (idempotent)", WRITE_10, DID_TIME_OUT, true },
	{ "PR OUT timed out", PERSISTENT_RESERVE_OUT, DID_TIME_OUT, false },
	{ "PR OUT after a broken transport", PERSISTENT_RESERVE_OUT, DID_TRANSPORT_DISRUPTED, false },
	{ "PR OUT after DID_ERROR", PERSISTENT_RESERVE_OUT, DID_ERROR, false },
	{ "PR OUT with no connection", PERSISTENT_RESERVE_OUT, DID_NO_CONNECT, true },
	{ "PR OUT failed fast", PERSISTENT_RESERVE_OUT, DID_TRANSPORT_FAILFAST, true },
	{ "PR OUT, host busy", PERSISTENT_RESERVE_OUT, DID_BUS_BUSY, true },
	{ "RESERVE(6) timed out", 0x16, DID_TIME_OUT, false },
	{ "RELEASE(6) timed out", 0x17, DID_TIME_OUT, false },
	{ "RESERVE(10) timed out", RESERVE_10, DID_TIME_OUT, false },
	{ "RELEASE(10) timed out", RELEASE_10, DID_TIME_OUT, false },
	{ "COMPARE AND WRITE timed out", COMPARE_AND_WRITE, DID_TIME_OUT, false },
	{ "PR IN timed out (a read)", PERSISTENT_RESERVE_IN, DID_TIME_OUT, true },
};

static void resend_case_desc(const struct resend_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(resend, resend_cases, resend_case_desc);

static void resend_test(struct kunit *test)
{
	const struct resend_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, mpath_sg_resend_ok(c->opcode, c->host), c->resend);
}

static struct kunit_case patherr_test_cases[] = {
	KUNIT_CASE_PARAM(pr_result_test, pr_result_gen_params),
	KUNIT_CASE_PARAM(host_byte_test, host_byte_gen_params),
	KUNIT_CASE_PARAM(conflict_test, conflict_gen_params),
	KUNIT_CASE_PARAM(resend_test, resend_gen_params),
	{}
};

static struct kunit_suite patherr_test_suite = {
	.name = "mpath_shim_patherr",
	.test_cases = patherr_test_cases,
};
kunit_test_suite(patherr_test_suite);

MODULE_LICENSE("GPL");
