/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "util.h"

static void test_normalize_space(void **state _unused_)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "4096\t131072\t6291456", "4096 131072 6291456" },
		{ "  a  b  ", "a b" },
		{ "\t\n", "" },
		{ "", "" },
		{ "reno cubic bbr", "reno cubic bbr" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char buf[64];

		strcpy(buf, cases[i].in);
		normalize_space(buf);
		assert_string_equal(buf, cases[i].out);
	}
}

static void test_parse_u64(void **state _unused_)
{
	static const struct {
		const char *in;
		int r;
		uint64_t v;
	} cases[] = {
		{ "0", 0, 0 },
		{ "65535", 0, 65535 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "-1", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "1 ", -EINVAL, 0 },
		{ "12k", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		uint64_t v = 42;

		assert_int_equal(parse_u64(cases[i].in, &v), cases[i].r);
		assert_true(v == (cases[i].r == 0 ? cases[i].v : 42));
	}
}

static void test_read_line(void **state _unused_)
{
	char *dir = scratch_new(), path[256], buf[8];

	scratch_write(dir, "/a", "first\nsecond\n");
	scratch_write(dir, "/long", "0123456789\n");
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_int_equal(read_line(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "first");
	snprintf(path, sizeof(path), "%s/long", dir);
	assert_int_equal(read_line(path, buf, sizeof(buf)), -EFBIG);
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(read_line(path, buf, sizeof(buf)), -ENOENT);
	scratch_free(dir);
}

/* What another library opens itself is looked at first; a stream read to
 * its end must be small. Neither blocks on a FIFO. */
static void test_regular_bounded(void **state _unused_)
{
	char *dir = scratch_new(), path[256];
	FILE *f;

	scratch_write(dir, "/small", "x = 1\n");
	snprintf(path, sizeof(path), "%s/small", dir);
	assert_int_equal(stat_regular(path, 6), 0);
	assert_int_equal(stat_regular(path, 5), -EFBIG);
	assert_int_equal(fopen_root(dir, "/small", &f), 0);
	fclose(f);
	assert_int_equal(truncate(path, (off_t)READ_SIZE_MAX + 1), 0);
	assert_int_equal(fopen_root(dir, "/small", &f), -EFBIG);

	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(stat_regular(path, 1024), -EBADFD);
	assert_int_equal(fopen_root(dir, "/fifo", &f), -EBADFD);
	assert_string_equal(file_strerror(-EBADFD), "not a regular file");
	assert_int_equal(stat_regular("/dev/zero", 1024), -EBADFD);
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(stat_regular(path, 1024), -ENOENT);
	scratch_free(dir);
}

static void test_write_file_atomic(void **state _unused_)
{
	char *dir = scratch_new(), path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/f", dir);
	scratch_write(dir, "/f", "old contents\n");
	assert_int_equal(write_file_atomic(path, "new\n", 4, 0640), 0);
	assert_string_equal(scratch_read(dir, "/f"), "new\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);

	/* A directory that does not exist: the old file elsewhere is untouched
	 * and no temporary file is left behind. */
	snprintf(path, sizeof(path), "%s/no/f", dir);
	assert_int_equal(write_file_atomic(path, "x", 1, 0644), -ENOENT);
	assert_string_equal(scratch_read(dir, "/f"), "new\n");
	scratch_free(dir);
}

static void test_root_path(void **state _unused_)
{
	char buf[16];

	assert_int_equal(root_path(buf, sizeof(buf), "", "/proc"), 0);
	assert_string_equal(buf, "/proc");
	assert_int_equal(root_path(buf, sizeof(buf), "/r", "/proc"), 0);
	assert_string_equal(buf, "/r/proc");
	assert_int_equal(root_path(buf, sizeof(buf), "/a/very/long/root", "/proc"),
			 -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize_space),
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_read_line),
		cmocka_unit_test(test_regular_bounded),
		cmocka_unit_test(test_write_file_atomic),
		cmocka_unit_test(test_root_path),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
