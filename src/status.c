/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status: per key, what our fragment wants, what the kernel has, and which
 * file sets it at boot; then the module, the qdiscs, and whether the machine
 * still is the one the fragment was made for. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "modulesd.h"
#include "nettune.h"
#include "qdisc.h"
#include "render.h"
#include "sysctld.h"

#define LINKS_MAX 64

/* The CPU count the fragment was rendered for, from its marker line. */
static int fragment_cpus(const char *root, unsigned *ret_cpus)
{
	char line[LINE_MAX_LEN];
	FILE *f;
	int r;

	r = fopen_root(root, FRAGMENT_SYSCTL, &f);
	if (r < 0)
		return r;
	r = -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		char num[16];
		uint64_t cpus;

		if (startswith(line, MARKER) &&
		    sscanf(line + strlen(MARKER), " cpus=%15[0-9]", num) == 1 &&
		    parse_u64(num, &cpus) == 0 && cpus > 0 && cpus < 65536) {
			*ret_cpus = (unsigned)cpus;
			r = 0;
			break;
		}
	}
	fclose(f);
	return r;
}

/* Prints one key's line; returns true when it is not in effect. */
static bool status_key(const struct context *ctx, const struct assignment *a,
		       const struct assignments *all)
{
	const struct assignment *winner = sysctld_winner(all, a->key);
	char live[VALUE_MAX + 1];
	/* Another file with our value keeps it in effect: a note, not drift. */
	const char *note = winner && strcmp(winner->file, a->file) != 0 ?
				   "  (the same value as ours)" :
				   "";
	bool bad = false;
	int r;

	r = sysctl_read(ctx->root, a->key, live, sizeof(live));
	if (r < 0)
		snprintf(live, sizeof(live), "%s",
			 r == -ENOENT ? "(absent)" : "(unreadable)");

	if (winner && winner->value[0] && strcmp(winner->value, a->value) != 0) {
		note = "  OVERRIDDEN";
		bad = true;
	} else if (r == -ENOENT && a->ignore_failure) {
		note = "  (not in this namespace)";
	} else if (r == 0 && strcmp(live, a->value) != 0 && a->ignore_failure &&
		   sysctl_read_only(ctx->root, a->key)) {
		note = "  (read-only in this namespace)";
	} else if (r < 0 || strcmp(live, a->value) != 0) {
		note = "  DRIFT";
		bad = true;
	}
	printf("%-34s %-21s %-21s %s%s\n", a->key, a->value, live,
	       winner ? winner->file : "(none)", note);
	return bad;
}

/* Each interface's qdiscs; qdisc, when the fragment sets a key that reaches
 * only the qdiscs created after it (the default qdisc), is that key's line. */
static void status_qdiscs(const struct context *ctx, const struct assignment *qdisc)
{
	struct qdisc_link links[LINKS_MAX];
	bool stale = false;
	size_t n;
	int r;

	if (ctx->root[0] != '\0') {
		printf("qdiscs: not queried under --root\n");
		return;
	}
	r = qdisc_list(links, LINKS_MAX, &n);
	if (r < 0) {
		printf("qdiscs: cannot list them: %s\n", strerror(-r));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		bool wanted = qdisc && strcmp(links[i].root, qdisc->value) == 0;

		printf("qdisc %s: %s", links[i].ifname,
		       links[i].root[0] ? links[i].root : "?");
		for (size_t j = 0; j < links[i].n_leaves; j++) {
			printf("%s%s", j == 0 ? ", leaves " : " ", links[i].leaves[j]);
			wanted = wanted ||
				 (qdisc && strcmp(links[i].leaves[j], qdisc->value) == 0);
		}
		printf("\n");
		if (qdisc && !wanted && strcmp(links[i].ifname, "lo") != 0 &&
		    strcmp(links[i].root, "noqueue") != 0)
			stale = true;
	}
	if (stale)
		printf("note: %s %s reaches an interface when it is created; the ones\n"
		       "      above keep their qdisc until the next boot (BBR paces itself meanwhile).\n",
		       strrchr(qdisc->key, '.') + 1, qdisc->value);
}

/* The modules the profile loads at boot, and whether our modules-load.d
 * fragment lists one the kernel cannot load; returns true then. */
static bool status_modules(const struct context *ctx, const struct sysinfo *info)
{
	struct modules listed = { 0 };
	unsigned line = 0;
	bool bad = false;

	if (modulesd_parse_file(ctx->root, FRAGMENT_MODULES, &listed, &line) < 0)
		listed.n = 0;
	printf("\n");
	for (size_t i = 0; i < n_tunables; i++) {
		const struct tunable *t = &tunables[i];
		enum modstate state;

		if (!t->module_at_boot)
			continue;
		state = sysinfo_module(ctx->root, info->release, t);
		printf("%s: %s\n", t->module, modstate_to_string(state));
		for (size_t j = 0; j < listed.n; j++)
			if (strcmp(listed.names[j], t->module) == 0 &&
			    !modstate_usable(state)) {
				printf("%s is listed in %s but cannot be loaded\n",
				       t->module, FRAGMENT_MODULES);
				bad = true;
			}
	}
	return bad;
}

struct other_files {
	const struct context *ctx;
	bool unknown;
};

/* What systemd-sysctl will make of the other files at boot, where it differs
 * from their text: an entry it cannot read, or that blocks it, the end of a
 * file it stops reading. */
static void report_other_file(void *userdata, const char *file, unsigned line, int error)
{
	struct other_files *o = userdata;
	const char *root = o->ctx->root;

	if (line > 0) {
		log_warning("%s%s:%u: %s", root, file, line, sysctld_strerror(error));
	} else if (error == -EISDIR || error == -ENXIO) {
		log_warning("%s%s: %s: systemd-sysctl fails to read it, and it hides any "
			    "file of its name in a later directory",
			    root, file, strerror(-error));
	} else if (error == -EAGAIN) {
		log_warning("%s%s is a FIFO: systemd-sysctl blocks reading it at boot and "
			    "applies nothing",
			    root, file);
		o->unknown = true;
	} else {
		log_warning("cannot read %s%s: %s; what systemd-sysctl sets at boot is "
			    "unknown",
			    root, file, file_strerror(error));
		o->unknown = true;
	}
}

static int parse_argv(struct context *ctx _unused_, int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1)
		switch (c) {
		default:
			return command_option(&command_status, c);
		}
	return command_no_arguments(&command_status, argc, argv);
}

static int do_status(struct context *ctx, int argc, char **argv)
{
	struct assignments fragment = { 0 }, all = { 0 };
	struct other_files other = { ctx, false };
	const struct sysctld_report report = { report_other_file, &other };
	const struct assignment *qdisc = NULL;
	unsigned cpus = 0;
	bool bad = false;
	struct sysinfo info;
	int r, bad_lines;

	r = parse_argv(ctx, argc, argv);
	if (r <= 0)
		return command_parsed_exit(r);
	if (detect_or_log(ctx, &info) < 0)
		return EXIT_FAILURE;
	bad_lines = read_fragment_or_log(ctx, &fragment);
	if (bad_lines == -ENOENT) {
		printf("%s%s is missing: the machine is not tuned.\n", ctx->root,
		       FRAGMENT_SYSCTL);
		return EXIT_DRIFT;
	}
	if (bad_lines < 0)
		return EXIT_FAILURE;
	r = sysctld_load_all(ctx->root, &fragment, &all, &report);
	if (r < 0) {
		log_error("cannot read sysctl.d: %s", strerror(-r));
		assignments_free(&fragment);
		return EXIT_FAILURE;
	}

	if (info.environment != ENVIRONMENT_HOST)
		printf("environment: %s%s%s%s: the package leaves this kernel alone\n",
		       environment_to_string(info.environment),
		       info.container[0] ? " (" : "", info.container,
		       info.container[0] ? ")" : "");
	printf("%-34s %-21s %-21s %s\n", "KEY", "WANTED", "LIVE", "SET AT BOOT BY");
	for (size_t i = 0; i < fragment.n; i++) {
		const struct tunable *t = tunable_find(fragment.items[i].key);

		bad |= status_key(ctx, &fragment.items[i], &all);
		if (t && t->new_qdiscs_only)
			qdisc = &fragment.items[i];
	}

	bad |= status_modules(ctx, &info);
	status_qdiscs(ctx, qdisc);

	if (fragment_cpus(ctx->root, &cpus) == 0 && cpus != info.cpus)
		printf("warning: the fragment was made for %u CPU%s, this machine has %u now:\n"
		       "         run 'dpkg-reconfigure wp-panel-nettune' to choose again.\n",
		       cpus, cpus == 1 ? "" : "s", info.cpus);
	bad |= other.unknown;
	if (bad_lines > 0)
		printf("\nThe fragment has lines that are not assignments (exit 1).\n");
	else
		printf("\n%s\n", bad ? "Not all in effect (exit 3)." : "All in effect.");

	assignments_free(&fragment);
	assignments_free(&all);
	return bad_lines > 0 ? EXIT_FAILURE : bad ? EXIT_DRIFT : EXIT_SUCCESS;
}

const struct command command_status = {
	.name = "status",
	.args = "",
	.help = "compare the fragment, the kernel and boot",
	.run = do_status,
};
