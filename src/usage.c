/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the command line says back: --help, printed from the tables of
 * commands and options, the help command, and usage errors, each one line
 * naming what is wrong and one pointing to --help. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "log.h"

#define USAGE_PREFIX "usage: wp-panel-nettune "
#define GLOBAL_USAGE USAGE_PREFIX "[--root dir] [-v]"
#define HELP_WIDTH 79
#define OPTION_COLUMN 26
#define COMMAND_COLUMN 13

static const struct command_option help_option = { "help", 'h', NULL, "print this help" };

static const struct {
	int status;
	const char *meaning;
} exit_statuses[] = {
	{ EXIT_SUCCESS, "success; for status, in effect or as chosen" },
	{ EXIT_FAILURE, "failure" },
	{ EXIT_USAGE, "usage error" },
	{ EXIT_DRIFT,
	  "status: a state nobody chose (drift, an update not taken, no fragment...)" },
	{ EXIT_LEAVE_ALONE, "detect --may-tune: leave the running kernel alone" },
};

/* TEXT from column AT, where the line already holds that much, broken at
 * spaces so that no line is wider than HELP_WIDTH (a longer word stands
 * alone); each further line is indented to INDENT. */
static void print_wrapped(FILE *f, int at, int indent, const char *text)
{
	while (*text) {
		size_t room = at < HELP_WIDTH ? (size_t)(HELP_WIDTH - at) : 1;
		size_t len = strlen(text), cut = room;

		if (len > room) {
			while (cut > 0 && text[cut] != ' ')
				cut--;
			len = cut > 0 ? cut : strcspn(text, " ");
		}
		fprintf(f, "%.*s\n", (int)len, text);
		text += strspn(text + len, " ") + len;
		if (*text)
			at = fprintf(f, "%*s", indent, "");
	}
}

/* One row of a two-column list, the text from COLUMN; a left column too
 * wide for its place puts the text on the next line. */
static void print_row(FILE *f, int column, const char *left, const char *text)
{
	int n = fprintf(f, "  %s", left);

	if (n + 2 > column) {
		fputc('\n', f);
		n = 0;
	}
	fprintf(f, "%*s", column - n, "");
	print_wrapped(f, column, column, text);
}

static void print_option(FILE *f, const struct command_option *o)
{
	char left[64];

	if (o->val < OPTION_LONG_ONLY)
		snprintf(left, sizeof(left), "-%c, --%s", o->val, o->name);
	else
		snprintf(left, sizeof(left), "    --%s", o->name);
	if (o->arg)
		snprintf(left + strlen(left), sizeof(left) - strlen(left), " %s", o->arg);
	print_row(f, OPTION_COLUMN, left, o->help);
}

static void print_options(FILE *f, const char *title, const struct command_option *options)
{
	fprintf(f, "\n%s:\n", title);
	for (size_t i = 0; options && options[i].name; i++)
		print_option(f, &options[i]);
	print_option(f, &help_option);
}

void usage_print_main(FILE *f)
{
	fprintf(f, GLOBAL_USAGE " command [options] [args]\n"
				"       wp-panel-nettune -h | --help | -V | --version\n\n"
				"Tune the network stack of a web server, and undo it.\n");
	print_options(f, "Options, before the command", global_options);
	fprintf(f, "\nCommands:\n");
	for (size_t i = 0; i < n_commands; i++)
		print_row(f, COMMAND_COLUMN, commands[i]->name, commands[i]->summary);
	fprintf(f,
		"\n'wp-panel-nettune help command' or 'wp-panel-nettune command --help'\n"
		"shows a command's options and arguments.\n\nExit status:\n");
	for (size_t i = 0; i < ELEMENTSOF(exit_statuses); i++)
		fprintf(f, "  %d  %s\n", exit_statuses[i].status,
			exit_statuses[i].meaning);
}

void usage_print_command(const struct command *cmd, FILE *f)
{
	char line[256];

	/* A usage line too long for the width goes on under the program's
	 * name. */
	snprintf(line, sizeof(line), GLOBAL_USAGE " %s%s%s", cmd->name,
		 cmd->args[0] ? " " : "", cmd->args);
	print_wrapped(f, 0, (int)strlen(USAGE_PREFIX), line);
	fputc('\n', f);
	print_wrapped(f, 0, 0, cmd->description);
	if (cmd->words) {
		fprintf(f, "\nArguments:\n");
		for (size_t i = 0; cmd->words[i].word; i++)
			print_row(f, OPTION_COLUMN, cmd->words[i].word,
				  cmd->words[i].help);
	}
	print_options(f, "Options", cmd->options);
}

void usage_error(const struct command *cmd, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	log_vline("", format, ap);
	va_end(ap);
	fprintf(stderr, "Try 'wp-panel-nettune%s%s --help' for more information.\n",
		cmd ? " " : "", cmd ? cmd->name : "");
}

static const struct command_option *find_option(const struct command_option *options,
						int val)
{
	for (size_t i = 0; options && options[i].name; i++)
		if (options[i].val == val)
			return &options[i];
	return val == help_option.val ? &help_option : NULL;
}

static void add_match(char *buf, size_t size, size_t *n, const char *name,
		      const char *given, size_t len)
{
	size_t used = strlen(buf);

	if (strncmp(name, given, len) != 0)
		return;
	snprintf(buf + used, size - used, "%s--%s", (*n)++ > 0 ? ", " : "", name);
}

/* A long option getopt does not know: one the table does not have, or a
 * prefix of more than one of its names. */
static void bad_long_option(const struct command *cmd,
			    const struct command_option *options, const char *arg)
{
	size_t len = strcspn(arg + 2, "="), n = 0;
	char matches[256] = "";

	for (size_t i = 0; len > 0 && options && options[i].name; i++)
		add_match(matches, sizeof(matches), &n, options[i].name, arg + 2, len);
	if (len > 0)
		add_match(matches, sizeof(matches), &n, help_option.name, arg + 2, len);
	if (n > 1)
		usage_error(cmd, "option '%.*s' is ambiguous (%s)", (int)len + 2, arg,
			    matches);
	else if (len == 0)
		usage_error(cmd, "unknown option '%s'", arg); /* "--=x" */
	else
		usage_error(cmd, "unknown option '%.*s'", (int)len + 2, arg);
}

/* Names the option getopt stopped at (it says nothing itself: opterr is 0).
 * C is ':' for an option whose argument is missing, '?' for an option the
 * table does not have or one given an argument it does not take. The
 * option is argv[optind - 1], but for a short one inside a group (-vx):
 * then getopt's optopt names it. */
void usage_bad_option(const struct command *cmd, const struct command_option *options,
		      int c, char **argv)
{
	const struct command_option *o = find_option(options, optopt);
	const char *arg = argv[optind - 1];

	if (c == ':' && o && startswith(arg, "--"))
		usage_error(cmd, "option '--%s' needs an argument", o->name);
	else if (c == ':')
		usage_error(cmd, "option '-%c' needs an argument", optopt);
	else if (optopt == 0)
		bad_long_option(cmd, options, arg);
	else if (o)
		usage_error(cmd, "option '--%s' takes no argument", o->name);
	else
		usage_error(cmd, "unknown option '-%c'", optopt);
}

/* help [command]: --help, or the command's --help. */
static int do_help(struct context *ctx _unused_, int argc, char **argv)
{
	const struct command *cmd;
	int c, r;

	while ((c = command_getopt(command_help.options, false, argc, argv)) != -1)
		return command_parsed_exit(command_option(&command_help, c, argv));
	if (optind >= argc) {
		usage_print_main(stdout);
		return EXIT_SUCCESS;
	}
	cmd = command_find(argv[optind]);
	if (!cmd) {
		usage_error(NULL, "unknown command '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	optind++;
	r = command_no_arguments(&command_help, argc, argv);
	if (r <= 0)
		return command_parsed_exit(r);
	usage_print_command(cmd, stdout);
	return EXIT_SUCCESS;
}

const struct command command_help = {
	.name = "help",
	.args = "[command]",
	.summary = "print this help, or a command's",
	.description = "Print the usage of wp-panel-nettune, or with a command's name, "
		       "that command's usage, arguments and options.",
	.run = do_help,
};
