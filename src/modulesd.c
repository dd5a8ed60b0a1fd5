/* SPDX-License-Identifier: GPL-2.0-or-later */
/* modules-load.d files, as systemd-modules-load reads them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "modulesd.h"
#include "util.h"

static bool module_name_valid(const char *name)
{
	if (*name == '\0' || strlen(name) >= MODULE_NAME_MAX)
		return false;
	for (const char *p = name; *p; p++)
		if (!ascii_isalnum(*p) && *p != '_' && *p != '-')
			return false;
	return true;
}

/* A modules-load.d file: one module name a line, "#" and ";" comments. */
int modulesd_parse_file(const char *root, const char *file, struct modules *ret,
			unsigned *ret_line)
{
	char buf[LINE_MAX_LEN];
	struct modules m = { 0 };
	unsigned n = 0;
	FILE *f;
	int r;

	r = fopen_root(root, file, &f);
	if (r < 0)
		return r;
	while (fgets(buf, sizeof(buf), f)) {
		char *name;

		n++;
		if (!strchr(buf, '\n') && !feof(f)) {
			r = -E2BIG;
			break;
		}
		name = strip(buf);
		if (*name == '\0' || *name == '#' || *name == ';')
			continue;
		if (!module_name_valid(name)) {
			r = -EINVAL;
			break;
		}
		if (m.n == MODULES_MAX) {
			r = -E2BIG;
			break;
		}
		strcpy(m.names[m.n++], name);
	}
	fclose(f);
	if (r < 0) {
		*ret_line = n;
		return r;
	}
	*ret = m;
	return 0;
}
