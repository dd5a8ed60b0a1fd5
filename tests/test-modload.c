/* SPDX-License-Identifier: GPL-2.0-or-later */
/* modload.c against a wrapped libkmod (-Wl,--wrap): every answer libkmod can
 * give, without a module directory or a kernel to insert into. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modload.h"
#include "util.h"

/* Opaque to us, so any distinct addresses will do. A lookup yields up to
 * ENTRIES_MAX modules: entry i of a list is fake_entries[i], and its module
 * fake_mods[i], so that kmod_list_next can walk them. A filtered list has
 * the same entries as the one it came from. */
#define ENTRIES_MAX 4
static int fake_ctx, fake_entries[ENTRIES_MAX], fake_mods[ENTRIES_MAX];
static size_t n_entries;
#define CTX ((struct kmod_ctx *)&fake_ctx)
#define LIST ((struct kmod_list *)&fake_entries[0])

struct kmod_ctx *__wrap_kmod_new(const char *dirname, const char *const *config_paths);
struct kmod_ctx *__wrap_kmod_new(const char *dirname _unused_,
				 const char *const *config_paths _unused_)
{
	return CTX;
}

struct kmod_ctx *__wrap_kmod_unref(struct kmod_ctx *ctx);
struct kmod_ctx *__wrap_kmod_unref(struct kmod_ctx *ctx _unused_)
{
	return NULL;
}

void __wrap_kmod_set_log_fn(struct kmod_ctx *ctx, void *fn, const void *data);
void __wrap_kmod_set_log_fn(struct kmod_ctx *ctx _unused_, void *fn _unused_,
			    const void *data _unused_)
{
}

/* The lookup finds as many modules as the test says (0: not found). */
int __wrap_kmod_module_new_from_lookup(struct kmod_ctx *ctx, const char *alias,
				       struct kmod_list **list);
int __wrap_kmod_module_new_from_lookup(struct kmod_ctx *ctx _unused_,
				       const char *alias _unused_,
				       struct kmod_list **list)
{
	n_entries = mock_type(size_t);
	assert_in_range(n_entries, 0, ENTRIES_MAX);
	*list = n_entries ? LIST : NULL;
	return 0;
}

/* A filter keeps the module (1) or filters it out (0). */
int __wrap_kmod_module_apply_filter(const struct kmod_ctx *ctx,
				    enum kmod_filter filter_type,
				    const struct kmod_list *input,
				    struct kmod_list **output);
int __wrap_kmod_module_apply_filter(const struct kmod_ctx *ctx _unused_,
				    enum kmod_filter filter_type,
				    const struct kmod_list *input _unused_,
				    struct kmod_list **output)
{
	check_expected(filter_type);
	*output = mock_type(int) ? LIST : NULL;
	return 0;
}

const char *__wrap_kmod_module_get_install_commands(const struct kmod_module *mod);
const char *__wrap_kmod_module_get_install_commands(const struct kmod_module *mod _unused_)
{
	return mock_ptr_type(const char *);
}

int __wrap_kmod_module_get_initstate(const struct kmod_module *mod);
int __wrap_kmod_module_get_initstate(const struct kmod_module *mod _unused_)
{
	return mock_type(int);
}

int __wrap_kmod_module_probe_insert_module(struct kmod_module *mod, unsigned int flags,
					   const char *extra_options, void *run_install,
					   const void *data, void *print_action);
int __wrap_kmod_module_probe_insert_module(struct kmod_module *mod _unused_,
					   unsigned int flags,
					   const char *extra_options _unused_,
					   void *run_install _unused_,
					   const void *data _unused_,
					   void *print_action _unused_)
{
	/* The blacklist applies and install commands never run. */
	assert_int_equal(flags, KMOD_PROBE_APPLY_BLACKLIST | KMOD_PROBE_IGNORE_COMMAND);
	return mock_type(int);
}

int __wrap_kmod_module_unref_list(struct kmod_list *list);
int __wrap_kmod_module_unref_list(struct kmod_list *list _unused_)
{
	return 0;
}

struct kmod_module *__wrap_kmod_module_unref(struct kmod_module *mod);
struct kmod_module *__wrap_kmod_module_unref(struct kmod_module *mod _unused_)
{
	return NULL;
}

struct kmod_module *__wrap_kmod_module_get_module(const struct kmod_list *entry);
struct kmod_module *__wrap_kmod_module_get_module(const struct kmod_list *entry)
{
	return (struct kmod_module *)&fake_mods[(const int *)entry - fake_entries];
}

struct kmod_list *__wrap_kmod_list_next(const struct kmod_list *list,
					const struct kmod_list *curr);
struct kmod_list *__wrap_kmod_list_next(const struct kmod_list *list _unused_,
					const struct kmod_list *curr)
{
	size_t next = (size_t)((const int *)curr - fake_entries) + 1;

	return next < n_entries ? (struct kmod_list *)&fake_entries[next] : NULL;
}

/* The module's file, for the check before an insert: none unless a test
 * gives one. */
static const char *fake_path;

const char *__wrap_kmod_module_get_name(const struct kmod_module *mod);
const char *__wrap_kmod_module_get_name(const struct kmod_module *mod _unused_)
{
	return NULL;
}

const char *__wrap_kmod_module_get_path(const struct kmod_module *mod);
const char *__wrap_kmod_module_get_path(const struct kmod_module *mod _unused_)
{
	return fake_path;
}

static void expect_blacklist_check(bool allowed, const char *install)
{
	expect_value(__wrap_kmod_module_apply_filter, filter_type, KMOD_FILTER_BLACKLIST);
	will_return(__wrap_kmod_module_apply_filter, allowed);
	if (allowed)
		will_return(__wrap_kmod_module_get_install_commands, install);
}

static void test_ensure_builtin(void **state _unused_)
{
	enum modresult result;

	will_return(__wrap_kmod_module_new_from_lookup, 1);
	will_return(__wrap_kmod_module_get_initstate, KMOD_MODULE_BUILTIN);
	assert_int_equal(modload_ensure("", "6.12", "tcp_bbr", true, &result), 0);
	assert_int_equal(result, MODRESULT_PRESENT);
}

static void test_ensure_live(void **state _unused_)
{
	enum modresult result;

	will_return(__wrap_kmod_module_new_from_lookup, 1);
	will_return(__wrap_kmod_module_get_initstate, KMOD_MODULE_LIVE);
	assert_int_equal(modload_ensure("", "6.12", "tcp_bbr", true, &result), 0);
	assert_int_equal(result, MODRESULT_PRESENT);
}

static void test_ensure_inserted(void **state _unused_)
{
	enum modresult result;

	will_return(__wrap_kmod_module_new_from_lookup, 1);
	will_return(__wrap_kmod_module_get_initstate, -ENOENT);
	expect_blacklist_check(true, NULL);
	will_return(__wrap_kmod_module_probe_insert_module, 0);
	assert_int_equal(modload_ensure("", "6.12", "tcp_bbr", true, &result), 0);
	assert_int_equal(result, MODRESULT_INSERTED);
}

static void test_ensure_blacklisted(void **state _unused_)
{
	enum modresult result;

	will_return(__wrap_kmod_module_new_from_lookup, 1);
	will_return(__wrap_kmod_module_get_initstate, -ENOENT);
	expect_blacklist_check(false, NULL);
	assert_int_equal(modload_ensure("", "6.12", "tcp_bbr", true, &result), 0);
	assert_int_equal(result, MODRESULT_BLACKLISTED);
}

/* "install tcp_bbr /bin/false" disables a module as surely as a blacklist. */
static void test_ensure_install_command(void **state _unused_)
{
	enum modresult result;

	will_return(__wrap_kmod_module_new_from_lookup, 1);
	will_return(__wrap_kmod_module_get_initstate, -ENOENT);
	expect_blacklist_check(true, "/bin/false");
	assert_int_equal(modload_ensure("", "6.12", "tcp_bbr", true, &result), 0);
	assert_int_equal(result, MODRESULT_BLACKLISTED);
}

static void test_ensure_probe_blacklisted(void **state _unused_)
{
	enum modresult result;

	will_return(__wrap_kmod_module_new_from_lookup, 1);
	will_return(__wrap_kmod_module_get_initstate, -ENOENT);
	expect_blacklist_check(true, NULL);
	will_return(__wrap_kmod_module_probe_insert_module, KMOD_PROBE_APPLY_BLACKLIST);
	assert_int_equal(modload_ensure("", "6.12", "tcp_bbr", true, &result), 0);
	assert_int_equal(result, MODRESULT_BLACKLISTED);
}

static void test_ensure_not_found(void **state _unused_)
{
	enum modresult result;

	will_return(__wrap_kmod_module_new_from_lookup, 0);
	assert_int_equal(modload_ensure("", "6.12", "tcp_bbr", true, &result), 0);
	assert_int_equal(result, MODRESULT_NOT_FOUND);
}

static void test_ensure_eperm(void **state _unused_)
{
	enum modresult result = MODRESULT_NOT_FOUND;

	will_return(__wrap_kmod_module_new_from_lookup, 1);
	will_return(__wrap_kmod_module_get_initstate, -ENOENT);
	expect_blacklist_check(true, NULL);
	will_return(__wrap_kmod_module_probe_insert_module, -EPERM);
	assert_int_equal(modload_ensure("", "6.12", "tcp_bbr", true, &result), -EPERM);
}

/* Under --root nothing is inserted: the module is only resolved. */
static void test_ensure_under_root(void **state _unused_)
{
	enum modresult result;

	will_return(__wrap_kmod_module_new_from_lookup, 1);
	expect_value(__wrap_kmod_module_apply_filter, filter_type, KMOD_FILTER_BUILTIN);
	will_return(__wrap_kmod_module_apply_filter, 1);
	expect_blacklist_check(true, NULL);
	assert_int_equal(modload_ensure("/tree", "6.12", "tcp_bbr", false, &result), 0);
	assert_int_equal(result, MODRESULT_WOULD_INSERT);
}

/* Several modules behind one name: the first one present settles it, and
 * the others are not touched (no probe is expected). */
static void test_ensure_several_first_live(void **state _unused_)
{
	enum modresult result;

	will_return(__wrap_kmod_module_new_from_lookup, 2);
	will_return(__wrap_kmod_module_get_initstate, KMOD_MODULE_LIVE);
	assert_int_equal(modload_ensure("", "6.12", "tcp_bbr", true, &result), 0);
	assert_int_equal(result, MODRESULT_PRESENT);
}

/* An install command on any of them refuses the name: every module of the
 * list is looked at. */
static void test_query_several_install_command(void **state _unused_)
{
	enum modstate modstate;

	will_return(__wrap_kmod_module_new_from_lookup, 3);
	expect_value(__wrap_kmod_module_apply_filter, filter_type, KMOD_FILTER_BUILTIN);
	will_return(__wrap_kmod_module_apply_filter, 1);
	expect_value(__wrap_kmod_module_apply_filter, filter_type, KMOD_FILTER_BLACKLIST);
	will_return(__wrap_kmod_module_apply_filter, 1);
	will_return(__wrap_kmod_module_get_install_commands, NULL);
	will_return(__wrap_kmod_module_get_install_commands, NULL);
	will_return(__wrap_kmod_module_get_install_commands, "/bin/false");
	assert_int_equal(modload_query("/tree", "6.12", "tcp_bbr", &modstate), 0);
	assert_int_equal(modstate, MODSTATE_BLACKLISTED);

	will_return(__wrap_kmod_module_new_from_lookup, 3);
	expect_value(__wrap_kmod_module_apply_filter, filter_type, KMOD_FILTER_BUILTIN);
	will_return(__wrap_kmod_module_apply_filter, 1);
	expect_blacklist_check(true, NULL);
	will_return(__wrap_kmod_module_get_install_commands, NULL);
	will_return(__wrap_kmod_module_get_install_commands, NULL);
	assert_int_equal(modload_query("/tree", "6.12", "tcp_bbr", &modstate), 0);
	assert_int_equal(modstate, MODSTATE_MODULE);
}

static void test_query(void **state _unused_)
{
	enum modstate modstate;

	will_return(__wrap_kmod_module_new_from_lookup, 1);
	expect_value(__wrap_kmod_module_apply_filter, filter_type, KMOD_FILTER_BUILTIN);
	will_return(__wrap_kmod_module_apply_filter, 0);
	assert_int_equal(modload_query("/tree", "6.12", "tcp_bbr", &modstate), 0);
	assert_int_equal(modstate, MODSTATE_BUILTIN);

	will_return(__wrap_kmod_module_new_from_lookup, 1);
	expect_value(__wrap_kmod_module_apply_filter, filter_type, KMOD_FILTER_BUILTIN);
	will_return(__wrap_kmod_module_apply_filter, 1);
	expect_blacklist_check(false, NULL);
	assert_int_equal(modload_query("/tree", "6.12", "tcp_bbr", &modstate), 0);
	assert_int_equal(modstate, MODSTATE_BLACKLISTED);

	will_return(__wrap_kmod_module_new_from_lookup, 0);
	assert_int_equal(modload_query("/tree", "6.12", "tcp_bbr", &modstate), 0);
	assert_int_equal(modstate, MODSTATE_MISSING);
}

static char tree[] = "/tmp/test-modload.XXXXXX";

static void tree_file(const char *rel, off_t size)
{
	char path[PATH_MAX_LEN];
	int fd;

	snprintf(path, sizeof(path), "%s%s", tree, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	close(fd);
}

static void tree_fifo(const char *rel)
{
	char path[PATH_MAX_LEN];

	snprintf(path, sizeof(path), "%s%s", tree, rel);
	assert_int_equal(mkfifo(path, 0644), 0);
}

static void tree_remove(const char *rel)
{
	char path[PATH_MAX_LEN];

	snprintf(path, sizeof(path), "%s%s", tree, rel);
	assert_int_equal(remove(path), 0);
}

static int tree_setup(void **state _unused_)
{
	char path[PATH_MAX_LEN];

	assert_non_null(mkdtemp(tree));
	snprintf(path, sizeof(path), "%s/lib/modules/6.12", tree);
	assert_int_equal(mkdir_parents(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/etc/modprobe.d/dir.conf", tree);
	assert_int_equal(mkdir_parents(path, 0755), 0);
	tree_file("/lib/modules/6.12/modules.dep.bin", 113);
	tree_file("/etc/modprobe.d/blacklist.conf", 30);
	return 0;
}

static int tree_teardown(void **state _unused_)
{
	char cmd[PATH_MAX_LEN + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	return system(cmd);
}

/* libkmod would block on a FIFO and read a huge file whole: the question is
 * refused, naming the file, before libkmod sees any of it. A directory, a
 * hidden entry and a dangling link it skips itself. */
static void test_check(void **state _unused_)
{
	enum modstate modstate;
	char file[PATH_MAX_LEN];
	char link[PATH_MAX_LEN];

	snprintf(link, sizeof(link), "%s/etc/modprobe.d/gone.conf", tree);
	assert_int_equal(symlink("/nonexistent", link), 0);
	tree_fifo("/etc/modprobe.d/.hidden.conf");
	tree_fifo("/etc/modprobe.d/notes.txt");
	assert_int_equal(modload_check(tree, "6.12", file, sizeof(file)), 0);

	tree_fifo("/etc/modprobe.d/x.conf");
	assert_int_equal(modload_check(tree, "6.12", file, sizeof(file)), -EBADFD);
	assert_string_equal(file, "/etc/modprobe.d/x.conf");
	/* No lookup is queued: libkmod must not be asked. */
	assert_int_equal(modload_query(tree, "6.12", "tcp_bbr", &modstate), -EBADFD);
	tree_remove("/etc/modprobe.d/x.conf");

	tree_file("/etc/modprobe.d/old.alias", 2 * 1024 * 1024);
	assert_int_equal(modload_check(tree, "6.12", file, sizeof(file)), -EFBIG);
	assert_string_equal(file, "/etc/modprobe.d/old.alias");
	tree_remove("/etc/modprobe.d/old.alias");

	/* libkmod reads a modprobe.d that is not a directory as one file. */
	snprintf(link, sizeof(link), "%s/run", tree);
	assert_int_equal(mkdir(link, 0755), 0);
	tree_fifo("/run/modprobe.d");
	assert_int_equal(modload_check(tree, "6.12", file, sizeof(file)), -EBADFD);
	assert_string_equal(file, "/run/modprobe.d");
	tree_remove("/run/modprobe.d");

	tree_file("/lib/modules/6.12/modules.alias.bin", 1024LL * 1024 * 1024);
	assert_int_equal(modload_check(tree, "6.12", file, sizeof(file)), -EFBIG);
	assert_string_equal(file, "/lib/modules/6.12/modules.alias.bin");
	tree_remove("/lib/modules/6.12/modules.alias.bin");

	tree_fifo("/lib/modules/6.12/modules.softdep");
	assert_int_equal(modload_check(tree, "6.12", file, sizeof(file)), -EBADFD);
	assert_string_equal(file, "/lib/modules/6.12/modules.softdep");
	tree_remove("/lib/modules/6.12/modules.softdep");

	assert_int_equal(modload_check(tree, "6.12", file, sizeof(file)), 0);
}

/* An insert reads the module's file: one that is not a regular file is not
 * handed to libkmod. */
static void test_ensure_module_file(void **state _unused_)
{
	enum modresult result;
	char path[PATH_MAX_LEN];

	snprintf(path, sizeof(path), "%s/lib/modules/6.12/tcp_bbr.ko", tree);
	assert_int_equal(mkfifo(path, 0644), 0);
	fake_path = path;
	will_return(__wrap_kmod_module_new_from_lookup, 1);
	assert_int_equal(modload_ensure("", "6.12", "tcp_bbr", true, &result), -EBADFD);
	fake_path = NULL;
	assert_int_equal(remove(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ensure_builtin),
		cmocka_unit_test(test_ensure_live),
		cmocka_unit_test(test_ensure_inserted),
		cmocka_unit_test(test_ensure_blacklisted),
		cmocka_unit_test(test_ensure_install_command),
		cmocka_unit_test(test_ensure_probe_blacklisted),
		cmocka_unit_test(test_ensure_not_found),
		cmocka_unit_test(test_ensure_eperm),
		cmocka_unit_test(test_ensure_under_root),
		cmocka_unit_test(test_ensure_several_first_live),
		cmocka_unit_test(test_query_several_install_command),
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_ensure_module_file),
	};

	return cmocka_run_group_tests_name("modload", tests, tree_setup, tree_teardown);
}
