/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "journal.h"

/* What apply does with one key of the fragment. */
enum apply_action {
	APPLY_NOT_PROFILE, /* not a key of the profile: purge could not put it back */
	APPLY_OTHER_FILE, /* a later sysctl.d file sets it at boot: left to that file */
	APPLY_UNREADABLE, /* its live value cannot be read: as the failure policy says */
	APPLY_IN_EFFECT, /* live already, the journal's step (if any) as it was */
	APPLY_SETTLE, /* live already, but the step lags: it is brought up to date */
	APPLY_MODULE_REFUSED, /* the value would load a module the admin blacklisted */
	APPLY_WOULD_SET, /* --dry-run: said */
	APPLY_SET, /* the original recorded (a step's kept), then written */
};

/* What is known of the key, when apply comes to it. */
struct apply_facts {
	bool journaled; /* a key the journal may name, tunable_journaled() */
	bool other_file; /* a later sysctl.d file sets it, overrides_find() */
	int read_error; /* reading its live value: 0, or -errno */
	const char *live; /* its live value, where read */
	const char *wanted; /* the fragment's value */
	const struct record *rec; /* the journal's step for it, or NULL */
	bool module_refused; /* the value needs a blacklisted module */
	bool dry_run;
};

enum apply_action apply_decide(const struct apply_facts *f);
