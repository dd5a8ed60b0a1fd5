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
#include "journal.h"

#define GOOD                                                                               \
	"# wp-panel-nettune journal 1\n"                                                   \
	"# key\tKEY\tORIGINAL\tAPPLIED[\tPENDING]\n"                                       \
	"# file\tPATH\tMODE\tUID\tGID\tSAVED\n"                                            \
	"# set\tKEY\tVALUE\n"                                                              \
	"# added\tPATH\tSAVED\tnew-dir|dir-existed\n"                                      \
	"# windows\tIFACE\tCWND\tRWND\n"                                                   \
	"key\tnet.core.somaxconn\t4096\t65535\n"                                           \
	"key\tnet.ipv4.tcp_rmem\t4096 131072 6291456\t4096 131072 16777216\n"              \
	"file\t/etc/sysctl.d/99-wp-panel.conf\t0640\t0\t4\ttaken-over/99-wp-panel.conf\n"  \
	"set\tnet.core.rmem_default\t262144\n"                                             \
	"set\tnet.ipv4.tcp_mem\t786432 1048576 1572864\n"                                  \
	"added\t/etc/systemd/network/10-netplan-eth0.network.d/50-wp-panel-nettune.conf\t" \
	"added/10-netplan-eth0.conf\tnew-dir\n"                                            \
	"added\t/etc/network/if-up.d/wp-panel-nettune\tadded/if-up.d\tdir-existed\n"       \
	"windows\teth0\t32\t32\n"                                                          \
	"# end\n"

static bool exists(const char *root, const char *path)
{
	char full[PATH_MAX_LEN];

	snprintf(full, sizeof(full), "%s%s", root, path);
	return access(full, F_OK) == 0;
}

static void test_round_trip(void **state _unused_)
{
	struct state s = { 0 };
	char *root = scratch_new(), dir[PATH_MAX_LEN];
	const char *path;
	unsigned line;

	assert_int_equal(state_load(root, &s, &path, &line), 0);
	assert_true(state_empty(&s));
	assert_int_equal(state_add(&s, "net.core.somaxconn", "4096", "65535"), 0);
	assert_int_equal(state_add(&s, "net.ipv4.tcp_rmem", "4096 131072 6291456",
				   "4096 131072 16777216"),
			 0);
	assert_int_equal(state_add(&s, "net.core.rmem_max", "", "1"), -EINVAL);
	assert_int_equal(state_add_file(&s, "/etc/sysctl.d/99-wp-panel.conf",
					"taken-over/99-wp-panel.conf", 0640, 0, 4),
			 0);
	assert_int_equal(state_add_set(&s, 0, "net.core.rmem_default", "262144"), 0);
	assert_int_equal(state_add_set(&s, 0, "net.ipv4.tcp_mem",
				       "786432 1048576 1572864"),
			 0);
	assert_int_equal(state_add_set(&s, 1, "net.core.wmem_default", "1"), -E2BIG);
	assert_int_equal(state_add_set(&s, 0, "net.core.wmem_default", "a\tb"), -EINVAL);
	assert_int_equal(
		state_add_added(
			&s,
			"/etc/systemd/network/10-netplan-eth0.network.d/50-wp-panel-nettune.conf",
			"added/10-netplan-eth0.conf", true),
		0);
	assert_int_equal(state_add_added(&s, STATE_IFUPDOWN_HOOK, "added/if-up.d", false),
			 0);
	assert_int_equal(state_add_windows(&s, "eth0", 32, 32), 0);
	assert_int_equal(state_add_windows(&s, "eth0", 32, 32), -EEXIST);
	assert_int_equal(state_add_windows(&s, "eth 1", 32, 32), -EINVAL);
	assert_int_equal(state_add_windows(&s, "a-name-too-long-", 32, 32), -EINVAL);
	assert_int_equal(state_add_windows(&s, "eth1", 0, 32), -EINVAL);
	assert_int_equal(state_save(root, &s), 0);
	assert_string_equal(scratch_read(root, STATE_JOURNAL), GOOD);
	state_free(&s);

	assert_int_equal(state_load(root, &s, &path, &line), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.n_files, 1);
	assert_int_equal(s.n_sets, 2);
	assert_int_equal(s.legacy, 0);
	assert_string_equal(state_find(&s, "net.ipv4.tcp_rmem")->original,
			    "4096 131072 6291456");
	assert_int_equal(s.files[0].mode, 0640);
	assert_int_equal(s.files[0].gid, 4);
	assert_string_equal(s.sets[1].value, "786432 1048576 1572864");
	assert_int_equal(s.n_added, 2);
	assert_true(s.added[0].new_dir);
	assert_false(s.added[1].new_dir);
	assert_string_equal(s.added[0].saved, "added/10-netplan-eth0.conf");
	state_drop_added(&s, 0);
	assert_int_equal(s.n_added, 1);
	assert_int_equal(s.n_windows, 1);
	assert_non_null(state_find_windows(&s, "eth0"));
	state_drop_windows(&s, 0);
	assert_int_equal(s.n_windows, 0);
	state_drop(&s, 0);
	assert_null(state_find(&s, "net.core.somaxconn"));
	state_drop_file(&s, 0);
	assert_int_equal(s.n_sets, 0);
	assert_false(state_empty(&s));
	state_free(&s);

	assert_int_equal(state_remove_file(root), 0);
	assert_null(scratch_read(root, STATE_JOURNAL));
	snprintf(dir, sizeof(dir), "%s%s", root, STATE_DIR);
	assert_int_equal(access(dir, F_OK), -1);
	assert_int_equal(state_remove_file(root), 0);
	scratch_free(root);
}

/* Only a file in /etc/sysctl.d, from a copy in taken-over/, with names a
 * shell loop can write without quoting trouble; once each. */
static void test_file_steps(void **state _unused_)
{
	static const struct {
		const char *path, *saved;
		unsigned mode;
	} refused[] = {
		{ "/etc/99-wp-panel.conf", "taken-over/x", 0644 },
		{ "/etc/sysctl.d/../passwd", "taken-over/x", 0644 },
		{ "/etc/sysctl.d/.hidden.conf", "taken-over/x", 0644 },
		{ "/etc/sysctl.d/a b.conf", "taken-over/x", 0644 },
		{ "/etc/sysctl.d/", "taken-over/x", 0644 },
		{ "/etc/sysctl.d/x.conf", "x", 0644 },
		{ "/etc/sysctl.d/x.conf", "taken-over/../../state", 0644 },
		{ "/etc/sysctl.d/x.conf", "taken-over/", 0644 },
		{ "/etc/sysctl.d/x.conf", "taken-over/x", 010000 },
	};
	struct state s = { 0 };

	for (size_t i = 0; i < ELEMENTSOF(refused); i++)
		if (state_add_file(&s, refused[i].path, refused[i].saved, refused[i].mode,
				   0, 0) != -EINVAL)
			fail_msg("case %zu accepted", i);
	assert_int_equal(state_add_file(&s, "/etc/sysctl.d/x.conf", "taken-over/x", 0644,
					0, 0),
			 0);
	assert_int_equal(state_add_file(&s, "/etc/sysctl.d/x.conf", "taken-over/y", 0644,
					0, 0),
			 -EEXIST);
	assert_non_null(state_find_file(&s, "/etc/sysctl.d/x.conf"));
	state_free(&s);
}

/* Only the package's drop-in beside a .network file, from a copy in added/,
 * with names a shell loop can remove without quoting trouble; once each. */
static void test_added_steps(void **state _unused_)
{
	static const struct {
		const char *path, *saved;
	} refused[] = {
		{ "/etc/passwd", "added/x.conf" },
		{ "/etc/systemd/network/../../passwd.network.d/50-wp-panel-nettune.conf",
		  "added/x.conf" },
		{ "/etc/systemd/network/.x.network.d/50-wp-panel-nettune.conf",
		  "added/x.conf" },
		{ "/etc/systemd/network/a b.network.d/50-wp-panel-nettune.conf",
		  "added/x.conf" },
		{ "/etc/systemd/network/.network.d/50-wp-panel-nettune.conf",
		  "added/x.conf" },
		{ "/etc/systemd/network/x.network.d/other.conf", "added/x.conf" },
		{ "/etc/systemd/network/x/y.network.d/50-wp-panel-nettune.conf",
		  "added/x.conf" },
		{ "/etc/systemd/network/x.network.d/50-wp-panel-nettune.conf", "x.conf" },
		{ "/etc/systemd/network/x.network.d/50-wp-panel-nettune.conf",
		  "added/../journal" },
		{ "/etc/systemd/network/x.network.d/50-wp-panel-nettune.conf", "added/" },
		{ "/etc/network/if-up.d/other", "added/if-up.d" },
		{ "/etc/network/if-up.d/wp-panel-nettune", "if-up.d" },
		{ "/etc/dhcp/dhclient-exit-hooks.d/wp-panel-nettune", "added/../x" },
		{ "/etc/NetworkManager/dispatcher.d/other", "added/nm-dispatcher" },
		{ "/etc/NetworkManager/dispatcher.d/50-wp-panel-nettune",
		  "nm-dispatcher" },
	};
	const char *good = "/etc/systemd/network/x.network.d/50-wp-panel-nettune.conf";
	struct state s = { 0 };

	for (size_t i = 0; i < ELEMENTSOF(refused); i++)
		if (state_add_added(&s, refused[i].path, refused[i].saved, false) !=
		    -EINVAL)
			fail_msg("case %zu accepted", i);
	assert_true(state_empty(&s));
	assert_int_equal(state_add_added(&s, good, "added/x.conf", false), 0);
	assert_false(state_empty(&s));
	assert_int_equal(state_add_added(&s, good, "added/y.conf", true), -EEXIST);
	assert_non_null(state_find_added(&s, good));
	assert_int_equal(state_add_added(&s, STATE_NM_DISPATCHER, "added/nm-dispatcher",
					 false),
			 0);
	assert_non_null(state_find_added(&s, STATE_NM_DISPATCHER));
	state_free(&s);
}

/* The records of 0.1.0 (state 1) and of the builds after it (state 2, with
 * the takeover record of version 1 or 2) read as one state, marked as from
 * them; the next save writes the journal and only then removes them. */
static void test_legacy(void **state _unused_)
{
	char *root = scratch_new();
	struct state s = { 0 };
	struct record *rec;
	const char *path;
	unsigned line;

	scratch_write(root, STATE_LEGACY_RECORD,
		      "# wp-panel-nettune state 1\n# key\toriginal\tapplied\n"
		      "net.core.somaxconn\t4096\t65535\n# end\n");
	assert_int_equal(state_load(root, &s, &path, &line), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.legacy, STATE_FROM_LEGACY_RECORD);
	rec = state_find(&s, "net.core.somaxconn");
	assert_string_equal(rec->pending, "");
	assert_true(record_is_ours(rec, "65535"));
	assert_false(record_is_ours(rec, "1234"));
	snprintf(rec->pending, sizeof(rec->pending), "1234");
	assert_true(record_is_ours(rec, "1234"));
	assert_int_equal(state_save(root, &s), 0);
	assert_int_equal(s.legacy, 0);
	assert_false(exists(root, STATE_LEGACY_RECORD));
	assert_string_equal(scratch_read(root, STATE_JOURNAL),
			    "# wp-panel-nettune journal 1\n"
			    "# key\tKEY\tORIGINAL\tAPPLIED[\tPENDING]\n"
			    "# file\tPATH\tMODE\tUID\tGID\tSAVED\n"
			    "# set\tKEY\tVALUE\n"
			    "# added\tPATH\tSAVED\tnew-dir|dir-existed\n"
			    "# windows\tIFACE\tCWND\tRWND\n"
			    "key\tnet.core.somaxconn\t4096\t65535\t1234\n# end\n");
	state_free(&s);
	scratch_free(root);

	/* Version 2 of both, and a takeover record of version 1, whose file
	 * was root's: the installer runs as root. */
	root = scratch_new();
	scratch_write(root, STATE_LEGACY_RECORD,
		      "# wp-panel-nettune state 2\n"
		      "net.ipv4.tcp_fin_timeout\t60\t15\t20\n# end\n");
	scratch_write(root, STATE_LEGACY_TAKEOVER,
		      "# wp-panel-nettune taken-over 2\n# path\tmode\tvariant\tuid\tgid\n"
		      "/etc/sysctl.d/99-wp-panel.conf\t0600\t99-wp-panel.conf.1cpu\t12\t34\n"
		      "# end\n");
	assert_int_equal(state_load(root, &s, &path, &line), 0);
	assert_int_equal(s.legacy, STATE_FROM_LEGACY_RECORD | STATE_FROM_LEGACY_TAKEOVER);
	assert_string_equal(state_find(&s, "net.ipv4.tcp_fin_timeout")->pending, "20");
	assert_int_equal(s.n_files, 1);
	assert_string_equal(s.files[0].saved, "taken-over/99-wp-panel.conf");
	assert_int_equal(s.files[0].mode, 0600);
	assert_int_equal(s.files[0].uid, 12);
	assert_int_equal(s.files[0].gid, 34);
	state_free(&s);
	scratch_write(root, STATE_LEGACY_TAKEOVER,
		      "# wp-panel-nettune taken-over 1\n"
		      "/etc/sysctl.d/99-wp-panel.conf\t0644\t99-wp-panel.conf\n# end\n");
	assert_int_equal(state_load(root, &s, &path, &line), 0);
	assert_int_equal(s.files[0].uid, 0);
	assert_int_equal(s.files[0].mode, 0644);
	assert_int_equal(state_save(root, &s), 0);
	assert_false(exists(root, STATE_LEGACY_RECORD));
	assert_false(exists(root, STATE_LEGACY_TAKEOVER));
	state_free(&s);

	/* A journal counts, whatever an interrupted conversion left beside it. */
	scratch_write(root, STATE_LEGACY_RECORD,
		      "# wp-panel-nettune state 1\nnet.core.somaxconn\t1\t2\n# end\n");
	assert_int_equal(state_load(root, &s, &path, &line), 0);
	assert_int_equal(s.legacy, 0);
	assert_null(state_find(&s, "net.core.somaxconn"));
	assert_int_equal(state_save(root, &s), 0);
	assert_false(exists(root, STATE_LEGACY_RECORD));
	state_free(&s);
	scratch_free(root);
}

/* A damaged journal, or record of an earlier version, is refused whole, with
 * its name and the line that shows the damage, and stays as it was for the
 * admin to look at. */
static void test_corrupt(void **state _unused_)
{
#define J "# wp-panel-nettune journal 1\n"
#define F "file\t/etc/sysctl.d/x.conf\t0644\t0\t0\ttaken-over/x.conf\n"
	static const struct {
		const char *file, *content;
		unsigned line;
	} cases[] = {
		{ STATE_JOURNAL, "", 0 },
		{ STATE_JOURNAL, J, 0 },
		{ STATE_JOURNAL, J "key\tnet.core.somaxconn\t4096\t65535\n", 0 },
		{ STATE_JOURNAL, J "key\tnet.core.somaxconn\t40", 2 },
		{ STATE_JOURNAL, "# wp-panel-nettune journal 2\n# end\n", 1 },
		{ STATE_JOURNAL, "# wp-panel-nettune state 2\n# end\n", 1 },
		{ STATE_JOURNAL, "garbage\n# end\n", 1 },
		{ STATE_JOURNAL, J "key net.core.somaxconn 4096 65535\n# end\n", 2 },
		{ STATE_JOURNAL, J "net.core.somaxconn\t4096\t65535\n# end\n", 2 },
		{ STATE_JOURNAL, J "key\tnet.core.somaxconn\t4096\n# end\n", 2 },
		{ STATE_JOURNAL, J "key\tnet.core.somaxconn\t1\t2\t3\t4\n# end\n", 2 },
		{ STATE_JOURNAL, J "key\tnet.core.somaxconn\t1\t2\t\n# end\n", 2 },
		{ STATE_JOURNAL, J "key\tnet/../../x\t1\t2\n# end\n", 2 },
		{ STATE_JOURNAL, J "key\ta.b\t1\t2\nkey\ta.b\t1\t2\n# end\n", 3 },
		{ STATE_JOURNAL, J "# end\nkey\ta.b\t1\t2\n", 3 },
		{ STATE_JOURNAL, J "key\ta.b\t\t2\n# end\n", 2 },
		{ STATE_JOURNAL, J "set\ta.b\t1\n# end\n", 2 },
		{ STATE_JOURNAL, J F F "# end\n", 3 },
		{ STATE_JOURNAL, J F "set\ta.b\n# end\n", 3 },
		{ STATE_JOURNAL, J F "set\ta/b\t1\n# end\n", 3 },
		{ STATE_JOURNAL, J "file\t/etc/passwd\t0644\t0\t0\ttaken-over/x\n# end\n",
		  2 },
		{ STATE_JOURNAL,
		  J "file\t/etc/sysctl.d/x.conf\t0644\t0\t0\ttaken-over/../x\n# end\n",
		  2 },
		{ STATE_JOURNAL,
		  J "file\t/etc/sysctl.d/x.conf\t644\t0\t0\ttaken-over/x\n# end\n", 2 },
		{ STATE_JOURNAL,
		  J "file\t/etc/sysctl.d/x.conf\t0644\troot\t0\ttaken-over/x\n# end\n",
		  2 },
		{ STATE_JOURNAL,
		  J
		  "file\t/etc/sysctl.d/x.conf\t0644\t0\t99999999999\ttaken-over/x\n# end\n",
		  2 },
		{ STATE_LEGACY_RECORD, "# wp-panel-nettune state 3\n# end\n", 1 },
		{ STATE_LEGACY_RECORD,
		  "# wp-panel-nettune state 1\nnet.core.somaxconn 4096 65535\n# end\n",
		  2 },
		{ STATE_LEGACY_RECORD,
		  "# wp-panel-nettune state 1\na.b\t1\t2\na.b\t1\t2\n# end\n", 3 },
		{ STATE_LEGACY_TAKEOVER, "# wp-panel-nettune taken-over 3\n# end\n", 1 },
		{ STATE_LEGACY_TAKEOVER,
		  "# wp-panel-nettune taken-over 2\n/etc/passwd\t0644\tv\t0\t0\n# end\n",
		  2 },
		{ STATE_LEGACY_TAKEOVER,
		  "# wp-panel-nettune taken-over 2\n/etc/sysctl.d/x.conf\t0644\tv\t0\n# end\n",
		  2 },
	};
#undef J
#undef F

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char *root = scratch_new();
		struct state s = { 0 };
		const char *path = NULL;
		unsigned line = 999;

		scratch_write(root, cases[i].file, cases[i].content);
		if (state_load(root, &s, &path, &line) != -EBADMSG)
			fail_msg("case %zu accepted", i);
		assert_string_equal(path, cases[i].file);
		assert_int_equal(line, cases[i].line);
		assert_true(state_empty(&s));
		assert_string_equal(scratch_read(root, cases[i].file), cases[i].content);
		scratch_free(root);
	}
}

/* A journal larger than any the helper writes is refused before it is read,
 * and so is a line longer than a journal line can be. */
static void test_bounds(void **state _unused_)
{
	char *root = scratch_new(), path[PATH_MAX_LEN], *line;
	struct state s = { 0 };
	const char *name;
	unsigned line_no = 999;
	FILE *f;

	scratch_write(root, STATE_JOURNAL, GOOD);
	snprintf(path, sizeof(path), "%s%s", root, STATE_JOURNAL);
	assert_int_equal(truncate(path, (off_t)1 << 30), 0);
	assert_int_equal(state_load(root, &s, &name, &line_no), -EFBIG);
	assert_string_equal(name, STATE_JOURNAL);
	assert_true(state_empty(&s));

	line = calloc(1, STATE_LINE_MAX + 64);
	assert_non_null(line);
	strcpy(line, "# wp-panel-nettune journal 1\nkey\ta.b\t");
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
		cmocka_unit_test(test_round_trip),     cmocka_unit_test(test_file_steps),
		cmocka_unit_test(test_added_steps),    cmocka_unit_test(test_legacy),
		cmocka_unit_test(test_corrupt),	       cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_symlinked_dirs),
	};

	return cmocka_run_group_tests_name("state", tests, NULL, NULL);
}
