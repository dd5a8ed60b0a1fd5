/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* What the kernel and its module directory offer for one module. */
enum modstate {
	MODSTATE_MISSING,
	MODSTATE_MODULE,
	MODSTATE_LOADED,
	MODSTATE_BUILTIN,
	MODSTATE_BLACKLISTED,
};

enum environment {
	ENVIRONMENT_HOST,
	ENVIRONMENT_CONTAINER,
	ENVIRONMENT_CHROOT,
};

/* The first file detection found but could not read (a FIFO, a device, a
 * file too large), and what it assumed instead; error 0 when none. */
struct sysinfo_skipped {
	int error;
	char file[4096]; /* relative to the root */
	const char *assumed;
};

/* A module some row of the profile needs, as detection is given it: the
 * module, and the key that lists value once the module is in (built in or
 * loaded). Detection knows nothing else of the profile. */
struct module_need {
	const char *module;
	const char *key;
	const char *value;
};

#define SYSINFO_MODULES_MAX 8

/* What detection found; the profile is computed from this alone. */
struct sysinfo {
	unsigned cpus;
	uint64_t mem_kib;
	char release[128];
	/* The modules asked for, in the order asked, each once. */
	size_t n_modules;
	struct {
		const char *name;
		enum modstate state;
	} modules[SYSINFO_MODULES_MAX];
	enum environment environment;
	/* A chroot because PID 1 is that of a PID namespace of its own, in
	 * the initial network namespace, not because / is not PID 1's root. */
	bool pid_ns_on_host_net;
	char container[32];
	bool net_writable;
	struct sysinfo_skipped skipped;
};

int cpu_list_count(const char *list, unsigned *ret_count);
const char *modstate_to_string(enum modstate state);
bool modstate_usable(enum modstate state);
const char *environment_to_string(enum environment environment);
enum modstate sysinfo_module_state(const struct sysinfo *info, const char *module);
int sysinfo_set_module_state(struct sysinfo *info, const char *module,
			     enum modstate state);
void sysinfo_detect_environment(const char *root, struct sysinfo *info);
int sysinfo_detect(const char *root, const struct module_need *needs, size_t n_needs,
		   struct sysinfo *ret_info, const char **ret_failed);

/* The files sysinfo_detect() cannot do without under a --root tree, where
 * the kernel cannot be asked instead: what an error says a tree needs, and
 * the man page's ROOT TREES lists. */
#define SYSINFO_ROOT_NEEDS \
	"sys/devices/system/cpu/online, proc/meminfo and proc/sys/kernel/osrelease"
