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
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "sysctld.h"

static void test_parse_line(void **state _unused_)
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
		{ "net.core.somaxconn = \f", true, -EINVAL },
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

struct seen {
	unsigned lines[8];
	int errors[8];
	size_t n;
};

static void record_bad(void *userdata, const char *file _unused_, unsigned line, int error)
{
	struct seen *seen = userdata;

	if (seen->n < ELEMENTSOF(seen->lines)) {
		seen->lines[seen->n] = line;
		seen->errors[seen->n++] = error;
	}
}

/* Every bad line of our fragment is reported, and the good ones kept. */
static void test_parse_file_strict(void **state _unused_)
{
	struct assignments a = { 0 };
	struct seen seen = { 0 };
	const struct sysctld_report report = { record_bad, &seen };
	char *root = scratch_new();

	scratch_write(root, "/good.conf",
		      "# x\nnet.core.somaxconn = 1\n-net.core.rmem_max = 2\n");
	assert_int_equal(sysctld_parse_file(root, "/good.conf", true, &a, &report), 0);
	assert_int_equal(a.n, 2);
	assert_string_equal(a.items[1].file, "/good.conf");
	assert_int_equal(a.items[1].line, 3);
	assert_int_equal(seen.n, 0);
	assignments_free(&a);

	scratch_write(
		root, "/bad.conf",
		"net.core.somaxconn = 1\n\nnet/../x = 1\nnonsense\nnet.core.rmem_max = 2\n");
	assert_int_equal(sysctld_parse_file(root, "/bad.conf", true, &a, &report),
			 -EINVAL);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.lines[0], 3);
	assert_int_equal(seen.errors[0], -EINVAL);
	assert_int_equal(seen.lines[1], 4);
	assert_int_equal(seen.errors[1], -EBADMSG);
	assert_int_equal(a.n, 2);
	assert_string_equal(a.items[1].key, "net.core.rmem_max");
	assignments_free(&a);

	/* Read the way systemd reads other files, the line is only a key that
	 * matches nothing, and a line without "=" is skipped. */
	seen.n = 0;
	assert_int_equal(sysctld_parse_file(root, "/bad.conf", false, &a, &report), 0);
	assert_int_equal(a.n, 3);
	assert_int_equal(seen.n, 0);
	assignments_free(&a);

	assert_int_equal(sysctld_parse_file(root, "/missing.conf", true, &a, &report),
			 -ENOENT);
	scratch_free(root);
}

/* systemd's ends of line and its line limit, byte for byte. */
static void test_read_line(void **state _unused_)
{
	static const struct {
		const char *data;
		size_t len;
		const char *lines; /* the lines read, each followed by '|' */
	} cases[] = {
		{ "a\nb\n", 4, "a|b|" },  { "a\r\nb", 4, "a|b|" },
		{ "a\n\rb", 4, "a|b|" },  { "a\rb\rc", 5, "a|b|c|" },
		{ "a\n\nb", 4, "a||b|" }, { "a\r\rb", 4, "a||b|" },
		{ "a\0b", 3, "a|b|" },	  { "a\n\0b", 4, "a|b|" },
		{ "a\0\nb", 4, "a||b|" }, { "", 0, "" },
		{ "\n", 1, "|" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		FILE *f = fmemopen((void *)cases[i].data, cases[i].len, "r");
		char got[64] = "", *line = NULL;
		size_t cap = 0;

		if (cases[i].len == 0)
			f = fopen("/dev/null", "r");
		assert_non_null(f);
		while (sysctld_read_line(f, &line, &cap) == 1) {
			strcat(got, line);
			strcat(got, "|");
		}
		if (strcmp(got, cases[i].lines) != 0)
			fail_msg("case %zu: got '%s', want '%s'", i, got, cases[i].lines);
		free(line);
		fclose(f);
	}
}

/* A line of SYSCTLD_LINE_MAX bytes is read; one more is -ENOBUFS and ends the
 * file, as in systemd-sysctl: the lines before it count, those after not. */
static void test_line_limit(void **state _unused_)
{
	size_t len = SYSCTLD_LINE_MAX + 64;
	char *data = malloc(len + 64), *p = data;
	struct assignments a = { 0 };
	struct seen seen = { 0 };
	const struct sysctld_report report = { record_bad, &seen };
	FILE *f;

	p += sprintf(p, "net.core.somaxconn = 1\nnet.core.rmem_max = ");
	memset(p, '7', SYSCTLD_LINE_MAX - strlen("net.core.rmem_max = "));
	p += SYSCTLD_LINE_MAX - strlen("net.core.rmem_max = ");
	p += sprintf(p, "\nnet.ipv4.tcp_sack = 1\n");
	f = fmemopen(data, (size_t)(p - data), "r");
	assert_int_equal(sysctld_parse_stream(f, "/x.conf", false, NULL, &a, &report), 0);
	assert_int_equal(a.n, 3);
	assert_int_equal(strlen(a.items[1].value), VALUE_MAX);
	fclose(f);
	assignments_free(&a);

	p = data + sprintf(data, "net.core.somaxconn = 1\nnet.core.rmem_max = ");
	memset(p, '7', SYSCTLD_LINE_MAX - strlen("net.core.rmem_max = ") + 1);
	p += SYSCTLD_LINE_MAX - strlen("net.core.rmem_max = ") + 1;
	p += sprintf(p, "\nnet.ipv4.tcp_sack = 1\n");
	f = fmemopen(data, (size_t)(p - data), "r");
	assert_int_equal(sysctld_parse_stream(f, "/x.conf", false, NULL, &a, &report),
			 -ENOBUFS);
	assert_int_equal(a.n, 1);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.lines[0], 2);
	fclose(f);
	assignments_free(&a);
	free(data);
}

/* systemd's order: names sorted across all directories, /etc shadowing a
 * file of the same name elsewhere, /dev/null masking, an explicit key
 * beating a glob. */
static void test_winner(void **state _unused_)
{
	static const struct {
		const char *key, *file, *value;
	} want[] = {
		{ "net.core.default_qdisc", "/etc/sysctl.d/60-wp-panel-nettune.conf",
		  "fq" },
		{ "net.ipv4.tcp_fin_timeout", "/run/sysctl.d/70-run.conf", "20" },
		{ "net.core.somaxconn", "/etc/sysctl.d/60-wp-panel-nettune.conf", NULL },
		{ "net.core.netdev_max_backlog", "/usr/lib/sysctl.d/90-glob.conf", "7" },
		/* Hidden by a directory, a FIFO, a dangling link, an empty file. */
		{ "net.ipv4.tcp_rmem", NULL, NULL },
		{ "net.ipv4.tcp_wmem", NULL, NULL },
		{ "net.ipv4.tcp_sack", NULL, NULL },
	};
	struct assignments all = { 0 }, ours = { 0 };
	struct seen seen = { 0 };
	const struct sysctld_report report = { record_bad, &seen };
	const struct assignment *w;
	char *root = scratch_new(), link[PATH_MAX_LEN];
	struct assignment mine[] = { { .key = "net.core.default_qdisc" },
				     { .key = "net.ipv4.tcp_fin_timeout" },
				     { .key = "net.core.somaxconn" },
				     { .key = "net.core.netdev_max_backlog" },
				     { .key = "net.ipv4.tcp_sack" },
				     { .key = "net.ipv4.tcp_rmem" },
				     { .key = "net.ipv4.tcp_wmem" } };

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
	/* Entries systemd 257 lists without looking, which hide the /usr/lib
	 * files of their names: a directory, a FIFO, a dangling link, an
	 * empty file. */
	scratch_write(root, "/usr/lib/sysctl.d/81-dir.conf",
		      "net.ipv4.tcp_rmem = 1 2 3\n");
	scratch_write(root, "/etc/sysctl.d/81-dir.conf/x", "");
	scratch_write(root, "/usr/lib/sysctl.d/82-fifo.conf",
		      "net.ipv4.tcp_wmem = 1 2 3\n");
	snprintf(link, sizeof(link), "%s/etc/sysctl.d/82-fifo.conf", root);
	assert_int_equal(mkfifo(link, 0644), 0);
	scratch_write(root, "/usr/lib/sysctl.d/83-dangling.conf",
		      "net.ipv4.tcp_sack = 0\n");
	snprintf(link, sizeof(link), "%s/etc/sysctl.d/83-dangling.conf", root);
	assert_int_equal(symlink("/nonexistent", link), 0);
	scratch_write(root, "/etc/sysctl.d/84-empty.conf", "");
	scratch_write(root, "/usr/lib/sysctl.d/84-empty.conf", "net.ipv4.tcp_sack = 5\n");
	/* Assignments of keys not ours are not kept. */
	scratch_write(root, "/usr/lib/sysctl.d/10-other.conf",
		      "kernel.pid_max = 1\nfs.x = 2\n");
	ours.items = mine;
	ours.n = ELEMENTSOF(mine);

	assert_int_equal(sysctld_load_all(root, &ours, &all, &report), 0);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.errors[0], -EISDIR);
	assert_int_equal(seen.errors[1], -EAGAIN);

	for (size_t i = 0; i < ELEMENTSOF(want); i++) {
		w = sysctld_winner(&all, want[i].key);
		if (!want[i].file && w)
			fail_msg("%s: %s from %s, want none", want[i].key, w->value,
				 w->file);
		if (!want[i].file)
			continue;
		if (!w)
			fail_msg("%s: no winner", want[i].key);
		if (strcmp(w->file, want[i].file) != 0 ||
		    (want[i].value && strcmp(w->value, want[i].value) != 0))
			fail_msg("%s: %s from %s, want %s from %s", want[i].key, w->value,
				 w->file, want[i].value ? want[i].value : "any",
				 want[i].file);
	}
	for (size_t i = 0; i < all.n; i++)
		assert_string_not_equal(all.items[i].file,
					"/usr/lib/sysctl.d/10-other.conf");
	assignments_free(&all);
	scratch_free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_line),
		cmocka_unit_test(test_parse_file_strict),
		cmocka_unit_test(test_read_line),
		cmocka_unit_test(test_line_limit),
		cmocka_unit_test(test_winner),
	};

	return cmocka_run_group_tests_name("sysctld", tests, NULL, NULL);
}
