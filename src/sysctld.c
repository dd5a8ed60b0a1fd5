/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parsing sysctl.d files the way systemd-sysctl does: a line, a file, and
 * which assignment of a key wins across files. (modules-load.d files are
 * modulesd.c's; which files are read, in what order, sysctld-files.c's.) */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "i18n.h"
#include "sysctld.h"

/* systemd accepts "a/b/c" as well as "a.b.c"; when the first separator is a
 * slash, dots inside are literal (eth0.100). We keep the dotted form. */
static void key_normalize(char *key)
{
	size_t sep = strcspn(key, "./");

	if (key[sep] != '/')
		return;
	for (char *p = key; *p; p++)
		if (*p == '/')
			*p = '.';
		else if (*p == '.')
			*p = '/';
}

/* systemd's end of line: "\n", "\r", "\0", or a pair of "\n" and "\r" in
 * either order; a "\0" always ends it. Returns 1 and the line, 0 at the end
 * of the file, -ENOBUFS for a line longer than SYSCTLD_LINE_MAX. The buffer
 * never grows past that, whatever the file holds. */
int sysctld_read_line(FILE *f, char **buf, size_t *cap)
{
	enum { EOL_LF = 1, EOL_CR = 2, EOL_NUL = 4 };
	unsigned eol = 0;
	bool any = false;
	size_t n = 0;

	for (;;) {
		unsigned kind;
		int c;

		if (n > SYSCTLD_LINE_MAX)
			return -ENOBUFS;
		c = getc_unlocked(f);
		if (c == EOF)
			break;
		any = true;
		kind = c == '\n' ? EOL_LF : c == '\r' ? EOL_CR : c == '\0' ? EOL_NUL : 0;
		if ((eol & EOL_NUL) || (kind == 0 && eol) || (kind & eol)) {
			ungetc(c, f);
			break;
		}
		if (kind) {
			eol |= kind;
			continue;
		}
		if (n + 2 > *cap) {
			size_t grown_cap = *cap ? *cap * 2 : 256;
			char *grown = realloc(*buf, grown_cap);

			if (!grown)
				return -ENOMEM;
			*buf = grown;
			*cap = grown_cap;
		}
		(*buf)[n++] = (char)c;
	}
	if (ferror(f))
		return -EIO;
	if (!any)
		return 0;
	if (!*buf && !(*buf = malloc(*cap = 256)))
		return -ENOMEM;
	(*buf)[n] = '\0';
	return 1;
}

/* systemd strips these, and only these. */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static char *strip_blanks(char *s)
{
	char *end;

	while (is_blank(*s))
		s++;
	end = s + strlen(s);
	while (end > s && is_blank(end[-1]))
		end--;
	*end = '\0';
	return s;
}

static bool concerns(const struct assignments *ours, const char *key, bool glob)
{
	for (size_t i = 0; i < ours->n; i++)
		if (glob ? fnmatch(key, ours->items[i].key, 0) == 0 :
			   key[0] == ours->items[i].key[0] &&
				    strcmp(key, ours->items[i].key) == 0)
			return true;
	return false;
}

/* Parses a line in place: 0 for an assignment, 1 for a blank or comment line
 * (or, with a filter, one that does not concern its keys), or -errno. In
 * strict mode (our own fragment) the key must be one the helper can turn
 * into a path, the value must not be empty, and neither may be cut;
 * otherwise a value too long for us is kept cut, never equal to ours. A
 * "-key" without "=" is systemd's exclusion from globs; it assigns nothing.
 * Sets every field of ret but file and line. */
static int parse_line_in_place(char *line, bool strict, const struct assignments *filter,
			       struct assignment *ret)
{
	char *p, *eq, *key, *value;
	bool ignore_failure = false, glob;

	p = strip_blanks(line);
	if (*p == '\0' || *p == '#' || *p == ';')
		return 1;
	eq = strchr(p, '=');
	if (*p == '-') {
		ignore_failure = true;
		p++;
	}
	if (!eq)
		return ignore_failure && !strict ? 1 : -EBADMSG;
	*eq = '\0';
	key = strip_blanks(p);
	value = strip_blanks(eq + 1);
	normalize_space(value);
	if (strlen(key) >= sizeof(ret->key) ||
	    (strict && strlen(value) >= sizeof(ret->value)))
		return -E2BIG;
	key_normalize(key);
	glob = strpbrk(key, "*?[") != NULL;
	if (strict && (!sysctl_key_valid(key) || value[0] == '\0'))
		return -EINVAL;
	if (filter && !concerns(filter, key, glob))
		return 1;
	strcpy(ret->key, key);
	snprintf(ret->value, sizeof(ret->value), "%s", value);
	ret->ignore_failure = ignore_failure;
	ret->glob = glob;
	return 0;
}

int sysctld_parse_line(const char *line, bool strict, struct assignment *ret)
{
	char *copy = strdup(line);
	int r;

	if (!copy)
		return -ENOMEM;
	r = parse_line_in_place(copy, strict, NULL, ret);
	free(copy);
	return r;
}

static int assignments_append(struct assignments *a, const struct assignment *item)
{
	if (grow_array(&a->items, &a->cap, a->n, sizeof(*a->items)) < 0)
		return -ENOMEM;
	a->items[a->n++] = *item;
	return 0;
}

void assignments_free(struct assignments *a)
{
	free(a->items);
	*a = (struct assignments){ 0 };
}

/* systemd keeps one assignment per key (or glob): a later one with another
 * value replaces it and moves to the end, where it is applied last; one with
 * the same value leaves it in place (we note the later file). Only what
 * concerns our keys is kept, so memory stays small whatever the files hold. */
static int keep_filtered(struct assignments *kept, const struct assignment *a)
{
	for (size_t i = 0; i < kept->n; i++) {
		struct assignment *old = &kept->items[i];

		if (strcmp(old->key, a->key) != 0)
			continue;
		if (strcmp(old->value, a->value) == 0) {
			snprintf(old->file, sizeof(old->file), "%s", a->file);
			old->line = a->line;
			return 0;
		}
		memmove(old, old + 1, (kept->n - i - 1) * sizeof(*old));
		kept->n--;
		break;
	}
	return assignments_append(kept, a);
}

/* Appends the assignments of one file, read from f, to ret: every one, or
 * with a filter only those that concern its keys. A line that is not an
 * assignment is reported in strict mode and skipped, as systemd-sysctl skips
 * it; a line too long is reported and ends the file, as it ends it for
 * systemd-sysctl. Returns 0, or the first line's error. */
int sysctld_parse_stream(FILE *f, const char *file, bool strict,
			 const struct assignments *filter, struct assignments *ret,
			 const struct sysctld_report *report)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned n = 0;
	int r, first = 0;

	while ((r = sysctld_read_line(f, &line, &cap)) != 0) {
		struct assignment a;

		n++;
		if (r > 0)
			r = parse_line_in_place(line, strict, filter, &a);
		if (r == 0) {
			snprintf(a.file, sizeof(a.file), "%s", file);
			a.line = n;
			r = filter ? keep_filtered(ret, &a) : assignments_append(ret, &a);
		}
		if (r >= 0 || (!strict && r != -ENOBUFS && r != -ENOMEM && r != -EIO))
			continue;
		if (report && report->fn)
			report->fn(report->userdata, file, n, r);
		first = first ?: r;
		if (r == -ENOBUFS || r == -ENOMEM || r == -EIO)
			break;
	}
	free(line);
	return first;
}

int sysctld_parse_file(const char *root, const char *file, bool strict,
		       struct assignments *ret, const struct sysctld_report *report)
{
	FILE *f;
	int r;

	r = fopen_root(root, file, &f);
	if (r < 0)
		return r;
	r = sysctld_parse_stream(f, file, strict, NULL, ret, report);
	fclose(f);
	return r;
}

/* What a parse's error means, for a one-line message. */
const char *sysctld_strerror(int error)
{
	switch (error) {
	case -EINVAL:
		return _("not a valid key = value line");
	case -E2BIG:
		return _("key or value too long");
	case -ENOBUFS:
		return _("line longer than 1048575 bytes; systemd-sysctl stops reading the "
			 "file here, and so does this");
	case -EBADMSG:
		return _("not an assignment");
	}
	return file_strerror(error);
}

/* The last explicit assignment of key among a, globs left out: what one
 * file sets it to, or NULL. */
const struct assignment *sysctld_find(const struct assignments *a, const char *key)
{
	const struct assignment *found = NULL;

	for (size_t i = 0; i < a->n; i++)
		if (!a->items[i].glob && strcmp(a->items[i].key, key) == 0)
			found = &a->items[i];
	return found;
}

/* The assignment that sets key at boot: the last exact one, or failing that
 * the last matching glob, since systemd lets an explicit key beat a glob. */
const struct assignment *sysctld_winner(const struct assignments *all, const char *key)
{
	const struct assignment *exact = NULL, *glob = NULL;

	for (size_t i = 0; i < all->n; i++) {
		const struct assignment *a = &all->items[i];

		if (!a->glob && strcmp(a->key, key) == 0)
			exact = a;
		else if (a->glob && fnmatch(a->key, key, 0) == 0)
			glob = a;
	}
	return exact ? exact : glob;
}
