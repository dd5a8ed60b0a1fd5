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
#include "state.h"

#define GOOD                                                             \
	"# wp-panel-nettune state 2\n"                                   \
	"# key\toriginal\tapplied\tpending (while being written)\n"      \
	"net.core.somaxconn\t4096\t65535\n"                              \
	"net.ipv4.tcp_rmem\t4096 131072 6291456\t4096 131072 16777216\n" \
	"# end\n"

static void test_round_trip(void **state _unused_)
{
	struct state s = { 0 };
	char *root = scratch_new(), dir[PATH_MAX_LEN];
	unsigned line;

	assert_int_equal(state_load(root, &s, &line), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(state_add(&s, "net.core.somaxconn", "4096", "65535"), 0);
	assert_int_equal(state_add(&s, "net.ipv4.tcp_rmem", "4096 131072 6291456",
				   "4096 131072 16777216"),
			 0);
	assert_int_equal(state_add(&s, "net.core.rmem_max", "", "1"), -EINVAL);
	assert_int_equal(state_save(root, &s), 0);
	assert_string_equal(scratch_read(root, STATE_FILE), GOOD);
	state_free(&s);

	assert_int_equal(state_load(root, &s, &line), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(state_find(&s, "net.ipv4.tcp_rmem")->original,
			    "4096 131072 6291456");
	state_drop(&s, 0);
	assert_null(state_find(&s, "net.core.somaxconn"));
	state_free(&s);

	assert_int_equal(state_remove_file(root), 0);
	assert_null(scratch_read(root, STATE_FILE));
	snprintf(dir, sizeof(dir), "%s%s", root, STATE_DIR);
	assert_int_equal(access(dir, F_OK), -1);
	assert_int_equal(state_remove_file(root), 0);
	scratch_free(root);
}

/* A record of 0.1.0 reads as before; a pending value is written and read
 * back, and makes the value being written count as the helper's own. */
static void test_versions_and_pending(void **state _unused_)
{
	char *root = scratch_new();
	struct state s = { 0 };
	struct record *rec;
	unsigned line;

	scratch_write(root, STATE_FILE,
		      "# wp-panel-nettune state 1\n# key\toriginal\tapplied\n"
		      "net.core.somaxconn\t4096\t65535\n# end\n");
	assert_int_equal(state_load(root, &s, &line), 0);
	assert_int_equal(s.n, 1);
	rec = state_find(&s, "net.core.somaxconn");
	assert_string_equal(rec->pending, "");
	assert_true(record_is_ours(rec, "65535"));
	assert_false(record_is_ours(rec, "1234"));
	snprintf(rec->pending, sizeof(rec->pending), "1234");
	assert_true(record_is_ours(rec, "1234"));
	assert_int_equal(state_save(root, &s), 0);
	assert_string_equal(scratch_read(root, STATE_FILE),
			    "# wp-panel-nettune state 2\n"
			    "# key\toriginal\tapplied\tpending (while being written)\n"
			    "net.core.somaxconn\t4096\t65535\t1234\n# end\n");
	state_free(&s);
	assert_int_equal(state_load(root, &s, &line), 0);
	assert_string_equal(state_find(&s, "net.core.somaxconn")->pending, "1234");
	state_free(&s);
	scratch_free(root);
}

/* A damaged record is refused whole, with the line that shows the damage, and
 * the file stays as it was for the admin to look at. */
static void test_corrupt(void **state _unused_)
{
	static const struct {
		const char *content;
		unsigned line;
	} cases[] = {
		{ "", 0 },
		{ "# wp-panel-nettune state 1\n", 0 },
		{ "# wp-panel-nettune state 1\nnet.core.somaxconn\t4096\t65535\n", 0 },
		{ "# wp-panel-nettune state 1\nnet.core.somaxconn\t40", 2 },
		{ "# wp-panel-nettune state 3\n# end\n", 1 },
		{ "garbage\n# end\n", 1 },
		{ "# wp-panel-nettune state 1\nnet.core.somaxconn 4096 65535\n# end\n",
		  2 },
		{ "# wp-panel-nettune state 1\nnet.core.somaxconn\t4096\n# end\n", 2 },
		{ "# wp-panel-nettune state 2\nnet.core.somaxconn\t1\t2\t3\t4\n# end\n",
		  2 },
		{ "# wp-panel-nettune state 2\nnet.core.somaxconn\t1\t2\t\n# end\n", 2 },
		{ "# wp-panel-nettune state 1\nnet/../../x\t1\t2\n# end\n", 2 },
		{ "# wp-panel-nettune state 1\na.b\t1\t2\na.b\t1\t2\n# end\n", 3 },
		{ "# wp-panel-nettune state 1\n# end\na.b\t1\t2\n", 3 },
		{ "# wp-panel-nettune state 1\na.b\t\t2\n# end\n", 2 },
		{ "# wp-panel-nettune state 1\na.b\t1\t\n# end\n", 2 },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char *root = scratch_new();
		struct state s = { 0 };
		unsigned line = 999;

		scratch_write(root, STATE_FILE, cases[i].content);
		if (state_load(root, &s, &line) != -EBADMSG)
			fail_msg("case %zu accepted", i);
		assert_int_equal(line, cases[i].line);
		assert_int_equal(s.n, 0);
		assert_string_equal(scratch_read(root, STATE_FILE), cases[i].content);
		scratch_free(root);
	}
}

/* A record larger than any the helper writes is refused before it is read,
 * and so is a line longer than a record line can be. */
static void test_bounds(void **state _unused_)
{
	char *root = scratch_new(), path[PATH_MAX_LEN], *line;
	struct state s = { 0 };
	unsigned line_no = 999;
	FILE *f;

	scratch_write(root, STATE_FILE, GOOD);
	snprintf(path, sizeof(path), "%s%s", root, STATE_FILE);
	assert_int_equal(truncate(path, (off_t)1 << 30), 0);
	assert_int_equal(state_load(root, &s, &line_no), -EFBIG);
	assert_int_equal(s.n, 0);

	line = calloc(1, STATE_LINE_MAX + 64);
	assert_non_null(line);
	strcpy(line, "# wp-panel-nettune state 2\na.b\t");
	memset(line + strlen(line), '1', STATE_LINE_MAX);
	strcat(line, "\n# end\n");
	f = fmemopen(line, strlen(line), "r");
	assert_non_null(f);
	assert_int_equal(state_load_stream(f, &s, &line_no), -EBADMSG);
	assert_int_equal(line_no, 2);
	fclose(f);
	free(line);
	scratch_free(root);
}

/* A symlink at any directory on the way to the record is refused, and
 * nothing is written where it points. */
static void test_symlinked_dirs(void **state _unused_)
{
	static const char *const links[] = { "/var", "/var/lib", STATE_DIR };

	for (size_t i = 0; i < ELEMENTSOF(links); i++) {
		char *root = scratch_new(), *target = scratch_new();
		char path[PATH_MAX_LEN], parent[PATH_MAX_LEN];
		struct state s = { 0 };
		int fd;

		snprintf(parent, sizeof(parent), "%s%s", root, links[i]);
		*strrchr(parent, '/') = '\0';
		scratch_write(parent, "/x", "");
		snprintf(path, sizeof(path), "%s%s", root, links[i]);
		assert_int_equal(symlink(target, path), 0);
		assert_int_equal(state_lock(root, 1, &fd), -ELOOP);
		assert_int_equal(state_save(root, &s), -ELOOP);
		snprintf(path, sizeof(path), "rmdir %s 2>/dev/null", target);
		assert_int_equal(system(path), 0);
		scratch_free(root);
		free(target);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_versions_and_pending),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_symlinked_dirs),
	};

	return cmocka_run_group_tests_name("state", tests, NULL, NULL);
}
