/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "helpers.h"
#include "modulesd.h"

static void test_modules(void **state _unused_)
{
	char *root = scratch_new();
	struct modules m;
	unsigned line = 0;

	scratch_write(root, "/m.conf", "# comment\n\ntcp_bbr\n  sch_fq  \n");
	assert_int_equal(modulesd_parse_file(root, "/m.conf", &m, &line), 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.names[0], "tcp_bbr");
	assert_string_equal(m.names[1], "sch_fq");

	scratch_write(root, "/bad.conf", "tcp_bbr\n../evil\n");
	assert_int_equal(modulesd_parse_file(root, "/bad.conf", &m, &line), -EINVAL);
	assert_int_equal(line, 2);
	assert_int_equal(modulesd_parse_file(root, "/none.conf", &m, &line), -ENOENT);
	scratch_free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modules),
	};

	return cmocka_run_group_tests_name("modulesd", tests, NULL, NULL);
}
