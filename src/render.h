/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdio.h>

#include "profile.h"

#define FRAGMENT_SYSCTL "/etc/sysctl.d/60-wp-panel-nettune.conf"
#define FRAGMENT_MODULES "/etc/modules-load.d/wp-panel-nettune.conf"

/* The header line status reads back to tell what the fragment was made for. */
#define MARKER "# wp-panel-nettune:"

void render_sysctl(const struct profile *profile, FILE *f);
void render_modules(const struct profile *profile, FILE *f);
