/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Prints the command line the helper takes, from its own tables, one fact a
 * line, the fields separated by tabs:
 *
 *	command NAME
 *	option COMMAND OPTION ARG	COMMAND "-" for the global options; OPTION
 *					-x or --name; ARG empty for none
 *	word COMMAND WORD		an argument the command takes
 *
 * -h, --help is in every table, as command_getopt() adds it.
 * tests/cli-test.sh holds each --help against it, tests/completion-test.sh
 * the bash completion. */
#include <stdio.h>

#include "command.h"

static void print_options(const char *command, const struct command_option *options)
{
	for (size_t i = 0; options && options[i].name; i++) {
		const char *arg = options[i].arg ? options[i].arg : "";

		if (options[i].val < OPTION_LONG_ONLY)
			printf("option\t%s\t-%c\t%s\n", command, options[i].val, arg);
		printf("option\t%s\t--%s\t%s\n", command, options[i].name, arg);
	}
	printf("option\t%s\t-h\t\noption\t%s\t--help\t\n", command, command);
}

int main(void)
{
	print_options("-", global_options);
	for (size_t i = 0; i < n_commands; i++) {
		const struct command *cmd = commands[i];

		printf("command\t%s\n", cmd->name);
		print_options(cmd->name, cmd->options);
		for (size_t w = 0; cmd->words && cmd->words[w].word; w++)
			printf("word\t%s\t%s\n", cmd->name, cmd->words[w].word);
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
