/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sysinfo.h"

enum congestion {
	CONGESTION_AUTO,
	CONGESTION_BBR,
	CONGESTION_CUBIC,
};

enum rule {
	RULE_FIXED, /* always this value */
	RULE_BBR, /* value when BBR is chosen, else otherwise */
	RULE_FQ, /* value when BBR is chosen and fq is available, else otherwise */
	RULE_BUFFER_MAX, /* the buffer maximum */
	RULE_BUFFER_VECTOR, /* "min default" followed by the buffer maximum */
};

enum scope {
	SCOPE_NETNS, /* per network namespace: present in containers */
	SCOPE_GLOBAL, /* initial namespace only: absent or read-only in containers */
};

struct tunable {
	const char *key;
	enum rule rule;
	const char *value;
	uint64_t floor; /* buffer rules: never below the kernel's default */
	enum scope scope;
	const char *reason;
	/* What a row whose rule does not hold sets instead, and why: a default
	 * the fragment names is the profile's, so that a later file that sets
	 * another value is an override, not a silent change. */
	const char *otherwise;
	const char *otherwise_reason;
	/* What a few rows need beyond their value. Callers ask the row, found
	 * with tunable_find(), and never compare keys. */
	const char *module; /* writing value makes the kernel load it by name */
	const char *module_note; /* above it in modules-load.d, with module_at_boot */
	const char *available; /* lists value once the module is in (NULL: key) */
	bool module_at_boot; /* listed in modules-load.d when it is a module */
	const char *widens; /* a list writing value adds it to, in available's order */
	bool new_qdiscs_only; /* reaches a qdisc only when the qdisc is created */
};

#define BUFFER_CEILING (16u << 20)
#define SETTINGS_MAX 32

struct setting {
	const char *key;
	char value[64];
	bool optional;
	const char *reason;
};

struct profile {
	enum congestion choice;
	const char *congestion; /* the fragment's "Congestion control:" line */
	const char *why;
	const char *no_module; /* the modules fragment's line when it lists none */
	bool no_module_why; /* followed by why, when the profile turned it down */
	unsigned cpus;
	uint64_t mem_mib;
	uint64_t buffer_max;
	size_t n_settings;
	struct setting settings[SETTINGS_MAX];
	size_t n_modules; /* for modules-load.d, each with its note */
	const char *modules[SYSINFO_MODULES_MAX];
	const char *module_notes[SYSINFO_MODULES_MAX];
};

extern const struct tunable tunables[];
extern const size_t n_tunables;
extern const char *const installer_keys[];
extern const size_t n_installer_keys;

const struct tunable *tunable_find(const char *key);
bool tunable_journaled(const char *key);
size_t profile_module_needs(struct module_need *ret, size_t max);
int congestion_from_string(const char *s, enum congestion *ret);
const char *congestion_to_string(enum congestion congestion);
uint64_t nominal_memory_mib(uint64_t mem_kib);
void profile_compute(const struct sysinfo *info, enum congestion choice,
		     struct profile *ret_profile);
/* The profile's setting of KEY, or NULL where it sets none. */
const struct setting *profile_find(const struct profile *p, const char *key);
