/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

/* What the kernel and its module directory offer for one module. */
enum modstate {
	MODSTATE_MISSING,
	MODSTATE_MODULE,
	MODSTATE_LOADED,
	MODSTATE_BUILTIN,
	MODSTATE_BLACKLISTED,
};

/* What modload_ensure() did. */
enum modresult {
	MODRESULT_PRESENT, /* builtin or already live */
	MODRESULT_INSERTED,
	MODRESULT_WOULD_INSERT, /* under --root: resolved, not inserted */
	MODRESULT_BLACKLISTED,
	MODRESULT_NOT_FOUND,
};

const char *modstate_to_string(enum modstate state);
bool modstate_usable(enum modstate state);
int modload_query(const char *root, const char *release, const char *name,
		  enum modstate *ret_state);
int modload_ensure(const char *root, const char *release, const char *name, bool insert,
		   enum modresult *ret_result);
