/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Path selection policies, in the style of drivers/md/dm-path-selector.h.
 *
 * A policy is an ops table; one file per policy (ps-*.c), the core holds no
 * policy-specific code.  A policy chooses a lunpath from the LUN's path map,
 * an immutable array of usable lunpaths published with RCU.  It may derive
 * data of its own from the map when the map is built (->data_size and
 * ->build: the data lives in the map's own allocation and is freed with it),
 * and it may keep per-CPU state (->pcpu_size bytes per CPU per LUN, zeroed).
 * Nothing a policy touches per I/O may be shared between CPUs unless its
 * flags ask for load tracking, where the core keeps the chosen path's
 * I/Os in flight (mpath_path_inflight()), active_bytes and cost up to
 * date.
 */
#ifndef _MPATH_SHIM_POLICY_H
#define _MPATH_SHIM_POLICY_H

#include <linux/list.h>
#include <linux/types.h>

struct mpath_path;
struct mpath_path_map;

/* The core tracks active_bytes and cost of each lunpath. */
#define MPATH_PS_TRACK_LOAD	BIT(0)
/* No failover: when the policy finds no path, the I/O waits. */
#define MPATH_PS_NO_FAILOVER	BIT(1)

/**
 * struct mpath_ps_args - what a policy's select() gets besides the map
 * @pcpu:	this CPU's state of the policy for this LUN (pcpu_size bytes)
 * @data:	the data ->build() derived from the map, or NULL when the map
 *		was built for another policy (during a switch): fall back
 * @node:	NUMA node of the submitting CPU
 * @bytes:	size of the I/O
 */
struct mpath_ps_args {
	void		*pcpu;
	const void	*data;
	int		node;
	unsigned int	bytes;
};

/**
 * struct mpath_policy - a path selection policy
 * @name:	as shown and written in sysfs
 * @flags:	MPATH_PS_*
 * @pcpu_size:	bytes of per-CPU state per LUN
 * @data_size:	bytes of map-derived data for a map of these paths (optional)
 * @build:	derive the data from a new map, into @data (optional)
 * @select:	choose a usable path of @map, or NULL; called under
 *		rcu_read_lock() with preemption disabled
 * @list:	in the registry
 */
struct mpath_policy {
	const char	*name;
	unsigned int	flags;
	size_t		pcpu_size;
	size_t		(*data_size)(struct mpath_path * const *paths,
				     unsigned int nr);
	void		(*build)(const struct mpath_path_map *map, void *data);
	struct mpath_path *(*select)(const struct mpath_path_map *map,
				     struct mpath_ps_args *args);
	struct list_head list;
};

int mpath_policy_register(struct mpath_policy *policy);
void mpath_policy_unregister(struct mpath_policy *policy);
const struct mpath_policy *mpath_policy_find(const char *name);
ssize_t mpath_policy_show_all(const struct mpath_policy *current_policy,
			      char *buf);
int mpath_policies_init(void);
void mpath_policies_exit(void);

/* round_robin's select(), called directly by the core (the default) */
struct mpath_path *mpath_ps_rr_select(const struct mpath_path_map *map,
				      struct mpath_ps_args *args);

/* The built-in policies (ps-*.c) */
extern struct mpath_policy mpath_ps_round_robin;
extern struct mpath_policy mpath_ps_least_cmd_load;
extern struct mpath_policy mpath_ps_cell_local_rr;
extern struct mpath_policy mpath_ps_path_lockdown;
extern struct mpath_policy mpath_ps_preferred_path;
extern struct mpath_policy mpath_ps_weighted_rr;
extern struct mpath_policy mpath_ps_service_time;

#endif /* _MPATH_SHIM_POLICY_H */
