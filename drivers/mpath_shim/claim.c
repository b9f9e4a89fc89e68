// SPDX-License-Identifier: GPL-2.0
/*
 * Claim rules: which LUs the shim multipaths.  A LU is claimed when the
 * administrator claimed it, else when the first claim_rules entry that
 * matches it allows it, else (no rule matched) when it reports TPGS or has
 * claim_min_paths paths present.  A deny rule or a release keeps it out.
 * No SCSI or block plumbing: KUnit tests it.
 *
 * Rules: "allow:VENDOR:PRODUCT", "deny:VENDOR:PRODUCT" (PRODUCT "*" for
 * any), "allow:wwid=WWID", "deny:wwid=WWID" (a trailing '*' matches the
 * WWIDs that begin so), separated by commas; blanks and ",:=\" inside a
 * field as \xHH (T10 designators have blanks).
 */

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include <mpath_shim/claim.h>

static const char * const mpath_claim_verdict_names[] = {
	[MPATH_CLAIM_ADMIN]	= "claimed by the administrator",
	[MPATH_CLAIM_ALLOWED]	= "allowed by claim_rules",
	[MPATH_CLAIM_TPGS]	= "reports TPGS",
	[MPATH_CLAIM_PATHS]	= "claim_min_paths reached",
	[MPATH_CLAIM_RELEASED]	= "released by the administrator",
	[MPATH_CLAIM_DENIED]	= "denied by claim_rules",
	[MPATH_CLAIM_FEW_PATHS]	= "fewer paths than claim_min_paths, no TPGS",
};

const char *mpath_claim_verdict_name(enum mpath_claim_verdict v)
{
	if ((unsigned int)v >= ARRAY_SIZE(mpath_claim_verdict_names))
		return "unknown";
	return mpath_claim_verdict_names[v];
}

/*
 * Copy the field @s (@len bytes) into @dst without surrounding blanks and
 * with its \xHH escapes decoded; -EINVAL if empty, too long or badly
 * escaped (a backslash is written \x5c).
 */
static int mpath_claim_field(char *dst, size_t size, const char *s,
			     size_t len)
{
	char hex[3] = "";
	size_t n = 0;
	u8 byte;

	while (len && isspace(s[len - 1]))
		len--;
	while (len && isspace(*s)) {
		s++;
		len--;
	}
	while (len) {
		if (n + 1 >= size)
			return -EINVAL;
		if (*s != '\\') {
			dst[n++] = *s++;
			len--;
			continue;
		}
		if (len < 4 || s[1] != 'x' || !isxdigit(s[2]) || !isxdigit(s[3]))
			return -EINVAL;
		hex[0] = s[2];
		hex[1] = s[3];
		if (kstrtou8(hex, 16, &byte) || !byte)
			return -EINVAL;
		dst[n++] = byte;
		s += 4;
		len -= 4;
	}
	dst[n] = '\0';
	return n ? 0 : -EINVAL;
}

static int mpath_claim_parse_one(const char *p, size_t len,
				 struct mpath_claim_rule *rule)
{
	const char *colon;
	size_t n;

	memset(rule, 0, sizeof(*rule));
	while (len && isspace(*p)) {
		p++;
		len--;
	}
	if (len > 6 && !strncmp(p, "allow:", 6)) {
		n = 6;
	} else if (len > 5 && !strncmp(p, "deny:", 5)) {
		rule->deny = true;
		n = 5;
	} else {
		return -EINVAL;
	}
	p += n;
	len -= n;
	if (len > 5 && !strncmp(p, "wwid=", 5)) {
		rule->by_wwid = true;
		if (mpath_claim_field(rule->wwid, sizeof(rule->wwid), p + 5,
				      len - 5))
			return -EINVAL;
		n = strlen(rule->wwid);
		if (rule->wwid[n - 1] == '*') {
			rule->wwid[n - 1] = '\0';
			rule->prefix = true;
		}
		return 0;
	}
	colon = memchr(p, ':', len);
	if (!colon ||
	    mpath_claim_field(rule->vendor, sizeof(rule->vendor), p,
			      colon - p) ||
	    mpath_claim_field(rule->product, sizeof(rule->product), colon + 1,
			      p + len - colon - 1))
		return -EINVAL;
	return 0;
}

/*
 * Parse @buf into @rules; an empty string clears.  Returns the number of
 * rules or -EINVAL, and then @rules may have been written: parse into a
 * scratch array.
 */
int mpath_claim_parse_rules(const char *buf, struct mpath_claim_rule *rules,
			    unsigned int max)
{
	const char *p = buf, *end;
	unsigned int nr = 0;
	size_t len;

	if (strnlen(buf, MPATH_CLAIM_RULES_LEN) >= MPATH_CLAIM_RULES_LEN)
		return -EINVAL;
	len = strlen(buf);
	while (len && isspace(buf[len - 1]))
		len--;
	if (!len)
		return 0;
	while (p <= buf + len) {
		end = memchr(p, ',', buf + len - p);
		if (!end)
			end = buf + len;
		if (nr == max || mpath_claim_parse_one(p, end - p, &rules[nr]))
			return -EINVAL;
		nr++;
		p = end + 1;
	}
	return nr;
}

/* Append @s to @buf with blanks and the separators as \xHH. */
static int mpath_claim_emit(char *buf, size_t size, int at, const char *s)
{
	for (; *s && at < size; s++) {
		if (isspace(*s) || strchr(",:=\\", *s))
			at += scnprintf(buf + at, size - at, "\\x%02x",
					(unsigned char)*s);
		else
			buf[at++] = *s;
	}
	if (at < size)
		buf[at] = '\0';
	return at;
}

/* @rules as a line that parses back to them; its length. */
int mpath_claim_show_rules(const struct mpath_claim_rule *rules,
			   unsigned int nr, char *buf, size_t size)
{
	unsigned int i;
	int at = 0;

	if (!size)
		return 0;
	buf[0] = '\0';
	for (i = 0; i < nr && at < size - 1; i++) {
		at += scnprintf(buf + at, size - at, "%s%s:", i ? "," : "",
				rules[i].deny ? "deny" : "allow");
		if (rules[i].by_wwid) {
			at += scnprintf(buf + at, size - at, "wwid=");
			at = mpath_claim_emit(buf, size, at, rules[i].wwid);
			if (rules[i].prefix)
				at += scnprintf(buf + at, size - at, "*");
			continue;
		}
		at = mpath_claim_emit(buf, size, at, rules[i].vendor);
		at += scnprintf(buf + at, size - at, ":");
		at = mpath_claim_emit(buf, size, at, rules[i].product);
	}
	at = min_t(int, at, size - 1);
	buf[at] = '\0';
	return at;
}

/* INQUIRY strings are blank padded. */
static bool mpath_claim_field_eq(const char *rule, const char *inquiry)
{
	size_t len = strlen(inquiry);

	while (len && inquiry[len - 1] == ' ')
		len--;
	return strlen(rule) == len && !strncmp(rule, inquiry, len);
}

/* The index of the first rule matching, -1 if none. */
int mpath_claim_match(const struct mpath_claim_rule *rules, unsigned int nr,
		      const char *wwid, const char *vendor,
		      const char *product)
{
	const struct mpath_claim_rule *r;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		r = &rules[i];
		if (r->by_wwid) {
			if (r->prefix ? !strncmp(wwid, r->wwid,
						 strlen(r->wwid)) :
					!strcmp(wwid, r->wwid))
				return i;
			continue;
		}
		if (mpath_claim_field_eq(r->vendor, vendor) &&
		    (!strcmp(r->product, "*") ||
		     mpath_claim_field_eq(r->product, product)))
			return i;
	}
	return -1;
}

enum mpath_claim_verdict mpath_claim_decide(const struct mpath_claim_lu *lu,
					    const struct mpath_claim_config *cfg)
{
	int i;

	if (lu->released)
		return MPATH_CLAIM_RELEASED;
	if (lu->admin)
		return MPATH_CLAIM_ADMIN;
	i = mpath_claim_match(cfg->rules, cfg->nr_rules, lu->wwid, lu->vendor,
			      lu->product);
	if (i >= 0)
		return cfg->rules[i].deny ? MPATH_CLAIM_DENIED :
					    MPATH_CLAIM_ALLOWED;
	if (cfg->tpgs && lu->tpgs)
		return MPATH_CLAIM_TPGS;
	if (cfg->min_paths && lu->nr_paths >= cfg->min_paths)
		return MPATH_CLAIM_PATHS;
	return MPATH_CLAIM_FEW_PATHS;
}
