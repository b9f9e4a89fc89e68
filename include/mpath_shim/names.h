/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of LUNs: LU designator (WWID) -> mpathN and an optional alias.
 * Pure logic (names.c, KUnit: kunit/names_test.c): the caller serialises
 * every call on one table with its own lock (mpath_shim.lock), except
 * mpath_name_alias(), which readers may call under no lock at all.
 */
#ifndef _MPATH_SHIM_NAMES_H
#define _MPATH_SHIM_NAMES_H

#include <linux/hashtable.h>
#include <linux/idr.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/* Highest N of mpathN: "mpath999999" fits DISK_NAME_LEN with room. */
#define MPATH_MAX_INDEX		999999
/* Longest alias, with its NUL: [A-Za-z0-9][A-Za-z0-9._+-]*, 63 at most. */
#define MPATH_ALIAS_LEN		64

struct mpath_name {
	struct hlist_node	node;	/* in by_wwid, under the caller's lock */
	int			index;	/* N of mpathN, fixed for life */
	char			alias[MPATH_ALIAS_LEN];	/* "": none; alias_lock */
	char			wwid[];
};

struct mpath_names {
	DECLARE_HASHTABLE(by_wwid, 8);	/* under the caller's lock */
	struct ida		ida;	/* the N in use */
	spinlock_t		alias_lock;	/* every name's alias */
};

void mpath_names_init(struct mpath_names *names);
void mpath_names_destroy(struct mpath_names *names);
struct mpath_name *mpath_names_find(struct mpath_names *names,
				    const char *wwid);
struct mpath_name *mpath_names_get(struct mpath_names *names,
				   const char *wwid);
int mpath_names_bind(struct mpath_names *names, char *val);
int mpath_names_set_alias(struct mpath_names *names, struct mpath_name *name,
			  const char *alias,
			  bool (*present)(const struct mpath_name *name));
void mpath_name_alias(struct mpath_names *names, struct mpath_name *name,
		      char *buf);
bool mpath_alias_valid(const char *alias);
int mpath_name_parse_index(const char *s);

#endif /* _MPATH_SHIM_NAMES_H */
