/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the commands share: the table main picks them from, the reading of
 * their options and of the arguments every one of them has, and the steps
 * several take (detecting the machine, reading our fragment, loading and
 * saving the journal, taking the lock), each of which logs its own failure.
 * Whether the running kernel may be touched at all is offlimits.c's. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "dirfd.h"
#include "i18n.h"
#include "journal.h"
#include "log.h"
#include "render.h"
#include "sysctld.h"

const struct command *const commands[] = {
	&command_detect,    &command_render,  &command_rendered, &command_apply,
	&command_revert,    &command_status,  &command_takeover, &command_journal,
	&command_overrides, &command_initwnd, &command_help,
};
const size_t n_commands = ELEMENTSOF(commands);

/* Exact names only: a prefix is no command (kmod, git). */
const struct command *command_find(const char *name)
{
	for (size_t i = 0; i < n_commands; i++)
		if (strcmp(name, commands[i]->name) == 0)
			return commands[i];
	return NULL;
}

/* The options that go before the command's name, read by main. */
const struct command_option global_options[] = {
	{ "root", OPTION_ROOT, "dir",
	  "read and write every file under dir, not under /, and load no module" },
	{ "verbose", 'v', NULL, "also report the keys skipped quietly" },
	{ "version", 'V', NULL, "print the version" },
	{},
};

/* apply, revert and takeover change the machine: each takes --dry-run. */
const struct command_option command_dry_run_options[] = {
	{ "dry-run", OPTION_DRY_RUN, NULL, "say what would change; change nothing" },
	{},
};

/* getopt_long over OPTIONS and -h, --help, with the option string and table
 * made from them. getopt reports nothing itself (opterr): a bad option is
 * the caller's to report, through command_option() or usage_bad_option(),
 * with the command's name. STOP_AT_ARGUMENT ("+") is for the global
 * options, which end at the command's name. */
int command_getopt(const struct command_option *options, bool stop_at_argument, int argc,
		   char **argv)
{
	struct option longopts[COMMAND_OPTIONS_MAX + 2] = { 0 };
	char shortopts[2 * COMMAND_OPTIONS_MAX + 6] = { 0 }, *s = shortopts;
	size_t n = 0;

	if (stop_at_argument)
		*s++ = '+';
	*s++ = ':'; /* a missing argument is ':', not '?' */
	*s++ = 'h';
	for (; options && options[n].name && n < COMMAND_OPTIONS_MAX; n++) {
		const struct command_option *o = &options[n];

		longopts[n] = (struct option){ o->name,
					       o->arg ? required_argument : no_argument,
					       NULL, o->val };
		if (o->val < OPTION_LONG_ONLY) {
			*s++ = (char)o->val;
			if (o->arg)
				*s++ = ':';
		}
	}
	longopts[n] = (struct option){ "help", no_argument, NULL, 'h' };
	opterr = 0;
	return getopt_long(argc, argv, shortopts, longopts, NULL);
}

/* The default of every command's option switch: --help, or an option the
 * command does not take. Returns 0 after --help, -EINVAL after a bad option
 * (reported); each command's parser returns 1 when the command is to run. */
int command_option(const struct command *cmd, int c, char **argv)
{
	if (c == 'h') {
		usage_print_command(cmd, stdout);
		return 0;
	}
	usage_bad_option(cmd, cmd->options, c, argv);
	return -EINVAL;
}

/* For a command that takes no arguments after its options. */
int command_no_arguments(const struct command *cmd, int argc, char **argv)
{
	if (optind >= argc)
		return 1;
	usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	return -EINVAL;
}

/* For a command that takes no options but --help, and no arguments. */
int command_parse_none(const struct command *cmd, int argc, char **argv)
{
	int c;

	while ((c = command_getopt(cmd->options, false, argc, argv)) != -1)
		return command_option(cmd, c, argv);
	return command_no_arguments(cmd, argc, argv);
}

/* The commands that change the machine (apply, revert, takeover) take
 * --dry-run, and no arguments. */
int command_parse_dry_run(const struct command *cmd, struct context *ctx, int argc,
			  char **argv)
{
	int c;

	while ((c = command_getopt(cmd->options, false, argc, argv)) != -1)
		switch (c) {
		case OPTION_DRY_RUN:
			ctx->dry_run = true;
			break;
		default:
			return command_option(cmd, c, argv);
		}
	return command_no_arguments(cmd, argc, argv);
}

/* What a command's parser returned, as the exit status of a command that
 * does not run. */
int command_parsed_exit(int r)
{
	return r < 0 ? EXIT_USAGE : EXIT_SUCCESS;
}

int detect_or_log(const struct context *ctx, struct sysinfo *ret_info)
{
	struct module_need needs[SYSINFO_MODULES_MAX];
	const char *failed = NULL;
	int r;

	/* The modules the table's rows need: nothing else of the profile. */
	r = sysinfo_detect(ctx->root, needs,
			   profile_module_needs(needs, ELEMENTSOF(needs)), ret_info,
			   &failed);
	/* A --root tree without a file it needs: say what a tree holds, and
	 * where that is written down. */
	if ((r == -ENOENT || r == -ENOTDIR) && ctx->root[0] != '\0')
		log_error("cannot read %s%s: %s; a --root tree needs " SYSINFO_ROOT_NEEDS
			  " (ROOT TREES in wp-panel-nettune(8))",
			  ctx->root, failed ? failed : "", file_strerror(r));
	else if (r < 0)
		log_error(_("cannot read %s%s: %s"), ctx->root, failed ? failed : "",
			  file_strerror(r));
	else
		detect_say_skipped(ctx, ret_info);
	return r;
}

struct fragment_lines {
	const struct context *ctx;
	unsigned bad;
};

static void log_fragment_line(void *userdata, const char *file, unsigned line, int error)
{
	struct fragment_lines *lines = userdata;

	log_error("%s%s:%u: %s", lines->ctx->root, file, line, sysctld_strerror(error));
	lines->bad++;
}

/* Our sysctl fragment, every bad line reported: 0, 1 when some line was bad
 * (the others are in ret, as systemd-sysctl applies them at boot), -ENOENT
 * when there is none, or -errno, logged. */
int read_fragment_or_log(const struct context *ctx, struct assignments *ret)
{
	struct fragment_lines lines = { ctx, 0 };
	const struct sysctld_report report = { log_fragment_line, &lines };
	int r;

	r = sysctld_parse_file(ctx->root, FRAGMENT_SYSCTL, true, ret, &report);
	if (r == -ENOENT)
		return r;
	if (r < 0 && lines.bad == 0) {
		log_error(_("cannot read %s%s: %s"), ctx->root, FRAGMENT_SYSCTL,
			  file_strerror(r));
		return r;
	}
	return lines.bad > 0;
}

/* A key of a key or set step the helper never journals, or NULL. */
static const char *unknown_key(const struct state *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct step *step = &s->steps[i];
		const char *key = step->kind == STEP_KEY ? step->key.key :
				  step->kind == STEP_SET ? step->set.key :
							   NULL;

		if (key && !tunable_journaled(key))
			return key;
	}
	return NULL;
}

/* The undo journal, or the records of an earlier version it replaces; one
 * that names a key the helper never journals is refused as corrupt, as the
 * package's purge refuses that step. */
int journal_load_or_log(const struct context *ctx, struct state *ret)
{
	const char *path, *key;
	unsigned line;
	int r;

	r = state_load(ctx->root, ret, &path, &line);
	if (r == 0 && (key = unknown_key(ret))) {
		log_error(_("%s%s: %s is not a key the package sets: corrupt, not using it; "
			    "move it aside to start anew"),
			  ctx->root, path, key);
		state_free(ret);
		return -EBADMSG;
	}
	if (r == -EBADMSG && line > 0)
		log_error(_("%s%s:%u: corrupt, not using it; move it aside to start anew"),
			  ctx->root, path, line);
	else if (r == -EBADMSG)
		log_error(_("%s%s: truncated or not a record of this package, not using it; "
			    "move it aside to start anew"),
			  ctx->root, path);
	else if (r < 0)
		log_error(_("cannot read %s%s: %s"), ctx->root, path, file_strerror(r));
	return r;
}

/* Written ahead of every change it records, nothing with --dry-run; a
 * journal with no step left is removed. */
int journal_save_or_log(const struct context *ctx, struct state *state)
{
	int r;

	if (ctx->dry_run)
		return 0;
	r = state_empty(state) ? state_remove_file(ctx->root) :
				 state_save(ctx->root, state);
	if (r < 0)
		log_error(_("cannot write %s%s: %s"), ctx->root, STATE_JOURNAL,
			  file_strerror(r));
	return r;
}

/* One writer at a time, for apply, revert and takeover (none for
 * --dry-run, which writes nothing). The wait is WP_PANEL_NETTUNE_LOCK_TIMEOUT
 * seconds if set, for tests and impatient scripts. */
int lock_or_log(const struct context *ctx, int *ret_fd)
{
	const char *env = getenv("WP_PANEL_NETTUNE_LOCK_TIMEOUT");
	unsigned timeout = STATE_LOCK_TIMEOUT_SEC;
	char why[PATH_MAX_LEN + 32];
	uint64_t v;
	int r;

	*ret_fd = -1;
	if (ctx->dry_run)
		return 0;
	if (env && parse_u64(env, &v) == 0 && v < 86400)
		timeout = (unsigned)v;
	r = state_lock(ctx->root, timeout, ret_fd);
	if (r == -EAGAIN)
		log_error(_("%s%s: another wp-panel-nettune is applying or reverting; "
			    "gave up after %u s, try again when it has finished"),
			  ctx->root, STATE_LOCK, timeout);
	else if ((r == -ELOOP || r == -ENOTDIR) &&
		 dirfd_refused(ctx->root, STATE_DIR, why, sizeof(why)))
		log_error(_("cannot lock %s%s: %s, refused"), ctx->root, STATE_LOCK, why);
	else if (r < 0)
		log_error(_("cannot lock %s%s: %s"), ctx->root, STATE_LOCK,
			  file_strerror(r));
	return r;
}
