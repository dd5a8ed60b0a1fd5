/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "initwnd.h"
#include "sockops.h"
#include "profile.h"
#include "qdisc.h"
#include "sysctld.h"
#include "sysinfo.h"

#define REPORT_LINKS_MAX 64
#define REPORT_MODULES_MAX 4

/* The schema version of the JSON output; see the man page. 2: key states
 * chosen or not, conditions, the fragment against the profile. */
#define REPORT_SCHEMA 3

/* Where a key stands. Each state is either chosen (an administrator's later
 * file or edit, a kernel left alone on purpose, an optional key the
 * namespace lacks) or not: a state nobody chose raises the alarm. The order
 * is the metrics' and the man page's. */
enum key_state {
	KEY_IN_EFFECT, /* the kernel holds the profile's value, set at boot */
	KEY_OVERRIDDEN, /* chosen: a later file sets another value, held live */
	KEY_EDITED, /* chosen: the fragment's line is not the package's */
	KEY_LEFT_ALONE, /* chosen: a container or chroot's kernel, not changed */
	KEY_NOT_IN_NAMESPACE, /* an optional key this namespace lacks */
	KEY_READ_ONLY, /* an optional key this namespace cannot change */
	KEY_OUTDATED, /* the fragment's value is older than the profile's */
	KEY_MISSING, /* the profile sets it, the fragment predates it */
	KEY_DRIFT, /* the kernel holds another value than boot sets */
	KEY_STATE_MAX,
};

/* What holds for the machine as a whole: the alarm conditions first, then
 * the chosen ones. */
enum condition {
	CONDITION_NOT_TUNED, /* no fragment */
	CONDITION_MALFORMED, /* fragment lines that are not assignments */
	CONDITION_DRIFT, /* a key's live value is not the one boot sets */
	CONDITION_OUTDATED, /* the fragment is older than the profile */
	CONDITION_CPUS_CHANGED, /* made for another CPU count, with other values */
	CONDITION_MODULE_UNLOADABLE, /* listed in modules-load.d, cannot load */
	CONDITION_BOOT_UNKNOWN, /* a sysctl.d file cannot be read */
	CONDITION_INITWND_DRIFT, /* the initial-window program is not as wanted */
	CONDITION_INITWND_REFUSED, /* it is wanted and the kernel refused it */
	CONDITION_OVERRIDDEN,
	CONDITION_EDITED,
	CONDITION_LEFT_ALONE,
	CONDITION_CONGESTION_CHOSEN, /* bbr or cubic chosen with debconf */
	CONDITION_MAX,
};

struct key_facts {
	const char *key;
	const struct assignment *wanted; /* the fragment's line, or NULL */
	const char *profile; /* the profile's value today, or NULL: none */
	const struct assignment *boot; /* what systemd-sysctl applies, or NULL */
	char live[VALUE_MAX + 1];
	int live_error; /* 0, or why live could not be read */
	bool read_only; /* read, and this namespace does not let it be written */
	enum key_state state; /* decided by report_decide() */
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
	VERDICT_IN_EFFECT, /* the profile, live */
	VERDICT_CHOSEN, /* departures from it, each one chosen */
	VERDICT_ALARM, /* a state nobody chose */
};

/* Files ucf leaves beside a fragment it kept. */
#define REPORT_UCF_SUFFIXES 3

/* Everything status found, read once, and what report_decide() makes of
 * it; the text, JSON and Prometheus forms are printed from it alone, so they
 * cannot disagree. */
struct report {
	const char *root; /* "" for the real root */
	struct sysinfo info;
	bool fragment_present;
	bool malformed; /* lines that are not assignments */
	/* What the fragments were last rendered for (STATE_RENDERED): the CPU
	 * count and the congestion choice, or 0 and auto without the record. */
	unsigned fragment_cpus;
	bool have_choice; /* the record is there */
	enum congestion choice;
	/* The fragment as the package last installed it (STATE_BASE): a line
	 * that differs from it is an edit, one that equals it and differs from
	 * the profile is an update not taken. */
	bool base_present;
	bool edited; /* the fragment is not byte for byte the base */
	struct assignments base;
	/* The profile today for what the fragment was made for: its CPU count
	 * and congestion choice, the rest of the machine as it is now
	 * (report_profile()). */
	struct profile profile;
	const char *ucf_left[REPORT_UCF_SUFFIXES]; /* ".ucf-dist"..., or NULL */
	size_t n_keys;
	struct key_facts *keys;
	size_t n_modules;
	struct module_facts modules[REPORT_MODULES_MAX];
	int qdisc_error; /* 0, -EOPNOTSUPP under --root, or why the dump failed */
	size_t n_links;
	struct qdisc_link links[REPORT_LINKS_MAX];
	/* The initial-window program (initwnd.c): whether the fragment sets
	 * fq; wanted (report_decide()) where it does and the setting names a
	 * port, with these ports and windows;
	 * as pinned (0), or not (-ENOENT), or not queried (-EOPNOTSUPP, under
	 * --root), or why it cannot be read; and why apply could not attach
	 * it, where it recorded that. */
	bool initwnd_fq;
	bool initwnd_wanted;
	struct sockops_windows initwnd_want;
	int initwnd_error;
	struct sockops_state initwnd;
	char initwnd_why[400];
	bool boot_unknown; /* a sysctl.d file could not be read */
	/* The maintainer scripts left this kernel alone (STATE_FIRSTBOOT). */
	bool left_alone_recorded;

	/* Decided by report_decide(), with each key's state. When the CPU
	 * count changed and the congestion choice is known: the values a new
	 * rendering would change (none: the same profile, no warning). */
	bool cpus_compared;
	size_t n_cpu_changes;
	struct cpu_change cpu_changes[SETTINGS_MAX];
	/* The fragment's line for a key that reaches only the qdiscs created
	 * after it (default_qdisc as fq), or NULL. */
	const struct assignment *qdisc;
};

const char *key_state_to_string(enum key_state state);
bool key_state_alarm(enum key_state state);
const char *condition_to_string(enum condition condition);
bool condition_alarm(enum condition condition);
bool module_unloadable(const struct report *r, const struct module_facts *m);
bool report_qdisc_pending(const struct report *r);
bool report_left_alone(const struct report *r);
void report_profile(struct report *r);
void report_decide(struct report *r);
bool report_condition(const struct report *r, enum condition condition);
enum verdict report_verdict(const struct report *r);
int report_exit_status(enum verdict verdict);

void report_print_text(const struct report *r, FILE *f);
void report_print_json(const struct report *r, FILE *f);
void report_print_prometheus(const struct report *r, FILE *f);
void report_print_detect_json(const char *root, const struct sysinfo *info, FILE *f);
