/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "sysctld.h"

/* One key of our fragment that another file sets at boot, after it. */
struct override {
	const struct assignment *ours;
	const struct assignment *theirs;
};

/* The userdata of overrides_report_file(), a sysctld_report's function:
 * each file systemd-sysctl reads otherwise than its text says is named in a
 * warning, and unknown is set where what boot sets cannot be known. */
struct other_files {
	const char *root;
	bool unknown;
};

void overrides_report_file(void *userdata, const char *file, unsigned line, int error);
const struct assignment *overrides_find(const struct assignments *all, const char *key);
size_t overrides_collect(const struct assignments *fragment,
			 const struct assignments *all, struct override *ret, size_t max);
