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
bool sysctl_read_only(const char *root, const char *key);
