/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The commands, laid out as kmod lays out its tools: main parses the options
 * every command shares and picks the command from its table; each command
 * parses its own options and arguments, with getopt_long over its own argv
 * (argv[0] is the command's name). */
#pragma once

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "sysinfo.h"
#include "util.h"

/* Beside EXIT_SUCCESS and EXIT_FAILURE. */
enum {
	EXIT_USAGE = 2,
	EXIT_DRIFT = 3,
	EXIT_LEAVE_ALONE = 4, /* detect --may-tune: leave the running kernel alone */
};

/* What the command line says. main fills in the global options; a command
 * that takes --dry-run sets it, before it reads anything. */
struct context {
	const char *root; /* "" for the real root */
	bool dry_run;
};

struct command {
	const char *name;
	const char *args; /* the usage line after the name */
	const char *help;
	int (*run)(struct context *ctx, int argc, char **argv);
};

extern const struct command command_detect;
extern const struct command command_render;
extern const struct command command_apply;
extern const struct command command_revert;
extern const struct command command_status;
extern const struct command command_takeover;
extern const struct command command_overrides;

/* Every command takes -h, --help; the default of its option switch is
 * command_option(). A command's parser returns 1 to run it, 0 after --help,
 * -EINVAL on a usage error (reported). */
void command_usage(const struct command *cmd, FILE *f);
int command_option(const struct command *cmd, int c);
int command_no_arguments(const struct command *cmd, int argc, char **argv);
int command_parse_none(const struct command *cmd, int argc, char **argv);
int command_parse_dry_run(const struct command *cmd, struct context *ctx, int argc,
			  char **argv);
int command_parsed_exit(int r);

struct assignments;
int read_fragment_or_log(const struct context *ctx, struct assignments *ret);
bool kernel_off_limits(const struct context *ctx, const struct sysinfo *info,
		       char *reason, size_t size);
bool kernel_off_limits_say(const struct context *ctx, const struct sysinfo *info);
int detect_or_log(const struct context *ctx, struct sysinfo *ret_info);
int lock_or_log(const struct context *ctx, int *ret_fd);
void detect_say_skipped(const struct context *ctx, const struct sysinfo *info);
