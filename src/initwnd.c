/* SPDX-License-Identifier: GPL-2.0-or-later */
/* initwnd: the initial congestion and receive windows of the default routes.
 * They are route attributes, not sysctls: a DHCP renewal or a reboot adds
 * the route again without them unless the network manager's own
 * configuration carries them. So the package writes them where the manager
 * that configures the route reads them, and nowhere else:
 *
 *   systemd-networkd, a route learned from DHCPv4: a drop-in beside the
 *     link's .network file, [DHCPv4] InitialCongestionWindow= and
 *     InitialAdvertisedReceiveWindow=. netplan writes .network files, so
 *     its DHCP links are the same.
 *   systemd-networkd, a static route (Gateway=, [Route]): left alone. A
 *     drop-in cannot change a route the .network file configures: a [Route]
 *     with the same gateway and the windows is a second route, and the
 *     kernel keeps both, the first one added in use (systemd 257).
 *   ifupdown, which has no setting for them: a hook in if-up.d that runs
 *     "wp-panel-nettune windows IFACE" each time an interface comes
 *     up, and for a new lease one in dhclient's exit hooks where dhclient
 *     keeps the lease, or dhcpcd's exit hook where dhcpcd does (it may add
 *     the route after ifup is done); the helper replaces the route with the same one and
 *     the windows (route.c), and purge takes them off again.
 *   NetworkManager, which has no setting for a default route's windows
 *     either: a dispatcher script that runs "wp-panel-nettune windows
 *     IFACE" when NetworkManager brings an interface up and when DHCP
 *     changes its configuration, as the ifupdown hook does.
 *   a router advertisement's route: left alone; no manager has a setting,
 *     and the kernel adds it again at each advertisement.
 *
 * Who configures a link is read from what each manager keeps under /run,
 * never assumed from what is installed. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/rtnetlink.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <net/if.h>
#include <unistd.h>

#include "dirfd.h"
#include "initwnd.h"
#include "log.h"
#include "render.h"

extern char **environ;

#define ADDED_DIR STATE_DIR "/added"
#define DROPIN_SIZE_MAX 65536

const char initwnd_dropin_text[] =
	"# The initial windows of the routes this link learns from DHCP, written\n"
	"# by wp-panel-nettune where fq paces the first flight (wp-panel-nettune(8)).\n"
	"# Purging the package removes this file.\n"
	"[DHCPv4]\n"
	"InitialCongestionWindow=32\n"
	"InitialAdvertisedReceiveWindow=32\n";

static const char ifupdown_hook_text[] =
	"#!/bin/sh\n"
	"# The initial windows of the default routes of each interface ifupdown\n"
	"# brings up, given by wp-panel-nettune where fq paces the first flight\n"
	"# (wp-panel-nettune(8)). Purging the package removes this file.\n"
	"case $IFACE in lo | --all) exit 0 ;; esac\n"
	"[ -x /usr/sbin/wp-panel-nettune ] || exit 0\n"
	"/usr/sbin/wp-panel-nettune windows \"$IFACE\" >/dev/null 2>&1 || true\n";

static const char dhclient_hook_text[] =
	"# The initial windows of the default routes dhclient adds at a new lease,\n"
	"# given by wp-panel-nettune where fq paces the first flight\n"
	"# (wp-panel-nettune(8)). Sourced by dhclient-script. Purging the package\n"
	"# removes this file.\n"
	"case $reason in\n"
	"BOUND | REBOOT | RENEW | REBIND)\n"
	"\tif [ -x /usr/sbin/wp-panel-nettune ]; then\n"
	"\t\t/usr/sbin/wp-panel-nettune windows \"$interface\" >/dev/null 2>&1 || true\n"
	"\tfi\n"
	"\t;;\n"
	"esac\n";

static const char dhcpcd_hook_text[] =
	"# The initial windows of the default routes dhcpcd adds at a new lease,\n"
	"# given by wp-panel-nettune where fq paces the first flight\n"
	"# (wp-panel-nettune(8)). Sourced by dhcpcd-run-hooks. Purging the package\n"
	"# removes this file.\n"
	"case $reason in\n"
	"BOUND | REBOOT | RENEW | REBIND | STATIC)\n"
	"\tif [ -x /usr/sbin/wp-panel-nettune ]; then\n"
	"\t\t/usr/sbin/wp-panel-nettune windows \"$interface\" >/dev/null 2>&1 || true\n"
	"\tfi\n"
	"\t;;\n"
	"esac\n";

static const char nm_dispatcher_text[] =
	"#!/bin/sh\n"
	"# The initial windows of the default routes of each interface\n"
	"# NetworkManager brings up or gets a new lease for, given by\n"
	"# wp-panel-nettune where fq paces the first flight (wp-panel-nettune(8)).\n"
	"# Purging the package removes this file.\n"
	"case $2 in up | dhcp4-change | dhcp6-change | reapply) ;; *) exit 0 ;; esac\n"
	"[ -n \"$1\" ] && [ -x /usr/sbin/wp-panel-nettune ] || exit 0\n"
	"/usr/sbin/wp-panel-nettune windows \"$1\" >/dev/null 2>&1 || true\n";

/* Each file the package may add: its text, its mode, and the name of its
 * copy under added/ (NULL: NAME.conf, after the .network file). */
struct carrier {
	const char *path; /* NULL: a networkd drop-in */
	const char *text;
	mode_t mode;
	const char *saved;
};

static const struct carrier carriers[] = {
	{ NULL, initwnd_dropin_text, 0644, NULL },
	{ STATE_IFUPDOWN_HOOK, ifupdown_hook_text, 0755, "added/if-up.d" },
	{ STATE_DHCLIENT_HOOK, dhclient_hook_text, 0644, "added/dhclient-exit-hook" },
	{ STATE_DHCPCD_HOOK, dhcpcd_hook_text, 0644, "added/dhcpcd-exit-hook" },
	{ STATE_NM_DISPATCHER, nm_dispatcher_text, 0755, "added/nm-dispatcher" },
};

static const struct carrier *carrier_of(const char *path)
{
	for (size_t i = 1; i < ELEMENTSOF(carriers); i++)
		if (strcmp(path, carriers[i].path) == 0)
			return &carriers[i];
	return &carriers[0];
}

/* What ROOT/PATH holds: 1 the text the package writes there, byte for
 * byte, 0 something else, or the error of opening it (-ENOENT: nothing). */
static int carrier_state(const char *root, const char *path)
{
	const char *text = carrier_of(path)->text;
	size_t len = strlen(text), got;
	char buf[1024];
	FILE *f;
	int r;

	r = fopen_root(root, path, &f);
	if (r < 0)
		return r;
	got = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return got == len && memcmp(buf, text, len) == 0;
}

static const char *const manager_names[] = {
	[MANAGER_NONE] = "none",
	[MANAGER_NETWORKD] = "systemd-networkd",
	[MANAGER_NETWORKMANAGER] = "NetworkManager",
	[MANAGER_IFUPDOWN] = "ifupdown",
};

const char *initwnd_manager_to_string(enum initwnd_manager manager)
{
	return manager_names[manager];
}

bool initwnd_fragment_wants(const struct assignments *fragment)
{
	const struct assignment *qdisc =
		sysctld_winner(fragment, "net.core.default_qdisc");

	return qdisc && strcmp(qdisc->value, "fq") == 0;
}

/* What systemd-networkd says of a link in ROOT/run/systemd/netif/links/N:
 * 1 and the .network file when it configures it, 0 when it does not (no
 * file: networkd is not running, or the link is not its own). */
static int networkd_link(const char *root, int ifindex, char *network_file, size_t size,
			 char *dropins, size_t dropins_size)
{
	char path[PATH_MAX_LEN], line[LINE_MAX_LEN];
	bool configured = false;
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "/run/systemd/netif/links/%d", ifindex);
	r = fopen_root(root, path, &f);
	if (r < 0)
		return r == -ENOENT ? 0 : r;
	network_file[0] = dropins[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, "ADMIN_STATE=configured") == 0 ||
		    strcmp(line, "ADMIN_STATE=configuring") == 0)
			configured = true;
		else if (startswith(line, "NETWORK_FILE="))
			snprintf(network_file, size, "%s", line + strlen("NETWORK_FILE="));
		else if (startswith(line, "NETWORK_FILE_DROPINS="))
			snprintf(dropins, dropins_size, "%s",
				 line + strlen("NETWORK_FILE_DROPINS="));
	}
	fclose(f);
	return configured && network_file[0] == '/';
}

/* Whether NetworkManager manages link N: its state file
 * ROOT/run/NetworkManager/devices/N says managed=true (it writes one for an
 * unmanaged device too, with managed=false). */
static bool nm_manages(const char *root, int ifindex)
{
	char path[PATH_MAX_LEN], line[LINE_MAX_LEN];
	bool managed = false;
	FILE *f;

	snprintf(path, sizeof(path), "/run/NetworkManager/devices/%d", ifindex);
	if (fopen_root(root, path, &f) < 0)
		return false;
	while (!managed && fgets(line, sizeof(line), f))
		managed = strcmp(line, "managed=true\n") == 0;
	fclose(f);
	return managed;
}

/* A line of FILE that sets an initial window. */
static bool sets_windows(const char *root, const char *file)
{
	char line[LINE_MAX_LEN];
	bool found = false;
	FILE *f;

	if (fopen_root(root, file, &f) < 0)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *s = line + strspn(line, " \t");

		found = startswith(s, "InitialCongestionWindow") ||
			startswith(s, "InitialAdvertisedReceiveWindow");
	}
	fclose(f);
	return found;
}

/* The .network file, or a drop-in of it other than ours, sets a window: the
 * administrator's choice. DROPINS is networkd's quoted, space-separated
 * list. Its name, in *ret. */
static bool configuration_sets_windows(const char *root, const char *network_file,
				       char *dropins, const char **ret)
{
	if (sets_windows(root, network_file)) {
		*ret = network_file;
		return true;
	}
	for (char *save = NULL, *p = strtok_r(dropins, "\" ", &save); p;
	     p = strtok_r(NULL, "\" ", &save)) {
		const char *base = strrchr(p, '/');

		if (base && strcmp(base + 1, INITWND_DROPIN_NAME) == 0)
			continue;
		if (sets_windows(root, p)) {
			*ret = p;
			return true;
		}
	}
	return false;
}

static void plan_networkd(const char *root, const struct route_default *rt,
			  const char *network_file, char *dropins,
			  struct initwnd_plan *ret)
{
	const char *base = strrchr(network_file, '/') + 1, *setter;
	char proto[16];
	size_t len = strlen(base);

	if (configuration_sets_windows(root, network_file, dropins, &setter)) {
		snprintf(ret->why, sizeof(ret->why), "%s sets initial windows of its own",
			 setter);
		return;
	}
	switch (rt->protocol) {
	case RTPROT_DHCP:
		if (len <= strlen(".network") || len > STATE_NAME_MAX ||
		    strcmp(base + len - strlen(".network"), ".network") != 0 ||
		    !state_name_valid(base)) {
			snprintf(ret->why, sizeof(ret->why),
				 "the name of %s has characters the package's purge does not accept",
				 network_file);
			return;
		}
		ret->wanted = true;
		snprintf(ret->from, sizeof(ret->from), "%s%s.d/%s", INITWND_NETWORKD_DIR,
			 base, INITWND_DROPIN_NAME);
		return;
	case RTPROT_STATIC:
		snprintf(ret->why, sizeof(ret->why),
			 "systemd-networkd adds it from %s (Gateway= or [Route]), and a "
			 "drop-in would only add a second default route beside it; "
			 "InitialCongestionWindow=%d and InitialAdvertisedReceiveWindow=%d "
			 "in a [Route] section of that file would give it the windows",
			 network_file, INITWND_SEGMENTS, INITWND_SEGMENTS);
		return;
	case RTPROT_RA:
		snprintf(ret->why, sizeof(ret->why),
			 "learned from a router advertisement: systemd-networkd has no "
			 "initial window setting for those");
		return;
	default:
		snprintf(ret->why, sizeof(ret->why),
			 "systemd-networkd configures %s, but did not add this route (proto %s)",
			 rt->ifname,
			 route_protocol_to_string(rt->protocol, proto, sizeof(proto)));
		return;
	}
}

void initwnd_plan_route(const char *root, const struct route_default *rt, bool want,
			struct initwnd_plan *ret)
{
	char network_file[PATH_MAX_LEN], dropins[LINE_MAX_LEN], path[PATH_MAX_LEN];
	int r;

	*ret = (struct initwnd_plan){ 0 };
	r = rt->ifindex > 0 ?
		    networkd_link(root, rt->ifindex, network_file, sizeof(network_file),
				  dropins, sizeof(dropins)) :
		    0;
	if (r > 0) {
		ret->manager = MANAGER_NETWORKD;
	} else {
		if (rt->ifindex > 0 && nm_manages(root, rt->ifindex)) {
			ret->manager = MANAGER_NETWORKMANAGER;
		} else {
			snprintf(path, sizeof(path), "/run/network/ifstate.%s",
				 rt->ifname);
			if (rt->ifname[0] && root_exists(root, path))
				ret->manager = MANAGER_IFUPDOWN;
		}
	}

	if (!want) {
		snprintf(ret->why, sizeof(ret->why),
			 "the profile gives initial windows only where fq paces the first flight");
		return;
	}
	if (r < 0) {
		snprintf(ret->why, sizeof(ret->why),
			 "cannot read what systemd-networkd says of %s: %s", rt->ifname,
			 strerror(-r));
		return;
	}
	if ((rt->initcwnd || rt->initrwnd) &&
	    (rt->initcwnd != INITWND_SEGMENTS || rt->initrwnd != INITWND_SEGMENTS)) {
		snprintf(ret->why, sizeof(ret->why),
			 "it has initial windows of its own (initcwnd %" PRIu32
			 ", initrwnd %" PRIu32 ")",
			 rt->initcwnd, rt->initrwnd);
		return;
	}
	/* ifupdown and NetworkManager: the helper gives the windows itself. */
	if ((ret->manager == MANAGER_IFUPDOWN || ret->manager == MANAGER_NETWORKMANAGER) &&
	    rt->protocol == RTPROT_RA) {
		snprintf(ret->why, sizeof(ret->why),
			 "learned from a router advertisement: the kernel adds it "
			 "again at each one, without the windows");
		return;
	}
	switch (ret->manager) {
	case MANAGER_NETWORKD:
		plan_networkd(root, rt, network_file, dropins, ret);
		break;
	case MANAGER_IFUPDOWN:
		ret->wanted = true;
		snprintf(ret->from, sizeof(ret->from), "%s", STATE_IFUPDOWN_HOOK);
		/* ifupdown's own dhclient keeps its pid there; dhcpcd marks its
		 * routes proto dhcp (dhclient-script's are boot). */
		snprintf(path, sizeof(path), "/run/dhclient.%s.pid", rt->ifname);
		ret->dhclient = root_exists(root, path) &&
				root_exists(root, "/etc/dhcp/dhclient-exit-hooks.d");
		ret->dhcpcd = rt->protocol == RTPROT_DHCP &&
			      root_exists(root, "/usr/lib/dhcpcd/dhcpcd-run-hooks");
		break;
	case MANAGER_NETWORKMANAGER:
		ret->wanted = true;
		snprintf(ret->from, sizeof(ret->from), "%s", STATE_NM_DISPATCHER);
		break;
	case MANAGER_NONE:
		snprintf(ret->why, sizeof(ret->why),
			 "no network manager the package knows configures %s "
			 "(systemd-networkd, NetworkManager, ifupdown)",
			 rt->ifname[0] ? rt->ifname : "its interface");
		return;
	}
	if (ret->wanted) {
		r = carrier_state(root, ret->from);
		ret->present = r != -ENOENT;
		ret->written = r == 1;
	}
}

/* --- apply ------------------------------------------------------------------ */

static void print_route(const struct route_default *rt)
{
	printf("route default");
	if (rt->gateway[0])
		printf(" via %s", rt->gateway);
	if (rt->ifname[0])
		printf(" dev %s", rt->ifname);
}

/* The file at PATH now: 1 when it is ours, byte for byte, 0 when it is
 * missing, -EEXIST when something else stands there. */
static int added_state(const char *path)
{
	const char *text = carrier_of(path)->text;
	char buf[1024];
	size_t len;
	int r;

	r = read_file(path, buf, sizeof(buf), &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0 && r != -EFBIG)
		return r;
	return r == 0 && len == strlen(text) && memcmp(buf, text, len) == 0 ? 1 : -EEXIST;
}

/* The copy purge compares with, in STATE_DIR/added/. */
static int save_copy(const char *root, const char *saved, const char *text)
{
	int dir_fd, r;

	r = dirfd_open(root, ADDED_DIR, true, &dir_fd);
	if (r < 0)
		return r;
	r = write_file_atomic_at(dir_fd, saved + strlen("added/"), text, strlen(text),
				 0644);
	close(dir_fd);
	return r;
}

static void remove_copy(const char *root, const char *saved)
{
	int dir_fd;

	if (dirfd_open(root, ADDED_DIR, false, &dir_fd) < 0)
		return;
	(void)unlinkat(dir_fd, saved + strlen("added/"), 0);
	close(dir_fd);
	(void)dirfd_rmdir(root, ADDED_DIR);
}

/* Records the file, then writes it: a run stopped in between leaves a step
 * purge finds nothing to do for. */
static int write_added(const struct context *ctx, struct state *state, const char *path)
{
	const struct carrier *c = carrier_of(path);
	char dir[STATE_ADDED_PATH_MAX], saved[STATE_PATH_MAX];
	struct stat st;
	bool new_dir;
	int r;

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	if (c->saved) {
		snprintf(saved, sizeof(saved), "%s", c->saved);
	} else {
		const char *base = strrchr(dir, '/') + 1;

		snprintf(saved, sizeof(saved), "added/%.*s.conf",
			 (int)(strlen(base) - strlen(".network.d")), base);
	}
	new_dir = stat(dir, &st) < 0;
	if (new_dir && errno != ENOENT)
		return -errno;
	if (!new_dir && !S_ISDIR(st.st_mode))
		return -ENOTDIR;
	r = save_copy(ctx->root, saved, c->text);
	if (r < 0)
		return r;
	r = state_add_added(state, path, saved, new_dir);
	if (r == -EEXIST)
		r = 0;
	r = r ?: journal_save_or_log(ctx, state);
	if (r < 0)
		return r;
	if (new_dir && mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	return write_file_atomic(path, c->text, strlen(c->text), c->mode);
}

/* systemd-networkd reads its configuration again, and configures the links
 * whose .network files changed: the routes they learned from DHCP are added
 * again with the windows, or without them. A failure (no D-Bus, networkd
 * stopped) leaves the files for its next start. */
static void reload_networkd(void)
{
	char *const argv[] = { "timeout", "60", "networkctl", "reload", NULL };
	int status;
	pid_t pid;

	fflush(stdout);
	if (posix_spawnp(&pid, "timeout", NULL, NULL, argv, environ) != 0 ||
	    waitpid(pid, &status, 0) < 0) {
		log_warning("cannot run networkctl reload: %m; systemd-networkd reads "
			    "the initial windows when it next starts");
		return;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		log_warning("networkctl reload failed; systemd-networkd reads the "
			    "initial windows when it next starts");
	else
		printf("systemd-networkd reloaded its configuration.\n");
}

/* Gives IFNAME's default routes that set no window the package's, and says
 * which; with FROM and TO swapped, takes them off. */
static int set_windows(const char *ifname, bool give)
{
	struct route_default done[ROUTE_DEFAULTS_MAX];
	unsigned ifindex = if_nametoindex(ifname);
	uint32_t w = INITWND_SEGMENTS;
	size_t n;
	int r;

	if (ifindex == 0)
		return -ENODEV;
	r = give ? route_set_windows((int)ifindex, 0, 0, w, w, done, ELEMENTSOF(done),
				     &n) :
		   route_set_windows((int)ifindex, w, w, 0, 0, done, ELEMENTSOF(done), &n);
	for (size_t i = 0; i < n; i++) {
		print_route(&done[i]);
		if (give)
			printf(": initial windows %d and %d, given.\n", INITWND_SEGMENTS,
			       INITWND_SEGMENTS);
		else
			printf(": initial windows taken off.\n");
	}
	return r;
}

/* The files recorded go while they are still as written, with the windows
 * the helper gave routes itself; an edited file stays, and its step with
 * it, for purge to tell. Only where the fragment no longer asks for fq (a
 * switch to cubic), or on revert: not because a link is down or its route
 * gone now, since the link may come up again. */
static void remove_recorded(const struct context *ctx, struct state *state, bool *changed)
{
	for (size_t i = 0; i < state->n_added;) {
		struct undo_added added = state->added[i];
		int r = added_state(added.path);

		if (r < 0) {
			if (r == -EEXIST)
				printf("%s was changed since the package wrote it: left in place.\n",
				       added.path);
			else
				log_warning("cannot read %s: %s", added.path,
					    strerror(-r));
			i++;
			continue;
		}
		if (ctx->dry_run) {
			printf("Would remove %s.\n", added.path);
			i++;
			continue;
		}
		if (r == 1 && unlink(added.path) < 0) {
			log_warning("cannot remove %s: %m", added.path);
			i++;
			continue;
		}
		if (added.new_dir) {
			char dir[STATE_ADDED_PATH_MAX];

			snprintf(dir, sizeof(dir), "%s", added.path);
			*strrchr(dir, '/') = '\0';
			(void)rmdir(dir);
		}
		printf("Removed %s.\n", added.path);
		remove_copy(ctx->root, added.saved);
		if (!carrier_of(added.path)->path)
			*changed = true;
		state_drop_added(state, i);
	}
	for (size_t i = 0; i < state->n_windows;) {
		int r;

		if (ctx->dry_run) {
			printf("Would take the initial windows off the default routes of %s.\n",
			       state->windows[i].ifname);
			i++;
			continue;
		}
		r = set_windows(state->windows[i].ifname, false);
		if (r < 0 && r != -ENODEV) {
			log_warning("cannot take the initial windows off the default routes "
				    "of %s: %s",
				    state->windows[i].ifname, strerror(-r));
			i++;
			continue;
		}
		state_drop_windows(state, i);
	}
}

/* An interface of ifupdown or NetworkManager: recorded, then its routes get
 * the windows now; the hook or the dispatcher script gives them again each
 * time the interface comes up or has a new lease. */
static int give_now(const struct context *ctx, struct state *state, const char *ifname)
{
	int r;

	if (ctx->dry_run) {
		printf("Would give the default routes of %s the initial windows.\n",
		       ifname);
		return 0;
	}
	if (!state_find_windows(state, ifname)) {
		r = state_add_windows(state, ifname, INITWND_SEGMENTS, INITWND_SEGMENTS);
		r = r ?: journal_save_or_log(ctx, state);
		if (r < 0)
			return r;
	}
	r = set_windows(ifname, true);
	if (r < 0)
		log_warning("cannot give the default routes of %s the initial windows: %s",
			    ifname, strerror(-r));
	return r;
}

/* Adds PATH to the list once. */
static int want_file(const char **files, size_t *n, size_t max, const char *path)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(files[i], path) == 0)
			return 0;
	if (*n == max)
		return -E2BIG;
	files[(*n)++] = path;
	return 0;
}

int initwnd_apply(const struct context *ctx, const struct assignments *fragment,
		  struct state *state)
{
	struct route_default routes[ROUTE_DEFAULTS_MAX];
	struct initwnd_plan plans[ROUTE_DEFAULTS_MAX];
	const char *files[ROUTE_DEFAULTS_MAX + 3], *ifaces[ROUTE_DEFAULTS_MAX];
	size_t n, more, n_files = 0, n_ifaces = 0;
	bool want = initwnd_fragment_wants(fragment), networkd = false;
	int r, ret = 0;

	/* Routes belong to the running system, not to a tree under --root. */
	if (ctx->root[0] != '\0')
		return 0;
	r = route_list_defaults(routes, ELEMENTSOF(routes), &n, &more);
	if (r < 0) {
		log_warning("cannot list the default routes: %s; their initial windows "
			    "are left as they are",
			    strerror(-r));
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct initwnd_plan *plan = &plans[i];

		initwnd_plan_route("", &routes[i], want, plan);
		if (!plan->wanted) {
			if (want) {
				print_route(&routes[i]);
				printf(": initial windows left alone: %s.\n", plan->why);
			}
			continue;
		}
		print_route(&routes[i]);
		printf(": initial windows %d and %d, through %s.\n", INITWND_SEGMENTS,
		       INITWND_SEGMENTS, plan->from);
		(void)want_file(files, &n_files, ELEMENTSOF(files), plan->from);
		if (plan->dhclient)
			(void)want_file(files, &n_files, ELEMENTSOF(files),
					STATE_DHCLIENT_HOOK);
		if (plan->dhcpcd)
			(void)want_file(files, &n_files, ELEMENTSOF(files),
					STATE_DHCPCD_HOOK);
		if (plan->manager == MANAGER_IFUPDOWN ||
		    plan->manager == MANAGER_NETWORKMANAGER)
			(void)want_file(ifaces, &n_ifaces, ELEMENTSOF(ifaces),
					routes[i].ifname);
	}

	for (size_t i = 0; i < n_files; i++) {
		r = added_state(files[i]);
		if (r == 1)
			continue;
		if (r == -EEXIST) {
			log_warning("%s is not the package's: left as it is", files[i]);
			continue;
		}
		if (r < 0) {
			log_warning("cannot read %s: %s", files[i], strerror(-r));
			ret = ret ?: r;
			continue;
		}
		if (ctx->dry_run) {
			printf("Would write %s.\n", files[i]);
			continue;
		}
		r = write_added(ctx, state, files[i]);
		if (r < 0) {
			log_warning("cannot write %s: %s", files[i], strerror(-r));
			ret = ret ?: r;
			continue;
		}
		printf("Wrote %s.\n", files[i]);
		networkd = networkd || !carrier_of(files[i])->path;
	}
	if (!want)
		remove_recorded(ctx, state, &networkd);
	if (networkd)
		reload_networkd();
	for (size_t i = 0; i < n_ifaces; i++) {
		r = give_now(ctx, state, ifaces[i]);
		ret = ret ?: r;
	}
	return ret;
}

void initwnd_revert(const struct context *ctx, struct state *state)
{
	bool networkd = false;

	if (ctx->root[0] != '\0')
		return;
	remove_recorded(ctx, state, &networkd);
	if (networkd)
		reload_networkd();
}

/* --- windows ------------------------------------------------------------ */

/* What the hooks of ifupdown, dhclient and dhcpcd and NetworkManager's
 * dispatcher script run for an interface that comes
 * up or has a new lease: where the fragment sets fq, its default routes that
 * set no window get the package's, recorded first for purge. Routes with
 * windows of their own, multipath routes and a router advertisement's are
 * left alone. */
static int do_windows(struct context *ctx, int argc, char **argv)
{
	struct assignments fragment = { 0 };
	struct state state = { 0 };
	struct sysinfo info;
	const char *ifname;
	int c, r, lock;

	while ((c = command_getopt(command_windows.options, false, argc, argv)) != -1)
		return command_parsed_exit(command_option(&command_windows, c, argv));
	if (argc - optind != 1) {
		usage_error(&command_windows, optind < argc ? "one interface only" :
							      "an interface is needed");
		return EXIT_USAGE;
	}
	ifname = argv[optind];
	if (ctx->root[0] != '\0') {
		log_error("it changes the running kernel's routes: not under --root");
		return EXIT_FAILURE;
	}
	if (geteuid() != 0) {
		log_error("needs root: it changes the running kernel's routes and the "
			  "record in %s",
			  STATE_DIR);
		return EXIT_FAILURE;
	}
	if (if_nametoindex(ifname) == 0) {
		log_error("no interface %s", ifname);
		return EXIT_FAILURE;
	}
	if (detect_or_log(ctx, &info) < 0)
		return EXIT_FAILURE;
	if (kernel_off_limits_say(ctx, &info))
		return EXIT_SUCCESS;
	r = read_fragment_or_log(ctx, &fragment);
	if (r == -ENOENT) {
		printf("%s is missing: no initial windows.\n", FRAGMENT_SYSCTL);
		return EXIT_SUCCESS;
	}
	if (r < 0)
		return EXIT_FAILURE;
	if (!initwnd_fragment_wants(&fragment)) {
		printf("The fragment does not set fq: no initial windows.\n");
		assignments_free(&fragment);
		return EXIT_SUCCESS;
	}
	assignments_free(&fragment);
	if (lock_or_log(ctx, &lock) < 0)
		return EXIT_FAILURE;
	r = journal_load_or_log(ctx, &state);
	if (r == 0)
		r = give_now(ctx, &state, ifname);
	state_unlock(ctx->root, lock);
	state_free(&state);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

const struct command command_windows = {
	.name = "windows",
	.args = "interface",
	.summary = "give an interface's default routes the initial windows",
	.description =
		"Give the default routes of an interface the initial windows, "
		"where the fragment sets fq; run by the hooks the package writes for "
		"ifupdown, dhclient, dhcpcd and NetworkManager.",
	.run = do_windows,
};
