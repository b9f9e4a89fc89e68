// SPDX-License-Identifier: GPL-2.0
/*
 * Counters: kept per CPU on the I/O path (no lock, no shared atomic), added
 * up when read.
 */

#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/time64.h>

#include <mpath_shim/mpath_shim.h>

void mpath_stats_sum(struct mpath_stats __percpu *pcpu, struct mpath_stats *sum)
{
	const struct mpath_stats *s;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(pcpu, cpu);
		sum->ios[0] += READ_ONCE(s->ios[0]);
		sum->ios[1] += READ_ONCE(s->ios[1]);
		sum->bytes[0] += READ_ONCE(s->bytes[0]);
		sum->bytes[1] += READ_ONCE(s->bytes[1]);
		sum->service_ns += READ_ONCE(s->service_ns);
		sum->errors += READ_ONCE(s->errors);
		sum->failovers += READ_ONCE(s->failovers);
		sum->busy_ns += READ_ONCE(s->busy_ns);
	}
}

/* Zero the counters; an update racing with it may survive, none is torn. */
void mpath_stats_reset(struct mpath_stats __percpu *pcpu)
{
	struct mpath_stats *s;
	int cpu;

	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(pcpu, cpu);
		WRITE_ONCE(s->ios[0], 0);
		WRITE_ONCE(s->ios[1], 0);
		WRITE_ONCE(s->bytes[0], 0);
		WRITE_ONCE(s->bytes[1], 0);
		WRITE_ONCE(s->service_ns, 0);
		WRITE_ONCE(s->errors, 0);
		WRITE_ONCE(s->failovers, 0);
		WRITE_ONCE(s->busy_ns, 0);
	}
}

void mpath_lat_reset(struct mpath_lat __percpu *lat)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(lat, cpu), 0, sizeof(struct mpath_lat));
}
