// SPDX-License-Identifier: GPL-2.0
/*
 * The lunpath state machine: which moves are legal, and the states' names.
 * Pure logic (KUnit: kunit/pathstate_test.c); mpath_path_set_state() in
 * path.c is the one place that changes a lunpath's state, under
 * mpath_shim.lock, and only along these moves.
 *
 *   NEW ──attach work──▶ ATTACHING ──disk open, published──▶ ACTIVE
 *    ▲                      │ open failed: back to NEW        │  ▲
 *    │                      ▼                                 ▼  │ probe: TUR ok,
 *    │                  DISABLED ◀──admin── ACTIVE/FAILED/HELD  FAILED  key registered
 *    │                                                   flaps ▼  ▲ hold-off over, or enable
 *    │                                                        HELD
 *   ATTACHING ──disk published, reservation key not registered──▶ FAILED
 *   DISABLED ──admin enables, disk open──▶ FAILED (the probe reinstates it)
 *    └── DETACHING ◀── sd unbinds (from any state but REMOVED)
 *   WRONG_LU ◀── attach or probe finds another LU behind the path (from
 *                ATTACHING, ACTIVE, FAILED); removed, its device joins
 *                the LU it reaches (discovery.c, mpath_rehome())
 *   REMOVED ◀── the SCSI device is removed (from any state); final
 */

#include <linux/kernel.h>

#include <mpath_shim/mpath_shim.h>

#define S(x)	BIT(MPATH_PATH_##x)

/* For each state, the states it may move to. */
static const unsigned int mpath_path_moves[MPATH_PATH_NR_STATES] = {
	[MPATH_PATH_NEW]	= S(ATTACHING) | S(DISABLED) | S(DETACHING) |
				  S(REMOVED),
	[MPATH_PATH_ATTACHING]	= S(ACTIVE) | S(FAILED) | S(NEW) | S(DISABLED) |
				  S(DETACHING) | S(WRONG_LU) | S(REMOVED),
	[MPATH_PATH_ACTIVE]	= S(FAILED) | S(HELD) | S(DISABLED) |
				  S(DETACHING) | S(WRONG_LU) | S(REMOVED),
	[MPATH_PATH_FAILED]	= S(ACTIVE) | S(DISABLED) | S(DETACHING) |
				  S(WRONG_LU) | S(REMOVED),
	[MPATH_PATH_HELD]	= S(FAILED) | S(DISABLED) | S(DETACHING) |
				  S(REMOVED),
	[MPATH_PATH_DISABLED]	= S(NEW) | S(FAILED) | S(DETACHING) |
				  S(REMOVED),
	[MPATH_PATH_DETACHING]	= S(NEW) | S(DISABLED) | S(REMOVED),
	[MPATH_PATH_WRONG_LU]	= S(DETACHING) | S(REMOVED),
	[MPATH_PATH_REMOVED]	= 0,
};

/* The states in which a published disk may be used (the path's ref lives). */
#define MPATH_PATH_DISK_STATES	(S(ACTIVE) | S(FAILED) | S(HELD) | S(DISABLED))

/* May I/O or a probe use the disk of a lunpath in @state, if it has one? */
bool mpath_path_state_holds_disk(enum mpath_path_state state)
{
	return (unsigned int)state < MPATH_PATH_NR_STATES &&
	       (MPATH_PATH_DISK_STATES & BIT(state));
}

#undef S

/* May a lunpath in state @old move to @new? */
bool mpath_path_state_next(enum mpath_path_state old,
			   enum mpath_path_state new)
{
	if ((unsigned int)old >= MPATH_PATH_NR_STATES ||
	    (unsigned int)new >= MPATH_PATH_NR_STATES)
		return false;
	return mpath_path_moves[old] & BIT(new);
}

static const char * const mpath_path_state_names[MPATH_PATH_NR_STATES] = {
	[MPATH_PATH_NEW]	= "unattached",
	[MPATH_PATH_ATTACHING]	= "attaching",
	[MPATH_PATH_ACTIVE]	= "active",
	[MPATH_PATH_FAILED]	= "failed",
	[MPATH_PATH_HELD]	= "held",
	[MPATH_PATH_DISABLED]	= "disabled",
	[MPATH_PATH_DETACHING]	= "detaching",
	[MPATH_PATH_WRONG_LU]	= "wrong_lu",
	[MPATH_PATH_REMOVED]	= "removing",
};

const char *mpath_path_state_name(enum mpath_path_state state)
{
	if ((unsigned int)state >= MPATH_PATH_NR_STATES)
		return "unknown";
	return mpath_path_state_names[state];
}
