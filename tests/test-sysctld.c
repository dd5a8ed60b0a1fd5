/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "sysctld.h"

static void test_parse_line(void **unused)
{
	static const struct {
		const char *line;
		bool strict;
		int r;
		const char *key, *value;
		bool ignore_failure;
	} cases[] = {
		{ "net.core.somaxconn = 65535\n", true, 0, "net.core.somaxconn", "65535",
		  false },
		{ "  net.core.somaxconn=65535", true, 0, "net.core.somaxconn", "65535",
		  false },
		{ "-net.core.rmem_max = 1", true, 0, "net.core.rmem_max", "1", true },
		{ "- net.core.rmem_max = 1", true, 0, "net.core.rmem_max", "1", true },
		{ "net.ipv4.tcp_rmem = 4096\t131072  6291456 ", true, 0,
		  "net.ipv4.tcp_rmem", "4096 131072 6291456", false },
		{ "net/ipv4/conf/eth0.100/rp_filter = 1", false, 0,
		  "net.ipv4.conf.eth0/100.rp_filter", "1", false },
		{ "net/core/somaxconn = 1", true, 0, "net.core.somaxconn", "1", false },
		{ "# comment", true, 1 },
		{ "; comment", true, 1 },
		{ "   ", true, 1 },
		{ "net.core.somaxconn", true, -EBADMSG },
		{ "net.core.somaxconn =", true, -EINVAL },
		{ "net..core = 1", true, -EINVAL },
		{ "net.core/../x = 1", true, -EINVAL },
		{ "NET.core = 1", true, -EINVAL },
		{ "net.ipv4.conf.*.rp_filter = 2", true, -EINVAL },
		{ "net.ipv4.conf.*.rp_filter = 2", false, 0, "net.ipv4.conf.*.rp_filter",
		  "2" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct assignment a;
		int r = sysctld_parse_line(cases[i].line, cases[i].strict, &a);

		if (r != cases[i].r)
			fail_msg("line %zu '%s': got %d, want %d", i, cases[i].line, r,
				 cases[i].r);
		if (r != 0)
			continue;
		assert_string_equal(a.key, cases[i].key);
		assert_string_equal(a.value, cases[i].value);
		assert_int_equal(a.ignore_failure, cases[i].ignore_failure);
	}
}

static void test_parse_file_strict(void **unused)
{
	struct assignments a = { 0 };
	char *root = scratch_new(), big[LINE_MAX_LEN + 10];
	unsigned line = 0;

	scratch_write(root, "/good.conf",
		      "# x\nnet.core.somaxconn = 1\n-net.core.rmem_max = 2\n");
	assert_int_equal(sysctld_parse_file(root, "/good.conf", true, &a, &line), 0);
	assert_int_equal(a.n, 2);
	assert_string_equal(a.items[1].file, "/good.conf");
	assert_int_equal(a.items[1].line, 3);
	assignments_free(&a);

	scratch_write(root, "/bad.conf", "net.core.somaxconn = 1\n\nnet/../x = 1\n");
	assert_int_equal(sysctld_parse_file(root, "/bad.conf", true, &a, &line), -EINVAL);
	assert_int_equal(line, 3);
	assignments_free(&a);
	/* Read the way systemd reads other files, the line is only a key that
	 * matches nothing, and a line without "=" is skipped. */
	scratch_write(root, "/bad.conf",
		      "net.core.somaxconn = 1\nnonsense\nnet/../x = 1\n");
	assert_int_equal(sysctld_parse_file(root, "/bad.conf", false, &a, &line), 0);
	assert_int_equal(a.n, 2);
	assignments_free(&a);

	memset(big, 'a', sizeof(big) - 2);
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = '\0';
	scratch_write(root, "/long.conf", big);
	assert_int_equal(sysctld_parse_file(root, "/long.conf", true, &a, &line), -E2BIG);
	assert_int_equal(line, 1);
	assignments_free(&a);

	assert_int_equal(sysctld_parse_file(root, "/missing.conf", true, &a, &line),
			 -ENOENT);
	scratch_free(root);
}

/* systemd's order: names sorted across all directories, /etc shadowing a
 * file of the same name elsewhere, /dev/null masking, an explicit key
 * beating a glob. */
static void test_winner(void **unused)
{
	struct assignments all = { 0 };
	const struct assignment *w;
	char *root = scratch_new(), link[PATH_MAX_LEN];

	scratch_write(
		root, "/usr/lib/sysctl.d/50-default.conf",
		"-net.core.default_qdisc = fq_codel\nnet.ipv4.tcp_fin_timeout = 30\n");
	scratch_write(root, "/etc/sysctl.d/60-wp-panel-nettune.conf",
		      "-net.core.default_qdisc = fq\nnet.ipv4.tcp_fin_timeout = 15\n"
		      "net.core.somaxconn = 65535\n");
	scratch_write(root, "/run/sysctl.d/70-run.conf",
		      "net.ipv4.tcp_fin_timeout = 20\n");
	scratch_write(root, "/usr/lib/sysctl.d/70-run.conf",
		      "net.ipv4.tcp_fin_timeout = 99\n");
	scratch_write(root, "/usr/lib/sysctl.d/80-masked.conf",
		      "net.core.somaxconn = 1\n");
	scratch_write(root, "/usr/lib/sysctl.d/90-glob.conf", "net.core.* = 7\n");
	scratch_write(root, "/etc/sysctl.d/README", "net.core.somaxconn = 2\n");
	snprintf(link, sizeof(link), "%s/etc/sysctl.d/80-masked.conf", root);
	assert_int_equal(symlink("/dev/null", link), 0);

	assert_int_equal(sysctld_load_all(root, &all), 0);

	w = sysctld_winner(&all, "net.core.default_qdisc");
	assert_non_null(w);
	assert_string_equal(w->file, "/etc/sysctl.d/60-wp-panel-nettune.conf");
	assert_string_equal(w->value, "fq");

	w = sysctld_winner(&all, "net.ipv4.tcp_fin_timeout");
	assert_non_null(w);
	assert_string_equal(w->file, "/run/sysctl.d/70-run.conf");
	assert_string_equal(w->value, "20");

	w = sysctld_winner(&all, "net.core.somaxconn");
	assert_non_null(w);
	assert_string_equal(w->file, "/etc/sysctl.d/60-wp-panel-nettune.conf");

	w = sysctld_winner(&all, "net.core.netdev_max_backlog");
	assert_non_null(w);
	assert_string_equal(w->file, "/usr/lib/sysctl.d/90-glob.conf");

	assert_null(sysctld_winner(&all, "net.ipv4.tcp_sack"));
	assignments_free(&all);
	scratch_free(root);
}

static void test_modules(void **unused)
{
	char *root = scratch_new();
	struct modules m;
	unsigned line = 0;

	scratch_write(root, "/m.conf", "# comment\n\ntcp_bbr\n  sch_fq  \n");
	assert_int_equal(modules_parse_file(root, "/m.conf", &m, &line), 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.names[0], "tcp_bbr");
	assert_string_equal(m.names[1], "sch_fq");

	scratch_write(root, "/bad.conf", "tcp_bbr\n../evil\n");
	assert_int_equal(modules_parse_file(root, "/bad.conf", &m, &line), -EINVAL);
	assert_int_equal(line, 2);
	assert_int_equal(modules_parse_file(root, "/none.conf", &m, &line), -ENOENT);
	scratch_free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_line),
		cmocka_unit_test(test_parse_file_strict),
		cmocka_unit_test(test_winner),
		cmocka_unit_test(test_modules),
	};

	return cmocka_run_group_tests_name("sysctld", tests, NULL, NULL);
}
