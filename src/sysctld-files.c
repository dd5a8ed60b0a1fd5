/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which sysctl.d files systemd-sysctl reads, and in what order: every
 * "*.conf" of four directories, sorted by file name across them; for one
 * name, the entry of the earliest directory wins, whatever it is. systemd
 * 257 lists names without looking at what they are, so a directory, a FIFO
 * or a dangling link in /etc hides a /usr/lib file of its name just as a
 * link to /dev/null does; then it reads each entry: a dangling link counts
 * as empty, a directory fails to read, and a FIFO blocks it at boot. We look
 * first (stat, then a non-blocking open) and say so. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sysctld.h"

static const char *const sysctld_dirs[] = {
	"/etc/sysctl.d",
	"/run/sysctl.d",
	"/usr/local/lib/sysctl.d",
	"/usr/lib/sysctl.d",
};

struct entry {
	char *path; /* relative to the root */
	const char *name;
	unsigned dir;
};

struct entries {
	size_t n, cap;
	struct entry *items;
};

static int entries_add(struct entries *e, unsigned dir, const char *name)
{
	struct entry *item;

	if (grow_array(&e->items, &e->cap, e->n, sizeof(*e->items)) < 0)
		return -ENOMEM;
	item = &e->items[e->n];
	if (asprintf(&item->path, "%s/%s", sysctld_dirs[dir], name) < 0)
		return -ENOMEM;
	item->name = item->path + strlen(sysctld_dirs[dir]) + 1;
	item->dir = dir;
	e->n++;
	return 0;
}

static int list_dir(const char *root, unsigned d, struct entries *e)
{
	char path[PATH_MAX_LEN];
	struct dirent *de;
	DIR *dir;
	int r = 0;

	if (root_path(path, sizeof(path), root, sysctld_dirs[d]) < 0)
		return 0;
	dir = opendir(path);
	if (!dir)
		return 0; /* systemd-sysctl ignores a directory it cannot open */
	while (r == 0 && (de = readdir(dir))) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] != '.' && len > 5 &&
		    strcmp(de->d_name + len - 5, ".conf") == 0)
			r = entries_add(e, d, de->d_name);
	}
	closedir(dir);
	return r;
}

static int compare_entries(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->dir > y->dir) - (x->dir < y->dir);
}

/* What systemd-sysctl makes of one listed entry: 0 and a stream to read, 1
 * for nothing to read (a dangling link, a device such as /dev/null), or
 * -errno: -EISDIR for a directory, -EAGAIN for a FIFO (it would block), or
 * why it cannot be opened. */
static int open_entry(const char *root, const char *path, FILE **ret)
{
	char full[PATH_MAX_LEN];
	struct stat st;

	if (root_path(full, sizeof(full), root, path) < 0)
		return -ENAMETOOLONG;
	if (stat(full, &st) < 0)
		return errno == ENOENT ? 1 : -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (S_ISFIFO(st.st_mode))
		return -EAGAIN;
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		return 1;
	if (S_ISSOCK(st.st_mode))
		return -ENXIO;
	return fopen_root(root, path, ret);
}

/* Reads every file in systemd's order and keeps the assignments that concern
 * the keys of ours (see sysctld_parse_stream()). An entry that gives
 * systemd-sysctl trouble is reported (line 0) and contributes nothing; it
 * still hides the files of its name in later directories. Time is linear in
 * files and lines; memory depends on our keys only. */
int sysctld_load_all(const char *root, const struct assignments *ours,
		     struct assignments *ret, const struct sysctld_report *report)
{
	struct entries e = { 0 };
	int r = 0;

	for (unsigned d = 0; d < ELEMENTSOF(sysctld_dirs) && r == 0; d++)
		r = list_dir(root, d, &e);
	if (r == 0)
		qsort(e.items, e.n, sizeof(*e.items), compare_entries);
	for (size_t i = 0; i < e.n; i++) {
		const struct entry *item = &e.items[i];
		FILE *f = NULL;
		int k;

		if (r < 0 || (i > 0 && strcmp(e.items[i - 1].name, item->name) == 0))
			continue;
		k = open_entry(root, item->path, &f);
		if (k < 0 && report && report->fn)
			report->fn(report->userdata, item->path, 0, k);
		if (k != 0)
			continue;
		k = sysctld_parse_stream(f, item->path, false, ours, ret, report);
		fclose(f);
		if (k == -ENOMEM)
			r = k;
	}
	for (size_t i = 0; i < e.n; i++)
		free(e.items[i].path);
	free(e.items);
	return r;
}
