/* SPDX-License-Identifier: GPL-2.0-or-later */
/* initwnd: the initial congestion and receive windows of new visitors'
 * connections. A sock_ops program (bpf/initwnd.bpf.c), attached to the root
 * of the cgroup v2 tree, gives them to the passive connections of the web
 * ports when they are established, IPv4 and IPv6 alike, before the first
 * byte is sent and before the congestion control starts from the window
 * (tcp_init_transfer()); a connection the machine makes, and one to
 * another port (MariaDB, SSH), keeps the kernel's. No route is touched: the
 * windows reach the routes a router advertisement or a network manager
 * adds later as well.
 *
 * The builds that gave the windows to the default routes instead (0.2.0)
 * wrote hooks for ifupdown, dhclient, dhcpcd and NetworkManager and
 * drop-ins for systemd-networkd, and gave routes the windows themselves;
 * their journal says which. Each apply takes back what is still recorded
 * there, the way purge would: a file while it is byte for byte the copy
 * kept beside the journal, the windows of a route only where that can
 * change no other route (route.c). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "dirfd.h"
#include "i18n.h"
#include "initwnd.h"
#include "log.h"
#include "offlimits.h"
#include "render.h"
#include "route.h"

extern char **environ;

#define ADDED_DIR STATE_DIR "/added"
#define ADDED_SIZE_MAX 65536
#define PORTS_FILE_SIZE_MAX 4096

bool initwnd_fragment_wants(const struct assignments *fragment)
{
	const struct assignment *qdisc =
		sysctld_winner(fragment, "net.core.default_qdisc");

	return qdisc && strcmp(qdisc->value, "fq") == 0;
}

/* One word of the file: a port, 0 for a word that is none. */
static uint16_t parse_port(const char *word)
{
	uint64_t v;

	return parse_u64(word, &v) == 0 && v >= 1 && v <= 65535 ? (uint16_t)v : 0;
}

static bool has_port(const struct sockops_windows *w, uint16_t port)
{
	for (size_t i = 0; i < w->n_ports; i++)
		if (w->ports[i] == port)
			return true;
	return false;
}

int initwnd_ports_read(const char *root, struct sockops_windows *w)
{
	char path[PATH_MAX], buf[PORTS_FILE_SIZE_MAX + 1];
	unsigned line = 1;
	size_t len;
	int r, skipped = 0;

	memset(w, 0, sizeof(*w));
	w->cwnd = w->rwnd = INITWND_SEGMENTS;
	r = root_path(path, sizeof(path), root, INITWND_PORTS_FILE);
	if (r == 0)
		r = read_file(path, buf, sizeof(buf) - 1, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		log_warning(_("cannot read %s: %s; no port gets the initial windows"),
			    path, file_strerror(r));
		return r;
	}
	buf[len] = '\0';
	for (char *p = buf; *p;) {
		size_t n;

		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		if (*p == '\n' || *p == ' ' || *p == '\t') {
			line += *p == '\n';
			p++;
			continue;
		}
		n = strcspn(p, " \t\n#");
		char word[16];
		uint16_t port;

		snprintf(word, sizeof(word), "%.*s", (int)(n < 15 ? n : 15), p);
		port = n < sizeof(word) ? parse_port(word) : 0;
		if (port == 0) {
			log_warning(_("%s:%u: \"%.*s\" is not a port (1-65535): skipped"),
				    path, line, (int)(n < 32 ? n : 32), p);
			skipped++;
		} else if (has_port(w, port)) {
			/* Named twice: once is enough, even past the limit. */
		} else if (w->n_ports == SOCKOPS_PORTS_MAX) {
			log_warning(_("%s:%u: more than %d ports: %s skipped"), path,
				    line, SOCKOPS_PORTS_MAX, word);
			skipped++;
		} else {
			w->ports[w->n_ports++] = port;
		}
		p += n;
	}
	return skipped;
}

/* --- the program -------------------------------------------------------- */

static void why_record(const char *why)
{
	char line[512];
	int n = snprintf(line, sizeof(line), "%s\n", why);

	if (n > 0 && (size_t)n < sizeof(line))
		(void)write_file_atomic(INITWND_WHY_FILE, line, (size_t)n, 0644);
}

static void why_forget(void)
{
	(void)unlink(INITWND_WHY_FILE);
}

static void detach(const struct context *ctx)
{
	const char *why = NULL;
	int r;

	if (ctx->dry_run) {
		struct sockops_state s;

		if (sockops_read(SOCKOPS_PIN_DIR, &s, &why) == 0)
			printf(_("Would detach the initial-window program.\n"));
		return;
	}
	why_forget();
	/* No pin directory (no BPF file system, as in a container): nothing
	 * was attached. */
	if (access(SOCKOPS_PIN_DIR, F_OK) < 0 && errno == ENOENT)
		return;
	r = sockops_detach(SOCKOPS_PIN_DIR, &why);
	if (r == 1)
		printf(_("Detached the initial-window program from %s.\n"),
		       SOCKOPS_CGROUP);
	else if (r < 0)
		log_warning(_("cannot detach the initial-window program: %s: %s"),
			    SOCKOPS_PIN_DIR, _(why));
}

/* libbpf's own messages, a line each: only with -v, since a refusal is
 * said once in the helper's words, and libbpf would add four lines of its
 * own on stderr to the postinst's output. Its debug level is left out. */
static int libbpf_to_log(enum libbpf_print_level level, const char *format, va_list ap)
{
	char line[512];

	if (!log_verbose || level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), format, ap);
	line[strcspn(line, "\n")] = '\0';
	log_line("", "%s", line);
	return 0;
}

/* Attaches the program, or sets the ports and windows of the one attached;
 * a refusal is told and recorded, never a failure. */
static void attach(const struct context *ctx)
{
	struct sockops_windows w;
	char ports[SOCKOPS_PORTS_MAX * 12];
	const char *why = NULL;
	int r;

	(void)initwnd_ports_read("", &w);
	if (w.n_ports == 0) {
		printf(_("Initial windows: %s names no port; the program is not attached.\n"),
		       INITWND_PORTS_FILE);
		detach(ctx);
		return;
	}
	sockops_ports_text(&w, ports, sizeof(ports));
	if (ctx->dry_run) {
		printf(_("Would give new connections to ports %s the initial windows %u and %u.\n"),
		       ports, w.cwnd, w.rwnd);
		return;
	}
	libbpf_set_print(libbpf_to_log);
	r = sockops_attach(SOCKOPS_CGROUP, SOCKOPS_PIN_DIR, &w, &why);
	if (r < 0) {
		char line[400];

		snprintf(line, sizeof(line), "%s", why ? why : strerror(-r));
		printf(_("Initial windows left to the kernel: %s.\n"),
		       why ? _(why) : line);
		why_record(line);
		return;
	}
	why_forget();
	printf(r == 1 ? _("Initial windows %u and %u for new connections to ports %s: "
			  "attached to %s.\n") :
			_("Initial windows %u and %u for new connections to ports %s: "
			  "in place on %s.\n"),
	       w.cwnd, w.rwnd, ports, SOCKOPS_CGROUP);
}

int initwnd_read(struct sockops_state *ret, char *ret_why, size_t size)
{
	const char *why = NULL;
	size_t len = 0;
	int r;

	r = sockops_read(SOCKOPS_PIN_DIR, ret, &why);
	ret_why[0] = '\0';
	if ((r < 0 || !ret->attached) &&
	    read_file(INITWND_WHY_FILE, ret_why, size - 1, &len) == 0) {
		ret_why[len] = '\0';
		ret_why[strcspn(ret_why, "\n")] = '\0';
	}
	return r;
}

/* --- what the route builds wrote ----------------------------------------- */

/* systemd-networkd reads its configuration again, and configures the links
 * whose .network files changed: the routes they learned from DHCP are added
 * again without the windows. A failure (no D-Bus, networkd stopped) leaves
 * that to its next start. */
static void reload_networkd(void)
{
	char *const argv[] = { "timeout", "60", "networkctl", "reload", NULL };
	int status, r;
	pid_t pid;

	fflush(stdout);
	r = posix_spawnp(&pid, "timeout", NULL, NULL, argv, environ);
	if (r == 0 && waitpid(pid, &status, 0) < 0)
		r = errno;
	if (r != 0) {
		log_warning("cannot run networkctl reload: %s; systemd-networkd drops "
			    "the routes' initial windows when it next starts",
			    strerror(r));
		return;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		log_warning("networkctl reload failed; systemd-networkd drops the "
			    "routes' initial windows when it next starts");
	else
		printf("systemd-networkd reloaded its configuration.\n");
}

/* PATH under ROOT read whole (dirfd_read_whole), every directory on the way
 * reached without following a symlink. */
static int read_regular(const char *root, const char *path, char *buf, size_t *ret_len)
{
	const char *name;
	int dir_fd, r;

	r = dirfd_open_parent(root, path, &dir_fd, &name);
	if (r < 0)
		return r;
	r = dirfd_read_whole(dir_fd, name, buf, ADDED_SIZE_MAX, ret_len);
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

/* A file of the route builds: removed while it is its copy, byte for byte.
 * 1 when it was, and the step goes; 0 when the step goes and the file
 * stays (gone already, or changed); -errno when both stay. */
static int take_back_file(const struct context *ctx, const struct undo_added *added,
			  char *file, char *copy)
{
	char saved[STATE_NAME_MAX + sizeof(STATE_DIR "/added/")];
	size_t len, copy_len;
	const char *name;
	int r, dir_fd;

	if (strlen(STATE_DIR) + 1 + strlen(added->saved) >= sizeof(saved))
		return -ENAMETOOLONG;
	snprintf(saved, sizeof(saved), "%s/%s", STATE_DIR, added->saved);
	r = dirfd_open_parent(ctx->root, added->path, &dir_fd, &name);
	if (r == -ENOENT) {
		printf("%s is gone already.\n", added->path);
		return 0;
	}
	if (r == -ELOOP || r == -ENOTDIR) {
		printf("%s is reached through a symlink now: left in place.\n",
		       added->path);
		return 0;
	}
	if (r < 0)
		return r;
	r = dirfd_read_whole(dir_fd, name, file, ADDED_SIZE_MAX, &len);
	if (r == -ENOENT) {
		printf("%s is gone already.\n", added->path);
		close(dir_fd);
		return 0;
	}
	if (r == -ELOOP) {
		printf("%s is a symlink now: left in place.\n", added->path);
		close(dir_fd);
		return 0;
	}
	if (r == 0)
		r = read_regular(ctx->root, saved, copy, &copy_len);
	if (r == -ENOENT || r == -ELOOP || r == -ENOTDIR) {
		printf("%s: its copy in %s is missing: left in place.\n", added->path,
		       STATE_DIR);
		close(dir_fd);
		return 0;
	}
	if (r == -EBADFD || r == -EFBIG ||
	    (r == 0 && (len != copy_len || memcmp(file, copy, len) != 0))) {
		printf("%s was changed since the package wrote it: left in place.\n",
		       added->path);
		close(dir_fd);
		return 0;
	}
	if (r < 0) {
		log_warning("cannot read %s or its copy: %s", added->path,
			    file_strerror(r));
	} else if (ctx->dry_run) {
		printf("Would remove %s.\n", added->path);
		r = -EAGAIN;
	} else if (unlinkat(dir_fd, name, 0) < 0) {
		r = -errno;
		log_warning("cannot remove %s: %s", added->path, strerror(-r));
	} else {
		/* Its directory, once empty, where the package made it. */
		if (added->new_dir && strrchr(added->path, '/') != added->path) {
			char dir[STATE_ADDED_PATH_MAX];

			snprintf(dir, sizeof(dir), "%s", added->path);
			*strrchr(dir, '/') = '\0';
			(void)dirfd_rmdir(ctx->root, dir);
		}
		printf("Removed %s.\n", added->path);
		r = 1;
	}
	close(dir_fd);
	return r;
}

static void print_route(const struct route_default *rt)
{
	printf("route default");
	if (rt->gateway[0])
		printf(" via %s", rt->gateway);
	printf(" dev %s metric %" PRIu32, rt->ifname[0] ? rt->ifname : "?", rt->metric);
}

/* The windows the helper gave an interface's default routes itself: 0 when
 * the step goes, -errno when it stays for the next try. */
static int take_back_windows(const struct context *ctx, const struct undo_windows *w)
{
	struct route_takeback_result done[ROUTE_DEFAULTS_MAX];
	unsigned ifindex = if_nametoindex(w->ifname);
	size_t n;
	int r, ret = 0;

	if (ifindex == 0) {
		printf("%s is gone: its routes have no windows to take off.\n", w->ifname);
		return 0;
	}
	if (ctx->dry_run) {
		printf("Would take the initial windows %u and %u off the default routes of "
		       "%s.\n",
		       w->cwnd, w->rwnd, w->ifname);
		return -EAGAIN;
	}
	r = route_take_windows_off((int)ifindex, w->cwnd, w->rwnd, done, ELEMENTSOF(done),
				   &n);
	if (r < 0) {
		log_warning("cannot list the default routes of %s: %s; their initial "
			    "windows stay for now",
			    w->ifname, strerror(-r));
		return r;
	}
	for (size_t i = 0; i < n; i++) {
		print_route(&done[i].route);
		if (done[i].error < 0) {
			printf(": the initial windows could not be taken off: %s.\n",
			       strerror(-done[i].error));
			ret = ret ?: done[i].error;
		} else if (done[i].how == ROUTE_TAKEBACK_SHARED) {
			printf(": initial windows %u and %u left on it: another default "
			       "route has its metric, and replacing one could replace the "
			       "other; they go when %s is next brought up.\n",
			       w->cwnd, w->rwnd, w->ifname);
		} else if (done[i].how == ROUTE_TAKEBACK_DELETE) {
			printf(": removed, since the same route without the initial "
			       "windows stands beside it.\n");
		} else {
			printf(": initial windows taken off.\n");
		}
	}
	return ret;
}

/* Takes back the "added" and "windows" steps, each dropped from the journal
 * once it is done with, so that it is done once. */
static void say_taking_back(void)
{
	printf("Taking back what an earlier version wrote for the routes' initial "
	       "windows:\n");
}

/* The "added" steps, each dropped once done with, so that it is done once.
 * True where a drop-in of systemd-networkd went. */
static bool take_back_files(const struct context *ctx, struct state *state)
{
	bool networkd = false;
	char *file, *copy;

	file = malloc(ADDED_SIZE_MAX);
	copy = malloc(ADDED_SIZE_MAX);
	for (size_t i = 0; file && copy && i < state->n;) {
		struct undo_added added = state->steps[i].added;
		int r;

		if (state->steps[i].kind != STEP_ADDED ||
		    (r = take_back_file(ctx, &added, file, copy)) < 0) {
			i++;
			continue;
		}
		networkd = networkd ||
			   (r == 1 && startswith(added.path, "/etc/systemd/network/"));
		remove_copy(ctx->root, added.saved);
		state_drop(state, &state->steps[i]);
	}
	if (!file || !copy)
		log_warning(
			"out of memory: the files an earlier version wrote stay for now");
	free(file);
	free(copy);
	return networkd;
}

void initwnd_take_back_files(const struct context *ctx, struct state *state, bool live)
{
	if (ctx->root[0] != '\0' || !state_find(state, STEP_ADDED, NULL))
		return;
	say_taking_back();
	if (take_back_files(ctx, state) && live)
		reload_networkd();
}

/* The "added" and "windows" steps, each dropped from the journal once it is
 * done with. */
static void take_back(const struct context *ctx, struct state *state)
{
	if (!state_find(state, STEP_ADDED, NULL) && !state_find(state, STEP_WINDOWS, NULL))
		return;
	say_taking_back();
	if (take_back_files(ctx, state))
		reload_networkd();
	for (size_t i = 0; i < state->n;) {
		if (state->steps[i].kind != STEP_WINDOWS ||
		    take_back_windows(ctx, &state->steps[i].windows) < 0)
			i++;
		else
			state_drop(state, &state->steps[i]);
	}
}

void initwnd_apply(const struct context *ctx, const struct assignments *fragment,
		   struct state *state)
{
	/* The program and the routes belong to the running system, not to a
	 * tree under --root. */
	if (ctx->root[0] != '\0')
		return;
	if (initwnd_fragment_wants(fragment)) {
		attach(ctx);
	} else {
		printf(_(
			"Initial windows left to the kernel: the fragment does not set fq.\n"));
		detach(ctx);
	}
	take_back(ctx, state);
}

void initwnd_revert(const struct context *ctx, struct state *state)
{
	if (ctx->root[0] != '\0')
		return;
	detach(ctx);
	take_back(ctx, state);
}

/* --- initwnd -------------------------------------------------------------- */

static const struct command_option initwnd_options[] = {
	{ "detach", OPTION_DETACH, NULL,
	  "detach the program, whatever the fragment says" },
	{ "dry-run", OPTION_DRY_RUN, NULL, "say what would change; change nothing" },
	{},
};

/* What the boot unit runs, and the administrator after editing the ports:
 * the program attached where the fragment sets fq, detached where it does
 * not; with --detach, detached (the prerm's, at remove). */
static int do_initwnd(struct context *ctx, int argc, char **argv)
{
	struct assignments fragment = { 0 };
	struct sysinfo info;
	bool detach_only = false;
	int c, r, lock = -1, ret = EXIT_SUCCESS;

	while ((c = command_getopt(initwnd_options, false, argc, argv)) != -1) {
		if (c == OPTION_DETACH)
			detach_only = true;
		else if (c == OPTION_DRY_RUN)
			ctx->dry_run = true;
		else
			return command_parsed_exit(
				command_option(&command_initwnd, c, argv));
	}
	r = command_no_arguments(&command_initwnd, argc, argv);
	if (r <= 0)
		return command_parsed_exit(r);
	if (ctx->root[0] != '\0') {
		log_error(_(
			"it attaches a program to the running kernel: not under --root"));
		return EXIT_FAILURE;
	}
	if (geteuid() != 0 && !ctx->dry_run) {
		log_error(_("needs root: it attaches a BPF program to the root cgroup"));
		return EXIT_FAILURE;
	}
	/* Under apply's lock: two loaders would take each other's pins. */
	if (!ctx->dry_run && lock_or_log(ctx, &lock) < 0)
		return EXIT_FAILURE;
	/* Detaching too is left to the host: from a chroot with the host's
	 * /sys bound in, the pins are the host's. */
	if (detect_or_log(ctx, &info) < 0) {
		ret = EXIT_FAILURE;
	} else if (kernel_off_limits_say(ctx, &info)) {
		/* said */
	} else if (detach_only) {
		detach(ctx);
	} else {
		r = read_fragment_or_log(ctx, &fragment);
		if (r == -ENOENT) {
			printf(_("%s is missing: no initial windows.\n"), FRAGMENT_SYSCTL);
			detach(ctx);
		} else if (r < 0) {
			ret = EXIT_FAILURE;
		} else if (initwnd_fragment_wants(&fragment)) {
			attach(ctx);
		} else {
			printf(_("Initial windows left to the kernel: the fragment does not set "
				 "fq.\n"));
			detach(ctx);
		}
		assignments_free(&fragment);
	}
	if (lock >= 0)
		state_unlock(ctx->root, lock);
	return ret;
}

const struct command command_initwnd = {
	.name = "initwnd",
	.args = "[--detach] [--dry-run]",
	.summary = "attach or detach the initial-window program",
	.description = "Attach the sock_ops program that gives new connections to the web "
		       "ports the initial windows, where the fragment sets fq, or detach "
		       "it where it does not; run at every boot by "
		       "wp-panel-nettune-initwnd.service.",
	.options = initwnd_options,
	.run = do_initwnd,
};
