/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The record of what apply changed, under /var/lib/wp-panel-nettune. Purge
 * reads it with a POSIX shell loop after the helper is gone, so the format is
 * plain: a header, one "key TAB original TAB applied [TAB pending]" line a
 * key, and a trailer whose absence shows a truncated file. Version 1 records
 * (0.1.0) have no pending column and read the same.
 *
 * Every file of the state directory is opened under a descriptor of that
 * directory, without following a symlink in its place: a link planted there
 * must not send the record, or the lock, somewhere else. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dirfd.h"
#include "state.h"

#define STATE_HEADER "# wp-panel-nettune state 2"
#define STATE_HEADER_V1 "# wp-panel-nettune state 1"
#define STATE_COLUMNS "# key\toriginal\tapplied\tpending (while being written)"
#define STATE_TRAILER "# end"

static const char state_name[] = "state";
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
		dirfd_remove_temporaries(dir_fd, state_name);
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

static int parse_record(char *line, struct record *ret)
{
	char *field[4] = { line };
	size_t n = 1;

	for (char *p = line; *p; p++)
		if (*p == '\t') {
			if (n == ELEMENTSOF(field))
				return -EBADMSG;
			*p = '\0';
			field[n++] = p + 1;
		}
	if (n < 3 || !sysctl_key_valid(field[0]))
		return -EBADMSG;
	for (size_t i = 1; i < n; i++)
		if (field[i][0] == '\0' || strlen(field[i]) > VALUE_MAX)
			return -EBADMSG;
	strcpy(ret->key, field[0]);
	strcpy(ret->original, field[1]);
	strcpy(ret->applied, field[2]);
	strcpy(ret->pending, n == 4 ? field[3] : "");
	return 0;
}

static int compare_keys(const void *a, const void *b)
{
	const struct record *x = *(const struct record *const *)a;
	const struct record *y = *(const struct record *const *)b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x > y) - (x < y);
}

/* The line of the second record of a key named twice, or 0: sorted, so that
 * a long record costs n log n, not n squared. */
static unsigned find_duplicate(const struct state *s, const unsigned *lines)
{
	const struct record **sorted;
	unsigned dup = 0;

	if (s->n < 2)
		return 0;
	sorted = calloc(s->n, sizeof(*sorted));
	if (!sorted)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		sorted[i] = &s->items[i];
	qsort(sorted, s->n, sizeof(*sorted), compare_keys);
	for (size_t i = 1; i < s->n; i++) {
		unsigned line = lines[sorted[i] - s->items];

		if (strcmp(sorted[i - 1]->key, sorted[i]->key) == 0 &&
		    (dup == 0 || line < dup))
			dup = line;
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

/* A corrupt record, a line too long among them, is -EBADMSG with the line
 * in *ret_line (0 for a missing header or trailer), and nothing is kept. A
 * stream longer than STATE_SIZE_MAX is -EFBIG. */
int state_load_stream(FILE *f, struct state *ret, unsigned *ret_line)
{
	struct state s = { 0 };
	char line[STATE_LINE_MAX + 2];
	unsigned *lines = NULL;
	bool ended = false;
	size_t len, total = 0;
	unsigned n = 0;
	int r = 0;

	while (r == 0) {
		struct record rec;

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
		if (n == 1)
			r = strcmp(line, STATE_HEADER) == 0 ||
					    strcmp(line, STATE_HEADER_V1) == 0 ?
				    0 :
				    -EBADMSG;
		else if (strcmp(line, STATE_TRAILER) == 0)
			ended = true;
		else if (line[0] == '#')
			continue;
		else if (parse_record(line, &rec) < 0)
			r = -EBADMSG;
		else if ((r = state_add(&s, rec.key, rec.original, rec.applied)) == 0) {
			unsigned *grown = reallocarray(lines, s.cap, sizeof(*lines));

			if (!grown) {
				r = -ENOMEM;
				break;
			}
			lines = grown;
			lines[s.n - 1] = n;
			strcpy(s.items[s.n - 1].pending, rec.pending);
		}
	}
	if (r == 0 && !ended) {
		r = -EBADMSG;
		n = 0;
	}
	if (r == 0 && (n = find_duplicate(&s, lines)) > 0)
		r = -EBADMSG;
	free(lines);
	if (r < 0) {
		state_free(&s);
		*ret_line = n;
		return r;
	}
	*ret = s;
	return 0;
}

/* A missing file is an empty state; anything but a regular file is refused
 * without being read, so that a FIFO in its place cannot block the run, and
 * so is one larger than a record can be (-EFBIG). */
int state_load(const char *root, struct state *ret, unsigned *ret_line)
{
	int dir_fd, fd = -1, r;
	struct stat st;
	FILE *f;

	r = state_dir_open(root, false, &dir_fd);
	if (r == 0) {
		r = keep_if_regular(openat(dir_fd, state_name,
					   O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC),
				    &fd);
		close(dir_fd);
	}
	if (r == -ENOENT) {
		*ret = (struct state){ 0 };
		return 0;
	}
	if (r == 0) {
		if (fstat(fd, &st) < 0)
			r = -errno;
		else if (st.st_size > STATE_SIZE_MAX)
			r = -EFBIG;
		if (r < 0)
			close(fd);
	}
	if (r == 0)
		r = fdopen_or_close(fd, &f);
	if (r < 0)
		return r;
	r = state_load_stream(f, ret, ret_line);
	fclose(f);
	return r;
}

int state_write_stream(FILE *f, const struct state *state)
{
	fprintf(f, "%s\n%s\n", STATE_HEADER, STATE_COLUMNS);
	for (size_t i = 0; i < state->n; i++) {
		const struct record *rec = &state->items[i];

		fprintf(f, "%s\t%s\t%s%s%s\n", rec->key, rec->original, rec->applied,
			rec->pending[0] ? "\t" : "", rec->pending);
	}
	fprintf(f, "%s\n", STATE_TRAILER);
	return ferror(f) ? -EIO : 0;
}

int state_save(const char *root, const struct state *state)
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
	r = state_dir_open(root, true, &dir_fd);
	if (r == 0) {
		r = write_file_atomic_at(dir_fd, state_name, data, size, 0644);
		close(dir_fd);
	}
	free(data);
	return r;
}

/* Removes the record, and the directory when nothing else is in it but the
 * lock file, which goes when the lock is released. */
int state_remove_file(const char *root)
{
	int dir_fd, r;

	r = state_dir_open(root, false, &dir_fd);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (unlinkat(dir_fd, state_name, 0) < 0 && errno != ENOENT)
		r = -errno;
	close(dir_fd);
	if (r == 0)
		r = dirfd_rmdir(root, STATE_DIR);
	if (r == -ENOENT || r == -ENOTEMPTY || r == -EEXIST)
		r = 0;
	return r;
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

void state_free(struct state *state)
{
	free(state->items);
	*state = (struct state){ 0 };
}
