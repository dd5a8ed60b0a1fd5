/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "helpers.h"
#include "sysctl.h"
#include "util.h"

static void test_key_valid(void **state _unused_)
{
	static const struct {
		const char *key;
		bool valid;
	} cases[] = {
		{ "net.core.somaxconn", true },
		{ "net.ipv4.tcp_rmem", true },
		{ "net.ipv4.conf.eth-0.rp_filter", true },
		{ "", false },
		{ "net/core/somaxconn", false },
		{ "net..core", false },
		{ ".net.core", false },
		{ "net.core.", false },
		{ "net.core.../../etc/passwd", false },
		{ "Net.core.somaxconn", false },
		{ "net.core.some key", false },
		{ "net.core.*", false },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		assert_int_equal(sysctl_key_valid(cases[i].key), cases[i].valid);
}

static void test_path(void **state _unused_)
{
	char buf[PATH_MAX_LEN];

	assert_int_equal(sysctl_path(buf, sizeof(buf), "", "net.ipv4.tcp_rmem"), 0);
	assert_string_equal(buf, "/proc/sys/net/ipv4/tcp_rmem");
	assert_int_equal(sysctl_path(buf, sizeof(buf), "/r", "net.core.somaxconn"), 0);
	assert_string_equal(buf, "/r/proc/sys/net/core/somaxconn");
	assert_int_equal(sysctl_path(buf, sizeof(buf), "", "net/../x"), -EINVAL);
}

/* Values go to the kernel in the form it prints them, so a read-back of a
 * captured tree compares byte for byte. */
static void test_write_read(void **state _unused_)
{
	char *root = scratch_new(), value[64];

	scratch_write(root, "/proc/sys/net/ipv4/tcp_rmem", "4096\t131072\t6291456\n");
	scratch_write(root, "/proc/sys/net/core/default_qdisc", "fq_codel\n");
	scratch_write(root, "/proc/sys/net/ipv4/tcp_allowed_congestion_control",
		      "reno cubic\n");

	assert_int_equal(sysctl_read(root, "net.ipv4.tcp_rmem", value, sizeof(value)), 0);
	assert_string_equal(value, "4096 131072 6291456");
	assert_int_equal(sysctl_write(root, "net.ipv4.tcp_rmem", "4096 131072 16777216"),
			 0);
	assert_string_equal(scratch_read(root, "/proc/sys/net/ipv4/tcp_rmem"),
			    "4096\t131072\t16777216\n");
	assert_int_equal(sysctl_write(root, "net.core.default_qdisc", "fq"), 0);
	assert_string_equal(scratch_read(root, "/proc/sys/net/core/default_qdisc"),
			    "fq\n");
	assert_int_equal(sysctl_write(root, "net.ipv4.tcp_allowed_congestion_control",
				      "reno cubic bbr"),
			 0);
	assert_string_equal(
		scratch_read(root, "/proc/sys/net/ipv4/tcp_allowed_congestion_control"),
		"reno cubic bbr\n");

	assert_int_equal(sysctl_read(root, "net.core.missing", value, sizeof(value)),
			 -ENOENT);
	assert_int_equal(sysctl_write(root, "net.core.missing", "1"), -ENOENT);
	assert_int_equal(sysctl_write(root, "net.core.somaxconn", "1\n2"), -EINVAL);
	scratch_free(root);
}

static void test_refusal(void **state _unused_)
{
	assert_true(sysctl_error_is_refusal(-EPERM));
	assert_true(sysctl_error_is_refusal(-EACCES));
	assert_true(sysctl_error_is_refusal(-EROFS));
	assert_false(sysctl_error_is_refusal(-ENOENT));
	assert_false(sysctl_error_is_refusal(-EINVAL));
}

/* Every errno the kernel gives a sysctl write, with and without "-". */
static void test_failure_policy(void **state _unused_)
{
	static const struct {
		int error;
		enum sysctl_failure plain, dash;
	} cases[] = {
		{ -EPERM, SYSCTL_FAILURE_QUIET, SYSCTL_FAILURE_QUIET },
		{ -EACCES, SYSCTL_FAILURE_QUIET, SYSCTL_FAILURE_QUIET },
		{ -EROFS, SYSCTL_FAILURE_QUIET, SYSCTL_FAILURE_QUIET },
		{ -ENOENT, SYSCTL_FAILURE_WARN, SYSCTL_FAILURE_QUIET },
		{ -EINVAL, SYSCTL_FAILURE_ERROR, SYSCTL_FAILURE_WARN },
		{ -EIO, SYSCTL_FAILURE_ERROR, SYSCTL_FAILURE_WARN },
		{ -EBUSY, SYSCTL_FAILURE_ERROR, SYSCTL_FAILURE_WARN },
		{ -EBADFD, SYSCTL_FAILURE_ERROR, SYSCTL_FAILURE_WARN },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(sysctl_failure_policy(cases[i].error, false),
				 cases[i].plain);
		assert_int_equal(sysctl_failure_policy(cases[i].error, true),
				 cases[i].dash);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_valid),      cmocka_unit_test(test_path),
		cmocka_unit_test(test_write_read),     cmocka_unit_test(test_refusal),
		cmocka_unit_test(test_failure_policy),
	};

	return cmocka_run_group_tests_name("sysctl", tests, NULL, NULL);
}
