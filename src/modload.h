/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "sysinfo.h"

/* What modload_ensure() did. */
enum modresult {
	MODRESULT_PRESENT, /* builtin or already live */
	MODRESULT_INSERTED,
	MODRESULT_WOULD_INSERT, /* under --root: resolved, not inserted */
	MODRESULT_BLACKLISTED,
	MODRESULT_NOT_FOUND,
};

int modload_check(const char *root, const char *release, char *ret_file, size_t size);
int modload_query(const char *root, const char *release, const char *name,
		  enum modstate *ret_state);
int modload_ensure(const char *root, const char *release, const char *name, bool insert,
		   enum modresult *ret_result);
