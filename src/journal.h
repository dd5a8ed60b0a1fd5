/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

#include "sysctl.h"
#include "util.h"

#define STATE_DIR "/var/lib/wp-panel-nettune"
/* The undo journal: every step purge takes to put the machine back, in the
 * order it takes them. */
#define STATE_JOURNAL STATE_DIR "/journal"
#define STATE_LOCK STATE_DIR "/lock"
/* The records of 0.1.0 and of the builds before the journal: read while no
 * journal exists, and removed once the journal that replaces them is on
 * disk. */
#define STATE_LEGACY_RECORD STATE_DIR "/state"
#define STATE_LEGACY_TAKEOVER STATE_DIR "/taken-over/record"
/* The sysctl.d fragment as the package last installed it, written by the
 * maintainer scripts whenever ucf left the fragment equal to the rendering:
 * status tells an administrator's edit from an update not taken by it. */
#define STATE_BASE STATE_DIR "/fragment.base"
/* Left by the maintainer scripts when they left the running kernel alone
 * (a chroot, a container), for the next boot that may tune it. */
#define STATE_FIRSTBOOT STATE_DIR "/firstboot"
/* A file put back: /etc/sysctl.d/NAME, and its copy taken-over/NAME. */
#define STATE_NAME_MAX 255
#define STATE_PATH_MAX (sizeof("/etc/sysctl.d/") + STATE_NAME_MAX)
/* A file the package added to the network configuration:
 * /etc/systemd/network/NAME.network.d/50-wp-panel-nettune.conf, and its copy
 * added/NAME.conf; or one of the hooks below, and its copy added/NAME. */
#define STATE_IFUPDOWN_HOOK "/etc/network/if-up.d/wp-panel-nettune"
#define STATE_DHCLIENT_HOOK "/etc/dhcp/dhclient-exit-hooks.d/wp-panel-nettune"
#define STATE_DHCPCD_HOOK "/etc/dhcpcd.exit-hook"
#define STATE_NM_DISPATCHER "/etc/NetworkManager/dispatcher.d/50-wp-panel-nettune"
#define STATE_ADDED_PATH_MAX                                                  \
	(sizeof("/etc/systemd/network/.network.d/50-wp-panel-nettune.conf") + \
	 STATE_NAME_MAX)
/* The longest line of the journal: a key step, its kind, key and three
 * values, tab-separated. */
#define STATE_LINE_MAX (4 + KEY_MAX + 3 * VALUE_MAX + 3)
/* The profile has about 25 keys and the installer's file a dozen: 128
 * lines of the longest kind is more than twice what any journal holds, and
 * bounds what a damaged or planted file costs to refuse (about 420 KiB). */
#define STATE_SIZE_MAX (128 * (STATE_LINE_MAX + 1))
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

/* A file the helper took away: where it goes back, with what mode and
 * owner, and where its copy is, relative to STATE_DIR. */
struct undo_file {
	char path[STATE_PATH_MAX];
	char saved[STATE_PATH_MAX];
	unsigned mode, uid, gid;
};

/* A key that file sets and the fragment does not, set again from it once
 * the file is back: nothing set it at the boots while the file was away. */
struct undo_set {
	char key[KEY_MAX];
	char value[VALUE_MAX + 1];
	size_t file; /* the index of its file in files */
};

/* A file the helper added, removed by purge while it is still byte for byte
 * its copy STATE_DIR/SAVED; and its directory with it, once empty, where the
 * helper made that too. */
struct undo_added {
	char path[STATE_ADDED_PATH_MAX];
	char saved[STATE_PATH_MAX];
	bool new_dir;
};

/* An interface whose default routes the helper gave initial windows itself
 * (the hooks of ifupdown and dhclient): purge takes them off each route
 * that still has exactly these. */
struct undo_windows {
	char ifname[16]; /* IFNAMSIZ */
	unsigned cwnd, rwnd;
};

/* Where a state was read from, besides the journal. */
enum {
	STATE_FROM_LEGACY_RECORD = 1 << 0,
	STATE_FROM_LEGACY_TAKEOVER = 1 << 1,
};

struct state {
	size_t n, cap;
	struct record *items;
	size_t n_files, cap_files;
	struct undo_file *files;
	size_t n_sets, cap_sets;
	struct undo_set *sets;
	size_t n_added, cap_added;
	struct undo_added *added;
	size_t n_windows, cap_windows;
	struct undo_windows *windows;
	unsigned legacy; /* STATE_FROM_* bits: state_save removes those files */
};

int state_lock(const char *root, unsigned timeout_sec, int *ret_fd);
void state_unlock(const char *root, int fd);
int state_load(const char *root, struct state *ret, const char **ret_path,
	       unsigned *ret_line);
int state_load_stream(FILE *f, struct state *ret, unsigned *ret_line);
int state_load_legacy_stream(FILE *f, struct state *ret, unsigned *ret_line);
int state_load_legacy_takeover_stream(FILE *f, struct state *ret, unsigned *ret_line);
int state_write_stream(FILE *f, const struct state *state);
int state_save(const char *root, struct state *state);
int state_remove_file(const char *root);
bool state_empty(const struct state *state);
struct record *state_find(struct state *state, const char *key);
int state_add(struct state *state, const char *key, const char *original,
	      const char *applied);
bool record_is_ours(const struct record *rec, const char *live);
void state_drop(struct state *state, size_t index);
bool state_name_valid(const char *name);
struct undo_file *state_find_file(struct state *state, const char *path);
int state_add_file(struct state *state, const char *path, const char *saved,
		   unsigned mode, unsigned uid, unsigned gid);
void state_drop_file(struct state *state, size_t index);
int state_add_set(struct state *state, size_t file, const char *key, const char *value);
struct undo_added *state_find_added(struct state *state, const char *path);
int state_add_added(struct state *state, const char *path, const char *saved,
		    bool new_dir);
void state_drop_added(struct state *state, size_t index);
struct undo_windows *state_find_windows(struct state *state, const char *ifname);
int state_add_windows(struct state *state, const char *ifname, unsigned cwnd,
		      unsigned rwnd);
void state_drop_windows(struct state *state, size_t index);
void state_free(struct state *state);
