// SPDX-License-Identifier: GPL-2.0
/*
 * Asymmetric logical unit access, the pure logic (SPC-4 6.37 REPORT TARGET
 * PORT GROUPS, 7.8.6 VPD page 0x83, 5.15 the access states).
 *
 * A target port group is a set of target ports that share one asymmetric
 * access state; a lunpath is the LU seen through one target port, so it is
 * in the group its VPD page 0x83 names.  One RTPG answer, through any port,
 * gives the state of every group of the LU.
 *
 * Grouping: I/O goes only to the lunpaths of the best rank present, rank 0
 * (active/optimized) before rank 1 (active/non-optimized, or LBA dependent,
 * which the shim treats as non-optimized).  Standby, unavailable, offline
 * and transitioning ports have no rank: they carry no I/O and are not
 * failed.
 *
 * Every buffer is bounds-checked against the length that was read, not
 * only the length the target says.  KUnit: kunit/alua_test.c.
 */

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <scsi/scsi_common.h>

#include <mpath_shim/compat.h>

#include <mpath_shim/alua.h>

/* Format type 1: the extended header (8 bytes before the descriptors). */
static bool mpath_rtpg_ext(const u8 *buf, size_t len)
{
	return len >= 8 && ((buf[4] >> 4) & 0x7) == 1;
}

/**
 * mpath_rtpg_needed - bytes a REPORT TARGET PORT GROUPS answer has in all
 * @buf:	the answer
 * @len:	bytes of it that were read
 *
 * The return data length counts the descriptors; with the extended header
 * some targets (LIO) leave its 4 bytes out of it and some count them.  The
 * larger reading is taken: the 4 bytes it may add cannot hold a descriptor.
 * Returns 0 if @len is too short to say.
 */
u32 mpath_rtpg_needed(const u8 *buf, size_t len)
{
	if (len < 4)
		return 0;
	return min_t(u64, (u64)get_unaligned_be32(buf) +
		     (mpath_rtpg_ext(buf, len) ? 8 : 4), U32_MAX);
}

/*
 * Walk the descriptors of an RTPG answer: decode each one the answer holds
 * whole into @rtpg (if given, with room for them all), and return how many
 * there are.  A descriptor cut short by @len or by the return data length
 * ends the list.
 */
static unsigned int mpath_rtpg_walk(const u8 *buf, size_t len,
				    struct mpath_rtpg *rtpg)
{
	size_t off, end, dlen;
	unsigned int nr = 0;
	const u8 *d;

	end = min_t(u64, len, mpath_rtpg_needed(buf, len));
	off = mpath_rtpg_ext(buf, len) ? 8 : 4;
	for (; off + 8 <= end; off += dlen, nr++) {
		d = buf + off;
		dlen = 8 + 4 * (size_t)d[7];
		if (off + dlen > end)
			break;
		if (!rtpg)
			continue;
		rtpg->tpg[nr] = (struct mpath_tpg) {
			.id		= get_unaligned_be16(&d[2]),
			.state		= d[0] & SCSI_ACCESS_STATE_MASK,
			.pref		= d[0] & SCSI_ACCESS_STATE_PREFERRED,
			.supported	= d[1],
			.status		= d[5],
			.nr_ports	= d[7],
		};
	}
	return nr;
}

/**
 * mpath_rtpg_parse - decode a REPORT TARGET PORT GROUPS answer
 * @buf:	the answer, with or without the extended header
 * @len:	bytes of it that were read
 * @gfp:	allocation flags
 *
 * A descriptor cut short by @len or by the return data length ends the
 * list; every whole one is kept.
 *
 * Return: the decoded answer (kfree() it), ERR_PTR(-EINVAL) if @buf is not
 * an answer, ERR_PTR(-ENOMEM).
 */
struct mpath_rtpg *mpath_rtpg_parse(const u8 *buf, size_t len, gfp_t gfp)
{
	struct mpath_rtpg *rtpg;
	unsigned int nr;

	if (len < 4)
		return ERR_PTR(-EINVAL);
	nr = mpath_rtpg_walk(buf, len, NULL);
	rtpg = kzalloc(struct_size(rtpg, tpg, nr), gfp);
	if (!rtpg)
		return ERR_PTR(-ENOMEM);
	rtpg->ext = mpath_rtpg_ext(buf, len);
	if (rtpg->ext)
		rtpg->trans_secs = buf[5];
	rtpg->nr = mpath_rtpg_walk(buf, len, rtpg);
	return rtpg;
}

/* The descriptor of group @id in @rtpg, NULL if it has none. */
const struct mpath_tpg *mpath_rtpg_find(const struct mpath_rtpg *rtpg, int id)
{
	unsigned int i;

	for (i = 0; id >= 0 && i < rtpg->nr; i++)
		if (rtpg->tpg[i].id == id)
			return &rtpg->tpg[i];
	return NULL;
}

/**
 * mpath_vpd83_port - the target port group and relative port of a port
 * @page:	VPD page 0x83, header included
 * @len:	bytes of @page that were read
 * @tpg_id:	the target port group identifier, MPATH_ALUA_NONE if none
 * @rel_port:	the relative target port identifier, MPATH_ALUA_NONE if none
 *
 * Only designators associated with the target port count (association
 * 01b).  Returns 0 if the page names a target port group, -ENOENT if not.
 */
int mpath_vpd83_port(const u8 *page, size_t len, int *tpg_id, int *rel_port)
{
	const u8 *d, *end;

	*tpg_id = MPATH_ALUA_NONE;
	*rel_port = MPATH_ALUA_NONE;
	if (len < 4)
		return -ENOENT;
	end = page + min_t(size_t, len, 4 + get_unaligned_be16(&page[2]));
	for (d = page + 4; d + 4 <= end && d + 4 + d[3] <= end; d += d[3] + 4) {
		if ((d[1] & 0x30) != 0x10 || d[3] < 4)
			continue;
		switch (d[1] & 0xf) {
		case 0x4:	/* relative target port */
			*rel_port = get_unaligned_be16(&d[6]);
			break;
		case 0x5:	/* target port group */
			*tpg_id = get_unaligned_be16(&d[6]);
			break;
		}
	}
	return *tpg_id == MPATH_ALUA_NONE ? -ENOENT : 0;
}

/*
 * What @sshdr says of the access state of the port that answered.  NOT
 * READY or UNIT ATTENTION 04/0A-0C name the port's own state; UNIT
 * ATTENTION 2A/06 (asymmetric access state changed), 2A/07 (implicit
 * transition failed), 29/xx (power on, reset: a change may be hidden) and
 * 3F/0E (reported LUNs changed, a controller failover on some arrays) say
 * the states may have moved.
 */
enum mpath_alua_sense mpath_alua_sense(const struct scsi_sense_hdr *sshdr)
{
	if (!scsi_sense_valid(sshdr))
		return MPATH_ALUA_SENSE_NONE;
	if (sshdr->sense_key != NOT_READY && sshdr->sense_key != UNIT_ATTENTION)
		return MPATH_ALUA_SENSE_NONE;
	if (sshdr->asc == 0x04) {
		switch (sshdr->ascq) {
		case 0x0a:
			return MPATH_ALUA_SENSE_TRANSITIONING;
		case 0x0b:
			return MPATH_ALUA_SENSE_STANDBY;
		case 0x0c:
			return MPATH_ALUA_SENSE_UNAVAILABLE;
		}
		return MPATH_ALUA_SENSE_NONE;
	}
	if (sshdr->sense_key != UNIT_ATTENTION)
		return MPATH_ALUA_SENSE_NONE;
	if ((sshdr->asc == 0x2a && (sshdr->ascq == 0x06 || sshdr->ascq == 0x07)) ||
	    sshdr->asc == 0x29 || (sshdr->asc == 0x3f && sshdr->ascq == 0x0e))
		return MPATH_ALUA_SENSE_CHANGED;
	return MPATH_ALUA_SENSE_NONE;
}

/* The access state a sense names, SCSI_ACCESS_STATE_OPTIMAL if none. */
u8 mpath_alua_sense_state(enum mpath_alua_sense sense)
{
	switch (sense) {
	case MPATH_ALUA_SENSE_TRANSITIONING:
		return SCSI_ACCESS_STATE_TRANSITIONING;
	case MPATH_ALUA_SENSE_STANDBY:
		return SCSI_ACCESS_STATE_STANDBY;
	case MPATH_ALUA_SENSE_UNAVAILABLE:
		return SCSI_ACCESS_STATE_UNAVAILABLE;
	default:
		return SCSI_ACCESS_STATE_OPTIMAL;
	}
}

/*
 * The rank of a port in @state: 0 active/optimized, 1 active/non-optimized
 * or LBA dependent, -1 no I/O (standby, unavailable, offline, transitioning
 * and reserved values).  The PREF bit is ignored.
 */
int mpath_alua_rank(u8 state)
{
	switch (state & SCSI_ACCESS_STATE_MASK) {
	case SCSI_ACCESS_STATE_OPTIMAL:
		return 0;
	case SCSI_ACCESS_STATE_ACTIVE:
	case SCSI_ACCESS_STATE_LBA:
		return 1;
	default:
		return -1;
	}
}

/*
 * Does a port in @state take PERSISTENT RESERVE OUT?  In every state that
 * takes I/O, and in standby (SPC-4, asymmetric access states); not while
 * unavailable, offline or in transition (NOT READY 04/0C, 04/12, 04/0A).
 */
bool mpath_alua_takes_pr(u8 state)
{
	return mpath_alua_rank(state) >= 0 ||
	       (state & SCSI_ACCESS_STATE_MASK) == SCSI_ACCESS_STATE_STANDBY;
}

/* As the SCSI device's access_state in sysfs names them. */
const char *mpath_alua_state_name(u8 state)
{
	switch (state & SCSI_ACCESS_STATE_MASK) {
	case SCSI_ACCESS_STATE_OPTIMAL:
		return "active/optimized";
	case SCSI_ACCESS_STATE_ACTIVE:
		return "active/non-optimized";
	case SCSI_ACCESS_STATE_STANDBY:
		return "standby";
	case SCSI_ACCESS_STATE_UNAVAILABLE:
		return "unavailable";
	case SCSI_ACCESS_STATE_LBA:
		return "lba-dependent";
	case SCSI_ACCESS_STATE_OFFLINE:
		return "offline";
	case SCSI_ACCESS_STATE_TRANSITIONING:
		return "transitioning";
	default:
		return "unknown";
	}
}

/* The TPGS field of INQUIRY: which kinds of ALUA the LU supports. */
const char *mpath_alua_mode_name(unsigned int tpgs)
{
	static const char * const names[] = {
		"none", "implicit", "explicit", "implicit,explicit",
	};

	return names[tpgs & 3];
}
