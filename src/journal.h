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
/* The record of 0.1.0: read while no journal exists, and removed once the
 * journal that replaces it is on disk. */
#define STATE_LEGACY_RECORD STATE_DIR "/state"
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

/* key KEY ORIGINAL APPLIED [PENDING]: one key the helper changed, the value
 * it had before the first change, the value the kernel held after the last
 * write, and the value being written now, if any. The pending value is on
 * disk before the write reaches the kernel, so that a run killed in between
 * still knows the key is its own. */
struct record {
	char key[KEY_MAX];
	char original[VALUE_MAX + 1];
	char applied[VALUE_MAX + 1];
	char pending[VALUE_MAX + 1]; /* "" when no write is under way */
};

/* file PATH MODE UID GID SAVED: a file the helper took away, where it goes
 * back, with what mode and owner, and where its copy is, relative to
 * STATE_DIR. */
struct undo_file {
	char path[STATE_PATH_MAX];
	char saved[STATE_PATH_MAX];
	unsigned mode, uid, gid;
};

/* set KEY VALUE: a key that file sets and the fragment does not, set again
 * from it once the file is back: nothing set it at the boots while the file
 * was away. On disk, the file is the file step before it. */
struct undo_set {
	char key[KEY_MAX];
	char value[VALUE_MAX + 1];
	char file[STATE_PATH_MAX]; /* the path of its file step */
};

/* added PATH SAVED new-dir|dir-existed: a file the helper added, removed by
 * purge while it is still byte for byte its copy STATE_DIR/SAVED; and its
 * directory with it, once empty, where the helper made that too. */
struct undo_added {
	char path[STATE_ADDED_PATH_MAX];
	char saved[STATE_PATH_MAX];
	bool new_dir;
};

/* windows IFACE CWND RWND: an interface whose default routes the helper
 * gave initial windows itself (the hooks of ifupdown and dhclient): purge
 * takes them off each route that still has exactly these. */
struct undo_windows {
	char ifname[16]; /* IFNAMSIZ */
	unsigned cwnd, rwnd;
};

/* The kinds of step, in the order the journal lists them: the keys, then
 * each file with the keys set from it, then the added files, then the
 * interfaces. */
enum step_kind {
	STEP_KEY,
	STEP_FILE,
	STEP_SET,
	STEP_ADDED,
	STEP_WINDOWS,
};

/* One line of the journal. */
struct step {
	enum step_kind kind;
	union {
		struct record key;
		struct undo_file file;
		struct undo_set set;
		struct undo_added added;
		struct undo_windows windows;
	};
};

/* The journal's steps in the order of the file: state_add puts each in its
 * place, so that the array is what is written. */
struct state {
	size_t n, cap;
	struct step *steps;
	bool legacy; /* read from 0.1.0's record: state_save removes it */
};

int state_lock(const char *root, unsigned timeout_sec, int *ret_fd);
void state_unlock(const char *root, int fd);
int state_load(const char *root, struct state *ret, const char **ret_path,
	       unsigned *ret_line);
int state_load_stream(FILE *f, struct state *ret, unsigned *ret_line);
int state_load_legacy_stream(FILE *f, struct state *ret, unsigned *ret_line);
int state_write_stream(FILE *f, const struct state *state);
/* The journal's bytes as state_save writes them, in a buffer to free:
 * -EFBIG past STATE_SIZE_MAX. */
int state_format(const struct state *state, char **ret_data, size_t *ret_size);
int state_save(const char *root, struct state *state);
int state_remove_file(const char *root);
bool state_empty(const struct state *state);
bool state_name_valid(const char *name);

/* A step as purge's shell loop takes it, or -E2BIG or -EINVAL. */
int step_key(struct step *ret, const char *key, const char *original, const char *applied);
int step_file(struct step *ret, const char *path, const char *saved, unsigned mode,
	      unsigned uid, unsigned gid);
int step_set(struct step *ret, const char *file, const char *key, const char *value);
int step_added(struct step *ret, const char *path, const char *saved, bool new_dir);
int step_windows(struct step *ret, const char *ifname, unsigned cwnd, unsigned rwnd);
bool record_is_ours(const struct record *rec, const char *live);

int state_add(struct state *state, const struct step *step);
struct step *state_find(struct state *state, enum step_kind kind, const char *name);
void state_drop(struct state *state, struct step *step);
void state_free(struct state *state);
