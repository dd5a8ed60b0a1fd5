/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

#include "sysctl.h"
#include "util.h"

#define STATE_DIR "/var/lib/wp-panel-nettune"
#define STATE_FILE STATE_DIR "/state"
#define STATE_LOCK STATE_DIR "/lock"
/* The sysctl.d fragment as the package last installed it, written by the
 * maintainer scripts whenever ucf left the fragment equal to the rendering:
 * status tells an administrator's edit from an update not taken by it. */
#define STATE_BASE STATE_DIR "/fragment.base"
/* Left by the maintainer scripts when they left the running kernel alone
 * (a chroot, a container), for the next boot that may tune it. */
#define STATE_FIRSTBOOT STATE_DIR "/firstboot"
/* The longest line of the record: a key and three values, tab-separated. */
#define STATE_LINE_MAX (KEY_MAX + 3 * VALUE_MAX + 3)
/* The profile has about 25 keys: 64 lines of the longest kind is more than
 * twice what any record holds, and bounds what a damaged or planted file
 * costs to refuse (about 210 KiB). */
#define STATE_SIZE_MAX (64 * (STATE_LINE_MAX + 1))
/* How long apply and revert wait for another run to finish. */
#define STATE_LOCK_TIMEOUT_SEC 60

/* One key the helper changed: the value it had before the first change, the
 * value the kernel held after the last write, and the value being written
 * now, if any. The pending value is on disk before the write reaches the
 * kernel, so that a run killed in between still knows the key is its own. */
struct record {
	char key[KEY_MAX];
	char original[VALUE_MAX + 1];
	char applied[VALUE_MAX + 1];
	char pending[VALUE_MAX + 1]; /* "" when no write is under way */
};

struct state {
	size_t n, cap;
	struct record *items;
};

int state_lock(const char *root, unsigned timeout_sec, int *ret_fd);
void state_unlock(const char *root, int fd);
int state_load(const char *root, struct state *ret, unsigned *ret_line);
int state_load_stream(FILE *f, struct state *ret, unsigned *ret_line);
int state_write_stream(FILE *f, const struct state *state);
int state_save(const char *root, const struct state *state);
int state_remove_file(const char *root);
struct record *state_find(struct state *state, const char *key);
int state_add(struct state *state, const char *key, const char *original,
	      const char *applied);
bool record_is_ours(const struct record *rec, const char *live);
void state_drop(struct state *state, size_t index);
void state_free(struct state *state);
