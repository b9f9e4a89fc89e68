/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mpath_shim: asymmetric logical unit access (ALUA, SPC-4 5.15), the pure
 * logic: REPORT TARGET PORT GROUPS and VPD page 0x83 port designators
 * decoded, sense data that speaks of access states classified, and the rank
 * of an access state for path grouping.  No SCSI or block plumbing
 * (drivers/mpath_shim/alua.c; KUnit: kunit/alua_test.c).  access.c sends the
 * commands and applies the results to lunpaths.
 */
#ifndef _MPATH_SHIM_ALUA_H
#define _MPATH_SHIM_ALUA_H

#include <linux/sizes.h>
#include <linux/types.h>
#include <scsi/scsi_proto.h>

struct scsi_sense_hdr;

/*
 * Bytes first asked for by REPORT TARGET PORT GROUPS; an answer that says
 * it is longer is asked for again in whole, up to MPATH_RTPG_MAX_LEN (more
 * than 8000 groups of one port each).
 */
#define MPATH_RTPG_LEN		512
#define MPATH_RTPG_MAX_LEN	SZ_64K

/* The TPGS field of INQUIRY: implicit and explicit ALUA. */
#define MPATH_TPGS_IMPLICIT	0x1
#define MPATH_TPGS_EXPLICIT	0x2

/* No target port group or relative port known. */
#define MPATH_ALUA_NONE		(-1)

/**
 * struct mpath_tpg - one target port group descriptor of an RTPG answer
 * @id:		target port group identifier
 * @state:	asymmetric access state, SCSI_ACCESS_STATE_* (the low nibble)
 * @pref:	the PREF bit: the group is preferred
 * @supported:	states the group supports (byte 1: T_SUP ... AO_SUP)
 * @status:	status code (0 none, 1 changed by SET TARGET PORT GROUPS,
 *		2 changed implicitly)
 * @nr_ports:	relative target ports in the group
 */
struct mpath_tpg {
	u16	id;
	u8	state;
	bool	pref;
	u8	supported;
	u8	status;
	u8	nr_ports;
};

/**
 * struct mpath_rtpg - a decoded REPORT TARGET PORT GROUPS answer
 * @ext:	it came with the extended header
 * @trans_secs:	implicit transition time the target gives (extended
 *		header), 0 if none
 * @nr:		descriptors in @tpg
 * @tpg:	the target port groups, every one the answer holds whole
 */
struct mpath_rtpg {
	bool		ext;
	u8		trans_secs;
	unsigned int	nr;
	struct mpath_tpg tpg[];
};

/* What a sense says about the asymmetric access state of its port. */
enum mpath_alua_sense {
	MPATH_ALUA_SENSE_NONE,		/* nothing */
	MPATH_ALUA_SENSE_CHANGED,	/* states may have changed: ask again */
	MPATH_ALUA_SENSE_TRANSITIONING,	/* 04/0A: the port is in transition */
	MPATH_ALUA_SENSE_STANDBY,	/* 04/0B: the port is in standby */
	MPATH_ALUA_SENSE_UNAVAILABLE,	/* 04/0C: the port is unavailable */
};

struct mpath_rtpg *mpath_rtpg_parse(const u8 *buf, size_t len, gfp_t gfp);
u32 mpath_rtpg_needed(const u8 *buf, size_t len);
const struct mpath_tpg *mpath_rtpg_find(const struct mpath_rtpg *rtpg, int id);
int mpath_vpd83_port(const u8 *page, size_t len, int *tpg_id, int *rel_port);
enum mpath_alua_sense mpath_alua_sense(const struct scsi_sense_hdr *sshdr);
u8 mpath_alua_sense_state(enum mpath_alua_sense sense);
int mpath_alua_rank(u8 state);
bool mpath_alua_takes_pr(u8 state);
const char *mpath_alua_state_name(u8 state);
const char *mpath_alua_mode_name(unsigned int tpgs);

#endif /* _MPATH_SHIM_ALUA_H */
