/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* The file the WP Panel installer's built-in tuning writes, the copies of
 * what it writes (one file a variant), and where a taken-over file is kept;
 * the undo journal (journal.h) says where it goes back. */
#define TAKEOVER_ETC_DIR "/etc/sysctl.d"
#define TAKEOVER_NAME "99-wp-panel.conf"
#define TAKEOVER_PATH TAKEOVER_ETC_DIR "/" TAKEOVER_NAME
#define TAKEOVER_VARIANTS "/usr/share/wp-panel-nettune/installer"
#define TAKEOVER_DIR "/var/lib/wp-panel-nettune/taken-over"
/* Larger than anything the installer writes: not its file. */
#define TAKEOVER_SIZE_MAX 65536

struct assignments;
struct state;
void takeover_fragment_keys(const char *root, struct assignments *ret);
void takeover_note_sets(const char *root, struct state *state,
			const struct assignments *fragment);
