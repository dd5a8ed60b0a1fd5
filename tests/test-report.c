/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nettune.h"
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

/* Two keys, both in effect, on a host with 2 CPUs and one NIC on fq. */
static void report_in_effect(struct report *r, struct key_facts *keys)
{
	*r = (struct report){ .root = "",
			      .info = { .cpus = 2,
					.release = "6.12.57+deb13-amd64",
					.bbr = MODSTATE_LOADED,
					.fq = MODSTATE_LOADED,
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
			      .links = {
				      { .ifindex = 1, .ifname = "lo", .root = "noqueue" },
				      { .ifindex = 2,
					.ifname = "ens2",
					.root = "mq",
					.n_leaves = 1,
					.leaves = { "fq" } } } };
	for (size_t i = 0; i < 2; i++) {
		keys[i] = (struct key_facts){ .wanted = &ours[i],
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

/* Each thing that counts against the verdict, alone, and the exit status
 * it maps to; those that do not count leave it in effect. */
static void test_verdict(void **state _unused_)
{
	enum change {
		NONE,
		OVERRIDDEN,
		DRIFT,
		ABSENT,
		READ_ONLY,
		UNLOADABLE,
		BOOT_UNKNOWN,
		MISSING,
		BAD_LINES,
		CPUS
	};
	static const struct {
		enum change change;
		enum verdict verdict;
		int exit;
	} cases[] = {
		{ NONE, VERDICT_IN_EFFECT, 0 },
		{ OVERRIDDEN, VERDICT_DRIFT, 3 },
		{ DRIFT, VERDICT_DRIFT, 3 },
		{ ABSENT, VERDICT_IN_EFFECT, 0 },
		{ READ_ONLY, VERDICT_IN_EFFECT, 0 },
		{ UNLOADABLE, VERDICT_DRIFT, 3 },
		{ BOOT_UNKNOWN, VERDICT_DRIFT, 3 },
		{ MISSING, VERDICT_NOT_TUNED, 3 },
		{ BAD_LINES, VERDICT_BAD_FRAGMENT, 1 },
		{ CPUS, VERDICT_IN_EFFECT, 0 },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct key_facts keys[2];
		struct report r;

		report_in_effect(&r, keys);
		switch (cases[i].change) {
		case OVERRIDDEN:
			keys[0].state = KEY_OVERRIDDEN;
			break;
		case DRIFT:
			keys[0].state = KEY_DRIFT;
			break;
		case ABSENT:
			keys[1].state = KEY_NOT_IN_NAMESPACE;
			break;
		case READ_ONLY:
			keys[1].state = KEY_READ_ONLY;
			break;
		case UNLOADABLE:
			r.modules[0].state = MODSTATE_BLACKLISTED;
			break;
		case BOOT_UNKNOWN:
			r.boot_unknown = true;
			break;
		case MISSING:
			r.fragment_present = false;
			r.n_keys = 0;
			break;
		case BAD_LINES:
			r.malformed = true;
			break;
		case CPUS:
			r.fragment_cpus = 1;
			break;
		case NONE:
			break;
		}
		assert_int_equal(report_verdict(&r), cases[i].verdict);
		assert_int_equal(report_exit_status(report_verdict(&r)), cases[i].exit);
	}
}

static void test_text(void **state _unused_)
{
	struct key_facts keys[2];
	struct report r;
	char *text;

	report_in_effect(&r, keys);
	keys[0].boot = &theirs;
	keys[0].state = KEY_OVERRIDDEN;
	keys[1].live_error = -ENOENT;
	keys[1].live[0] = '\0';
	keys[1].state = KEY_NOT_IN_NAMESPACE;
	r.links[1].root[0] = '\0';
	r.links[1].n_leaves = 0;
	r.fragment_cpus = 1;
	text = print(&r, report_print_text);
	assert_string_equal(
		text,
		"KEY                                WANTED                LIVE                  SET AT BOOT BY\n"
		"net.core.somaxconn                 65535                 65535                 /etc/sysctl.d/70-\"x\"\\n\xff.conf  OVERRIDDEN\n"
		"net.core.default_qdisc             fq                    (absent)              /etc/sysctl.d/60-wp-panel-nettune.conf  (not in this namespace)\n"
		"\n"
		"tcp_bbr: loaded\n"
		"qdisc lo: noqueue\n"
		"qdisc ens2: ?\n"
		"note: default_qdisc fq reaches an interface when it is created; the ones\n"
		"      above keep their qdisc until the next boot (BBR paces itself meanwhile).\n"
		"warning: the fragment was made for 1 CPU, this machine has 2 now:\n"
		"         run 'dpkg-reconfigure wp-panel-nettune' to choose again.\n"
		"\n"
		"Not all in effect (exit 3).\n");
	free(text);
}

static void test_json(void **state _unused_)
{
	struct key_facts keys[2];
	struct report r;
	char *text;

	report_in_effect(&r, keys);
	keys[0].boot = &theirs;
	keys[0].state = KEY_OVERRIDDEN;
	r.n_keys = 1;
	r.root = "/srv/tree";
	r.qdisc_error = -EOPNOTSUPP;
	text = print(&r, report_print_json);
	assert_string_equal(
		text,
		"{\"schema\":1,\"command\":\"status\",\"version\":\"" VERSION "\","
		"\"root\":\"/srv/tree\",\"environment\":\"host\",\"container\":null,"
		"\"kernel\":\"6.12.57+deb13-amd64\",\"cpus\":2,"
		"\"fragment\":{\"path\":\"/etc/sysctl.d/60-wp-panel-nettune.conf\",\"present\":true,"
		"\"cpus\":2,\"cpus_changed\":false,\"cpus_change\":null,\"malformed\":false},"
		"\"keys\":[{\"key\":\"net.core.somaxconn\",\"wanted\":\"65535\",\"live\":\"65535\","
		"\"live_error\":null,\"optional\":false,"
		"\"boot_file\":\"/etc/sysctl.d/70-\\\"x\\\"\\n\\ufffd.conf\",\"boot_value\":\"4096\","
		"\"state\":\"overridden\",\"in_effect\":true,\"drift\":true}],"
		"\"modules\":[{\"module\":\"tcp_bbr\",\"state\":\"loaded\",\"listed\":true,"
		"\"unloadable\":false}],"
		"\"qdiscs\":null,\"qdiscs_error\":\"not queried under --root\","
		"\"qdisc_pending\":false,\"boot_unknown\":false,"
		"\"verdict\":\"drift\",\"exit_status\":3}\n");
	free(text);
}

static void test_prometheus(void **state _unused_)
{
	struct key_facts keys[2];
	struct report r;
	char *text;

	report_in_effect(&r, keys);
	keys[0].boot = &theirs;
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
	assert_non_null(strstr(text, "\n# TYPE nettune_status_exit_code gauge\n"
				     "nettune_status_exit_code 3\n"));
	assert_non_null(strstr(text, "\nnettune_in_effect 0\n"));
	assert_non_null(strstr(text, "\nnettune_drift 1\n"));
	assert_non_null(strstr(text, "\nnettune_cpus 2\n"));
	assert_non_null(strstr(text, "\nnettune_fragment_cpus 2\n"));
	assert_non_null(
		strstr(text, "\nnettune_key_in_effect{key=\"net.core.somaxconn\"} 1\n"
			     "nettune_key_in_effect{key=\"net.core.default_qdisc\"} 0\n"));
	assert_non_null(strstr(text,
			       "\nnettune_key_drift{key=\"net.core.somaxconn\"} 1\n"
			       "nettune_key_drift{key=\"net.core.default_qdisc\"} 1\n"));
	assert_non_null(strstr(
		text,
		"\nnettune_key_info{key=\"net.core.somaxconn\",wanted=\"65535\","
		"live=\"65535\",boot_file=\"/etc/sysctl.d/70-\\\"x\\\"\\n\xef\xbf\xbd.conf\","
		"state=\"overridden\"} 1\n"));
	assert_non_null(strstr(text, "\nnettune_key_info{key=\"net.core.default_qdisc\","
				     "wanted=\"fq\",live=\"\",boot_file=\"/etc/sysctl.d/"
				     "60-wp-panel-nettune.conf\",state=\"drift\"} 1\n"));
	assert_non_null(
		strstr(text,
		       "\nnettune_module_info{module=\"tcp_bbr\",state=\"loaded\"} 1\n"));
	assert_non_null(
		strstr(text, "\nnettune_module_unloadable{module=\"tcp_bbr\"} 0\n"));
	assert_non_null(strstr(text, "\nnettune_qdisc_info{interface=\"ens2\",root=\"mq\","
				     "leaves=\"fq fq_codel\"} 1\n"));
	assert_non_null(strstr(text, "\nnettune_qdisc_pending 0\n"));
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
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_prometheus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
