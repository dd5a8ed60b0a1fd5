/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status: per key, what our fragment wants, what the kernel has, and which
 * file sets it at boot; then the module, the qdiscs, and whether the machine
 * still is the one the fragment was made for. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command.h"
#include "i18n.h"
#include "initwnd.h"
#include "journal.h"
#include "log.h"
#include "modulesd.h"
#include "overrides.h"
#include "qdisc.h"
#include "render.h"
#include "rendered.h"
#include "report.h"
#include "sysctld.h"
#include "textfile.h"

/* What the fragments were rendered for, as the maintainer scripts had the
 * helper record it: the CPU count and the congestion choice. Without the
 * record (a tree without one, a machine an older version configured, until
 * its next configure) neither is known; one that cannot be read is reported
 * and counts as none. */
static void status_rendered(const struct context *ctx, struct report *r)
{
	int err;

	err = rendered_read(ctx->root, &r->fragment_cpus, &r->choice);
	if (err < 0 && err != -ENOENT)
		log_warning(_("cannot read %s%s: %s; what the fragment was made for is "
			      "not known"),
			    ctx->root, STATE_RENDERED,
			    err == -EBADMSG ? _("not a record of this version") :
					      file_strerror(err));
	r->have_choice = err == 0;
	if (err < 0) {
		r->fragment_cpus = 0;
		r->choice = CONGESTION_AUTO;
	}
}

/* Whether anything, even a dangling link, stands at path under the root. */
static bool exists_under(const char *root, const char *path)
{
	char full[PATH_MAX_LEN];
	struct stat st;

	return root_path(full, sizeof(full), root, path) == 0 && lstat(full, &st) == 0;
}

/* Whether two files under the root hold the same bytes. */
static bool same_contents(const char *root, const char *a, const char *b)
{
	FILE *fa, *fb;
	bool same = false;
	int ca, cb;

	if (fopen_root(root, a, &fa) < 0)
		return false;
	if (fopen_root(root, b, &fb) == 0) {
		do {
			ca = getc(fa);
			cb = getc(fb);
		} while (ca == cb && ca != EOF);
		same = ca == cb && !ferror(fa) && !ferror(fb);
		fclose(fb);
	}
	fclose(fa);
	return same;
}

/* The fragment as the package installed it, and what ucf left beside a
 * fragment it kept. A base that cannot be read is reported and counts as
 * none. */
static void status_base(const struct context *ctx, struct report *r)
{
	static const char *const suffixes[REPORT_UCF_SUFFIXES] = { ".ucf-dist",
								   ".ucf-new",
								   ".ucf-old" };
	size_t n = 0;
	int err;

	err = sysctld_parse_file(ctx->root, STATE_BASE, false, &r->base, NULL);
	if (err < 0 && err != -ENOENT)
		log_warning(_("cannot read %s%s: %s; edits cannot be told from updates"),
			    ctx->root, STATE_BASE, file_strerror(err));
	r->base_present = err >= 0;
	r->edited = r->base_present &&
		    !same_contents(ctx->root, FRAGMENT_SYSCTL, STATE_BASE);
	for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
		char name[sizeof(FRAGMENT_SYSCTL) + 16];

		snprintf(name, sizeof(name), "%s%s", FRAGMENT_SYSCTL, suffixes[i]);
		if (exists_under(ctx->root, name))
			r->ucf_left[n++] = suffixes[i];
	}
}

/* One key's facts: the file that sets it at boot, its live value, and
 * whether this namespace lets it be written. */
static void status_key(const struct context *ctx, const struct assignments *all,
		       struct key_facts *k)
{
	k->boot = sysctld_winner(all, k->key);
	k->live_error = sysctl_read(ctx->root, k->key, k->live, sizeof(k->live));
	if (k->live_error < 0)
		k->live[0] = '\0';
	else
		k->read_only = sysctl_read_only(ctx->root, k->key);
}

/* The qdiscs of each interface: only on the real root, from the kernel. */
static void status_qdiscs(const struct context *ctx, struct report *r)
{
	if (ctx->root[0] != '\0') {
		r->qdisc_error = -EOPNOTSUPP;
		return;
	}
	r->qdisc_error = qdisc_list(r->links, REPORT_LINKS_MAX, &r->n_links);
}

/* The initial-window program: what the fragment and the setting want, and
 * the pins; like the qdiscs, not queried under --root. */
static void status_initwnd(const struct context *ctx, const struct assignments *fragment,
			   struct report *r)
{
	(void)initwnd_ports_read(ctx->root, &r->initwnd_want);
	r->initwnd_fq = initwnd_fragment_wants(fragment);
	if (ctx->root[0] != '\0') {
		r->initwnd_error = -EOPNOTSUPP;
		return;
	}
	r->initwnd_error =
		initwnd_read(&r->initwnd, r->initwnd_why, sizeof(r->initwnd_why));
}

/* The modules the profile loads at boot, each with its state and whether
 * our modules-load.d fragment lists it. */
static void status_modules(const struct context *ctx, struct report *r)
{
	struct modules listed = { 0 };
	unsigned line = 0;
	int err;

	err = modulesd_parse_file(ctx->root, FRAGMENT_MODULES, &listed, &line);
	if (err < 0 && err != -ENOENT && line == 0)
		log_warning(_("cannot read %s%s: %s, ignoring"), ctx->root,
			    FRAGMENT_MODULES, file_strerror(err));
	if (err < 0)
		listed.n = 0;
	for (size_t i = 0; i < n_tunables; i++) {
		const struct tunable *t = &tunables[i];
		struct module_facts *m;

		if (!t->module_at_boot || r->n_modules == REPORT_MODULES_MAX)
			continue;
		m = &r->modules[r->n_modules++];
		*m = (struct module_facts){ .name = t->module,
					    .state = sysinfo_module_state(&r->info,
									  t->module) };
		for (size_t j = 0; j < listed.n; j++)
			m->listed |= strcmp(listed.names[j], t->module) == 0;
	}
}

struct status_args {
	enum {
		FORMAT_TEXT,
		FORMAT_JSON,
		FORMAT_PROMETHEUS,
	} format;
	const char *textfile; /* --textfile DIR */
};

static const struct command_option status_options[] = {
	{ "json", OPTION_JSON, NULL, "print one JSON object" },
	{ "prometheus", OPTION_PROMETHEUS, NULL,
	  "print metrics in Prometheus' text format" },
	{ "textfile", OPTION_TEXTFILE, "dir",
	  "with --prometheus: write them into dir/wp-panel-nettune.prom, for the node "
	  "exporter" },
	{},
};

static int parse_argv(int argc, char **argv, struct status_args *ret)
{
	int c;

	ret->format = FORMAT_TEXT;
	ret->textfile = NULL;
	while ((c = command_getopt(status_options, false, argc, argv)) != -1)
		switch (c) {
		case OPTION_JSON:
		case OPTION_PROMETHEUS:
			if (ret->format != FORMAT_TEXT) {
				usage_error(&command_status,
					    "--json and --prometheus cannot be combined");
				return -EINVAL;
			}
			ret->format = c == OPTION_JSON ? FORMAT_JSON : FORMAT_PROMETHEUS;
			break;
		case OPTION_TEXTFILE:
			if (optarg[0] != '/') {
				usage_error(&command_status,
					    "--textfile takes an absolute path: %s",
					    optarg);
				return -EINVAL;
			}
			ret->textfile = optarg;
			break;
		default:
			return command_option(&command_status, c, argv);
		}
	if (ret->textfile && ret->format != FORMAT_PROMETHEUS) {
		usage_error(&command_status,
			    "--textfile writes metrics: it goes with --prometheus");
		return -EINVAL;
	}
	return command_no_arguments(&command_status, argc, argv);
}

static int compare_key_then_line(const void *a, const void *b, void *data)
{
	const struct assignments *fragment = data;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(fragment->items[x].key, fragment->items[y].key);

	return c ? c : (x > y) - (x < y);
}

/* systemd-sysctl applies the last assignment of a key a file makes: every
 * earlier one is marked, and reported by none of the outputs. Sorted, so
 * that a long fragment costs n log n. */
static int mark_reassigned(const struct assignments *fragment, bool **ret)
{
	size_t n = fragment->n, *order = calloc(n ? n : 1, sizeof(*order));
	bool *earlier = calloc(n ? n : 1, sizeof(*earlier));

	if (!order || !earlier) {
		free(order);
		free(earlier);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), compare_key_then_line, (void *)fragment);
	for (size_t i = 0; i + 1 < n; i++)
		if (strcmp(fragment->items[order[i]].key,
			   fragment->items[order[i + 1]].key) == 0)
			earlier[order[i]] = true;
	free(order);
	*ret = earlier;
	return 0;
}

/* Reads everything status reports, once. Fails, logged, only when there is
 * nothing to report: the machine cannot be detected, our fragment or the
 * sysctl.d directories cannot be read. */
static int status_collect(const struct context *ctx, struct report *r,
			  struct assignments *fragment, struct assignments *all)
{
	struct other_files other = { ctx->root, false };
	const struct sysctld_report report = { overrides_report_file, &other };
	bool *earlier = NULL;
	int bad_lines, err;

	if (detect_or_log(ctx, &r->info) < 0)
		return -EIO;
	bad_lines = read_fragment_or_log(ctx, fragment);
	if (bad_lines < 0 && bad_lines != -ENOENT)
		return bad_lines;
	r->fragment_present = bad_lines != -ENOENT;
	r->malformed = bad_lines > 0;
	if (r->fragment_present) {
		err = sysctld_load_all(ctx->root, fragment, all, &report);
		if (err < 0) {
			log_error(_("cannot read sysctl.d: %s"), file_strerror(err));
			return err;
		}
	}
	r->boot_unknown = other.unknown;

	status_rendered(ctx, r);
	status_base(ctx, r);
	r->left_alone_recorded = exists_under(ctx->root, STATE_FIRSTBOOT);
	/* The keys read are the fragment's and those of the profile it is
	 * held against, which report.c computes from the facts so far. */
	status_modules(ctx, r);
	report_profile(r);

	r->keys = calloc(fragment->n + r->profile.n_settings + 1, sizeof(*r->keys));
	if (!r->keys || mark_reassigned(fragment, &earlier) < 0) {
		log_error(_("out of memory"));
		return -ENOMEM;
	}
	for (size_t i = 0; i < fragment->n; i++) {
		const struct assignment *a = &fragment->items[i];
		const struct setting *p = profile_find(&r->profile, a->key);
		struct key_facts *k = &r->keys[r->n_keys];

		if (earlier[i])
			continue;
		r->n_keys++;
		*k = (struct key_facts){ .key = a->key,
					 .wanted = a,
					 .profile = p ? p->value : NULL };
		status_key(ctx, all, k);
	}
	for (size_t i = 0; r->fragment_present && i < r->profile.n_settings; i++) {
		const struct setting *p = &r->profile.settings[i];
		struct key_facts *k;

		if (sysctld_find(fragment, p->key))
			continue;
		k = &r->keys[r->n_keys++];
		*k = (struct key_facts){ .key = p->key, .profile = p->value };
		status_key(ctx, all, k);
	}
	free(earlier);
	status_qdiscs(ctx, r);
	status_initwnd(ctx, fragment, r);
	report_decide(r);
	return 0;
}

/* status --prometheus --textfile DIR: the metrics written into DIR, for
 * the node exporter's textfile collector. Exit 0 when they are written,
 * whatever they say (the verdict is in nettune_alarm), and when DIR does
 * not exist; 1 on any other failure, which removes the file: metrics of an
 * earlier run would go on saying all is well. */
static int status_textfile(const struct context *ctx, const char *dir,
			   struct report *report, struct assignments *fragment,
			   struct assignments *all)
{
	char why[PATH_MAX_LEN + 64], *data = NULL;
	int dir_fd, collected, r;
	size_t len = 0;
	FILE *f;

	r = textfile_open(ctx->root, dir, &dir_fd, why, sizeof(why));
	if (r == -ENOENT) {
		log_debug(_("%s%s: absent, no node exporter here: nothing to do"),
			  ctx->root, dir);
		return EXIT_SUCCESS;
	}
	if (r < 0) {
		log_error(_("cannot write metrics into %s%s: %s"), ctx->root, dir,
			  why[0] ? why : strerror(-r));
		return EXIT_FAILURE;
	}
	/* Read as root, written as the directory's owner. */
	collected = status_collect(ctx, report, fragment, all);
	f = open_memstream(&data, &len);
	if (collected == 0 && f)
		report_print_prometheus(report, f);
	if (f && fclose(f) != 0)
		collected = -ENOMEM;
	r = textfile_become_owner(dir_fd);
	if (r < 0) {
		log_error(_("cannot become the owner of %s%s: %s"), ctx->root, dir,
			  strerror(-r));
		goto out;
	}
	if (collected == 0 && data && len > 0) {
		r = textfile_write(dir_fd, data, len);
		if (r == 0)
			goto out;
		log_error(_("cannot write %s%s/%s: %s"), ctx->root, dir, TEXTFILE_NAME,
			  strerror(-r));
	}
	r = -EIO;
	if (textfile_remove(dir_fd) < 0)
		log_error(_("%s%s/%s left in place: cannot remove it"), ctx->root, dir,
			  TEXTFILE_NAME);
	else
		log_error(_("%s%s/%s removed: no metrics rather than stale ones"),
			  ctx->root, dir, TEXTFILE_NAME);
out:
	free(data);
	close(dir_fd);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

static int do_status(struct context *ctx, int argc, char **argv)
{
	static void (*const print[])(const struct report *r, FILE *f) = {
		[FORMAT_TEXT] = report_print_text,
		[FORMAT_JSON] = report_print_json,
		[FORMAT_PROMETHEUS] = report_print_prometheus,
	};
	struct assignments fragment = { 0 }, all = { 0 };
	struct report report = { .root = ctx->root };
	struct status_args args;
	int r, status = EXIT_FAILURE;

	r = parse_argv(argc, argv, &args);
	if (r <= 0)
		return command_parsed_exit(r);
	if (args.textfile) {
		status = status_textfile(ctx, args.textfile, &report, &fragment, &all);
	} else if (status_collect(ctx, &report, &fragment, &all) == 0) {
		status = report_exit_status(report_verdict(&report));
		print[args.format](&report, stdout);
	}
	free(report.keys);
	assignments_free(&report.base);
	assignments_free(&fragment);
	assignments_free(&all);
	return status;
}

const struct command command_status = {
	.name = "status",
	.args = "[--json | --prometheus [--textfile dir]]",
	.summary = "compare the fragment, the profile, the kernel and boot",
	.description =
		"Compare each key of the fragment with the profile, the running kernel "
		"and what systemd-sysctl sets at boot; exit 3 on a state nobody chose.",
	.options = status_options,
	.run = do_status,
};
