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

#include "overrides.h"
#include "render.h"
#include "takeover.h"

/* The record is read by a shell loop: exactly these bytes. */
static void test_record_format(void **state _unused_)
{
	struct stat st = { .st_mode = 0100600, .st_uid = 1234, .st_gid = 5678 };
	char buf[256];
	int n;

	n = takeover_record_format(TAKEOVER_PATH, &st, "99-wp-panel.conf.1cpu", buf,
				   sizeof(buf));
	assert_string_equal(buf,
			    "# wp-panel-nettune taken-over 2\n"
			    "# path\tmode\tvariant\tuid\tgid\n"
			    "/etc/sysctl.d/99-wp-panel.conf\t0600\t99-wp-panel.conf.1cpu"
			    "\t1234\t5678\n"
			    "# end\n");
	assert_int_equal(n, (int)strlen(buf));
}

static void test_record_refuses(void **state _unused_)
{
	static const struct {
		const char *path, *variant;
		size_t size;
		int r;
	} cases[] = {
		{ "etc/sysctl.d/x.conf", "v", 256, -EINVAL },
		{ "/etc/sysctl.d/x\t.conf", "v", 256, -EINVAL },
		{ "/etc/sysctl.d/x\n.conf", "v", 256, -EINVAL },
		{ "/etc/sysctl.d/x.conf", "", 256, -EINVAL },
		{ "/etc/sysctl.d/x.conf", "a\tb", 256, -EINVAL },
		{ "/etc/sysctl.d/x.conf", "../v", 256, -EINVAL },
		{ "/etc/sysctl.d/x.conf", "v", 40, -ENOBUFS },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct stat st = { .st_mode = 0100644 };
		char buf[256];
		int r = takeover_record_format(cases[i].path, &st, cases[i].variant, buf,
					       cases[i].size);

		if (r != cases[i].r)
			fail_msg("case %zu: got %d, want %d", i, r, cases[i].r);
	}
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
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_format),
		cmocka_unit_test(test_record_refuses),
		cmocka_unit_test(test_collect),
	};

	return cmocka_run_group_tests_name("takeover", tests, NULL, NULL);
}
