/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "sysctl.h"
#include "util.h"

struct assignment {
	char key[KEY_MAX];
	char value[VALUE_MAX + 1];
	bool ignore_failure; /* the line started with "-" */
	bool glob;
	char file[256]; /* where it came from, relative to the root */
	unsigned line;
};

struct assignments {
	size_t n;
	struct assignment *items;
};

#define MODULE_NAME_MAX 64
#define MODULES_MAX 16

struct modules {
	size_t n;
	char names[MODULES_MAX][MODULE_NAME_MAX];
};

int sysctld_parse_line(const char *line, bool strict, struct assignment *ret);
int sysctld_parse_file(const char *root, const char *file, bool strict,
		       struct assignments *ret, unsigned *ret_line);
int sysctld_load_all(const char *root, struct assignments *ret);
const char *sysctld_strerror(int error);
const struct assignment *sysctld_winner(const struct assignments *all, const char *key);
void assignments_free(struct assignments *a);

int modules_parse_file(const char *root, const char *file, struct modules *ret,
		       unsigned *ret_line);
