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

#include "nettune.h"
#include "report.h"

#define DROPIN "/etc/systemd/network/10-netplan-ens2.network.d/50-wp-panel-nettune.conf"
#define RA_WHY "learned from a router advertisement: systemd-networkd has no setting"

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

/* Two keys, both in effect, on a host with 2 CPUs and one NIC on fq. */
static void report_in_effect(struct report *r, struct key_facts *keys)
{
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
		.n_routes = 2,
		.routes = { { .family = AF_INET,
			      .ifindex = 2,
			      .ifname = "ens2",
			      .gateway = "192.0.2.1",
			      .protocol = RTPROT_DHCP,
			      .metric = 100,
			      .initcwnd = 32,
			      .initrwnd = 32 },
			    { .family = AF_INET6,
			      .ifindex = 2,
			      .ifname = "ens2",
			      .gateway = "fe80::1",
			      .protocol = RTPROT_RA,
			      .metric = 1024,
			      .initcwnd = 32 } },
		.route_plans = { { .manager = MANAGER_NETWORKD,
				   .wanted = true,
				   .present = true,
				   .written = true,
				   .from = DROPIN },
				 { .manager = MANAGER_NETWORKD, .why = RA_WHY } },
	};
	r->have_choice = true;
	r->base_present = true;
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

/* Each state alone: the conditions it makes, the verdict and the exit
 * status. What an administrator chose never raises the alarm; what nobody
 * chose always does. */
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
		UNLOADABLE,
		UNLOADABLE_IN_CONTAINER,
		CHROOT_UNRECORDED,
		BOOT_UNKNOWN,
		NO_FRAGMENT,
		BAD_LINES,
		CPUS_SAME_PROFILE,
		CPUS_OTHER_PROFILE,
		CPUS_NO_CHOICE,
		CUBIC_CHOSEN,
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
		{ CUBIC_CHOSEN, VERDICT_CHOSEN, 0, "congestion-chosen " },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char conditions[256] = "";
		struct key_facts keys[2];
		struct report r;

		report_in_effect(&r, keys);
		switch (cases[i].change) {
		case OVERRIDDEN:
			keys[0].state = KEY_OVERRIDDEN;
			break;
		case EDITED:
			keys[0].state = KEY_EDITED;
			break;
		case LEFT_ALONE:
			r.info.environment = ENVIRONMENT_CONTAINER;
			r.left_alone_recorded = true;
			keys[0].state = KEY_LEFT_ALONE;
			break;
		case ABSENT:
			keys[1].state = KEY_NOT_IN_NAMESPACE;
			break;
		case READ_ONLY:
			keys[1].state = KEY_READ_ONLY;
			break;
		case OUTDATED:
			keys[0].state = KEY_OUTDATED;
			break;
		case MISSING_KEY:
			keys[1].state = KEY_MISSING;
			break;
		case DRIFT:
			keys[0].state = KEY_DRIFT;
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
			r.fragment_present = false;
			r.n_keys = 0;
			break;
		case BAD_LINES:
			r.malformed = true;
			break;
		case CPUS_SAME_PROFILE:
			r.fragment_cpus = 3;
			r.cpus_compared = true;
			break;
		case CPUS_OTHER_PROFILE:
			r.fragment_cpus = 1;
			r.cpus_compared = true;
			r.n_cpu_changes = 1;
			break;
		case CPUS_NO_CHOICE:
			r.fragment_cpus = 1;
			r.have_choice = false;
			break;
		case CUBIC_CHOSEN:
			r.choice = CONGESTION_CUBIC;
			break;
		case NONE:
			break;
		}
		for (enum condition c = 0; c < CONDITION_MAX; c++)
			if (report_condition(&r, c)) {
				strcat(conditions, condition_to_string(c));
				strcat(conditions, " ");
			}
		assert_string_equal(conditions, cases[i].conditions);
		assert_int_equal(report_verdict(&r), cases[i].verdict);
		assert_int_equal(report_exit_status(report_verdict(&r)), cases[i].exit);
	}
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
	assert_string_equal(got, "overridden edited left-alone congestion-chosen ");
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
		"route default via 192.0.2.1 dev ens2 (ipv4, dhcp): initcwnd 32, initrwnd 32\n"
		"  the package's, from " DROPIN " (systemd-networkd)\n"
		"route default via fe80::1 dev ens2 (ipv6, ra): initcwnd 32, initrwnd the kernel's\n"
		"  left alone: " RA_WHY "\n"
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
	r.route_error = -EOPNOTSUPP;
	text = print(&r, report_print_json);
	assert_string_equal(
		text,
		"{\"schema\":2,\"command\":\"status\",\"version\":\"" VERSION "\","
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
		"\"routes\":null,\"routes_error\":\"not queried under --root\",\"routes_left_out\":0,"
		"\"boot_unknown\":false,\"conditions\":[\"overridden\"],"
		"\"verdict\":\"chosen\",\"exit_status\":0}\n");
	free(text);

	/* On the real root: each route, a window the route does not set null. */
	report_in_effect(&r, keys);
	r.routes_left_out = 3;
	text = print(&r, report_print_json);
	assert_non_null(strstr(
		text,
		"\"routes\":[{\"family\":\"ipv4\",\"interface\":\"ens2\",\"gateway\":\"192.0.2.1\","
		"\"protocol\":\"dhcp\",\"metric\":100,\"initcwnd\":32,\"initrwnd\":32,"
		"\"manager\":\"systemd-networkd\",\"wanted_initcwnd\":32,\"wanted_initrwnd\":32,"
		"\"wanted_from\":\"" DROPIN "\",\"left_alone\":null},"
		"{\"family\":\"ipv6\",\"interface\":\"ens2\",\"gateway\":\"fe80::1\","
		"\"protocol\":\"ra\",\"metric\":1024,\"initcwnd\":32,\"initrwnd\":null,"
		"\"manager\":\"systemd-networkd\",\"wanted_initcwnd\":null,\"wanted_initrwnd\":null,"
		"\"wanted_from\":null,\"left_alone\":\"" RA_WHY "\"}],"
		"\"routes_error\":null,\"routes_left_out\":3,"));
	assert_non_null(strstr(text, "\"conditions\":[],\"verdict\":\"in-effect\""));
	free(text);

	/* The windows the package gives a route, not live: an alarm. */
	r.routes[0].initcwnd = 0;
	text = print(&r, report_print_json);
	assert_non_null(
		strstr(text, "\"conditions\":[\"route-windows\"],\"verdict\":\"alarm\""));
	free(text);
	text = print(&r, report_print_text);
	assert_non_null(strstr(
		text, "route default via 192.0.2.1 dev ens2 (ipv4, dhcp): initcwnd 10 "
		      "(the kernel's), initrwnd 32\n"
		      "  WANTED initcwnd 32, initrwnd 32, from " DROPIN
		      " (systemd-networkd): not live; networkctl reload applies them\n"));
	assert_non_null(strstr(text, "\nNot as it should be (exit 3): route-windows.\n"));
	free(text);

	/* The file that would give them missing, or not the package's: the
	 * advice says so. */
	r.route_plans[0].present = r.route_plans[0].written = false;
	text = print(&r, report_print_text);
	assert_non_null(strstr(text,
			       "  WANTED initcwnd 32, initrwnd 32, from " DROPIN
			       " (systemd-networkd): not live, and the file is missing; "
			       "wp-panel-nettune apply writes it\n"));
	free(text);
	r.route_plans[0].present = true;
	text = print(&r, report_print_text);
	assert_non_null(
		strstr(text, "  WANTED initcwnd 32, initrwnd 32, from " DROPIN
			     " (systemd-networkd): not live, and the file is not the one "
			     "the package writes: yours to fix\n"));
	r.route_plans[0].written = true;
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
	/* 0 where the route sets no window. */
	assert_non_null(
		strstr(text,
		       "\nnettune_route_initcwnd{family=\"ipv4\",interface=\"ens2\","
		       "gateway=\"192.0.2.1\",protocol=\"dhcp\",metric=\"100\"} 32\n"
		       "nettune_route_initcwnd{family=\"ipv6\",interface=\"ens2\","
		       "gateway=\"fe80::1\",protocol=\"ra\",metric=\"1024\"} 32\n"));
	assert_non_null(
		strstr(text, "\nnettune_route_initrwnd{family=\"ipv6\",interface=\"ens2\","
			     "gateway=\"fe80::1\",protocol=\"ra\",metric=\"1024\"} 0\n"));
	/* What the package gives each: 32, or 0 where it leaves one alone. */
	assert_non_null(strstr(
		text, "\nnettune_route_initcwnd_wanted{family=\"ipv4\",interface=\"ens2\","
		      "gateway=\"192.0.2.1\",protocol=\"dhcp\",metric=\"100\"} 32\n"
		      "nettune_route_initcwnd_wanted{family=\"ipv6\",interface=\"ens2\","
		      "gateway=\"fe80::1\",protocol=\"ra\",metric=\"1024\"} 0\n"));
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
			assert_string_equal(line + 7 + strlen(family), " gauge");
			continue;
		}
		assert_int_equal(strncmp(line, family, strlen(family)), 0);
		assert_true(line[strlen(family)] == ' ' || line[strlen(family)] == '{');
		assert_true(strrchr(line, ' ')[1] >= '0' && strrchr(line, ' ')[1] <= '9');
	}
	free(text);

	/* Under --root no qdiscs and no routes: no family of those names at all. */
	r.qdisc_error = -EOPNOTSUPP;
	r.route_error = -EOPNOTSUPP;
	text = print(&r, report_print_prometheus);
	assert_null(strstr(text, "qdisc_info"));
	assert_null(strstr(text, "route_init"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict),	   cmocka_unit_test(test_states),
		cmocka_unit_test(test_text),	   cmocka_unit_test(test_json),
		cmocka_unit_test(test_prometheus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
