/* SPDX-License-Identifier: GPL-2.0-or-later */
/* detect: what this machine is, as the profile sees it, or whether its
 * running kernel may be tuned at all. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "i18n.h"
#include "log.h"
#include "offlimits.h"
#include "report.h"
#include "utf8.h"

struct detect_args {
	bool may_tune;
	bool json;
};

static const struct command_option detect_options[] = {
	{ "may-tune", OPTION_MAY_TUNE, NULL,
	  "only say whether the running kernel may be tuned: exit 0, or 4 and why not" },
	{ "json", OPTION_JSON, NULL, "print one JSON object" },
	{},
};

static int detect_parse_argv(int argc, char **argv, struct detect_args *ret)
{
	int c;

	*ret = (struct detect_args){ 0 };
	while ((c = command_getopt(detect_options, false, argc, argv)) != -1)
		switch (c) {
		case OPTION_MAY_TUNE:
			ret->may_tune = true;
			break;
		case OPTION_JSON:
			ret->json = true;
			break;
		default:
			return command_option(&command_detect, c, argv);
		}
	/* --may-tune's answer is its exit status and one line, for the
	 * maintainer scripts; --json describes the machine, and already
	 * holds the environment and whether /proc/sys/net is writable. */
	if (ret->may_tune && ret->json) {
		usage_error(&command_detect, "--may-tune and --json cannot be combined");
		return -EINVAL;
	}
	return command_no_arguments(&command_detect, argc, argv);
}

/* A file detection could not read, and what it assumed instead: one line,
 * for every command that detects. */
void detect_say_skipped(const struct context *ctx, const struct sysinfo *info)
{
	if (info->skipped.error < 0)
		log_warning(_("cannot read %s%s: %s; %s"), ctx->root, info->skipped.file,
			    file_strerror(info->skipped.error), info->skipped.assumed);
}

/* The answer the maintainer scripts ask for, as an exit status and one line,
 * "KIND: REASON", whose first word they branch on and whose rest they show:
 * "tune: ..." with exit 0, or with exit 4 the kind of place the kernel is
 * left alone in. It needs only the environment, not the CPUs or memory a
 * bare chroot may not show. */
static int detect_may_tune(const struct context *ctx)
{
	char line[TEXT_ESCAPED_SIZE(PATH_MAX_LEN + 64) + 32];
	struct sysinfo info = { 0 };

	sysinfo_detect_environment(ctx->root, &info);
	detect_say_skipped(ctx, &info);
	if (kernel_off_limits_line(ctx, &info, line, sizeof(line))) {
		printf("%s\n", line);
		return EXIT_LEAVE_ALONE;
	}
	printf("tune: the running kernel may be tuned\n");
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
	/* MemTotal in whole MiB, as free(1) counts it; the profile sizes the
	 * buffers for the memory the machine was sold with. */
	printf("memory: %" PRIu64 " MiB (MemTotal %" PRIu64
	       " kB; buffers sized for %" PRIu64 " MiB)\n",
	       info.mem_kib / 1024, info.mem_kib, nominal_memory_mib(info.mem_kib));
	printf("kernel: %s\n", text_escape(info.release, release, sizeof(release)));
	for (size_t i = 0; i < info.n_modules; i++)
		printf("%s: %s\n", info.modules[i].name,
		       modstate_to_string(info.modules[i].state));
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
	.summary = "show what this machine is",
	.description =
		"Print what this machine is (CPUs, memory, kernel, the modules the "
		"profile needs, environment), or whether its running kernel may be "
		"tuned.",
	.options = detect_options,
	.run = do_detect,
};
