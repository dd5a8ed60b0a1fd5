/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small file and string helpers. Fallible functions return 0 or -errno. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Opens root + path for reading. */
int fopen_root(const char *root, const char *path, FILE **ret_file)
{
	char full[PATH_MAX_LEN];
	FILE *f;
	int r;

	r = root_path(full, sizeof(full), root, path);
	if (r < 0)
		return r;
	f = fopen(full, "re");
	if (!f)
		return -errno;
	*ret_file = f;
	return 0;
}

int read_file(const char *path, char *buf, size_t size, size_t *ret_len)
{
	size_t len = 0;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
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
	close(fd);
	/* Terminated even when too long, so a caller may use the beginning. */
	buf[len] = '\0';
	if (r < 0)
		return r;
	if (ret_len)
		*ret_len = len;
	return 0;
}

/* Reads the first line of a small file, without its newline. A missing file
 * is -ENOENT, which callers treat as "absent", not as an error. */
int read_line(const char *path, char *buf, size_t size)
{
	char tmp[LINE_MAX_LEN];
	size_t len;
	char *nl;
	int r;

	r = read_file(path, tmp, sizeof(tmp), &len);
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
 * old file or the new one, never half of one. */
int write_file_atomic(const char *path, const char *data, size_t len, mode_t mode)
{
	char tmp[PATH_MAX_LEN];
	char dir[PATH_MAX_LEN];
	char *slash;
	int fd, r;

	if (snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write_all(fd, data, len);
	if (r == 0 && fchmod(fd, mode) < 0)
		r = -errno;
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return r;
	}

	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			(void)fsync(fd);
			close(fd);
		}
	}
	return 0;
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

int parse_u64(const char *s, uint64_t *ret)
{
	uintmax_t v;
	char *end;

	if (!isdigit((unsigned char)*s))
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
		if (isspace((unsigned char)*r)) {
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

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	*end = '\0';
	return s;
}

bool startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}
