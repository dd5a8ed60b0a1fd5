/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "profile.h"

/* Beside EXIT_SUCCESS and EXIT_FAILURE. */
enum {
	EXIT_USAGE = 2,
	EXIT_DRIFT = 3,
};

/* What the command line says, handed to every command. */
struct context {
	const char *root; /* "" for the real root */
	bool dry_run;
	enum congestion congestion;
	bool congestion_set;
};

int command_detect(const struct context *ctx, int argc, char **argv);
int command_render(const struct context *ctx, int argc, char **argv);
int command_apply(const struct context *ctx, int argc, char **argv);
int command_revert(const struct context *ctx, int argc, char **argv);
int command_status(const struct context *ctx, int argc, char **argv);
int command_takeover(const struct context *ctx, int argc, char **argv);
int command_overrides(const struct context *ctx, int argc, char **argv);

struct assignments;
int read_fragment_or_log(const struct context *ctx, struct assignments *ret);
bool kernel_off_limits(const struct context *ctx, const struct sysinfo *info);
int detect_or_log(const struct context *ctx, struct sysinfo *ret_info);
