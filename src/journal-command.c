/* SPDX-License-Identifier: GPL-2.0-or-later */
/* journal: what the package's purge will put back, read from the undo
 * journal (journal.c) in the order purge takes it; --convert writes the
 * records of an earlier version as the journal, which is what purge reads.
 * The postinst converts on every configure, so that an upgrade from 0.1.0
 * is purged from a journal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "command.h"
#include "journal.h"
#include "log.h"

static const struct command_option journal_options[] = {
	{ "convert", OPTION_CONVERT, NULL,
	  "write the records of an earlier version as the journal (root)" },
	{},
};

static void print_steps(const struct context *ctx, const struct state *s)
{
	if (state_empty(s)) {
		printf("Nothing recorded: purge has nothing to put back.\n");
		return;
	}
	if (s->legacy)
		printf("Read from the records of an earlier version, not yet a journal "
		       "('journal --convert' makes it one; the postinst does).\n");
	printf("Purge puts back, in this order:\n");
	for (size_t i = 0; i < s->n; i++) {
		const struct step *step = &s->steps[i];
		const struct record *rec = &step->key;
		const struct undo_file *file = &step->file;
		const struct undo_added *added = &step->added;

		switch (step->kind) {
		case STEP_KEY:
			printf("  %s = %s, if it is still %s", rec->key, rec->original,
			       rec->applied);
			if (rec->pending[0])
				printf(" or %s (being written)", rec->pending);
			printf("\n");
			break;
		case STEP_FILE:
			printf("  %s from %s%s/%s, mode %04o, owner %u:%u\n", file->path,
			       ctx->root, STATE_DIR, file->saved, file->mode, file->uid,
			       file->gid);
			break;
		case STEP_SET:
			printf("    then %s = %s, from that file\n", step->set.key,
			       step->set.value);
			break;
		case STEP_ADDED:
			printf("  remove %s while it is %s%s/%s%s\n", added->path,
			       ctx->root, STATE_DIR, added->saved,
			       added->new_dir ? ", and its directory once empty" : "");
			break;
		case STEP_WINDOWS:
			printf("  take initial windows %u and %u off the default routes of %s\n",
			       step->windows.cwnd, step->windows.rwnd,
			       step->windows.ifname);
			break;
		}
	}
}

/* Under the lock: the key steps of 0.1.0's record, written as the journal. */
static int convert(const struct context *ctx, struct state *s)
{
	int r;

	if (!s->legacy)
		return 0;
	r = journal_save_or_log(ctx, s);
	if (r < 0)
		return r;
	printf("converted %s%s into %s%s\n", ctx->root, STATE_LEGACY_RECORD, ctx->root,
	       STATE_JOURNAL);
	return 0;
}

static int do_journal(struct context *ctx, int argc, char **argv)
{
	struct state s = { 0 };
	bool converting = false;
	int c, r, lock = -1;

	while ((c = command_getopt(journal_options, false, argc, argv)) != -1) {
		if (c == OPTION_CONVERT)
			converting = true;
		else if ((r = command_option(&command_journal, c, argv)) <= 0)
			return command_parsed_exit(r);
	}
	if (command_no_arguments(&command_journal, argc, argv) < 0)
		return EXIT_USAGE;
	if (converting && ctx->root[0] == '\0' && geteuid() != 0) {
		log_error("--convert needs root: it writes %s", STATE_JOURNAL);
		return EXIT_FAILURE;
	}
	if (converting && lock_or_log(ctx, &lock) < 0)
		return EXIT_FAILURE;
	r = journal_load_or_log(ctx, &s);
	if (r == 0 && converting)
		r = convert(ctx, &s);
	else if (r == 0)
		print_steps(ctx, &s);
	state_unlock(ctx->root, lock);
	state_free(&s);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

const struct command command_journal = {
	.name = "journal",
	.args = "[--convert]",
	.summary = "show what purge will put back",
	.description = "Show the undo journal: the kernel values and the files purge "
		       "puts back, in its order.",
	.options = journal_options,
	.run = do_journal,
};
