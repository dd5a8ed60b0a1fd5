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

#define NETWORKD_DROPIN \
	"/etc/systemd/network/10-netplan-eth0.network.d/50-wp-panel-nettune.conf"

static bool exists(const char *root, const char *path)
{
	char full[PATH_MAX_LEN];

	snprintf(full, sizeof(full), "%s%s", root, path);
	return access(full, F_OK) == 0;
}

/* The journal's bytes for s, as state_save writes them. */
static char *written(const struct state *s)
{
	char *data = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&data, &size);

	assert_non_null(f);
	assert_int_equal(state_write_stream(f, s), 0);
	assert_int_equal(fclose(f), 0);
	return data;
}

static void assert_written(const struct state *s, const char *want)
{
	char *got = written(s);

	assert_string_equal(got, want);
	free(got);
}

static void load_string(const char *text, struct state *ret)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	unsigned line = 999;

	assert_non_null(f);
	assert_int_equal(state_load_stream(f, ret, &line), 0);
	fclose(f);
}

static void add_key(struct state *s, const char *key, const char *original,
		    const char *applied)
{
	struct step step;

	assert_int_equal(step_key(&step, key, original, applied), 0);
	assert_int_equal(state_add(s, &step), 0);
}

static void add_file(struct state *s, const char *path, const char *saved, unsigned mode,
		     unsigned uid, unsigned gid)
{
	struct step step;

	assert_int_equal(step_file(&step, path, saved, mode, uid, gid), 0);
	assert_int_equal(state_add(s, &step), 0);
}

static void add_set(struct state *s, const char *file, const char *key, const char *value)
{
	struct step step;

	assert_int_equal(step_set(&step, file, key, value), 0);
	assert_int_equal(state_add(s, &step), 0);
}

static void add_added(struct state *s, const char *path, const char *saved, bool new_dir)
{
	struct step step;

	assert_int_equal(step_added(&step, path, saved, new_dir), 0);
	assert_int_equal(state_add(s, &step), 0);
}

static void add_windows(struct state *s, const char *ifname, unsigned cwnd, unsigned rwnd)
{
	struct step step;

	assert_int_equal(step_windows(&step, ifname, cwnd, rwnd), 0);
	assert_int_equal(state_add(s, &step), 0);
}

/* Every kind of step, saved and read back byte for byte. They are added out
 * of the journal's order, as apply, takeover and the upgrade add them: each
 * takes its place by kind, a set step after its file's, so that the bytes
 * are those of the journal's order whatever the order of the calls. */
static void test_round_trip(void **state _unused_)
{
	struct state s = { 0 };
	char *root = scratch_new(), dir[PATH_MAX_LEN], *again;
	struct step step, *found;
	const char *path;
	unsigned line;

	assert_int_equal(state_load(root, &s, &path, &line), 0);
	assert_true(state_empty(&s));
	add_windows(&s, "eth0", 32, 32);
	add_file(&s, "/etc/sysctl.d/99-wp-panel.conf", "taken-over/99-wp-panel.conf",
		 0640, 0, 4);
	add_key(&s, "net.core.somaxconn", "4096", "65535");
	add_added(&s, NETWORKD_DROPIN, "added/10-netplan-eth0.conf", true);
	add_set(&s, "/etc/sysctl.d/99-wp-panel.conf", "net.core.rmem_default", "262144");
	add_key(&s, "net.ipv4.tcp_rmem", "4096 131072 6291456", "4096 131072 16777216");
	add_added(&s, STATE_IFUPDOWN_HOOK, "added/if-up.d", false);
	add_set(&s, "/etc/sysctl.d/99-wp-panel.conf", "net.ipv4.tcp_mem",
		"786432 1048576 1572864");
	assert_int_equal(state_save(root, &s), 0);
	assert_string_equal(scratch_read(root, STATE_JOURNAL), GOOD);
	state_free(&s);

	assert_int_equal(state_load(root, &s, &path, &line), 0);
	assert_false(s.legacy);
	assert_int_equal(s.n, 8);
	assert_written(&s, GOOD);
	assert_int_equal(s.steps[0].kind, STEP_KEY);
	assert_string_equal(s.steps[1].key.original, "4096 131072 6291456");
	assert_string_equal(s.steps[1].key.pending, "");
	assert_int_equal(s.steps[2].kind, STEP_FILE);
	assert_int_equal(s.steps[2].file.mode, 0640);
	assert_int_equal(s.steps[2].file.uid, 0);
	assert_int_equal(s.steps[2].file.gid, 4);
	assert_string_equal(s.steps[2].file.saved, "taken-over/99-wp-panel.conf");
	assert_int_equal(s.steps[4].kind, STEP_SET);
	assert_string_equal(s.steps[4].set.value, "786432 1048576 1572864");
	assert_string_equal(s.steps[4].set.file, "/etc/sysctl.d/99-wp-panel.conf");
	assert_int_equal(s.steps[5].kind, STEP_ADDED);
	assert_true(s.steps[5].added.new_dir);
	assert_false(s.steps[6].added.new_dir);
	assert_string_equal(s.steps[6].added.saved, "added/if-up.d");
	assert_int_equal(s.steps[7].kind, STEP_WINDOWS);
	assert_int_equal(s.steps[7].windows.cwnd, 32);
	assert_int_equal(s.steps[7].windows.rwnd, 32);

	/* A pending value is a field of its own, and goes with the write. */
	found = state_find(&s, STEP_KEY, "net.core.somaxconn");
	assert_ptr_equal(found, &s.steps[0]);
	snprintf(found->key.pending, sizeof(found->key.pending), "1024");
	again = written(&s);
	assert_non_null(strstr(again, "\nkey\tnet.core.somaxconn\t4096\t65535\t1024\n"));
	state_free(&s);
	load_string(again, &s);
	assert_written(&s, again);
	assert_string_equal(s.steps[0].key.pending, "1024");
	free(again);

	/* Each kind is found by its own name, and only among its kind. */
	assert_ptr_equal(state_find(&s, STEP_FILE, "/etc/sysctl.d/99-wp-panel.conf"),
			 &s.steps[2]);
	assert_ptr_equal(state_find(&s, STEP_SET, "net.ipv4.tcp_mem"), &s.steps[4]);
	assert_ptr_equal(state_find(&s, STEP_ADDED, STATE_IFUPDOWN_HOOK), &s.steps[6]);
	assert_ptr_equal(state_find(&s, STEP_WINDOWS, "eth0"), &s.steps[7]);
	assert_ptr_equal(state_find(&s, STEP_ADDED, NULL), &s.steps[5]);
	assert_null(state_find(&s, STEP_KEY, "eth0"));
	assert_null(state_find(&s, STEP_WINDOWS, "eth1"));

	/* Named twice, or a set step without its file: refused, nothing added. */
	assert_int_equal(step_key(&step, "net.core.somaxconn", "1", "2"), 0);
	assert_int_equal(state_add(&s, &step), -EEXIST);
	assert_int_equal(step_file(&step, "/etc/sysctl.d/99-wp-panel.conf",
				   "taken-over/y", 0644, 0, 0),
			 0);
	assert_int_equal(state_add(&s, &step), -EEXIST);
	assert_int_equal(step_added(&step, STATE_IFUPDOWN_HOOK, "added/y", true), 0);
	assert_int_equal(state_add(&s, &step), -EEXIST);
	assert_int_equal(step_windows(&step, "eth0", 10, 10), 0);
	assert_int_equal(state_add(&s, &step), -EEXIST);
	assert_int_equal(step_set(&step, "/etc/sysctl.d/other.conf",
				  "net.core.wmem_default", "1"),
			 0);
	assert_int_equal(state_add(&s, &step), -ENOENT);
	assert_int_equal(s.n, 8);

	/* What purge's shell loop could not take is never a step. */
	assert_int_equal(step_key(&step, "net.core.rmem_max", "", "1"), -EINVAL);
	assert_int_equal(step_set(&step, "/etc/sysctl.d/99-wp-panel.conf",
				  "net.core.wmem_default", "a\tb"),
			 -EINVAL);
	assert_int_equal(step_windows(&step, "eth 1", 32, 32), -EINVAL);
	assert_int_equal(step_windows(&step, "a-name-too-long-", 32, 32), -EINVAL);
	assert_int_equal(step_windows(&step, "eth1", 0, 32), -EINVAL);
	state_free(&s);

	assert_int_equal(state_remove_file(root), 0);
	assert_null(scratch_read(root, STATE_JOURNAL));
	snprintf(dir, sizeof(dir), "%s%s", root, STATE_DIR);
	assert_int_equal(access(dir, F_OK), -1);
	assert_int_equal(state_remove_file(root), 0);
	scratch_free(root);
}

/* Dropping a step leaves the others in their order; a file step goes with
 * the keys set from it, and only those. A set step added for a file that is
 * not the last goes after that file's own. */
static void test_drop_keeps_order(void **state _unused_)
{
	static const char file_a[] = "/etc/sysctl.d/a.conf",
			  file_b[] = "/etc/sysctl.d/b.conf";
	struct state s = { 0 };

	load_string(GOOD, &s);
	state_drop(&s, state_find(&s, STEP_KEY, "net.core.somaxconn"));
	state_drop(&s, state_find(&s, STEP_ADDED, NETWORKD_DROPIN));
	assert_written(
		&s, JOURNAL_HEADER
		"key\tnet.ipv4.tcp_rmem\t4096 131072 6291456\t4096 131072 16777216\n"
		"file\t/etc/sysctl.d/99-wp-panel.conf\t0640\t0\t4\ttaken-over/99-wp-panel.conf\n"
		"set\tnet.core.rmem_default\t262144\n"
		"set\tnet.ipv4.tcp_mem\t786432 1048576 1572864\n"
		"added\t/etc/network/if-up.d/wp-panel-nettune\tadded/if-up.d\tdir-existed\n"
		"windows\teth0\t32\t32\n"
		"# end\n");
	state_drop(&s, state_find(&s, STEP_SET, "net.core.rmem_default"));
	state_drop(&s, state_find(&s, STEP_WINDOWS, "eth0"));
	assert_written(
		&s, JOURNAL_HEADER
		"key\tnet.ipv4.tcp_rmem\t4096 131072 6291456\t4096 131072 16777216\n"
		"file\t/etc/sysctl.d/99-wp-panel.conf\t0640\t0\t4\ttaken-over/99-wp-panel.conf\n"
		"set\tnet.ipv4.tcp_mem\t786432 1048576 1572864\n"
		"added\t/etc/network/if-up.d/wp-panel-nettune\tadded/if-up.d\tdir-existed\n"
		"# end\n");
	state_drop(&s, state_find(&s, STEP_FILE, "/etc/sysctl.d/99-wp-panel.conf"));
	assert_null(state_find(&s, STEP_SET, NULL));
	assert_written(
		&s, JOURNAL_HEADER
		"key\tnet.ipv4.tcp_rmem\t4096 131072 6291456\t4096 131072 16777216\n"
		"added\t/etc/network/if-up.d/wp-panel-nettune\tadded/if-up.d\tdir-existed\n"
		"# end\n");
	state_free(&s);

	add_file(&s, file_a, "taken-over/a.conf", 0644, 0, 0);
	add_file(&s, file_b, "taken-over/b.conf", 0644, 0, 0);
	add_set(&s, file_a, "net.core.rmem_default", "1");
	add_set(&s, file_b, "net.core.wmem_default", "2");
	add_set(&s, file_a, "net.core.rmem_max", "3");
	assert_written(&s, JOURNAL_HEADER
		       "file\t/etc/sysctl.d/a.conf\t0644\t0\t0\ttaken-over/a.conf\n"
		       "set\tnet.core.rmem_default\t1\n"
		       "set\tnet.core.rmem_max\t3\n"
		       "file\t/etc/sysctl.d/b.conf\t0644\t0\t0\ttaken-over/b.conf\n"
		       "set\tnet.core.wmem_default\t2\n"
		       "# end\n");
	state_drop(&s, state_find(&s, STEP_FILE, file_a));
	assert_written(&s, JOURNAL_HEADER
		       "file\t/etc/sysctl.d/b.conf\t0644\t0\t0\ttaken-over/b.conf\n"
		       "set\tnet.core.wmem_default\t2\n"
		       "# end\n");
	state_free(&s);

	/* Read back, a set step is its file's, the last file step before it,
	 * wherever the other kinds stand; and rewritten in the journal's order. */
	load_string("# wp-panel-nettune journal 1\n"
		    "windows\teth0\t32\t32\n"
		    "file\t/etc/sysctl.d/a.conf\t0644\t0\t0\ttaken-over/a.conf\n"
		    "key\tnet.core.somaxconn\t4096\t65535\n"
		    "set\tnet.core.rmem_default\t1\n"
		    "# end\n",
		    &s);
	assert_written(&s, JOURNAL_HEADER
		       "key\tnet.core.somaxconn\t4096\t65535\n"
		       "file\t/etc/sysctl.d/a.conf\t0644\t0\t0\ttaken-over/a.conf\n"
		       "set\tnet.core.rmem_default\t1\n"
		       "windows\teth0\t32\t32\n"
		       "# end\n");
	state_free(&s);
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
	struct step step;

	for (size_t i = 0; i < ELEMENTSOF(refused); i++)
		if (step_file(&step, refused[i].path, refused[i].saved, refused[i].mode,
			      0, 0) != -EINVAL)
			fail_msg("case %zu accepted", i);
	add_file(&s, "/etc/sysctl.d/x.conf", "taken-over/x", 0644, 0, 0);
	assert_int_equal(step_file(&step, "/etc/sysctl.d/x.conf", "taken-over/y", 0644, 0,
				   0),
			 0);
	assert_int_equal(state_add(&s, &step), -EEXIST);
	assert_non_null(state_find(&s, STEP_FILE, "/etc/sysctl.d/x.conf"));
	assert_int_equal(s.n, 1);
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
	struct step step;

	for (size_t i = 0; i < ELEMENTSOF(refused); i++)
		if (step_added(&step, refused[i].path, refused[i].saved, false) != -EINVAL)
			fail_msg("case %zu accepted", i);
	assert_true(state_empty(&s));
	add_added(&s, good, "added/x.conf", false);
	assert_false(state_empty(&s));
	assert_int_equal(step_added(&step, good, "added/y.conf", true), 0);
	assert_int_equal(state_add(&s, &step), -EEXIST);
	assert_non_null(state_find(&s, STEP_ADDED, good));
	add_added(&s, STATE_NM_DISPATCHER, "added/nm-dispatcher", false);
	assert_non_null(state_find(&s, STEP_ADDED, STATE_NM_DISPATCHER));
	state_free(&s);
}

/* 0.1.0's record, as 0.1.0 wrote it (its src/state.c: header, columns, a
 * "KEY ORIGINAL APPLIED" line a key, trailer), read as key steps, marked as
 * from it; the next save writes the journal and only then removes it. */
static void test_legacy(void **state _unused_)
{
	char *root = scratch_new();
	struct state s = { 0 };
	struct record *rec;
	const char *path;
	unsigned line;

	scratch_write(
		root, STATE_LEGACY_RECORD,
		"# wp-panel-nettune state 1\n# key\toriginal\tapplied\n"
		"net.core.somaxconn\t4096\t65535\n"
		"net.ipv4.tcp_rmem\t4096 131072 6291456\t4096 131072 16777216\n# end\n");
	assert_int_equal(state_load(root, &s, &path, &line), 0);
	assert_int_equal(s.n, 2);
	assert_true(s.legacy);
	rec = &state_find(&s, STEP_KEY, "net.core.somaxconn")->key;
	assert_string_equal(rec->pending, "");
	assert_true(record_is_ours(rec, "65535"));
	assert_false(record_is_ours(rec, "1234"));
	snprintf(rec->pending, sizeof(rec->pending), "1234");
	assert_true(record_is_ours(rec, "1234"));
	assert_int_equal(state_save(root, &s), 0);
	assert_false(s.legacy);
	assert_false(exists(root, STATE_LEGACY_RECORD));
	assert_string_equal(scratch_read(root, STATE_JOURNAL), JOURNAL_HEADER
			    "key\tnet.core.somaxconn\t4096\t65535\t1234\n"
			    "key\tnet.ipv4.tcp_rmem\t4096 131072 6291456\t4096 131072 "
			    "16777216\n"
			    "# end\n");
	state_free(&s);
	scratch_free(root);

	/* A journal counts, whatever an interrupted conversion left beside it. */
	root = scratch_new();
	scratch_write(root, STATE_JOURNAL, GOOD);
	scratch_write(root, STATE_LEGACY_RECORD,
		      "# wp-panel-nettune state 1\nnet.core.somaxconn\t1\t2\n# end\n");
	assert_int_equal(state_load(root, &s, &path, &line), 0);
	assert_false(s.legacy);
	assert_string_equal(state_find(&s, STEP_KEY, "net.core.somaxconn")->key.original,
			    "4096");
	assert_int_equal(state_save(root, &s), 0);
	assert_false(exists(root, STATE_LEGACY_RECORD));
	assert_string_equal(scratch_read(root, STATE_JOURNAL), GOOD);
	state_free(&s);
	scratch_free(root);

	/* The takeover record of the development builds before the journal was
	 * never released: it is not read, and nothing of it is removed. */
	root = scratch_new();
	scratch_write(root, STATE_DIR "/taken-over/record",
		      "# wp-panel-nettune taken-over 2\n"
		      "/etc/sysctl.d/99-wp-panel.conf\t0600\t99-wp-panel.conf.1cpu\t12\t34\n"
		      "# end\n");
	assert_int_equal(state_load(root, &s, &path, &line), 0);
	assert_true(state_empty(&s));
	assert_false(s.legacy);
	add_key(&s, "net.core.somaxconn", "4096", "65535");
	assert_int_equal(state_save(root, &s), 0);
	assert_true(exists(root, STATE_DIR "/taken-over/record"));
	state_free(&s);
	scratch_free(root);
}

/* A damaged journal, or record of 0.1.0, is refused whole, with
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
		/* The record of the development builds after 0.1.0. */
		{ STATE_LEGACY_RECORD,
		  "# wp-panel-nettune state 2\nnet.core.somaxconn\t4096\t65535\n# end\n",
		  1 },
		{ STATE_LEGACY_RECORD,
		  "# wp-panel-nettune state 1\nnet.core.somaxconn\t4096\n# end\n", 2 },
		{ STATE_LEGACY_RECORD,
		  "# wp-panel-nettune state 1\nnet.core.somaxconn\t4096\t65535\n", 0 },
		{ STATE_LEGACY_RECORD,
		  "# wp-panel-nettune state 1\nnet.core.somaxconn 4096 65535\n# end\n",
		  2 },
		{ STATE_LEGACY_RECORD,
		  "# wp-panel-nettune state 1\na.b\t1\t2\na.b\t1\t2\n# end\n", 3 },
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
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_drop_keeps_order),
		cmocka_unit_test(test_file_steps),
		cmocka_unit_test(test_added_steps),
		cmocka_unit_test(test_legacy),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_symlinked_dirs),
	};

	return cmocka_run_group_tests_name("state", tests, NULL, NULL);
}
