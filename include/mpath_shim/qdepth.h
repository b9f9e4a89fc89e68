/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queue depth: which max_q_depth applies to a lunpath, and the arithmetic of
 * queue-length time integrals.  Pure logic, tested by KUnit.
 */
#ifndef _MPATH_SHIM_QDEPTH_H
#define _MPATH_SHIM_QDEPTH_H

#include <linux/types.h>

/* Largest max_q_depth: also bounded by each path's SCSI can_queue. */
#define MPATH_MAX_Q_DEPTH	4096
#define MPATH_QD_RULES_MAX	16
#define MPATH_QD_RULES_LEN	1024

/* Where a lunpath's max_q_depth comes from, by precedence. */
enum mpath_qd_source {
	MPATH_QD_PATH,		/* set on the lunpath */
	MPATH_QD_LUN,		/* set on its LUN */
	MPATH_QD_RULE,		/* a vendor:product rule */
	MPATH_QD_GLOBAL,	/* the max_q_depth module parameter */
	MPATH_QD_DEVICE,	/* none of these: the device's own depth */
};

const char *mpath_qd_source_name(enum mpath_qd_source source);

/* "VENDOR:PRODUCT=N": INQUIRY vendor and product, trailing blanks ignored;
 * PRODUCT "*" matches any product of VENDOR.
 */
struct mpath_qd_rule {
	char		vendor[9];
	char		product[17];
	unsigned int	depth;
};

int mpath_qd_parse_rules(const char *buf, struct mpath_qd_rule *rules,
			 unsigned int max);
unsigned int mpath_qd_rule_depth(const struct mpath_qd_rule *rules,
				 unsigned int nr, const char *vendor,
				 const char *product);
unsigned int mpath_qd_resolve(unsigned int path, unsigned int lun,
			      unsigned int rule, unsigned int global,
			      unsigned int device, unsigned int cap,
			      enum mpath_qd_source *source);

/**
 * struct mpath_qlen - a queue's length and its integral over time
 * @len:	entries now
 * @max:	most entries seen
 * @last_ns:	when @len last changed
 * @integral:	sum of len * time, in entry-ns (average length over an
 *		interval = its increase / the interval)
 */
struct mpath_qlen {
	unsigned int	len;
	unsigned int	max;
	u64		last_ns;
	u64		integral;
};

void mpath_qlen_change(struct mpath_qlen *q, u64 now, int delta);
u64 mpath_qlen_integral(const struct mpath_qlen *q, u64 now);
void mpath_qlen_reset(struct mpath_qlen *q, u64 now);

#endif /* _MPATH_SHIM_QDEPTH_H */
