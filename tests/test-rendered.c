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
#include <unistd.h>

#include "helpers.h"
#include "rendered.h"

/* What rendered_write() leaves, byte for byte, and read back. */
static void test_round_trip(void **state _unused_)
{
	static const struct {
		unsigned cpus;
		enum congestion choice;
		const char *bytes;
	} cases[] = {
		{ 1, CONGESTION_AUTO, "cpus=1\ncongestion=auto\n" },
		{ 2, CONGESTION_BBR, "cpus=2\ncongestion=bbr\n" },
		{ 65535, CONGESTION_CUBIC, "cpus=65535\ncongestion=cubic\n" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char *root = scratch_new();
		enum congestion choice = (enum congestion)42;
		unsigned cpus = 0;

		assert_int_equal(rendered_write(root, cases[i].cpus, cases[i].choice), 0);
		assert_string_equal(scratch_read(root, STATE_RENDERED), cases[i].bytes);
		assert_int_equal(rendered_read(root, &cpus, &choice), 0);
		assert_int_equal(cpus, cases[i].cpus);
		assert_int_equal(choice, cases[i].choice);
		scratch_free(root);
	}
}

/* Anything but the two lines, each once, is not a record; the outputs are
 * left as they were. */
static void test_read(void **state _unused_)
{
	static const struct {
		const char *bytes; /* NULL: no file */
		int want;
		unsigned cpus;
		enum congestion choice;
	} cases[] = {
		{ NULL, -ENOENT, 0, 0 },
		{ "cpus=4\ncongestion=bbr\n", 0, 4, CONGESTION_BBR },
		{ "congestion=cubic\ncpus=1", 0, 1, CONGESTION_CUBIC },
		{ "", -EBADMSG, 0, 0 },
		{ "cpus=2\n", -EBADMSG, 0, 0 },
		{ "congestion=auto\n", -EBADMSG, 0, 0 },
		{ "cpus=0\ncongestion=auto\n", -EBADMSG, 0, 0 },
		{ "cpus=65536\ncongestion=auto\n", -EBADMSG, 0, 0 },
		{ "cpus=-1\ncongestion=auto\n", -EBADMSG, 0, 0 },
		{ "cpus=2x\ncongestion=auto\n", -EBADMSG, 0, 0 },
		{ "cpus=2\ncongestion=reno\n", -EBADMSG, 0, 0 },
		{ "cpus=2\ncongestion=auto\ncpus=3\n", -EBADMSG, 0, 0 },
		{ "cpus=2\ncongestion=auto\nextra=1\n", -EBADMSG, 0, 0 },
		{ "# wp-panel-nettune: cpus=2 congestion=auto\n", -EBADMSG, 0, 0 },
		{ "cpus=2\ncongestion=auto\n"
		  "                                                  \n",
		  -EFBIG, 0, 0 },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char *root = scratch_new();
		enum congestion choice = (enum congestion)42;
		unsigned cpus = 99;
		int r;

		scratch_write(root, "/var/lib/wp-panel-nettune/.keep", "");
		if (cases[i].bytes)
			scratch_write(root, STATE_RENDERED, cases[i].bytes);
		r = rendered_read(root, &cpus, &choice);
		if (r != cases[i].want)
			fail_msg("case %zu: %d, not %d", i, r, cases[i].want);
		assert_int_equal(cpus, r == 0 ? cases[i].cpus : 99);
		assert_int_equal(choice, r == 0 ? cases[i].choice : (enum congestion)42);
		scratch_free(root);
	}
}

/* A symlink in its place, or on the way to it, is not followed; a NUL byte
 * is not a record. */
static void test_refused(void **state _unused_)
{
	char *root = scratch_new(), path[PATH_MAX_LEN], target[PATH_MAX_LEN];
	enum congestion choice = (enum congestion)42;
	unsigned cpus = 99;
	FILE *f;

	scratch_write(root, "/elsewhere/rendered", "cpus=2\ncongestion=auto\n");
	scratch_write(root, "/var/lib/wp-panel-nettune/.keep", "");
	snprintf(path, sizeof(path), "%s%s", root, STATE_RENDERED);
	snprintf(target, sizeof(target), "%s/elsewhere/rendered", root);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(rendered_read(root, &cpus, &choice), -ELOOP);
	assert_int_equal(unlink(path), 0);

	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite("cpus=2\0\ncongestion=auto\n", 1, 24, f), 24);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rendered_read(root, &cpus, &choice), -EBADMSG);
	assert_int_equal(cpus, 99);
	scratch_free(root);

	root = scratch_new();
	scratch_write(root, "/elsewhere/rendered", "cpus=2\ncongestion=auto\n");
	scratch_write(root, "/var/.keep", "");
	snprintf(path, sizeof(path), "%s/var/lib", root);
	snprintf(target, sizeof(target), "%s/elsewhere", root);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(rendered_read(root, &cpus, &choice), -ELOOP);
	assert_int_equal(rendered_write(root, 2, CONGESTION_AUTO), -ELOOP);
	scratch_free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
