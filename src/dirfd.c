/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Directories under the root, opened one component at a time without
 * following a symlink: a link planted at /var/lib/wp-panel-nettune, or at
 * any directory above it, must not send what the helper writes as root
 * somewhere else. The root prefix itself ("" or what --root names) is
 * trusted. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirfd.h"
#include "util.h"

/* Walks root + path; on a failure *stop is the length of the part of path
 * that names the component at fault. A symlink is -ELOOP, anything else
 * that is not a directory -ENOTDIR. */
static int walk(const char *root, const char *path, bool create, int *ret_fd, size_t *stop)
{
	const char *p = path;
	int fd, r = 0;

	*stop = 0;
	if (path[0] != '/')
		return -EINVAL;
	fd = open(root[0] ? root : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		char name[NAME_MAX + 1];
		size_t len;
		struct stat st;
		int sub;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (len == 0)
			break;
		*stop = (size_t)(p - path) + len;
		if (len > NAME_MAX || (len <= 2 && strncmp(p, "..", len) == 0)) {
			r = -EINVAL;
			break;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 && errno == ENOENT && create) {
			if (mkdirat(fd, name, 0755) < 0 && errno != EEXIST) {
				r = -errno;
				break;
			}
			/* The new entry survives a crash with what is written in it. */
			(void)fsync(fd);
			sub = openat(fd, name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (sub < 0) {
			r = -errno;
			if ((r == -ELOOP || r == -ENOTDIR) &&
			    fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
				r = S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;
			break;
		}
		close(fd);
		fd = sub;
	}
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

/* Opens the directory root + path (absolute). With create, a missing
 * component is made, mode 0755. */
int dirfd_open(const char *root, const char *path, bool create, int *ret_fd)
{
	size_t stop;

	return walk(root, path, create, ret_fd, &stop);
}

/* For a message: "ROOT/var/lib is a symlink" when a component of root +
 * path is refused; false when none is (now). */
bool dirfd_refused(const char *root, const char *path, char *buf, size_t size)
{
	size_t stop;
	int fd, r;

	r = walk(root, path, false, &fd, &stop);
	if (r == 0)
		close(fd);
	if (r != -ELOOP && r != -ENOTDIR)
		return false;
	snprintf(buf, size, "%s%.*s %s", root, (int)stop, path,
		 r == -ELOOP ? "is a symlink" : "is not a directory");
	return true;
}

/* The directory of the absolute PATH under ROOT, opened as dirfd_open opens
 * it, and PATH's last component in *ret_name (-EINVAL when it has none). */
int dirfd_open_parent(const char *root, const char *path, int *ret_fd,
		      const char **ret_name)
{
	char parent[PATH_MAX_LEN];
	const char *slash = strrchr(path, '/');

	if (!slash || slash[1] == '\0' || (size_t)(slash - path) >= sizeof(parent))
		return -EINVAL;
	memcpy(parent, path, (size_t)(slash - path));
	parent[slash - path] = '\0';
	*ret_name = slash + 1;
	return dirfd_open(root, parent[0] ? parent : "/", false, ret_fd);
}

/* Removes the directory root + path if it is empty, through its parent. */
int dirfd_rmdir(const char *root, const char *path)
{
	const char *name;
	int fd, r;

	r = dirfd_open_parent(root, path, &fd, &name);
	if (r < 0)
		return r;
	r = unlinkat(fd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
	close(fd);
	return r;
}

/* NAME in DIR_FD read whole into BUF, at most MAX bytes (-EFBIG beyond),
 * without following a symlink (-ELOOP) or blocking on a FIFO; anything but
 * a regular file is -EBADFD. */
int dirfd_read_whole(int dir_fd, const char *name, char *buf, size_t max, size_t *ret_len)
{
	ssize_t n;
	char more;
	int fd, r;

	r = keep_if_regular(openat(dir_fd, name,
				   O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC),
			    &fd);
	if (r < 0)
		return r;
	n = read(fd, buf, max);
	if (n < 0)
		r = -errno;
	else if ((size_t)n == max && read(fd, &more, 1) > 0)
		r = -EFBIG;
	close(fd);
	if (r < 0)
		return r;
	*ret_len = (size_t)n;
	return 0;
}

/* write_file_atomic_at() names its temporary file NAME.tmpXXXXXX; a run
 * killed before the rename leaves it behind, and the next run, holding the
 * lock, removes those of NAME in dir_fd. */
void dirfd_remove_temporaries(int dir_fd, const char *name)
{
	size_t len = strlen(name);
	struct dirent *de;
	int fd = dup(dir_fd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	/* A dup shares the offset of dir_fd, which an earlier pass left at the
	 * end. */
	rewinddir(dir);
	while ((de = readdir(dir)))
		if (strncmp(de->d_name, name, len) == 0 &&
		    startswith(de->d_name + len, ".tmp"))
			(void)unlinkat(dir_fd, de->d_name, 0);
	closedir(dir);
}

/* NAME in the directory root + dir (made if missing, reached as dirfd_open
 * reaches it), written whole or not at all, mode 0644, once what a run
 * killed earlier left of it is removed: the small files of the state
 * directory. */
int dirfd_write_whole(const char *root, const char *dir, const char *name,
		      const char *data, size_t len)
{
	int dir_fd, r;

	r = dirfd_open(root, dir, true, &dir_fd);
	if (r < 0)
		return r;
	dirfd_remove_temporaries(dir_fd, name);
	r = write_file_atomic_at(dir_fd, name, data, len, 0644);
	close(dir_fd);
	return r;
}
