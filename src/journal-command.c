/* SPDX-License-Identifier: GPL-2.0-or-later */
/* journal: what the package's purge will put back, read from the undo
 * journal (journal.c) in the order purge takes it. --convert writes the
 * records of an earlier version as the journal, which is what purge reads:
 * the postinst converts on every configure, so that an upgrade from 0.1.0
 * is purged from a journal. --seal, run by the prerm at the package's
 * remove, leaves purge what it cannot decide once the helper is gone
 * (seal.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include "i18n.h"
#include "initwnd.h"
#include "journal.h"
#include "log.h"
#include "offlimits.h"
#include "seal.h"
#include "utf8.h"

static const struct command_option journal_options[] = {
	{ "convert", OPTION_CONVERT, NULL,
	  "write the records of an earlier version as the journal (root)" },
	{ "seal", OPTION_SEAL, NULL,
	  "check and seal the journal for the package's purge (root)" },
	{ "dry-run", OPTION_DRY_RUN, NULL,
	  "with --convert or --seal: say what would be written" },
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

/* Under the lock: the key steps of 0.1.0's record, written as the journal.
 * A seal a remove left is for that remove only: the package is back. */
static int convert(const struct context *ctx, struct state *s)
{
	int r;

	r = seal_remove(ctx->root);
	if (r < 0)
		log_warning(_("cannot remove %s%s: %s"), ctx->root, STATE_SEAL,
			    file_strerror(r));
	if (!s->legacy)
		return 0;
	r = journal_save_or_log(ctx, s);
	if (r < 0)
		return r;
	printf("converted %s%s into %s%s\n", ctx->root, STATE_LEGACY_RECORD, ctx->root,
	       STATE_JOURNAL);
	return 0;
}

/* The seal's kernel line, without its newline: detect --may-tune's
 * answer, for this root, cut at 1024 bytes. */
static void seal_kernel(const struct context *ctx, char *buf, size_t size)
{
	char line[TEXT_ESCAPED_SIZE(PATH_MAX_LEN + 64) + 32];
	struct sysinfo info = { 0 };

	sysinfo_detect_environment(ctx->root, &info);
	snprintf(buf, size, "kernel %.1024s",
		 kernel_off_limits_line(ctx, &info, line, sizeof(line)) ? line : "ok");
}

/* With the journal as LOADED said (0, or why it was refused, told
 * already): the files of the route builds taken back, the journal written
 * again as the helper writes it, and the seal of those bytes. A journal
 * refused is sealed as such, and purge leaves it. Without the lock (a FIFO
 * or a directory in its place, or a run that holds it still), this is the
 * last run of the helper all the same: nothing is written but the seal,
 * and a journal written since is one purge finds changed, and leaves. */
static int seal(const struct context *ctx, struct state *s, int loaded, bool locked)
{
	char root_id[64], kernel[1100], journal[64], body[SEAL_SIZE_MAX];
	char *data = NULL;
	size_t size = 0;
	int r;

	r = seal_root_id(ctx->root, root_id, sizeof(root_id));
	if (r < 0) {
		log_error(_("cannot tell which file system %s is on: %s"),
			  ctx->root[0] ? ctx->root : "/", strerror(-r));
		return r;
	}
	seal_kernel(ctx, kernel, sizeof(kernel));
	if (loaded == 0) {
		r = 0;
		if (locked) {
			initwnd_take_back_files(ctx, s, startswith(kernel, "kernel ok"));
			r = journal_save_or_log(ctx, s);
		}
		if (r == 0 && !state_empty(s))
			r = state_format(s, &data, &size);
		if (r < 0)
			return r;
	}
	if (loaded < 0)
		snprintf(journal, sizeof(journal), "journal refused\n");
	else if (!data)
		snprintf(journal, sizeof(journal), "journal none\n");
	else
		snprintf(journal, sizeof(journal), "journal %" PRIu32 " %zu\n",
			 seal_cksum(data, size), size);
	free(data);
	snprintf(body, sizeof(body), "root %s\n%s\n%s", root_id, kernel, journal);
	if (ctx->dry_run) {
		printf("Would write %s%s:\n%s\n%s", ctx->root, STATE_SEAL, SEAL_HEADER,
		       body);
		return loaded;
	}
	r = seal_write(ctx->root, body);
	if (r < 0) {
		log_error(_("cannot write %s%s: %s"), ctx->root, STATE_SEAL,
			  file_strerror(r));
		return r;
	}
	return loaded;
}

static int do_journal(struct context *ctx, int argc, char **argv)
{
	struct state s = { 0 };
	int c, r, lock = -1, act = 0;

	while ((c = command_getopt(journal_options, false, argc, argv)) != -1) {
		if (c == OPTION_CONVERT || c == OPTION_SEAL) {
			if (act && act != c) {
				usage_error(&command_journal,
					    "--convert and --seal cannot be combined");
				return EXIT_USAGE;
			}
			act = c;
		} else if (c == OPTION_DRY_RUN) {
			ctx->dry_run = true;
		} else if ((r = command_option(&command_journal, c, argv)) <= 0) {
			return command_parsed_exit(r);
		}
	}
	if (command_no_arguments(&command_journal, argc, argv) < 0)
		return EXIT_USAGE;
	if (act && ctx->root[0] == '\0' && geteuid() != 0 && !ctx->dry_run) {
		log_error("%s needs root: it writes %s",
			  act == OPTION_SEAL ? "--seal" : "--convert",
			  act == OPTION_SEAL ? STATE_SEAL : STATE_JOURNAL);
		return EXIT_FAILURE;
	}
	if (act && lock_or_log(ctx, &lock) < 0 && act != OPTION_SEAL)
		return EXIT_FAILURE;
	r = journal_load_or_log(ctx, &s);
	if (act == OPTION_SEAL)
		r = seal(ctx, &s, r, lock >= 0);
	else if (r == 0 && act == OPTION_CONVERT)
		r = convert(ctx, &s);
	else if (r == 0)
		print_steps(ctx, &s);
	state_unlock(ctx->root, lock);
	state_free(&s);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

const struct command command_journal = {
	.name = "journal",
	.args = "[--convert | --seal] [--dry-run]",
	.summary = "show what purge will put back",
	.description = "Show the undo journal: the kernel values and the files purge "
		       "puts back, in its order.",
	.options = journal_options,
	.run = do_journal,
};
