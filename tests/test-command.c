/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"

/* The --help of CMD (NULL: of wp-panel-nettune), as a string to free. */
static char *help_of(const struct command *cmd)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	if (cmd)
		usage_print_command(cmd, f);
	else
		usage_print_main(f);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* TEXT, its blanks folded (the help is wrapped), has the option's row:
 * "-x, --name arg" or "--name arg", then its help. */
static void assert_help_has(const char *text, const struct command_option *o)
{
	char row[256], *folded = strdup(text);

	assert_non_null(folded);
	normalize_space(folded);
	if (o->val < OPTION_LONG_ONLY)
		snprintf(row, sizeof(row), "-%c, --%s%s%s %s", o->val, o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "", o->help);
	else
		snprintf(row, sizeof(row), " --%s%s%s %s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "", o->help);
	if (!strstr(folded, row))
		fail_msg("--help lacks '%s':\n%s", row, text);
	free(folded);
}

/* Invariants of an option table: it fits command_getopt()'s arrays, names
 * and values unique and none that of -h, --help, a letter or a long-only
 * value, a line of help on every row. */
static void assert_options_valid(const struct command_option *options)
{
	size_t n = 0;

	for (; options && options[n].name; n++) {
		const struct command_option *o = &options[n];

		assert_string_not_equal(o->name, "help");
		assert_int_not_equal(o->val, 'h');
		assert_true(o->val >= OPTION_LONG_ONLY || isalpha(o->val));
		assert_non_null(o->help);
		assert_true(strlen(o->help) > 5);
		for (size_t j = 0; j < n; j++) {
			assert_string_not_equal(o->name, options[j].name);
			assert_int_not_equal(o->val, options[j].val);
		}
	}
	assert_true(n < COMMAND_OPTIONS_MAX);
}

static void test_table(void **state _unused_)
{
	assert_options_valid(global_options);
	for (size_t i = 0; i < n_commands; i++) {
		const struct command *cmd = commands[i];
		size_t len = strlen(cmd->description);

		assert_non_null(cmd->run);
		assert_non_null(cmd->args);
		assert_true(strlen(cmd->summary) > 5);
		assert_true(len > 10 && cmd->description[len - 1] == '.');
		assert_true(isupper((unsigned char)cmd->description[0]));
		assert_options_valid(cmd->options);
		assert_ptr_equal(command_find(cmd->name), cmd);
	}
	assert_null(command_find("stat"));
	assert_null(command_find(""));
}

/* --help names every global option and every command, each command's
 * --help every option of its table, its arguments, and -h, --help. */
static void test_help(void **state _unused_)
{
	static const struct command_option help = { "help", 'h', NULL, "print this help" };
	char *text = help_of(NULL);

	for (size_t i = 0; global_options[i].name; i++)
		assert_help_has(text, &global_options[i]);
	assert_help_has(text, &help);
	for (size_t i = 0; i < n_commands; i++) {
		char line[256];

		snprintf(line, sizeof(line), "\n  %-11s%s\n", commands[i]->name,
			 commands[i]->summary);
		if (!strstr(text, line))
			fail_msg("--help does not list %s", commands[i]->name);
	}
	free(text);

	for (size_t i = 0; i < n_commands; i++) {
		const struct command *cmd = commands[i];

		text = help_of(cmd);
		for (size_t o = 0; cmd->options && cmd->options[o].name; o++)
			assert_help_has(text, &cmd->options[o]);
		for (size_t w = 0; cmd->words && cmd->words[w].word; w++) {
			char row[64];

			snprintf(row, sizeof(row), "\n  %s ", cmd->words[w].word);
			assert_non_null(strstr(text, row));
		}
		assert_help_has(text, &help);
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_help),
	};

	return cmocka_run_group_tests_name("command", tests, NULL, NULL);
}
