/* SPDX-License-Identifier: GPL-2.0-or-later */
/* takeover: servers that ran the WP Panel installer's built-in tuning carry
 * its /etc/sysctl.d/99-wp-panel.conf, which sorts after our fragment and so
 * wins every key it names at boot. When that file is byte for byte one the
 * installer writes, it is copied into the state directory and written in the
 * undo journal with its mode and owner, for purge to put back, and only then
 * removed. A file
 * that differs was edited by someone: it is left where it is. One run at a
 * time, under the lock apply and revert take; a run killed at any point
 * leaves the file at its path or its copy recorded. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command.h"
#include "dirfd.h"
#include "i18n.h"
#include "journal.h"
#include "log.h"
#include "render.h"
#include "sysctld.h"
#include "takeover.h"

#define COPY_NAME "taken-over/" TAKEOVER_NAME
#define COPY_PATH TAKEOVER_DIR "/" TAKEOVER_NAME
/* Where the file waits, in its own directory, between being moved off its
 * path and being removed: systemd-sysctl reads only names ending in .conf. */
#define ASIDE_NAME "." TAKEOVER_NAME ".taking-over"
/* Where a file that changed goes when another one took its path meanwhile,
 * the name purge gives a file it cannot put back. */
#define BESIDE_NAME TAKEOVER_NAME ".wp-panel-nettune"

static bool sets_key(const struct assignments *a, const char *key)
{
	for (size_t i = 0; a && i < a->n; i++)
		if (strcmp(a->items[i].key, key) == 0)
			return true;
	return false;
}

/* The assignments of FILE (under the root) whose keys OURS does not set. */
static int keys_not_ours(const char *root, const char *file,
			 const struct assignments *ours, struct assignments *ret)
{
	struct assignments theirs = { 0 };
	size_t kept = 0;
	int r;

	r = sysctld_parse_file(root, file, false, &theirs, NULL);
	if (r < 0) {
		assignments_free(&theirs);
		return r;
	}
	for (size_t i = 0; i < theirs.n; i++)
		if (!sets_key(ours, theirs.items[i].key))
			theirs.items[kept++] = theirs.items[i];
	theirs.n = kept;
	*ret = theirs;
	return 0;
}

/* The keys of the fragment on disk, for takeover_note_sets(); one that
 * cannot be read sets none, and purge then sets every key of a taken-over
 * file again, as a warning says. */
void takeover_fragment_keys(const char *root, struct assignments *ret)
{
	int r = sysctld_parse_file(root, FRAGMENT_SYSCTL, false, ret, NULL);

	if (r < 0 && r != -ENOENT)
		log_warning(
			_("cannot read %s%s: %s; purge sets every key of a taken-over file "
			  "again"),
			root, FRAGMENT_SYSCTL, file_strerror(r));
	if (r < 0)
		assignments_free(ret);
}

/* The journal's "set" steps, made again from each saved file and the
 * fragment: purge sets, once a file is back, the keys it sets that the
 * fragment does not, since nothing set them while it was away. A copy that
 * cannot be read gets none, said in a warning. */
void takeover_note_sets(const char *root, struct state *state,
			const struct assignments *fragment)
{
	for (size_t i = state->n; i-- > 0;)
		if (state->steps[i].kind == STEP_SET)
			state_drop(state, &state->steps[i]);
	for (size_t i = 0; i < state->n; i++) {
		struct assignments theirs = { 0 };
		char saved[PATH_MAX_LEN], path[STATE_PATH_MAX];
		struct step set;
		int r;

		if (state->steps[i].kind != STEP_FILE)
			continue;
		snprintf(path, sizeof(path), "%s", state->steps[i].file.path);
		snprintf(saved, sizeof(saved), "%s/%s", STATE_DIR,
			 state->steps[i].file.saved);
		r = keys_not_ours(root, saved, fragment, &theirs);
		if (r < 0)
			log_warning(_("cannot read %s%s: %s; purge puts it back without "
				      "setting its keys"),
				    root, saved, file_strerror(r));
		for (size_t j = 0; j < theirs.n; j++) {
			char value[VALUE_MAX + 1];

			snprintf(value, sizeof(value), "%s", theirs.items[j].value);
			normalize_space(value);
			if (value[0] &&
			    (!tunable_journaled(theirs.items[j].key) ||
			     step_set(&set, path, theirs.items[j].key, value) < 0 ||
			     state_add(state, &set) < 0))
				log_warning(
					_("%s: %s = %s cannot be written in the journal, "
					  "purge leaves it"),
					saved, theirs.items[j].key, value);
		}
		assignments_free(&theirs);
	}
}

/* Reads a whole regular file from an open descriptor, from its start. Not a
 * regular file is -EINVAL; larger than size - 1 bytes, -EFBIG. */
static int read_fd(int fd, char *buf, size_t size, size_t *ret_len, struct stat *ret_st)
{
	struct stat st;
	size_t len = 0;
	int r = 0;

	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	else if (st.st_size >= (off_t)size)
		r = -EFBIG;
	while (r == 0) {
		ssize_t n = pread(fd, buf + len, size - len, (off_t)len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -errno;
		else if (n == 0)
			break;
		else if ((len += (size_t)n) == size)
			r = -EFBIG;
	}
	/* What was read is what this describes. */
	if (r == 0 && fstat(fd, &st) < 0)
		r = -errno;
	if (r < 0)
		return r;
	*ret_len = len;
	*ret_st = st;
	return 0;
}

/* Opens without following a symlink (-ELOOP), and without blocking on a
 * FIFO. */
static int open_file_at(int dir_fd, const char *name, int *ret_fd)
{
	int fd = openat(dir_fd, name,
			O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

static int read_regular_at(int dir_fd, const char *name, char *buf, size_t size,
			   size_t *ret_len)
{
	struct stat st;
	int fd = -1, r;

	r = open_file_at(dir_fd, name, &fd);
	if (r < 0)
		return r;
	r = read_fd(fd, buf, size, ret_len, &st);
	close(fd);
	return r;
}

static int skip_hidden(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

/* The name of the installer variant whose bytes these are: 1 when one
 * matches, 0 when none does, -ENODATA when there is none to compare with
 * (the directory is absent or empty: a --root tree without the package's
 * data). */
static int find_variant(const char *root, const char *data, size_t len, char *ret_name,
			size_t size)
{
	char dir[PATH_MAX_LEN];
	struct dirent **names;
	char *buf;
	int n, dir_fd, found = 0;
	bool nomem;

	if (root_path(dir, sizeof(dir), root, TAKEOVER_VARIANTS) < 0)
		return -ENAMETOOLONG;
	n = scandir(dir, &names, skip_hidden, alphasort);
	if (n < 0)
		return errno == ENOENT ? -ENODATA : -errno;
	if (n == 0) {
		free(names);
		return -ENODATA;
	}
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	buf = malloc(TAKEOVER_SIZE_MAX);
	nomem = !buf;
	for (int i = 0; i < n; i++) {
		size_t vlen;
		int r = -EBADF;

		if (buf && dir_fd >= 0 && !found)
			r = read_regular_at(dir_fd, names[i]->d_name, buf,
					    TAKEOVER_SIZE_MAX, &vlen);
		if (r == 0 && vlen == len && memcmp(buf, data, len) == 0) {
			snprintf(ret_name, size, "%s", names[i]->d_name);
			found = 1;
		} else if (r < 0 && r != -EBADF) {
			/* A variant we cannot read cannot match: the file stays. */
			log_warning(_("cannot read %s/%s: %s, ignoring"), dir,
				    names[i]->d_name,
				    r == -EINVAL || r == -ELOOP ?
					    _("not a regular file") :
					    file_strerror(r));
		}
		free(names[i]);
	}
	free(names);
	free(buf);
	if (dir_fd >= 0)
		close(dir_fd);
	return nomem ? -ENOMEM : found;
}

/* The installer's file as read: its directory and the descriptor it was
 * read from, what it held and what it was then. */
struct found {
	int etc_fd, fd;
	char *data;
	size_t len;
	struct stat st;
	char variant[256];
	bool aside; /* a run was killed with the file under ASIDE_NAME */
};

static void found_close(struct found *f)
{
	if (f->fd >= 0)
		close(f->fd);
	if (f->etc_fd >= 0)
		close(f->etc_fd);
	f->fd = f->etc_fd = -1;
}

/* 1 when the file is one of the installer's variants, 0 when it is not;
 * -ENOENT when it is absent, -ELOOP, -EINVAL or -ENXIO when it is not a
 * regular file, -EFBIG when too large. A refused /etc/sysctl.d is -ENOTDIR
 * or -ELOOP in *ret_dir_error. */
static int inspect(const char *root, struct found *f, int *ret_dir_error)
{
	struct stat st;
	int r;

	found_close(f);
	*ret_dir_error = dirfd_open(root, TAKEOVER_ETC_DIR, false, &f->etc_fd);
	if (*ret_dir_error < 0) {
		f->etc_fd = -1;
		return *ret_dir_error;
	}
	f->aside = fstatat(f->etc_fd, ASIDE_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0;
	r = open_file_at(f->etc_fd, TAKEOVER_NAME, &f->fd);
	if (r < 0) {
		f->fd = -1;
		return r;
	}
	r = read_fd(f->fd, f->data, TAKEOVER_SIZE_MAX, &f->len, &f->st);
	if (r == 0)
		r = find_variant(root, f->data, f->len, f->variant, sizeof(f->variant));
	return r;
}

/* The same inode, unchanged since it was read; with ctime, unless the file
 * was just renamed, which sets it. */
static bool same_as_read(const struct stat *a, const struct stat *b, bool ctime)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size && a->st_mode == b->st_mode &&
	       a->st_uid == b->st_uid && a->st_gid == b->st_gid &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       (!ctime || (a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
			   a->st_ctim.tv_nsec == b->st_ctim.tv_nsec));
}

/* Moves the file under ASIDE_NAME back to its path, or, when another file
 * took the path, beside it; *ret_name says where it is now. */
static int put_back(int etc_fd, const char **ret_name)
{
	*ret_name = TAKEOVER_NAME;
	if (renameat2(etc_fd, ASIDE_NAME, etc_fd, TAKEOVER_NAME, RENAME_NOREPLACE) < 0) {
		if (errno != EEXIST)
			return -errno;
		*ret_name = BESIDE_NAME;
		if (renameat2(etc_fd, ASIDE_NAME, etc_fd, *ret_name, RENAME_NOREPLACE) < 0)
			*ret_name = ASIDE_NAME;
	}
	(void)fsync(etc_fd);
	return 0;
}

/* The copy and the record written and read back, then the file moved off
 * its path, checked to be what was read, and removed; a file that changed
 * is put back (-ESTALE, *ret_name where it is). Before the move, a failure
 * leaves the original; a copy and a directory made now are removed, a copy
 * an earlier takeover left stays (it is itself one of the variants). */
static int move_aside(const struct context *ctx, struct found *f, struct state *journal,
		      const char **ret_what, const char **ret_name)
{
	const char *root = ctx->root;
	struct step was = { 0 }, taken, *step;
	struct assignments ours = { 0 };
	char *buf = NULL;
	struct stat now;
	size_t got;
	bool had_copy, had_step;
	int dir_fd, r;

	*ret_what = "cannot create " TAKEOVER_DIR;
	r = dirfd_open(root, TAKEOVER_DIR, true, &dir_fd);
	if (r < 0)
		return r;
	takeover_fragment_keys(root, &ours);
	dirfd_remove_temporaries(dir_fd, TAKEOVER_NAME);
	/* And those of the takeover record of the versions before the journal. */
	dirfd_remove_temporaries(dir_fd, "record");
	had_copy = fstatat(dir_fd, TAKEOVER_NAME, &now, AT_SYMLINK_NOFOLLOW) == 0;
	*ret_what = "cannot write " COPY_PATH;
	/* Never a set-id file made by root: the record keeps those bits. */
	r = write_file_atomic_at(dir_fd, TAKEOVER_NAME, f->data, f->len,
				 f->st.st_mode & 0777);
	buf = malloc(TAKEOVER_SIZE_MAX);
	if (r == 0 && !buf)
		r = -ENOMEM;
	if (r == 0)
		r = read_regular_at(dir_fd, TAKEOVER_NAME, buf, TAKEOVER_SIZE_MAX, &got);
	if (r == 0 && (got != f->len || memcmp(buf, f->data, got) != 0))
		r = -EIO;
	/* The journal says where the copy goes back before the file moves. */
	step = state_find(journal, STEP_FILE, TAKEOVER_PATH);
	had_step = step != NULL;
	if (had_step) {
		was = *step;
		state_drop(journal, step);
	}
	if (r == 0) {
		*ret_what = "cannot write " STATE_JOURNAL;
		r = step_file(&taken, TAKEOVER_PATH, COPY_NAME, f->st.st_mode & 07777,
			      f->st.st_uid, f->st.st_gid);
		if (r == 0)
			r = state_add(journal, &taken);
	}
	if (r == 0) {
		takeover_note_sets(root, journal, &ours);
		r = state_save(root, journal);
	}
	if (r == 0) {
		*ret_what = N_("it changed while it was taken over");
		if (fstatat(f->etc_fd, TAKEOVER_NAME, &now, AT_SYMLINK_NOFOLLOW) < 0)
			r = errno == ENOENT ? -ESTALE : -errno;
		else if (!same_as_read(&now, &f->st, true))
			r = -ESTALE;
	}
	if (r == 0) {
		*ret_what = N_("cannot move it aside");
		if (renameat2(f->etc_fd, TAKEOVER_NAME, f->etc_fd, ASIDE_NAME,
			      RENAME_NOREPLACE) < 0)
			r = -errno;
	}
	if (r == 0) {
		/* What was moved is what was read, and still holds its bytes. */
		*ret_what = N_("it changed while it was taken over");
		if (fstatat(f->etc_fd, ASIDE_NAME, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !same_as_read(&now, &f->st, false) ||
		    read_fd(f->fd, buf, TAKEOVER_SIZE_MAX, &got, &now) < 0 ||
		    got != f->len || memcmp(buf, f->data, got) != 0) {
			r = -ESTALE;
			if (put_back(f->etc_fd, ret_name) < 0)
				*ret_name = ASIDE_NAME;
		} else if (unlinkat(f->etc_fd, ASIDE_NAME, 0) < 0) {
			*ret_what = N_("cannot remove it");
			r = -errno;
			(void)put_back(f->etc_fd, ret_name);
		}
	}
	free(buf);
	if (r < 0 && (step = state_find(journal, STEP_FILE, TAKEOVER_PATH))) {
		/* The file is where it was: so is the journal. */
		state_drop(journal, step);
		if (had_step)
			(void)state_add(journal, &was);
		takeover_note_sets(root, journal, &ours);
		if (!state_empty(journal))
			(void)state_save(root, journal);
		else
			(void)state_remove_file(root);
	}
	if (r < 0 && !had_copy) {
		(void)unlinkat(dir_fd, TAKEOVER_NAME, 0);
		(void)fsync(dir_fd);
		(void)dirfd_rmdir(root, TAKEOVER_DIR);
	}
	close(dir_fd);
	assignments_free(&ours);
	if (r == 0)
		(void)fsync(f->etc_fd);
	return r;
}

/* The keys of the taken-over file our fragment does not set: nothing sets
 * them at boot any more. Printed as one note line. */
static void note_orphaned_keys(const struct context *ctx, const char *file)
{
	struct assignments ours = { 0 }, theirs = { 0 };
	const char *failed = FRAGMENT_SYSCTL;
	int r;

	r = sysctld_parse_file(ctx->root, failed, false, &ours, NULL);
	if (r >= 0)
		r = keys_not_ours(ctx->root, failed = file, &ours, &theirs);
	if (r < 0)
		log_warning(_("cannot read %s%s: %s; the keys it sets are not compared"),
			    ctx->root, failed, file_strerror(r));
	for (size_t i = 0; i < theirs.n; i++)
		printf("%s%s", i == 0 ? _("note: not in our fragment: ") : ", ",
		       theirs.items[i].key);
	if (theirs.n > 0)
		printf(ngettext(
			"; it keeps its live value until the next boot, then the "
			"kernel's default (purge sets the file's values again)\n",
			"; they keep their live values until the next boot, then the "
			"kernel's default (purge sets the file's values again)\n",
			theirs.n));
	assignments_free(&theirs);
	assignments_free(&ours);
}

/* Says what became of the file; returns the exit status. */
static int takeover_outcome_say(const struct context *ctx, const char *path,
				const struct found *f, int r, const char *what,
				const char *name)
{
	char why[PATH_MAX_LEN + 64];

	if (r == -ESTALE && strcmp(name, TAKEOVER_NAME) == 0) {
		log_warning(_("%s changed while it was taken over: left in place"), path);
		return EXIT_FAILURE;
	} else if (r == -ESTALE) {
		log_warning(
			_("%s changed while it was taken over, and another file took its "
			  "place: kept as %s%s/%s"),
			path, ctx->root, TAKEOVER_ETC_DIR, name);
		return EXIT_FAILURE;
	} else if (r < 0 && what) {
		if ((r == -ELOOP || r == -ENOTDIR) &&
		    dirfd_refused(ctx->root, TAKEOVER_DIR, why, sizeof(why)))
			log_warning(_("cannot take over %s: %s, refused; left it in place"),
				    path, why);
		else
			log_warning(_("cannot take over %s: %s: %s; left it in place"),
				    path, _(what), file_strerror(r));
		return EXIT_FAILURE;
	} else if (r == -ENOENT) {
		log_debug(_("%s: absent, nothing to take over"), path);
		return EXIT_SUCCESS;
	} else if (r == -ELOOP || r == -EINVAL || r == -ENXIO) {
		/* A symlink, or a FIFO, directory, device; a socket is ENXIO. */
		printf(_("%s is not a regular file: left alone\n"), path);
		return EXIT_SUCCESS;
	} else if (r == -ENODATA) {
		log_error(_("cannot tell whether %s is the WP Panel installer's: no variant of it "
			    "in %s%s/, which the package installs (ROOT TREES in "
			    "wp-panel-nettune(8)); left it in place"),
			  path, ctx->root, TAKEOVER_VARIANTS);
		return EXIT_FAILURE;
	} else if (r == 0 || r == -EFBIG) {
		printf(_("%s is not what the WP Panel installer writes (edited?): left alone; "
			 "at boot it overrides our fragment for the keys it sets\n"),
		       path);
		return EXIT_SUCCESS;
	} else if (r < 0) {
		log_error(_("cannot read %s: %s"), path, file_strerror(r));
		return EXIT_FAILURE;
	} else if (ctx->dry_run) {
		printf(_("would take over %s (the WP Panel installer's %s) into %s%s\n"),
		       path, f->variant, ctx->root, TAKEOVER_DIR);
		note_orphaned_keys(ctx, TAKEOVER_PATH);
		return EXIT_SUCCESS;
	}
	printf(_("took over %s (the WP Panel installer's %s): kept in %s%s, "
		 "purge puts it back\n"),
	       path, f->variant, ctx->root, TAKEOVER_DIR);
	note_orphaned_keys(ctx, COPY_PATH);
	return EXIT_SUCCESS;
}

static int do_takeover(struct context *ctx, int argc, char **argv)
{
	struct found f = { .etc_fd = -1, .fd = -1 };
	struct state journal = { 0 };
	char path[PATH_MAX_LEN], why[PATH_MAX_LEN + 32];
	const char *what = NULL, *name = TAKEOVER_NAME;
	int r, dir_error, lock = -1;

	r = command_parse_dry_run(&command_takeover, ctx, argc, argv);
	if (r <= 0)
		return command_parsed_exit(r);
	if (root_path(path, sizeof(path), ctx->root, TAKEOVER_PATH) < 0) {
		log_error("%s%s: %s", ctx->root, TAKEOVER_PATH, strerror(ENAMETOOLONG));
		return EXIT_FAILURE;
	}
	f.data = malloc(TAKEOVER_SIZE_MAX);
	if (!f.data) {
		log_error(_("out of memory"));
		return EXIT_FAILURE;
	}
	/* A first look decides whether there is anything to do; the look under
	 * the lock decides what. */
	r = inspect(ctx->root, &f, &dir_error);
	if (!ctx->dry_run && (r == 1 || f.aside)) {
		if (lock_or_log(ctx, &lock) < 0) {
			found_close(&f);
			free(f.data);
			return EXIT_FAILURE;
		}
		r = inspect(ctx->root, &f, &dir_error);
		if (f.aside && f.etc_fd >= 0) {
			r = put_back(f.etc_fd, &name);
			if (r == 0 && strcmp(name, TAKEOVER_NAME) != 0)
				log_warning(
					_("%s%s/%s: left by an interrupted takeover, and another "
					  "file took its place: kept as %s%s/%s"),
					ctx->root, TAKEOVER_ETC_DIR, ASIDE_NAME,
					ctx->root, TAKEOVER_ETC_DIR, name);
			name = TAKEOVER_NAME;
			if (r == 0)
				r = inspect(ctx->root, &f, &dir_error);
		}
		if (r == 1 && journal_load_or_log(ctx, &journal) < 0) {
			r = -EBADMSG;
			what = N_("the journal cannot be read");
		} else if (r == 1 &&
			   (r = move_aside(ctx, &f, &journal, &what, &name)) == 0) {
			r = 1;
		}
	}
	if (dir_error < 0 && dir_error != -ENOENT) {
		if ((r == -ELOOP || r == -ENOTDIR) &&
		    dirfd_refused(ctx->root, TAKEOVER_ETC_DIR, why, sizeof(why)))
			log_error(_("cannot take over %s: %s, refused"), path, why);
		else
			log_error(_("cannot read %s%s: %s"), ctx->root, TAKEOVER_ETC_DIR,
				  file_strerror(r));
		r = EXIT_FAILURE;
	} else {
		r = takeover_outcome_say(ctx, path, &f, r, what, name);
	}
	state_unlock(ctx->root, lock);
	state_free(&journal);
	found_close(&f);
	free(f.data);
	return r;
}

const struct command command_takeover = {
	.name = "takeover",
	.args = "[--dry-run]",
	.summary = "move the WP Panel installer's unedited sysctl.d file aside",
	.description =
		"Move the WP Panel installer's /etc/sysctl.d/99-wp-panel.conf aside "
		"when it is unedited, so that it no longer overrides the fragment "
		"at boot.",
	.options = command_dry_run_options,
	.run = do_takeover,
};
