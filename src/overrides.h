/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

#include "sysctld.h"

/* One key of our fragment that another file sets at boot, after it. */
struct override {
	const struct assignment *ours;
	const struct assignment *theirs;
};

size_t overrides_collect(const struct assignments *fragment,
			 const struct assignments *all, struct override *ret, size_t max);
