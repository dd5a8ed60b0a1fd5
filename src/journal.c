/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The undo journal under /var/lib/wp-panel-nettune: every step the package's
 * purge takes to put the machine back as it was, written by the helper while
 * it is here and replayed by a POSIX shell loop once it is gone. So the
 * format is plain: a header, one step a line, tab-separated fields, none of
 * them empty, and a trailer whose absence shows a truncated file:
 *
 *   key  KEY ORIGINAL APPLIED [PENDING]  put ORIGINAL back if KEY holds
 *                                        APPLIED (or PENDING, being written)
 *   file PATH MODE UID GID SAVED         put the copy STATE_DIR/SAVED back
 *                                        at PATH with that mode and owner
 *   set  KEY VALUE                       then set KEY, which that file sets
 *                                        and the fragment does not
 *   added PATH SAVED new-dir|dir-existed remove PATH while it is the copy
 *                                        STATE_DIR/SAVED (and its directory,
 *                                        once empty, if the helper made it)
 *   windows IFACE CWND RWND              take the initial windows off each
 *                                        default route through IFACE that
 *                                        has exactly these
 *
 * The records of earlier versions (0.1.0's "state 1", the "state 2" of the
 * builds after it, and their "taken-over" record of a file taken over) are
 * read while no journal exists, and removed once the journal is on disk.
 *
 * Every file of the state directory is opened under a descriptor of that
 * directory, without following a symlink in its place: a link planted there
 * must not send the journal, or the lock, somewhere else. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dirfd.h"
#include "journal.h"

#define JOURNAL_HEADER "# wp-panel-nettune journal 1"
#define JOURNAL_COLUMNS                               \
	"# key\tKEY\tORIGINAL\tAPPLIED[\tPENDING]\n"  \
	"# file\tPATH\tMODE\tUID\tGID\tSAVED\n"       \
	"# set\tKEY\tVALUE\n"                         \
	"# added\tPATH\tSAVED\tnew-dir|dir-existed\n" \
	"# windows\tIFACE\tCWND\tRWND"
#define LEGACY_HEADER "# wp-panel-nettune state 2"
#define LEGACY_HEADER_V1 "# wp-panel-nettune state 1"
#define LEGACY_TAKEOVER_HEADER "# wp-panel-nettune taken-over 2"
#define LEGACY_TAKEOVER_HEADER_V1 "# wp-panel-nettune taken-over 1"
#define TRAILER "# end"
#define SAVED_DIR "taken-over/"
#define ETC_DIR "/etc/sysctl.d/"
#define ADDED_DIR "added/"
#define NETWORKD_DIR "/etc/systemd/network/"
#define NETWORKD_DROPIN ".network.d/50-wp-panel-nettune.conf"

static const char journal_name[] = "journal";
static const char legacy_record_name[] = "state";
/* In the directory of taken-over files, opened on its own: a symlink in its
 * place is not followed. */
static const char legacy_takeover_dir[] = "taken-over";
static const char legacy_takeover_name[] = "record";
static const char lock_name[] = "lock";

static int state_dir_open(const char *root, bool create, int *ret_fd)
{
	return dirfd_open(root, STATE_DIR, create, ret_fd);
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Locked, and still the lock file of the state directory: a run that removed
 * the directory after its revert may have unlinked the file we waited on. */
static bool lock_is_current(const char *root, int dir_fd, int fd)
{
	struct stat held, linked, dir, now;
	int now_fd;
	bool current;

	if (fstat(fd, &held) < 0 ||
	    fstatat(dir_fd, lock_name, &linked, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !same_file(&held, &linked) || fstat(dir_fd, &dir) < 0 ||
	    state_dir_open(root, false, &now_fd) < 0)
		return false;
	current = fstat(now_fd, &now) == 0 && same_file(&dir, &now);
	close(now_fd);
	return current;
}

static int lock_try(const char *root, int *ret_fd)
{
	struct stat st;
	int dir_fd, fd, r;

	/* A run unlocking may remove the directory between our steps. */
	r = state_dir_open(root, true, &dir_fd);
	if (r < 0)
		return r == -ENOENT ? -ESTALE : r;
	fd = openat(dir_fd, lock_name,
		    O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = errno == ENOENT ? -ESTALE : -errno;
	} else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = -EBADFD;
	} else if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EAGAIN : -errno;
	} else if (!lock_is_current(root, dir_fd, fd)) {
		r = -ESTALE;
	} else {
		dirfd_remove_temporaries(dir_fd, journal_name);
		/* And those a run of a version before the journal left. */
		dirfd_remove_temporaries(dir_fd, legacy_record_name);
		*ret_fd = fd;
		fd = -1;
		r = 0;
	}
	if (fd >= 0)
		close(fd);
	close(dir_fd);
	return r;
}

/* One writer at a time: an exclusive flock on the lock file of the state
 * directory, which the package's purge takes too. Another run holding it is
 * waited for, up to timeout_sec; then -EAGAIN. */
int state_lock(const char *root, unsigned timeout_sec, int *ret_fd)
{
	struct timespec start, now;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		r = lock_try(root, ret_fd);
		if (r != -EAGAIN && r != -ESTALE)
			return r;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= (time_t)timeout_sec)
			return -EAGAIN;
		if (r == -EAGAIN)
			nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	}
}

/* The lock file goes with the lock, and the directory if it is empty, so
 * that a run leaves no trace but its record; a run waiting on the file sees
 * it unlinked and starts over. */
void state_unlock(const char *root, int fd)
{
	int dir_fd;

	if (fd < 0)
		return;
	if (state_dir_open(root, false, &dir_fd) == 0) {
		(void)unlinkat(dir_fd, lock_name, 0);
		close(dir_fd);
	}
	(void)dirfd_rmdir(root, STATE_DIR);
	close(fd);
}

/* Splits a line at its tabs into at most max fields; -EBADMSG when it has
 * more, or an empty one. */
static int split_fields(char *line, char **field, size_t max, size_t *ret_n)
{
	size_t n = 1;

	field[0] = line;
	for (char *p = line; *p; p++)
		if (*p == '\t') {
			if (n == max)
				return -EBADMSG;
			*p = '\0';
			field[n++] = p + 1;
		}
	for (size_t i = 0; i < n; i++)
		if (field[i][0] == '\0')
			return -EBADMSG;
	*ret_n = n;
	return 0;
}

static int add_record(struct state *s, char **field, size_t n)
{
	int r;

	if (n < 3 || n > 4 || !sysctl_key_valid(field[0]))
		return -EBADMSG;
	for (size_t i = 1; i < n; i++)
		if (strlen(field[i]) > VALUE_MAX)
			return -EBADMSG;
	r = state_add(s, field[0], field[1], field[2]);
	if (r == 0)
		strcpy(s->items[s->n - 1].pending, n == 4 ? field[3] : "");
	return r == -ENOMEM ? r : r < 0 ? -EBADMSG : 0;
}

static int parse_id(const char *s, unsigned *ret)
{
	uint64_t v;

	if (strlen(s) > 10 || parse_u64(s, &v) < 0 || v > UINT32_MAX - 1)
		return -EBADMSG;
	*ret = (unsigned)v;
	return 0;
}

static int parse_mode(const char *s, unsigned *ret)
{
	if (strlen(s) != 4 || strspn(s, "01234567") != 4)
		return -EBADMSG;
	*ret = (unsigned)strtoul(s, NULL, 8);
	return 0;
}

static int add_file_fields(struct state *s, const char *path, const char *mode,
			   const char *uid, const char *gid, const char *saved)
{
	unsigned m, u = 0, g = 0;
	int r;

	if (parse_mode(mode, &m) < 0 || (uid && parse_id(uid, &u) < 0) ||
	    (gid && parse_id(gid, &g) < 0))
		return -EBADMSG;
	r = state_add_file(s, path, saved, m, u, g);
	return r == -ENOMEM ? r : r < 0 ? -EBADMSG : 0;
}

/* One line of the journal, without its newline. */
static int parse_step(struct state *s, char *line)
{
	char *field[6];
	size_t n;
	int r;

	if (split_fields(line, field, ELEMENTSOF(field), &n) < 0)
		return -EBADMSG;
	if (strcmp(field[0], "key") == 0)
		return add_record(s, field + 1, n - 1);
	if (strcmp(field[0], "file") == 0 && n == 6)
		return add_file_fields(s, field[1], field[2], field[3], field[4],
				       field[5]);
	if (strcmp(field[0], "added") == 0 && n == 4 &&
	    (strcmp(field[3], "new-dir") == 0 || strcmp(field[3], "dir-existed") == 0)) {
		r = state_add_added(s, field[1], field[2], field[3][0] == 'n');
		return r == -ENOMEM ? r : r < 0 ? -EBADMSG : 0;
	}
	if (strcmp(field[0], "windows") == 0 && n == 4) {
		unsigned cwnd, rwnd;

		if (parse_id(field[2], &cwnd) < 0 || parse_id(field[3], &rwnd) < 0)
			return -EBADMSG;
		r = state_add_windows(s, field[1], cwnd, rwnd);
		return r == -ENOMEM ? r : r < 0 ? -EBADMSG : 0;
	}
	if (strcmp(field[0], "set") == 0 && n == 3 && s->n_files > 0 &&
	    sysctl_key_valid(field[1]) && strlen(field[2]) <= VALUE_MAX) {
		r = state_add_set(s, s->n_files - 1, field[1], field[2]);
		return r == -ENOMEM ? r : r < 0 ? -EBADMSG : 0;
	}
	return -EBADMSG;
}

/* A line of 0.1.0's record, or of the one after it: key, original, applied
 * and, in version 2, pending. */
static int parse_legacy_record(struct state *s, char *line)
{
	char *field[4];
	size_t n;

	if (split_fields(line, field, ELEMENTSOF(field), &n) < 0)
		return -EBADMSG;
	return add_record(s, field, n);
}

/* A line of the takeover record before the journal: path, mode, the
 * installer's variant and, in version 2, uid and gid. The copy is in
 * taken-over/ under the file's own name. Version 1 kept no owner: the
 * installer runs as root, and so its file is root's. */
static int parse_legacy_takeover(struct state *s, char *line)
{
	char *field[5], saved[STATE_PATH_MAX];
	const char *name;
	size_t n;

	if (split_fields(line, field, ELEMENTSOF(field), &n) < 0 || (n != 3 && n != 5) ||
	    !startswith(field[0], ETC_DIR))
		return -EBADMSG;
	name = field[0] + strlen(ETC_DIR);
	if (!state_name_valid(name))
		return -EBADMSG;
	snprintf(saved, sizeof(saved), SAVED_DIR "%s", name);
	return add_file_fields(s, field[0], field[1], n == 5 ? field[3] : NULL,
			       n == 5 ? field[4] : NULL, saved);
}

static int compare_keys(const void *a, const void *b)
{
	const struct record *x = *(const struct record *const *)a;
	const struct record *y = *(const struct record *const *)b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x > y) - (x < y);
}

/* The index of the second record of a key named twice, or s->n: sorted, so
 * that a long journal costs n log n, not n squared. */
static size_t find_duplicate(const struct state *s)
{
	const struct record **sorted;
	size_t dup = s->n;

	if (s->n < 2)
		return dup;
	sorted = calloc(s->n, sizeof(*sorted));
	if (!sorted)
		return dup;
	for (size_t i = 0; i < s->n; i++)
		sorted[i] = &s->items[i];
	qsort(sorted, s->n, sizeof(*sorted), compare_keys);
	for (size_t i = 1; i < s->n; i++) {
		size_t at = (size_t)(sorted[i] - s->items);

		if (strcmp(sorted[i - 1]->key, sorted[i]->key) == 0 && at < dup)
			dup = at;
	}
	free(sorted);
	return dup;
}

/* One line with its newline, at most size - 1 bytes (-EFBIG beyond); 0 at
 * the end of the file. */
static int read_bounded_line(FILE *f, char *buf, size_t size, size_t *ret_len)
{
	size_t len = 0;
	int c, r = 0;

	while ((c = getc(f)) != EOF) {
		if (len == size - 1) {
			r = -EFBIG;
			break;
		}
		buf[len++] = (char)c;
		if (c == '\n')
			break;
	}
	if (r == 0 && ferror(f))
		r = -EIO;
	buf[len] = '\0';
	*ret_len = len;
	return r;
}

typedef int parse_line_fn(struct state *s, char *line);

/* Reads a file of one of the formats: a header among headers, lines that
 * parse_line takes, and the trailer. A corrupt file, a line too long among
 * them, is -EBADMSG with the line in *ret_line (0 for a missing header or
 * trailer), and nothing is kept. A stream longer than STATE_SIZE_MAX is
 * -EFBIG. */
static int load_stream(FILE *f, const char *const *headers, parse_line_fn *parse_line,
		       struct state *ret, unsigned *ret_line)
{
	struct state s = { 0 };
	char line[STATE_LINE_MAX + 2];
	unsigned *lines = NULL;
	bool ended = false;
	size_t len, total = 0;
	unsigned n = 0;
	int r = 0;

	while (r == 0) {
		size_t had = s.n;

		r = read_bounded_line(f, line, sizeof(line), &len);
		if (r == 0 && len == 0)
			break;
		n++;
		total += len;
		if (r == -EIO)
			break;
		if (total > STATE_SIZE_MAX) {
			r = -EFBIG;
			n = 0;
			break;
		}
		if (r < 0 || line[len - 1] != '\n' || len != strlen(line) || ended) {
			r = -EBADMSG;
			break;
		}
		line[len - 1] = '\0';
		if (n == 1) {
			r = -EBADMSG;
			for (size_t i = 0; headers[i]; i++)
				if (strcmp(line, headers[i]) == 0)
					r = 0;
		} else if (strcmp(line, TRAILER) == 0) {
			ended = true;
		} else if (line[0] == '#') {
			continue;
		} else if ((r = parse_line(&s, line)) == 0 && s.n > had) {
			unsigned *grown = reallocarray(lines, s.cap, sizeof(*lines));

			if (!grown) {
				r = -ENOMEM;
				break;
			}
			lines = grown;
			lines[s.n - 1] = n;
		}
	}
	if (r == 0 && !ended) {
		r = -EBADMSG;
		n = 0;
	}
	if (r == 0) {
		size_t dup = find_duplicate(&s);

		if (dup < s.n) {
			r = -EBADMSG;
			n = lines[dup];
		}
	}
	free(lines);
	if (r < 0) {
		state_free(&s);
		*ret_line = n;
		return r;
	}
	*ret = s;
	return 0;
}

int state_load_stream(FILE *f, struct state *ret, unsigned *ret_line)
{
	static const char *const headers[] = { JOURNAL_HEADER, NULL };

	return load_stream(f, headers, parse_step, ret, ret_line);
}

int state_load_legacy_stream(FILE *f, struct state *ret, unsigned *ret_line)
{
	static const char *const headers[] = { LEGACY_HEADER, LEGACY_HEADER_V1, NULL };

	return load_stream(f, headers, parse_legacy_record, ret, ret_line);
}

int state_load_legacy_takeover_stream(FILE *f, struct state *ret, unsigned *ret_line)
{
	static const char *const headers[] = { LEGACY_TAKEOVER_HEADER,
					       LEGACY_TAKEOVER_HEADER_V1, NULL };

	return load_stream(f, headers, parse_legacy_takeover, ret, ret_line);
}

/* Opens NAME of the state directory to read: -ENOENT when it is absent;
 * anything but a regular file is refused without being read, so that a FIFO
 * in its place cannot block the run, and so is one larger than a journal
 * can be (-EFBIG). */
static int open_state_file(int dir_fd, const char *name, FILE **ret)
{
	struct stat st;
	int fd = -1, r;

	r = keep_if_regular(openat(dir_fd, name,
				   O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC),
			    &fd);
	if (r == 0) {
		if (fstat(fd, &st) < 0)
			r = -errno;
		else if (st.st_size > STATE_SIZE_MAX)
			r = -EFBIG;
		if (r < 0)
			close(fd);
	}
	return r < 0 ? r : fdopen_or_close(fd, ret);
}

typedef int load_stream_fn(FILE *f, struct state *ret, unsigned *ret_line);

static int load_file(int dir_fd, const char *name, load_stream_fn *load,
		     struct state *ret, unsigned *ret_line)
{
	FILE *f;
	int r;

	*ret_line = 0;
	r = open_state_file(dir_fd, name, &f);
	if (r < 0)
		return r;
	r = load(f, ret, ret_line);
	fclose(f);
	return r;
}

/* The takeover record of an earlier version, in its own directory. */
static int load_legacy_takeover(int dir_fd, struct state *ret, unsigned *ret_line)
{
	int sub_fd, r;

	*ret_line = 0;
	sub_fd = openat(dir_fd, legacy_takeover_dir,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub_fd < 0)
		/* Not a directory: takeover refuses it, and it holds no record. */
		return errno == ENOTDIR || errno == ELOOP ? -ENOENT : -errno;
	r = load_file(sub_fd, legacy_takeover_name, state_load_legacy_takeover_stream,
		      ret, ret_line);
	close(sub_fd);
	return r;
}

static int unlink_legacy_takeover(int dir_fd)
{
	int sub_fd, r = 0;

	sub_fd = openat(dir_fd, legacy_takeover_dir,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub_fd < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? 0 : -errno;
	if (unlinkat(sub_fd, legacy_takeover_name, 0) < 0 && errno != ENOENT)
		r = -errno;
	else
		(void)fsync(sub_fd);
	close(sub_fd);
	return r;
}

static void move_files(struct state *to, struct state *from)
{
	to->files = from->files;
	to->n_files = from->n_files;
	to->cap_files = from->cap_files;
	from->files = NULL;
	from->n_files = from->cap_files = 0;
}

/* The journal; without one, the records of an earlier version, marked in
 * ret->legacy; neither is an empty state. A file that cannot be read, or is
 * corrupt, is named in *ret_path, with the line in *ret_line. */
int state_load(const char *root, struct state *ret, const char **ret_path,
	       unsigned *ret_line)
{
	struct state s = { 0 }, taken = { 0 };
	int dir_fd, r;

	*ret_path = STATE_JOURNAL;
	*ret_line = 0;
	r = state_dir_open(root, false, &dir_fd);
	if (r == -ENOENT) {
		*ret = s;
		return 0;
	}
	if (r < 0)
		return r;
	r = load_file(dir_fd, journal_name, state_load_stream, &s, ret_line);
	if (r == -ENOENT) {
		*ret_path = STATE_LEGACY_RECORD;
		r = load_file(dir_fd, legacy_record_name, state_load_legacy_stream, &s,
			      ret_line);
		if (r == 0)
			s.legacy |= STATE_FROM_LEGACY_RECORD;
		if (r == 0 || r == -ENOENT) {
			*ret_path = STATE_LEGACY_TAKEOVER;
			r = load_legacy_takeover(dir_fd, &taken, ret_line);
		}
		if (r == 0) {
			move_files(&s, &taken);
			s.legacy |= STATE_FROM_LEGACY_TAKEOVER;
		}
		if (r == -ENOENT)
			r = 0;
	}
	close(dir_fd);
	state_free(&taken);
	if (r < 0) {
		state_free(&s);
		return r;
	}
	*ret = s;
	return 0;
}

int state_write_stream(FILE *f, const struct state *state)
{
	fprintf(f, "%s\n%s\n", JOURNAL_HEADER, JOURNAL_COLUMNS);
	for (size_t i = 0; i < state->n; i++) {
		const struct record *rec = &state->items[i];

		fprintf(f, "key\t%s\t%s\t%s%s%s\n", rec->key, rec->original, rec->applied,
			rec->pending[0] ? "\t" : "", rec->pending);
	}
	for (size_t i = 0; i < state->n_files; i++) {
		const struct undo_file *file = &state->files[i];

		fprintf(f, "file\t%s\t%04o\t%u\t%u\t%s\n", file->path, file->mode,
			file->uid, file->gid, file->saved);
		for (size_t j = 0; j < state->n_sets; j++)
			if (state->sets[j].file == i)
				fprintf(f, "set\t%s\t%s\n", state->sets[j].key,
					state->sets[j].value);
	}
	for (size_t i = 0; i < state->n_added; i++)
		fprintf(f, "added\t%s\t%s\t%s\n", state->added[i].path,
			state->added[i].saved,
			state->added[i].new_dir ? "new-dir" : "dir-existed");
	for (size_t i = 0; i < state->n_windows; i++)
		fprintf(f, "windows\t%s\t%u\t%u\n", state->windows[i].ifname,
			state->windows[i].cwnd, state->windows[i].rwnd);
	fprintf(f, "%s\n", TRAILER);
	return ferror(f) ? -EIO : 0;
}

/* The journal on disk before anything it replaces goes: an earlier
 * version's records are removed only once it is. A run stopped between
 * the two leaves both, and the journal is what counts. */
int state_save(const char *root, struct state *state)
{
	char *data = NULL;
	size_t size = 0;
	int dir_fd, r;
	FILE *f;

	f = open_memstream(&data, &size);
	if (!f)
		return -ENOMEM;
	r = state_write_stream(f, state);
	if (fclose(f) != 0 || r < 0) {
		free(data);
		return -ENOMEM;
	}
	/* Never one the reader would refuse: a record an earlier version could
	 * not have written, converted, grows by a word a line. */
	if (size > STATE_SIZE_MAX) {
		free(data);
		return -EFBIG;
	}
	r = state_dir_open(root, true, &dir_fd);
	if (r == 0) {
		r = write_file_atomic_at(dir_fd, journal_name, data, size, 0644);
		/* Also what a run stopped right here left behind. */
		if (r == 0) {
			if (unlinkat(dir_fd, legacy_record_name, 0) < 0 && errno != ENOENT)
				r = -errno;
			r = r ?: unlink_legacy_takeover(dir_fd);
			if (state->legacy)
				(void)fsync(dir_fd);
			if (r == 0)
				state->legacy = 0;
		}
		close(dir_fd);
	}
	free(data);
	return r;
}

/* Removes the journal and any earlier record, and the directory when
 * nothing else is in it but the lock file, which goes when the lock is
 * released. */
int state_remove_file(const char *root)
{
	const char *const names[] = { journal_name, legacy_record_name };
	int dir_fd, r;

	r = state_dir_open(root, false, &dir_fd);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (unlinkat(dir_fd, names[i], 0) < 0 && errno != ENOENT &&
		    errno != ENOTDIR)
			r = r ?: -errno;
	r = r ?: unlink_legacy_takeover(dir_fd);
	close(dir_fd);
	if (r == 0)
		r = dirfd_rmdir(root, STATE_DIR);
	if (r == -ENOENT || r == -ENOTEMPTY || r == -EEXIST)
		r = 0;
	return r;
}

bool state_empty(const struct state *state)
{
	return state->n == 0 && state->n_files == 0 && state->n_added == 0 &&
	       state->n_windows == 0;
}

struct record *state_find(struct state *state, const char *key)
{
	for (size_t i = 0; i < state->n; i++)
		if (strcmp(state->items[i].key, key) == 0)
			return &state->items[i];
	return NULL;
}

int state_add(struct state *state, const char *key, const char *original,
	      const char *applied)
{
	struct record *rec;

	if (strlen(key) >= KEY_MAX || strlen(original) > VALUE_MAX ||
	    strlen(applied) > VALUE_MAX)
		return -E2BIG;
	/* The shell loop of the package's purge cannot tell an empty field. */
	if (original[0] == '\0' || applied[0] == '\0')
		return -EINVAL;
	if (grow_array(&state->items, &state->cap, state->n, sizeof(*state->items)) < 0)
		return -ENOMEM;
	rec = &state->items[state->n++];
	strcpy(rec->key, key);
	strcpy(rec->original, original);
	strcpy(rec->applied, applied);
	rec->pending[0] = '\0';
	return 0;
}

/* The live value is one the helper wrote: the last one the kernel held, or
 * the one a run was writing when it stopped. */
bool record_is_ours(const struct record *rec, const char *live)
{
	return strcmp(live, rec->applied) == 0 ||
	       (rec->pending[0] && strcmp(live, rec->pending) == 0);
}

void state_drop(struct state *state, size_t index)
{
	memmove(&state->items[index], &state->items[index + 1],
		(state->n - index - 1) * sizeof(*state->items));
	state->n--;
}

/* A name purge may write: letters, digits, "_", "-" and ".", not first. */
bool state_name_valid(const char *name)
{
	size_t len = strlen(name);

	return len > 0 && len <= STATE_NAME_MAX && name[0] != '.' &&
	       strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_-.") == len;
}

struct undo_file *state_find_file(struct state *state, const char *path)
{
	for (size_t i = 0; i < state->n_files; i++)
		if (strcmp(state->files[i].path, path) == 0)
			return &state->files[i];
	return NULL;
}

/* A file in /etc/sysctl.d, its copy in taken-over/ of the state directory:
 * the only places purge writes to or reads from. A path named twice is
 * -EEXIST. */
int state_add_file(struct state *state, const char *path, const char *saved,
		   unsigned mode, unsigned uid, unsigned gid)
{
	struct undo_file *file;

	if (!startswith(path, ETC_DIR) || !state_name_valid(path + strlen(ETC_DIR)) ||
	    !startswith(saved, SAVED_DIR) ||
	    !state_name_valid(saved + strlen(SAVED_DIR)) || mode > 07777)
		return -EINVAL;
	if (state_find_file(state, path))
		return -EEXIST;
	if (grow_array(&state->files, &state->cap_files, state->n_files,
		       sizeof(*state->files)) < 0)
		return -ENOMEM;
	file = &state->files[state->n_files++];
	snprintf(file->path, sizeof(file->path), "%s", path);
	snprintf(file->saved, sizeof(file->saved), "%s", saved);
	file->mode = mode;
	file->uid = uid;
	file->gid = gid;
	return 0;
}

/* Drops a file and the keys set from it. */
void state_drop_file(struct state *state, size_t index)
{
	size_t kept = 0;

	for (size_t i = 0; i < state->n_sets; i++) {
		struct undo_set set = state->sets[i];

		if (set.file == index)
			continue;
		if (set.file > index)
			set.file--;
		state->sets[kept++] = set;
	}
	state->n_sets = kept;
	memmove(&state->files[index], &state->files[index + 1],
		(state->n_files - index - 1) * sizeof(*state->files));
	state->n_files--;
}

int state_add_set(struct state *state, size_t file, const char *key, const char *value)
{
	struct undo_set *set;

	if (file >= state->n_files || strlen(key) >= KEY_MAX || strlen(value) > VALUE_MAX)
		return -E2BIG;
	if (key[0] == '\0' || value[0] == '\0' || strpbrk(value, "\t\n"))
		return -EINVAL;
	if (grow_array(&state->sets, &state->cap_sets, state->n_sets,
		       sizeof(*state->sets)) < 0)
		return -ENOMEM;
	set = &state->sets[state->n_sets++];
	snprintf(set->key, sizeof(set->key), "%s", key);
	snprintf(set->value, sizeof(set->value), "%s", value);
	set->file = file;
	return 0;
}

struct undo_added *state_find_added(struct state *state, const char *path)
{
	for (size_t i = 0; i < state->n_added; i++)
		if (strcmp(state->added[i].path, path) == 0)
			return &state->added[i];
	return NULL;
}

/* NAME.network.d/50-wp-panel-nettune.conf in /etc/systemd/network, its copy
 * in added/ of the state directory: the only files purge removes, the only
 * copies it reads. A path named twice is -EEXIST. */
int state_add_added(struct state *state, const char *path, const char *saved, bool new_dir)
{
	char name[STATE_NAME_MAX + 1];
	const char *rest = path + strlen(NETWORKD_DIR);
	size_t len;
	struct undo_added *added;

	if (strcmp(path, STATE_IFUPDOWN_HOOK) == 0 ||
	    strcmp(path, STATE_DHCLIENT_HOOK) == 0 ||
	    strcmp(path, STATE_DHCPCD_HOOK) == 0 ||
	    strcmp(path, STATE_NM_DISPATCHER) == 0) {
		snprintf(name, sizeof(name), "x");
	} else {
		if (!startswith(path, NETWORKD_DIR) ||
		    strlen(path) >= STATE_ADDED_PATH_MAX)
			return -EINVAL;
		len = strlen(rest);
		if (len <= strlen(NETWORKD_DROPIN) ||
		    strcmp(rest + len - strlen(NETWORKD_DROPIN), NETWORKD_DROPIN) != 0)
			return -EINVAL;
		snprintf(name, sizeof(name), "%.*s", (int)(len - strlen(NETWORKD_DROPIN)),
			 rest);
	}
	if (!state_name_valid(name) || !startswith(saved, ADDED_DIR) ||
	    !state_name_valid(saved + strlen(ADDED_DIR)) ||
	    strlen(saved) >= STATE_PATH_MAX)
		return -EINVAL;
	if (state_find_added(state, path))
		return -EEXIST;
	if (grow_array(&state->added, &state->cap_added, state->n_added,
		       sizeof(*state->added)) < 0)
		return -ENOMEM;
	added = &state->added[state->n_added++];
	snprintf(added->path, sizeof(added->path), "%s", path);
	snprintf(added->saved, sizeof(added->saved), "%s", saved);
	added->new_dir = new_dir;
	return 0;
}

void state_drop_added(struct state *state, size_t index)
{
	memmove(&state->added[index], &state->added[index + 1],
		(state->n_added - index - 1) * sizeof(*state->added));
	state->n_added--;
}

struct undo_windows *state_find_windows(struct state *state, const char *ifname)
{
	for (size_t i = 0; i < state->n_windows; i++)
		if (strcmp(state->windows[i].ifname, ifname) == 0)
			return &state->windows[i];
	return NULL;
}

/* An interface's name that purge's shell loop can pass on unquoted:
 * letters, digits, "_", "-" and ".", not first (the kernel takes no "/",
 * ":" or white space in one). */
int state_add_windows(struct state *state, const char *ifname, unsigned cwnd,
		      unsigned rwnd)
{
	struct undo_windows *w;

	if (strlen(ifname) >= sizeof(w->ifname) || !state_name_valid(ifname) ||
	    cwnd == 0 || rwnd == 0)
		return -EINVAL;
	if (state_find_windows(state, ifname))
		return -EEXIST;
	if (grow_array(&state->windows, &state->cap_windows, state->n_windows,
		       sizeof(*state->windows)) < 0)
		return -ENOMEM;
	w = &state->windows[state->n_windows++];
	snprintf(w->ifname, sizeof(w->ifname), "%s", ifname);
	w->cwnd = cwnd;
	w->rwnd = rwnd;
	return 0;
}

void state_drop_windows(struct state *state, size_t index)
{
	memmove(&state->windows[index], &state->windows[index + 1],
		(state->n_windows - index - 1) * sizeof(*state->windows));
	state->n_windows--;
}

void state_free(struct state *state)
{
	free(state->windows);
	free(state->items);
	free(state->files);
	free(state->sets);
	free(state->added);
	*state = (struct state){ 0 };
}
