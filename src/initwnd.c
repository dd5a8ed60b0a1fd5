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
 *   a router advertisement's route: left alone; networkd has no setting.
 *   NetworkManager, ifupdown: left alone, said so.
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
#include <unistd.h>

#include "dirfd.h"
#include "initwnd.h"
#include "log.h"

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

static bool exists(const char *root, const char *path)
{
	char full[PATH_MAX_LEN];

	return root_path(full, sizeof(full), root, path) == 0 && access(full, F_OK) == 0;
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
		snprintf(ret->dropin, sizeof(ret->dropin), "%s%s.d/%s",
			 INITWND_NETWORKD_DIR, base, INITWND_DROPIN_NAME);
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
		snprintf(path, sizeof(path), "/run/NetworkManager/devices/%d",
			 rt->ifindex);
		if (rt->ifindex > 0 && exists(root, path)) {
			ret->manager = MANAGER_NETWORKMANAGER;
		} else {
			snprintf(path, sizeof(path), "/run/network/ifstate.%s",
				 rt->ifname);
			if (rt->ifname[0] && exists(root, path))
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
	switch (ret->manager) {
	case MANAGER_NETWORKD:
		plan_networkd(root, rt, network_file, dropins, ret);
		return;
	case MANAGER_NETWORKMANAGER:
	case MANAGER_IFUPDOWN:
		snprintf(ret->why, sizeof(ret->why),
			 "%s configures %s; the package writes initial windows only for "
			 "systemd-networkd",
			 initwnd_manager_to_string(ret->manager), rt->ifname);
		return;
	case MANAGER_NONE:
		snprintf(ret->why, sizeof(ret->why),
			 "no network manager the package knows configures %s "
			 "(systemd-networkd, NetworkManager, ifupdown)",
			 rt->ifname[0] ? rt->ifname : "its interface");
		return;
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

/* The drop-in at PATH now: 1 when it is ours, byte for byte, 0 when it is
 * missing, -EEXIST when something else stands there. */
static int dropin_state(const char *path)
{
	char buf[sizeof(initwnd_dropin_text) + 1];
	size_t len;
	int r;

	r = read_file(path, buf, sizeof(buf), &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0 && r != -EFBIG)
		return r;
	return r == 0 && len == strlen(initwnd_dropin_text) &&
			       memcmp(buf, initwnd_dropin_text, len) == 0 ?
		       1 :
		       -EEXIST;
}

/* The copy purge compares with, in STATE_DIR/added/NAME.conf. */
static int save_copy(const char *root, const char *saved)
{
	int dir_fd, r;

	r = dirfd_open(root, ADDED_DIR, true, &dir_fd);
	if (r < 0)
		return r;
	r = write_file_atomic_at(dir_fd, saved + strlen("added/"), initwnd_dropin_text,
				 strlen(initwnd_dropin_text), 0644);
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

/* Records the drop-in, then writes it: a run stopped in between leaves a
 * step purge finds nothing to do for. */
static int write_dropin(const struct context *ctx, struct state *state, const char *path)
{
	char dir[STATE_ADDED_PATH_MAX], saved[STATE_PATH_MAX];
	const char *base;
	struct stat st;
	bool new_dir;
	int r;

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	base = strrchr(dir, '/') + 1;
	snprintf(saved, sizeof(saved), "added/%.*s.conf",
		 (int)(strlen(base) - strlen(".network.d")), base);
	new_dir = stat(dir, &st) < 0;
	if (new_dir && errno != ENOENT)
		return -errno;
	if (!new_dir && !S_ISDIR(st.st_mode))
		return -ENOTDIR;
	r = save_copy(ctx->root, saved);
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
	return write_file_atomic(path, initwnd_dropin_text, strlen(initwnd_dropin_text),
				 0644);
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

/* The drop-ins recorded go while they are still as written; one edited
 * stays, and its step with it, for purge to tell. Only where the fragment no
 * longer asks for fq (a switch to cubic), or on revert: not because a link
 * is down or its route gone now, since the link may come up again. */
static void remove_recorded(const struct context *ctx, struct state *state, bool *changed)
{
	for (size_t i = 0; i < state->n_added;) {
		struct undo_added added = state->added[i];
		int r = dropin_state(added.path);

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
		state_drop_added(state, i);
		*changed = true;
	}
}

int initwnd_apply(const struct context *ctx, const struct assignments *fragment,
		  struct state *state)
{
	struct route_default routes[ROUTE_DEFAULTS_MAX];
	const char *wanted[ROUTE_DEFAULTS_MAX];
	size_t n, more, n_wanted = 0;
	bool want = initwnd_fragment_wants(fragment), changed = false;
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
		struct initwnd_plan plan;

		initwnd_plan_route("", &routes[i], want, &plan);
		if (!plan.wanted) {
			if (want) {
				print_route(&routes[i]);
				printf(": initial windows left alone: %s.\n", plan.why);
			}
			continue;
		}
		wanted[n_wanted++] = strdup(plan.dropin);
		if (!wanted[n_wanted - 1])
			return -ENOMEM;
		print_route(&routes[i]);
		printf(": initial windows %d and %d, through %s.\n", INITWND_SEGMENTS,
		       INITWND_SEGMENTS, plan.dropin);
	}

	for (size_t i = 0; i < n_wanted; i++) {
		bool again = false;

		for (size_t j = 0; j < i && !again; j++)
			again = strcmp(wanted[j], wanted[i]) == 0;
		if (again)
			continue;
		r = dropin_state(wanted[i]);
		if (r == 1)
			continue;
		if (r == -EEXIST) {
			log_warning("%s is not the package's drop-in: left as it is",
				    wanted[i]);
			continue;
		}
		if (r < 0) {
			log_warning("cannot read %s: %s", wanted[i], strerror(-r));
			ret = ret ?: r;
			continue;
		}
		if (ctx->dry_run) {
			printf("Would write %s.\n", wanted[i]);
			continue;
		}
		r = write_dropin(ctx, state, wanted[i]);
		if (r < 0) {
			log_warning("cannot write %s: %s", wanted[i], strerror(-r));
			ret = ret ?: r;
			continue;
		}
		printf("Wrote %s.\n", wanted[i]);
		changed = true;
	}
	if (!want)
		remove_recorded(ctx, state, &changed);
	if (changed)
		reload_networkd();
	for (size_t i = 0; i < n_wanted; i++)
		free((char *)wanted[i]);
	return ret;
}

void initwnd_revert(const struct context *ctx, struct state *state)
{
	bool changed = false;

	if (ctx->root[0] != '\0')
		return;
	remove_recorded(ctx, state, &changed);
	if (changed)
		reload_networkd();
}
