/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sysctl.h"
#include "util.h"

/* The longest line systemd-sysctl reads (its LONG_LINE_MAX is 1 MiB, the
 * end of line included): at a longer one it stops reading the file. */
#define SYSCTLD_LINE_MAX (1024 * 1024 - 1)

struct assignment {
	char key[KEY_MAX];
	char value[VALUE_MAX + 1];
	bool ignore_failure; /* the line started with "-" */
	bool glob;
	/* Where it came from, relative to the root: a name of up to NAME_MAX
	 * bytes in the longest of the sysctl.d directories. */
	char file[sizeof("/usr/local/lib/sysctl.d/") + NAME_MAX];
	unsigned line;
};

struct assignments {
	size_t n;
	struct assignment *items;
	size_t cap; /* last: { n, items } still initializes a fixed array */
};

/* Told about each line that is not an assignment, and each file that cannot
 * be read (line 0), with -errno; the caller decides what to say. */
struct sysctld_report {
	void (*fn)(void *userdata, const char *file, unsigned line, int error);
	void *userdata;
};

int sysctld_read_line(FILE *f, char **buf, size_t *cap);
int sysctld_parse_line(const char *line, bool strict, struct assignment *ret);
int sysctld_parse_stream(FILE *f, const char *file, bool strict,
			 const struct assignments *filter, struct assignments *ret,
			 const struct sysctld_report *report);
int sysctld_parse_file(const char *root, const char *file, bool strict,
		       struct assignments *ret, const struct sysctld_report *report);
int sysctld_load_all(const char *root, const struct assignments *ours,
		     struct assignments *ret, const struct sysctld_report *report);
const char *sysctld_strerror(int error);
const struct assignment *sysctld_find(const struct assignments *a, const char *key);
const struct assignment *sysctld_winner(const struct assignments *all, const char *key);
void assignments_free(struct assignments *a);
