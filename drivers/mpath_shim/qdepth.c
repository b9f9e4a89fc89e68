// SPDX-License-Identifier: GPL-2.0
/*
 * Queue depth: resolving a lunpath's max_q_depth (path > LUN > rule >
 * global > the device's own), parsing vendor:product rules, and queue-length
 * time integrals.  No SCSI or block plumbing: KUnit tests it.
 */

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include <mpath_shim/qdepth.h>

static const char * const mpath_qd_source_names[] = {
	[MPATH_QD_PATH]		= "path",
	[MPATH_QD_LUN]		= "lun",
	[MPATH_QD_RULE]		= "rule",
	[MPATH_QD_GLOBAL]	= "global",
	[MPATH_QD_DEVICE]	= "device",
};

const char *mpath_qd_source_name(enum mpath_qd_source source)
{
	if ((unsigned int)source >= ARRAY_SIZE(mpath_qd_source_names))
		return "unknown";
	return mpath_qd_source_names[source];
}

/* Copy @len bytes of @s, without trailing blanks; -EINVAL if too long. */
static int mpath_qd_copy(char *dst, size_t size, const char *s, size_t len)
{
	while (len && isspace(s[len - 1]))
		len--;
	while (len && isspace(*s)) {
		s++;
		len--;
	}
	if (!len || len >= size)
		return -EINVAL;
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

/*
 * Parse "VENDOR:PRODUCT=N[,VENDOR:PRODUCT=N...]" into @rules; an empty
 * string clears.  Returns the number of rules or -EINVAL, and then @rules
 * may have been written: parse into a scratch array.
 */
int mpath_qd_parse_rules(const char *buf, struct mpath_qd_rule *rules,
			 unsigned int max)
{
	unsigned int nr = 0, depth;
	const char *p = buf, *end, *colon, *eq;
	char num[12];
	size_t len;

	if (strnlen(buf, MPATH_QD_RULES_LEN) >= MPATH_QD_RULES_LEN)
		return -EINVAL;
	len = strlen(buf);
	while (len && isspace(buf[len - 1]))
		len--;
	if (!len)
		return 0;
	/* A comma ends no list: a rule is missing after it. */
	if (buf[len - 1] == ',')
		return -EINVAL;
	while (p < buf + len) {
		end = strchr(p, ',');
		if (!end || end > buf + len)
			end = buf + len;
		colon = memchr(p, ':', end - p);
		eq = colon ? memchr(colon, '=', end - colon) : NULL;
		if (!colon || !eq || nr == max)
			return -EINVAL;
		if (mpath_qd_copy(rules[nr].vendor, sizeof(rules[nr].vendor), p,
				  colon - p) ||
		    mpath_qd_copy(rules[nr].product, sizeof(rules[nr].product),
				  colon + 1, eq - colon - 1) ||
		    mpath_qd_copy(num, sizeof(num), eq + 1, end - eq - 1) ||
		    kstrtouint(num, 10, &depth) || depth < 1 ||
		    depth > MPATH_MAX_Q_DEPTH)
			return -EINVAL;
		rules[nr++].depth = depth;
		p = end + 1;
	}
	return nr;
}

static bool mpath_qd_field_eq(const char *rule, const char *inquiry)
{
	size_t len = strlen(inquiry);

	/* INQUIRY strings are blank padded */
	while (len && inquiry[len - 1] == ' ')
		len--;
	return strlen(rule) == len && !strncmp(rule, inquiry, len);
}

/* The depth of the first rule matching @vendor/@product, 0 if none. */
unsigned int mpath_qd_rule_depth(const struct mpath_qd_rule *rules,
				 unsigned int nr, const char *vendor,
				 const char *product)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (mpath_qd_field_eq(rules[i].vendor, vendor) &&
		    (!strcmp(rules[i].product, "*") ||
		     mpath_qd_field_eq(rules[i].product, product)))
			return rules[i].depth;
	return 0;
}

/*
 * The first set value (non-zero) of @path, @lun, @rule, @global, else
 * @device; never above @cap (the path's can_queue).
 */
unsigned int mpath_qd_resolve(unsigned int path, unsigned int lun,
			      unsigned int rule, unsigned int global,
			      unsigned int device, unsigned int cap,
			      enum mpath_qd_source *source)
{
	const unsigned int v[] = { path, lun, rule, global, device };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(v) - 1 && !v[i]; i++)
		;
	*source = i;
	return clamp(v[i], 1U, max(cap, 1U));
}

void mpath_qlen_change(struct mpath_qlen *q, u64 now, int delta)
{
	if (now > q->last_ns)
		q->integral += (u64)q->len * (now - q->last_ns);
	q->last_ns = max(now, q->last_ns);
	q->len += delta;
	q->max = max(q->max, q->len);
}

/* Start counting afresh at @now: the integral from then, the max of now. */
void mpath_qlen_reset(struct mpath_qlen *q, u64 now)
{
	q->integral = 0;
	q->last_ns = max(now, q->last_ns);
	q->max = q->len;
}

/* The integral up to @now. */
u64 mpath_qlen_integral(const struct mpath_qlen *q, u64 now)
{
	return q->integral +
	       (now > q->last_ns ? (u64)q->len * (now - q->last_ns) : 0);
}
