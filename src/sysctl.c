/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading and writing one key under /proc/sys. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysctl.h"
#include "util.h"

/* A key becomes a path under /proc/sys, so only the characters of real keys
 * pass: no "/", no "..", no empty component. */
bool sysctl_key_valid(const char *key)
{
	size_t len = strlen(key);

	if (len == 0 || len >= KEY_MAX || key[0] == '.' || key[len - 1] == '.')
		return false;
	if (strstr(key, ".."))
		return false;
	for (const char *p = key; *p; p++)
		if (!ascii_islower(*p) && !ascii_isdigit(*p) && !strchr("_.-", *p))
			return false;
	return true;
}

int sysctl_path(char *buf, size_t size, const char *root, const char *key)
{
	char rel[KEY_MAX + sizeof("/proc/sys/")];
	int r;

	if (!sysctl_key_valid(key))
		return -EINVAL;
	snprintf(rel, sizeof(rel), "/proc/sys/%s", key);
	for (char *p = rel + strlen("/proc/sys/"); *p; p++)
		if (*p == '.')
			*p = '/';
	r = root_path(buf, size, root, rel);
	return r;
}

/* Opens a key's file under root's /proc/sys one component at a time, none of
 * them a symlink: in a --root tree a link planted under proc/sys must not
 * send a write out of the tree. (root's proc/sys itself may be a link, as
 * the network-namespace tests make it.) Only a regular file is opened, and
 * never in a way that blocks. */
static int sysctl_open(const char *root, const char *key, int flags, int *ret_fd)
{
	char base[PATH_MAX_LEN], rel[KEY_MAX];
	int dir_fd, fd, r;
	char *p, *slash;

	if (!sysctl_key_valid(key))
		return -EINVAL;
	if (root_path(base, sizeof(base), root, "/proc/sys") < 0)
		return -ENAMETOOLONG;
	snprintf(rel, sizeof(rel), "%s", key);
	for (p = rel; *p; p++)
		if (*p == '.')
			*p = '/';
	dir_fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return -errno;
	for (p = rel; (slash = strchr(p, '/')); p = slash + 1) {
		*slash = '\0';
		fd = openat(dir_fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dir_fd);
		if (fd < 0)
			return errno == ENOTDIR ? -ELOOP : -errno;
		dir_fd = fd;
	}
	r = keep_if_regular(openat(dir_fd, p, flags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC),
			    ret_fd);
	close(dir_fd);
	return r;
}

/* The value as the kernel prints it, whitespace normalized. */
int sysctl_read(const char *root, const char *key, char *buf, size_t size)
{
	int fd, r;

	r = sysctl_open(root, key, O_RDONLY | O_NONBLOCK, &fd);
	if (r < 0)
		return r;
	r = read_line_fd(fd, buf, size);
	close(fd);
	if (r < 0)
		return r;
	normalize_space(buf);
	return 0;
}

/* Writes a value the way the kernel prints it back: a vector of numbers
 * separated by tabs, then a newline. The kernel parses any blank as a
 * separator, and a read-back compares byte for byte. Strings keep their
 * spaces: a list of congestion controls splits on spaces only. */
static void kernel_form(const char *value, char *buf, size_t size)
{
	bool numeric = true;

	for (const char *p = value; *p; p++)
		if (!ascii_isdigit(*p) && *p != ' ' && *p != '-')
			numeric = false;
	snprintf(buf, size, "%s\n", value);
	if (numeric)
		for (char *p = buf; *p; p++)
			if (*p == ' ')
				*p = '\t';
}

int sysctl_write(const char *root, const char *key, const char *value)
{
	char data[VALUE_MAX + 2];
	struct stat st;
	ssize_t n;
	size_t len;
	int fd, r;

	if (strlen(value) > VALUE_MAX || strchr(value, '\n'))
		return -EINVAL;
	kernel_form(value, data, sizeof(data));
	len = strlen(data);

	/* The kernel takes a value in one write and ignores the file's size.
	 * A --root tree's file is cut to the value after the write, not
	 * before it, so that a run killed in between leaves the new value on
	 * the first line, as the kernel would hold it, not an empty file. */
	r = sysctl_open(root, key, O_WRONLY | O_NONBLOCK, &fd);
	if (r < 0)
		return r;
	n = write(fd, data, len);
	r = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	if (r == 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size > (off_t)len && ftruncate(fd, (off_t)len) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

/* systemd-sysctl's policy: a key the kernel or the namespace refuses to let
 * us change is not our failure to report loudly. */
bool sysctl_error_is_refusal(int error)
{
	return error == -EPERM || error == -EACCES || error == -EROFS;
}

/* The one policy for a key that cannot be read or set, systemd-sysctl's
 * (sysctl_write_or_warn) with one difference: a refusal is not ours to
 * report loudly, nor is a "-" key (one set only where it exists) that is
 * absent; a missing key is a warning, and so is any other failure of a "-"
 * key, which never fails the run but is not hidden either; anything else is
 * an error. */
enum sysctl_failure sysctl_failure_policy(int error, bool ignore_failure)
{
	if (sysctl_error_is_refusal(error) || (error == -ENOENT && ignore_failure))
		return SYSCTL_FAILURE_QUIET;
	if (error == -ENOENT || ignore_failure)
		return SYSCTL_FAILURE_WARN;
	return SYSCTL_FAILURE_ERROR;
}

/* Outside the initial network namespace the kernel shows some global keys
 * (the buffer maxima) read-only, with no write bit at all. */
bool sysctl_read_only(const char *root, const char *key)
{
	char path[PATH_MAX_LEN];
	struct stat st;

	return sysctl_path(path, sizeof(path), root, key) == 0 && stat(path, &st) == 0 &&
	       !(st.st_mode & 0222);
}
