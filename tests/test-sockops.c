/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the sock_ops loader refuses before it asks the kernel anything:
 * bad windows and ports, a pin directory outside a BPF file system, a
 * directory that is not a cgroup v2 one. No privilege needed; what the
 * kernel does is tests/sockops-test.sh's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "bpfobj.h"
#include "helpers.h"
#include "sockops.h"

static const struct sockops_windows web = { .cwnd = 32,
					    .rwnd = 32,
					    .ports = { 80, 443 },
					    .n_ports = 2 };

static void test_attach_refuses_the_windows(void **state _unused_)
{
	struct sockops_windows none = web, many = web, zero = web, huge = web;
	static const char *const wants[] = {
		"no ports, too many, or a window out of range",
		"no ports, too many, or a window out of range",
		"port 0",
		"no ports, too many, or a window out of range",
	};
	const struct sockops_windows *cases[] = { &none, &many, &zero, &huge };

	none.n_ports = 0;
	many.n_ports = SOCKOPS_PORTS_MAX + 1;
	zero.ports[1] = 0;
	huge.cwnd = UINT32_MAX;
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		const char *why = NULL;

		/* Checked first: the cgroup and pins here do not exist. */
		assert_int_equal(sockops_attach("/nonexistent", "/nonexistent/pins",
						cases[i], &why),
				 -EINVAL);
		assert_non_null(why);
		assert_string_equal(why, wants[i]);
	}
}

/* A pin directory must be absolute and under a BPF file system: a scratch
 * directory is on the file system of /tmp. */
static void test_pin_dir_outside_bpffs(void **state _unused_)
{
	char *dir = scratch_new();
	char pins[BPFOBJ_PATH_MAX];
	struct sockops_state s;
	const char *why = NULL;

	snprintf(pins, sizeof(pins), "%s/wp-panel-nettune", dir);
	assert_int_equal(sockops_attach(dir, pins, &web, &why), -EMEDIUMTYPE);
	assert_string_equal(why, "no BPF file system mounted above the pin directory");
	why = NULL;
	assert_int_equal(sockops_read(pins, &s, &why), -EMEDIUMTYPE);
	assert_string_equal(why, "no BPF file system mounted above the pin directory");
	why = NULL;
	assert_int_equal(sockops_detach(pins, &why), -EMEDIUMTYPE);
	assert_string_equal(why, "no BPF file system mounted above the pin directory");
	why = NULL;
	assert_int_equal(sockops_detach("wp-panel-nettune", &why), -EINVAL);
	assert_string_equal(why, "the pin directory is not an absolute path");
	scratch_free(dir);
}

static void test_cgroup_open_refusals(void **state _unused_)
{
	char *dir = scratch_new();
	char missing[BPFOBJ_PATH_MAX];
	const char *why = NULL;

	assert_int_equal(bpfobj_cgroup_open(dir, &why), -EMEDIUMTYPE);
	assert_string_equal(
		why, "not a cgroup v2 directory (no cgroup2 file system mounted there)");
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	why = NULL;
	assert_int_equal(bpfobj_cgroup_open(missing, &why), -ENOENT);
	assert_string_equal(why, "no such cgroup directory");
	scratch_free(dir);
}

/* The ports as a sentence lists them, and never past the buffer. */
static void test_ports_text(void **state _unused_)
{
	struct sockops_windows w = { .cwnd = 32, .rwnd = 32, .ports = { 80, 443, 8080 } };
	char buf[32];

	w.n_ports = 1;
	sockops_ports_text(&w, buf, sizeof(buf));
	assert_string_equal(buf, "80");
	w.n_ports = 2;
	sockops_ports_text(&w, buf, sizeof(buf));
	assert_string_equal(buf, "80 and 443");
	w.n_ports = 3;
	sockops_ports_text(&w, buf, sizeof(buf));
	assert_string_equal(buf, "80, 443 and 8080");
	sockops_ports_text(&w, buf, 8);
	assert_string_equal(buf, "80, 443");
	sockops_ports_text(&w, buf, 3);
	assert_string_equal(buf, "80");
	w.n_ports = 0;
	sockops_ports_text(&w, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attach_refuses_the_windows),
		cmocka_unit_test(test_pin_dir_outside_bpffs),
		cmocka_unit_test(test_cgroup_open_refusals),
		cmocka_unit_test(test_ports_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
