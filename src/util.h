/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

/* A parameter a callback's or a command's signature gives it, and it does
 * not need. */
#define _unused_ __attribute__((unused))

/* The longest value or line the helper accepts; the kernel's own sysctl
 * values are far shorter. */
#define VALUE_MAX 1024
#define LINE_MAX_LEN 4096
#define PATH_MAX_LEN 4096
/* The largest file read to its end (sysctl.d and modules-load.d files,
 * mountinfo). Real ones are a few KiB and the streams' memory does not grow
 * with size; the bound keeps a run short, well above the 50 MB sysctl.d file
 * bench/helper-bench reads. */
#define READ_SIZE_MAX (256 * 1024 * 1024)

int root_path(char *buf, size_t size, const char *root, const char *path);
bool root_exists(const char *root, const char *path);

#include <stdio.h>

int fopen_root(const char *root, const char *path, FILE **ret_file);
int fdopen_or_close(int fd, FILE **ret_file);
int open_regular(const char *path, int flags, int *ret_fd);
int keep_if_regular(int fd, int *ret_fd);
int stat_regular(const char *path, uint64_t max_size);
int read_file(const char *path, char *buf, size_t size, size_t *ret_len);
int read_line_fd(int fd, char *buf, size_t size);
int read_line(const char *path, char *buf, size_t size);
int write_file_atomic(const char *path, const char *data, size_t len, mode_t mode);
int write_file_atomic_at(int dir_fd, const char *name, const char *data, size_t len,
			 mode_t mode);
const char *file_strerror(int error);
int mkdir_parents(const char *path, mode_t mode);

/* Byte classes as the C locale has them, whatever locale the helper runs in
 * for its messages: the kernel, systemd and kmod read these bytes so, and
 * an 8-bit locale's islower() takes 0xe4 for a letter. */
static inline bool ascii_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool ascii_islower(char c)
{
	return c >= 'a' && c <= 'z';
}

static inline bool ascii_isalnum(char c)
{
	return ascii_isdigit(c) || ascii_islower(c) || (c >= 'A' && c <= 'Z');
}

static inline bool ascii_isspace(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

int grow_array(void *items_ptr, size_t *cap, size_t n, size_t size);
int parse_u64(const char *s, uint64_t *ret);
void normalize_space(char *s);
char *strip(char *s);
bool startswith(const char *s, const char *prefix);
