/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

/* What the Prometheus node exporter's textfile collector reads: *.prom
 * files in its directory. Debian's is /var/lib/prometheus/node-exporter,
 * owned by root, in a directory the exporter's user owns. */
#define TEXTFILE_NAME "wp-panel-nettune.prom"

int textfile_open(const char *root, const char *dir, int *ret_fd, char *why, size_t size);
int textfile_become_owner(int dir_fd);
int textfile_write(int dir_fd, const char *data, size_t len);
int textfile_remove(int dir_fd);
