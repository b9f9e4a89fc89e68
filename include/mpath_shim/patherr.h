/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mpath_shim: which failures of a command passed to one lunpath (an ioctl,
 * a reservation command) are the path's rather than the LU's.  Pure logic
 * (drivers/mpath_shim/patherr.c, KUnit: kunit/patherr_test.c).
 */
#ifndef _MPATH_SHIM_PATHERR_H
#define _MPATH_SHIM_PATHERR_H

#include <linux/types.h>

bool mpath_errno_path_error(int err);
bool mpath_host_byte_path_error(u8 host);
bool mpath_pr_result_path_error(int ret);
bool mpath_pr_result_conflict(int ret);
bool mpath_sg_resend_ok(u8 opcode, u8 host);

#endif /* _MPATH_SHIM_PATHERR_H */
