/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The commands that only look at the machine: detect prints what it is,
 * render the fragments the profile gives it. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "nettune.h"
#include "render.h"
#include "report.h"
#include "utf8.h"

struct detect_args {
	bool may_tune;
	bool json;
};

static int detect_parse_argv(int argc, char **argv, struct detect_args *ret)
{
	static const struct option options[] = {
		{ "may-tune", no_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c;

	*ret = (struct detect_args){ 0 };
	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1)
		switch (c) {
		case 'm':
			ret->may_tune = true;
			break;
		case 'j':
			ret->json = true;
			break;
		default:
			return command_option(&command_detect, c);
		}
	return command_no_arguments(&command_detect, argc, argv);
}

/* A file detection could not read, and what it assumed instead: one line,
 * for every command that detects. */
void detect_say_skipped(const struct context *ctx, const struct sysinfo *info)
{
	if (info->skipped.error < 0)
		log_warning("cannot read %s%s: %s; %s", ctx->root, info->skipped.file,
			    file_strerror(info->skipped.error), info->skipped.assumed);
}

/* The answer the maintainer scripts ask for, as an exit status and one line:
 * it needs only the environment, not the CPUs or memory a bare chroot may
 * not show. */
static int detect_may_tune(const struct context *ctx)
{
	struct sysinfo info = { 0 };
	char reason[PATH_MAX_LEN + 64];

	sysinfo_detect_environment(ctx->root, &info);
	detect_say_skipped(ctx, &info);
	if (kernel_off_limits(ctx, &info, reason, sizeof(reason))) {
		char shown[TEXT_ESCAPED_SIZE(sizeof(reason))];

		printf("%s\n", text_escape(reason, shown, sizeof(shown)));
		return EXIT_LEAVE_ALONE;
	}
	printf("the running kernel may be tuned\n");
	return EXIT_SUCCESS;
}

static int do_detect(struct context *ctx, int argc, char **argv)
{
	struct detect_args args;
	struct sysinfo info;
	char release[TEXT_ESCAPED_SIZE(sizeof(info.release))];
	char container[TEXT_ESCAPED_SIZE(sizeof(info.container))];
	int r;

	r = detect_parse_argv(argc, argv, &args);
	if (r <= 0)
		return command_parsed_exit(r);
	if (args.may_tune)
		return detect_may_tune(ctx);
	if (detect_or_log(ctx, &info) < 0)
		return EXIT_FAILURE;
	if (args.json) {
		report_print_detect_json(ctx->root, &info, stdout);
		return EXIT_SUCCESS;
	}
	printf("cpus: %u\n", info.cpus);
	printf("memory: %" PRIu64 " MiB (MemTotal %" PRIu64 " kB)\n",
	       nominal_memory_mib(info.mem_kib), info.mem_kib);
	printf("kernel: %s\n", text_escape(info.release, release, sizeof(release)));
	printf("bbr: %s\n", modstate_to_string(info.bbr));
	printf("fq: %s\n", modstate_to_string(info.fq));
	printf("environment: %s", environment_to_string(info.environment));
	if (info.environment == ENVIRONMENT_CONTAINER)
		printf(" (%s)", info.container[0] ? text_escape(info.container, container,
								sizeof(container)) :
						    "unknown");
	printf("\nproc-sys-net: %s\n", info.net_writable ? "writable" : "read-only");
	return EXIT_SUCCESS;
}

const struct command command_detect = {
	.name = "detect",
	.args = "[--may-tune | --json]",
	.help = "show what this machine is",
	.run = do_detect,
};

struct render_args {
	enum congestion congestion;
	bool modules;
};

static int render_parse_argv(int argc, char **argv, struct render_args *ret)
{
	static const struct option options[] = {
		{ "congestion", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c;

	ret->congestion = CONGESTION_AUTO;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1)
		switch (c) {
		case 'c':
			if (congestion_from_string(optarg, &ret->congestion) < 0) {
				log_error("--congestion %s: use auto, bbr or cubic",
					  optarg);
				return -EINVAL;
			}
			break;
		default:
			return command_option(&command_render, c);
		}
	if (optind >= argc || (strcmp(argv[optind], "sysctl") != 0 &&
			       strcmp(argv[optind], "modules") != 0)) {
		log_error("render: say which fragment: sysctl or modules");
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
	.help = "print the sysctl.d or modules-load.d fragment for this machine",
	.run = do_render,
};
