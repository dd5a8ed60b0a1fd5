/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wp-panel-nettune: tunes the network stack of a web server. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "command.h"
#include "i18n.h"
#include "log.h"
#include "util.h"

#ifndef VERSION
#error "VERSION is the one of debian/changelog, given by the Makefile"
#endif
#ifndef LOCALEDIR
#error "LOCALEDIR is where the translations are installed, given by the Makefile"
#endif

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
	if (len > 0 && stat(buf, &st) < 0)
		return -errno;
	if (len > 0 && !S_ISDIR(st.st_mode))
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
		log_error(_("cannot write to standard output: it is closed"));
	else
		log_error(_("cannot write to standard output: %s"),
			  errno ? strerror(errno) : "write error");
	return EXIT_FAILURE;
}

static int run(int argc, char **argv);

int main(int argc, char **argv)
{
	bool stdout_closed = hold_standard_fds();

	/* The administrator's language (LANG, LC_MESSAGES, LANGUAGE) for the
	 * messages, and the locale's character set for what they print. The
	 * parsers do not follow it: they test bytes, not characters (util.h). */
	setlocale(LC_ALL, "");
	bindtextdomain(TEXTDOMAIN, LOCALEDIR);
	textdomain(TEXTDOMAIN);
	return finish_output(run(argc, argv), stdout_closed);
}

/* The global options: those that change where every command looks (--root)
 * and how much it says (-v), and --help and --version. Options after the
 * command's name are the command's own: getopt stops at the name. */
static int run(int argc, char **argv)
{
	struct context ctx = { .root = "" };
	static char root[PATH_MAX_LEN];
	const struct command *cmd;
	int c, r;

	while ((c = command_getopt(global_options, true, argc, argv)) != -1) {
		switch (c) {
		case OPTION_ROOT:
			if (optarg[0] == '\0') {
				usage_error(NULL,
					    "--root: empty; give / for this machine");
				return EXIT_USAGE;
			}
			r = parse_root(optarg, root, sizeof(root));
			if (r < 0) {
				usage_error(NULL, "--root %s: %s", optarg,
					    r == -ENOTDIR ? "not a directory" :
							    strerror(-r));
				return EXIT_USAGE;
			}
			ctx.root = root;
			break;
		case 'v':
			log_verbose = 1;
			break;
		case 'h':
			usage_print_main(stdout);
			return EXIT_SUCCESS;
		case 'V':
			printf("wp-panel-nettune %s\n", VERSION);
			return EXIT_SUCCESS;
		default:
			usage_bad_option(NULL, global_options, c, argv);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage_error(NULL, "missing command");
		return EXIT_USAGE;
	}
	cmd = command_find(argv[optind]);
	if (!cmd) {
		usage_error(NULL, "unknown command '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	/* The command parses its own argv from the start: argv[0] is its
	 * name, and 0 makes getopt start afresh. From here on every message
	 * names it. */
	log_command = cmd->name;
	argc -= optind;
	argv += optind;
	optind = 0;
	return cmd->run(&ctx, argc, argv);
}
