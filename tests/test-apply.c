/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply_decide: one key's facts against what apply does with it. Then apply
 * and revert, run as main runs them, on copies of the captured
 * debian13-2cpu tree with a small fragment of our own: each row is one
 * decision for one key (set it, already in effect, skipped, left to another
 * file, a record put back, kept or dropped), asserted by the values under
 * the tree's proc/sys, the journal's bytes, what is printed and the exit
 * status. A journal a row starts from is written as bytes and read by the
 * command itself. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "command.h"
#include "helpers.h"
#include "journal.h"
#include "log.h"
#include "render.h"

#define FIXTURE "/debian13-2cpu"

#define JOURNAL_END "# end\n"

/* The fixture's values of the keys the rows use. */
#define SOMAXCONN "net.core.somaxconn"
#define FIN "net.ipv4.tcp_fin_timeout"
#define PROBES "net.ipv4.tcp_keepalive_probes"
#define RMEM_MAX "net.core.rmem_max"
#define QDISC "net.core.default_qdisc"
#define CONGESTION "net.ipv4.tcp_congestion_control"
#define ALLOWED "net.ipv4.tcp_allowed_congestion_control"
#define FORWARD "net.ipv4.ip_forward"
#define BOTH SOMAXCONN " = 65535\n" FIN " = 15\n"

#define PREFIX "wp-panel-nettune: "

struct apply_case {
	const char *name;
	const char *command; /* "apply" or "revert" */
	bool dry_run;
	const char *fragment; /* NULL: none */
	/* Before the run, under proc/sys: "KEY=VALUE" writes the value,
	 * "KEY" removes the file, "KEY/" puts a directory in its place. */
	const char *live[3];
	const char *file, *file_text; /* one more file under the tree */
	const char *journal; /* its steps, NULL for none */
	int status;
	const char *output; /* stdout and stderr, the tree's path as ROOT */
	const char *after[3]; /* "KEY=VALUE" under proc/sys after the run */
	const char *journal_after; /* its steps, NULL for no journal */
};

static const struct apply_case cases[] = {
	{
		.name = "set: the original and what the kernel holds are recorded",
		.fragment = BOTH,
		.output = "set " SOMAXCONN " = 65535 (was 4096)\n"
			  "set " FIN " = 15 (was 60)\n"
			  "Set 2 keys, 0 already in effect, 0 skipped.\n",
		.after = { SOMAXCONN "=65535", FIN "=15" },
		.journal_after = "key\t" SOMAXCONN "\t4096\t65535\n"
				 "key\t" FIN "\t60\t15\n",
	},
	{
		.name = "already in effect: not written, nothing recorded",
		.fragment = BOTH,
		.live = { SOMAXCONN "=65535" },
		.output = "set " FIN " = 15 (was 60)\n"
			  "Set 1 key, 1 already in effect, 0 skipped.\n",
		.after = { SOMAXCONN "=65535", FIN "=15" },
		.journal_after = "key\t" FIN "\t60\t15\n",
	},
	{
		.name = "in effect, written by a run stopped before it recorded it: settled",
		.fragment = SOMAXCONN " = 65535\n",
		.live = { SOMAXCONN "=65535" },
		.journal = "key\t" SOMAXCONN "\t4096\t4096\t65535\n",
		.output = "Set 0 keys, 1 already in effect, 0 skipped.\n",
		.after = { SOMAXCONN "=65535" },
		.journal_after = "key\t" SOMAXCONN "\t4096\t65535\n",
	},
	{
		.name = "in effect after a boot with an edited fragment: the record follows",
		.fragment = SOMAXCONN " = 1234\n",
		.live = { SOMAXCONN "=1234" },
		.journal = "key\t" SOMAXCONN "\t4096\t65535\n",
		.output = "Set 0 keys, 1 already in effect, 0 skipped.\n",
		.after = { SOMAXCONN "=1234" },
		.journal_after = "key\t" SOMAXCONN "\t4096\t1234\n",
	},
	{
		.name = "a second apply keeps the recorded original",
		.fragment = SOMAXCONN " = 1234\n",
		.live = { SOMAXCONN "=65535" },
		.journal = "key\t" SOMAXCONN "\t4096\t65535\n",
		.output = "set " SOMAXCONN " = 1234 (was 65535)\n"
			  "Set 1 key, 0 already in effect, 0 skipped.\n",
		.after = { SOMAXCONN "=1234" },
		.journal_after = "key\t" SOMAXCONN "\t4096\t1234\n",
	},
	{
		.name = "set back to its original: the record is no longer needed",
		.fragment = SOMAXCONN " = 4096\n",
		.live = { SOMAXCONN "=65535" },
		.journal = "key\t" SOMAXCONN "\t4096\t65535\n",
		.output = "set " SOMAXCONN " = 4096 (was 65535)\n"
			  "Set 1 key, 0 already in effect, 0 skipped.\n",
		.after = { SOMAXCONN "=4096" },
	},
	{
		.name = "a key this kernel lacks: a warning, skipped",
		.fragment = SOMAXCONN " = 65535\n" PROBES " = 5\n",
		.live = { PROBES },
		.output = "set " SOMAXCONN " = 65535 (was 4096)\n" PREFIX
			  "apply: warning: " PROBES " is not in this kernel or namespace, "
			  "ignoring\n"
			  "Set 1 key, 0 already in effect, 1 skipped.\n",
		.after = { SOMAXCONN "=65535" },
		.journal_after = "key\t" SOMAXCONN "\t4096\t65535\n",
	},
	{
		.name = "a key this kernel lacks, first: the keys after it are still set",
		.fragment = PROBES " = 5\n" SOMAXCONN " = 65535\n",
		.live = { PROBES },
		.output = PREFIX "apply: warning: " PROBES
				 " is not in this kernel or namespace, "
				 "ignoring\n"
				 "set " SOMAXCONN " = 65535 (was 4096)\n"
				 "Set 1 key, 0 already in effect, 1 skipped.\n",
		.after = { SOMAXCONN "=65535" },
		.journal_after = "key\t" SOMAXCONN "\t4096\t65535\n",
	},
	{
		.name = "a key that cannot be read: an error, after every key is tried",
		.fragment = FIN " = 15\n" SOMAXCONN " = 65535\n",
		.live = { FIN "/" },
		.status = EXIT_FAILURE,
		.output = PREFIX "apply: cannot read " FIN ": not a regular file\n"
				 "set " SOMAXCONN " = 65535 (was 4096)\n"
				 "Set 1 key, 0 already in effect, 0 skipped.\n",
		.after = { SOMAXCONN "=65535" },
		.journal_after = "key\t" SOMAXCONN "\t4096\t65535\n",
	},
	{
		.name = "a \"-\" key that cannot be read: a warning, skipped",
		.fragment = "-" RMEM_MAX " = 16777216\n",
		.live = { RMEM_MAX "/" },
		.output = PREFIX "apply: warning: cannot read " RMEM_MAX
				 ": not a regular file, ignoring\n"
				 "Set 0 keys, 0 already in effect, 1 skipped.\n",
	},
	{
		.name = "a \"-\" key this kernel lacks: skipped quietly",
		.fragment = "-" RMEM_MAX " = 16777216\n" SOMAXCONN " = 65535\n",
		.live = { RMEM_MAX },
		.output = "set " SOMAXCONN " = 65535 (was 4096)\n"
			  "Set 1 key, 0 already in effect, 1 skipped.\n",
		.after = { SOMAXCONN "=65535" },
		.journal_after = "key\t" SOMAXCONN "\t4096\t65535\n",
	},
	{
		.name = "not a key of the profile: not written, not recorded",
		.fragment = FORWARD " = 1\n",
		.live = { FORWARD "=0" },
		.output = PREFIX "apply: warning: not setting " FORWARD " = 1: not a key "
				 "of the profile, which purge could not put back; set it "
				 "in a sysctl.d file of your own\n"
				 "Set 0 keys, 0 already in effect, 1 skipped.\n",
		.after = { FORWARD "=0" },
	},
	{
		.name = "another file sets it at boot: left alone, no original recorded",
		.fragment = BOTH,
		.file = "/etc/sysctl.d/70-local.conf",
		.file_text = FIN " = 30\n",
		.output = "set " SOMAXCONN " = 65535 (was 4096)\n"
			  "left " FIN " alone: ROOT/etc/sysctl.d/70-local.conf sets it to "
			  "30 at boot\n"
			  "Set 1 key, 0 already in effect, 0 skipped, 1 left to another "
			  "file.\n",
		.after = { SOMAXCONN "=65535", FIN "=60" },
		.journal_after = "key\t" SOMAXCONN "\t4096\t65535\n",
	},
	{
		.name = "left alone, the record of an earlier apply stays",
		.fragment = BOTH,
		.live = { FIN "=15" },
		.file = "/etc/sysctl.d/70-local.conf",
		.file_text = FIN " = 30\n",
		.journal = "key\t" FIN "\t60\t15\n",
		.output = "set " SOMAXCONN " = 65535 (was 4096)\n"
			  "left " FIN " alone: ROOT/etc/sysctl.d/70-local.conf sets it to "
			  "30 at boot\n"
			  "Set 1 key, 0 already in effect, 0 skipped, 1 left to another "
			  "file.\n",
		.after = { SOMAXCONN "=65535", FIN "=15" },
		.journal_after = "key\t" FIN "\t60\t15\n"
				 "key\t" SOMAXCONN "\t4096\t65535\n",
	},
	{
		.name = "a file read before ours does not win",
		.fragment = FIN " = 15\n",
		.file = "/etc/sysctl.d/50-early.conf",
		.file_text = FIN " = 30\n",
		.output = "set " FIN " = 15 (was 60)\n"
			  "Set 1 key, 0 already in effect, 0 skipped.\n",
		.after = { FIN "=15" },
		.journal_after = "key\t" FIN "\t60\t15\n",
	},
	{
		.name = "a glob in a later file never beats the fragment's own key",
		.fragment = FIN " = 15\n",
		.file = "/etc/sysctl.d/70-glob.conf",
		.file_text = "net.ipv4.tcp_fin_* = 30\n",
		.output = "set " FIN " = 15 (was 60)\n"
			  "Set 1 key, 0 already in effect, 0 skipped.\n",
		.after = { FIN "=15" },
		.journal_after = "key\t" FIN "\t60\t15\n",
	},
	{
		.name = "a value whose module is blacklisted: not written",
		.fragment = QDISC " = fq\n",
		.file = "/etc/modprobe.d/no-fq.conf",
		.file_text = "blacklist sch_fq\n",
		.output = PREFIX "apply: warning: not setting " QDISC " = fq: its module "
				 "is blacklisted, and the kernel would load it anyway\n"
				 "Set 0 keys, 0 already in effect, 1 skipped.\n",
		.after = { QDISC "=fq_codel" },
	},
	{
		/* A tree's kernel does not widen the allowed list: its record,
		 * made ahead of the write, is settled away after it. */
		.name = "bbr: the allowed list it would widen is recorded only if widened",
		.fragment = CONGESTION " = bbr\n",
		.output = "set " CONGESTION " = bbr (was cubic)\n"
			  "Set 1 key, 0 already in effect, 0 skipped.\n",
		.after = { CONGESTION "=bbr", ALLOWED "=reno cubic" },
		.journal_after = "key\t" CONGESTION "\tcubic\tbbr\n",
	},
	{
		.name = "--dry-run: said, nothing written or recorded",
		.dry_run = true,
		.fragment = BOTH,
		.live = { FIN "=15" },
		.journal = "key\t" FIN "\t60\t60\t15\n",
		.output = "would set " SOMAXCONN " = 65535 (now 4096)\n"
			  "Would set 1 key, 1 already in effect, 0 skipped.\n",
		.after = { SOMAXCONN "=4096", FIN "=15" },
		.journal_after = "key\t" FIN "\t60\t60\t15\n",
	},
	{
		.name = "a record the fragment no longer names is put back",
		.fragment = SOMAXCONN " = 65535\n",
		.live = { FIN "=15" },
		.journal = "key\t" FIN "\t60\t15\n",
		.output = "set " SOMAXCONN " = 65535 (was 4096)\n"
			  "restored " FIN " = 60\n"
			  "Set 1 key, 0 already in effect, 0 skipped.\n",
		.after = { SOMAXCONN "=65535", FIN "=60" },
		.journal_after = "key\t" SOMAXCONN "\t4096\t65535\n",
	},
	{
		.name = "one no longer ours is left, its record dropped",
		.fragment = SOMAXCONN " = 65535\n",
		.live = { FIN "=77" },
		.journal = "key\t" FIN "\t60\t15\n",
		.output = "set " SOMAXCONN " = 65535 (was 4096)\n" PREFIX
			  "apply: warning: " FIN " is now 77, changed since it was set to "
			  "15; leaving it\n"
			  "Set 1 key, 0 already in effect, 0 skipped.\n",
		.after = { SOMAXCONN "=65535", FIN "=77" },
		.journal_after = "key\t" SOMAXCONN "\t4096\t65535\n",
	},
	{
		.name = "one ours by its pending value is put back",
		.fragment = SOMAXCONN " = 65535\n",
		.live = { FIN "=15" },
		.journal = "key\t" FIN "\t60\t60\t15\n",
		.output = "set " SOMAXCONN " = 65535 (was 4096)\n"
			  "restored " FIN " = 60\n"
			  "Set 1 key, 0 already in effect, 0 skipped.\n",
		.after = { SOMAXCONN "=65535", FIN "=60" },
		.journal_after = "key\t" SOMAXCONN "\t4096\t65535\n",
	},
	{
		.name = "one back at its original is dropped, said nothing of",
		.fragment = SOMAXCONN " = 65535\n",
		.journal = "key\t" FIN "\t60\t15\n",
		.output = "set " SOMAXCONN " = 65535 (was 4096)\n"
			  "Set 1 key, 0 already in effect, 0 skipped.\n",
		.after = { SOMAXCONN "=65535", FIN "=60" },
		.journal_after = "key\t" SOMAXCONN "\t4096\t65535\n",
	},
	{
		.name = "revert: what is still ours back, the rest left",
		.command = "revert",
		.live = { SOMAXCONN "=65535", FIN "=77" },
		.journal = "key\t" SOMAXCONN "\t4096\t65535\n"
			   "key\t" FIN "\t60\t15\n",
		.output = "restored " SOMAXCONN " = 4096\n" PREFIX "revert: warning: " FIN
			  " is now 77, changed since it was set "
			  "to 15; leaving it\n",
		.after = { SOMAXCONN "=4096", FIN "=77" },
	},
	{
		.name = "revert: a key gone from the kernel is settled",
		.command = "revert",
		.live = { PROBES },
		.journal = "key\t" PROBES "\t9\t5\n",
		.output = PREFIX "revert: warning: " PROBES " is gone from this kernel, "
				 "ignoring\n",
	},
	{
		.name = "revert: a key that cannot be read stays recorded",
		.command = "revert",
		.live = { SOMAXCONN "=65535", FIN "/" },
		.journal = "key\t" SOMAXCONN "\t4096\t65535\n"
			   "key\t" FIN "\t60\t15\n",
		.status = EXIT_FAILURE,
		.output = "restored " SOMAXCONN " = 4096\n" PREFIX
			  "revert: cannot read " FIN ": not a regular file\n",
		.after = { SOMAXCONN "=4096" },
		.journal_after = "key\t" FIN "\t60\t15\n",
	},
	{
		.name = "revert --dry-run: said, nothing written",
		.command = "revert",
		.dry_run = true,
		.live = { SOMAXCONN "=65535" },
		.journal = "key\t" SOMAXCONN "\t4096\t65535\n",
		.output = "would restore " SOMAXCONN " = 4096 (now 65535)\n",
		.after = { SOMAXCONN "=65535" },
		.journal_after = "key\t" SOMAXCONN "\t4096\t65535\n",
	},
	{
		.name = "revert with nothing recorded",
		.command = "revert",
		.output = "No kernel value recorded: nothing to revert.\n",
		.after = { SOMAXCONN "=4096" },
	},
};

static void key_path(char *buf, size_t size, const char *key, size_t len)
{
	snprintf(buf, size, "/proc/sys/%.*s", (int)len, key);
	for (char *p = buf + strlen("/proc/sys/"); *p; p++)
		if (*p == '.')
			*p = '/';
}

static char *tree_new(void)
{
	const char *fixtures = getenv("NETTUNE_FIXTURES");
	char *root = scratch_new(), command[3 * PATH_MAX_LEN];

	snprintf(command, sizeof(command), "cp -a '%s" FIXTURE "/.' '%s'",
		 fixtures ? fixtures : "tests/fixtures", root);
	assert_int_equal(system(command), 0);
	scratch_write(root, "/var/lib/.keep", "");
	return root;
}

static void tree_set(const char *root, const char *live)
{
	const char *eq = strchr(live, '=');
	size_t len = eq ? (size_t)(eq - live) : strlen(live);
	char rel[PATH_MAX_LEN], full[PATH_MAX_LEN + PATH_MAX_LEN], value[VALUE_MAX + 2];
	bool dir = live[len - 1] == '/';

	key_path(rel, sizeof(rel), live, dir ? len - 1 : len);
	if (eq) {
		snprintf(value, sizeof(value), "%s\n", eq + 1);
		scratch_write(root, rel, value);
		return;
	}
	snprintf(full, sizeof(full), "%s%s", root, rel);
	assert_int_equal(unlink(full), 0);
	if (dir)
		assert_int_equal(mkdir(full, 0755), 0);
}

/* Runs the command as main would, its stdout and stderr in one file, read
 * back with the tree's path written ROOT. */
static int run(const struct apply_case *c, const char *root, char *out, size_t size)
{
	const struct command *cmd = c->command ? command_find(c->command) :
						 &command_apply;
	char *argv[] = { (char *)cmd->name, c->dry_run ? "--dry-run" : NULL, NULL };
	struct context ctx = { .root = root };
	char raw[8192];
	int saved_out, saved_err, fd, status;
	size_t len, root_len = strlen(root);
	FILE *f = tmpfile();

	assert_non_null(f);
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(STDOUT_FILENO);
	saved_err = dup(STDERR_FILENO);
	fd = fileno(f);
	assert_true(dup2(fd, STDOUT_FILENO) >= 0 && dup2(fd, STDERR_FILENO) >= 0);
	log_command = cmd->name;
	optind = 0;
	status = cmd->run(&ctx, c->dry_run ? 2 : 1, argv);
	fflush(stdout);
	dup2(saved_out, STDOUT_FILENO);
	dup2(saved_err, STDERR_FILENO);
	close(saved_out);
	close(saved_err);
	log_command = NULL;

	rewind(f);
	len = fread(raw, 1, sizeof(raw) - 1, f);
	raw[len] = '\0';
	fclose(f);
	len = 0;
	for (const char *from = raw; *from && len + 5 < size;) {
		if (strncmp(from, root, root_len) == 0) {
			memcpy(out + len, "ROOT", 4);
			len += 4;
			from += root_len;
		} else {
			out[len++] = *from++;
		}
	}
	out[len] = '\0';
	return status;
}

static void test_apply_decisions(void **state _unused_)
{
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		const struct apply_case *c = &cases[i];
		char *root = tree_new(), out[8192], want[8192], *journal;

		print_message("%s\n", c->name);
		for (size_t j = 0; j < ELEMENTSOF(c->live) && c->live[j]; j++)
			tree_set(root, c->live[j]);
		if (c->fragment)
			scratch_write(root, FRAGMENT_SYSCTL, c->fragment);
		if (c->file)
			scratch_write(root, c->file, c->file_text);
		if (c->journal) {
			snprintf(want, sizeof(want), JOURNAL_HEADER "%s" JOURNAL_END,
				 c->journal);
			scratch_write(root, STATE_JOURNAL, want);
		}

		assert_int_equal(run(c, root, out, sizeof(out)), c->status);
		assert_string_equal(out, c->output);
		for (size_t j = 0; j < ELEMENTSOF(c->after) && c->after[j]; j++) {
			const char *eq = strchr(c->after[j], '=');
			char rel[PATH_MAX_LEN];

			key_path(rel, sizeof(rel), c->after[j],
				 (size_t)(eq - c->after[j]));
			snprintf(want, sizeof(want), "%s\n", eq + 1);
			assert_non_null(scratch_read(root, rel));
			assert_string_equal(scratch_read(root, rel), want);
		}
		journal = scratch_read(root, STATE_JOURNAL);
		if (c->journal_after) {
			snprintf(want, sizeof(want), JOURNAL_HEADER "%s" JOURNAL_END,
				 c->journal_after);
			assert_non_null(journal);
			assert_string_equal(journal, want);
		} else {
			assert_null(journal);
		}
		scratch_free(root);
	}
}

/* The journal's step for somaxconn: original, applied, pending. */
#define STEP(o, a, p) (&(const struct record){ SOMAXCONN, o, a, p })

static void test_apply_decide(void **state _unused_)
{
	static const char *const name[] = {
		[APPLY_NOT_PROFILE] = "not-profile",
		[APPLY_OTHER_FILE] = "other-file",
		[APPLY_UNREADABLE] = "unreadable",
		[APPLY_IN_EFFECT] = "in-effect",
		[APPLY_SETTLE] = "settle",
		[APPLY_MODULE_REFUSED] = "module-refused",
		[APPLY_WOULD_SET] = "would-set",
		[APPLY_SET] = "set",
	};
	/* Not static: the steps are compound literals. */
	const struct {
		const char *why;
		struct apply_facts facts;
		enum apply_action want;
	} rows[] = {
		{ "not of the profile, whatever else is known of it",
		  { .other_file = true, .read_error = -ENOENT, .live = "", .wanted = "1" },
		  APPLY_NOT_PROFILE },
		{ "not of the profile, in a dry run too",
		  { .live = "0", .wanted = "1", .dry_run = true },
		  APPLY_NOT_PROFILE },
		{ "another file sets it: left to it, its live value never read",
		  { .journaled = true,
		    .other_file = true,
		    .read_error = -ENOENT,
		    .live = "",
		    .wanted = "65535" },
		  APPLY_OTHER_FILE },
		{ "another file sets it, to the same value as ours",
		  { .journaled = true,
		    .other_file = true,
		    .live = "65535",
		    .wanted = "65535" },
		  APPLY_OTHER_FILE },
		{ "its live value cannot be read",
		  { .journaled = true,
		    .read_error = -ENOENT,
		    .live = "",
		    .wanted = "65535" },
		  APPLY_UNREADABLE },
		{ "its live value cannot be read, with a step",
		  { .journaled = true,
		    .read_error = -EACCES,
		    .live = "",
		    .wanted = "65535",
		    .rec = STEP("4096", "65535", "") },
		  APPLY_UNREADABLE },
		{ "live already, no step",
		  { .journaled = true, .live = "65535", .wanted = "65535" },
		  APPLY_IN_EFFECT },
		{ "live already, the step as apply left it",
		  { .journaled = true,
		    .live = "65535",
		    .wanted = "65535",
		    .rec = STEP("4096", "65535", "") },
		  APPLY_IN_EFFECT },
		{ "live after a boot with an edited fragment: the step follows",
		  { .journaled = true,
		    .live = "1234",
		    .wanted = "1234",
		    .rec = STEP("4096", "65535", "") },
		  APPLY_SETTLE },
		{ "written by a run stopped before it recorded it: settled",
		  { .journaled = true,
		    .live = "65535",
		    .wanted = "65535",
		    .rec = STEP("4096", "4096", "65535") },
		  APPLY_SETTLE },
		{ "a write that never came, its value wanted no more: the step settled",
		  { .journaled = true,
		    .live = "65535",
		    .wanted = "65535",
		    .rec = STEP("4096", "65535", "1234") },
		  APPLY_SETTLE },
		{ "the same in a dry run: nothing written",
		  { .journaled = true,
		    .live = "65535",
		    .wanted = "65535",
		    .rec = STEP("4096", "4096", "65535"),
		    .dry_run = true },
		  APPLY_IN_EFFECT },
		{ "live already, its module blacklisted: nothing to write",
		  { .journaled = true,
		    .live = "fq",
		    .wanted = "fq",
		    .module_refused = true },
		  APPLY_IN_EFFECT },
		{ "another value live, its module blacklisted",
		  { .journaled = true,
		    .live = "fq_codel",
		    .wanted = "fq",
		    .module_refused = true },
		  APPLY_MODULE_REFUSED },
		{ "the same in a dry run",
		  { .journaled = true,
		    .live = "fq_codel",
		    .wanted = "fq",
		    .module_refused = true,
		    .dry_run = true },
		  APPLY_MODULE_REFUSED },
		{ "another value live, in a dry run",
		  { .journaled = true, .live = "4096", .wanted = "65535", .dry_run = true },
		  APPLY_WOULD_SET },
		{ "another value live",
		  { .journaled = true, .live = "4096", .wanted = "65535" },
		  APPLY_SET },
		{ "another value live, with the step of an earlier apply",
		  { .journaled = true,
		    .live = "65535",
		    .wanted = "1234",
		    .rec = STEP("4096", "65535", "") },
		  APPLY_SET },
	};
	bool seen[ELEMENTSOF(name)] = { false };
	unsigned failed = 0;

	for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
		enum apply_action got = apply_decide(&rows[i].facts);

		if (got != rows[i].want) {
			print_error("%s: %s, not %s\n", rows[i].why, name[got],
				    name[rows[i].want]);
			failed++;
		}
		seen[got] = true;
	}
	assert_int_equal(failed, 0);
	for (size_t a = 0; a < ELEMENTSOF(name); a++)
		if (!seen[a])
			fail_msg("no case gives %s", name[a]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_apply_decide),
		cmocka_unit_test(test_apply_decisions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
