/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdio.h>

#include "profile.h"

#define FRAGMENT_SYSCTL "/etc/sysctl.d/60-wp-panel-nettune.conf"
#define FRAGMENT_MODULES "/etc/modules-load.d/wp-panel-nettune.conf"

/* The header line that says what the fragment was rendered for, to whoever
 * reads it; status reads the same facts from the record (rendered.h). */
#define MARKER "# wp-panel-nettune:"

void render_sysctl(const struct profile *profile, FILE *f);
void render_modules(const struct profile *profile, FILE *f);
