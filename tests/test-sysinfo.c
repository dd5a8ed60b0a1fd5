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
#include "sysinfo.h"
#include "util.h"

static void test_cpu_list(void **state _unused_)
{
	static const struct {
		const char *list;
		int r;
		unsigned count;
	} cases[] = {
		{ "0", 0, 1 },	     { "0-1", 0, 2 },	   { "0-3,8,10-11", 0, 7 },
		{ "0,2", 0, 2 },     { "", -EINVAL, 0 },   { "1-0", -EINVAL, 0 },
		{ "a", -EINVAL, 0 }, { "0-", -EINVAL, 0 }, { "0-99999", -EINVAL, 0 },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		unsigned count = 0;

		assert_int_equal(cpu_list_count(cases[i].list, &count), cases[i].r);
		assert_int_equal(count, cases[i].count);
	}
}

#define ROOT_MOUNT "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"

/* The smallest tree detection accepts. */
static char *minimal_root(void)
{
	char *root = scratch_new();

	scratch_write(root, "/sys/devices/system/cpu/online", "0-1\n");
	scratch_write(root, "/proc/meminfo",
		      "MemTotal:        2014232 kB\nMemFree: 1 kB\n");
	scratch_write(root, "/proc/sys/kernel/osrelease", "6.12.0-test\n");
	scratch_write(root, "/proc/sys/net/ipv4/tcp_fin_timeout", "60\n");
	scratch_write(root, "/proc/sys/net/ipv4/tcp_available_congestion_control",
		      "reno cubic\n");
	scratch_write(root, "/proc/sys/net/core/default_qdisc", "fq_codel\n");
	scratch_write(root, "/proc/1/mountinfo", ROOT_MOUNT);
	scratch_write(root, "/proc/self/mountinfo", ROOT_MOUNT);
	return root;
}

/* The modules the profile's table needs, as the helper asks for them. */
static const struct module_need needs[] = {
	{ "sch_fq", "net.core.default_qdisc", "fq" },
	{ "tcp_bbr", "net.ipv4.tcp_available_congestion_control", "bbr" },
	{ "tcp_bbr", "net.ipv4.tcp_available_congestion_control", "bbr" },
};

static int detect(const char *root, struct sysinfo *ret, const char **ret_failed)
{
	return sysinfo_detect(root, needs, ELEMENTSOF(needs), ret, ret_failed);
}

/* Detection knows the modules it is given, each once, and no other. */
static void test_module_list(void **state _unused_)
{
	char *root = minimal_root();
	struct sysinfo info;
	const char *failed = NULL;

	assert_int_equal(detect(root, &info, &failed), 0);
	assert_int_equal(info.n_modules, 2);
	assert_string_equal(info.modules[0].name, "sch_fq");
	assert_string_equal(info.modules[1].name, "tcp_bbr");
	assert_int_equal(sysinfo_module_state(&info, "nf_conntrack"), MODSTATE_MISSING);
	scratch_write(root, "/sys/module/nf_conntrack/initstate", "live\n");
	assert_int_equal(sysinfo_detect(root, needs, 0, &info, &failed), 0);
	assert_int_equal(info.n_modules, 0);
	assert_int_equal(sysinfo_set_module_state(&info, "nf_conntrack", MODSTATE_LOADED),
			 0);
	assert_int_equal(sysinfo_module_state(&info, "nf_conntrack"), MODSTATE_LOADED);
	scratch_free(root);
}

static void test_minimal(void **state _unused_)
{
	char *root = minimal_root();
	struct sysinfo info;
	const char *failed = NULL;

	assert_int_equal(detect(root, &info, &failed), 0);
	assert_int_equal(info.cpus, 2);
	assert_int_equal(info.mem_kib, 2014232);
	assert_string_equal(info.release, "6.12.0-test");
	assert_int_equal(sysinfo_module_state(&info, "tcp_bbr"), MODSTATE_MISSING);
	assert_int_equal(sysinfo_module_state(&info, "sch_fq"), MODSTATE_MISSING);
	assert_int_equal(info.environment, ENVIRONMENT_HOST);
	assert_true(info.net_writable);
	scratch_free(root);
}

/* A file detection cannot read is kept, with what was assumed, for the
 * command to name; a missing one is not worth a word. */
static void test_skipped(void **state _unused_)
{
	static const struct {
		const char *path, *assumed;
	} cases[] = {
		{ "/etc/modprobe.d/x.conf", "module state unknown, taken as missing" },
		{ "/lib/modules/6.12.0-test/modules.dep.bin",
		  "module state unknown, taken as missing" },
		{ "/proc/1/environ", "ignoring it" },
		{ "/proc/1/mountinfo", "taken as a chroot" },
		{ "/sys/module/tcp_bbr/initstate", "taken as not loaded" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char *root = minimal_root(), path[PATH_MAX_LEN];
		struct sysinfo info;
		const char *failed = NULL;

		assert_int_equal(detect(root, &info, &failed), 0);
		assert_int_equal(info.skipped.error, 0);
		scratch_write(root, cases[i].path, "");
		snprintf(path, sizeof(path), "%s%s", root, cases[i].path);
		assert_int_equal(unlink(path), 0);
		assert_int_equal(mkfifo(path, 0644), 0);
		assert_int_equal(detect(root, &info, &failed), 0);
		assert_int_equal(info.skipped.error, -EBADFD);
		assert_string_equal(info.skipped.file, cases[i].path);
		assert_string_equal(info.skipped.assumed, cases[i].assumed);
		assert_int_equal(sysinfo_module_state(&info, "tcp_bbr"), MODSTATE_MISSING);
		scratch_free(root);
	}
}

/* The kernel's own lists and sysfs tell builtin and loaded modules apart
 * even without a module directory. */
static void test_modules_from_kernel(void **state _unused_)
{
	char *root = minimal_root();
	struct sysinfo info;
	const char *failed;

	scratch_write(root, "/proc/sys/net/ipv4/tcp_available_congestion_control",
		      "reno bbr cubic\n");
	scratch_write(root, "/proc/sys/net/core/default_qdisc", "fq\n");
	assert_int_equal(detect(root, &info, &failed), 0);
	assert_int_equal(sysinfo_module_state(&info, "tcp_bbr"), MODSTATE_BUILTIN);
	assert_int_equal(sysinfo_module_state(&info, "sch_fq"), MODSTATE_BUILTIN);

	scratch_write(root, "/sys/module/tcp_bbr/initstate", "live\n");
	assert_int_equal(detect(root, &info, &failed), 0);
	assert_int_equal(sysinfo_module_state(&info, "tcp_bbr"), MODSTATE_LOADED);
	scratch_free(root);
}

#define BYTES(s) s, sizeof(s) - 1

static void test_environment(void **state _unused_)
{
	static const struct {
		const char *path, *content;
		size_t len;
		enum environment environment;
		const char *kind;
	} cases[] = {
		{ "/run/systemd/container", BYTES("lxc\n"), ENVIRONMENT_CONTAINER, "lxc" },
		{ "/proc/1/environ", BYTES("HOME=/\0container=podman\0"),
		  ENVIRONMENT_CONTAINER, "podman" },
		{ "/.dockerenv", BYTES(""), ENVIRONMENT_CONTAINER, "docker" },
		{ "/run/.containerenv", BYTES(""), ENVIRONMENT_CONTAINER, "podman" },
		{ "/proc/vz/x", BYTES(""), ENVIRONMENT_CONTAINER, "openvz" },
		{ "/proc/1/environ", BYTES("HOME=/\0TERM=linux\0"), ENVIRONMENT_HOST, "" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char *root = minimal_root(), path[PATH_MAX_LEN];
		struct sysinfo info;
		const char *failed;
		FILE *f;

		/* environ holds NUL bytes, so it is written by length. */
		scratch_write(root, cases[i].path, "");
		snprintf(path, sizeof(path), "%s%s", root, cases[i].path);
		f = fopen(path, "we");
		assert_non_null(f);
		assert_int_equal(fwrite(cases[i].content, 1, cases[i].len, f),
				 cases[i].len);
		assert_int_equal(fclose(f), 0);
		assert_int_equal(detect(root, &info, &failed), 0);
		assert_int_equal(info.environment, cases[i].environment);
		assert_string_equal(info.container, cases[i].kind);
		scratch_free(root);
	}
}

/* In a chroot the root is not PID 1's root; where /proc/1/root cannot be
 * read the mounts tell, and where nothing tells, it is a chroot. */
static void test_chroot(void **state _unused_)
{
	static const struct {
		const char *init, *self;
		enum environment environment;
	} cases[] = {
		{ ROOT_MOUNT, ROOT_MOUNT, ENVIRONMENT_HOST },
		/* Chrooted into a bind mount: another mount at "/". */
		{ ROOT_MOUNT, "31 27 254:0 /srv/image / rw - ext4 /dev/vda rw\n",
		  ENVIRONMENT_CHROOT },
		/* Chrooted into a plain directory: "/" is not visible at all. */
		{ ROOT_MOUNT, "40 27 0:5 / /dev rw - devtmpfs udev rw\n",
		  ENVIRONMENT_CHROOT },
		{ ROOT_MOUNT, NULL, ENVIRONMENT_CHROOT },
		{ NULL, ROOT_MOUNT, ENVIRONMENT_CHROOT },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char *root = minimal_root(), path[PATH_MAX_LEN];
		struct sysinfo info;
		const char *failed;

		snprintf(path, sizeof(path), "%s/proc/1/mountinfo", root);
		if (cases[i].init)
			scratch_write(root, "/proc/1/mountinfo", cases[i].init);
		else
			assert_int_equal(unlink(path), 0);
		snprintf(path, sizeof(path), "%s/proc/self/mountinfo", root);
		if (cases[i].self)
			scratch_write(root, "/proc/self/mountinfo", cases[i].self);
		else
			assert_int_equal(unlink(path), 0);
		assert_int_equal(detect(root, &info, &failed), 0);
		if (info.environment != cases[i].environment)
			fail_msg("case %zu: %s", i,
				 environment_to_string(info.environment));
		scratch_free(root);
	}
}

/* /proc/1/root, where it can be read, decides. */
static void test_chroot_root_link(void **state _unused_)
{
	char *root = minimal_root(), path[PATH_MAX_LEN];
	struct sysinfo info;
	const char *failed;

	snprintf(path, sizeof(path), "%s/proc/1/root", root);
	assert_int_equal(symlink("/", path), 0);
	assert_int_equal(detect(root, &info, &failed), 0);
	assert_int_equal(info.environment, ENVIRONMENT_CHROOT);

	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("../..", path), 0);
	assert_int_equal(detect(root, &info, &failed), 0);
	assert_int_equal(info.environment, ENVIRONMENT_HOST);
	scratch_free(root);
}

/* PID 1 of a PID namespace of its own, in the initial network namespace
 * (which alone has net.core.netdev_max_backlog), is taken for a chroot
 * although / is its root; with a network namespace of its own, or where
 * /proc/self/ns/pid does not say, / being PID 1's root decides as before. */
static void test_pid_namespace(void **state _unused_)
{
	static const struct {
		const char *link; /* /proc/self/ns/pid, NULL: none */
		bool backlog; /* net.core.netdev_max_backlog is there */
		const char *init; /* /proc/1/mountinfo */
		enum environment environment;
		bool pid_ns_on_host_net;
	} cases[] = {
		{ "pid:[4026532309]", true, ROOT_MOUNT, ENVIRONMENT_CHROOT, true },
		{ "pid:[4026532309]", false, ROOT_MOUNT, ENVIRONMENT_HOST, false },
		{ "pid:[4026531836]", true, ROOT_MOUNT, ENVIRONMENT_HOST, false },
		{ NULL, true, ROOT_MOUNT, ENVIRONMENT_HOST, false },
		{ "pid:[]", true, ROOT_MOUNT, ENVIRONMENT_HOST, false },
		{ "pid:[4026532309", true, ROOT_MOUNT, ENVIRONMENT_HOST, false },
		{ "net:[4026532309]", true, ROOT_MOUNT, ENVIRONMENT_HOST, false },
		{ "pid:[40265x2309]", true, ROOT_MOUNT, ENVIRONMENT_HOST, false },
		/* / is not PID 1's root: a chroot, said as before. */
		{ "pid:[4026532309]", true,
		  "31 27 254:0 /srv/image / rw - ext4 /dev/vda rw\n", ENVIRONMENT_CHROOT,
		  false },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char *root = minimal_root(), path[PATH_MAX_LEN];
		struct sysinfo info;
		const char *failed;

		scratch_write(root, "/proc/1/mountinfo", cases[i].init);
		if (cases[i].link) {
			snprintf(path, sizeof(path), "%s/proc/self/ns", root);
			assert_int_equal(mkdir(path, 0755), 0);
			snprintf(path, sizeof(path), "%s/proc/self/ns/pid", root);
			assert_int_equal(symlink(cases[i].link, path), 0);
		}
		if (cases[i].backlog)
			scratch_write(root, "/proc/sys/net/core/netdev_max_backlog",
				      "1000\n");
		assert_int_equal(detect(root, &info, &failed), 0);
		if (info.environment != cases[i].environment ||
		    info.pid_ns_on_host_net != cases[i].pid_ns_on_host_net)
			fail_msg("case %zu: %s%s", i,
				 environment_to_string(info.environment),
				 info.pid_ns_on_host_net ? " (PID namespace)" : "");
		scratch_free(root);
	}
}

static void test_read_only(void **state _unused_)
{
	char *root = minimal_root(), path[PATH_MAX_LEN];
	struct sysinfo info;
	const char *failed;

	snprintf(path, sizeof(path), "%s/proc/sys/net/ipv4/tcp_fin_timeout", root);
	assert_int_equal(chmod(path, 0444), 0);
	assert_int_equal(detect(root, &info, &failed), 0);
	assert_false(info.net_writable);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(detect(root, &info, &failed), 0);
	assert_false(info.net_writable);
	scratch_free(root);
}

static void test_missing_files(void **state _unused_)
{
	static const struct {
		const char *path, *content;
		int r;
	} cases[] = {
		{ "/sys/devices/system/cpu/online", NULL, -ENOENT },
		{ "/sys/devices/system/cpu/online", "garbage\n", -EINVAL },
		{ "/proc/meminfo", NULL, -ENOENT },
		{ "/proc/meminfo", "MemFree: 1 kB\n", -EBADMSG },
		{ "/proc/meminfo", "MemTotal: lots\n", -EBADMSG },
		{ "/proc/sys/kernel/osrelease", NULL, -ENOENT },
		{ "/proc/sys/kernel/osrelease", "../../etc\n", -EBADMSG },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char *root = minimal_root(), path[PATH_MAX_LEN];
		struct sysinfo info;
		const char *failed = NULL;

		snprintf(path, sizeof(path), "%s%s", root, cases[i].path);
		if (cases[i].content)
			scratch_write(root, cases[i].path, cases[i].content);
		else
			assert_int_equal(unlink(path), 0);
		assert_int_equal(detect(root, &info, &failed), cases[i].r);
		assert_string_equal(failed, cases[i].path);
		scratch_free(root);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_list),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_module_list),
		cmocka_unit_test(test_skipped),
		cmocka_unit_test(test_modules_from_kernel),
		cmocka_unit_test(test_environment),
		cmocka_unit_test(test_chroot),
		cmocka_unit_test(test_chroot_root_link),
		cmocka_unit_test(test_pid_namespace),
		cmocka_unit_test(test_read_only),
		cmocka_unit_test(test_missing_files),
	};

	return cmocka_run_group_tests_name("sysinfo", tests, NULL, NULL);
}
