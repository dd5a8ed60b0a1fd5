/* SPDX-License-Identifier: GPL-2.0-or-later */
/* initwnd_ports_read on files written under a scratch --root tree: the
 * ports the sock_ops program is given, and the words it skips. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"
#include "initwnd.h"

struct ports_case {
	const char *what;
	const char *text; /* NULL: no file */
	int ret; /* the words skipped */
	uint16_t ports[SOCKOPS_PORTS_MAX];
	size_t n_ports;
};

static const struct ports_case ports_cases[] = {
	{ "no file: no port", NULL, 0, { 0 }, 0 },
	{ "the conffile's form, shipped: no port",
	  "# The local TCP ports ...\n"
	  "#80 443\n",
	  0,
	  { 0 },
	  0 },
	{ "the conffile with the web ports given",
	  "# The local TCP ports ...\n"
	  "80 443\n",
	  0,
	  { 80, 443 },
	  2 },
	{ "comments, blanks, tabs and duplicates",
	  "\n  # a comment\n\n8080\t443 # the end of the line\n80#no blank\n443 8080 80\n\n",
	  0,
	  { 8080, 443, 80 },
	  3 },
	{ "an empty file: no port", "", 0, { 0 }, 0 },
	{ "comments alone: no port", "# 80\n#443\n", 0, { 0 }, 0 },
	{ "words that are no port are skipped and counted",
	  "80x 0 65536 -1 443\n+80 8o 65535\n1 99999999999999999999999\n",
	  7,
	  { 443, 65535, 1 },
	  3 },
	{ "a word longer than any port", "000000000000000000000080 80\n", 1, { 80 }, 1 },
	{ "more than SOCKOPS_PORTS_MAX ports: the rest skipped",
	  "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n17 18\n1\n",
	  2,
	  { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 },
	  16 },
};

static void test_ports_read(void **state _unused_)
{
	for (size_t c = 0; c < ELEMENTSOF(ports_cases); c++) {
		const struct ports_case *pc = &ports_cases[c];
		char *root = scratch_new();
		struct sockops_windows w;
		int r;

		if (pc->text)
			scratch_write(root, INITWND_PORTS_FILE, pc->text);
		memset(&w, 0xff, sizeof(w));
		r = initwnd_ports_read(root, &w);
		if (r != pc->ret)
			fail_msg("%s: returned %d, not %d", pc->what, r, pc->ret);
		if (w.n_ports != pc->n_ports)
			fail_msg("%s: %zu ports, not %zu", pc->what, w.n_ports,
				 pc->n_ports);
		for (size_t i = 0; i < w.n_ports; i++)
			if (w.ports[i] != pc->ports[i])
				fail_msg("%s: port %zu is %u, not %u", pc->what, i,
					 w.ports[i], pc->ports[i]);
		assert_int_equal(w.cwnd, INITWND_SEGMENTS);
		assert_int_equal(w.rwnd, INITWND_SEGMENTS);
		scratch_free(root);
	}
}

/* A file that cannot be read: no port, and the error. */
static void test_ports_unreadable(void **state _unused_)
{
	char *root = scratch_new(), path[PATH_MAX_LEN];
	struct sockops_windows w;

	snprintf(path, sizeof(path), "%s%s", root, INITWND_PORTS_FILE);
	scratch_write(root, "/etc/wp-panel-nettune/x", "");
	assert_int_equal(mkdir(path, 0755), 0);
	assert_true(initwnd_ports_read(root, &w) < 0);
	assert_int_equal(w.n_ports, 0);
	scratch_free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ports_read),
		cmocka_unit_test(test_ports_unreadable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
