// SPDX-License-Identifier: GPL-2.0
/*
 * What a READ KEYS answer says of the LUN's registration.  The LU lists
 * one key per registered I_T nexus, every initiator's.  Pure logic (KUnit:
 * kunit/prkeys_test.c).
 */

#include <linux/minmax.h>

#include <mpath_shim/compat.h>
#include <mpath_shim/prkeys.h>

/*
 * How many nexuses have @key registered, by READ KEYS parameter data @buf
 * of @size bytes (its header gives the length of the list; a list longer
 * than @buf was cut short by the LU, and only what arrived is read).
 */
unsigned int mpath_pr_keys_count(const u8 *buf, size_t size, u64 key)
{
	unsigned int n = 0;
	size_t len, i;

	if (size < 8)
		return 0;
	len = min_t(size_t, get_unaligned_be32(&buf[4]), size - 8);
	for (i = 0; i + 8 <= len; i += 8)
		n += get_unaligned_be64(&buf[8 + i]) == key;
	return n;
}

/*
 * The key the LUN holds after a REGISTER from @key to @tried (0: an
 * unregister) went to @nexuses nexuses and every answer was a path error:
 * the LU may have carried it out on all, some or none of them.  READ KEYS
 * found @key on @nkey nexuses and @tried on @ntried.
 *
 *  - @key still registered somewhere: the REGISTER was not carried out
 *    everywhere; the LUN keeps @key, which each nexus gets back when it
 *    joins.
 *  - @tried registered on at least as many nexuses as it went to (or, for
 *    an unregister, @key nowhere): carried out everywhere; the LUN holds
 *    @tried.  With fewer, another initiator removed @key from the rest
 *    while it went round (a fence): the LUN keeps @key, which its joins
 *    then find gone, and they unregister.
 */
u64 mpath_pr_settled_key(u64 key, unsigned int nkey, u64 tried,
			 unsigned int ntried, unsigned int nexuses)
{
	if (key && nkey)
		return key;
	if (tried ? ntried >= max(nexuses, 1U) : !nkey)
		return tried;
	return key;
}
