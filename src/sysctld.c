/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading sysctl.d and modules-load.d files the way systemd does. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysctld.h"

/* systemd-sysctl's directories, first to last: a file in an earlier one
 * shadows a file of the same name in a later one. */
static const char *const sysctld_dirs[] = {
	"/etc/sysctl.d",
	"/run/sysctl.d",
	"/usr/local/lib/sysctl.d",
	"/usr/lib/sysctl.d",
};

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

/* Returns 0 for an assignment, 1 for a blank or comment line, or -errno. In
 * strict mode (our own fragment) the key must be one the helper can turn into
 * a path, and the value must not be empty. */
int sysctld_parse_line(const char *line, bool strict, struct assignment *ret)
{
	char buf[LINE_MAX_LEN], *p, *eq, *key, *value;
	struct assignment a = { 0 };

	if (strlen(line) >= sizeof(buf))
		return -E2BIG;
	strcpy(buf, line);
	p = strip(buf);
	if (*p == '\0' || *p == '#' || *p == ';')
		return 1;
	if (*p == '-') {
		a.ignore_failure = true;
		p++;
	}
	eq = strchr(p, '=');
	if (!eq)
		return -EBADMSG;
	*eq = '\0';
	key = strip(p);
	value = strip(eq + 1);
	if (strlen(key) >= sizeof(a.key) || strlen(value) >= sizeof(a.value))
		return -E2BIG;
	strcpy(a.key, key);
	key_normalize(a.key);
	a.glob = strpbrk(a.key, "*?[") != NULL;
	strcpy(a.value, value);
	normalize_space(a.value);
	if (strict && (!sysctl_key_valid(a.key) || a.value[0] == '\0'))
		return -EINVAL;
	*ret = a;
	return 0;
}

static int assignments_add(struct assignments *a, const struct assignment *item)
{
	struct assignment *items;

	items = reallocarray(a->items, a->n + 1, sizeof(*items));
	if (!items)
		return -ENOMEM;
	items[a->n++] = *item;
	a->items = items;
	return 0;
}

void assignments_free(struct assignments *a)
{
	free(a->items);
	a->items = NULL;
	a->n = 0;
}

/* Appends the file's assignments to ret. A missing file is -ENOENT. In strict
 * mode a malformed line is an error, and *ret_line says which; otherwise it
 * is skipped, as systemd-sysctl skips it. */
int sysctld_parse_file(const char *root, const char *file, bool strict,
		       struct assignments *ret, unsigned *ret_line)
{
	size_t first = ret->n;
	char *line = NULL;
	size_t cap = 0;
	unsigned n = 0;
	ssize_t len;
	FILE *f;
	int r;

	r = fopen_root(root, file, &f);
	if (r < 0)
		return r;
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct assignment a;

		n++;
		if ((size_t)len != strlen(line)) {
			r = -EBADMSG; /* a NUL byte inside the line */
		} else if (len >= LINE_MAX_LEN) {
			r = -E2BIG;
		} else {
			r = sysctld_parse_line(line, strict, &a);
			if (r == 0) {
				snprintf(a.file, sizeof(a.file), "%s", file);
				a.line = n;
				r = assignments_add(ret, &a);
			}
		}
		if (r == 1 || (r < 0 && r != -ENOMEM && !strict))
			r = 0;
		if (r < 0) {
			*ret_line = n;
			break;
		}
	}
	if (r == 0 && ferror(f))
		r = -EIO;
	free(line);
	fclose(f);
	if (r < 0) {
		/* Nothing of a file that failed is kept. */
		ret->n = first;
		if (first == 0)
			assignments_free(ret);
	}
	return r;
}

/* What a strict parse's error means, for a one-line message. */
const char *sysctld_strerror(int error)
{
	switch (error) {
	case -EINVAL:
		return "not a valid key = value line";
	case -E2BIG:
		return "line too long";
	case -EBADMSG:
		return "not an assignment";
	}
	return strerror(-error);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(strrchr(*(char *const *)a, '/') + 1,
		      strrchr(*(char *const *)b, '/') + 1);
}

static bool listed(char **files, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(strrchr(files[i], '/') + 1, name) == 0)
			return true;
	return false;
}

/* Collects the *.conf files of all four directories, the first of a name
 * winning, sorted by file name across directories: systemd's order. */
static int list_files(const char *root, char ***ret_files, size_t *ret_n)
{
	char **files = NULL;
	size_t n = 0;
	int r = 0;

	for (size_t d = 0; d < ELEMENTSOF(sysctld_dirs) && r == 0; d++) {
		char path[PATH_MAX_LEN];
		struct dirent *de;
		DIR *dir;

		if (root_path(path, sizeof(path), root, sysctld_dirs[d]) < 0)
			continue;
		dir = opendir(path);
		if (!dir)
			continue;
		while ((de = readdir(dir))) {
			size_t len = strlen(de->d_name);
			char **grown;

			if (len < 6 || strcmp(de->d_name + len - 5, ".conf") != 0 ||
			    de->d_name[0] == '.' || listed(files, n, de->d_name))
				continue;
			grown = reallocarray(files, n + 1, sizeof(*files));
			if (!grown || asprintf(&grown[n], "%s/%s", sysctld_dirs[d],
					       de->d_name) < 0) {
				files = grown ? grown : files;
				r = -ENOMEM;
				break;
			}
			files = grown;
			n++;
		}
		closedir(dir);
	}
	if (r == 0)
		qsort(files, n, sizeof(*files), compare_names);
	*ret_files = files;
	*ret_n = n;
	return r;
}

/* Every assignment of every file, in the order systemd-sysctl applies them. A
 * file linked to /dev/null is masked and contributes nothing, as does one
 * that cannot be read. */
int sysctld_load_all(const char *root, struct assignments *ret)
{
	char **files;
	size_t n;
	int r;

	r = list_files(root, &files, &n);
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX_LEN], target[PATH_MAX_LEN];
		unsigned line;
		ssize_t len;

		if (r == 0 && root_path(path, sizeof(path), root, files[i]) == 0) {
			len = readlink(path, target, sizeof(target) - 1);
			if (len > 0) {
				target[len] = '\0';
				if (strcmp(target, "/dev/null") == 0) {
					free(files[i]);
					continue;
				}
			}
			if (sysctld_parse_file(root, files[i], false, ret, &line) ==
			    -ENOMEM)
				r = -ENOMEM;
		}
		free(files[i]);
	}
	free(files);
	return r;
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

static bool module_name_valid(const char *name)
{
	if (*name == '\0' || strlen(name) >= MODULE_NAME_MAX)
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return false;
	return true;
}

/* A modules-load.d file: one module name a line, "#" and ";" comments. */
int modules_parse_file(const char *root, const char *file, struct modules *ret,
		       unsigned *ret_line)
{
	char buf[LINE_MAX_LEN];
	struct modules m = { 0 };
	unsigned n = 0;
	FILE *f;
	int r;

	r = fopen_root(root, file, &f);
	if (r < 0)
		return r;
	while (fgets(buf, sizeof(buf), f)) {
		char *name;

		n++;
		if (!strchr(buf, '\n') && !feof(f)) {
			r = -E2BIG;
			break;
		}
		name = strip(buf);
		if (*name == '\0' || *name == '#' || *name == ';')
			continue;
		if (!module_name_valid(name)) {
			r = -EINVAL;
			break;
		}
		if (m.n == MODULES_MAX) {
			r = -E2BIG;
			break;
		}
		strcpy(m.names[m.n++], name);
	}
	fclose(f);
	if (r < 0) {
		*ret_line = n;
		return r;
	}
	*ret = m;
	return 0;
}
