// SPDX-License-Identifier: GPL-2.0
/*
 * weighted_rr: each usable path gets a share of I/O proportional to its
 * weight (per lunpath in sysfs, 1..1000).
 *
 * When the map is built, the weights (divided by their greatest common
 * divisor, and scaled down if they add up to more than WRR_MAX_SLOTS) are
 * laid out as a schedule with the smooth weighted round-robin rule (each
 * step, every path gains its weight and the richest path pays the total),
 * which interleaves paths instead of sending bursts.  Each CPU then walks the
 * schedule with a cursor of its own: nothing shared is written per I/O.
 */

#include <linux/gcd.h>
#include <linux/minmax.h>
#include <linux/overflow.h>

#include <mpath_shim/mpath_shim.h>

#define WRR_MAX_SLOTS	1024

struct wrr_data {
	unsigned int		nr_slots;
	struct mpath_path	*slots[];
	/* then nr ints of scratch, used while building */
};

static unsigned int wrr_weight(const struct mpath_path *path)
{
	return clamp_t(unsigned int, READ_ONCE(path->weight), 1,
		       MPATH_WEIGHT_MAX);
}

/* Greatest common divisor and sum of the weights. */
static void wrr_scale(struct mpath_path * const *paths, unsigned int nr,
		      unsigned int *g, unsigned int *total)
{
	unsigned int i;

	*g = 0;
	*total = 0;
	for (i = 0; i < nr; i++) {
		*g = *g ? gcd(*g, wrr_weight(paths[i])) : wrr_weight(paths[i]);
		*total += wrr_weight(paths[i]);
	}
}

/* A path's slots in the schedule.  Weights change under mpath_shim.lock
 * only, which the map's builder holds: sizing and building agree.
 */
static unsigned int wrr_slots(const struct mpath_path *path, unsigned int g,
			      unsigned int total)
{
	unsigned int w = wrr_weight(path) / g, t = total / g;

	return t > WRR_MAX_SLOTS ? max(1U, w * WRR_MAX_SLOTS / t) : w;
}

static unsigned int wrr_sum(struct mpath_path * const *paths, unsigned int nr)
{
	unsigned int i, g, total, sum = 0;

	wrr_scale(paths, nr, &g, &total);
	for (i = 0; i < nr; i++)
		sum += wrr_slots(paths[i], g, total);
	return sum;
}

static size_t wrr_data_size(struct mpath_path * const *paths, unsigned int nr)
{
	return struct_size_t(struct wrr_data, slots, wrr_sum(paths, nr)) +
	       nr * sizeof(int);
}

static void wrr_build(const struct mpath_path_map *map, void *buf)
{
	struct wrr_data *data = buf;
	unsigned int i, s, g, total, sum = wrr_sum(map->paths, map->nr);
	int *current_w = (int *)&data->slots[sum];
	unsigned int best;

	wrr_scale(map->paths, map->nr, &g, &total);
	for (i = 0; i < map->nr; i++)
		current_w[i] = 0;
	for (s = 0; s < sum; s++) {
		best = 0;
		for (i = 0; i < map->nr; i++) {
			current_w[i] += wrr_slots(map->paths[i], g, total);
			if (current_w[i] > current_w[best])
				best = i;
		}
		current_w[best] -= sum;
		data->slots[s] = map->paths[best];
	}
	data->nr_slots = sum;
}

static struct mpath_path *wrr_select(const struct mpath_path_map *map,
				     struct mpath_ps_args *args)
{
	const struct wrr_data *data = args->data;
	struct mpath_path *path;

	if (data) {
		path = mpath_ps_rr_next(data->slots, data->nr_slots, args->pcpu);
		if (path)
			return path;
	}
	return mpath_ps_rr_next(map->paths, map->nr, args->pcpu);
}

struct mpath_policy mpath_ps_weighted_rr = {
	.name		= "weighted_rr",
	.pcpu_size	= sizeof(unsigned int),
	.data_size	= wrr_data_size,
	.build		= wrr_build,
	.select		= wrr_select,
};
