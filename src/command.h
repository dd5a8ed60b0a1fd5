/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The commands, laid out as kmod lays out its tools: main parses the options
 * every command shares and picks the command from the table in command.c;
 * each command parses its own options and arguments, with getopt_long over
 * its own argv (argv[0] is the command's name) and its own table of
 * options. */
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

/* An option of a command, or a global one: its long name; its letter, or
 * for one that has none a value from OPTION_LONG_ONLY up; the name of its
 * argument, NULL when it takes none; and its line in --help. getopt's table
 * and --help are both made from these rows, and -h, --help is added to
 * every table. */
struct command_option {
	const char *name;
	int val;
	const char *arg;
	const char *help;
};

#define OPTION_LONG_ONLY 0x100
enum {
	OPTION_ROOT = OPTION_LONG_ONLY,
	OPTION_DRY_RUN,
	OPTION_MAY_TUNE,
	OPTION_JSON,
	OPTION_CONGESTION,
	OPTION_PROMETHEUS,
	OPTION_TEXTFILE,
	OPTION_CONVERT,
	OPTION_SEAL,
	OPTION_DETACH,
};
#define COMMAND_OPTIONS_MAX 8

/* A word a command takes as its argument (render's fragment names), and its
 * line in --help. */
struct command_word {
	const char *word;
	const char *help;
};

struct command {
	const char *name;
	const char *args; /* the usage line after the name */
	const char *summary; /* its line in the list of commands */
	const char *description; /* the sentence under the usage line in its --help */
	const struct command_option *options; /* ended by an empty row, or NULL */
	const struct command_word *words; /* ditto */
	int (*run)(struct context *ctx, int argc, char **argv);
};

extern const struct command command_detect;
extern const struct command command_render;
extern const struct command command_rendered;
extern const struct command command_apply;
extern const struct command command_revert;
extern const struct command command_status;
extern const struct command command_takeover;
extern const struct command command_journal;
extern const struct command command_overrides;
extern const struct command command_initwnd;
extern const struct command command_help;

/* The table main picks a command from, by its exact name, and the options
 * that go before the name. */
extern const struct command *const commands[];
extern const size_t n_commands;
extern const struct command_option global_options[];
const struct command *command_find(const char *name);

/* Every command takes -h, --help; it reads its options with
 * command_getopt(), and the default of its option switch is
 * command_option(). A command's parser returns 1 to run it, 0 after --help,
 * -EINVAL on a usage error (reported). */
extern const struct command_option command_dry_run_options[];
int command_getopt(const struct command_option *options, bool stop_at_argument, int argc,
		   char **argv);
int command_option(const struct command *cmd, int c, char **argv);
int command_no_arguments(const struct command *cmd, int argc, char **argv);
int command_parse_none(const struct command *cmd, int argc, char **argv);
int command_parse_dry_run(const struct command *cmd, struct context *ctx, int argc,
			  char **argv);
int command_parsed_exit(int r);

/* --help, and usage errors: one line naming what is wrong, and one pointing
 * to --help (of CMD, or of wp-panel-nettune when CMD is NULL). */
void usage_print_main(FILE *f);
void usage_print_command(const struct command *cmd, FILE *f);
__attribute__((format(printf, 2, 3))) void usage_error(const struct command *cmd,
						       const char *format, ...);
void usage_bad_option(const struct command *cmd, const struct command_option *options,
		      int c, char **argv);

struct assignments;
int read_fragment_or_log(const struct context *ctx, struct assignments *ret);
int detect_or_log(const struct context *ctx, struct sysinfo *ret_info);
int lock_or_log(const struct context *ctx, int *ret_fd);
struct state;
int journal_load_or_log(const struct context *ctx, struct state *ret);
int journal_save_or_log(const struct context *ctx, struct state *state);
void detect_say_skipped(const struct context *ctx, const struct sysinfo *info);
