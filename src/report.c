/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What status found, printed three ways: the table for people, JSON for
 * the panel and scripts, Prometheus' text format for the node exporter.
 * The verdict and each key's standing are decided here once, from the
 * facts alone; the printers only format them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "expo.h"
#include "json.h"
#include "nettune.h"
#include "profile.h"
#include "render.h"
#include "report.h"
#include "utf8.h"

#ifndef VERSION
#error "VERSION is the one of debian/changelog, given by the Makefile"
#endif

static const char *const key_states[] = {
	[KEY_IN_EFFECT] = "in-effect",
	[KEY_OVERRIDDEN] = "overridden",
	[KEY_DRIFT] = "drift",
	[KEY_NOT_IN_NAMESPACE] = "not-in-namespace",
	[KEY_READ_ONLY] = "read-only-in-namespace",
};

static const char *const verdicts[] = {
	[VERDICT_IN_EFFECT] = "in-effect",
	[VERDICT_DRIFT] = "drift",
	[VERDICT_NOT_TUNED] = "not-tuned",
	[VERDICT_BAD_FRAGMENT] = "bad-fragment",
};

const char *key_state_to_string(enum key_state state)
{
	return key_states[state];
}

/* The kernel holds the value wanted (whatever happens at the next boot). */
bool key_in_effect(const struct key_facts *k)
{
	return k->live_error == 0 && strcmp(k->live, k->wanted->value) == 0;
}

/* The key counts against the verdict. */
bool key_drift(const struct key_facts *k)
{
	return k->state == KEY_OVERRIDDEN || k->state == KEY_DRIFT;
}

/* Listed in modules-load.d, and systemd-modules-load cannot load it. */
bool module_unloadable(const struct module_facts *m)
{
	return m->listed && !modstate_usable(m->state);
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

enum verdict report_verdict(const struct report *r)
{
	bool drift = r->boot_unknown;

	if (r->malformed)
		return VERDICT_BAD_FRAGMENT;
	if (!r->fragment_present)
		return VERDICT_NOT_TUNED;
	for (size_t i = 0; i < r->n_keys; i++)
		drift |= key_drift(&r->keys[i]);
	for (size_t i = 0; i < r->n_modules; i++)
		drift |= module_unloadable(&r->modules[i]);
	return drift ? VERDICT_DRIFT : VERDICT_IN_EFFECT;
}

int report_exit_status(enum verdict verdict)
{
	switch (verdict) {
	case VERDICT_IN_EFFECT:
		return EXIT_SUCCESS;
	case VERDICT_DRIFT:
	case VERDICT_NOT_TUNED:
		return EXIT_DRIFT;
	case VERDICT_BAD_FRAGMENT:
		break;
	}
	return EXIT_FAILURE;
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

static const char *key_note(const struct key_facts *k)
{
	switch (k->state) {
	case KEY_OVERRIDDEN:
		return "  OVERRIDDEN";
	case KEY_DRIFT:
		return "  DRIFT";
	case KEY_NOT_IN_NAMESPACE:
		return "  (not in this namespace)";
	case KEY_READ_ONLY:
		return "  (read-only in this namespace)";
	case KEY_IN_EFFECT:
		break;
	}
	/* Another file with our value keeps it in effect: a note, not drift. */
	return k->boot && strcmp(k->boot->file, k->wanted->file) != 0 ?
		       "  (the same value as ours)" :
		       "";
}

static void print_text_qdiscs(const struct report *r, FILE *f)
{
	if (r->qdisc_error == -EOPNOTSUPP) {
		fprintf(f, "qdiscs: not queried under --root\n");
		return;
	}
	if (r->qdisc_error < 0) {
		fprintf(f, "qdiscs: cannot list them: %s\n", strerror(-r->qdisc_error));
		return;
	}
	for (size_t i = 0; i < r->n_links; i++) {
		const struct qdisc_link *link = &r->links[i];

		char name[TEXT_ESCAPED_SIZE(sizeof(link->ifname))];
		char kind[TEXT_ESCAPED_SIZE(sizeof(link->root))];

		fprintf(f, "qdisc %s: %s", text_escape(link->ifname, name, sizeof(name)),
			link->root[0] ? text_escape(link->root, kind, sizeof(kind)) : "?");
		for (size_t j = 0; j < link->n_leaves; j++)
			fprintf(f, "%s%s", j == 0 ? ", leaves " : " ",
				text_escape(link->leaves[j], kind, sizeof(kind)));
		fprintf(f, "\n");
	}
	if (report_qdisc_pending(r))
		fprintf(f,
			"note: %s %s reaches an interface when it is created; the ones\n"
			"      above keep their qdisc until the next boot (BBR paces itself meanwhile).\n",
			strrchr(r->qdisc->key, '.') + 1, r->qdisc->value);
}

/* The CPU count changed since the fragment was made. A warning names what
 * a new rendering would change; where it changes nothing, a note says so.
 * Without the choice on the marker line the two cannot be compared. */
static void print_text_cpus(const struct report *r, FILE *f)
{
	const char *s = r->fragment_cpus == 1 ? "" : "s";

	if (r->cpus_compared && r->n_cpu_changes == 0) {
		fprintf(f,
			"note: the fragment was made for %u CPU%s, this machine has %u now;\n"
			"      the profile is the same for both.\n",
			r->fragment_cpus, s, r->info.cpus);
		return;
	}
	if (!r->cpus_compared) {
		fprintf(f,
			"warning: the fragment was made for %u CPU%s, this machine has %u now:\n"
			"         run 'dpkg-reconfigure wp-panel-nettune' to choose again.\n",
			r->fragment_cpus, s, r->info.cpus);
		return;
	}
	fprintf(f,
		"warning: the fragment was made for %u CPU%s, this machine has %u now,\n"
		"         and a new fragment would change:\n",
		r->fragment_cpus, s, r->info.cpus);
	for (size_t i = 0; i < r->n_cpu_changes; i++) {
		const struct cpu_change *c = &r->cpu_changes[i];

		fprintf(f, "           %s: %s -> %s\n", c->key,
			c->then[0] ? c->then : "(not set: the kernel's default)",
			c->now[0] ? c->now : "(not set: the kernel's default)");
	}
	fprintf(f, "         run 'dpkg-reconfigure wp-panel-nettune' to take it.\n");
}

void report_print_text(const struct report *r, FILE *f)
{
	const struct sysinfo *info = &r->info;
	enum verdict verdict = report_verdict(r);

	if (verdict == VERDICT_NOT_TUNED) {
		fprintf(f, "%s%s is missing: the machine is not tuned.\n", r->root,
			FRAGMENT_SYSCTL);
		return;
	}
	if (info->environment != ENVIRONMENT_HOST) {
		char container[TEXT_ESCAPED_SIZE(sizeof(info->container))];

		fprintf(f,
			"environment: %s%s%s%s: the package leaves this kernel alone\n",
			environment_to_string(info->environment),
			info->container[0] ? " (" : "",
			text_escape(info->container, container, sizeof(container)),
			info->container[0] ? ")" : "");
	}
	fprintf(f, "%-34s %-21s %-21s %s\n", "KEY", "WANTED", "LIVE", "SET AT BOOT BY");
	for (size_t i = 0; i < r->n_keys; i++) {
		const struct key_facts *k = &r->keys[i];
		const char *live = k->live_error == 0	    ? k->live :
				   k->live_error == -ENOENT ? "(absent)" :
							      "(unreadable)";

		char value[TEXT_ESCAPED_SIZE(VALUE_MAX)],
			live_esc[TEXT_ESCAPED_SIZE(VALUE_MAX)];
		char file[TEXT_ESCAPED_SIZE(sizeof(k->boot->file))];

		fprintf(f, "%-34s %-21s %-21s %s%s\n", k->wanted->key,
			text_escape(k->wanted->value, value, sizeof(value)),
			text_escape(live, live_esc, sizeof(live_esc)),
			k->boot ? text_escape(k->boot->file, file, sizeof(file)) :
				  "(none)",
			key_note(k));
	}

	fprintf(f, "\n");
	for (size_t i = 0; i < r->n_modules; i++) {
		const struct module_facts *m = &r->modules[i];

		fprintf(f, "%s: %s\n", m->name, modstate_to_string(m->state));
		if (module_unloadable(m))
			fprintf(f, "%s is listed in %s but cannot be loaded\n", m->name,
				FRAGMENT_MODULES);
	}
	print_text_qdiscs(r, f);

	if (r->fragment_cpus > 0 && r->fragment_cpus != info->cpus)
		print_text_cpus(r, f);
	if (verdict == VERDICT_BAD_FRAGMENT)
		fprintf(f,
			"\nThe fragment has lines that are not assignments (exit 1).\n");
	else
		fprintf(f, "\n%s\n",
			verdict == VERDICT_DRIFT ? "Not all in effect (exit 3)." :
						   "All in effect.");
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
	json_string(&j, "bbr", modstate_to_string(info->bbr));
	json_string(&j, "fq", modstate_to_string(info->fq));
	json_bool(&j, "proc_sys_net_writable", info->net_writable);
	json_object_close(&j);
	json_end(&j);
}

static void json_key(struct json *j, const struct key_facts *k)
{
	json_object_open(j, NULL);
	json_string(j, "key", k->wanted->key);
	json_string(j, "wanted", k->wanted->value);
	json_string(j, "live", live_or_null(k));
	json_string(j, "live_error",
		    k->live_error == 0	     ? NULL :
		    k->live_error == -ENOENT ? "absent" :
					       "unreadable");
	json_bool(j, "optional", k->wanted->ignore_failure);
	json_string(j, "boot_file", k->boot ? k->boot->file : NULL);
	json_string(j, "boot_value", k->boot ? k->boot->value : NULL);
	json_string(j, "state", key_state_to_string(k->state));
	json_bool(j, "in_effect", key_in_effect(k));
	json_bool(j, "drift", key_drift(k));
	json_object_close(j);
}

static void json_qdiscs(struct json *j, const struct report *r)
{
	if (r->qdisc_error < 0) {
		json_null(j, "qdiscs");
		json_string(j, "qdiscs_error",
			    r->qdisc_error == -EOPNOTSUPP ? "not queried under --root" :
							    strerror(-r->qdisc_error));
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
		json_bool(&j, "unloadable", module_unloadable(&r->modules[i]));
		json_object_close(&j);
	}
	json_array_close(&j);

	json_qdiscs(&j, r);
	json_bool(&j, "qdisc_pending", report_qdisc_pending(r));
	json_bool(&j, "boot_unknown", r->boot_unknown);
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

/* A family without a sample would be no more than its HELP and TYPE lines:
 * the key and qdisc families appear only when there is something in them. */
static const struct {
	const char *name;
	const char *help;
	bool (*fn)(const struct key_facts *k);
} key_gauges[] = {
	{ "key_in_effect", "1 when the kernel holds the value the fragment wants.",
	  key_in_effect },
	{ "key_drift",
	  "1 when the key is not in effect, or another file overrides it at boot.",
	  key_drift },
};

static void expo_keys(const struct report *r, FILE *f)
{
	if (r->n_keys == 0)
		return;
	for (size_t g = 0; g < ELEMENTSOF(key_gauges); g++) {
		expo_family(f, key_gauges[g].name, key_gauges[g].help);
		for (size_t i = 0; i < r->n_keys; i++) {
			const struct expo_label key = { "key", r->keys[i].wanted->key };

			expo_sample(f, key_gauges[g].name, &key, 1,
				    key_gauges[g].fn(&r->keys[i]));
		}
	}
	expo_family(
		f, "key_info",
		"Each key of the fragment: wanted and live value, the file that sets it at boot.");
	for (size_t i = 0; i < r->n_keys; i++) {
		const struct key_facts *k = &r->keys[i];
		const struct expo_label labels[] = {
			{ "key", k->wanted->key },
			{ "wanted", k->wanted->value },
			{ "live", live_or_null(k) },
			{ "boot_file", k->boot ? k->boot->file : NULL },
			{ "state", key_state_to_string(k->state) },
		};

		expo_sample(f, "key_info", labels, ELEMENTSOF(labels), 1);
	}
}

static void expo_modules(const struct report *r, FILE *f)
{
	if (r->n_modules == 0)
		return;
	expo_family(
		f, "module_info",
		"Each module the profile loads at boot: builtin, module, loaded, blacklisted or missing.");
	for (size_t i = 0; i < r->n_modules; i++) {
		const struct expo_label labels[] = {
			{ "module", r->modules[i].name },
			{ "state", modstate_to_string(r->modules[i].state) },
		};

		expo_sample(f, "module_info", labels, ELEMENTSOF(labels), 1);
	}
	expo_family(f, "module_unloadable",
		    "1 when modules-load.d lists the module and it cannot be loaded.");
	for (size_t i = 0; i < r->n_modules; i++) {
		const struct expo_label module = { "module", r->modules[i].name };

		expo_sample(f, "module_unloadable", &module, 1,
			    module_unloadable(&r->modules[i]));
	}
}

static void expo_qdiscs(const struct report *r, FILE *f)
{
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

void report_print_prometheus(const struct report *r, FILE *f)
{
	enum verdict verdict = report_verdict(r);
	const struct expo_label info[] = {
		{ "version", VERSION },
		{ "kernel", r->info.release },
		{ "environment", environment_to_string(r->info.environment) },
		{ "container", r->info.container },
	};

	expo_family(f, "info", "wp-panel-nettune's version, the kernel, the environment.");
	expo_sample(f, "info", info, ELEMENTSOF(info), 1);
	expo_single(
		f, "status_exit_code",
		"The exit status of wp-panel-nettune status: 0 in effect, 3 drift, 1 failure.",
		(uint64_t)report_exit_status(verdict));
	expo_single(f, "in_effect", "1 when every key of the fragment is in effect.",
		    verdict == VERDICT_IN_EFFECT);
	expo_single(f, "drift",
		    "1 when a key is not in effect, or the fragment is missing.",
		    verdict == VERDICT_DRIFT || verdict == VERDICT_NOT_TUNED);
	expo_single(f, "fragment_present", "1 when the sysctl.d fragment exists.",
		    r->fragment_present);
	expo_single(f, "fragment_malformed",
		    "1 when the fragment has lines that are not assignments.",
		    r->malformed);
	expo_single(f, "cpus", "Usable CPUs now.", r->info.cpus);
	if (r->fragment_cpus > 0)
		expo_single(f, "fragment_cpus", "The CPUs the fragment was rendered for.",
			    r->fragment_cpus);
	expo_keys(r, f);
	expo_modules(r, f);
	expo_qdiscs(r, f);
}
