// SPDX-License-Identifier: GPL-2.0
/*
 * LUN names: which mpathN a LU designator (WWID) gets, and its alias.
 *
 * Without bindings, a designator seen for the first time since load gets
 * the lowest free N, and keeps it until unload.  Bindings fix N (and an
 * alias) per designator across loads: userspace keeps them in a file
 * (/etc/mpath_shim/bindings, written by mpathadm only) and hands them to
 * the module parameter "bindings" at load, before any LUN is named, as
 *
 *	WWID=mpathN[:ALIAS][,WWID=mpathN[:ALIAS]...]
 *
 * with every byte of WWID outside '!'..'~', and ',', '=', '\', written
 * as \xHH (T10 designators have spaces).  Entries may also be separated
 * by white space.  A string is applied whole or not at all: a malformed
 * entry, or one that gives a designator, an N or an alias twice or
 * differently from the table, changes nothing.  An entry already in the
 * table as given is accepted again, so the whole file may be applied to a
 * running module to bind the LUNs not seen yet.
 *
 * Pure logic: no SCSI or block code, so KUnit tests it as is.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringhash.h>

#include <mpath_shim/names.h>

void mpath_names_init(struct mpath_names *names)
{
	hash_init(names->by_wwid);
	ida_init(&names->ida);
	spin_lock_init(&names->alias_lock);
}

void mpath_names_destroy(struct mpath_names *names)
{
	struct mpath_name *name;
	struct hlist_node *tmp;
	int bkt;

	hash_for_each_safe(names->by_wwid, bkt, tmp, name, node) {
		hash_del(&name->node);
		kfree(name);
	}
	ida_destroy(&names->ida);
}

static u32 mpath_wwid_hash(const char *wwid)
{
	return full_name_hash(NULL, wwid, strlen(wwid));
}

struct mpath_name *mpath_names_find(struct mpath_names *names,
				    const char *wwid)
{
	struct mpath_name *name;

	hash_for_each_possible(names->by_wwid, name, node,
			       mpath_wwid_hash(wwid))
		if (!strcmp(name->wwid, wwid))
			return name;
	return NULL;
}

static struct mpath_name *mpath_names_find_alias(struct mpath_names *names,
						 const char *alias)
{
	struct mpath_name *name;
	int bkt;

	if (!*alias)
		return NULL;
	hash_for_each(names->by_wwid, bkt, name, node)
		if (!strcmp(name->alias, alias))
			return name;
	return NULL;
}

static struct mpath_name *mpath_name_alloc(const char *wwid)
{
	struct mpath_name *name;

	name = kzalloc(struct_size(name, wwid, strlen(wwid) + 1), GFP_KERNEL);
	if (name)
		strcpy(name->wwid, wwid);
	return name;
}

/* The name of @wwid: the one it has, or mpathN with the lowest free N. */
struct mpath_name *mpath_names_get(struct mpath_names *names,
				   const char *wwid)
{
	struct mpath_name *name;
	int index;

	name = mpath_names_find(names, wwid);
	if (name)
		return name;
	name = mpath_name_alloc(wwid);
	if (!name)
		return ERR_PTR(-ENOMEM);
	index = ida_alloc_max(&names->ida, MPATH_MAX_INDEX, GFP_KERNEL);
	if (index < 0) {
		kfree(name);
		return ERR_PTR(index);
	}
	name->index = index;
	hash_add(names->by_wwid, &name->node, mpath_wwid_hash(wwid));
	return name;
}

/* The kernel's isalnum() takes Latin-1 letters too (lib/ctype.c). */
static bool mpath_alias_alnum(char c)
{
	return isascii(c) && isalnum(c);
}

/* [A-Za-z0-9][A-Za-z0-9._+-]*, shorter than MPATH_ALIAS_LEN */
bool mpath_alias_valid(const char *alias)
{
	size_t i, len = strlen(alias);

	if (!len || len >= MPATH_ALIAS_LEN || !mpath_alias_alnum(alias[0]))
		return false;
	for (i = 1; i < len; i++)
		if (!mpath_alias_alnum(alias[i]) && !strchr("._+-", alias[i]))
			return false;
	return true;
}

/* N of "mpathN" (decimal, no leading zero, at most MPATH_MAX_INDEX). */
int mpath_name_parse_index(const char *s)
{
	unsigned int n;

	if (strncmp(s, "mpath", 5) || !isdigit(s[5]) ||
	    (s[5] == '0' && s[6]))
		return -EINVAL;
	if (kstrtouint(s + 5, 10, &n) || n > MPATH_MAX_INDEX)
		return -EINVAL;
	return n;
}

/*
 * Set @name's alias ("" clears it).  -EINVAL for a malformed alias,
 * -EEXIST when another name has it and @present() says that name's LUN is
 * there.  A name whose LUN is gone (released, its LU removed) gives it up:
 * an alias follows the administrator to a replacement LU.
 */
int mpath_names_set_alias(struct mpath_names *names, struct mpath_name *name,
			  const char *alias,
			  bool (*present)(const struct mpath_name *name))
{
	struct mpath_name *other;

	if (*alias && !mpath_alias_valid(alias))
		return -EINVAL;
	other = mpath_names_find_alias(names, alias);
	if (other == name)
		other = NULL;
	if (other && present(other))
		return -EEXIST;
	spin_lock(&names->alias_lock);
	if (other)
		other->alias[0] = '\0';
	strscpy(name->alias, alias, sizeof(name->alias));
	spin_unlock(&names->alias_lock);
	return 0;
}

/* Copy @name's alias into @buf (MPATH_ALIAS_LEN bytes). */
void mpath_name_alias(struct mpath_names *names, struct mpath_name *name,
		      char *buf)
{
	spin_lock(&names->alias_lock);
	strscpy(buf, name->alias, MPATH_ALIAS_LEN);
	spin_unlock(&names->alias_lock);
}

/* One entry of a bindings string, parsed. */
struct mpath_binding {
	struct list_head	node;
	struct mpath_name	*name;	/* new, or NULL if in the table as is */
	char			*wwid;	/* unescaped, in the caller's string */
	int			index;
	const char		*alias;
	bool			reserved;	/* its N taken in the IDA */
};

/*
 * Decode in place a designator escaped as mpathadm writes it: '!'..'~'
 * as is (but "\\", which starts an escape; mpathadm also escapes ",", "="
 * and "#"), any other byte as \xHH (never \x00, which would cut it short).
 * Anything else is -EINVAL.
 */
static int mpath_binding_unescape(char *s)
{
	char hex[3] = "", *d = s;
	u8 byte;

	while (*s) {
		if (*s != '\\') {
			if ((u8)*s < 0x21 || (u8)*s > 0x7e)
				return -EINVAL;
			*d++ = *s++;
			continue;
		}
		/* isxdigit(s[2]) first: s[3] is then within the string. */
		if (s[1] != 'x' || !isxdigit(s[2]) || !isxdigit(s[3]))
			return -EINVAL;
		hex[0] = s[2];
		hex[1] = s[3];
		if (kstrtou8(hex, 16, &byte) || !byte)
			return -EINVAL;
		*d++ = byte;
		s += 4;
	}
	*d = '\0';
	return 0;
}

/* Parse "WWID=mpathN[:ALIAS]" in place. */
static int mpath_binding_parse(char *entry, struct mpath_binding *b)
{
	char *eq, *colon;
	int index;

	eq = strchr(entry, '=');
	if (!eq || eq == entry)
		return -EINVAL;
	*eq = '\0';
	colon = strchr(eq + 1, ':');
	b->alias = "";
	if (colon) {
		*colon = '\0';
		b->alias = colon + 1;
		if (!mpath_alias_valid(b->alias))
			return -EINVAL;
	}
	index = mpath_name_parse_index(eq + 1);
	if (index < 0)
		return index;
	b->index = index;
	/* No raw byte that the escaping would have written as \xHH. */
	if (strpbrk(entry, ",="))
		return -EINVAL;
	if (mpath_binding_unescape(entry) || !*entry || strlen(entry) >= 256)
		return -EINVAL;
	b->wwid = entry;
	return 0;
}

/* May @b join the table and the entries before it (@done)? */
static int mpath_binding_check(struct mpath_names *names,
			       struct list_head *done, struct mpath_binding *b)
{
	struct mpath_binding *o;
	struct mpath_name *name;
	int bkt;

	list_for_each_entry(o, done, node)
		if (!strcmp(o->wwid, b->wwid) || o->index == b->index ||
		    (*b->alias && !strcmp(o->alias, b->alias)))
			return -EINVAL;
	name = mpath_names_find(names, b->wwid);
	if (name) {
		/* Already bound, or named since load, exactly so. */
		if (name->index != b->index || strcmp(name->alias, b->alias))
			return -EEXIST;
		return 0;
	}
	hash_for_each(names->by_wwid, bkt, name, node)
		if (name->index == b->index ||
		    (*b->alias && !strcmp(name->alias, b->alias)))
			return -EEXIST;
	return 0;
}

/*
 * Apply the bindings in @val (modified in place): all of them, or none.
 * Returns how many entries are new in the table, or -EINVAL (malformed,
 * or contradicting itself), -EEXIST (contradicting the table), -ENOMEM.
 */
int mpath_names_bind(struct mpath_names *names, char *val)
{
	struct mpath_binding *b, *tmp;
	LIST_HEAD(bindings);
	int ret = 0, added = 0;
	char *entry, *copy;

	while ((entry = strsep(&val, ", \t\n")) != NULL) {
		if (!*entry)
			continue;
		b = kzalloc(sizeof(*b), GFP_KERNEL);
		/* The entry as given, for the log: parsing rewrites it. */
		copy = kstrdup(entry, GFP_KERNEL);
		if (!b || !copy) {
			kfree(b);
			kfree(copy);
			ret = -ENOMEM;
			goto out_free;
		}
		ret = mpath_binding_parse(entry, b);
		if (!ret)
			ret = mpath_binding_check(names, &bindings, b);
		if (ret) {
			pr_warn("bindings: entry %d (%*pE): %s\n",
				added + 1, (int)strlen(copy), copy,
				ret == -EEXIST ?
				"differs from a name given already" :
				"malformed or repeated");
			kfree(copy);
			kfree(b);
			goto out_free;
		}
		kfree(copy);
		list_add_tail(&b->node, &bindings);
		added++;
	}

	/* Allocate everything before the table changes. */
	list_for_each_entry(b, &bindings, node) {
		if (mpath_names_find(names, b->wwid))
			continue;
		b->name = mpath_name_alloc(b->wwid);
		if (!b->name) {
			ret = -ENOMEM;
			goto out_free;
		}
		ret = ida_alloc_range(&names->ida, b->index, b->index,
				      GFP_KERNEL);
		if (ret < 0)
			goto out_free;
		b->reserved = true;
		b->name->index = b->index;
		strscpy(b->name->alias, b->alias, sizeof(b->name->alias));
	}
	added = 0;
	list_for_each_entry(b, &bindings, node) {
		if (!b->name)
			continue;
		hash_add(names->by_wwid, &b->name->node,
			 mpath_wwid_hash(b->name->wwid));
		b->name = NULL;
		added++;
	}
	ret = added;
out_free:
	list_for_each_entry_safe(b, tmp, &bindings, node) {
		if (b->reserved && b->name)
			ida_free(&names->ida, b->index);
		kfree(b->name);
		kfree(b);
	}
	return ret;
}
