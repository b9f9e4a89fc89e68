/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which disks become LUNs: the claim rules (allow/deny by WWID or by
 * vendor:product), and the verdict for one LU from its rules, its paths,
 * TPGS and what the administrator asked.  Pure logic, tested by KUnit.
 */
#ifndef _MPATH_SHIM_CLAIM_H
#define _MPATH_SHIM_CLAIM_H

#include <linux/types.h>

#define MPATH_CLAIM_RULES_MAX	32
#define MPATH_CLAIM_RULES_LEN	4096
#define MPATH_CLAIM_WWID_LEN	256	/* as MPATH_WWID_LEN */
#define MPATH_CLAIM_MAX_MIN_PATHS 64	/* largest claim_min_paths */

/**
 * struct mpath_claim_rule - one "allow:..." or "deny:..." rule
 * @deny:	deny, else allow
 * @by_wwid:	matches @wwid, else @vendor and @product
 * @prefix:	@wwid ended with '*': matches the WWIDs that begin with it
 * @vendor:	INQUIRY vendor, trailing blanks ignored
 * @product:	INQUIRY product, trailing blanks ignored; "*" matches any
 * @wwid:	LU designator as the shim names it (luns/mpathN/wwid),
 *		unescaped
 */
struct mpath_claim_rule {
	bool	deny;
	bool	by_wwid;
	bool	prefix;
	char	vendor[9];
	char	product[17];
	char	wwid[MPATH_CLAIM_WWID_LEN];
};

/* Why a LU is, or is not, multipathed; the claimed ones first. */
enum mpath_claim_verdict {
	MPATH_CLAIM_ADMIN,	/* claimed through /sys/kernel/mpath_shim/claim */
	MPATH_CLAIM_ALLOWED,	/* an allow rule */
	MPATH_CLAIM_TPGS,	/* it reports target port groups */
	MPATH_CLAIM_PATHS,	/* claim_min_paths paths or more */
	MPATH_CLAIM_RELEASED,	/* released by the administrator */
	MPATH_CLAIM_DENIED,	/* a deny rule */
	MPATH_CLAIM_FEW_PATHS,	/* fewer paths than claim_min_paths, no TPGS */
};

static inline bool mpath_claim_yes(enum mpath_claim_verdict v)
{
	return v <= MPATH_CLAIM_PATHS;
}

/**
 * struct mpath_claim_lu - what the verdict is made of
 * @wwid:	its LU designator
 * @vendor:	INQUIRY vendor of its first path (blank padded)
 * @product:	INQUIRY product of its first path (blank padded)
 * @tpgs:	a path reports TPGS (implicit or explicit ALUA)
 * @nr_paths:	its paths present
 * @admin:	claimed by the administrator
 * @released:	released by the administrator (and not claimed since)
 */
struct mpath_claim_lu {
	const char	*wwid;
	const char	*vendor;
	const char	*product;
	bool		tpgs;
	unsigned int	nr_paths;
	bool		admin;
	bool		released;
};

/**
 * struct mpath_claim_config - the module parameters that decide
 * @rules:	the claim_rules, first match wins
 * @nr_rules:	how many
 * @min_paths:	claim_min_paths: 0 claims by rule or by hand only
 * @tpgs:	claim_tpgs: a LU that reports TPGS is claimed at its first path
 */
struct mpath_claim_config {
	const struct mpath_claim_rule	*rules;
	unsigned int			nr_rules;
	unsigned int			min_paths;
	bool				tpgs;
};

int mpath_claim_parse_rules(const char *buf, struct mpath_claim_rule *rules,
			    unsigned int max);
int mpath_claim_show_rules(const struct mpath_claim_rule *rules,
			   unsigned int nr, char *buf, size_t size);
int mpath_claim_match(const struct mpath_claim_rule *rules, unsigned int nr,
		      const char *wwid, const char *vendor,
		      const char *product);
enum mpath_claim_verdict mpath_claim_decide(const struct mpath_claim_lu *lu,
					    const struct mpath_claim_config *cfg);
const char *mpath_claim_verdict_name(enum mpath_claim_verdict v);

#endif /* _MPATH_SHIM_CLAIM_H */
