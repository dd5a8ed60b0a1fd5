/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "journal.h"
#include "profile.h"

/* What the fragments were last rendered for, recorded by the maintainer
 * scripts through the rendered command, and read by status. */
#define STATE_RENDERED STATE_DIR "/rendered"

int rendered_read(const char *root, unsigned *ret_cpus, enum congestion *ret_choice);
int rendered_write(const char *root, unsigned cpus, enum congestion choice);
