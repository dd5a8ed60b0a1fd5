/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The only file that speaks to libkmod, so tests can wrap it. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <libkmod.h>

#include "modload.h"
#include "util.h"

static void log_nothing(void *data _unused_, int priority _unused_,
			const char *file _unused_, int line _unused_,
			const char *fn _unused_, const char *format _unused_,
			va_list args _unused_)
{
}

/* libkmod's own defaults, which it also reads under a root. */
static const char *const confdirs[] = {
	"/etc/modprobe.d",     "/run/modprobe.d", "/usr/local/lib/modprobe.d",
	"/usr/lib/modprobe.d", "/lib/modprobe.d",
};

/* libkmod opens its files itself, blocking, and its configuration parser
 * reads a file to its end a line at a time: a FIFO there hangs it, a device
 * or a huge file costs what it holds. So each file it may open is looked at
 * first. A real modprobe.d file is a few KiB; the indexes, which it reads on
 * demand, are at most a few MiB (modules.alias.bin about 1.5 MiB), and so is
 * a module. */
#define MODPROBE_CONF_MAX (1024 * 1024)
#define MODULE_FILE_MAX (64 * 1024 * 1024)

/* What the lookups, the builtin and blacklist filters and an insert open in
 * the module directory: the indexes and modinfo, then the text files read
 * as configuration. */
static const char *const module_indexes[] = {
	"modules.dep.bin",	     "modules.alias.bin",   "modules.symbols.bin",
	"modules.builtin.alias.bin", "modules.builtin.bin", "modules.builtin.modinfo",
};
static const char *const module_confs[] = { "modules.softdep", "modules.weakdep" };

/* A file libkmod does not find is no trouble: it does without. */
static int check_file(const char *root, const char *path, uint64_t max_size)
{
	char full[PATH_MAX_LEN];
	int r;

	if (root_path(full, sizeof(full), root, path) < 0)
		return -ENAMETOOLONG;
	r = stat_regular(full, max_size);
	return r == -ENOENT || r == -ENOTDIR ? 0 : r;
}

/* The entries of a modprobe.d directory libkmod reads: not hidden, named
 * *.conf (or *.alias, before kmod 31), whatever they are once a symlink is
 * followed, except a directory or what cannot be looked at, which it skips.
 * A modprobe.d that is not a directory it reads as one file. */
static int check_confdir(const char *root, const char *dir, char *ret_file, size_t size)
{
	char path[PATH_MAX_LEN];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int r = 0;

	if (root_path(path, sizeof(path), root, dir) < 0)
		return -ENAMETOOLONG;
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(ret_file, size, "%s", dir);
		return check_file(root, dir, MODPROBE_CONF_MAX);
	}
	d = opendir(path);
	if (!d)
		return 0;
	while (r == 0 && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' || len < 6 ||
		    (strcmp(de->d_name + len - 5, ".conf") != 0 &&
		     strcmp(de->d_name + len - 6, ".alias") != 0))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || S_ISDIR(st.st_mode))
			continue;
		if (!S_ISREG(st.st_mode))
			r = -EBADFD;
		else if ((uint64_t)st.st_size > MODPROBE_CONF_MAX)
			r = -EFBIG;
		snprintf(ret_file, size, "%s/%s", dir, de->d_name);
	}
	closedir(d);
	return r;
}

/* Whether libkmod may be let loose on the module directory of release and
 * on modprobe.d under root: 0, or -errno and the file (relative to root)
 * that is not a regular file (-EBADFD) or is too large (-EFBIG). */
int modload_check(const char *root, const char *release, char *ret_file, size_t size)
{
	char file[PATH_MAX_LEN];
	int r = 0;

	for (size_t i = 0; r == 0 && i < ELEMENTSOF(module_indexes); i++) {
		snprintf(file, sizeof(file), "/lib/modules/%s/%s", release,
			 module_indexes[i]);
		r = check_file(root, file, MODULE_FILE_MAX);
	}
	for (size_t i = 0; r == 0 && i < ELEMENTSOF(module_confs); i++) {
		snprintf(file, sizeof(file), "/lib/modules/%s/%s", release,
			 module_confs[i]);
		r = check_file(root, file, MODPROBE_CONF_MAX);
	}
	for (size_t i = 0; r == 0 && i < ELEMENTSOF(confdirs); i++)
		r = check_confdir(root, confdirs[i], file, sizeof(file));
	if (r < 0)
		snprintf(ret_file, size, "%s", file);
	return r;
}

/* libkmod reads the module directory and modprobe.d under the root, the
 * very files modload_check() looked at; with the real root it uses its own
 * defaults, which are the same. */
static int context_new(const char *root, const char *release, struct kmod_ctx **ret_ctx)
{
	char dir[PATH_MAX_LEN], conf[ELEMENTSOF(confdirs)][PATH_MAX_LEN];
	const char *confs[ELEMENTSOF(confdirs) + 1] = { NULL };
	struct kmod_ctx *ctx;
	char file[PATH_MAX_LEN];
	char rel[PATH_MAX_LEN];
	int r;

	r = modload_check(root, release, file, sizeof(file));
	if (r < 0)
		return r;
	if (root[0] != '\0') {
		snprintf(rel, sizeof(rel), "/lib/modules/%s", release);
		if (root_path(dir, sizeof(dir), root, rel) < 0)
			return -ENAMETOOLONG;
		for (size_t i = 0; i < ELEMENTSOF(confdirs); i++) {
			if (root_path(conf[i], sizeof(conf[i]), root, confdirs[i]) < 0)
				return -ENAMETOOLONG;
			confs[i] = conf[i];
		}
	}
	ctx = kmod_new(root[0] ? dir : NULL, root[0] ? confs : NULL);
	if (!ctx)
		return -ENOMEM;
	kmod_set_log_fn(ctx, log_nothing, NULL);
	*ret_ctx = ctx;
	return 0;
}

/* An install command in modprobe.d ("install tcp_bbr /bin/false") is how
 * many admins disable a module. It is never run, and never bypassed: the
 * module counts as blacklisted. */
static bool module_refused(struct kmod_ctx *ctx, struct kmod_list *list)
{
	struct kmod_list *allowed = NULL, *l;
	bool refused = false;

	if (kmod_module_apply_filter(ctx, KMOD_FILTER_BLACKLIST, list, &allowed) < 0)
		return false;
	if (!allowed)
		return true;
	kmod_list_foreach (l, allowed) {
		struct kmod_module *mod = kmod_module_get_module(l);

		if (kmod_module_get_install_commands(mod))
			refused = true;
		kmod_module_unref(mod);
	}
	kmod_module_unref_list(allowed);
	return refused;
}

int modload_query(const char *root, const char *release, const char *name,
		  enum modstate *ret_state)
{
	struct kmod_list *list = NULL, *modules = NULL;
	struct kmod_ctx *ctx;
	enum modstate state;
	int r;

	r = context_new(root, release, &ctx);
	if (r < 0)
		return r;
	r = kmod_module_new_from_lookup(ctx, name, &list);
	if (r < 0)
		goto out;
	if (!list) {
		state = MODSTATE_MISSING;
	} else {
		r = kmod_module_apply_filter(ctx, KMOD_FILTER_BUILTIN, list, &modules);
		if (r < 0)
			goto out;
		if (!modules)
			state = MODSTATE_BUILTIN;
		else if (module_refused(ctx, list))
			state = MODSTATE_BLACKLISTED;
		else
			state = MODSTATE_MODULE;
	}
	*ret_state = state;
	r = 0;
out:
	kmod_module_unref_list(modules);
	kmod_module_unref_list(list);
	kmod_unref(ctx);
	return r;
}

/* Under --root nothing reaches the running kernel: the module is resolved in
 * the tree's module directory and reported as what would be loaded. */
static int resolve_only(const char *root, const char *release, const char *name,
			enum modresult *ret_result)
{
	enum modstate state;
	int r;

	r = modload_query(root, release, name, &state);
	if (r < 0)
		return r;
	switch (state) {
	case MODSTATE_MODULE:
		*ret_result = MODRESULT_WOULD_INSERT;
		break;
	case MODSTATE_BLACKLISTED:
		*ret_result = MODRESULT_BLACKLISTED;
		break;
	case MODSTATE_MISSING:
		*ret_result = MODRESULT_NOT_FOUND;
		break;
	case MODSTATE_LOADED:
	case MODSTATE_BUILTIN:
		*ret_result = MODRESULT_PRESENT;
		break;
	}
	return 0;
}

/* An insert also reads the module's state in sysfs and the module's file,
 * both on the real root. */
static int check_module_files(struct kmod_module *mod)
{
	const char *name = kmod_module_get_name(mod), *path = kmod_module_get_path(mod);
	char initstate[PATH_MAX_LEN];
	int r = 0;

	if (name) {
		snprintf(initstate, sizeof(initstate), "/sys/module/%s/initstate", name);
		r = check_file("", initstate, MODPROBE_CONF_MAX);
	}
	if (r == 0 && path)
		r = check_file("", path, MODULE_FILE_MAX);
	return r;
}

/* systemd's way: look the name up; builtin or live means nothing to do;
 * otherwise insert with the blacklist applied and install commands ignored. */
int modload_ensure(const char *root, const char *release, const char *name, bool insert,
		   enum modresult *ret_result)
{
	enum modresult result = MODRESULT_NOT_FOUND;
	struct kmod_list *list = NULL, *l;
	struct kmod_ctx *ctx;
	int r;

	if (!insert)
		return resolve_only(root, release, name, ret_result);
	r = context_new(root, release, &ctx);
	if (r < 0)
		return r;
	r = kmod_module_new_from_lookup(ctx, name, &list);
	if (r < 0)
		goto out;
	kmod_list_foreach (l, list) {
		struct kmod_module *mod = kmod_module_get_module(l);
		int state;

		r = check_module_files(mod);
		if (r < 0) {
			kmod_module_unref(mod);
			break;
		}
		state = kmod_module_get_initstate(mod);
		if (state == KMOD_MODULE_BUILTIN || state == KMOD_MODULE_LIVE) {
			result = MODRESULT_PRESENT;
		} else if (module_refused(ctx, list)) {
			result = MODRESULT_BLACKLISTED;
		} else {
			r = kmod_module_probe_insert_module(
				mod,
				KMOD_PROBE_APPLY_BLACKLIST | KMOD_PROBE_IGNORE_COMMAND,
				NULL, NULL, NULL, NULL);
			if (r == KMOD_PROBE_APPLY_BLACKLIST) {
				result = MODRESULT_BLACKLISTED;
				r = 0;
			} else if (r == 0) {
				result = MODRESULT_INSERTED;
			}
		}
		kmod_module_unref(mod);
		if (r < 0 || result != MODRESULT_NOT_FOUND)
			break;
	}
	if (r == 0)
		*ret_result = result;
out:
	kmod_module_unref_list(list);
	kmod_unref(ctx);
	return r;
}
