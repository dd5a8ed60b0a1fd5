/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

#include "sysctl.h"
#include "util.h"

#define STATE_DIR "/var/lib/wp-panel-nettune"
#define STATE_FILE STATE_DIR "/state"

/* One key the helper changed: the value it had before the first change, and
 * the value written last. */
struct record {
	char key[KEY_MAX];
	char original[VALUE_MAX + 1];
	char applied[VALUE_MAX + 1];
};

struct state {
	size_t n;
	struct record *items;
};

int state_load(const char *root, struct state *ret, unsigned *ret_line);
int state_save(const char *root, const struct state *state);
int state_remove_file(const char *root);
struct record *state_find(struct state *state, const char *key);
int state_add(struct state *state, const char *key, const char *original,
	      const char *applied);
void state_drop(struct state *state, size_t index);
void state_free(struct state *state);
