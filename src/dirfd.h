/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

int dirfd_open(const char *root, const char *path, bool create, int *ret_fd);
bool dirfd_refused(const char *root, const char *path, char *buf, size_t size);
int dirfd_rmdir(const char *root, const char *path);
void dirfd_remove_temporaries(int dir_fd, const char *name);
int dirfd_write_whole(const char *root, const char *dir, const char *name,
		      const char *data, size_t len);
