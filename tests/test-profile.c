/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "profile.h"
#include "sysctl.h"
#include "util.h"

/* Invariants of the table: keys valid and unique, a reason on every row
 * (and on its value where the rule does not hold) that fits on one comment
 * line, global keys marked optional. */
static void test_table(void **state _unused_)
{
	assert_true(n_tunables <= SETTINGS_MAX);
	for (size_t i = 0; i < n_tunables; i++) {
		const struct tunable *t = &tunables[i];

		assert_true(sysctl_key_valid(t->key));
		assert_non_null(t->reason);
		assert_true(strlen(t->reason) > 10 && strlen(t->reason) <= 88);
		assert_null(strchr(t->reason, '\n'));
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(t->key, tunables[j].key);
		if (t->rule == RULE_BUFFER_MAX || t->rule == RULE_BUFFER_VECTOR)
			assert_true(t->floor > 0);
		else
			assert_non_null(t->value);
		assert_ptr_equal(tunable_find(t->key), t);
		/* A value for where the rule does not hold, with its reason,
		 * only on the rows whose rule can fail. */
		if (t->otherwise) {
			assert_true(t->rule == RULE_BBR || t->rule == RULE_FQ);
			assert_string_not_equal(t->otherwise, t->value);
			assert_non_null(t->otherwise_reason);
			assert_true(strlen(t->otherwise_reason) > 10 &&
				    strlen(t->otherwise_reason) <= 88);
		} else {
			assert_null(t->otherwise_reason);
		}
		/* The special handling hangs off a module's value, and names
		 * valid keys that are not rows of their own. */
		if (t->available || t->module_at_boot || t->widens)
			assert_non_null(t->module);
		if (t->available)
			assert_true(sysctl_key_valid(t->available) &&
				    !tunable_find(t->available));
		if (t->widens)
			assert_true(sysctl_key_valid(t->widens) &&
				    !tunable_find(t->widens) && t->available);
	}
	assert_null(tunable_find("net.ipv4.tcp_mem"));
	assert_null(tunable_find("net.core"));
}

/* Keys the profile must never touch: the kernel and systemd size them. */
/* Detection is asked for the table's modules, each once, with the key
 * that shows each built in: the list the table gives, nothing more. */
static void test_module_needs(void **state _unused_)
{
	struct module_need needs[SYSINFO_MODULES_MAX];
	size_t n = profile_module_needs(needs, ELEMENTSOF(needs)), rows = 0;

	for (size_t i = 0; i < n_tunables; i++)
		rows += tunables[i].module != NULL;
	assert_int_equal(n, rows);
	for (size_t i = 0; i < n; i++) {
		const struct tunable *t = NULL;

		for (size_t j = 0; j < n_tunables && !t; j++)
			if (tunables[j].module &&
			    strcmp(tunables[j].module, needs[i].module) == 0)
				t = &tunables[j];
		assert_non_null(t);
		assert_string_equal(needs[i].key, t->available ? t->available : t->key);
		assert_string_equal(needs[i].value, t->value);
		if (t->module_at_boot)
			assert_non_null(t->module_note);
	}
	assert_int_equal(profile_module_needs(needs, 1), n > 0);
}

/* The journal names the rows' keys, the lists their writes widen and the
 * installer's own keys: what purge may write, and nothing else (a list a
 * module gives is read only). */
static void test_journaled(void **state _unused_)
{
	for (size_t i = 0; i < n_tunables; i++) {
		assert_true(tunable_journaled(tunables[i].key));
		if (tunables[i].widens)
			assert_true(tunable_journaled(tunables[i].widens));
		if (tunables[i].available)
			assert_false(tunable_journaled(tunables[i].available));
	}
	for (size_t i = 0; i < n_installer_keys; i++)
		assert_true(sysctl_key_valid(installer_keys[i]) &&
			    tunable_journaled(installer_keys[i]));
	assert_false(tunable_journaled("net.ipv4.ip_forward"));
	assert_false(tunable_journaled("kernel.hostname"));
	assert_false(tunable_journaled("net.core"));
	assert_false(tunable_journaled(""));
}

static void test_untouched(void **state _unused_)
{
	static const char *const never[] = { "net.ipv4.tcp_mem", "net.ipv4.udp_mem",
					     "fs.file-max", "kernel.pid_max" };

	for (size_t i = 0; i < ELEMENTSOF(never); i++)
		for (size_t j = 0; j < n_tunables; j++)
			assert_string_not_equal(tunables[j].key, never[i]);
}

static void test_congestion(void **state _unused_)
{
	static const struct {
		unsigned cpus;
		enum modstate bbr, fq;
		enum congestion choice;
		bool want_bbr, want_fq;
		const char *module;
	} cases[] = {
		{ 2, MODSTATE_MODULE, MODSTATE_MODULE, CONGESTION_AUTO, true, true,
		  "tcp_bbr" },
		{ 2, MODSTATE_LOADED, MODSTATE_LOADED, CONGESTION_AUTO, true, true,
		  "tcp_bbr" },
		{ 16, MODSTATE_BUILTIN, MODSTATE_BUILTIN, CONGESTION_AUTO, true, true,
		  NULL },
		{ 2, MODSTATE_BUILTIN, MODSTATE_MISSING, CONGESTION_AUTO, true, false,
		  NULL },
		{ 1, MODSTATE_MODULE, MODSTATE_MODULE, CONGESTION_AUTO, false, false,
		  NULL },
		{ 1, MODSTATE_MODULE, MODSTATE_MODULE, CONGESTION_BBR, true, true,
		  "tcp_bbr" },
		{ 2, MODSTATE_MODULE, MODSTATE_MODULE, CONGESTION_CUBIC, false, false,
		  NULL },
		{ 2, MODSTATE_BLACKLISTED, MODSTATE_MODULE, CONGESTION_AUTO, false, false,
		  NULL },
		{ 2, MODSTATE_BLACKLISTED, MODSTATE_MODULE, CONGESTION_BBR, false, false,
		  NULL },
		{ 2, MODSTATE_MISSING, MODSTATE_MODULE, CONGESTION_AUTO, false, false,
		  NULL },
		{ 4, MODSTATE_MISSING, MODSTATE_MISSING, CONGESTION_BBR, false, false,
		  NULL },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct sysinfo info = { .cpus = cases[i].cpus, .mem_kib = 2u << 20 };
		const struct setting *cc, *qdisc;
		struct profile p;

		assert_int_equal(sysinfo_set_module_state(&info, "tcp_bbr", cases[i].bbr),
				 0);
		assert_int_equal(sysinfo_set_module_state(&info, "sch_fq", cases[i].fq),
				 0);
		profile_compute(&info, cases[i].choice, &p);
		/* Named on every machine: a later file that sets another value
		 * is then an override. */
		cc = profile_find(&p, "net.ipv4.tcp_congestion_control");
		qdisc = profile_find(&p, "net.core.default_qdisc");
		assert_non_null(cc);
		assert_non_null(qdisc);
		if ((strcmp(cc->value, "bbr") == 0) != cases[i].want_bbr ||
		    (strcmp(qdisc->value, "fq") == 0) != cases[i].want_fq)
			fail_msg("case %zu: %s and %s", i, cc->value, qdisc->value);
		assert_string_equal(cc->value, cases[i].want_bbr ? "bbr" : "cubic");
		assert_string_equal(qdisc->value, cases[i].want_fq ? "fq" : "fq_codel");
		assert_true(qdisc->optional);
		/* Each value with its own reason. */
		assert_ptr_equal(cc->reason,
				 cases[i].want_bbr ?
					 tunable_find(cc->key)->reason :
					 tunable_find(cc->key)->otherwise_reason);
		assert_ptr_equal(qdisc->reason,
				 cases[i].want_fq ?
					 tunable_find(qdisc->key)->reason :
					 tunable_find(qdisc->key)->otherwise_reason);
		assert_int_equal(p.n_modules, cases[i].module != NULL);
		if (cases[i].module)
			assert_string_equal(p.modules[0], cases[i].module);
		assert_non_null(p.why);
		assert_int_equal(p.n_settings, n_tunables);
	}
}

static void test_buffers(void **state _unused_)
{
	static const struct {
		uint64_t mem_kib;
		const char *rmem_max, *tcp_rmem, *tcp_wmem;
	} cases[] = {
		/* A "1 GiB" VM reports less than 1 GiB in MemTotal. */
		{ 1003212, "16777216", "4096 131072 16777216", "4096 16384 16777216" },
		{ 24684092, "16777216", "4096 131072 16777216", "4096 16384 16777216" },
		{ 480000, "8388608", "4096 131072 8388608", "4096 16384 8388608" },
		{ 250000, "4194304", "4096 131072 6291456", "4096 16384 4194304" },
		{ 100000, "2097152", "4096 131072 6291456", "4096 16384 4194304" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct sysinfo info = { .cpus = 2, .mem_kib = cases[i].mem_kib };
		struct profile p;

		profile_compute(&info, CONGESTION_AUTO, &p);
		assert_string_equal(profile_find(&p, "net.core.rmem_max")->value,
				    cases[i].rmem_max);
		assert_string_equal(profile_find(&p, "net.core.wmem_max")->value,
				    cases[i].rmem_max);
		assert_string_equal(profile_find(&p, "net.ipv4.tcp_rmem")->value,
				    cases[i].tcp_rmem);
		assert_string_equal(profile_find(&p, "net.ipv4.tcp_wmem")->value,
				    cases[i].tcp_wmem);
	}
}

static void test_nominal_memory(void **state _unused_)
{
	assert_int_equal(nominal_memory_mib(1003212), 1024);
	assert_int_equal(nominal_memory_mib(1048576), 1024);
	assert_int_equal(nominal_memory_mib(1048577), 1152);
	assert_int_equal(nominal_memory_mib(1), 128);
}

static void test_congestion_names(void **state _unused_)
{
	enum congestion c;

	assert_int_equal(congestion_from_string("auto", &c), 0);
	assert_int_equal(c, CONGESTION_AUTO);
	assert_int_equal(congestion_from_string("cubic", &c), 0);
	assert_int_equal(c, CONGESTION_CUBIC);
	assert_int_equal(congestion_from_string("BBR", &c), -EINVAL);
	assert_int_equal(congestion_from_string("bb", &c), -EINVAL);
	assert_string_equal(congestion_to_string(CONGESTION_BBR), "bbr");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_module_needs),
		cmocka_unit_test(test_journaled),
		cmocka_unit_test(test_untouched),
		cmocka_unit_test(test_congestion),
		cmocka_unit_test(test_buffers),
		cmocka_unit_test(test_nominal_memory),
		cmocka_unit_test(test_congestion_names),
	};

	return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
