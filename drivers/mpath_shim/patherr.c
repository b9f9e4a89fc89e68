// SPDX-License-Identifier: GPL-2.0
/*
 * Which failures of a command passed to one lunpath are the path's: the
 * lunpath is failed, as an I/O error would fail it, and the command is sent
 * down another.  Any other outcome, a CHECK CONDITION or a RESERVATION
 * CONFLICT included, is the LU's answer and goes to the caller.  Pure logic
 * (KUnit: kunit/patherr_test.c).
 */

#include <linux/errno.h>
#include <scsi/scsi_proto.h>
#include <scsi/scsi_status.h>

#include <mpath_shim/patherr.h>

/* sd's ioctl or reservation command failed before reaching the device. */
bool mpath_errno_path_error(int err)
{
	/* The device is offline, being deleted, or gone. */
	return err == -ENODEV || err == -ENXIO;
}

/* The host byte of a SCSI command's result. */
bool mpath_host_byte_path_error(u8 host)
{
	switch (host) {
	case DID_NO_CONNECT:
	case DID_BUS_BUSY:
	case DID_TIME_OUT:
	case DID_ERROR:
	case DID_TRANSPORT_DISRUPTED:
	case DID_TRANSPORT_FAILFAST:
	case DID_TRANSPORT_MARGINAL:
		return true;
	}
	return false;
}

/*
 * What sd's pr_ops return: a negative errno, 0, or the SCSI result (6.1) or
 * a PR_STS_* code (6.5 on), whose path failures are host bytes << 16
 * (PR_STS_PATH_FAILED is DID_NO_CONNECT << 16, and so on).
 */
bool mpath_pr_result_path_error(int ret)
{
	if (ret < 0)
		return mpath_errno_path_error(ret);
	return mpath_host_byte_path_error((ret >> 16) & 0xff);
}

/*
 * Is @ret (as mpath_pr_result_path_error() takes it) a RESERVATION
 * CONFLICT?  Its status byte: 6.1 adds its own bits above it (0x118,
 * SCSIML_STAT_RESV_CONFLICT; older kernels DID_NEXUS_FAILURE), 6.5 on
 * return PR_STS_RESERVATION_CONFLICT, the status itself.
 */
bool mpath_pr_result_conflict(int ret)
{
	return ret > 0 && (ret & 0xff) == SAM_STAT_RESERVATION_CONFLICT;
}

/*
 * May an SG_IO command with operation code @opcode that ended with the path
 * error @host be sent again on another lunpath?  Yes when it cannot have
 * reached the LU (no connection, the host busy, the transport failing it
 * fast).  After a timeout or a broken transport the LU may have carried it
 * out, and a second run of a reservation command or a COMPARE AND WRITE
 * answers otherwise than the first did (a PREEMPT of a key already gone, a
 * RESERVE of a holder's nexus from another one, data no longer as
 * compared): the caller gets the host byte, as through one sd path.
 */
bool mpath_sg_resend_ok(u8 opcode, u8 host)
{
	switch (host) {
	case DID_NO_CONNECT:
	case DID_BUS_BUSY:
	case DID_TRANSPORT_FAILFAST:
		return true;
	}
	switch (opcode) {
	case 0x16:	/* RESERVE(6) */
	case 0x17:	/* RELEASE(6) */
	case RESERVE_10:
	case RELEASE_10:
	case PERSISTENT_RESERVE_OUT:
	case COMPARE_AND_WRITE:
		return false;
	}
	return true;
}
