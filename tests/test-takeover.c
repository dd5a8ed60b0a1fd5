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

#include "helpers.h"
#include "journal.h"
#include "overrides.h"
#include "render.h"
#include "takeover.h"

static struct assignment item(const char *file, const char *key, const char *value);

/* Purge sets again, once the file is back, the keys it sets that the
 * fragment does not: made from the saved copy, in its order, its values
 * with their spaces folded; again from scratch whenever the fragment
 * changes. A key the journal may not name gives none (purge would refuse
 * the step), nor does a copy that cannot be read. */
static void test_note_sets(void **state _unused_)
{
	struct assignment ours[] = {
		item(FRAGMENT_SYSCTL, "net.core.somaxconn", "65535"),
		item(FRAGMENT_SYSCTL, "net.ipv4.tcp_congestion_control", "bbr"),
	};
	struct assignments fragment = { ELEMENTSOF(ours), ours };
	struct state s = { 0 };
	struct step file;
	char *root = scratch_new();

	scratch_write(root, TAKEOVER_DIR "/" TAKEOVER_NAME,
		      "# the installer's\n"
		      "net.core.somaxconn = 65535\n"
		      "net.core.rmem_default=262144\n"
		      "net.ipv4.tcp_congestion_control = bbr\n"
		      "-net.ipv4.tcp_wmem =  4096\t65536  16777216\n"
		      "net.ipv4.tcp_mem = 786432 1048576 1572864\n");
	assert_int_equal(step_file(&file, TAKEOVER_PATH, "taken-over/" TAKEOVER_NAME,
				   0644, 0, 0),
			 0);
	assert_int_equal(state_add(&s, &file), 0);
	takeover_note_sets(root, &s, &fragment);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.steps[1].kind, STEP_SET);
	assert_string_equal(s.steps[1].set.key, "net.core.rmem_default");
	assert_string_equal(s.steps[1].set.value, "262144");
	assert_string_equal(s.steps[2].set.key, "net.ipv4.tcp_wmem");
	assert_string_equal(s.steps[2].set.value, "4096 65536 16777216");
	assert_string_equal(s.steps[2].set.file, TAKEOVER_PATH);

	/* cubic now: the fragment leaves congestion control to the file. */
	fragment.n = 1;
	takeover_note_sets(root, &s, &fragment);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.steps[2].set.key, "net.ipv4.tcp_congestion_control");

	scratch_free(root);
	root = scratch_new();
	takeover_note_sets(root, &s, &fragment);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.steps[0].kind, STEP_FILE);
	state_free(&s);
	scratch_free(root);
}

static struct assignment item(const char *file, const char *key, const char *value)
{
	struct assignment a = { 0 };

	snprintf(a.file, sizeof(a.file), "%s", file);
	snprintf(a.key, sizeof(a.key), "%s", key);
	snprintf(a.value, sizeof(a.value), "%s", value);
	a.glob = strpbrk(key, "*?[") != NULL;
	return a;
}

/* In systemd's order: an earlier file loses to ours, a later one wins, the
 * last of several wins, a glob never beats an explicit key. */
static void test_collect(void **state _unused_)
{
	struct assignment ours[] = {
		item(FRAGMENT_SYSCTL, "net.core.somaxconn", "65535"),
		item(FRAGMENT_SYSCTL, "net.ipv4.tcp_fin_timeout", "15"),
		item(FRAGMENT_SYSCTL, "net.ipv4.tcp_keepalive_time", "300"),
		item(FRAGMENT_SYSCTL, "net.ipv4.ip_local_port_range", "10240 65535"),
	};
	struct assignment all[] = {
		item("/usr/lib/sysctl.d/50-x.conf", "net.core.somaxconn", "1"),
		ours[0],
		ours[1],
		ours[2],
		ours[3],
		item("/etc/sysctl.d/70-a.conf", "net.ipv4.tcp_keepalive_*", "60"),
		item("/etc/sysctl.d/80-b.conf", "net.ipv4.tcp_fin_timeout", "30"),
		item("/etc/sysctl.d/99-wp-panel.conf", "net.ipv4.ip_local_port_range",
		     "1024 65535"),
		item("/etc/sysctl.d/99-wp-panel.conf", "net.ipv4.tcp_fin_timeout", "15"),
	};
	struct assignments fragment = { ELEMENTSOF(ours), ours };
	struct assignments every = { ELEMENTSOF(all), all };
	struct override o[4];
	size_t n;

	n = overrides_collect(&fragment, &every, o, ELEMENTSOF(o));
	assert_int_equal(n, 2);
	assert_string_equal(o[0].ours->key, "net.ipv4.tcp_fin_timeout");
	assert_string_equal(o[0].theirs->file, "/etc/sysctl.d/99-wp-panel.conf");
	assert_string_equal(o[0].theirs->value, "15");
	assert_string_equal(o[1].ours->key, "net.ipv4.ip_local_port_range");
	assert_string_equal(o[1].theirs->value, "1024 65535");

	/* Never more than the caller has room for. */
	assert_int_equal(overrides_collect(&fragment, &every, o, 1), 1);

	/* What apply asks, key by key: the other file's assignment, or NULL
	 * where boot takes the fragment's (a glob never counts). */
	assert_ptr_equal(overrides_find(&every, "net.ipv4.tcp_fin_timeout"), &all[8]);
	assert_ptr_equal(overrides_find(&every, "net.ipv4.ip_local_port_range"), &all[7]);
	assert_null(overrides_find(&every, "net.core.somaxconn"));
	assert_null(overrides_find(&every, "net.ipv4.tcp_keepalive_time"));
	assert_null(overrides_find(&every, "net.ipv4.tcp_sack"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_note_sets),
		cmocka_unit_test(test_collect),
	};

	return cmocka_run_group_tests_name("takeover", tests, NULL, NULL);
}
