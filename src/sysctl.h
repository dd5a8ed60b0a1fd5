/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define KEY_MAX 256

bool sysctl_key_valid(const char *key);
int sysctl_path(char *buf, size_t size, const char *root, const char *key);
int sysctl_read(const char *root, const char *key, char *buf, size_t size);
int sysctl_write(const char *root, const char *key, const char *value);
bool sysctl_error_is_refusal(int error);

/* How loudly a key that cannot be read or written is reported. */
enum sysctl_failure {
	SYSCTL_FAILURE_QUIET, /* skipped, said at debug level */
	SYSCTL_FAILURE_WARN, /* skipped with a warning */
	SYSCTL_FAILURE_ERROR, /* an error: the run fails, after the other keys */
};
enum sysctl_failure sysctl_failure_policy(int error, bool ignore_failure);
bool sysctl_read_only(const char *root, const char *key);
