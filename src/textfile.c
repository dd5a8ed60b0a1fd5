/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The metrics file for the node exporter. Its directory sits in one that an
 * unprivileged user owns (Debian's prometheus owns /var/lib/prometheus), who
 * can swap the directory, or anything in one of its own, for a symlink at
 * any moment. So the directory is opened once, without following a symlink
 * on the way, and checked; everything after is done relative to that
 * descriptor, as the directory's owner: a swap between two steps changes
 * nothing outside it, and nothing the owner could not change. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirfd.h"
#include "textfile.h"
#include "util.h"

/* -ENOENT when the directory does not exist (no node exporter here);
 * -ELOOP or -ENOTDIR when a component is a symlink or not a directory, and
 * -EPERM when others may write in it, with the reason in why. */
int textfile_open(const char *root, const char *dir, int *ret_fd, char *why, size_t size)
{
	struct stat st;
	int fd, r;

	why[0] = '\0';
	r = dirfd_open(root, dir, false, &fd);
	if (r == -ELOOP || r == -ENOTDIR) {
		if (!dirfd_refused(root, dir, why, size))
			snprintf(why, size, "%s%s changed while it was opened", root, dir);
		return r;
	}
	if (r < 0)
		return r;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	/* Anyone who may write in it may swap what it holds. */
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, size, "%s%s is writable by its group or others", root, dir);
		close(fd);
		return -EPERM;
	}
	*ret_fd = fd;
	return 0;
}

/* Run as root, the file is written as the directory's owner, who may write
 * there anyway; a directory root owns is written as root. */
int textfile_become_owner(int dir_fd)
{
	struct stat st;

	if (fstat(dir_fd, &st) < 0)
		return -errno;
	if (geteuid() != 0 || st.st_uid == 0)
		return 0;
	if (setgroups(0, NULL) < 0 || setgid(st.st_gid) < 0 || setuid(st.st_uid) < 0)
		return -errno;
	/* Never a way back to root. */
	if (setuid(0) == 0)
		return -EPERM;
	return 0;
}

/* A temporary file made with O_EXCL|O_NOFOLLOW, its mode set through its
 * descriptor, renamed over the old one; the collector reads only *.prom,
 * so it never sees the temporary one. A run killed before the rename leaves
 * TEXTFILE_NAME.tmpXXXXXX, removed by the next run. */
int textfile_write(int dir_fd, const char *data, size_t len)
{
	dirfd_remove_temporaries(dir_fd, TEXTFILE_NAME);
	return write_file_atomic_at(dir_fd, TEXTFILE_NAME, data, len, 0644);
}

/* Metrics of an earlier run would go on saying all is well. */
int textfile_remove(int dir_fd)
{
	if (unlinkat(dir_fd, TEXTFILE_NAME, 0) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}
