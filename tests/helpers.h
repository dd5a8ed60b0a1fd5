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

/* The first lines of every journal the helper writes (journal.c). */
#define JOURNAL_HEADER                                \
	"# wp-panel-nettune journal 1\n"              \
	"# key\tKEY\tORIGINAL\tAPPLIED[\tPENDING]\n"  \
	"# file\tPATH\tMODE\tUID\tGID\tSAVED\n"       \
	"# set\tKEY\tVALUE\n"                         \
	"# added\tPATH\tSAVED\tnew-dir|dir-existed\n" \
	"# windows\tIFACE\tCWND\tRWND\n"
