/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "command.h"
#include "journal.h"
#include "sockops.h"
#include "sysctld.h"

/* The initial congestion and receive windows, in segments, that the
 * sock_ops program gives the passive connections of the ports the
 * administrator lists, where fq paces the first flight. By default no port
 * is listed and the windows are the kernel's: under the benchmark's rule
 * 20 and 32 both trip its guardrails (bench/README, "The decide run of
 * 2026-12-07"); 32 is what the route builds gave, for those who choose it. */
#define INITWND_SEGMENTS 32

/* The setting: the local ports whose passive connections get the windows,
 * numbers separated by blanks, "#" to the end of a line a comment. A
 * conffile, shipped naming none; where it is missing, none either. */
#define INITWND_PORTS_FILE "/etc/wp-panel-nettune/initial-window-ports"
/* Why the program is not attached, where the helper found it could not be
 * (one line): written by whoever tried last, apply or the boot unit, and
 * removed once it is attached or no longer wanted. In /run: a boot tries
 * again. */
#define INITWND_WHY_FILE "/run/wp-panel-nettune-initial-window"

/* The fragment asks for fq: then the windows are wanted. */
bool initwnd_fragment_wants(const struct assignments *fragment);

/* The windows the program is to give and the ports, read from
 * ROOT/INITWND_PORTS_FILE; a word that is no port 1-65535, or one past
 * SOCKOPS_PORTS_MAX, is told as FILE:LINE and skipped. Returns the number
 * of words skipped, or -errno where the file cannot be read (then w has
 * the default ports). */
int initwnd_ports_read(const char *root, struct sockops_windows *w);

/* Part of apply, under its lock, on the real root only: attaches the
 * program where the fragment wants the windows and detaches it where it
 * does not; a program that cannot be loaded is told in one line, recorded
 * in INITWND_WHY_FILE for status, and is no failure. Then takes back what
 * the builds that gave routes the windows wrote (the journal's "added"
 * and "windows" steps), once. */
void initwnd_apply(const struct context *ctx, const struct assignments *fragment,
		   struct state *state);

/* Part of revert: detaches the program and takes back the same steps; on
 * the real root only. */
void initwnd_revert(const struct context *ctx, struct state *state);

/* For journal --seal, under its lock, on the real root only: takes back
 * the "added" steps alone, files, whether or not the running kernel may be
 * tuned; systemd-networkd reads its configuration again where LIVE (the
 * running kernel, and so the system, is this one to change). */
void initwnd_take_back_files(const struct context *ctx, struct state *state, bool live);

/* The program as pinned (-ENOENT: nothing pinned) and, where it is not
 * attached, why apply could not attach it (*ret_why, "" when none was
 * recorded), for status. */
int initwnd_read(struct sockops_state *ret, char *ret_why, size_t size);
