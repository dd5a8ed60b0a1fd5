/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "nettune.h"
#include "route.h"
#include "state.h"
#include "sysctld.h"

/* The initial congestion and receive windows, in segments, that the package
 * gives a default route where fq paces the first flight: the benchmark's
 * decision (bench/README, "The last full run, and the follow-up that
 * decided"). */
#define INITWND_SEGMENTS 32

/* The drop-in that carries them for systemd-networkd, beside the .network
 * file that configures the link; purge removes it. */
#define INITWND_NETWORKD_DIR "/etc/systemd/network/"
#define INITWND_DROPIN_NAME "50-wp-panel-nettune.conf"

enum initwnd_manager {
	MANAGER_NONE,
	MANAGER_NETWORKD,
	MANAGER_NETWORKMANAGER,
	MANAGER_IFUPDOWN,
};

/* What the package does with one default route: gives it the windows
 * through the file from (a networkd drop-in, ifupdown's hook or
 * NetworkManager's dispatcher script; and dhclient's or dhcpcd's where they
 * keep the interface's lease), or leaves it alone, for the reason in why (a
 * phrase). present: from is there; written: as the package writes it. */
struct initwnd_plan {
	enum initwnd_manager manager;
	bool wanted, present, written;
	bool dhclient, dhcpcd;
	char from[STATE_ADDED_PATH_MAX];
	char why[512];
};

/* The fragment asks for fq: then the windows are wanted. */
bool initwnd_fragment_wants(const struct assignments *fragment);

/* Who configures RT's interface, from what the network managers keep under
 * ROOT/run, and what the package does with the route; WANT is
 * initwnd_fragment_wants. */
void initwnd_plan_route(const char *root, const struct route_default *rt, bool want,
			struct initwnd_plan *ret);

const char *initwnd_manager_to_string(enum initwnd_manager manager);

/* The text of the drop-in. */
extern const char initwnd_dropin_text[];

/* Part of apply, under its lock, on the real root only: writes the files
 * the default routes want, each recorded in STATE before it is written, and
 * removes those recorded and still as written where the fragment no longer
 * wants them; then asks systemd-networkd to reload, and gives the routes of
 * ifupdown's interfaces the windows (recorded first). A failure is told, and
 * leaves the rest of apply alone: the kernel refusing a route is no reason
 * to fail an install. */
int initwnd_apply(const struct context *ctx, const struct assignments *fragment,
		  struct state *state);

/* Part of revert: removes the files recorded that are still as written and
 * takes off the windows the helper gave routes itself, then asks
 * systemd-networkd to reload; on the real root only. */
void initwnd_revert(const struct context *ctx, struct state *state);
