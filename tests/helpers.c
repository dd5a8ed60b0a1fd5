/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "util.h"

char *scratch_new(void)
{
	char *dir = strdup("/tmp/nettune-test.XXXXXX");

	assert_non_null(dir);
	assert_non_null(mkdtemp(dir));
	return dir;
}

static int remove_one(const char *path, const struct stat *st _unused_, int flag _unused_,
		      struct FTW *ftw _unused_)
{
	return remove(path);
}

void scratch_free(char *dir)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

void scratch_write(const char *dir, const char *path, const char *content)
{
	char full[PATH_MAX_LEN], parent[PATH_MAX_LEN];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", dir, path);
	snprintf(parent, sizeof(parent), "%s", full);
	*strrchr(parent, '/') = '\0';
	assert_int_equal(mkdir_parents(parent, 0755), 0);
	f = fopen(full, "we");
	assert_non_null(f);
	fputs(content, f);
	assert_int_equal(fclose(f), 0);
}

char *scratch_read(const char *dir, const char *path)
{
	char full[PATH_MAX_LEN];
	static char buf[65536];
	size_t len;

	snprintf(full, sizeof(full), "%s%s", dir, path);
	if (read_file(full, buf, sizeof(buf), &len) < 0)
		return NULL;
	return buf;
}
