/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

#define MODULE_NAME_MAX 64
#define MODULES_MAX 16

/* The module names of a modules-load.d file, in its order. */
struct modules {
	size_t n;
	char names[MODULES_MAX][MODULE_NAME_MAX];
};

int modulesd_parse_file(const char *root, const char *file, struct modules *ret,
			unsigned *ret_line);
