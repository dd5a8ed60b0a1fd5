/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which sysctl.d files systemd-sysctl reads, and in what order: every
 * "*.conf" of four directories, sorted by file name across them; for one
 * name, the entry of the earliest directory wins. As in systemd 257, an
 * entry counts only if stat() works on it: an empty file or a character
 * device (a link to /dev/null) masks the name, a regular file is read, and
 * anything else (a directory, a FIFO, a socket, a dangling link) is ignored
 * and shadows nothing. */
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
	bool mask;
};

struct entries {
	size_t n, cap;
	struct entry *items;
};

static int entries_add(struct entries *e, unsigned dir, const char *name, bool mask)
{
	struct entry *item;

	if (grow_array(&e->items, &e->cap, e->n, sizeof(*e->items)) < 0)
		return -ENOMEM;
	item = &e->items[e->n];
	if (asprintf(&item->path, "%s/%s", sysctld_dirs[dir], name) < 0)
		return -ENOMEM;
	item->name = item->path + strlen(sysctld_dirs[dir]) + 1;
	item->dir = dir;
	item->mask = mask;
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
		struct stat st;

		if (de->d_name[0] == '.' || len < 6 ||
		    strcmp(de->d_name + len - 5, ".conf") != 0 ||
		    fstatat(dirfd(dir), de->d_name, &st, 0) < 0)
			continue;
		if (S_ISCHR(st.st_mode) || (S_ISREG(st.st_mode) && st.st_size == 0))
			r = entries_add(e, d, de->d_name, true);
		else if (S_ISREG(st.st_mode))
			r = entries_add(e, d, de->d_name, false);
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

/* Reads every file in systemd's order and keeps the assignments that concern
 * the keys of ours (see sysctld_parse_stream()). A file that cannot be read
 * is reported and skipped, as systemd-sysctl skips it; it still shadows the
 * files of its name in later directories. Time is linear in files and lines;
 * memory depends on our keys only. */
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
		FILE *f;
		int k;

		if (r < 0 || item->mask ||
		    (i > 0 && strcmp(e.items[i - 1].name, item->name) == 0))
			continue;
		k = fopen_root(root, item->path, &f);
		if (k < 0) {
			if (report && report->fn)
				report->fn(report->userdata, item->path, 0, k);
			continue;
		}
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
