/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "journal.h"

/* What the package's purge may take from the helper, which it outlives:
 * written by "journal --seal" at the prerm's remove, read by debian/postrm. */
#define STATE_SEAL STATE_DIR "/sealed"
#define SEAL_HEADER "# wp-panel-nettune seal 1"
/* Larger than any seal: the header, the root, the kernel's line with the
 * longest reason escaped, the journal's. */
#define SEAL_SIZE_MAX 4096

/* POSIX cksum's CRC of DATA: the CRC-32 of polynomial 0x04C11DB7, most
 * significant bit first, over the bytes and then the length, inverted. */
uint32_t seal_cksum(const void *data, size_t len);

/* ROOT's file system and inode as "stat -f -c %i ROOT" and "stat -c %i ROOT"
 * print them, joined by a colon: where purge runs, the same root. */
int seal_root_id(const char *root, char *buf, size_t size);

/* Writes the seal whole: its header and the lines of BODY. */
int seal_write(const char *root, const char *body);
/* Removes it; 0 where there is none. */
int seal_remove(const char *root);
