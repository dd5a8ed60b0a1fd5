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
 * The steps are listed by kind, in that order, each set step after its
 * file's; struct state holds them as the file lists them (journal.h).
 *
 * 0.1.0's record, "state 1" (a "KEY ORIGINAL APPLIED" line a key), is read
 * while no journal exists, and removed once the journal is on disk.
 *
 * Every file of the state directory is opened under a descriptor of that
 * directory, without following a symlink in its place: a link planted there
 * must not send the journal, or the lock, somewhere else. */
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
#define LEGACY_HEADER "# wp-panel-nettune state 1"
#define TRAILER "# end"
#define SAVED_DIR "taken-over/"
#define ETC_DIR "/etc/sysctl.d/"
#define ADDED_DIR "added/"
#define NETWORKD_DIR "/etc/systemd/network/"
#define NETWORKD_DROPIN ".network.d/50-wp-panel-nettune.conf"

static const char journal_name[] = "journal";
static const char legacy_record_name[] = "state";
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

/* A name purge may write: letters, digits, "_", "-" and ".", not first. */
bool state_name_valid(const char *name)
{
	size_t len = strlen(name);

	return len > 0 && len <= STATE_NAME_MAX && name[0] != '.' &&
	       strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_-.") == len;
}

int step_key(struct step *ret, const char *key, const char *original, const char *applied)
{
	struct record *rec = &ret->key;

	if (strlen(key) >= KEY_MAX || strlen(original) > VALUE_MAX ||
	    strlen(applied) > VALUE_MAX)
		return -E2BIG;
	/* The shell loop of the package's purge cannot tell an empty field. */
	if (original[0] == '\0' || applied[0] == '\0')
		return -EINVAL;
	ret->kind = STEP_KEY;
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

/* A file in /etc/sysctl.d, its copy in taken-over/ of the state directory:
 * the only places purge writes to or reads from. */
int step_file(struct step *ret, const char *path, const char *saved, unsigned mode,
	      unsigned uid, unsigned gid)
{
	struct undo_file *file = &ret->file;

	if (!startswith(path, ETC_DIR) || !state_name_valid(path + strlen(ETC_DIR)) ||
	    !startswith(saved, SAVED_DIR) ||
	    !state_name_valid(saved + strlen(SAVED_DIR)) || mode > 07777)
		return -EINVAL;
	ret->kind = STEP_FILE;
	snprintf(file->path, sizeof(file->path), "%s", path);
	snprintf(file->saved, sizeof(file->saved), "%s", saved);
	file->mode = mode;
	file->uid = uid;
	file->gid = gid;
	return 0;
}

/* A key set from the file step of that path. */
int step_set(struct step *ret, const char *file, const char *key, const char *value)
{
	struct undo_set *set = &ret->set;

	if (strlen(file) >= sizeof(set->file) || strlen(key) >= KEY_MAX ||
	    strlen(value) > VALUE_MAX)
		return -E2BIG;
	if (key[0] == '\0' || value[0] == '\0' || strpbrk(value, "\t\n"))
		return -EINVAL;
	ret->kind = STEP_SET;
	strcpy(set->file, file);
	strcpy(set->key, key);
	strcpy(set->value, value);
	return 0;
}

/* NAME.network.d/50-wp-panel-nettune.conf in /etc/systemd/network, or one of
 * the hooks; its copy in added/ of the state directory: the only files purge
 * removes, the only copies it reads. */
int step_added(struct step *ret, const char *path, const char *saved, bool new_dir)
{
	char name[STATE_NAME_MAX + 1];
	const char *rest = path + strlen(NETWORKD_DIR);
	struct undo_added *added = &ret->added;
	size_t len;

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
	ret->kind = STEP_ADDED;
	snprintf(added->path, sizeof(added->path), "%s", path);
	snprintf(added->saved, sizeof(added->saved), "%s", saved);
	added->new_dir = new_dir;
	return 0;
}

/* An interface's name that purge's shell loop can pass on unquoted:
 * letters, digits, "_", "-" and ".", not first (the kernel takes no "/",
 * ":" or white space in one). */
int step_windows(struct step *ret, const char *ifname, unsigned cwnd, unsigned rwnd)
{
	struct undo_windows *w = &ret->windows;

	if (strlen(ifname) >= sizeof(w->ifname) || !state_name_valid(ifname) ||
	    cwnd == 0 || rwnd == 0)
		return -EINVAL;
	ret->kind = STEP_WINDOWS;
	snprintf(w->ifname, sizeof(w->ifname), "%s", ifname);
	w->cwnd = cwnd;
	w->rwnd = rwnd;
	return 0;
}

/* What a step is found by: its key, path or interface. */
static const char *step_name(const struct step *step)
{
	switch (step->kind) {
	case STEP_KEY:
		return step->key.key;
	case STEP_FILE:
		return step->file.path;
	case STEP_SET:
		return step->set.key;
	case STEP_ADDED:
		return step->added.path;
	case STEP_WINDOWS:
		return step->windows.ifname;
	}
	return "";
}

/* The journal lists a set step with its file, so the two sort together. */
static enum step_kind step_group(enum step_kind kind)
{
	return kind == STEP_SET ? STEP_FILE : kind;
}

/* The index after the last step of kind's group: the steps are sorted by
 * group, and a long journal costs n log n to read, not n squared. */
static size_t group_end(const struct state *s, enum step_kind kind)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (step_group(s->steps[mid].kind) <= step_group(kind))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first step of that kind named so (any, for NULL), or NULL. */
struct step *state_find(struct state *state, enum step_kind kind, const char *name)
{
	size_t end = group_end(state, kind), i = end;

	while (i > 0 && step_group(state->steps[i - 1].kind) == step_group(kind))
		i--;
	for (; i < end; i++)
		if (state->steps[i].kind == kind &&
		    (!name || strcmp(step_name(&state->steps[i]), name) == 0))
			return &state->steps[i];
	return NULL;
}

static bool of_file(const struct step *step, const char *path)
{
	return (step->kind == STEP_FILE && strcmp(step->file.path, path) == 0) ||
	       (step->kind == STEP_SET && strcmp(step->set.file, path) == 0);
}

/* Puts a step where the journal lists it: last of its kind, a set step
 * last after its file (-ENOENT without one). A file, added file or
 * interface named twice is -EEXIST; a key named twice is the caller's to
 * refuse. */
static int insert_step(struct state *s, const struct step *step)
{
	size_t at = group_end(s, step->kind);

	if (step->kind == STEP_SET) {
		while (at > 0 && !of_file(&s->steps[at - 1], step->set.file))
			at--;
		if (at == 0)
			return -ENOENT;
	} else if (step->kind != STEP_KEY && state_find(s, step->kind, step_name(step))) {
		return -EEXIST;
	}
	if (grow_array(&s->steps, &s->cap, s->n, sizeof(*s->steps)) < 0)
		return -ENOMEM;
	memmove(&s->steps[at + 1], &s->steps[at], (s->n - at) * sizeof(*s->steps));
	s->steps[at] = *step;
	s->n++;
	return 0;
}

/* A step made by one of the step_*() functions, in its place; any named
 * twice is -EEXIST. */
int state_add(struct state *state, const struct step *step)
{
	if (step->kind == STEP_KEY && state_find(state, STEP_KEY, step->key.key))
		return -EEXIST;
	return insert_step(state, step);
}

/* Drops a step; a file step with the keys set from it. */
void state_drop(struct state *state, struct step *step)
{
	size_t at = (size_t)(step - state->steps), end = at + 1;

	if (step->kind == STEP_FILE)
		while (end < state->n && state->steps[end].kind == STEP_SET &&
		       strcmp(state->steps[end].set.file, step->file.path) == 0)
			end++;
	memmove(&state->steps[at], &state->steps[end],
		(state->n - end) * sizeof(*state->steps));
	state->n -= end - at;
}

void state_free(struct state *state)
{
	free(state->steps);
	*state = (struct state){ 0 };
}

/* The fields of a key step, or of a line of 0.1.0's record: KEY ORIGINAL
 * APPLIED [PENDING]. */
static int parse_key(struct step *ret, char **field, size_t n)
{
	if (n < 3 || n > 4 || !sysctl_key_valid(field[0]))
		return -EBADMSG;
	for (size_t i = 1; i < n; i++)
		if (strlen(field[i]) > VALUE_MAX)
			return -EBADMSG;
	if (step_key(ret, field[0], field[1], field[2]) < 0)
		return -EBADMSG;
	strcpy(ret->key.pending, n == 4 ? field[3] : "");
	return 0;
}

static int parse_file(struct step *ret, char **field)
{
	unsigned mode, uid, gid;

	if (parse_mode(field[1], &mode) < 0 || parse_id(field[2], &uid) < 0 ||
	    parse_id(field[3], &gid) < 0 ||
	    step_file(ret, field[0], field[4], mode, uid, gid) < 0)
		return -EBADMSG;
	return 0;
}

/* A set step belongs to the file step before it: the last one read. */
static int parse_set(const struct state *s, struct step *ret, char **field)
{
	size_t end = group_end(s, STEP_FILE);
	const struct step *last = end > 0 ? &s->steps[end - 1] : NULL;

	if (!last || (last->kind != STEP_FILE && last->kind != STEP_SET) ||
	    !sysctl_key_valid(field[0]) || strlen(field[1]) > VALUE_MAX ||
	    step_set(ret, last->kind == STEP_FILE ? last->file.path : last->set.file,
		     field[0], field[1]) < 0)
		return -EBADMSG;
	return 0;
}

static int parse_added(struct step *ret, char **field)
{
	if ((strcmp(field[2], "new-dir") != 0 && strcmp(field[2], "dir-existed") != 0) ||
	    step_added(ret, field[0], field[1], field[2][0] == 'n') < 0)
		return -EBADMSG;
	return 0;
}

static int parse_windows(struct step *ret, char **field)
{
	unsigned cwnd, rwnd;

	if (parse_id(field[1], &cwnd) < 0 || parse_id(field[2], &rwnd) < 0 ||
	    step_windows(ret, field[0], cwnd, rwnd) < 0)
		return -EBADMSG;
	return 0;
}

/* One line of the journal, without its newline. */
static int parse_step(struct state *s, char *line)
{
	struct step step;
	char *field[6];
	size_t n;
	int r;

	if (split_fields(line, field, ELEMENTSOF(field), &n) < 0)
		return -EBADMSG;
	if (strcmp(field[0], "key") == 0)
		r = parse_key(&step, field + 1, n - 1);
	else if (strcmp(field[0], "file") == 0 && n == 6)
		r = parse_file(&step, field + 1);
	else if (strcmp(field[0], "set") == 0 && n == 3)
		r = parse_set(s, &step, field + 1);
	else if (strcmp(field[0], "added") == 0 && n == 4)
		r = parse_added(&step, field + 1);
	else if (strcmp(field[0], "windows") == 0 && n == 4)
		r = parse_windows(&step, field + 1);
	else
		r = -EBADMSG;
	if (r == 0)
		r = insert_step(s, &step);
	return r == -ENOMEM ? r : r < 0 ? -EBADMSG : 0;
}

/* A line of 0.1.0's record: KEY ORIGINAL APPLIED, taken as a key step is. */
static int parse_legacy_record(struct state *s, char *line)
{
	struct step step;
	char *field[4];
	size_t n;
	int r;

	if (split_fields(line, field, ELEMENTSOF(field), &n) < 0 ||
	    parse_key(&step, field, n) < 0)
		return -EBADMSG;
	r = insert_step(s, &step);
	return r == -ENOMEM ? r : r < 0 ? -EBADMSG : 0;
}

static int compare_keys(const void *a, const void *b)
{
	const struct step *x = *(const struct step *const *)a;
	const struct step *y = *(const struct step *const *)b;
	int c = strcmp(x->key.key, y->key.key);

	return c ? c : (x > y) - (x < y);
}

/* The index of the second key step of a key named twice, or keys (their
 * count; they come first): sorted, so that a long journal costs n log n,
 * not n squared. */
static size_t find_duplicate(const struct state *s, size_t keys)
{
	const struct step **sorted;
	size_t dup = keys;

	if (keys < 2)
		return dup;
	sorted = calloc(keys, sizeof(*sorted));
	if (!sorted)
		return dup;
	for (size_t i = 0; i < keys; i++)
		sorted[i] = &s->steps[i];
	qsort(sorted, keys, sizeof(*sorted), compare_keys);
	for (size_t i = 1; i < keys; i++) {
		size_t at = (size_t)(sorted[i] - s->steps);

		if (strcmp(sorted[i - 1]->key.key, sorted[i]->key.key) == 0 && at < dup)
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

/* Reads a file of one of the formats: its header, lines that parse_line
 * takes, and the trailer. A corrupt file, a line too long among them, is
 * -EBADMSG with the line in *ret_line (0 for a missing header or trailer),
 * and nothing is kept. A stream longer than STATE_SIZE_MAX is -EFBIG. */
static int load_stream(FILE *f, const char *header, parse_line_fn *parse_line,
		       struct state *ret, unsigned *ret_line)
{
	struct state s = { 0 };
	char line[STATE_LINE_MAX + 2];
	unsigned *lines = NULL; /* the line of each key step */
	bool ended = false;
	size_t len, total = 0, keys = 0, cap = 0;
	unsigned n = 0;
	int r = 0;

	while (r == 0) {
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
			r = strcmp(line, header) == 0 ? 0 : -EBADMSG;
		} else if (strcmp(line, TRAILER) == 0) {
			ended = true;
		} else if (line[0] == '#') {
			continue;
		} else if ((r = parse_line(&s, line)) == 0 &&
			   group_end(&s, STEP_KEY) > keys) {
			if (grow_array(&lines, &cap, keys, sizeof(*lines)) < 0) {
				r = -ENOMEM;
				break;
			}
			lines[keys++] = n;
		}
	}
	if (r == 0 && !ended) {
		r = -EBADMSG;
		n = 0;
	}
	if (r == 0) {
		size_t dup = find_duplicate(&s, keys);

		if (dup < keys) {
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
	return load_stream(f, JOURNAL_HEADER, parse_step, ret, ret_line);
}

int state_load_legacy_stream(FILE *f, struct state *ret, unsigned *ret_line)
{
	return load_stream(f, LEGACY_HEADER, parse_legacy_record, ret, ret_line);
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

/* The journal; without one, 0.1.0's record, marked in ret->legacy; neither
 * is an empty state. A file that cannot be read, or is corrupt, is named in
 * *ret_path, with the line in *ret_line. */
int state_load(const char *root, struct state *ret, const char **ret_path,
	       unsigned *ret_line)
{
	struct state s = { 0 };
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
			s.legacy = true;
		if (r == -ENOENT)
			r = 0;
	}
	close(dir_fd);
	if (r < 0)
		return r;
	*ret = s;
	return 0;
}

static void write_step(FILE *f, const struct step *step)
{
	const struct record *rec = &step->key;
	const struct undo_file *file = &step->file;
	const struct undo_set *set = &step->set;
	const struct undo_added *added = &step->added;
	const struct undo_windows *w = &step->windows;

	switch (step->kind) {
	case STEP_KEY:
		fprintf(f, "key\t%s\t%s\t%s%s%s\n", rec->key, rec->original, rec->applied,
			rec->pending[0] ? "\t" : "", rec->pending);
		break;
	case STEP_FILE:
		fprintf(f, "file\t%s\t%04o\t%u\t%u\t%s\n", file->path, file->mode,
			file->uid, file->gid, file->saved);
		break;
	case STEP_SET:
		fprintf(f, "set\t%s\t%s\n", set->key, set->value);
		break;
	case STEP_ADDED:
		fprintf(f, "added\t%s\t%s\t%s\n", added->path, added->saved,
			added->new_dir ? "new-dir" : "dir-existed");
		break;
	case STEP_WINDOWS:
		fprintf(f, "windows\t%s\t%u\t%u\n", w->ifname, w->cwnd, w->rwnd);
		break;
	}
}

int state_write_stream(FILE *f, const struct state *state)
{
	fprintf(f, "%s\n%s\n", JOURNAL_HEADER, JOURNAL_COLUMNS);
	for (size_t i = 0; i < state->n; i++)
		write_step(f, &state->steps[i]);
	fprintf(f, "%s\n", TRAILER);
	return ferror(f) ? -EIO : 0;
}

/* The journal on disk before 0.1.0's record goes: that is removed only once
 * it is. A run stopped between the two leaves both, and the journal is what
 * counts. */
int state_format(const struct state *state, char **ret_data, size_t *ret_size)
{
	char *data = NULL;
	size_t size = 0;
	FILE *f;
	int r;

	f = open_memstream(&data, &size);
	if (!f)
		return -ENOMEM;
	r = state_write_stream(f, state);
	if (fclose(f) != 0 || r < 0) {
		free(data);
		return -ENOMEM;
	}
	/* Never one the reader would refuse: a record 0.1.0 could not have
	 * written, converted, grows by a word a line. */
	if (size > STATE_SIZE_MAX) {
		free(data);
		return -EFBIG;
	}
	*ret_data = data;
	*ret_size = size;
	return 0;
}

int state_save(const char *root, struct state *state)
{
	char *data;
	size_t size;
	int dir_fd, r;

	r = state_format(state, &data, &size);
	if (r < 0)
		return r;
	r = state_dir_open(root, true, &dir_fd);
	if (r == 0) {
		r = write_file_atomic_at(dir_fd, journal_name, data, size, 0644);
		/* Also what a run stopped right here left behind. */
		if (r == 0) {
			if (unlinkat(dir_fd, legacy_record_name, 0) < 0 && errno != ENOENT)
				r = -errno;
			if (state->legacy)
				(void)fsync(dir_fd);
			if (r == 0)
				state->legacy = false;
		}
		close(dir_fd);
	}
	free(data);
	return r;
}

/* Removes the journal and 0.1.0's record, and the directory when nothing
 * else is in it but the lock file, which goes when the lock is released. */
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
	close(dir_fd);
	if (r == 0)
		r = dirfd_rmdir(root, STATE_DIR);
	if (r == -ENOENT || r == -ENOTEMPTY || r == -EEXIST)
		r = 0;
	return r;
}

bool state_empty(const struct state *state)
{
	return state->n == 0;
}
