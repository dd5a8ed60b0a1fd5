/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

int dirfd_open(const char *root, const char *path, bool create, int *ret_fd);
bool dirfd_refused(const char *root, const char *path, char *buf, size_t size);
int dirfd_open_parent(const char *root, const char *path, int *ret_fd,
		      const char **ret_name);
int dirfd_rmdir(const char *root, const char *path);
int dirfd_read_whole(int dir_fd, const char *name, char *buf, size_t max, size_t *ret_len);
void dirfd_remove_temporaries(int dir_fd, const char *name);
int dirfd_write_whole(const char *root, const char *dir, const char *name,
		      const char *data, size_t len);
