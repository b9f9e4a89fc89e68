/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mpath_shim: what a READ KEYS answer says of the LUN's registration.  Pure
 * logic (drivers/mpath_shim/prkeys.c, KUnit: kunit/prkeys_test.c).
 */
#ifndef _MPATH_SHIM_PRKEYS_H
#define _MPATH_SHIM_PRKEYS_H

#include <linux/types.h>

unsigned int mpath_pr_keys_count(const u8 *buf, size_t size, u64 key);
u64 mpath_pr_settled_key(u64 key, unsigned int nkey, u64 tried,
			 unsigned int ntried, unsigned int nexuses);

#endif /* _MPATH_SHIM_PRKEYS_H */
