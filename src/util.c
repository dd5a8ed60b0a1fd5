/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small file and string helpers. Fallible functions return 0 or -errno. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "i18n.h"
#include "util.h"

/* Every path the helper touches goes through here, so that --root covers all
 * of them. The root is "" for the real root. */
int root_path(char *buf, size_t size, const char *root, const char *path)
{
	int n = snprintf(buf, size, "%s%s", root, path);

	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* Whether path under the root can be reached, a link followed. */
bool root_exists(const char *root, const char *path)
{
	char full[PATH_MAX_LEN];

	return root_path(full, sizeof(full), root, path) == 0 && access(full, F_OK) == 0;
}

/* Opens root + path for reading, a regular file only (see open_regular())
 * and no larger than READ_SIZE_MAX (-EFBIG): the streams read to the end. */
int fopen_root(const char *root, const char *path, FILE **ret_file)
{
	char full[PATH_MAX_LEN];
	struct stat st;
	int fd, r;

	r = root_path(full, sizeof(full), root, path);
	if (r == 0)
		r = open_regular(full, 0, &fd);
	if (r < 0)
		return r;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (st.st_size > READ_SIZE_MAX)
		r = -EFBIG;
	if (r < 0) {
		close(fd);
		return r;
	}
	return fdopen_or_close(fd, ret_file);
}

/* A stream for reading an open descriptor, which is closed if that fails. */
int fdopen_or_close(int fd, FILE **ret_file)
{
	FILE *f = fdopen(fd, "r");

	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	*ret_file = f;
	return 0;
}

static int read_file_fd(int fd, char *buf, size_t size, size_t *ret_len)
{
	size_t len = 0;
	int r = 0;

	for (;;) {
		ssize_t n;

		if (len == size - 1) {
			char c;

			/* One more byte tells a full buffer from a long file. */
			n = read(fd, &c, 1);
			if (n > 0)
				r = -EFBIG;
			else if (n < 0)
				r = -errno;
			break;
		}
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	/* Terminated even when too long, so a caller may use the beginning. */
	buf[len] = '\0';
	if (r < 0)
		return r;
	if (ret_len)
		*ret_len = len;
	return 0;
}

/* Opens a file for reading only if it is a regular one (-EBADFD if not), and
 * never in a way that blocks: a FIFO in its place is refused, not waited on. */
int open_regular(const char *path, int flags, int *ret_fd)
{
	return keep_if_regular(open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags),
			       ret_fd);
}

/* Takes the result of an open(): -errno if it failed, -EBADFD (and the file
 * closed) if it is not a regular file, else 0 and the descriptor. */
int keep_if_regular(int fd, int *ret_fd)
{
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EBADFD;
	}
	*ret_fd = fd;
	return 0;
}

/* Whether path (a symlink followed) is a regular file of at most max_size
 * bytes, looked at without opening it: 0, -ENOENT, -EBADFD when it is not a
 * regular file, -EFBIG when it is larger. For files another library opens
 * itself, blocking. */
int stat_regular(const char *path, uint64_t max_size)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EBADFD;
	if ((uint64_t)st.st_size > max_size)
		return -EFBIG;
	return 0;
}

int read_file(const char *path, char *buf, size_t size, size_t *ret_len)
{
	int fd, r;

	r = open_regular(path, 0, &fd);
	if (r < 0)
		return r;
	r = read_file_fd(fd, buf, size, ret_len);
	close(fd);
	return r;
}

/* Reads the first line of a small file, without its newline. A missing file
 * is -ENOENT, which callers treat as "absent", not as an error. */
int read_line_fd(int fd, char *buf, size_t size)
{
	char tmp[LINE_MAX_LEN];
	size_t len;
	char *nl;
	int r;

	r = read_file_fd(fd, tmp, sizeof(tmp), &len);
	if (r < 0)
		return r;
	if (memchr(tmp, '\0', len))
		return -EBADMSG;
	nl = strchr(tmp, '\n');
	if (nl)
		*nl = '\0';
	if (strlen(tmp) >= size)
		return -EFBIG;
	strcpy(buf, tmp);
	return 0;
}

int read_line(const char *path, char *buf, size_t size)
{
	int fd, r;

	r = open_regular(path, 0, &fd);
	if (r < 0)
		return r;
	r = read_line_fd(fd, buf, size);
	close(fd);
	return r;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Writes a whole file or nothing: a temporary file beside the target, synced,
 * then renamed over it, then the directory synced. A crash leaves either the
 * old file or the new one, never half of one, and perhaps the temporary file
 * (name.tmpXXXXXX), which the caller's next run may remove. Everything is
 * opened under dir_fd without following a symlink. */
int write_file_atomic_at(int dir_fd, const char *name, const char *data, size_t len,
			 mode_t mode)
{
	static unsigned counter;
	char tmp[PATH_MAX_LEN];
	int fd = -1, r;

	for (unsigned tries = 0; fd < 0 && tries < 100; tries++) {
		unsigned suffix = ((unsigned)getpid() * 2654435761u) ^
				  (counter++ * 40503u) ^ (unsigned)time(NULL);

		if (snprintf(tmp, sizeof(tmp), "%s.tmp%06x", name, suffix & 0xffffff) >=
		    (int)sizeof(tmp))
			return -ENAMETOOLONG;
		fd = openat(dir_fd, tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	r = write_all(fd, data, len);
	if (r == 0 && fchmod(fd, mode) < 0)
		r = -errno;
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dir_fd, tmp, dir_fd, name) < 0)
		r = -errno;
	if (r < 0) {
		unlinkat(dir_fd, tmp, 0);
		return r;
	}
	(void)fsync(dir_fd);
	return 0;
}

int write_file_atomic(const char *path, const char *data, size_t len, mode_t mode)
{
	char dir[PATH_MAX_LEN];
	const char *name;
	char *slash;
	int fd, r;

	if (strlen(path) >= sizeof(dir))
		return -ENAMETOOLONG;
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	name = path + (slash - dir) + 1;
	fd = open(slash == dir ? "/" : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write_file_atomic_at(fd, name, data, len, mode);
	close(fd);
	return r;
}

int mkdir_parents(const char *path, mode_t mode)
{
	char buf[PATH_MAX_LEN];
	char *p;

	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, path);
	for (p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = c;
		if (c == '\0')
			return 0;
	}
}

/* Makes room for one more element in a growing array (*items_ptr, *cap),
 * doubling it, so that n appends cost O(n). */
int grow_array(void *items_ptr, size_t *cap, size_t n, size_t size)
{
	void **items = items_ptr, *grown;
	size_t want;

	if (n < *cap)
		return 0;
	want = *cap ? *cap * 2 : 16;
	grown = reallocarray(*items, want, size);
	if (!grown)
		return -ENOMEM;
	*items = grown;
	*cap = want;
	return 0;
}

int parse_u64(const char *s, uint64_t *ret)
{
	uintmax_t v;
	char *end;

	if (!ascii_isdigit(*s))
		return -EINVAL;
	errno = 0;
	v = strtoumax(s, &end, 10);
	if (errno == ERANGE || v > UINT64_MAX)
		return -ERANGE;
	if (*end != '\0')
		return -EINVAL;
	*ret = (uint64_t)v;
	return 0;
}

/* Turns runs of blanks into one space and trims both ends, in place. The
 * kernel prints vectors with tabs ("4096\t131072\t6291456"); the record and
 * the comparisons use this one form. */
void normalize_space(char *s)
{
	char *w = s;
	bool blank = false;

	for (char *r = s; *r; r++) {
		if (ascii_isspace(*r)) {
			blank = w != s;
			continue;
		}
		if (blank)
			*w++ = ' ';
		blank = false;
		*w++ = *r;
	}
	*w = '\0';
}

char *strip(char *s)
{
	char *end;

	while (ascii_isspace(*s))
		s++;
	end = s + strlen(s);
	while (end > s && ascii_isspace(end[-1]))
		end--;
	*end = '\0';
	return s;
}

bool startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* strerror() for the file helpers, which say -EBADFD for "not a regular
 * file". */
const char *file_strerror(int error)
{
	return error == -EBADFD ? _("not a regular file") : strerror(-error);
}
