/* SPDX-License-Identifier: GPL-2.0-or-later */
/* takeover: servers that ran the WP Panel installer's built-in tuning carry
 * its /etc/sysctl.d/99-wp-panel.conf, which sorts after our fragment and so
 * wins every key it names at boot. When that file is byte for byte one the
 * installer writes, it is moved into the state directory with its mode and
 * recorded, for purge to put back. A file that differs was edited by
 * someone: it is left where it is. Any failure before the original is
 * unlinked leaves it intact. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "nettune.h"
#include "render.h"
#include "sysctld.h"
#include "takeover.h"

#define RECORD_HEADER "# wp-panel-nettune taken-over 1"
#define RECORD_COLUMNS "# path\tmode\tvariant"
#define RECORD_TRAILER "# end"
#define COPY_PATH TAKEOVER_DIR "/99-wp-panel.conf"

/* The record purge reads: one "path TAB mode TAB variant" line a file. The
 * fields must survive a shell "read" loop: no tab, no newline. */
int takeover_record_format(const char *path, mode_t mode, const char *variant, char *buf,
			   size_t size)
{
	int n;

	if (path[0] != '/' || strpbrk(path, "\t\n") || variant[0] == '\0' ||
	    strpbrk(variant, "\t\n/"))
		return -EINVAL;
	n = snprintf(buf, size, "%s\n%s\n%s\t%04o\t%s\n%s\n", RECORD_HEADER,
		     RECORD_COLUMNS, path, (unsigned)(mode & 07777), variant,
		     RECORD_TRAILER);
	if (n < 0 || (size_t)n >= size)
		return -ENOBUFS;
	return n;
}

/* Reads a whole regular file without following a symlink (-ELOOP), and
 * without blocking on a FIFO. Anything else is -EINVAL; a file larger than
 * size - 1 bytes is -EFBIG. */
static int read_regular(const char *path, char *buf, size_t size, size_t *ret_len,
			struct stat *ret_st)
{
	struct stat st;
	size_t len = 0;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	else if (st.st_size >= (off_t)size)
		r = -EFBIG;
	while (r == 0) {
		ssize_t n = read(fd, buf + len, size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -errno;
		else if (n == 0)
			break;
		else if ((len += (size_t)n) == size)
			r = -EFBIG;
	}
	close(fd);
	if (r < 0)
		return r;
	*ret_len = len;
	*ret_st = st;
	return 0;
}

static int skip_hidden(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

/* The name of the installer variant whose bytes these are: 1 when one
 * matches, 0 when none does. */
static int find_variant(const char *root, const char *data, size_t len, char *ret_name,
			size_t size)
{
	char dir[PATH_MAX_LEN], path[PATH_MAX_LEN];
	struct dirent **names;
	char *buf;
	int n, found = 0;
	bool nomem;

	if (root_path(dir, sizeof(dir), root, TAKEOVER_VARIANTS) < 0)
		return -ENAMETOOLONG;
	n = scandir(dir, &names, skip_hidden, alphasort);
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	buf = malloc(TAKEOVER_SIZE_MAX);
	nomem = !buf;
	for (int i = 0; i < n; i++) {
		struct stat st;
		size_t vlen;

		if (buf && !found &&
		    snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name) <
			    (int)sizeof(path) &&
		    read_regular(path, buf, TAKEOVER_SIZE_MAX, &vlen, &st) == 0 &&
		    vlen == len && memcmp(buf, data, len) == 0) {
			snprintf(ret_name, size, "%s", names[i]->d_name);
			found = 1;
		}
		free(names[i]);
	}
	free(names);
	free(buf);
	return nomem ? -ENOMEM : found;
}

static void fsync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

/* The copy reads back as the bytes it was made from. */
static int verify_copy(const char *path, const char *data, size_t len)
{
	char *buf = malloc(TAKEOVER_SIZE_MAX);
	struct stat st;
	size_t got;
	int r;

	if (!buf)
		return -ENOMEM;
	r = read_regular(path, buf, TAKEOVER_SIZE_MAX, &got, &st);
	if (r == 0 && (got != len || memcmp(buf, data, len) != 0))
		r = -EIO;
	free(buf);
	return r;
}

/* The path still names the file that was read, unchanged. */
static int still_same(const char *path, const struct stat *was)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return -errno;
	if (st.st_dev != was->st_dev || st.st_ino != was->st_ino ||
	    st.st_size != was->st_size || st.st_mtim.tv_sec != was->st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != was->st_mtim.tv_nsec)
		return -ESTALE;
	return 0;
}

/* Copy, record, verify, and only then unlink the original. On a failure
 * the original stays, and so does a copy an earlier takeover left (it is
 * itself one of the variants); a copy and directories made now are
 * removed. *ret_what says which step failed. */
static int move_aside(const char *root, const char *data, size_t len,
		      const struct stat *st, const char *variant, const char **ret_what)
{
	char dir[PATH_MAX_LEN], copy[PATH_MAX_LEN], record[PATH_MAX_LEN];
	char orig[PATH_MAX_LEN], state[PATH_MAX_LEN], text[PATH_MAX_LEN + 256];
	struct stat old;
	bool had_copy, had_state;
	int r, n;

	if (root_path(dir, sizeof(dir), root, TAKEOVER_DIR) < 0 ||
	    root_path(copy, sizeof(copy), root, COPY_PATH) < 0 ||
	    root_path(record, sizeof(record), root, TAKEOVER_RECORD) < 0 ||
	    root_path(orig, sizeof(orig), root, TAKEOVER_PATH) < 0)
		return -ENAMETOOLONG;
	n = takeover_record_format(TAKEOVER_PATH, st->st_mode, variant, text,
				   sizeof(text));
	if (n < 0)
		return n;

	/* The state directory, parent of the takeover one. */
	strcpy(state, dir);
	*strrchr(state, '/') = '\0';
	had_state = lstat(state, &old) == 0;
	*ret_what = "cannot create " TAKEOVER_DIR;
	r = mkdir_parents(dir, 0755);
	if (r < 0)
		return r;
	had_copy = lstat(copy, &old) == 0;
	*ret_what = "cannot write " COPY_PATH;
	r = write_file_atomic(copy, data, len, st->st_mode & 07777);
	if (r == 0)
		r = verify_copy(copy, data, len);
	if (r == 0) {
		*ret_what = "cannot write " TAKEOVER_RECORD;
		r = write_file_atomic(record, text, (size_t)n, 0644);
	}
	if (r == 0) {
		*ret_what = "it changed while it was copied";
		r = still_same(orig, st);
	}
	if (r == 0) {
		*ret_what = "cannot remove it";
		if (unlink(orig) < 0)
			r = -errno;
	}
	if (r < 0) {
		if (!had_copy) {
			unlink(copy);
			unlink(record);
			rmdir(dir);
		}
		if (!had_state)
			rmdir(state);
		return r;
	}
	*strrchr(orig, '/') = '\0';
	fsync_dir(orig);
	return 0;
}

/* The keys of the taken-over file our fragment does not set: nothing sets
 * them at boot any more. Printed as one note line. */
static void note_orphaned_keys(const struct context *ctx, const char *file)
{
	struct assignments theirs = { 0 }, ours = { 0 };
	unsigned n = 0;

	if (sysctld_parse_file(ctx->root, FRAGMENT_SYSCTL, false, &ours, NULL) < 0 ||
	    sysctld_parse_file(ctx->root, file, false, &theirs, NULL) < 0)
		goto out;
	for (size_t i = 0; i < theirs.n; i++) {
		bool shared = false;

		for (size_t j = 0; j < ours.n; j++)
			shared = shared ||
				 strcmp(theirs.items[i].key, ours.items[j].key) == 0;
		if (shared)
			continue;
		printf("%s%s", n++ == 0 ? "note: not in our fragment: " : ", ",
		       theirs.items[i].key);
	}
	if (n > 0)
		printf("; %s until the next boot, then the kernel's default (purge sets "
		       "the file's values again)\n",
		       n == 1 ? "it keeps its live value" : "they keep their live values");
out:
	assignments_free(&theirs);
	assignments_free(&ours);
}

static int do_takeover(struct context *ctx, int argc, char **argv)
{
	char path[PATH_MAX_LEN], variant[256];
	const char *what = "";
	struct stat st;
	size_t len;
	char *data;
	int r;

	r = command_parse_dry_run(&command_takeover, ctx, argc, argv);
	if (r <= 0)
		return command_parsed_exit(r);
	if (root_path(path, sizeof(path), ctx->root, TAKEOVER_PATH) < 0) {
		log_error("%s%s: %s", ctx->root, TAKEOVER_PATH, strerror(ENAMETOOLONG));
		return EXIT_FAILURE;
	}
	data = malloc(TAKEOVER_SIZE_MAX);
	if (!data) {
		log_error("out of memory");
		return EXIT_FAILURE;
	}
	r = read_regular(path, data, TAKEOVER_SIZE_MAX, &len, &st);
	if (r == 0)
		r = find_variant(ctx->root, data, len, variant, sizeof(variant));
	if (r == -ENOENT) {
		log_debug("%s: absent, nothing to take over", path);
		r = EXIT_SUCCESS;
	} else if (r == -ELOOP || r == -EINVAL || r == -ENXIO) {
		/* A symlink, or a FIFO, directory, device; a socket is ENXIO. */
		printf("%s is not a regular file: left alone\n", path);
		r = EXIT_SUCCESS;
	} else if (r == 0 || r == -EFBIG) {
		printf("%s is not what the WP Panel installer writes (edited?): left alone; "
		       "at boot it overrides our fragment for the keys it sets\n",
		       path);
		r = EXIT_SUCCESS;
	} else if (r < 0) {
		log_error("cannot read %s: %s", path, strerror(-r));
		r = EXIT_FAILURE;
	} else if (ctx->dry_run) {
		printf("would take over %s (the WP Panel installer's %s) into %s%s\n",
		       path, variant, ctx->root, TAKEOVER_DIR);
		note_orphaned_keys(ctx, TAKEOVER_PATH);
		r = EXIT_SUCCESS;
	} else if ((r = move_aside(ctx->root, data, len, &st, variant, &what)) < 0) {
		log_warning("cannot take over %s: %s: %s; left it in place", path, what,
			    strerror(-r));
		r = EXIT_FAILURE;
	} else {
		printf("took over %s (the WP Panel installer's %s): kept in %s%s, "
		       "purge puts it back\n",
		       path, variant, ctx->root, TAKEOVER_DIR);
		note_orphaned_keys(ctx, COPY_PATH);
		r = EXIT_SUCCESS;
	}
	free(data);
	return r;
}

const struct command command_takeover = {
	.name = "takeover",
	.args = "[--dry-run]",
	.help = "move the WP Panel installer's unedited sysctl.d file aside",
	.run = do_takeover,
};
