/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "command.h"
#include "report.h"

static const struct assignment ours[] = {
	{ .key = "net.core.somaxconn",
	  .value = "65535",
	  .file = "/etc/sysctl.d/60-wp-panel-nettune.conf" },
	{ .key = "net.core.default_qdisc",
	  .value = "fq",
	  .ignore_failure = true,
	  .file = "/etc/sysctl.d/60-wp-panel-nettune.conf" },
};
static const struct assignment theirs = { .key = "net.core.somaxconn",
					  .value = "4096",
					  .file = "/etc/sysctl.d/70-\"x\"\n\xff.conf" };

/* The fragment as the package installed it: ours, until a case edits it. */
static struct assignment base_lines[ELEMENTSOF(ours)];

/* Two keys, both in effect, on a host with 2 CPUs and one NIC on fq. */
static void report_in_effect(struct report *r, struct key_facts *keys)
{
	memcpy(base_lines, ours, sizeof(ours));
	*r = (struct report){
		.root = "",
		.info = { .cpus = 2,
			  .release = "6.12.57+deb13-amd64",
			  .n_modules = 2,
			  .modules = { { "sch_fq", MODSTATE_LOADED },
				       { "tcp_bbr", MODSTATE_LOADED } },
			  .environment = ENVIRONMENT_HOST,
			  .net_writable = true },
		.fragment_present = true,
		.fragment_cpus = 2,
		.n_keys = 2,
		.keys = keys,
		.n_modules = 1,
		.modules = { { .name = "tcp_bbr",
			       .state = MODSTATE_LOADED,
			       .listed = true } },
		.qdisc = &ours[1],
		.n_links = 2,
		.links = { { .ifindex = 1, .ifname = "lo", .root = "noqueue" },
			   { .ifindex = 2,
			     .ifname = "ens2",
			     .root = "mq",
			     .n_leaves = 1,
			     .leaves = { "fq" } } },
		.initwnd_fq = true,
		.initwnd_wanted = true,
		.initwnd_want = { .cwnd = 32,
				  .rwnd = 32,
				  .ports = { 80, 443 },
				  .n_ports = 2 },
		.initwnd = { .attached = true,
			     .cgroup_id = 1,
			     .prog_id = 57,
			     .windows = { .cwnd = 32,
					  .rwnd = 32,
					  .ports = { 443, 80 },
					  .n_ports = 2 },
			     .given = 1234 },
	};
	r->have_choice = true;
	r->base_present = true;
	r->base =
		(struct assignments){ .n = ELEMENTSOF(base_lines), .items = base_lines };
	for (size_t i = 0; i < 2; i++) {
		keys[i] = (struct key_facts){ .key = ours[i].key,
					      .wanted = &ours[i],
					      .profile = ours[i].value,
					      .boot = &ours[i],
					      .state = KEY_IN_EFFECT };
		strcpy(keys[i].live, ours[i].value);
	}
}

static char *print(const struct report *r, void (*fn)(const struct report *, FILE *))
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	fn(r, f);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* One key's facts against the state report_decide() gives it, one row a
 * case: the fragment's value (NULL: no line), the base's (NULL: no line),
 * the profile's (NULL: not set), the value another file sets at boot (NULL:
 * ours wins), the live value or why it could not be read. */
static void test_key_states(void **state _unused_)
{
	enum {
		OPTIONAL = 1 << 0, /* the line starts with "-" */
		NO_BASE = 1 << 1, /* no copy of the fragment as installed */
		READ_ONLY = 1 << 2, /* the namespace does not let it be written */
		LEFT_ALONE = 1 << 3, /* a container the package left alone */
	};
	static const struct {
		const char *why;
		const char *wanted, *base, *profile, *boot, *live;
		int live_error;
		unsigned flags;
		enum key_state want;
	} cases[] = {
		{ "as installed, live", .wanted = "15", .base = "15", .profile = "15",
		  .live = "15", .want = KEY_IN_EFFECT },
		{ "another file, the same value", .wanted = "15", .base = "15",
		  .profile = "15", .boot = "15", .live = "15", .want = KEY_IN_EFFECT },
		{ "another file's empty value is none", .wanted = "15", .base = "15",
		  .profile = "15", .boot = "", .live = "15", .want = KEY_IN_EFFECT },
		{ "another file's value, live", .wanted = "15", .base = "15",
		  .profile = "15", .boot = "25", .live = "25", .want = KEY_OVERRIDDEN },
		{ "another file's value, not live", .wanted = "15", .base = "15",
		  .profile = "15", .boot = "25", .live = "15", .want = KEY_DRIFT },
		{ "an edited line, live", .wanted = "25", .base = "15", .profile = "15",
		  .live = "25", .want = KEY_EDITED },
		{ "an edited line, not live", .wanted = "25", .base = "15",
		  .profile = "15", .live = "15", .want = KEY_DRIFT },
		{ "an older profile's line", .wanted = "60", .base = "60",
		  .profile = "15", .live = "60", .want = KEY_OUTDATED },
		{ "no base: nothing proves an edit", .wanted = "25", .profile = "15",
		  .live = "25", .flags = NO_BASE, .want = KEY_OUTDATED },
		{ "a line the profile no longer sets", .wanted = "15", .base = "15",
		  .live = "15", .want = KEY_OUTDATED },
		{ "a line added by hand", .wanted = "15", .live = "15",
		  .want = KEY_EDITED },
		{ "the profile's key, not in the fragment", .profile = "1", .live = "0",
		  .want = KEY_MISSING },
		{ "the same, without a base", .profile = "1", .live = "0",
		  .flags = NO_BASE, .want = KEY_MISSING },
		{ "removed from the fragment by hand", .base = "1", .profile = "1",
		  .live = "0", .want = KEY_EDITED },
		{ "live changed behind our back", .wanted = "15", .base = "15",
		  .profile = "15", .live = "77", .want = KEY_DRIFT },
		{ "live unreadable", .wanted = "15", .base = "15", .profile = "15",
		  .live_error = -EACCES, .want = KEY_DRIFT },
		{ "absent, optional", .wanted = "fq", .base = "fq", .profile = "fq",
		  .live_error = -ENOENT, .flags = OPTIONAL, .want = KEY_NOT_IN_NAMESPACE },
		{ "absent, not optional", .wanted = "15", .base = "15", .profile = "15",
		  .live_error = -ENOENT, .want = KEY_DRIFT },
		{ "read-only, optional, another value", .wanted = "fq", .base = "fq",
		  .profile = "fq", .live = "fq_codel", .flags = OPTIONAL | READ_ONLY,
		  .want = KEY_READ_ONLY },
		{ "read-only, not optional", .wanted = "15", .base = "15",
		  .profile = "15", .live = "60", .flags = READ_ONLY, .want = KEY_DRIFT },
		{ "writable, optional, another value", .wanted = "fq", .base = "fq",
		  .profile = "fq", .live = "fq_codel", .flags = OPTIONAL,
		  .want = KEY_DRIFT },
		{ "read-only, optional, our value", .wanted = "fq", .base = "fq",
		  .profile = "fq", .live = "fq", .flags = OPTIONAL | READ_ONLY,
		  .want = KEY_IN_EFFECT },
		{ "left alone, another value", .wanted = "15", .base = "15",
		  .profile = "15", .live = "60", .flags = LEFT_ALONE,
		  .want = KEY_LEFT_ALONE },
		{ "left alone, absent", .wanted = "fq", .base = "fq", .profile = "fq",
		  .live_error = -ENOENT, .flags = OPTIONAL | LEFT_ALONE,
		  .want = KEY_LEFT_ALONE },
		{ "left alone, our edit live", .wanted = "25", .base = "15",
		  .profile = "15", .live = "25", .flags = LEFT_ALONE, .want = KEY_EDITED },
	};
	bool seen[KEY_STATE_MAX] = { false };

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct assignment wanted = {
			.key = "net.ipv4.tcp_fin_timeout",
			.file = "/etc/sysctl.d/60-wp-panel-nettune.conf"
		};
		struct assignment base = wanted, boot = wanted;
		struct key_facts k = { .key = wanted.key };
		struct report r = { .root = "",
				    .info = { .cpus = 2, .environment = ENVIRONMENT_HOST },
				    .fragment_present = true,
				    .n_keys = 1,
				    .keys = &k };

		if (cases[i].wanted) {
			snprintf(wanted.value, sizeof(wanted.value), "%s",
				 cases[i].wanted);
			wanted.ignore_failure = cases[i].flags & OPTIONAL;
			k.wanted = &wanted;
		}
		r.base_present = !(cases[i].flags & NO_BASE);
		if (cases[i].base) {
			snprintf(base.value, sizeof(base.value), "%s", cases[i].base);
			r.base = (struct assignments){ .n = 1, .items = &base };
		}
		k.profile = cases[i].profile;
		if (cases[i].boot) {
			snprintf(boot.value, sizeof(boot.value), "%s", cases[i].boot);
			strcpy(boot.file, "/etc/sysctl.d/70-local.conf");
			k.boot = &boot;
		} else if (cases[i].wanted) {
			k.boot = &wanted;
		}
		if (cases[i].live)
			snprintf(k.live, sizeof(k.live), "%s", cases[i].live);
		k.live_error = cases[i].live_error;
		k.read_only = cases[i].flags & READ_ONLY;
		if (cases[i].flags & LEFT_ALONE) {
			r.info.environment = ENVIRONMENT_CONTAINER;
			r.left_alone_recorded = true;
		}
		report_decide(&r);
		if (k.state != cases[i].want)
			fail_msg("%s: %s, not %s", cases[i].why,
				 key_state_to_string(k.state),
				 key_state_to_string(cases[i].want));
		seen[k.state] = true;
	}
	for (enum key_state s = 0; s < KEY_STATE_MAX; s++)
		if (!seen[s])
			fail_msg("no case gives %s", key_state_to_string(s));
}

/* Each departure alone, made of facts as status collects them: the
 * conditions report_decide() and report_condition() find, the verdict and
 * the exit status. What an administrator chose never raises the alarm; what
 * nobody chose always does. */
static void test_verdict(void **state _unused_)
{
	enum change {
		NONE,
		OVERRIDDEN,
		EDITED,
		LEFT_ALONE,
		ABSENT,
		READ_ONLY,
		OUTDATED,
		MISSING_KEY,
		DRIFT,
		DRIFT_AND_EDITED,
		UNLOADABLE,
		UNLOADABLE_IN_CONTAINER,
		CHROOT_UNRECORDED,
		BOOT_UNKNOWN,
		NO_FRAGMENT,
		BAD_LINES,
		CPUS_SAME_PROFILE,
		CPUS_OTHER_PROFILE,
		CPUS_NO_CHOICE,
		CPUS_NOT_MARKED,
		CUBIC_CHOSEN,
		AUTO_CHOSEN,
		CUBIC_NO_FRAGMENT,
		INITWND_DETACHED,
		INITWND_OTHER_PORTS,
		INITWND_REFUSED,
		INITWND_UNREADABLE,
		INITWND_UNDER_ROOT,
		INITWND_UNWANTED_ATTACHED,
		INITWND_NO_PORTS_ATTACHED,
		INITWND_NO_PORTS_DETACHED,
		INITWND_LEFT_ALONE,
	};
	static const struct {
		enum change change;
		enum verdict verdict;
		int exit;
		const char *conditions;
	} cases[] = {
		{ NONE, VERDICT_IN_EFFECT, 0, "" },
		{ OVERRIDDEN, VERDICT_CHOSEN, 0, "overridden " },
		{ EDITED, VERDICT_CHOSEN, 0, "edited " },
		{ LEFT_ALONE, VERDICT_CHOSEN, 0, "left-alone " },
		{ ABSENT, VERDICT_IN_EFFECT, 0, "" },
		{ READ_ONLY, VERDICT_IN_EFFECT, 0, "" },
		{ OUTDATED, VERDICT_ALARM, 3, "outdated " },
		{ MISSING_KEY, VERDICT_ALARM, 3, "outdated " },
		{ DRIFT, VERDICT_ALARM, 3, "drift " },
		/* A choice beside an alarm: the alarm wins. */
		{ DRIFT_AND_EDITED, VERDICT_ALARM, 3, "drift edited " },
		{ UNLOADABLE, VERDICT_ALARM, 3, "module-unloadable " },
		{ UNLOADABLE_IN_CONTAINER, VERDICT_CHOSEN, 0, "left-alone " },
		/* A chroot the maintainer scripts did not leave alone (a
		 * sandboxed service takes itself for one): no choice. */
		{ CHROOT_UNRECORDED, VERDICT_ALARM, 3, "module-unloadable " },
		{ BOOT_UNKNOWN, VERDICT_ALARM, 3, "boot-unknown " },
		{ NO_FRAGMENT, VERDICT_ALARM, 3, "not-tuned " },
		{ BAD_LINES, VERDICT_ALARM, 3, "malformed " },
		{ CPUS_SAME_PROFILE, VERDICT_IN_EFFECT, 0, "" },
		{ CPUS_OTHER_PROFILE, VERDICT_ALARM, 3, "cpus-changed " },
		{ CPUS_NO_CHOICE, VERDICT_ALARM, 3, "cpus-changed " },
		/* No CPU count known: nothing to compare. */
		{ CPUS_NOT_MARKED, VERDICT_IN_EFFECT, 0, "" },
		{ CUBIC_CHOSEN, VERDICT_CHOSEN, 0, "congestion-chosen " },
		{ AUTO_CHOSEN, VERDICT_IN_EFFECT, 0, "" },
		{ CUBIC_NO_FRAGMENT, VERDICT_ALARM, 3, "not-tuned " },
		{ INITWND_DETACHED, VERDICT_ALARM, 3, "initial-window-drift " },
		{ INITWND_OTHER_PORTS, VERDICT_ALARM, 3, "initial-window-drift " },
		{ INITWND_REFUSED, VERDICT_CHOSEN, 0, "initial-window-refused " },
		{ INITWND_UNREADABLE, VERDICT_IN_EFFECT, 0, "" },
		{ INITWND_UNDER_ROOT, VERDICT_IN_EFFECT, 0, "" },
		{ INITWND_UNWANTED_ATTACHED, VERDICT_ALARM, 3, "initial-window-drift " },
		/* fq, but the ports file names none: not wanted either. */
		{ INITWND_NO_PORTS_ATTACHED, VERDICT_ALARM, 3, "initial-window-drift " },
		{ INITWND_NO_PORTS_DETACHED, VERDICT_IN_EFFECT, 0, "" },
		{ INITWND_LEFT_ALONE, VERDICT_CHOSEN, 0, "left-alone " },
	};
	bool seen[CONDITION_MAX] = { false };

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char conditions[256] = "";
		struct key_facts keys[2];
		struct report r;

		report_in_effect(&r, keys);
		for (size_t j = 0; j < 2; j++)
			keys[j].state = KEY_STATE_MAX;
		switch (cases[i].change) {
		case OVERRIDDEN:
			keys[0].boot = &theirs;
			strcpy(keys[0].live, theirs.value);
			break;
		case EDITED:
			/* The package installed 4096, the line says 65535. */
			strcpy(base_lines[0].value, "4096");
			keys[0].profile = "4096";
			break;
		case LEFT_ALONE:
			r.info.environment = ENVIRONMENT_CONTAINER;
			r.left_alone_recorded = true;
			strcpy(keys[0].live, "4096");
			break;
		case ABSENT:
			keys[1].live_error = -ENOENT;
			keys[1].live[0] = '\0';
			break;
		case READ_ONLY:
			strcpy(keys[1].live, "fq_codel");
			keys[1].read_only = true;
			break;
		case OUTDATED:
			/* Installed as it is, and the profile has moved on. */
			keys[0].profile = "4096";
			break;
		case MISSING_KEY:
			keys[1] = (struct key_facts){ .key = "net.ipv4.tcp_mtu_probing",
						      .profile = "1",
						      .live = "0" };
			break;
		case DRIFT:
			strcpy(keys[0].live, "4096");
			break;
		case DRIFT_AND_EDITED:
			strcpy(keys[0].live, "4096");
			strcpy(base_lines[1].value, "fq_codel");
			keys[1].profile = "fq_codel";
			break;
		case UNLOADABLE:
			r.modules[0].state = MODSTATE_BLACKLISTED;
			break;
		case UNLOADABLE_IN_CONTAINER:
			r.modules[0].state = MODSTATE_MISSING;
			r.info.environment = ENVIRONMENT_CONTAINER;
			r.left_alone_recorded = true;
			break;
		case CHROOT_UNRECORDED:
			r.info.environment = ENVIRONMENT_CHROOT;
			r.modules[0].state = MODSTATE_MISSING;
			break;
		case BOOT_UNKNOWN:
			r.boot_unknown = true;
			break;
		case NO_FRAGMENT:
		case CUBIC_NO_FRAGMENT:
			r.fragment_present = false;
			r.n_keys = 0;
			r.qdisc = NULL;
			r.initwnd_fq = false;
			r.initwnd.attached = false;
			r.choice = cases[i].change == CUBIC_NO_FRAGMENT ?
					   CONGESTION_CUBIC :
					   CONGESTION_AUTO;
			break;
		case BAD_LINES:
			r.malformed = true;
			break;
		case CPUS_SAME_PROFILE:
			r.fragment_cpus = 3;
			break;
		case CPUS_OTHER_PROFILE:
			r.fragment_cpus = 1;
			break;
		case CPUS_NO_CHOICE:
			r.fragment_cpus = 1;
			r.have_choice = false;
			break;
		case CPUS_NOT_MARKED:
			r.fragment_cpus = 0;
			break;
		case CUBIC_CHOSEN:
			r.choice = CONGESTION_CUBIC;
			break;
		case AUTO_CHOSEN:
			r.choice = CONGESTION_AUTO;
			break;
		case INITWND_DETACHED:
			r.initwnd.attached = false;
			r.initwnd_error = -ENOENT;
			break;
		case INITWND_OTHER_PORTS:
			r.initwnd.windows.ports[1] = 8080;
			break;
		case INITWND_REFUSED:
			r.initwnd.attached = false;
			r.initwnd_error = -ENOENT;
			strcpy(r.initwnd_why, "/sys/fs/cgroup: not a cgroup v2 directory");
			break;
		case INITWND_UNREADABLE:
			r.initwnd_error = -EPERM;
			break;
		case INITWND_UNDER_ROOT:
			r.initwnd.attached = false;
			r.initwnd_error = -EOPNOTSUPP;
			break;
		case INITWND_UNWANTED_ATTACHED:
			r.initwnd_fq = false;
			break;
		case INITWND_NO_PORTS_ATTACHED:
			r.initwnd_want.n_ports = 0;
			break;
		case INITWND_NO_PORTS_DETACHED:
			r.initwnd_want.n_ports = 0;
			r.initwnd.attached = false;
			r.initwnd_error = -ENOENT;
			break;
		case INITWND_LEFT_ALONE:
			r.initwnd.attached = false;
			r.initwnd_error = -ENOENT;
			r.info.environment = ENVIRONMENT_CONTAINER;
			r.left_alone_recorded = true;
			break;
		case NONE:
			break;
		}
		report_decide(&r);
		for (enum condition c = 0; c < CONDITION_MAX; c++)
			if (report_condition(&r, c)) {
				strcat(conditions, condition_to_string(c));
				strcat(conditions, " ");
				seen[c] = true;
			}
		if (strcmp(conditions, cases[i].conditions) != 0)
			fail_msg("case %zu: \"%s\", not \"%s\"", i, conditions,
				 cases[i].conditions);
		assert_int_equal(report_verdict(&r), cases[i].verdict);
		assert_int_equal(report_exit_status(report_verdict(&r)), cases[i].exit);
	}
	for (enum condition c = 0; c < CONDITION_MAX; c++)
		if (!seen[c])
			fail_msg("no case makes %s", condition_to_string(c));
}

/* Chosen states never raise the alarm, and all others do. */
static void test_states(void **state _unused_)
{
	static const char *const alarms = "outdated missing drift ";
	char got[256] = "";

	for (enum key_state s = 0; s < KEY_STATE_MAX; s++)
		if (key_state_alarm(s)) {
			strcat(got, key_state_to_string(s));
			strcat(got, " ");
		}
	assert_string_equal(got, alarms);
	got[0] = '\0';
	for (enum condition c = 0; c < CONDITION_MAX; c++)
		if (!condition_alarm(c)) {
			strcat(got, condition_to_string(c));
			strcat(got, " ");
		}
	assert_string_equal(
		got,
		"initial-window-refused overridden edited left-alone congestion-chosen ");
}

static void test_text(void **state _unused_)
{
	struct key_facts keys[3];
	struct report r;
	char *text;

	report_in_effect(&r, keys);
	keys[0].boot = &theirs;
	strcpy(keys[0].live, theirs.value);
	keys[0].state = KEY_OVERRIDDEN;
	keys[1].live_error = -ENOENT;
	keys[1].live[0] = '\0';
	keys[1].state = KEY_NOT_IN_NAMESPACE;
	keys[2] = (struct key_facts){ .key = "net.ipv4.tcp_mtu_probing",
				      .profile = "1",
				      .live = "0",
				      .state = KEY_MISSING };
	r.n_keys = 3;
	r.ucf_left[0] = ".ucf-dist";
	r.links[1].root[0] = '\0';
	r.links[1].n_leaves = 0;
	r.fragment_cpus = 1;
	r.have_choice = false;
	text = print(&r, report_print_text);
	assert_string_equal(
		text,
		"KEY                                WANTED                LIVE                  SET AT BOOT BY\n"
		"net.core.somaxconn                 65535                 4096                  /etc/sysctl.d/70-\"x\"\\n\xff.conf  (overridden)\n"
		"net.core.default_qdisc             fq                    (absent)              /etc/sysctl.d/60-wp-panel-nettune.conf  (not in this namespace)\n"
		"net.ipv4.tcp_mtu_probing           (missing)             0                     (none)  MISSING\n"
		"\n"
		"tcp_bbr: loaded\n"
		"qdisc lo: noqueue\n"
		"qdisc ens2: ?\n"
		"note: default_qdisc fq reaches an interface when it is created; the ones\n"
		"      above keep their qdisc until the next boot (BBR paces itself meanwhile).\n"
		"initial windows: 32 and 32 for new connections to ports 80 and 443, attached to "
		"/sys/fs/cgroup (program 57), given 1234 times\n"
		"warning: the fragment was made for 1 CPU, this machine has 2 now:\n"
		"         run 'dpkg-reconfigure wp-panel-nettune' to choose again.\n"
		"warning: an update of the fragment is not taken; it would change:\n"
		"           net.ipv4.tcp_mtu_probing: (not set) -> 1\n"
		"         ucf put the new version beside it: /etc/sysctl.d/60-wp-panel-nettune.conf.ucf-dist\n"
		"         It is the fragment the package installed: run\n"
		"         'dpkg-reconfigure wp-panel-nettune' to take the new one.\n"
		"\n"
		"Not as it should be (exit 3): outdated, cpus-changed.\n");
	free(text);

	/* Chosen: an edit and a later file; the verdict names both. */
	report_in_effect(&r, keys);
	keys[0].boot = &theirs;
	strcpy(keys[0].live, theirs.value);
	keys[0].state = KEY_OVERRIDDEN;
	keys[1].profile = "fq_codel";
	keys[1].state = KEY_EDITED;
	r.edited = true;
	text = print(&r, report_print_text);
	assert_non_null(strstr(text, "/etc/sysctl.d/60-wp-panel-nettune.conf  "
				     "(edited; the profile: fq_codel)\n"));
	assert_non_null(strstr(text, "\nAs chosen (exit 0): overridden, edited.\n"));
	free(text);
}

static void test_json(void **state _unused_)
{
	struct key_facts keys[2];
	struct report r;
	char *text;

	report_in_effect(&r, keys);
	keys[0].boot = &theirs;
	strcpy(keys[0].live, theirs.value);
	keys[0].state = KEY_OVERRIDDEN;
	r.n_keys = 1;
	r.root = "/srv/tree";
	r.qdisc_error = -EOPNOTSUPP;
	r.initwnd_error = -EOPNOTSUPP;
	text = print(&r, report_print_json);
	assert_string_equal(
		text,
		"{\"schema\":3,\"command\":\"status\",\"version\":\"" VERSION "\","
		"\"root\":\"/srv/tree\",\"environment\":\"host\",\"container\":null,"
		"\"kernel\":\"6.12.57+deb13-amd64\",\"cpus\":2,"
		"\"fragment\":{\"path\":\"/etc/sysctl.d/60-wp-panel-nettune.conf\",\"present\":true,"
		"\"cpus\":2,\"cpus_changed\":false,\"cpus_change\":null,\"malformed\":false,"
		"\"congestion\":\"auto\",\"base\":\"/var/lib/wp-panel-nettune/fragment.base\","
		"\"edited\":false,\"ucf_left\":[]},"
		"\"keys\":[{\"key\":\"net.core.somaxconn\",\"wanted\":\"65535\",\"profile\":\"65535\","
		"\"live\":\"4096\",\"live_error\":null,\"optional\":false,"
		"\"boot_file\":\"/etc/sysctl.d/70-\\\"x\\\"\\n\\ufffd.conf\",\"boot_value\":\"4096\","
		"\"state\":\"overridden\",\"alarm\":false}],"
		"\"modules\":[{\"module\":\"tcp_bbr\",\"state\":\"loaded\",\"listed\":true,"
		"\"unloadable\":false}],"
		"\"qdiscs\":null,\"qdiscs_error\":\"not queried under --root\","
		"\"qdisc_pending\":false,"
		"\"initial_windows\":{\"wanted\":true,\"wanted_congestion\":32,\"wanted_receive\":32,"
		"\"wanted_ports\":[80,443],\"attached\":null,\"error\":\"not queried under --root\","
		"\"program_id\":null,\"congestion\":null,\"receive\":null,\"ports\":null,"
		"\"given\":null,\"left_alone\":null},"
		"\"boot_unknown\":false,\"conditions\":[\"overridden\"],"
		"\"verdict\":\"chosen\",\"exit_status\":0}\n");
	free(text);

	/* On the real root: the program as pinned, its ports in the map's order. */
	report_in_effect(&r, keys);
	text = print(&r, report_print_json);
	assert_non_null(strstr(
		text,
		"\"initial_windows\":{\"wanted\":true,\"wanted_congestion\":32,\"wanted_receive\":32,"
		"\"wanted_ports\":[80,443],\"attached\":true,\"error\":null,\"program_id\":57,"
		"\"congestion\":32,\"receive\":32,\"ports\":[443,80],\"given\":1234,"
		"\"left_alone\":null},"));
	assert_non_null(strstr(text, "\"conditions\":[],\"verdict\":\"in-effect\""));
	free(text);

	/* Wanted and not pinned, with no reason recorded: an alarm. */
	r.initwnd_error = -ENOENT;
	r.initwnd.attached = false;
	text = print(&r, report_print_json);
	assert_non_null(
		strstr(text, "\"attached\":false,\"error\":null,\"program_id\":null,"));
	assert_non_null(strstr(text, "\"conditions\":[\"initial-window-drift\"],"
				     "\"verdict\":\"alarm\""));
	free(text);
	text = print(&r, report_print_text);
	assert_non_null(
		strstr(text, "\ninitial windows: WANTED 32 and 32 for new connections to "
			     "ports 80 and 443: not attached; wp-panel-nettune initwnd "
			     "attaches it\n"));
	assert_non_null(
		strstr(text, "\nNot as it should be (exit 3): initial-window-drift.\n"));
	free(text);

	/* The pins unreadable for want of privilege: unknown, no alarm. */
	r.initwnd_error = -EPERM;
	text = print(&r, report_print_text);
	assert_non_null(
		strstr(text, "\ninitial windows: the program's pins cannot be read: "));
	assert_null(strstr(text, "initial-window-drift"));
	free(text);
	text = print(&r, report_print_prometheus);
	assert_null(strstr(text, "nettune_initial_window_attached"));
	assert_non_null(strstr(text, "\nnettune_alarm 0\n"));
	free(text);
	r.initwnd_error = -ENOENT;

	/* The kernel refused it, as apply recorded: said, and no alarm. */
	strcpy(r.initwnd_why, "/sys/fs/cgroup: not a cgroup v2 directory");
	text = print(&r, report_print_text);
	assert_non_null(strstr(text,
			       "\ninitial windows: left to the kernel: /sys/fs/cgroup: "
			       "not a cgroup v2 directory\n"));
	assert_non_null(strstr(text, "\nAs chosen (exit 0): initial-window-refused.\n"));
	free(text);
	r.initwnd_why[0] = '\0';

	/* Attached with other ports than the setting's: an alarm too. */
	r.initwnd_error = 0;
	r.initwnd.attached = true;
	r.initwnd.windows.ports[1] = 8080;
	text = print(&r, report_print_text);
	assert_non_null(strstr(text,
			       "ports 80 and 443: attached with others; wp-panel-nettune "
			       "initwnd sets them\n"));
	assert_non_null(strstr(text, "(exit 3): initial-window-drift.\n"));
	free(text);

	/* Not wanted (fq_codel) and still attached: an alarm; detached: none. */
	r.initwnd.windows.ports[1] = 80;
	r.initwnd_fq = false;
	r.initwnd_wanted = false;
	text = print(&r, report_print_text);
	assert_non_null(strstr(text, "\ninitial windows: ATTACHED though not wanted; "
				     "wp-panel-nettune initwnd detaches it\n"));
	free(text);
	r.initwnd.attached = false;
	text = print(&r, report_print_text);
	assert_non_null(strstr(
		text,
		"\ninitial windows: left to the kernel: the fragment does not set fq\n"));
	assert_non_null(strstr(text, "\nAll in effect.\n"));
	free(text);

	/* fq, and the setting names no port (as shipped): the kernel's
	 * windows, the reason the setting, no alarm. */
	r.initwnd_fq = true;
	r.initwnd_want.n_ports = 0;
	report_decide(&r);
	assert_false(r.initwnd_wanted);
	text = print(&r, report_print_text);
	assert_non_null(
		strstr(text,
		       "\ninitial windows: left to the kernel: "
		       "/etc/wp-panel-nettune/initial-window-ports names no port\n"));
	assert_non_null(strstr(text, "\nAll in effect.\n"));
	free(text);

	/* No fq (one CPU, cubic) and no port: the fragment is the reason,
	 * whatever the setting says. */
	r.initwnd_fq = false;
	report_decide(&r);
	text = print(&r, report_print_text);
	assert_non_null(strstr(
		text,
		"\ninitial windows: left to the kernel: the fragment does not set fq\n"));
	free(text);
}

static void test_prometheus(void **state _unused_)
{
	struct key_facts keys[2];
	struct report r;
	char *text;

	report_in_effect(&r, keys);
	keys[0].boot = &theirs;
	strcpy(keys[0].live, theirs.value);
	keys[0].state = KEY_OVERRIDDEN;
	keys[1].live_error = -EACCES;
	keys[1].state = KEY_DRIFT;
	r.links[1].n_leaves = 2;
	strcpy(r.links[1].leaves[1], "fq_codel");
	text = print(&r, report_print_prometheus);
	assert_non_null(strstr(text, "# HELP nettune_info "));
	assert_non_null(strstr(text, "\nnettune_info{version=\"" VERSION
				     "\",kernel=\"6.12.57+deb13-amd64\","
				     "environment=\"host\",container=\"\"} 1\n"));
	assert_non_null(strstr(text, "\n# TYPE nettune_alarm gauge\nnettune_alarm 1\n"));
	assert_non_null(
		strstr(text,
		       "\nnettune_condition{condition=\"not-tuned\",chosen=\"no\"} 0\n"
		       "nettune_condition{condition=\"malformed\",chosen=\"no\"} 0\n"
		       "nettune_condition{condition=\"drift\",chosen=\"no\"} 1\n"));
	assert_non_null(
		strstr(text,
		       "\nnettune_condition{condition=\"overridden\",chosen=\"yes\"} 1\n"
		       "nettune_condition{condition=\"edited\",chosen=\"yes\"} 0\n"));
	assert_non_null(strstr(text, "\nnettune_cpus 2\n"));
	assert_non_null(strstr(text, "\nnettune_fragment_cpus 2\n"));
	/* A state set: every state of every key, one of them 1. */
	assert_non_null(strstr(
		text,
		"\nnettune_key_state{key=\"net.core.somaxconn\",state=\"in-effect\"} 0\n"
		"nettune_key_state{key=\"net.core.somaxconn\",state=\"overridden\"} 1\n"
		"nettune_key_state{key=\"net.core.somaxconn\",state=\"edited\"} 0\n"));
	assert_non_null(strstr(
		text,
		"\nnettune_key_state{key=\"net.core.default_qdisc\",state=\"drift\"} 1\n"));
	/* The live value where it is a number, and none where unreadable. */
	assert_non_null(
		strstr(text, "\nnettune_key_value{key=\"net.core.somaxconn\"} 4096\n"));
	assert_null(strstr(text, "nettune_key_value{key=\"net.core.default_qdisc\"}"));
	assert_non_null(
		strstr(text,
		       "\nnettune_module_state{module=\"tcp_bbr\",state=\"missing\"} 0\n"
		       "nettune_module_state{module=\"tcp_bbr\",state=\"module\"} 0\n"
		       "nettune_module_state{module=\"tcp_bbr\",state=\"loaded\"} 1\n"));
	assert_non_null(strstr(text, "\nnettune_qdisc_info{interface=\"ens2\",root=\"mq\","
				     "leaves=\"fq fq_codel\"} 1\n"));
	assert_non_null(strstr(text, "\nnettune_qdisc_pending 0\n"));
	/* The program: wanted, attached, its windows, ports and counter. */
	assert_non_null(strstr(text, "\nnettune_initial_window_wanted 1\n"));
	assert_non_null(strstr(text, "\nnettune_initial_window_attached 1\n"));
	assert_non_null(
		strstr(text,
		       "\nnettune_initial_window_segments{window=\"congestion\"} 32\n"
		       "nettune_initial_window_segments{window=\"receive\"} 32\n"));
	assert_non_null(strstr(text,
			       "\nnettune_initial_window_port_info{port=\"443\"} 1\n"
			       "nettune_initial_window_port_info{port=\"80\"} 1\n"));
	assert_non_null(strstr(text,
			       "\n# TYPE nettune_initial_window_given_total counter\n"
			       "nettune_initial_window_given_total 1234\n"));
	/* No labels that change with the values: the old families are gone. */
	assert_null(strstr(text, "wanted="));
	assert_null(strstr(text, "live="));
	/* Every line is a HELP or TYPE line, or a sample of the family they
	 * opened last; every sample ends with its value. */
	for (char *line = text, *end; *line; line = end + 1) {
		static char family[128];

		end = strchr(line, '\n');
		assert_non_null(end);
		*end = '\0';
		if (strncmp(line, "# HELP ", 7) == 0) {
			assert_int_equal(sscanf(line + 7, "%127s", family), 1);
			continue;
		}
		if (strncmp(line, "# TYPE ", 7) == 0) {
			assert_int_equal(strncmp(line + 7, family, strlen(family)), 0);
			assert_string_equal(line + 7 + strlen(family),
					    strstr(family, "_total") ? " counter" :
								       " gauge");
			continue;
		}
		assert_int_equal(strncmp(line, family, strlen(family)), 0);
		assert_true(line[strlen(family)] == ' ' || line[strlen(family)] == '{');
		assert_true(strrchr(line, ' ')[1] >= '0' && strrchr(line, ' ')[1] <= '9');
	}
	free(text);

	/* Under --root no qdiscs and no program: no family of those names. */
	r.qdisc_error = -EOPNOTSUPP;
	r.initwnd_error = -EOPNOTSUPP;
	text = print(&r, report_print_prometheus);
	assert_null(strstr(text, "qdisc_info"));
	assert_null(strstr(text, "initial_window"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_states), cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_states),	   cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),	   cmocka_unit_test(test_prometheus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
