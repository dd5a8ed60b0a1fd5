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
#include <sys/statfs.h>
#include <unistd.h>

#include "helpers.h"
#include "seal.h"

/* POSIX cksum's answers, as "printf ... | cksum" prints them. */
static void test_cksum(void **state _unused_)
{
	static const struct {
		const char *data;
		uint32_t crc;
	} cases[] = {
		{ "", 4294967295u },
		{ "hello\n", 3015617425u },
		{ "# wp-panel-nettune journal 1\n# end\n", 374126298u },
	};
	char big[300];

	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		assert_int_equal(seal_cksum(cases[i].data, strlen(cases[i].data)),
				 cases[i].crc);
	/* A length of more than one byte goes in least significant byte first. */
	memset(big, 'x', sizeof(big));
	assert_int_equal(seal_cksum(big, sizeof(big)), 3786917833u);
}

/* The root's file system as coreutils prints f_fsid, then its inode. */
static void test_root_id(void **state _unused_)
{
	char *root = scratch_new();
	char id[64], want[64];
	unsigned words[2];
	struct statfs sfs;
	struct stat st;

	assert_int_equal(seal_root_id(root, id, sizeof(id)), 0);
	assert_int_equal(statfs(root, &sfs), 0);
	assert_int_equal(stat(root, &st), 0);
	memcpy(words, &sfs.f_fsid, sizeof(words));
	snprintf(want, sizeof(want), "%llx:%llu",
		 (unsigned long long)words[0] << 32 | words[1],
		 (unsigned long long)st.st_ino);
	assert_string_equal(id, want);
	assert_int_equal(seal_root_id(root, id, 8), -ENAMETOOLONG);
	assert_int_equal(seal_root_id("/nonexistent-root", id, sizeof(id)), -ENOENT);
	scratch_free(root);
}

/* Written whole with its header, replaced whole, and removed. */
static void test_write_remove(void **state _unused_)
{
	char *root = scratch_new();

	assert_int_equal(seal_remove(root), 0);
	assert_int_equal(seal_write(root, "root 1:2\nkernel ok\njournal none\n"), 0);
	assert_string_equal(scratch_read(root, STATE_SEAL),
			    SEAL_HEADER "\nroot 1:2\nkernel ok\njournal none\n");
	assert_int_equal(seal_write(root, "root 1:2\nkernel ok\njournal refused\n"), 0);
	assert_string_equal(scratch_read(root, STATE_SEAL),
			    SEAL_HEADER "\nroot 1:2\nkernel ok\njournal refused\n");
	assert_int_equal(seal_remove(root), 0);
	assert_null(scratch_read(root, STATE_SEAL));
	scratch_free(root);
}

/* A body past SEAL_SIZE_MAX is refused, and the seal there stays. */
static void test_too_large(void **state _unused_)
{
	char *root = scratch_new();
	char *body = malloc(SEAL_SIZE_MAX + 1);

	assert_non_null(body);
	memset(body, 'x', SEAL_SIZE_MAX);
	body[SEAL_SIZE_MAX] = '\0';
	assert_int_equal(seal_write(root, "root 1:2\nkernel ok\njournal none\n"), 0);
	assert_int_equal(seal_write(root, body), -EFBIG);
	assert_string_equal(scratch_read(root, STATE_SEAL),
			    SEAL_HEADER "\nroot 1:2\nkernel ok\njournal none\n");
	free(body);
	scratch_free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cksum),
		cmocka_unit_test(test_root_id),
		cmocka_unit_test(test_write_remove),
		cmocka_unit_test(test_too_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
