/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "command.h"
#include "sysinfo.h"

const char *kernel_off_limits(const struct context *ctx, const struct sysinfo *info,
			      char *reason, size_t size);
const char *kernel_off_limits_line(const struct context *ctx, const struct sysinfo *info,
				   char *line, size_t size);
bool kernel_off_limits_say(const struct context *ctx, const struct sysinfo *info);
