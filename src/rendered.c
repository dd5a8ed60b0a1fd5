/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rendered: what the fragments were last rendered for, the CPU count and
 * the congestion choice (the debconf answer), in a file of the helper's
 * own, STATE_RENDERED. The maintainer scripts run it once ucf has the
 * fragments; status reads the file to tell what the fragment was made for.
 * Two lines, written whole through the state directory's descriptor:
 *
 *	cpus=2
 *	congestion=auto
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include "dirfd.h"
#include "i18n.h"
#include "log.h"
#include "rendered.h"

static const char rendered_name[] = "rendered";

/* Larger than any record this version writes, with room to spare. */
#define RENDERED_SIZE_MAX 64

/* The two lines, each name once; anything else is -EBADMSG. */
static int parse(char *data, unsigned *ret_cpus, enum congestion *ret_choice)
{
	bool have_cpus = false, have_choice = false;
	enum congestion choice;
	char *save = NULL;
	uint64_t cpus = 0;

	for (char *line = strtok_r(data, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (startswith(line, "cpus=") && !have_cpus) {
			if (parse_u64(line + strlen("cpus="), &cpus) < 0 || cpus == 0 ||
			    cpus > 65535)
				return -EBADMSG;
			have_cpus = true;
		} else if (startswith(line, "congestion=") && !have_choice) {
			if (congestion_from_string(line + strlen("congestion="),
						   &choice) < 0)
				return -EBADMSG;
			have_choice = true;
		} else {
			return -EBADMSG;
		}
	}
	if (!have_cpus || !have_choice)
		return -EBADMSG;
	*ret_cpus = (unsigned)cpus;
	*ret_choice = choice;
	return 0;
}

/* The record under the root: 0, -ENOENT where there is none, -EBADMSG when
 * it is not one, or why it cannot be read. Opened through the state
 * directory without following a symlink, a regular file only, never
 * blocking; the outputs are set only on success. */
int rendered_read(const char *root, unsigned *ret_cpus, enum congestion *ret_choice)
{
	char data[RENDERED_SIZE_MAX + 1];
	size_t n;
	int dir_fd, r;

	r = dirfd_open(root, STATE_DIR, false, &dir_fd);
	if (r < 0)
		return r;
	r = dirfd_read_whole(dir_fd, rendered_name, data, RENDERED_SIZE_MAX, &n);
	close(dir_fd);
	if (r < 0)
		return r;
	data[n] = '\0';
	if (strlen(data) != n)
		return -EBADMSG;
	return parse(data, ret_cpus, ret_choice);
}

/* Written whole or not at all, through the state directory opened without
 * following a symlink; what a run killed earlier left is removed first. */
int rendered_write(const char *root, unsigned cpus, enum congestion choice)
{
	char data[RENDERED_SIZE_MAX + 1];
	int len;

	len = snprintf(data, sizeof(data), "cpus=%u\ncongestion=%s\n", cpus,
		       congestion_to_string(choice));
	if (len < 0 || len > RENDERED_SIZE_MAX)
		return -EINVAL;
	return dirfd_write_whole(root, STATE_DIR, rendered_name, data, (size_t)len);
}

static const struct command_option rendered_options[] = {
	{ "congestion", OPTION_CONGESTION, "auto|bbr|cubic",
	  "the choice the fragments were rendered with; auto is the default" },
	{},
};

static int do_rendered(struct context *ctx, int argc, char **argv)
{
	enum congestion choice = CONGESTION_AUTO;
	struct sysinfo info;
	int c, r;

	while ((c = command_getopt(rendered_options, false, argc, argv)) != -1)
		switch (c) {
		case OPTION_CONGESTION:
			if (congestion_from_string(optarg, &choice) < 0) {
				usage_error(&command_rendered,
					    "unknown congestion choice '%s'; expected auto, "
					    "bbr or cubic",
					    optarg);
				return EXIT_USAGE;
			}
			break;
		default:
			return command_parsed_exit(
				command_option(&command_rendered, c, argv));
		}
	if (command_no_arguments(&command_rendered, argc, argv) < 0)
		return EXIT_USAGE;
	if (ctx->root[0] == '\0' && geteuid() != 0) {
		log_error(_("needs root: it writes %s"), STATE_RENDERED);
		return EXIT_FAILURE;
	}
	if (detect_or_log(ctx, &info) < 0)
		return EXIT_FAILURE;
	r = rendered_write(ctx->root, info.cpus, choice);
	if (r < 0) {
		log_error(_("cannot write %s%s: %s"), ctx->root, STATE_RENDERED,
			  strerror(-r));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

const struct command command_rendered = {
	.name = "rendered",
	.args = "[--congestion auto|bbr|cubic]",
	.summary = "record what the fragments were rendered for, for status",
	.description = "Record this machine's CPU count and the congestion choice as what "
		       "the installed fragments were rendered for; status reads them.",
	.options = rendered_options,
	.run = do_rendered,
};
