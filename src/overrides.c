/* SPDX-License-Identifier: GPL-2.0-or-later */
/* overrides: the other sysctl.d files that set a key of our fragment at
 * boot, after it, with their values; and the keys of ours that
 * /etc/sysctl.conf names, which Debian 13 no longer reads at boot. Nothing
 * here changes a file: it is the administrator's to decide. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "command.h"
#include "i18n.h"
#include "log.h"
#include "overrides.h"
#include "render.h"
#include "utf8.h"

#define SYSCTL_CONF "/etc/sysctl.conf"

/* The assignment systemd-sysctl applies last for a key of the fragment,
 * when it is another file's; NULL when boot takes the fragment's. A glob
 * never counts: systemd-sysctl skips a key that a file sets explicitly, and
 * the fragment sets each of its keys so. */
const struct assignment *overrides_find(const struct assignments *all, const char *key)
{
	const struct assignment *w = sysctld_winner(all, key);

	return w && !w->glob && strcmp(w->file, FRAGMENT_SYSCTL) != 0 ? w : NULL;
}

/* For each key of the fragment, the other file's assignment that wins. */
size_t overrides_collect(const struct assignments *fragment,
			 const struct assignments *all, struct override *ret, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < fragment->n && n < max; i++) {
		const struct assignment *w = overrides_find(all, fragment->items[i].key);

		if (w)
			ret[n++] = (struct override){ &fragment->items[i], w };
	}
	return n;
}

static void print_overrides(const struct context *ctx, const struct override *o, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t count = 0;
		char file[TEXT_ESCAPED_SIZE(sizeof(o[i].theirs->file))];
		char value[TEXT_ESCAPED_SIZE(VALUE_MAX)],
			ours[TEXT_ESCAPED_SIZE(VALUE_MAX)];
		bool first = true;

		for (size_t j = 0; j < i && first; j++)
			first = strcmp(o[j].theirs->file, o[i].theirs->file) != 0;
		if (!first)
			continue;
		for (size_t j = i; j < n; j++)
			count += strcmp(o[j].theirs->file, o[i].theirs->file) == 0;
		printf(ngettext("%s%s sets %zu key of %s%s at boot, after it:\n",
				"%s%s sets %zu keys of %s%s at boot, after it:\n", count),
		       ctx->root, text_escape(o[i].theirs->file, file, sizeof(file)),
		       count, ctx->root, FRAGMENT_SYSCTL);
		/* The values that differ one a line, then the others on one. */
		for (size_t j = i; j < n; j++)
			if (strcmp(o[j].theirs->file, o[i].theirs->file) == 0 &&
			    strcmp(o[j].theirs->value, o[j].ours->value) != 0)
				printf(_("  %s = %s (ours: %s)\n"), o[j].ours->key,
				       text_escape(o[j].theirs->value, value,
						   sizeof(value)),
				       text_escape(o[j].ours->value, ours, sizeof(ours)));
		count = 0;
		for (size_t j = i; j < n; j++)
			if (strcmp(o[j].theirs->file, o[i].theirs->file) == 0 &&
			    strcmp(o[j].theirs->value, o[j].ours->value) == 0)
				printf("%s%s",
				       count++ == 0 ? _("  the same as ours: ") : ", ",
				       o[j].ours->key);
		if (count > 0)
			printf("\n");
	}
}

/* What systemd-sysctl will make of the other files at boot, where it differs
 * from their text: an entry it cannot read, or that blocks it, the end of a
 * file it stops reading. */
void overrides_report_file(void *userdata, const char *file, unsigned line, int error)
{
	struct other_files *o = userdata;
	const char *root = o->root;

	if (line > 0) {
		log_warning("%s%s:%u: %s", root, file, line, sysctld_strerror(error));
	} else if (error == -EISDIR || error == -ENXIO) {
		log_warning(_("%s%s: %s: systemd-sysctl fails to read it, and it hides any "
			      "file of its name in a later directory"),
			    root, file, strerror(-error));
	} else if (error == -EAGAIN) {
		log_warning(_("%s%s is a FIFO: systemd-sysctl blocks reading it at boot and "
			      "applies nothing"),
			    root, file);
		o->unknown = true;
	} else {
		log_warning(_("cannot read %s%s: %s; what systemd-sysctl sets at boot is "
			      "unknown"),
			    root, file, file_strerror(error));
		o->unknown = true;
	}
}

/* Whether systemd-sysctl reads /etc/sysctl.conf after all: a sysctl.d file
 * linked to it (Debian 12's 99-sysctl.conf) brings it back. */
static bool sysctl_conf_read_at_boot(const char *root, const struct assignments *all)
{
	char path[PATH_MAX_LEN];
	struct stat conf, st;

	if (root_path(path, sizeof(path), root, SYSCTL_CONF) < 0 || stat(path, &conf) < 0)
		return false;
	for (size_t i = 0; i < all->n; i++)
		if ((i == 0 || strcmp(all->items[i].file, all->items[i - 1].file) != 0) &&
		    root_path(path, sizeof(path), root, all->items[i].file) == 0 &&
		    stat(path, &st) == 0 && st.st_dev == conf.st_dev &&
		    st.st_ino == conf.st_ino)
			return true;
	return false;
}

static void note_sysctl_conf(const struct context *ctx,
			     const struct assignments *fragment,
			     const struct assignments *all)
{
	struct assignments conf = { 0 };
	unsigned n = 0;

	if (sysctld_parse_file(ctx->root, SYSCTL_CONF, false, &conf, NULL) < 0)
		return;
	if (!sysctl_conf_read_at_boot(ctx->root, all))
		for (size_t i = 0; i < fragment->n; i++) {
			bool named = false;

			for (size_t j = 0; j < conf.n; j++)
				named = named || strcmp(conf.items[j].key,
							fragment->items[i].key) == 0;
			if (named)
				printf("%s%s", n++ == 0 ? _("note: ") : ", ",
				       fragment->items[i].key);
		}
	if (n > 0)
		printf(_(" in %s%s: Debian 13 does not read that file at boot, only "
			 "'sysctl -p' does\n"),
		       ctx->root, SYSCTL_CONF);
	assignments_free(&conf);
}

static int do_overrides(struct context *ctx, int argc, char **argv)
{
	struct assignments fragment = { 0 }, all = { 0 };
	struct override *o = NULL;
	int r, bad_lines;
	size_t n = 0;

	r = command_parse_none(&command_overrides, argc, argv);
	if (r <= 0)
		return command_parsed_exit(r);
	bad_lines = read_fragment_or_log(ctx, &fragment);
	if (bad_lines == -ENOENT) {
		printf(_("%s%s is missing: nothing to compare.\n"), ctx->root,
		       FRAGMENT_SYSCTL);
		return EXIT_SUCCESS;
	}
	if (bad_lines < 0)
		return EXIT_FAILURE;
	r = sysctld_load_all(ctx->root, &fragment, &all, NULL);
	if (r == 0 && fragment.n > 0 && !(o = calloc(fragment.n, sizeof(*o))))
		r = -ENOMEM;
	if (r < 0) {
		log_error(_("cannot read sysctl.d: %s"), file_strerror(r));
	} else {
		n = overrides_collect(&fragment, &all, o, fragment.n);
		if (n == 0)
			printf(_("No other file sets a key of %s%s at boot.\n"),
			       ctx->root, FRAGMENT_SYSCTL);
		print_overrides(ctx, o, n);
		note_sysctl_conf(ctx, &fragment, &all);
	}
	free(o);
	assignments_free(&fragment);
	assignments_free(&all);
	return r < 0 || bad_lines > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

const struct command command_overrides = {
	.name = "overrides",
	.args = "",
	.summary = "list the other files that set our keys at boot",
	.description = "List the other sysctl.d files that set a key of the fragment at "
		       "boot, and the keys of the fragment /etc/sysctl.conf names.",
	.run = do_overrides,
};
