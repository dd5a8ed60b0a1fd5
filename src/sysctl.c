/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading and writing one key under /proc/sys. */
#include <ctype.h>
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
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) &&
		    !strchr("_.-", *p))
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

/* The value as the kernel prints it, whitespace normalized. */
int sysctl_read(const char *root, const char *key, char *buf, size_t size)
{
	char path[PATH_MAX_LEN];
	int r;

	r = sysctl_path(path, sizeof(path), root, key);
	if (r < 0)
		return r;
	r = read_line(path, buf, size);
	if (r < 0)
		return r;
	normalize_space(buf);
	return 0;
}

/* Writes a value the way the kernel prints it back: a vector of numbers
 * separated by tabs, then a newline. The kernel parses any blank as a
 * separator, and a read-back compares byte for byte. Strings keep their
 * spaces: tcp_allowed_congestion_control splits on spaces only. */
static void kernel_form(const char *value, char *buf, size_t size)
{
	bool numeric = true;

	for (const char *p = value; *p; p++)
		if (!isdigit((unsigned char)*p) && *p != ' ' && *p != '-')
			numeric = false;
	snprintf(buf, size, "%s\n", value);
	if (numeric)
		for (char *p = buf; *p; p++)
			if (*p == ' ')
				*p = '\t';
}

int sysctl_write(const char *root, const char *key, const char *value)
{
	char path[PATH_MAX_LEN];
	char data[VALUE_MAX + 2];
	ssize_t n;
	size_t len;
	int fd, r;

	if (strlen(value) > VALUE_MAX || strchr(value, '\n'))
		return -EINVAL;
	r = sysctl_path(path, sizeof(path), root, key);
	if (r < 0)
		return r;
	kernel_form(value, data, sizeof(data));
	len = strlen(data);

	/* O_TRUNC matters only for the files of a --root tree; /proc/sys
	 * ignores it. The kernel takes a value in one write. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	n = write(fd, data, len);
	r = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
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

/* Outside the initial network namespace the kernel shows some global keys
 * (net.core.rmem_max) read-only, with no write bit at all. */
bool sysctl_read_only(const char *root, const char *key)
{
	char path[PATH_MAX_LEN];
	struct stat st;

	return sysctl_path(path, sizeof(path), root, key) == 0 && stat(path, &st) == 0 &&
	       !(st.st_mode & 0222);
}
