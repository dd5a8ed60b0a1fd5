/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The only file that speaks to libkmod, so tests can wrap it. */
#include <errno.h>
#include <stdio.h>
#include <libkmod.h>

#include "modload.h"
#include "util.h"

static void log_nothing(void *data _unused_, int priority _unused_,
			const char *file _unused_, int line _unused_,
			const char *fn _unused_, const char *format _unused_,
			va_list args _unused_)
{
}

/* libkmod reads the module directory and modprobe.d under the root; with the
 * real root it uses its own defaults, which are the same directories. */
static int context_new(const char *root, const char *release, struct kmod_ctx **ret_ctx)
{
	char dir[PATH_MAX_LEN], conf[5][PATH_MAX_LEN];
	const char *confs[6] = { NULL };
	static const char *const confdirs[] = {
		"/etc/modprobe.d",     "/run/modprobe.d", "/usr/local/lib/modprobe.d",
		"/usr/lib/modprobe.d", "/lib/modprobe.d",
	};
	struct kmod_ctx *ctx;
	char rel[PATH_MAX_LEN];

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
		int state = kmod_module_get_initstate(mod);

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
