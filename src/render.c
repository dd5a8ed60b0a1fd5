/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rendering: a profile in, the text of a fragment out, and the render
 * command that prints it for this machine. The output carries no date or
 * version, so the same machine always gives the same bytes and ucf sees a
 * change only when the profile changes. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "render.h"

static void render_buffers(const struct profile *p, FILE *f)
{
	if (p->buffer_max >= BUFFER_CEILING)
		fprintf(f,
			"# Buffers: at most %" PRIu64
			" MiB, the ceiling for a cloud VM.\n",
			p->buffer_max >> 20);
	else
		fprintf(f,
			"# Buffers: at most %" PRIu64
			" KiB, 1/64 of memory (never below the kernel's default).\n",
			p->buffer_max >> 10);
}

void render_sysctl(const struct profile *p, FILE *f)
{
	fprintf(f,
		"# %s: network tuning for a web server.\n"
		"#\n"
		"# Written by wp-panel-nettune(8) and installed with ucf: your edits are\n"
		"# kept on upgrade. Purging the package removes this file and restores\n"
		"# the values the machine had before. See README.Debian.\n"
		"#\n",
		FRAGMENT_SYSCTL);
	fprintf(f, "# Machine: %u CPU%s, %" PRIu64 " MiB of memory.\n", p->cpus,
		p->cpus == 1 ? "" : "s", p->mem_mib);
	fprintf(f, "# Congestion control: %s\n", p->congestion);
	fprintf(f, "# Why: %s\n", p->why);
	render_buffers(p, f);
	fprintf(f, "%s cpus=%u congestion=%s\n", MARKER, p->cpus,
		congestion_to_string(p->choice));
	fprintf(f,
		"#\n"
		"# A key after \"-\" is set only where it exists: global keys are absent\n"
		"# inside containers.\n");

	for (size_t i = 0; i < p->n_settings; i++) {
		const struct setting *s = &p->settings[i];

		fprintf(f, "\n# %s\n%s%s = %s\n", s->reason, s->optional ? "-" : "",
			s->key, s->value);
	}
}

void render_modules(const struct profile *p, FILE *f)
{
	fprintf(f,
		"# %s: kernel modules for network tuning.\n"
		"# Written by wp-panel-nettune(8) and installed with ucf.\n",
		FRAGMENT_MODULES);
	for (size_t i = 0; i < p->n_modules; i++)
		fprintf(f, "\n# %s\n%s\n", p->module_notes[i], p->modules[i]);
	if (p->n_modules > 0)
		return;
	fprintf(f, "# No module to load: %s\n", p->no_module);
	if (p->no_module_why)
		fprintf(f, "# Why: %s\n", p->why);
}

struct render_args {
	enum congestion congestion;
	bool modules;
};

static const struct command_option render_options[] = {
	{ "congestion", OPTION_CONGESTION, "auto|bbr|cubic",
	  "auto (the default): BBR on 2 or more CPUs where the kernel has it; "
	  "bbr or cubic: that one" },
	{},
};

static const struct command_word render_fragments[] = {
	{ "sysctl", "the fragment for /etc/sysctl.d" },
	{ "modules", "the fragment for /etc/modules-load.d" },
	{},
};

static int render_parse_argv(int argc, char **argv, struct render_args *ret)
{
	int c;

	ret->congestion = CONGESTION_AUTO;
	while ((c = command_getopt(render_options, false, argc, argv)) != -1)
		switch (c) {
		case OPTION_CONGESTION:
			if (congestion_from_string(optarg, &ret->congestion) < 0) {
				usage_error(&command_render,
					    "unknown congestion choice '%s'; expected auto, "
					    "bbr or cubic",
					    optarg);
				return -EINVAL;
			}
			break;
		default:
			return command_option(&command_render, c, argv);
		}
	if (optind >= argc) {
		usage_error(&command_render,
			    "missing fragment; expected sysctl or modules");
		return -EINVAL;
	}
	if (strcmp(argv[optind], "sysctl") != 0 && strcmp(argv[optind], "modules") != 0) {
		usage_error(&command_render,
			    "unknown fragment '%s'; expected sysctl or modules",
			    argv[optind]);
		return -EINVAL;
	}
	ret->modules = strcmp(argv[optind], "modules") == 0;
	optind++;
	return command_no_arguments(&command_render, argc, argv);
}

static int do_render(struct context *ctx, int argc, char **argv)
{
	struct render_args args;
	struct sysinfo info;
	struct profile profile;
	int r;

	r = render_parse_argv(argc, argv, &args);
	if (r <= 0)
		return command_parsed_exit(r);
	if (detect_or_log(ctx, &info) < 0)
		return EXIT_FAILURE;
	profile_compute(&info, args.congestion, &profile);
	if (args.modules)
		render_modules(&profile, stdout);
	else
		render_sysctl(&profile, stdout);
	return EXIT_SUCCESS;
}

const struct command command_render = {
	.name = "render",
	.args = "[--congestion auto|bbr|cubic] sysctl|modules",
	.summary = "print the sysctl.d or modules-load.d fragment for this machine",
	.description = "Print the sysctl.d or modules-load.d fragment computed for this "
		       "machine on standard output.",
	.options = render_options,
	.words = render_fragments,
	.run = do_render,
};
