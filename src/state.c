/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The record of what apply changed, under /var/lib/wp-panel-nettune. Purge
 * reads it with a POSIX shell loop after the helper is gone, so the format is
 * plain: a header, one "key TAB original TAB applied" line a key, and a
 * trailer whose absence shows a truncated file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state.h"

#define STATE_HEADER "# wp-panel-nettune state 1"
#define STATE_COLUMNS "# key\toriginal\tapplied"
#define STATE_TRAILER "# end"

static int parse_record(char *line, struct record *ret)
{
	char *tab1, *tab2;

	tab1 = strchr(line, '\t');
	tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
	if (!tab2 || strchr(tab2 + 1, '\t'))
		return -EBADMSG;
	*tab1 = *tab2 = '\0';
	if (!sysctl_key_valid(line) || tab1[1] == '\0' || tab2[1] == '\0' ||
	    strlen(tab1 + 1) > VALUE_MAX || strlen(tab2 + 1) > VALUE_MAX)
		return -EBADMSG;
	strcpy(ret->key, line);
	strcpy(ret->original, tab1 + 1);
	strcpy(ret->applied, tab2 + 1);
	return 0;
}

/* A missing file is an empty state. A corrupt one is -EBADMSG with the line
 * in *ret_line (0 for a missing header or trailer), and nothing is kept. */
int state_load(const char *root, struct state *ret, unsigned *ret_line)
{
	struct state s = { 0 };
	char *line = NULL;
	bool ended = false;
	size_t cap = 0;
	unsigned n = 0;
	ssize_t len;
	FILE *f;
	int r;

	r = fopen_root(root, STATE_FILE, &f);
	if (r == -ENOENT) {
		*ret = s;
		return 0;
	}
	if (r < 0)
		return r;
	while (r == 0 && (len = getline(&line, &cap, f)) >= 0) {
		struct record rec;

		n++;
		if (len == 0 || line[len - 1] != '\n' || (size_t)len != strlen(line) ||
		    ended) {
			r = -EBADMSG;
			break;
		}
		line[len - 1] = '\0';
		if (n == 1)
			r = strcmp(line, STATE_HEADER) == 0 ? 0 : -EBADMSG;
		else if (strcmp(line, STATE_TRAILER) == 0)
			ended = true;
		else if (line[0] == '#')
			continue;
		else if (parse_record(line, &rec) < 0 || state_find(&s, rec.key))
			r = -EBADMSG;
		else
			r = state_add(&s, rec.key, rec.original, rec.applied);
	}
	if (r == 0 && ferror(f))
		r = -EIO;
	if (r == 0 && !ended) {
		r = -EBADMSG;
		n = 0;
	}
	free(line);
	fclose(f);
	if (r < 0) {
		state_free(&s);
		*ret_line = n;
		return r;
	}
	*ret = s;
	return 0;
}

int state_save(const char *root, const struct state *state)
{
	char path[PATH_MAX_LEN], dir[PATH_MAX_LEN];
	char *data = NULL;
	size_t size = 0;
	FILE *f;
	int r;

	r = root_path(path, sizeof(path), root, STATE_FILE);
	if (r == 0)
		r = root_path(dir, sizeof(dir), root, STATE_DIR);
	if (r < 0)
		return r;
	f = open_memstream(&data, &size);
	if (!f)
		return -ENOMEM;
	fprintf(f, "%s\n%s\n", STATE_HEADER, STATE_COLUMNS);
	for (size_t i = 0; i < state->n; i++)
		fprintf(f, "%s\t%s\t%s\n", state->items[i].key, state->items[i].original,
			state->items[i].applied);
	fprintf(f, "%s\n", STATE_TRAILER);
	if (fclose(f) != 0) {
		free(data);
		return -ENOMEM;
	}
	r = mkdir_parents(dir, 0755);
	if (r == 0)
		r = write_file_atomic(path, data, size, 0644);
	free(data);
	return r;
}

/* Removes the record, and its directory when nothing else is in it. */
int state_remove_file(const char *root)
{
	char path[PATH_MAX_LEN];
	int r;

	r = root_path(path, sizeof(path), root, STATE_FILE);
	if (r < 0)
		return r;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	r = root_path(path, sizeof(path), root, STATE_DIR);
	if (r == 0 && rmdir(path) < 0 && errno != ENOENT && errno != ENOTEMPTY &&
	    errno != EEXIST)
		return -errno;
	return 0;
}

struct record *state_find(struct state *state, const char *key)
{
	for (size_t i = 0; i < state->n; i++)
		if (strcmp(state->items[i].key, key) == 0)
			return &state->items[i];
	return NULL;
}

int state_add(struct state *state, const char *key, const char *original,
	      const char *applied)
{
	struct record *items;

	if (strlen(key) >= KEY_MAX || strlen(original) > VALUE_MAX ||
	    strlen(applied) > VALUE_MAX)
		return -E2BIG;
	/* The shell loop of the package's purge cannot tell an empty field. */
	if (original[0] == '\0' || applied[0] == '\0')
		return -EINVAL;
	items = reallocarray(state->items, state->n + 1, sizeof(*items));
	if (!items)
		return -ENOMEM;
	state->items = items;
	strcpy(items[state->n].key, key);
	strcpy(items[state->n].original, original);
	strcpy(items[state->n].applied, applied);
	state->n++;
	return 0;
}

void state_drop(struct state *state, size_t index)
{
	memmove(&state->items[index], &state->items[index + 1],
		(state->n - index - 1) * sizeof(*state->items));
	state->n--;
}

void state_free(struct state *state)
{
	free(state->items);
	state->items = NULL;
	state->n = 0;
}
