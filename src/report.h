/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "profile.h"
#include "qdisc.h"
#include "sysctld.h"
#include "sysinfo.h"

#define REPORT_LINKS_MAX 64
#define REPORT_MODULES_MAX 4

/* The schema version of the JSON output; see the man page. */
#define REPORT_SCHEMA 1

enum key_state {
	KEY_IN_EFFECT,
	KEY_OVERRIDDEN, /* a later file sets another value at boot */
	KEY_DRIFT, /* the live value differs, or cannot be read */
	KEY_NOT_IN_NAMESPACE, /* an optional key this namespace lacks */
	KEY_READ_ONLY, /* an optional key this namespace cannot change */
};

struct key_facts {
	const struct assignment *wanted; /* the fragment's line */
	const struct assignment *boot; /* what systemd-sysctl applies, or NULL */
	char live[VALUE_MAX + 1];
	int live_error; /* 0, or why live could not be read */
	enum key_state state;
};

/* A module the profile loads at boot (the table's module_at_boot rows). */
struct module_facts {
	const char *name;
	enum modstate state;
	bool listed; /* in our modules-load.d fragment */
};

/* A value the profile of this machine's CPU count gives otherwise than the
 * profile of the count the fragment was made for, with the same congestion
 * choice; "" where the key is not set. */
struct cpu_change {
	const char *key;
	char then[VALUE_MAX + 1];
	char now[VALUE_MAX + 1];
};

enum verdict {
	VERDICT_IN_EFFECT,
	VERDICT_DRIFT,
	VERDICT_NOT_TUNED,
	VERDICT_BAD_FRAGMENT,
};

/* Everything status found, read once; the text, JSON and Prometheus forms
 * are printed from it alone, so they cannot disagree. */
struct report {
	const char *root; /* "" for the real root */
	struct sysinfo info;
	bool fragment_present;
	bool malformed; /* lines that are not assignments */
	unsigned fragment_cpus; /* 0: the marker line is missing */
	/* When the CPU count changed and the marker names the congestion
	 * choice: the values a new rendering would change (none: the same
	 * profile, no warning). */
	bool cpus_compared;
	size_t n_cpu_changes;
	struct cpu_change cpu_changes[SETTINGS_MAX];
	size_t n_keys;
	struct key_facts *keys;
	size_t n_modules;
	struct module_facts modules[REPORT_MODULES_MAX];
	/* The fragment's line for a key that reaches only the qdiscs created
	 * after it (default_qdisc), or NULL. */
	const struct assignment *qdisc;
	int qdisc_error; /* 0, -EOPNOTSUPP under --root, or why the dump failed */
	size_t n_links;
	struct qdisc_link links[REPORT_LINKS_MAX];
	bool boot_unknown; /* a sysctl.d file could not be read */
};

const char *key_state_to_string(enum key_state state);
bool key_in_effect(const struct key_facts *k);
bool key_drift(const struct key_facts *k);
bool module_unloadable(const struct module_facts *m);
bool report_qdisc_pending(const struct report *r);
enum verdict report_verdict(const struct report *r);
int report_exit_status(enum verdict verdict);

void report_print_text(const struct report *r, FILE *f);
void report_print_json(const struct report *r, FILE *f);
void report_print_prometheus(const struct report *r, FILE *f);
void report_print_detect_json(const char *root, const struct sysinfo *info, FILE *f);
