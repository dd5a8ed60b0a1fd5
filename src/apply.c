/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply and revert: the running kernel against the installed fragments and
 * the record of originals. A key that cannot be read or set is reported as
 * sysctl_failure_policy says, after systemd-sysctl: a refusal, or a "-" key
 * absent, quietly; a missing key, or any other failure of a "-" key, with a
 * warning; anything else as an error after every key has been tried. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "command.h"
#include "i18n.h"
#include "initwnd.h"
#include "journal.h"
#include "log.h"
#include "modload.h"
#include "modulesd.h"
#include "offlimits.h"
#include "overrides.h"
#include "render.h"
#include "sysctl.h"
#include "sysctld.h"
#include "takeover.h"
#include "utf8.h"

/* Changing this machine's kernel and its record takes root; without it the
 * writes would fail one by one and look like a read-only /proc/sys. A tree
 * given with --root, and --dry-run, need no privileges. */
static bool refuse_without_root(const struct context *ctx)
{
	if (ctx->root[0] != '\0' || ctx->dry_run || geteuid() == 0)
		return false;
	log_error(_("needs root: it changes the running kernel and the record in %s"),
		  STATE_DIR);
	return true;
}

/* Writes back the original of one recorded key if the live value is still
 * ours. Returns 0 when the record is settled, -errno when it should stay. */
static int revert_record(const struct context *ctx, const struct record *rec)
{
	char live[VALUE_MAX + 1];
	int r;

	r = sysctl_read(ctx->root, rec->key, live, sizeof(live));
	if (r == -ENOENT) {
		log_warning(_("%s is gone from this kernel, ignoring"), rec->key);
		return 0;
	}
	if (r < 0) {
		log_error(_("cannot read %s: %s"), rec->key, file_strerror(r));
		return r;
	}
	if (strcmp(live, rec->original) == 0)
		return 0;
	if (!record_is_ours(rec, live)) {
		log_warning(_("%s is now %s, changed since it was set to %s; leaving it"),
			    rec->key, live, rec->applied);
		return 0;
	}
	if (ctx->dry_run) {
		printf(_("would restore %s = %s (now %s)\n"), rec->key, rec->original,
		       live);
		return 0;
	}
	r = sysctl_write(ctx->root, rec->key, rec->original);
	if (r < 0) {
		log_error(_("cannot restore %s to %s: %s"), rec->key, rec->original,
			  file_strerror(r));
		return r;
	}
	printf(_("restored %s = %s\n"), rec->key, rec->original);
	return 0;
}

static int read_modules(const struct context *ctx, struct modules *ret)
{
	unsigned line = 0;
	int r;

	r = modulesd_parse_file(ctx->root, FRAGMENT_MODULES, ret, &line);
	if (r == -ENOENT) {
		ret->n = 0;
		return 0;
	}
	if (r < 0)
		log_error("%s%s:%u: %s", ctx->root, FRAGMENT_MODULES, line,
			  r == -EINVAL ? _("not a module name") : file_strerror(r));
	return r;
}

static int load_modules(const struct context *ctx, const struct sysinfo *info,
			const struct modules *modules)
{
	bool insert = ctx->root[0] == '\0' && !ctx->dry_run;
	int r, ret = 0;

	for (size_t i = 0; i < modules->n; i++) {
		const char *name = modules->names[i];
		enum modresult result;

		r = modload_ensure(ctx->root, info->release, name, insert, &result);
		if (r < 0) {
			if (sysctl_error_is_refusal(r)) {
				log_warning(_("not allowed to load %s, ignoring"), name);
			} else {
				log_error(_("cannot load module %s: %s"), name,
					  file_strerror(r));
				ret = ret ?: r;
			}
			continue;
		}
		switch (result) {
		case MODRESULT_PRESENT:
			break;
		case MODRESULT_INSERTED:
			printf(_("loaded module %s\n"), name);
			break;
		case MODRESULT_WOULD_INSERT:
			printf(_("would load module %s\n"), name);
			break;
		case MODRESULT_BLACKLISTED:
			log_warning(_("%s is blacklisted in modprobe.d, not loading it"),
				    name);
			break;
		case MODRESULT_NOT_FOUND:
			log_warning(_("module %s not found, ignoring"), name);
			break;
		}
	}
	return ret;
}

enum outcome {
	OUTCOME_SKIPPED,
	OUTCOME_UNCHANGED,
	OUTCOME_SET,
	OUTCOME_OTHER_FILE,
};

/* Writing the value of a row that names a module makes the kernel load it
 * by name, which bypasses a modprobe.d blacklist. A module the admin
 * disabled is never loaded that way. */
static bool value_needs_refused_module(const struct assignment *a,
				       const struct sysinfo *info)
{
	const struct tunable *t = tunable_find(a->key);

	return t && t->module && strcmp(a->value, t->value) == 0 &&
	       sysinfo_module_state(info, t->module) == MODSTATE_BLACKLISTED;
}

/* After a write, the record holds what the kernel reads back: it may have
 * normalized the value (015 is 13), taken part of a vector, or refused it.
 * A record whose key still has its original value is not needed. A key that
 * cannot be read back keeps its pending value, for revert to recognize. */
static void settle_record(const struct context *ctx, struct state *state, const char *key)
{
	struct step *step = state_find(state, STEP_KEY, key);
	struct record *rec = step ? &step->key : NULL;
	char live[VALUE_MAX + 1];

	if (!rec || sysctl_read(ctx->root, key, live, sizeof(live)) < 0)
		return;
	if (strcmp(live, rec->original) == 0) {
		state_drop(state, step);
	} else {
		snprintf(rec->applied, sizeof(rec->applied), "%s", live);
		rec->pending[0] = '\0';
	}
}

static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += len)
		if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
			return true;
	return false;
}

/* What the allowed list becomes when algo turns default: the kernel lists
 * the allowed algorithms in their order of registration, the order of the
 * available list, and a module loaded by the write comes last. */
static void predict_allowed(const struct context *ctx, const struct tunable *t,
			    const char *before, const char *algo, char *buf, size_t size)
{
	char available[VALUE_MAX + 1];
	FILE *f = fmemopen(buf, size, "w");
	bool listed = false;

	if (!f) {
		buf[0] = '\0';
		return;
	}
	if (!t->available ||
	    sysctl_read(ctx->root, t->available, available, sizeof(available)) < 0)
		available[0] = '\0';
	for (char *word = strtok(available, " "); word; word = strtok(NULL, " ")) {
		listed = listed || strcmp(word, algo) == 0;
		if (has_word(before, word) || strcmp(word, algo) == 0)
			fprintf(f, "%s%s", ftell(f) ? " " : "", word);
	}
	if (!listed)
		fprintf(f, "%s%s", ftell(f) ? " " : "", algo);
	fclose(f);
}

/* Setting the default congestion control also makes it "allowed" for
 * unprivileged sockets and child namespaces, and the kernel never takes that
 * back: the allowed list changes with it. It is recorded too, ahead of the
 * write like the key itself, so that revert and purge put it back. */
static const char *watch_side_effect(const struct context *ctx, struct state *state,
				     const struct assignment *a)
{
	const struct tunable *t = tunable_find(a->key);
	const char *allowed = t ? t->widens : NULL;
	char before[VALUE_MAX + 1];
	struct step step;

	if (!allowed || state_find(state, STEP_KEY, allowed) ||
	    sysctl_read(ctx->root, allowed, before, sizeof(before)) < 0 ||
	    has_word(before, a->value) || step_key(&step, allowed, before, before) < 0)
		return NULL;
	predict_allowed(ctx, t, before, a->value, step.key.pending,
			sizeof(step.key.pending));
	return state_add(state, &step) < 0 ? NULL : allowed;
}

/* A key that could not be read (ERROR from reading it) or set (from writing
 * a->value), reported as sysctl_failure_policy() says. Returns the
 * outcome, or ERROR when it is an error. */
static int key_failed(const struct assignment *a, bool writing, int error)
{
	const char *why = error == -EIO ? _("the kernel took only part of it") :
					  file_strerror(error);
	char what[KEY_MAX + VALUE_MAX + 64];

	/* TRANSLATORS: what "cannot %s: %s" below could not do. */
	if (writing)
		snprintf(what, sizeof(what), _("set %s to %s"), a->key, a->value);
	else
		snprintf(what, sizeof(what), _("read %s"), a->key);
	switch (sysctl_failure_policy(error, a->ignore_failure)) {
	case SYSCTL_FAILURE_QUIET:
		log_debug(_("cannot %s: %s, ignoring"), what, why);
		return OUTCOME_SKIPPED;
	case SYSCTL_FAILURE_WARN:
		if (error == -ENOENT)
			log_warning(_("%s is not in this kernel or namespace, ignoring"),
				    a->key);
		else
			log_warning(_("cannot %s: %s, ignoring"), what, why);
		return OUTCOME_SKIPPED;
	case SYSCTL_FAILURE_ERROR:
		break;
	}
	log_error(_("cannot %s: %s"), what, why);
	return error;
}

/* The key's value as the kernel now reads it, said with what was set. */
static void say_set(const struct context *ctx, const struct assignment *a, const char *was)
{
	char now[VALUE_MAX + 1];

	if (sysctl_read(ctx->root, a->key, now, sizeof(now)) == 0 &&
	    strcmp(now, a->value) != 0)
		printf(_("set %s = %s (was %s; the kernel reads it as %s)\n"), a->key,
		       a->value, was, now);
	else
		printf(_("set %s = %s (was %s)\n"), a->key, a->value, was);
}

/* A key another file sets at boot, after the fragment in systemd-sysctl's
 * order, is that file's: the administrator's, or the installer's kept. Its
 * live value is not ours to write, so apply records no original for it; a
 * record of an earlier apply stays, and revert and purge put the original
 * back only while the key still has the value apply gave it. */
static void say_left_alone(const struct context *ctx, const struct assignment *a,
			   const struct assignment *theirs)
{
	char file[TEXT_ESCAPED_SIZE(sizeof(theirs->file))];
	char value[TEXT_ESCAPED_SIZE(VALUE_MAX)];

	printf(_("left %s alone: %s%s sets it to %s at boot\n"), a->key, ctx->root,
	       text_escape(theirs->file, file, sizeof(file)),
	       text_escape(theirs->value, value, sizeof(value)));
}

enum apply_action apply_decide(const struct apply_facts *f)
{
	/* Purge puts back only the keys the journal may name. */
	if (!f->journaled)
		return APPLY_NOT_PROFILE;
	if (f->other_file)
		return APPLY_OTHER_FILE;
	if (f->read_error < 0)
		return APPLY_UNREADABLE;
	/* Set earlier by a reboot after an edit, or by a run that was stopped
	 * before it recorded it: purge must know. */
	if (strcmp(f->live, f->wanted) == 0) {
		bool lags = f->rec &&
			    (strcmp(f->rec->applied, f->live) != 0 || f->rec->pending[0]);

		return lags && !f->dry_run ? APPLY_SETTLE : APPLY_IN_EFFECT;
	}
	if (f->module_refused)
		return APPLY_MODULE_REFUSED;
	return f->dry_run ? APPLY_WOULD_SET : APPLY_SET;
}

/* Sets one key of the fragment, as apply_decide() says: returns an outcome,
 * or -errno on a real failure. The record is written ahead: the original
 * and the value about to be written are on disk before the kernel changes,
 * and what the kernel then holds after it, so that a run killed at any
 * point leaves a record revert can trust. */
static int apply_one(const struct context *ctx, const struct sysinfo *info,
		     const struct assignments *all, const struct assignment *a,
		     struct state *state)
{
	const struct assignment *theirs = overrides_find(all, a->key);
	char live[VALUE_MAX + 1] = "";
	struct apply_facts f = { .journaled = tunable_journaled(a->key),
				 .other_file = theirs != NULL,
				 .live = live,
				 .wanted = a->value,
				 .module_refused = value_needs_refused_module(a, info),
				 .dry_run = ctx->dry_run };
	const char *side_effect;
	struct record *rec = NULL;
	struct step *step, made;
	int r, w;

	if (f.journaled && !f.other_file) {
		f.read_error = sysctl_read(ctx->root, a->key, live, sizeof(live));
		step = state_find(state, STEP_KEY, a->key);
		rec = step ? &step->key : NULL;
		f.rec = rec;
	}
	switch (apply_decide(&f)) {
	case APPLY_NOT_PROFILE:
		log_warning(_("not setting %s = %s: not a key of the profile, which purge "
			      "could not put back; set it in a sysctl.d file of your own"),
			    a->key, a->value);
		return OUTCOME_SKIPPED;
	case APPLY_OTHER_FILE:
		say_left_alone(ctx, a, theirs);
		return OUTCOME_OTHER_FILE;
	case APPLY_UNREADABLE:
		return key_failed(a, false, f.read_error);
	case APPLY_SETTLE:
		settle_record(ctx, state, a->key);
		r = journal_save_or_log(ctx, state);
		return r < 0 ? r : OUTCOME_UNCHANGED;
	case APPLY_IN_EFFECT:
		return OUTCOME_UNCHANGED;
	case APPLY_MODULE_REFUSED:
		log_warning(
			_("not setting %s = %s: its module is blacklisted, and the kernel "
			  "would load it anyway"),
			a->key, a->value);
		return OUTCOME_SKIPPED;
	case APPLY_WOULD_SET:
		printf(_("would set %s = %s (now %s)\n"), a->key, a->value, live);
		return OUTCOME_SET;
	case APPLY_SET:
		break;
	}

	/* A second apply keeps the recorded original. */
	r = rec ? 0 : (step_key(&made, a->key, live, live) ?: state_add(state, &made));
	if (r < 0)
		return r;
	side_effect = watch_side_effect(ctx, state, a);
	rec = &state_find(state, STEP_KEY, a->key)->key;
	snprintf(rec->pending, sizeof(rec->pending), "%s", a->value);
	r = journal_save_or_log(ctx, state);
	if (r < 0)
		return r;

	w = sysctl_write(ctx->root, a->key, a->value);
	settle_record(ctx, state, a->key);
	if (side_effect)
		settle_record(ctx, state, side_effect);
	r = journal_save_or_log(ctx, state);
	if (r < 0)
		return r;
	if (w < 0)
		return key_failed(a, true, w);
	say_set(ctx, a, live);
	return OUTCOME_SET;
}

/* Whether the fragment sets key to value. */
static bool fragment_sets(const struct assignments *fragment, const char *key,
			  const char *value)
{
	const struct assignment *a = sysctld_winner(fragment, key);

	return a && !a->glob && strcmp(a->value, value) == 0;
}

/* A record stays while the fragment sets its key; a list a key widens (the
 * allowed congestion controls), while the fragment sets that key to the
 * value that widens it (bbr, not cubic). */
static bool fragment_keeps(const struct assignments *fragment, const char *key)
{
	for (size_t i = 0; i < fragment->n; i++) {
		const struct assignment *a = &fragment->items[i];
		const struct tunable *t = tunable_find(a->key);

		if (strcmp(a->key, key) == 0 ||
		    (t && t->widens && strcmp(t->widens, key) == 0 &&
		     strcmp(a->value, t->value) == 0))
			return true;
	}
	return false;
}

/* A module the profile loads at boot that is blacklisted: the fragment was
 * rendered without the value that needs it, and the key stays the kernel's. */
static void note_blacklisted(const struct sysinfo *info,
			     const struct assignments *fragment)
{
	for (size_t i = 0; i < n_tunables; i++) {
		const struct tunable *t = &tunables[i];

		if (t->module_at_boot && !fragment_sets(fragment, t->key, t->value) &&
		    sysinfo_module_state(info, t->module) == MODSTATE_BLACKLISTED)
			printf(_("%s is blacklisted in modprobe.d: %s stays the kernel's.\n"),
			       t->module, t->key);
	}
}

/* Reverts every record whose key the fragment does not name (all of them
 * without a fragment), dropping those settled; a record that could not be
 * restored stays for another try. */
static int revert_records(const struct context *ctx, struct state *state,
			  const struct assignments *keep)
{
	size_t kept = 0;
	int ret = 0;

	for (size_t i = 0; i < state->n; i++) {
		const struct step *step = &state->steps[i];
		bool stays = step->kind != STEP_KEY ||
			     (keep && fragment_keeps(keep, step->key.key));
		int r = stays ? 0 : revert_record(ctx, &step->key);

		ret = ret ?: r;
		/* Compacted in place: one pass, however long the record. */
		if (stays || r < 0)
			state->steps[kept++] = *step;
	}
	state->n = kept;
	return ret;
}

/* What apply and revert do first: read their options, refuse to run
 * without root, detect the machine, and leave a kernel that is not to be
 * tuned alone. Returns 1 to go on, or 0 with the command's exit status in
 * *ret_status. */
static int start(const struct command *cmd, struct context *ctx, int argc, char **argv,
		 struct sysinfo *ret_info, int *ret_status)
{
	int r = command_parse_dry_run(cmd, ctx, argc, argv);

	if (r <= 0)
		*ret_status = command_parsed_exit(r);
	else if (refuse_without_root(ctx) || detect_or_log(ctx, ret_info) < 0)
		*ret_status = EXIT_FAILURE;
	else if (kernel_off_limits_say(ctx, ret_info))
		*ret_status = EXIT_SUCCESS;
	else
		return 1;
	return 0;
}

static int do_apply(struct context *ctx, int argc, char **argv)
{
	struct assignments fragment = { 0 }, all = { 0 };
	struct other_files other = { ctx->root, false };
	const struct sysctld_report report = { overrides_report_file, &other };
	struct modules modules = { 0 };
	struct state state = { 0 };
	unsigned counts[4] = { 0 };
	struct sysinfo info;
	int r, ret = 0, lock, bad_lines, status;

	if (!start(&command_apply, ctx, argc, argv, &info, &status))
		return status;

	/* Everything is read before anything changes. A bad line is reported
	 * and the good ones are applied, as systemd-sysctl will at boot. */
	bad_lines = read_fragment_or_log(ctx, &fragment);
	if (bad_lines == -ENOENT)
		printf(_("%s%s is missing: nothing to set.\n"), ctx->root,
		       FRAGMENT_SYSCTL);
	else if (bad_lines < 0)
		return EXIT_FAILURE;
	if (read_modules(ctx, &modules) < 0 || lock_or_log(ctx, &lock) < 0) {
		assignments_free(&fragment);
		return EXIT_FAILURE;
	}
	/* Which file sets each key at boot, read under the lock that a
	 * takeover moving the installer's file away holds too. A file that
	 * cannot be read is named, and sets nothing here. */
	r = sysctld_load_all(ctx->root, &fragment, &all, &report);
	if (r < 0)
		log_error(_("cannot read sysctl.d: %s"), file_strerror(r));
	if (r < 0 || journal_load_or_log(ctx, &state) < 0) {
		state_unlock(ctx->root, lock);
		assignments_free(&fragment);
		assignments_free(&all);
		return EXIT_FAILURE;
	}

	/* The keys of a taken-over file that purge sets again follow the
	 * fragment: it may set more or fewer of them than when it was taken. */
	takeover_note_sets(ctx->root, &state, &fragment);
	ret = load_modules(ctx, &info, &modules);
	note_blacklisted(&info, &fragment);
	for (size_t i = 0; i < fragment.n; i++) {
		r = apply_one(ctx, &info, &all, &fragment.items[i], &state);
		if (r >= 0)
			counts[r]++;
		else
			ret = ret ?: r;
	}

	/* A key we set that the fragment no longer has (bbr after a switch to
	 * cubic) goes back to what it was before. */
	r = revert_records(ctx, &state, &fragment);
	ret = ret ?: r;
	/* The initial windows: told, never a failed apply. */
	initwnd_apply(ctx, &fragment, &state);
	r = journal_save_or_log(ctx, &state);
	ret = ret ?: r;
	state_unlock(ctx->root, lock);
	printf(ctx->dry_run ?
		       ngettext("Would set %u key, %u already in effect, %u skipped",
				"Would set %u keys, %u already in effect, %u skipped",
				counts[OUTCOME_SET]) :
		       ngettext("Set %u key, %u already in effect, %u skipped",
				"Set %u keys, %u already in effect, %u skipped",
				counts[OUTCOME_SET]),
	       counts[OUTCOME_SET], counts[OUTCOME_UNCHANGED], counts[OUTCOME_SKIPPED]);
	if (counts[OUTCOME_OTHER_FILE] > 0)
		printf(ngettext(", %u left to another file", ", %u left to other files",
				counts[OUTCOME_OTHER_FILE]),
		       counts[OUTCOME_OTHER_FILE]);
	/* TRANSLATORS: the end of a sentence. */
	printf("%s", _(".\n"));

	assignments_free(&fragment);
	assignments_free(&all);
	state_free(&state);
	return ret < 0 || bad_lines > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

static int do_revert(struct context *ctx, int argc, char **argv)
{
	struct state state = { 0 };
	struct sysinfo info;
	int r, ret = 0, lock, status;

	if (!start(&command_revert, ctx, argc, argv, &info, &status))
		return status;
	if (lock_or_log(ctx, &lock) < 0)
		return EXIT_FAILURE;
	if (journal_load_or_log(ctx, &state) < 0) {
		state_unlock(ctx->root, lock);
		return EXIT_FAILURE;
	}
	if (!state_find(&state, STEP_KEY, NULL))
		printf(_("No kernel value recorded: nothing to revert.\n"));

	ret = revert_records(ctx, &state, NULL);
	initwnd_revert(ctx, &state);
	r = journal_save_or_log(ctx, &state);
	ret = ret ?: r;
	state_unlock(ctx->root, lock);
	state_free(&state);
	return ret < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

const struct command command_apply = {
	.name = "apply",
	.args = "[--dry-run]",
	.summary = "make the running kernel match the fragments",
	.description = "Make the running kernel match the installed fragments, recording "
		       "each value it replaces.",
	.options = command_dry_run_options,
	.run = do_apply,
};

const struct command command_revert = {
	.name = "revert",
	.args = "[--dry-run]",
	.summary = "put back the values recorded by apply",
	.description = "Put back the values apply recorded, for every key that still has "
		       "the value apply gave it.",
	.options = command_dry_run_options,
	.run = do_revert,
};
