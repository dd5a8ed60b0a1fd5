/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

#include "util.h"

/* A scratch directory for one test, removed with everything in it. */
char *scratch_new(void);
void scratch_free(char *dir);
/* Writes a file under dir, creating the directories on the way. */
void scratch_write(const char *dir, const char *path, const char *content);
char *scratch_read(const char *dir, const char *path);
