// SPDX-License-Identifier: GPL-2.0
/*
 * cell_local_rr (HP-UX): round robin over the usable paths local to the
 * submitting CPU's NUMA node (a path's locality is its HBA's node, or what
 * the administrator set); over all usable paths when that node has none.
 *
 * The map's paths are grouped by node when the map is built, so selection
 * is a short walk of the node table and a round robin in the node's group.
 * Written per I/O: the CPU's cursor, nothing shared.
 */

#include <linux/numa.h>

#include <mpath_shim/mpath_shim.h>

struct clrr_node {
	int		node;
	unsigned int	start;
	unsigned int	count;
};

struct clrr_data {
	unsigned int		nr_nodes;
	struct clrr_node	*nodes;
	struct mpath_path	**order;
};

static size_t clrr_data_size(struct mpath_path * const *paths, unsigned int nr)
{
	return sizeof(struct clrr_data) + nr * sizeof(struct clrr_node) +
	       nr * sizeof(struct mpath_path *);
}

static void clrr_build(const struct mpath_path_map *map, void *buf)
{
	struct clrr_data *data = buf;
	unsigned int i, j, n = 0;

	data->nodes = (struct clrr_node *)(data + 1);
	data->order = (struct mpath_path **)(data->nodes + map->nr);
	data->nr_nodes = 0;
	for (i = 0; i < map->nr; i++) {
		int node = READ_ONCE(map->paths[i]->locality);
		struct clrr_node *entry = NULL;

		if (node == NUMA_NO_NODE)
			continue;
		for (j = 0; j < data->nr_nodes; j++)
			if (data->nodes[j].node == node)
				entry = &data->nodes[j];
		if (entry)
			continue;
		/* First path of a new node: gather all of its paths. */
		entry = &data->nodes[data->nr_nodes++];
		entry->node = node;
		entry->start = n;
		entry->count = 0;
		for (j = i; j < map->nr; j++) {
			if (READ_ONCE(map->paths[j]->locality) == node) {
				data->order[n++] = map->paths[j];
				entry->count++;
			}
		}
	}
}

static struct mpath_path *clrr_select(const struct mpath_path_map *map,
				      struct mpath_ps_args *args)
{
	const struct clrr_data *data = args->data;
	struct mpath_path *path;
	unsigned int i;

	for (i = 0; data && i < data->nr_nodes; i++) {
		if (data->nodes[i].node != args->node)
			continue;
		path = mpath_ps_rr_next(&data->order[data->nodes[i].start],
					data->nodes[i].count, args->pcpu);
		if (path)
			return path;
		break;
	}
	return mpath_ps_rr_next(map->paths, map->nr, args->pcpu);
}

struct mpath_policy mpath_ps_cell_local_rr = {
	.name		= "cell_local_rr",
	.pcpu_size	= sizeof(unsigned int),
	.data_size	= clrr_data_size,
	.build		= clrr_build,
	.select		= clrr_select,
};
