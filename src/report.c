/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What status found, printed three ways: the table for people, JSON for
 * the panel and scripts, Prometheus' text format for the node exporter.
 * status.c collects the facts; the profile they are held against, each
 * key's state, each condition and the verdict are decided here once, from
 * the facts alone, and the printers only format them. */
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "expo.h"
#include "i18n.h"
#include "journal.h"
#include "json.h"
#include "profile.h"
#include "render.h"
#include "report.h"
#include "utf8.h"

#ifndef VERSION
#error "VERSION is the one of debian/changelog, given by the Makefile"
#endif

/* A state's or a condition's name, and whether nobody chose it. */
struct named_state {
	const char *name;
	bool alarm;
};

static const struct named_state key_states[KEY_STATE_MAX] = {
	[KEY_IN_EFFECT] = { "in-effect", false },
	[KEY_OVERRIDDEN] = { "overridden", false },
	[KEY_EDITED] = { "edited", false },
	[KEY_LEFT_ALONE] = { "left-alone", false },
	[KEY_NOT_IN_NAMESPACE] = { "not-in-namespace", false },
	[KEY_READ_ONLY] = { "read-only-in-namespace", false },
	[KEY_OUTDATED] = { "outdated", true },
	[KEY_MISSING] = { "missing", true },
	[KEY_DRIFT] = { "drift", true },
};

static const struct named_state conditions[CONDITION_MAX] = {
	[CONDITION_NOT_TUNED] = { "not-tuned", true },
	[CONDITION_MALFORMED] = { "malformed", true },
	[CONDITION_DRIFT] = { "drift", true },
	[CONDITION_OUTDATED] = { "outdated", true },
	[CONDITION_CPUS_CHANGED] = { "cpus-changed", true },
	[CONDITION_MODULE_UNLOADABLE] = { "module-unloadable", true },
	[CONDITION_BOOT_UNKNOWN] = { "boot-unknown", true },
	[CONDITION_INITWND_DRIFT] = { "initial-window-drift", true },
	[CONDITION_INITWND_REFUSED] = { "initial-window-refused", false },
	[CONDITION_OVERRIDDEN] = { "overridden", false },
	[CONDITION_EDITED] = { "edited", false },
	[CONDITION_LEFT_ALONE] = { "left-alone", false },
	[CONDITION_CONGESTION_CHOSEN] = { "congestion-chosen", false },
};

static const char *const verdicts[] = {
	[VERDICT_IN_EFFECT] = "in-effect",
	[VERDICT_CHOSEN] = "chosen",
	[VERDICT_ALARM] = "alarm",
};

const char *key_state_to_string(enum key_state state)
{
	return key_states[state].name;
}

bool key_state_alarm(enum key_state state)
{
	return key_states[state].alarm;
}

const char *condition_to_string(enum condition condition)
{
	return conditions[condition].name;
}

bool condition_alarm(enum condition condition)
{
	return conditions[condition].alarm;
}

/* A container or chroot whose kernel the package left alone on purpose, as
 * its maintainer scripts recorded. The environment alone does not tell: a
 * sandboxed service, such as the metrics timer's, cannot see PID 1's root
 * and takes itself for a chroot. */
bool report_left_alone(const struct report *r)
{
	return r->info.environment != ENVIRONMENT_HOST && r->left_alone_recorded;
}

/* Listed in modules-load.d, and systemd-modules-load cannot load it; in a
 * container or chroot nothing loads modules at boot, on purpose. */
bool module_unloadable(const struct report *r, const struct module_facts *m)
{
	return m->listed && !modstate_usable(m->state) && !report_left_alone(r);
}

/* The profile this version renders for the machine the fragment was made
 * for: its CPU count (where known) and congestion choice, and a module that
 * has become unloadable since taken as loadable, so that module-unloadable
 * says so, not outdated. Computed once the modules are collected, before
 * the keys: status reads the live value of each key it sets. */
void report_profile(struct report *r)
{
	struct sysinfo made_for = r->info;

	if (r->fragment_cpus > 0)
		made_for.cpus = r->fragment_cpus;
	for (size_t i = 0; i < r->n_modules; i++)
		if (module_unloadable(r, &r->modules[i]))
			(void)sysinfo_set_module_state(&made_for, r->modules[i].name,
						       MODSTATE_MODULE);
	profile_compute(&made_for, r->choice, &r->profile);
}

/* Whether the fragment's line for a key (NULL: none) is the package's: the
 * same as in the base, the fragment as it was installed. Without a base,
 * nothing proves a difference was chosen: it counts as not taken. */
static bool line_as_installed(const struct report *r, const struct key_facts *k)
{
	const struct assignment *b;

	if (!r->base_present)
		return true;
	b = sysctld_find(&r->base, k->key);
	if (!k->wanted || !b)
		return !k->wanted && !b;
	return strcmp(b->value, k->wanted->value) == 0;
}

/* Where one key stands: first whether the kernel holds what boot sets,
 * then whose value that is. */
static enum key_state key_state(const struct report *r, const struct key_facts *k)
{
	const char *boot_value;
	bool same;

	if (!k->wanted) /* the profile sets it, the fragment does not */
		return line_as_installed(r, k) ? KEY_MISSING : KEY_EDITED;
	boot_value = k->boot && k->boot->value[0] ? k->boot->value : k->wanted->value;
	same = k->live_error == 0 && strcmp(k->live, boot_value) == 0;
	if (!same && report_left_alone(r))
		return KEY_LEFT_ALONE;
	if (k->live_error == -ENOENT && k->wanted->ignore_failure)
		return KEY_NOT_IN_NAMESPACE;
	if (k->live_error == 0 && !same && k->wanted->ignore_failure && k->read_only)
		return KEY_READ_ONLY;
	if (!same)
		return KEY_DRIFT;
	if (strcmp(boot_value, k->wanted->value) != 0)
		return KEY_OVERRIDDEN;
	if (k->profile && strcmp(k->profile, k->wanted->value) == 0)
		return KEY_IN_EFFECT;
	return line_as_installed(r, k) ? KEY_OUTDATED : KEY_EDITED;
}

/* The values a rendering for this machine's CPU count would change against
 * one for the count the fragment was made for, the rest of the machine and
 * the congestion choice the same: a resize that changes none needs nothing
 * done. */
static void compare_cpu_profiles(struct report *r)
{
	struct sysinfo then_info = r->info;
	struct profile then, now;

	then_info.cpus = r->fragment_cpus;
	profile_compute(&then_info, r->choice, &then);
	profile_compute(&r->info, r->choice, &now);
	r->cpus_compared = true;
	for (size_t i = 0; i < n_tunables; i++) {
		const struct setting *a = profile_find(&then, tunables[i].key);
		const struct setting *b = profile_find(&now, tunables[i].key);
		struct cpu_change *c = &r->cpu_changes[r->n_cpu_changes];

		if ((a && b && strcmp(a->value, b->value) == 0) || (!a && !b))
			continue;
		c->key = tunables[i].key;
		snprintf(c->then, sizeof(c->then), "%s", a ? a->value : "");
		snprintf(c->now, sizeof(c->now), "%s", b ? b->value : "");
		if (++r->n_cpu_changes == ELEMENTSOF(r->cpu_changes))
			break;
	}
}

/* Each key's state, the values a resize would change, and the fragment's
 * line that reaches only new qdiscs: from the facts alone, once they are
 * all collected. */
void report_decide(struct report *r)
{
	r->initwnd_wanted = r->initwnd_fq && r->initwnd_want.n_ports > 0;
	r->cpus_compared = false;
	r->n_cpu_changes = 0;
	if (r->fragment_cpus > 0 && r->fragment_cpus != r->info.cpus && r->have_choice)
		compare_cpu_profiles(r);
	r->qdisc = NULL;
	for (size_t i = 0; i < r->n_keys; i++) {
		struct key_facts *k = &r->keys[i];
		const struct tunable *t = tunable_find(k->key);

		k->state = key_state(r, k);
		/* fq is the qdisc an interface may still lack; fq_codel,
		 * where BBR is not used, is Debian's default already. */
		if (k->wanted && t && t->new_qdiscs_only &&
		    strcmp(k->wanted->value, t->value) == 0)
			r->qdisc = k->wanted;
	}
}

static bool link_has_qdisc(const struct qdisc_link *link, const char *kind)
{
	if (strcmp(link->root, kind) == 0)
		return true;
	for (size_t i = 0; i < link->n_leaves; i++)
		if (strcmp(link->leaves[i], kind) == 0)
			return true;
	return false;
}

/* The fragment sets the default qdisc, and an interface that queues still
 * has another: it keeps it until it is created again. */
bool report_qdisc_pending(const struct report *r)
{
	if (!r->qdisc || r->qdisc_error != 0)
		return false;
	for (size_t i = 0; i < r->n_links; i++)
		if (!link_has_qdisc(&r->links[i], r->qdisc->value) &&
		    strcmp(r->links[i].ifname, "lo") != 0 &&
		    strcmp(r->links[i].root, "noqueue") != 0)
			return true;
	return false;
}

/* The program is wanted, and attached with the ports and windows wanted, in
 * any order. */
static bool initwnd_as_wanted(const struct report *r)
{
	const struct sockops_windows *want = &r->initwnd_want,
				     *have = &r->initwnd.windows;

	if (!r->initwnd_wanted || r->initwnd_error < 0 || !r->initwnd.attached ||
	    have->cwnd != want->cwnd || have->rwnd != want->rwnd ||
	    have->n_ports != want->n_ports)
		return false;
	for (size_t i = 0; i < want->n_ports; i++) {
		bool found = false;

		for (size_t j = 0; j < have->n_ports && !found; j++)
			found = have->ports[j] == want->ports[i];
		if (!found)
			return false;
	}
	return true;
}

/* The pins could not be read for want of privilege (a sandboxed service
 * without CAP_BPF, a user other than root): the program's state is not
 * known, which is neither an alarm nor a refusal. */
static bool initwnd_unreadable(const struct report *r)
{
	return r->initwnd_error == -EPERM || r->initwnd_error == -EACCES;
}

/* Wanted and not attached, where apply recorded why it could not be. */
static bool initwnd_refused(const struct report *r)
{
	return r->initwnd_wanted && r->initwnd_error != -EOPNOTSUPP &&
	       !initwnd_unreadable(r) && !initwnd_as_wanted(r) &&
	       r->initwnd_why[0] != '\0';
}

/* Wanted and not as wanted with no reason recorded, or attached though
 * not wanted. */
static bool initwnd_drift(const struct report *r)
{
	if (r->initwnd_error == -EOPNOTSUPP || initwnd_unreadable(r) ||
	    report_left_alone(r))
		return false;
	if (!r->initwnd_wanted)
		return r->initwnd_error == 0 && r->initwnd.attached;
	return !initwnd_as_wanted(r) && r->initwnd_why[0] == '\0';
}

static bool any_key(const struct report *r, enum key_state a, enum key_state b)
{
	for (size_t i = 0; i < r->n_keys; i++)
		if (r->keys[i].state == a || r->keys[i].state == b)
			return true;
	return false;
}

/* A resize that changes a value; without the congestion choice the two
 * profiles cannot be compared, and a new rendering may change any. */
static bool cpus_changed(const struct report *r)
{
	if (r->fragment_cpus == 0 || r->fragment_cpus == r->info.cpus)
		return false;
	return !r->cpus_compared || r->n_cpu_changes > 0;
}

bool report_condition(const struct report *r, enum condition condition)
{
	switch (condition) {
	case CONDITION_NOT_TUNED:
		return !r->fragment_present;
	case CONDITION_MALFORMED:
		return r->malformed;
	case CONDITION_DRIFT:
		return any_key(r, KEY_DRIFT, KEY_DRIFT);
	case CONDITION_OUTDATED:
		return any_key(r, KEY_OUTDATED, KEY_MISSING);
	case CONDITION_CPUS_CHANGED:
		return r->fragment_present && cpus_changed(r);
	case CONDITION_MODULE_UNLOADABLE:
		for (size_t i = 0; i < r->n_modules; i++)
			if (module_unloadable(r, &r->modules[i]))
				return true;
		return false;
	case CONDITION_BOOT_UNKNOWN:
		return r->boot_unknown;
	case CONDITION_INITWND_DRIFT:
		return r->fragment_present && initwnd_drift(r);
	case CONDITION_INITWND_REFUSED:
		return r->fragment_present && initwnd_refused(r);
	case CONDITION_OVERRIDDEN:
		return any_key(r, KEY_OVERRIDDEN, KEY_OVERRIDDEN);
	case CONDITION_EDITED:
		return any_key(r, KEY_EDITED, KEY_EDITED);
	case CONDITION_LEFT_ALONE:
		return report_left_alone(r);
	case CONDITION_CONGESTION_CHOSEN:
		return r->fragment_present && r->have_choice &&
		       r->choice != CONGESTION_AUTO;
	case CONDITION_MAX:
		break;
	}
	return false;
}

enum verdict report_verdict(const struct report *r)
{
	enum verdict verdict = VERDICT_IN_EFFECT;

	for (enum condition c = 0; c < CONDITION_MAX; c++) {
		if (!report_condition(r, c))
			continue;
		if (condition_alarm(c))
			return VERDICT_ALARM;
		verdict = VERDICT_CHOSEN;
	}
	return verdict;
}

/* 3 for "not what this machine should have"; what was chosen is 0. */
int report_exit_status(enum verdict verdict)
{
	return verdict == VERDICT_ALARM ? EXIT_DRIFT : EXIT_SUCCESS;
}

static const char *live_or_null(const struct key_facts *k)
{
	return k->live_error == 0 ? k->live : NULL;
}

static const char *container_or_null(const struct sysinfo *info)
{
	return info->container[0] ? info->container : NULL;
}

/* --- The table ------------------------------------------------------------ */

/* A state nobody chose in capitals, a chosen one in parentheses. */
static void print_key_note(const struct key_facts *k, FILE *f)
{
	char value[TEXT_ESCAPED_SIZE(VALUE_MAX)];

	switch (k->state) {
	case KEY_OVERRIDDEN:
		fprintf(f, _("  (overridden)"));
		return;
	case KEY_EDITED:
		if (!k->wanted)
			fprintf(f, _("  (edited: removed from the fragment)"));
		else
			fprintf(f, _("  (edited; the profile: %s)"),
				k->profile ?
					text_escape(k->profile, value, sizeof(value)) :
					_("not set"));
		return;
	case KEY_LEFT_ALONE:
		fprintf(f, _("  (left alone)"));
		return;
	case KEY_NOT_IN_NAMESPACE:
		fprintf(f, _("  (not in this namespace)"));
		return;
	case KEY_READ_ONLY:
		fprintf(f, _("  (read-only in this namespace)"));
		return;
	case KEY_OUTDATED:
		fprintf(f, _("  OUTDATED"));
		return;
	case KEY_MISSING:
		fprintf(f, _("  MISSING"));
		return;
	case KEY_DRIFT:
		fprintf(f, _("  DRIFT"));
		return;
	case KEY_IN_EFFECT:
	case KEY_STATE_MAX:
		break;
	}
	/* Another file with our value keeps it in effect: a note, not drift. */
	if (k->wanted && k->boot && strcmp(k->boot->file, k->wanted->file) != 0)
		fprintf(f, _("  (the same value as ours)"));
}

/* What the kernel was not asked, or would not say (qdiscs, routes): why, in
 * JSON, which programs read: in the C locale's words, whatever language the
 * messages are in. strerror_l()'s text lives as long as its locale, so the
 * one C locale is made once and kept for the process. */
static const char *kernel_error_text(int error)
{
	static locale_t c;

	if (error == -EOPNOTSUPP)
		return "not queried under --root";
	if (!c)
		c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	return c ? strerror_l(-error, c) : strerror(-error);
}

static bool print_text_kernel_error(const char *what, int error, FILE *f)
{
	if (error >= 0)
		return false;
	if (error == -EOPNOTSUPP)
		fprintf(f, _("%s: not queried under --root\n"), what);
	else
		fprintf(f, _("%s: cannot list them: %s\n"), what, strerror(-error));
	return true;
}

static void print_text_qdiscs(const struct report *r, FILE *f)
{
	if (print_text_kernel_error("qdiscs", r->qdisc_error, f))
		return;
	for (size_t i = 0; i < r->n_links; i++) {
		const struct qdisc_link *link = &r->links[i];

		char name[TEXT_ESCAPED_SIZE(sizeof(link->ifname))];
		char kind[TEXT_ESCAPED_SIZE(sizeof(link->root))];

		fprintf(f, "qdisc %s: %s", text_escape(link->ifname, name, sizeof(name)),
			link->root[0] ? text_escape(link->root, kind, sizeof(kind)) : "?");
		for (size_t j = 0; j < link->n_leaves; j++)
			fprintf(f, "%s%s", j == 0 ? _(", leaves ") : " ",
				text_escape(link->leaves[j], kind, sizeof(kind)));
		fprintf(f, "\n");
	}
	if (report_qdisc_pending(r))
		fprintf(f,
			_("note: %s %s reaches an interface when it is created; the ones\n"
			  "      above keep their qdisc until the next boot (BBR paces itself meanwhile).\n"),
			strrchr(r->qdisc->key, '.') + 1, r->qdisc->value);
}

/* One line: the program as it is, and what the package wants of it. */
static void print_text_initwnd(const struct report *r, FILE *f)
{
	const struct sockops_windows *want = &r->initwnd_want;
	char why[TEXT_ESCAPED_SIZE(sizeof(r->initwnd_why))];
	char ports[SOCKOPS_PORTS_MAX * 12];

	if (!r->fragment_present)
		return;
	sockops_ports_text(want, ports, sizeof(ports));
	/* TRANSLATORS: the start of status's line on the initial-window program. */
	fprintf(f, _("initial windows: "));
	if (r->initwnd_error == -EOPNOTSUPP) {
		fprintf(f, _("not queried under --root\n"));
	} else if (initwnd_unreadable(r)) {
		fprintf(f,
			_("the program's pins cannot be read: %s (root with CAP_BPF reads them)\n"),
			strerror(-r->initwnd_error));
	} else if (initwnd_as_wanted(r)) {
		fprintf(f,
			_("%u and %u for new connections to ports %s, attached to %s (program %u), "
			  "given %" PRIu64 " times\n"),
			want->cwnd, want->rwnd, ports, SOCKOPS_CGROUP, r->initwnd.prog_id,
			r->initwnd.given);
	} else if (r->initwnd_wanted && r->initwnd_why[0]) {
		/* The phrase was recorded in English: its translation, if any. */
		fprintf(f, _("left to the kernel: %s\n"),
			text_escape(_(r->initwnd_why), why, sizeof(why)));
	} else if (r->initwnd_wanted) {
		if (r->initwnd_error == 0 && r->initwnd.attached)
			fprintf(f,
				_("WANTED %u and %u for new connections to ports %s: attached with "
				  "others; wp-panel-nettune initwnd sets them\n"),
				want->cwnd, want->rwnd, ports);
		else
			fprintf(f,
				_("WANTED %u and %u for new connections to ports %s: not attached; "
				  "wp-panel-nettune initwnd attaches it\n"),
				want->cwnd, want->rwnd, ports);
	} else if (r->initwnd_error == 0 && r->initwnd.attached) {
		fprintf(f,
			_("ATTACHED though not wanted; wp-panel-nettune initwnd detaches it\n"));
	} else if (!r->initwnd_fq) {
		fprintf(f, _("left to the kernel: the fragment does not set fq\n"));
	} else {
		fprintf(f, _("left to the kernel: %s names no port\n"),
			INITWND_PORTS_FILE);
	}
}

/* The CPU count changed since the fragment was made. A warning names what
 * a new rendering would change; where it changes nothing, a note says so.
 * Without the congestion choice the two cannot be compared. */
static void print_text_cpus(const struct report *r, FILE *f)
{
	if (r->cpus_compared && r->n_cpu_changes == 0) {
		fprintf(f,
			ngettext("note: the fragment was made for %u CPU, this machine has %u now;\n"
				 "      the profile is the same for both.\n",
				 "note: the fragment was made for %u CPUs, this machine has %u now;\n"
				 "      the profile is the same for both.\n",
				 r->fragment_cpus),
			r->fragment_cpus, r->info.cpus);
		return;
	}
	if (!r->cpus_compared) {
		fprintf(f,
			ngettext(
				"warning: the fragment was made for %u CPU, this machine has %u now:\n"
				"         run 'dpkg-reconfigure wp-panel-nettune' to choose again.\n",
				"warning: the fragment was made for %u CPUs, this machine has %u now:\n"
				"         run 'dpkg-reconfigure wp-panel-nettune' to choose again.\n",
				r->fragment_cpus),
			r->fragment_cpus, r->info.cpus);
		return;
	}
	fprintf(f,
		ngettext("warning: the fragment was made for %u CPU, this machine has %u now,\n"
			 "         and a new fragment would change:\n",
			 "warning: the fragment was made for %u CPUs, this machine has %u now,\n"
			 "         and a new fragment would change:\n",
			 r->fragment_cpus),
		r->fragment_cpus, r->info.cpus);
	for (size_t i = 0; i < r->n_cpu_changes; i++) {
		const struct cpu_change *c = &r->cpu_changes[i];

		fprintf(f, "           %s: %s -> %s\n", c->key,
			c->then[0] ? c->then : _("(not set: the kernel's default)"),
			c->now[0] ? c->now : _("(not set: the kernel's default)"));
	}
	fprintf(f, _("         run 'dpkg-reconfigure wp-panel-nettune' to take it.\n"));
}

/* The fragment is older than the profile: what a new one would change, and
 * how to take it. dpkg-reconfigure replaces a fragment that is still the
 * one the package installed; edits are the administrator's to merge. */
static void print_text_updates(const struct report *r, FILE *f)
{
	char value[TEXT_ESCAPED_SIZE(VALUE_MAX)];

	fprintf(f,
		_("warning: an update of the fragment is not taken; it would change:\n"));
	for (size_t i = 0; i < r->n_keys; i++) {
		const struct key_facts *k = &r->keys[i];

		if (k->state != KEY_OUTDATED && k->state != KEY_MISSING)
			continue;
		fprintf(f, "           %s: %s -> ", k->key,
			k->wanted ? text_escape(k->wanted->value, value, sizeof(value)) :
				    _("(not set)"));
		fprintf(f, "%s\n",
			k->profile ? text_escape(k->profile, value, sizeof(value)) :
				     _("(not set)"));
	}
	for (size_t i = 0; i < REPORT_UCF_SUFFIXES && r->ucf_left[i]; i++)
		fprintf(f, _("         ucf put the new version beside it: %s%s%s\n"),
			r->root, FRAGMENT_SYSCTL, r->ucf_left[i]);
	if (r->base_present && !r->edited)
		fprintf(f,
			_("         It is the fragment the package installed: run\n"
			  "         'dpkg-reconfigure wp-panel-nettune' to take the new one.\n"));
	else
		fprintf(f,
			_("         It %s: take these lines\n"
			  "         by hand ('wp-panel-nettune render%s%s sysctl' prints the new\n"
			  "         fragment), then run 'dpkg-reconfigure wp-panel-nettune' to apply it.\n"),
			r->base_present ?
				_("has edits, which stay as they are") :
				_("may have edits (no record of the package's copy)"),
			r->choice == CONGESTION_AUTO ? "" : " --congestion ",
			r->choice == CONGESTION_AUTO ? "" :
						       congestion_to_string(r->choice));
}

/* A line of the table, its columns as wide as a key and values are, counted
 * in the terminal's columns: a Chinese header takes two a character. */
static void print_row(FILE *f, const char *key, const char *wanted, const char *live,
		      const char *boot)
{
	text_print_padded(f, key, 34);
	fputc(' ', f);
	text_print_padded(f, wanted, 21);
	fputc(' ', f);
	text_print_padded(f, live, 21);
	fprintf(f, " %s", boot);
}

/* The last line: the verdict, and the conditions behind it. */
static void print_text_verdict(const struct report *r, enum verdict verdict, FILE *f)
{
	const char *sep = "";

	if (verdict == VERDICT_IN_EFFECT) {
		fprintf(f, "\n%s", _("All in effect.\n"));
		return;
	}
	fprintf(f, "\n%s",
		verdict == VERDICT_ALARM ? _("Not as it should be (exit 3): ") :
					   _("As chosen (exit 0): "));
	for (enum condition c = 0; c < CONDITION_MAX; c++)
		if (report_condition(r, c) &&
		    (verdict == VERDICT_CHOSEN || condition_alarm(c))) {
			fprintf(f, "%s%s", sep, condition_to_string(c));
			sep = ", ";
		}
	/* TRANSLATORS: the end of a sentence. */
	fprintf(f, "%s", _(".\n"));
}

void report_print_text(const struct report *r, FILE *f)
{
	const struct sysinfo *info = &r->info;
	enum verdict verdict = report_verdict(r);

	if (!r->fragment_present) {
		fprintf(f, _("%s%s is missing: the machine is not tuned.\n"), r->root,
			FRAGMENT_SYSCTL);
		print_text_verdict(r, verdict, f);
		return;
	}
	if (report_left_alone(r)) {
		char container[TEXT_ESCAPED_SIZE(sizeof(info->container))];

		fprintf(f,
			_("environment: %s%s%s%s: the package leaves this kernel alone\n"),
			environment_to_string(info->environment),
			info->container[0] ? " (" : "",
			text_escape(info->container, container, sizeof(container)),
			info->container[0] ? ")" : "");
	}
	if (report_condition(r, CONDITION_CONGESTION_CHOSEN))
		fprintf(f, _("congestion: %s, chosen with debconf\n"),
			congestion_to_string(r->choice));
	/* TRANSLATORS: the headers of status's table, over a key, the value
	 * the fragment sets, the kernel's and the file that sets it at boot. */
	print_row(f, _("KEY"), _("WANTED"), _("LIVE"), _("SET AT BOOT BY"));
	fprintf(f, "\n");
	for (size_t i = 0; i < r->n_keys; i++) {
		const struct key_facts *k = &r->keys[i];
		const char *live = k->live_error == 0	    ? k->live :
				   k->live_error == -ENOENT ? _("(absent)") :
							      _("(unreadable)");

		char value[TEXT_ESCAPED_SIZE(VALUE_MAX)],
			live_esc[TEXT_ESCAPED_SIZE(VALUE_MAX)];
		char file[TEXT_ESCAPED_SIZE(sizeof(k->boot->file))];

		print_row(f, k->key,
			  k->wanted ?
				  text_escape(k->wanted->value, value, sizeof(value)) :
				  _("(missing)"),
			  text_escape(live, live_esc, sizeof(live_esc)),
			  k->boot ? text_escape(k->boot->file, file, sizeof(file)) :
				    _("(none)"));
		print_key_note(k, f);
		fprintf(f, "\n");
	}

	fprintf(f, "\n");
	for (size_t i = 0; i < r->n_modules; i++) {
		const struct module_facts *m = &r->modules[i];

		fprintf(f, "%s: %s\n", m->name, modstate_to_string(m->state));
		if (module_unloadable(r, m))
			fprintf(f, _("%s is listed in %s but cannot be loaded\n"),
				m->name, FRAGMENT_MODULES);
	}
	print_text_qdiscs(r, f);
	print_text_initwnd(r, f);

	if (r->fragment_cpus > 0 && r->fragment_cpus != info->cpus)
		print_text_cpus(r, f);
	if (report_condition(r, CONDITION_OUTDATED))
		print_text_updates(r, f);
	else
		for (size_t i = 0; i < REPORT_UCF_SUFFIXES && r->ucf_left[i]; i++)
			fprintf(f,
				_("note: %s%s%s, left by ucf, differs from the fragment only in\n"
				  "      what was edited: nothing to take from it.\n"),
				r->root, FRAGMENT_SYSCTL, r->ucf_left[i]);
	if (r->malformed)
		fprintf(f,
			_("warning: the fragment has lines that are not assignments.\n"));
	print_text_verdict(r, verdict, f);
}

/* --- JSON ------------------------------------------------------------------- */

/* The members detect and status share. */
static void json_common(struct json *j, const char *command, const char *root,
			const struct sysinfo *info)
{
	json_uint(j, "schema", REPORT_SCHEMA);
	json_string(j, "command", command);
	json_string(j, "version", VERSION);
	json_string(j, "root", root[0] ? root : "/");
	json_string(j, "environment", environment_to_string(info->environment));
	json_string(j, "container", container_or_null(info));
	json_string(j, "kernel", info->release);
	json_uint(j, "cpus", info->cpus);
}

void report_print_detect_json(const char *root, const struct sysinfo *info, FILE *f)
{
	struct json j;

	json_begin(&j, f);
	json_object_open(&j, NULL);
	json_common(&j, "detect", root, info);
	json_uint(&j, "memory_mib", nominal_memory_mib(info->mem_kib));
	json_uint(&j, "mem_total_kib", info->mem_kib);
	json_object_open(&j, "modules");
	for (size_t i = 0; i < info->n_modules; i++)
		json_string(&j, info->modules[i].name,
			    modstate_to_string(info->modules[i].state));
	json_object_close(&j);
	json_bool(&j, "proc_sys_net_writable", info->net_writable);
	json_object_close(&j);
	json_end(&j);
}

static void json_key(struct json *j, const struct key_facts *k)
{
	json_object_open(j, NULL);
	json_string(j, "key", k->key);
	json_string(j, "wanted", k->wanted ? k->wanted->value : NULL);
	json_string(j, "profile", k->profile);
	json_string(j, "live", live_or_null(k));
	json_string(j, "live_error",
		    k->live_error == 0	     ? NULL :
		    k->live_error == -ENOENT ? "absent" :
					       "unreadable");
	json_bool(j, "optional", k->wanted && k->wanted->ignore_failure);
	json_string(j, "boot_file", k->boot ? k->boot->file : NULL);
	json_string(j, "boot_value", k->boot ? k->boot->value : NULL);
	json_string(j, "state", key_state_to_string(k->state));
	json_bool(j, "alarm", key_state_alarm(k->state));
	json_object_close(j);
}

static void json_qdiscs(struct json *j, const struct report *r)
{
	if (r->qdisc_error < 0) {
		json_null(j, "qdiscs");
		json_string(j, "qdiscs_error", kernel_error_text(r->qdisc_error));
		return;
	}
	json_array_open(j, "qdiscs");
	for (size_t i = 0; i < r->n_links; i++) {
		const struct qdisc_link *link = &r->links[i];

		json_object_open(j, NULL);
		json_string(j, "interface", link->ifname);
		json_string(j, "root", link->root[0] ? link->root : NULL);
		json_array_open(j, "leaves");
		for (size_t l = 0; l < link->n_leaves; l++)
			json_string(j, NULL, link->leaves[l]);
		json_array_close(j);
		json_object_close(j);
	}
	json_array_close(j);
	json_null(j, "qdiscs_error");
}

static void json_initwnd(struct json *j, const struct report *r)
{
	const struct sockops_windows *want = &r->initwnd_want;
	bool read = r->initwnd_error == 0;

	json_object_open(j, "initial_windows");
	json_bool(j, "wanted", r->initwnd_wanted);
	json_uint(j, "wanted_congestion", want->cwnd);
	json_uint(j, "wanted_receive", want->rwnd);
	json_array_open(j, "wanted_ports");
	for (size_t i = 0; i < want->n_ports; i++)
		json_uint(j, NULL, want->ports[i]);
	json_array_close(j);
	if (r->initwnd_error == -EOPNOTSUPP ||
	    (r->initwnd_error < 0 && r->initwnd_error != -ENOENT)) {
		json_null(j, "attached");
		json_string(j, "error", kernel_error_text(r->initwnd_error));
	} else {
		json_bool(j, "attached", read && r->initwnd.attached);
		json_null(j, "error");
	}
	if (read) {
		json_uint(j, "program_id", r->initwnd.prog_id);
		json_uint(j, "congestion", r->initwnd.windows.cwnd);
		json_uint(j, "receive", r->initwnd.windows.rwnd);
		json_array_open(j, "ports");
		for (size_t i = 0; i < r->initwnd.windows.n_ports; i++)
			json_uint(j, NULL, r->initwnd.windows.ports[i]);
		json_array_close(j);
		json_uint(j, "given", r->initwnd.given);
	} else {
		json_null(j, "program_id");
		json_null(j, "congestion");
		json_null(j, "receive");
		json_null(j, "ports");
		json_null(j, "given");
	}
	json_string(j, "left_alone", r->initwnd_why[0] ? r->initwnd_why : NULL);
	json_object_close(j);
}

void report_print_json(const struct report *r, FILE *f)
{
	enum verdict verdict = report_verdict(r);
	struct json j;

	json_begin(&j, f);
	json_object_open(&j, NULL);
	json_common(&j, "status", r->root, &r->info);

	json_object_open(&j, "fragment");
	json_string(&j, "path", FRAGMENT_SYSCTL);
	json_bool(&j, "present", r->fragment_present);
	if (r->fragment_cpus > 0)
		json_uint(&j, "cpus", r->fragment_cpus);
	else
		json_null(&j, "cpus");
	json_bool(&j, "cpus_changed",
		  r->fragment_cpus > 0 && r->fragment_cpus != r->info.cpus);
	if (r->cpus_compared) {
		json_array_open(&j, "cpus_change");
		for (size_t i = 0; i < r->n_cpu_changes; i++) {
			const struct cpu_change *c = &r->cpu_changes[i];

			json_object_open(&j, NULL);
			json_string(&j, "key", c->key);
			json_string(&j, "then", c->then[0] ? c->then : NULL);
			json_string(&j, "now", c->now[0] ? c->now : NULL);
			json_object_close(&j);
		}
		json_array_close(&j);
	} else {
		json_null(&j, "cpus_change");
	}
	json_bool(&j, "malformed", r->malformed);
	json_string(&j, "congestion",
		    r->have_choice ? congestion_to_string(r->choice) : NULL);
	json_string(&j, "base", r->base_present ? STATE_BASE : NULL);
	json_bool(&j, "edited", r->base_present && r->edited);
	json_array_open(&j, "ucf_left");
	for (size_t i = 0; i < REPORT_UCF_SUFFIXES && r->ucf_left[i]; i++) {
		char path[sizeof(FRAGMENT_SYSCTL) + 16];

		snprintf(path, sizeof(path), "%s%s", FRAGMENT_SYSCTL, r->ucf_left[i]);
		json_string(&j, NULL, path);
	}
	json_array_close(&j);
	json_object_close(&j);

	json_array_open(&j, "keys");
	for (size_t i = 0; i < r->n_keys; i++)
		json_key(&j, &r->keys[i]);
	json_array_close(&j);

	json_array_open(&j, "modules");
	for (size_t i = 0; i < r->n_modules; i++) {
		json_object_open(&j, NULL);
		json_string(&j, "module", r->modules[i].name);
		json_string(&j, "state", modstate_to_string(r->modules[i].state));
		json_bool(&j, "listed", r->modules[i].listed);
		json_bool(&j, "unloadable", module_unloadable(r, &r->modules[i]));
		json_object_close(&j);
	}
	json_array_close(&j);

	json_qdiscs(&j, r);
	json_bool(&j, "qdisc_pending", report_qdisc_pending(r));
	json_initwnd(&j, r);
	json_bool(&j, "boot_unknown", r->boot_unknown);
	json_array_open(&j, "conditions");
	for (enum condition c = 0; c < CONDITION_MAX; c++)
		if (report_condition(r, c))
			json_string(&j, NULL, condition_to_string(c));
	json_array_close(&j);
	json_string(&j, "verdict", verdicts[verdict]);
	json_uint(&j, "exit_status", (uint64_t)report_exit_status(verdict));
	json_object_close(&j);
	json_end(&j);
}

/* --- Prometheus ------------------------------------------------------------- */

/* A family with one sample and no labels. */
static void expo_single(FILE *f, const char *name, const char *help, uint64_t value)
{
	expo_family(f, name, help);
	expo_sample(f, name, NULL, 0, value);
}

/* Every condition, 1 where it holds: one series each, whatever happens, so
 * that a rule can name them; "chosen" tells which never raise the alarm. */
static void expo_conditions(const struct report *r, FILE *f)
{
	expo_family(f, "condition",
		    "1 when the condition holds; chosen=\"no\" ones raise the alarm.");
	for (enum condition c = 0; c < CONDITION_MAX; c++) {
		const struct expo_label labels[] = {
			{ "condition", condition_to_string(c) },
			{ "chosen", condition_alarm(c) ? "no" : "yes" },
		};

		expo_sample(f, "condition", labels, ELEMENTSOF(labels),
			    report_condition(r, c));
	}
}

/* A value the kernel prints as one unsigned number. */
static bool numeric(const char *s, uint64_t *ret)
{
	return s[0] >= '0' && s[0] <= '9' && parse_u64(s, ret) == 0;
}

/* Each key's state as a state set, one series per state, and the live
 * value of each key that is a number. A family without a sample would be no
 * more than its HELP and TYPE lines: these appear only with keys. */
static void expo_keys(const struct report *r, FILE *f)
{
	bool any_number = false;
	uint64_t v;

	if (r->n_keys == 0)
		return;
	expo_family(f, "key_state", "1 for the state the key is in, 0 for the others.");
	for (size_t i = 0; i < r->n_keys; i++)
		for (enum key_state s = 0; s < KEY_STATE_MAX; s++) {
			const struct expo_label labels[] = {
				{ "key", r->keys[i].key },
				{ "state", key_state_to_string(s) },
			};

			expo_sample(f, "key_state", labels, ELEMENTSOF(labels),
				    r->keys[i].state == s);
		}
	for (size_t i = 0; i < r->n_keys; i++)
		any_number |= live_or_null(&r->keys[i]) && numeric(r->keys[i].live, &v);
	if (!any_number)
		return;
	expo_family(f, "key_value", "The live value of each key that is one number.");
	for (size_t i = 0; i < r->n_keys; i++) {
		const struct expo_label key = { "key", r->keys[i].key };

		if (live_or_null(&r->keys[i]) && numeric(r->keys[i].live, &v))
			expo_sample(f, "key_value", &key, 1, v);
	}
}

static const enum modstate modstates[] = {
	MODSTATE_MISSING, MODSTATE_MODULE,	MODSTATE_LOADED,
	MODSTATE_BUILTIN, MODSTATE_BLACKLISTED,
};

static void expo_modules(const struct report *r, FILE *f)
{
	if (r->n_modules == 0)
		return;
	expo_family(
		f, "module_state",
		"1 for the state of each module the profile loads at boot, 0 for the others.");
	for (size_t i = 0; i < r->n_modules; i++)
		for (size_t s = 0; s < ELEMENTSOF(modstates); s++) {
			const struct expo_label labels[] = {
				{ "module", r->modules[i].name },
				{ "state", modstate_to_string(modstates[s]) },
			};

			expo_sample(f, "module_state", labels, ELEMENTSOF(labels),
				    r->modules[i].state == modstates[s]);
		}
}

static void expo_qdiscs(const struct report *r, FILE *f)
{
	if (r->qdisc_error == 0 && r->n_links > 0)
		expo_family(f, "qdisc_info",
			    "The root qdisc of each interface, and the kinds below it.");
	for (size_t i = 0; r->qdisc_error == 0 && i < r->n_links; i++) {
		const struct qdisc_link *link = &r->links[i];
		char leaves[QDISC_LEAVES_MAX * QDISC_KIND_MAX] = "";
		const struct expo_label labels[] = {
			{ "interface", link->ifname },
			{ "root", link->root },
			{ "leaves", leaves },
		};

		for (size_t l = 0; l < link->n_leaves; l++) {
			if (l > 0)
				strcat(leaves, " ");
			strcat(leaves, link->leaves[l]);
		}
		expo_sample(f, "qdisc_info", labels, ELEMENTSOF(labels), 1);
	}
	expo_single(
		f, "qdisc_pending",
		"1 when an interface keeps another qdisc than default_qdisc fq until it is created again.",
		report_qdisc_pending(r));
}

static void expo_initwnd(const struct report *r, FILE *f)
{
	bool read = r->initwnd_error == 0;

	if (r->initwnd_error == -EOPNOTSUPP || initwnd_unreadable(r))
		return;
	expo_single(f, "initial_window_wanted",
		    "1 where the fragment sets fq and the setting names a port: the "
		    "sock_ops program is to give the initial windows.",
		    r->initwnd_wanted);
	expo_single(f, "initial_window_attached",
		    "1 when the initial-window program is attached to the root cgroup.",
		    read && r->initwnd.attached);
	if (!read)
		return;
	expo_family(f, "initial_window_segments",
		    "The initial windows the program gives, in segments.");
	expo_sample(f, "initial_window_segments",
		    (const struct expo_label[]){ { "window", "congestion" } }, 1,
		    r->initwnd.windows.cwnd);
	expo_sample(f, "initial_window_segments",
		    (const struct expo_label[]){ { "window", "receive" } }, 1,
		    r->initwnd.windows.rwnd);
	expo_family(f, "initial_window_port_info",
		    "Each local port whose passive connections get the initial windows.");
	for (size_t i = 0; i < r->initwnd.windows.n_ports; i++) {
		char port[8];

		snprintf(port, sizeof(port), "%u", r->initwnd.windows.ports[i]);
		expo_sample(f, "initial_window_port_info",
			    (const struct expo_label[]){ { "port", port } }, 1, 1);
	}
	expo_family_typed(
		f, "initial_window_given_total",
		"Connections the program gave the initial congestion window, since "
		"it was loaded.",
		"counter");
	expo_sample(f, "initial_window_given_total", NULL, 0, r->initwnd.given);
}

void report_print_prometheus(const struct report *r, FILE *f)
{
	const struct expo_label info[] = {
		{ "version", VERSION },
		{ "kernel", r->info.release },
		{ "environment", environment_to_string(r->info.environment) },
		{ "container", r->info.container },
	};

	expo_family(f, "info", "wp-panel-nettune's version, the kernel, the environment.");
	expo_sample(f, "info", info, ELEMENTSOF(info), 1);
	expo_single(f, "alarm",
		    "1 when the machine is in a state nobody chose: status exits 3.",
		    report_verdict(r) == VERDICT_ALARM);
	expo_conditions(r, f);
	expo_single(f, "cpus", "Usable CPUs now.", r->info.cpus);
	if (r->fragment_cpus > 0)
		expo_single(f, "fragment_cpus", "The CPUs the fragment was rendered for.",
			    r->fragment_cpus);
	expo_keys(r, f);
	expo_modules(r, f);
	expo_qdiscs(r, f);
	expo_initwnd(r, f);
}
