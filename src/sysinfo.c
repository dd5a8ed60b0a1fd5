/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Detection: fills a struct sysinfo from /proc, /sys and the module directory
 * under the root. Nothing here decides anything. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "modload.h"
#include "sysctl.h"
#include "sysinfo.h"
#include "util.h"

#define CPU_ONLINE "/sys/devices/system/cpu/online"

const char *modstate_to_string(enum modstate state)
{
	switch (state) {
	case MODSTATE_MODULE:
		return "module";
	case MODSTATE_LOADED:
		return "loaded";
	case MODSTATE_BUILTIN:
		return "builtin";
	case MODSTATE_BLACKLISTED:
		return "blacklisted";
	case MODSTATE_MISSING:
		break;
	}
	return "missing";
}

bool modstate_usable(enum modstate state)
{
	return state == MODSTATE_MODULE || state == MODSTATE_LOADED ||
	       state == MODSTATE_BUILTIN;
}

const char *environment_to_string(enum environment environment)
{
	switch (environment) {
	case ENVIRONMENT_CONTAINER:
		return "container";
	case ENVIRONMENT_CHROOT:
		return "chroot";
	case ENVIRONMENT_HOST:
		break;
	}
	return "host";
}

/* Walks a kernel CPU list ("0-3,8,10-11"), calling back for each CPU. */
static int cpu_list_parse(const char *list, void (*fn)(unsigned cpu, void *data),
			  void *data)
{
	char buf[LINE_MAX_LEN], *save = NULL;

	if (strlen(list) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, list);
	for (char *item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		uint64_t first, last;
		char *dash = strchr(item, '-');

		item = strip(item);
		if (dash) {
			*dash = '\0';
			if (parse_u64(strip(item), &first) < 0 ||
			    parse_u64(strip(dash + 1), &last) < 0)
				return -EINVAL;
		} else if (parse_u64(item, &first) < 0) {
			return -EINVAL;
		} else {
			last = first;
		}
		if (first > last || last >= 65536)
			return -EINVAL;
		for (uint64_t cpu = first; cpu <= last; cpu++)
			fn((unsigned)cpu, data);
	}
	return 0;
}

static void count_one(unsigned cpu _unused_, void *data)
{
	(*(unsigned *)data)++;
}

int cpu_list_count(const char *list, unsigned *ret_count)
{
	unsigned count = 0;
	int r;

	r = cpu_list_parse(list, count_one, &count);
	if (r < 0)
		return r;
	if (count == 0)
		return -EINVAL;
	*ret_count = count;
	return 0;
}

struct affinity_count {
	cpu_set_t *mask;
	unsigned count;
};

static void count_allowed(unsigned cpu, void *data)
{
	struct affinity_count *c = data;

	if (cpu < CPU_SETSIZE && CPU_ISSET(cpu, c->mask))
		c->count++;
}

/* On the real root the usable CPUs are those this process may run on that are
 * also online (a cgroup cpuset narrows the first); a --root tree only has the
 * online list. */
static int detect_cpus(const char *root, unsigned *ret_cpus)
{
	char path[PATH_MAX_LEN], online[LINE_MAX_LEN];
	cpu_set_t mask;
	int r;

	r = root_path(path, sizeof(path), root, CPU_ONLINE);
	if (r < 0)
		return r;
	r = read_line(path, online, sizeof(online));
	if (r < 0) {
		/* A chroot often has no /sys; the affinity mask still tells. */
		if (root[0] == '\0' && sched_getaffinity(0, sizeof(mask), &mask) == 0 &&
		    CPU_COUNT(&mask) > 0) {
			*ret_cpus = (unsigned)CPU_COUNT(&mask);
			return 0;
		}
		return r;
	}
	if (root[0] == '\0' && sched_getaffinity(0, sizeof(mask), &mask) == 0) {
		struct affinity_count c = { .mask = &mask };

		r = cpu_list_parse(online, count_allowed, &c);
		if (r < 0)
			return r;
		if (c.count > 0) {
			*ret_cpus = c.count;
			return 0;
		}
	}
	return cpu_list_count(online, ret_cpus);
}

static int detect_memory(const char *root, uint64_t *ret_kib)
{
	char path[PATH_MAX_LEN], buf[16384];
	const char *p;
	uint64_t kib;
	char num[32];
	int r;

	r = root_path(path, sizeof(path), root, "/proc/meminfo");
	if (r < 0)
		return r;
	r = read_file(path, buf, sizeof(buf), NULL);
	if (r < 0 && r != -EFBIG)
		return r;
	p = startswith(buf, "MemTotal:") ? buf : strstr(buf, "\nMemTotal:");
	if (!p)
		return -EBADMSG;
	p = strchr(p, ':') + 1;
	if (sscanf(p, " %31[0-9] kB", num) != 1 || parse_u64(num, &kib) < 0 || kib == 0)
		return -EBADMSG;
	*ret_kib = kib;
	return 0;
}

/* Keeps the first file that is there but cannot be read, for the command to
 * report: a missing one is an answer, and so is one this user may not read
 * (/proc/1/environ is root's). */
static void note_skipped(struct sysinfo *info, const char *file, int error,
			 const char *assumed)
{
	if (!info || info->skipped.error != 0 || error == 0 || error == -ENOENT ||
	    error == -ENOTDIR || error == -EACCES || error == -EPERM)
		return;
	info->skipped.error = error;
	snprintf(info->skipped.file, sizeof(info->skipped.file), "%s", file);
	info->skipped.assumed = assumed;
}

/* The checks of systemd-detect-virt --container that need no privileges
 * beyond reading a few files. */
static bool detect_container(const char *root, struct sysinfo *info)
{
	char path[PATH_MAX_LEN], buf[8192], *kind = info->container;
	size_t len, size = sizeof(info->container);
	int r;

	r = root_path(path, sizeof(path), root, "/run/systemd/container");
	if (r == 0)
		r = read_line(path, kind, size);
	if (r == 0 && kind[0] != '\0')
		return true;
	note_skipped(info, "/run/systemd/container", r, "ignoring it");
	kind[0] = '\0';
	r = root_path(path, sizeof(path), root, "/proc/1/environ");
	if (r == 0)
		r = read_file(path, buf, sizeof(buf), &len);
	note_skipped(info, "/proc/1/environ", r, "ignoring it");
	if (r == 0) {
		for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
			if (startswith(buf + i, "container=") && buf[i + 10] != '\0') {
				snprintf(kind, size, "%s", buf + i + 10);
				return true;
			}
	}
	if (root_exists(root, "/.dockerenv")) {
		snprintf(kind, size, "docker");
		return true;
	}
	if (root_exists(root, "/run/.containerenv")) {
		snprintf(kind, size, "podman");
		return true;
	}
	if (root_exists(root, "/proc/vz") && !root_exists(root, "/proc/bc")) {
		snprintf(kind, size, "openvz");
		return true;
	}
	return false;
}

/* The mount ID and mounted root of the mount at "/" in a mountinfo file:
 * -ENOENT without the file, -ESRCH when "/" is not among the mounts. */
static int mountinfo_root(const char *root, const char *file, char *ret, size_t size)
{
	char line[LINE_MAX_LEN];
	FILE *f;
	int r;

	r = fopen_root(root, file, &f);
	if (r < 0)
		return r;
	r = -ESRCH;
	while (fgets(line, sizeof(line), f)) {
		char id[32], mounted[PATH_MAX_LEN], point[PATH_MAX_LEN];

		int n;

		if (sscanf(line, "%31s %*s %*s %4095s %4095s", id, mounted, point) != 3 ||
		    strcmp(point, "/") != 0)
			continue;
		n = snprintf(ret, size, "%s %s", id, mounted);
		r = n < 0 || (size_t)n >= size ? -E2BIG : 0;
	}
	fclose(f);
	return r;
}

/* In a chroot, / is not the root directory of PID 1. Where /proc/1/root
 * cannot be read, the mounts tell: PID 1 and we see the same mount at "/",
 * or ours is another one, or none at all when the chroot is a plain
 * directory. A process that cannot tell assumes a chroot, as ischroot -t
 * does: leaving a kernel alone is the safe mistake. */
static bool detect_chroot(const char *root, struct sysinfo *info)
{
	char top[PATH_MAX_LEN], init[PATH_MAX_LEN], theirs[PATH_MAX_LEN],
		ours[PATH_MAX_LEN];
	struct stat a, b;
	int r;

	if (root_path(top, sizeof(top), root, "/") < 0 ||
	    root_path(init, sizeof(init), root, "/proc/1/root") < 0)
		return true;
	if (stat(top, &a) == 0 && stat(init, &b) == 0)
		return a.st_dev != b.st_dev || a.st_ino != b.st_ino;
	r = mountinfo_root(root, "/proc/1/mountinfo", theirs, sizeof(theirs));
	if (r < 0) {
		note_skipped(info, "/proc/1/mountinfo", r, "taken as a chroot");
		return true;
	}
	r = mountinfo_root(root, "/proc/self/mountinfo", ours, sizeof(ours));
	if (r < 0) {
		note_skipped(info, "/proc/self/mountinfo", r, "taken as a chroot");
		return true;
	}
	return strcmp(theirs, ours) != 0;
}

/* The kernel numbers the initial PID namespace PROC_PID_INIT_INO
 * (include/linux/proc_ns.h, fixed since Linux 3.8), and /proc/self/ns/pid
 * reads "pid:[4026531836]" there. */
#define PID_NS_INITIAL "pid:[4026531836]"

/* Whether this process is in a PID namespace of its own, not the initial
 * one: 1 or 0, or -errno where /proc cannot tell (no /proc, or one mounted
 * for another PID namespace, where "self" is no process of ours). */
static int pid_ns_own(const char *root)
{
	char path[PATH_MAX_LEN], link[PATH_MAX_LEN];
	const char *number;
	size_t digits;
	ssize_t n;
	int r;

	r = root_path(path, sizeof(path), root, "/proc/self/ns/pid");
	if (r < 0)
		return r;
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -errno;
	link[n] = '\0';
	number = startswith(link, "pid:[") ? link + strlen("pid:[") : NULL;
	digits = number ? strspn(number, "0123456789") : 0;
	if (digits == 0 || strcmp(number + digits, "]") != 0)
		return -EBADMSG;
	return strcmp(link, PID_NS_INITIAL) != 0;
}

/* PID 1 of a PID namespace of its own is no machine's init, so that / being
 * its root says nothing (unshare --pid --fork chroot DIR makes the chroot
 * PID 1). Where the network namespace is the initial one as well, whose
 * values are the host's, it is a build environment, not a machine: the
 * kernel registers net.core.netdev_max_backlog, one backlog per CPU for the
 * whole machine, in the initial network namespace only
 * (net/core/sysctl_net_core.c), so a namespace of its own lacks it. */
static bool detect_pid_ns_on_host_net(const char *root, struct sysinfo *info)
{
	int r = pid_ns_own(root);

	note_skipped(info, "/proc/self/ns/pid", r, "ignoring it");
	return r > 0 && root_exists(root, "/proc/sys/net/core/netdev_max_backlog");
}

/* /proc/sys/net is read-only in most containers: either the mount is, or the
 * files carry no write permission. */
static bool detect_net_writable(const char *root)
{
	char path[PATH_MAX_LEN];
	struct statvfs vfs;
	struct stat st;

	if (root_path(path, sizeof(path), root, "/proc/sys/net/ipv4/tcp_fin_timeout") < 0)
		return false;
	if (stat(path, &st) < 0 || !(st.st_mode & 0222))
		return false;
	if (statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
		return false;
	return access(path, W_OK) == 0;
}

/* Whether the live value of key holds word, among words split on blanks. */
static bool key_has_word(const char *root, const char *key, const char *word,
			 struct sysinfo *info)
{
	char buf[VALUE_MAX + 1], path[PATH_MAX_LEN], *save = NULL;
	int r;

	r = sysctl_read(root, key, buf, sizeof(buf));
	if (r < 0) {
		if (sysctl_path(path, sizeof(path), "", key) == 0)
			note_skipped(info, path, r, "ignoring it");
		return false;
	}
	for (char *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		if (strcmp(w, word) == 0)
			return true;
	return false;
}

static bool module_live(const char *root, const char *name, struct sysinfo *info)
{
	char rel[PATH_MAX_LEN], path[PATH_MAX_LEN], state[32];
	int r;

	snprintf(rel, sizeof(rel), "/sys/module/%s/initstate", name);
	r = root_path(path, sizeof(path), root, rel);
	if (r == 0)
		r = read_line(path, state, sizeof(state));
	note_skipped(info, rel, r, "taken as not loaded");
	return r == 0 && (strcmp(state, "live") == 0 || strcmp(state, "coming") == 0);
}

/* A module is LOADED when its sysfs initstate says so. Otherwise the module
 * directory decides, except that a kernel may run with no module directory
 * at all: then the row's list of what the kernel has (or the key's own
 * value) tells builtin from missing. */
static enum modstate module_state(const char *root, const char *release,
				  const struct module_need *need, struct sysinfo *info)
{
	enum modstate state = MODSTATE_MISSING;

	if (module_live(root, need->module, info))
		return MODSTATE_LOADED;
	if (key_has_word(root, need->key, need->value, info))
		return MODSTATE_BUILTIN;
	if (release[0] != '\0' && modload_query(root, release, need->module, &state) < 0)
		state = MODSTATE_MISSING;
	return state;
}

/* What detection found of MODULE; one it was not asked about is missing. */
enum modstate sysinfo_module_state(const struct sysinfo *info, const char *module)
{
	for (size_t i = 0; i < info->n_modules; i++)
		if (strcmp(info->modules[i].name, module) == 0)
			return info->modules[i].state;
	return MODSTATE_MISSING;
}

/* Sets, or adds, what is known of MODULE (a name that outlives info). */
int sysinfo_set_module_state(struct sysinfo *info, const char *module, enum modstate state)
{
	for (size_t i = 0; i < info->n_modules; i++)
		if (strcmp(info->modules[i].name, module) == 0) {
			info->modules[i].state = state;
			return 0;
		}
	if (info->n_modules == SYSINFO_MODULES_MAX)
		return -ENOBUFS;
	info->modules[info->n_modules].name = module;
	info->modules[info->n_modules++].state = state;
	return 0;
}

/* Where the helper runs: a container, a chroot or the host, and whether
 * /proc/sys/net can be written. Nothing to fail: what cannot be read counts
 * as the answer that leaves the kernel alone. debian/postrm repeats these
 * checks in shell, in this order. */
void sysinfo_detect_environment(const char *root, struct sysinfo *info)
{
	info->environment = ENVIRONMENT_HOST;
	info->container[0] = '\0';
	info->pid_ns_on_host_net = false;
	if (detect_container(root, info)) {
		info->environment = ENVIRONMENT_CONTAINER;
	} else if (detect_chroot(root, info)) {
		info->environment = ENVIRONMENT_CHROOT;
	} else if (detect_pid_ns_on_host_net(root, info)) {
		info->environment = ENVIRONMENT_CHROOT;
		info->pid_ns_on_host_net = true;
	}
	info->net_writable = detect_net_writable(root);
}

/* glibc answers this with the sysinfo() system call, no file needed. */
static int memory_from_kernel(uint64_t *ret_kib)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || size <= 0)
		return -ENOENT;
	*ret_kib = (uint64_t)pages * (uint64_t)size / 1024;
	return 0;
}

int sysinfo_detect(const char *root, const struct module_need *needs, size_t n_needs,
		   struct sysinfo *ret_info, const char **ret_failed)
{
	struct utsname un;
	struct sysinfo info = { 0 };
	char path[PATH_MAX_LEN];
	int r;

	r = detect_cpus(root, &info.cpus);
	if (r < 0) {
		*ret_failed = CPU_ONLINE;
		return r;
	}
	/* A chroot may have no /proc; on the real root the kernel can still be
	 * asked directly. A --root tree must have the files. */
	r = detect_memory(root, &info.mem_kib);
	if (r == -ENOENT && root[0] == '\0')
		r = memory_from_kernel(&info.mem_kib);
	if (r < 0) {
		*ret_failed = "/proc/meminfo";
		return r;
	}
	r = root_path(path, sizeof(path), root, "/proc/sys/kernel/osrelease");
	if (r == 0)
		r = read_line(path, info.release, sizeof(info.release));
	if (r == -ENOENT && root[0] == '\0' && uname(&un) == 0)
		r = snprintf(info.release, sizeof(info.release), "%s", un.release) <
				    (int)sizeof(info.release) ?
			    0 :
			    -E2BIG;
	if (r < 0 || strchr(info.release, '/') || strstr(info.release, "..")) {
		*ret_failed = "/proc/sys/kernel/osrelease";
		return r < 0 ? r : -EBADMSG;
	}

	/* The modules the caller names, each asked once. What libkmod cannot
	 * be given leaves every module's state unknown. */
	if (info.release[0] != '\0' && n_needs > 0) {
		r = modload_check(root, info.release, path, sizeof(path));
		note_skipped(&info, path, r, "module state unknown, taken as missing");
	}
	for (size_t i = 0; i < n_needs; i++) {
		bool asked = false;

		for (size_t j = 0; j < info.n_modules; j++)
			asked = asked ||
				strcmp(info.modules[j].name, needs[i].module) == 0;
		/* At most SYSINFO_MODULES_MAX: the rest are missing. */
		if (!asked)
			(void)sysinfo_set_module_state(&info, needs[i].module,
						       module_state(root, info.release,
								    &needs[i], &info));
	}

	sysinfo_detect_environment(root, &info);
	*ret_info = info;
	return 0;
}
