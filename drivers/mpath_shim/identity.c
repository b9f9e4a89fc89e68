// SPDX-License-Identifier: GPL-2.0
/*
 * The identity of a lunpath: the LU designator of a VPD page 0x83 that was
 * read afresh from the device, formatted exactly as scsi_vpd_lun_id()
 * formats the page the SCSI midlayer cached at scan time (the same order of
 * preference, the same text), so that it can be compared with the LUN's
 * wwid.  The midlayer's copy is not re-read when the storage maps another LU
 * behind the same H:C:T:L (iSCSI relogin, a remap without a device delete);
 * a path is checked with this before it returns to service.
 *
 * Pure logic on a buffer (KUnit: kunit/identity_test.c).  The preference and
 * formatting follow scsi_vpd_lun_id() and designator_prio() in
 * drivers/scsi/scsi_lib.c; unlike them, every designator is bounds-checked
 * against the page.
 */

#include <linux/kernel.h>
#include <linux/string.h>

#include <mpath_shim/mpath_shim.h>

/* Preference of a designator for the LU, 0 for none (designator_prio()). */
static u8 mpath_designator_prio(const u8 *d)
{
	if (d[1] & 0x30)	/* not associated with the LU */
		return 0;
	if (!d[3])		/* empty */
		return 0;
	switch (d[1] & 0xf) {
	case 0x8:		/* SCSI name string */
		return 9;
	case 0x3:		/* NAA */
		switch (d[4] >> 4) {
		case 6:		/* IEEE Registered Extended */
			return 8;
		case 5:		/* IEEE Registered */
			return 5;
		case 4:		/* IEEE Extended */
			return 4;
		case 3:		/* locally assigned */
			return 1;
		default:
			return 0;
		}
	case 0x2:		/* EUI-64 */
		switch (d[3]) {
		case 16:
			return 7;
		case 12:
			return 6;
		case 8:
			return 3;
		default:
			return 0;
		}
	case 0x1:		/* T10 Vendor ID */
		return 1;
	default:
		return 0;
	}
}

/**
 * mpath_vpd83_lu_id - the LU designator of a VPD page 0x83 as text
 * @page:	the page, header included
 * @len:	bytes of @page that were read
 * @id:		where the text goes
 * @id_len:	size of @id, at least 21
 *
 * Returns the length of the text (as scsi_vpd_lun_id() does), or -EINVAL
 * if the page has no designator of the LU.
 */
int mpath_vpd83_lu_id(const u8 *page, size_t len, char *id, size_t id_len)
{
	u8 cur_prio = 0, cur_size = 0, prio;
	const u8 *d, *end;
	int id_size = -EINVAL;

	if (id_len < 21 || len < 4)
		return -EINVAL;
	end = page + min_t(size_t, len, 4 + ((page[2] << 8) | page[3]));
	memset(id, 0, id_len);
	for (d = page + 4; d + 4 <= end && d + 4 + d[3] <= end; d += d[3] + 4) {
		prio = mpath_designator_prio(d);
		if (!prio || cur_prio > prio)
			continue;
		switch (d[1] & 0xf) {
		case 0x1:
			if (cur_size > d[3])
				break;
			cur_prio = prio;
			cur_size = d[3];
			if (cur_size + 4 > id_len)
				cur_size = id_len - 4;
			id_size = snprintf(id, id_len, "t10.%*pE", cur_size,
					   d + 4);
			break;
		case 0x2:
			cur_prio = prio;
			cur_size = d[3];
			if (cur_size == 8 || cur_size == 12 || cur_size == 16)
				id_size = snprintf(id, id_len, "eui.%*phN",
						   cur_size, d + 4);
			break;
		case 0x3:
			cur_prio = prio;
			cur_size = d[3];
			if (cur_size == 8 || cur_size == 16)
				id_size = snprintf(id, id_len, "naa.%*phN",
						   cur_size, d + 4);
			break;
		case 0x8:
			if (cur_size > d[3])
				break;
			/* Prefer others to a truncated name. */
			if (d[3] > id_len) {
				prio = 2;
				if (cur_prio > prio)
					break;
			}
			/* As scsi_vpd_lun_id(): copied over what was there. */
			cur_prio = prio;
			cur_size = d[3];
			id_size = d[3];
			memcpy(id, d + 4, min_t(size_t, cur_size, id_len - 1));
			break;
		}
	}
	return id_size;
}
