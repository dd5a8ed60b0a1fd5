/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wp-panel-nettune: tunes the network stack of a web server. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "nettune.h"
#include "render.h"
#include "util.h"

#ifndef VERSION
#define VERSION "0.1.0"
#endif

struct command {
	const char *name;
	const char *args;
	int (*fn)(const struct context *ctx, int argc, char **argv);
	int max_args;
	const char *help;
};

static const struct command commands[] = {
	{ "detect", "", command_detect, 0, "show what this machine is" },
	{ "render", "sysctl|modules", command_render, 1,
	  "print the sysctl.d or modules-load.d fragment for this machine" },
	{ "apply", "", command_apply, 0, "make the running kernel match the fragments" },
	{ "revert", "", command_revert, 0, "put back the values recorded by apply" },
	{ "status", "", command_status, 0, "compare the fragment, the kernel and boot" },
	{ "takeover", "", command_takeover, 0,
	  "move the WP Panel installer's unedited sysctl.d file aside" },
	{ "overrides", "", command_overrides, 0,
	  "list the other files that set our keys at boot" },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: wp-panel-nettune [--root dir] [--dry-run] [-v] command [args]\n\n");
	for (size_t i = 0; i < ELEMENTSOF(commands); i++) {
		char name[32];

		snprintf(name, sizeof(name), "%s %s", commands[i].name, commands[i].args);
		fprintf(f, "  %-22s %s\n", name, commands[i].help);
	}
	fprintf(f, "\n  render takes --congestion auto|bbr|cubic (default auto).\n"
		   "  Exit status: 0 ok, 1 failure, 2 usage, 3 status found drift.\n");
}

int command_detect(const struct context *ctx, int argc, char **argv)
{
	struct sysinfo info;

	if (detect_or_log(ctx, &info) < 0)
		return EXIT_FAILURE;
	printf("cpus: %u\n", info.cpus);
	printf("memory: %" PRIu64 " MiB (MemTotal %" PRIu64 " kB)\n",
	       nominal_memory_mib(info.mem_kib), info.mem_kib);
	printf("kernel: %s\n", info.release);
	printf("bbr: %s\n", modstate_to_string(info.bbr));
	printf("fq: %s\n", modstate_to_string(info.fq));
	printf("environment: %s", environment_to_string(info.environment));
	if (info.environment == ENVIRONMENT_CONTAINER)
		printf(" (%s)", info.container[0] ? info.container : "unknown");
	printf("\nproc-sys-net: %s\n", info.net_writable ? "writable" : "read-only");
	return EXIT_SUCCESS;
}

int command_render(const struct context *ctx, int argc, char **argv)
{
	struct sysinfo info;
	struct profile profile;
	bool modules;

	if (argc != 2 ||
	    (strcmp(argv[1], "sysctl") != 0 && strcmp(argv[1], "modules") != 0)) {
		log_error("render: say which fragment: sysctl or modules");
		return EXIT_USAGE;
	}
	modules = strcmp(argv[1], "modules") == 0;
	if (detect_or_log(ctx, &info) < 0)
		return EXIT_FAILURE;
	profile_compute(&info, ctx->congestion, &profile);
	if (modules)
		render_modules(&profile, stdout);
	else
		render_sysctl(&profile, stdout);
	return EXIT_SUCCESS;
}

/* "/" is the real root; any other root loses its trailing slashes so that
 * root + "/proc/..." is a clean path. (An empty one is refused before: it
 * would quietly mean the real machine.) */
static int parse_root(const char *arg, char *buf, size_t size)
{
	struct stat st;
	size_t len = strlen(arg);

	if (len >= size)
		return -ENAMETOOLONG;
	strcpy(buf, arg);
	while (len > 0 && buf[len - 1] == '/')
		buf[--len] = '\0';
	if (len > 0 && (stat(buf, &st) < 0 || !S_ISDIR(st.st_mode)))
		return -ENOTDIR;
	return 0;
}

/* A closed standard descriptor would be taken by the next open(), and output
 * meant for stdout would land in the record. Each is held by a device:
 * stdout by /dev/full, so that writing to it fails as writing to a closed
 * one would, and is reported. */
static bool hold_standard_fds(void)
{
	bool stdout_closed = false;

	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (fd == 1)
			stdout_closed = true;
		if (open(fd == 1 ? "/dev/full" : "/dev/null",
			 fd == 0 ? O_RDONLY : O_WRONLY) != fd)
			(void)open("/dev/null", O_RDWR);
	}
	return stdout_closed;
}

/* Output that did not reach stdout is a failure of the command, whatever it
 * did otherwise: a script reading it would act on half of it. */
static int finish_output(int status, bool stdout_closed)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	if (stdout_closed)
		log_error("cannot write to standard output: it is closed");
	else
		log_error("cannot write to standard output: %s",
			  errno ? strerror(errno) : "write error");
	return EXIT_FAILURE;
}

static int run(int argc, char **argv);

int main(int argc, char **argv)
{
	bool stdout_closed = hold_standard_fds();

	return finish_output(run(argc, argv), stdout_closed);
}

static int run(int argc, char **argv)
{
	static const struct option options[] = { { "root", required_argument, NULL, 'r' },
						 { "dry-run", no_argument, NULL, 'n' },
						 { "verbose", no_argument, NULL, 'v' },
						 { "congestion", required_argument, NULL,
						   'c' },
						 { "help", no_argument, NULL, 'h' },
						 { "version", no_argument, NULL, 'V' },
						 {} };
	struct context ctx = { .root = "", .congestion = CONGESTION_AUTO };
	static char root[PATH_MAX_LEN];
	const struct command *cmd = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "hv", options, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (optarg[0] == '\0') {
				log_error("--root: empty; give / for this machine");
				return EXIT_USAGE;
			}
			if (parse_root(optarg, root, sizeof(root)) < 0) {
				log_error("--root %s: not a directory", optarg);
				return EXIT_USAGE;
			}
			ctx.root = root;
			break;
		case 'n':
			ctx.dry_run = true;
			break;
		case 'v':
			log_verbose = 1;
			break;
		case 'c':
			if (congestion_from_string(optarg, &ctx.congestion) < 0) {
				log_error("--congestion %s: use auto, bbr or cubic",
					  optarg);
				return EXIT_USAGE;
			}
			ctx.congestion_set = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		case 'V':
			printf("wp-panel-nettune %s\n", VERSION);
			return EXIT_SUCCESS;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		if (strcmp(argv[optind], commands[i].name) == 0)
			cmd = &commands[i];
	if (!cmd) {
		log_error("unknown command '%s'; see --help", argv[optind]);
		return EXIT_USAGE;
	}
	if (argc - optind - 1 > cmd->max_args) {
		log_error("%s: unexpected argument '%s'", cmd->name,
			  argv[optind + 1 + cmd->max_args]);
		return EXIT_USAGE;
	}
	if (ctx.congestion_set && cmd->fn != command_render) {
		log_error("--congestion goes with render only");
		return EXIT_USAGE;
	}
	return cmd->fn(&ctx, argc - optind, argv + optind);
}
