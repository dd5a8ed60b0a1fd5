# Tests. make check runs the groups in turn; each has its own target, with
# its line in the list at the top of the Makefile (make help). As root,
# check-unit's leave-alone-test also tries read-only mounts.

UNIT_TESTS = util sysctl sysctld modulesd journal seal profile render rendered sysinfo modload takeover json expo report route \
	initwnd command apply
UNIT_BINS = $(patsubst %,$(B)/test-%,$(UNIT_TESTS))
LIB_OBJ = $(patsubst src/%.c,$(B)/%.o,$(LIB_SRC))
KMOD_WRAPS = kmod_new kmod_unref kmod_set_log_fn kmod_module_new_from_lookup \
	kmod_module_apply_filter kmod_module_get_install_commands kmod_module_get_initstate \
	kmod_module_probe_insert_module kmod_module_unref_list kmod_module_unref \
	kmod_module_get_module kmod_list_next kmod_module_get_name kmod_module_get_path
SAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all

$(B)/tests/%.o: tests/%.c | need-libkmod need-cmocka
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BASE_CFLAGS) $(CFLAGS) $(KMOD_CFLAGS) -Isrc -MMD -MP -c -o $@ $<

$(B)/test-modload: $(B)/tests/test-modload.o $(B)/modload.o $(B)/util.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(patsubst %,-Wl$(,)--wrap=%,$(KMOD_WRAPS)) \
		$(CMOCKA_LIBS) $(KMOD_LIBS)

$(B)/dump-%: $(B)/tests/dump-%.o $(LIB_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(KMOD_LIBS) $(LIBBPF_LIBS)

$(B)/test-%: $(B)/tests/test-%.o $(B)/tests/helpers.o $(LIB_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(KMOD_LIBS) $(LIBBPF_LIBS)

, := ,

CHECK_GROUPS = check-deps check-unit check-sanitize check-robust check-fuzz check-netns \
	check-sockops check-bench-report check-repro check-alerts check-vm

# The tests run the programs check-deps installs, Debian's, ahead of what a
# user's PATH puts first: a python3 of pyenv or of a virtualenv has neither
# Debian's modules nor its version, and pyenv's shim, a shell script, cost
# a third of a second of each of the suite's python3 runs on the machine
# where it was found. The rest of PATH follows.
check $(CHECK_GROUPS): export PATH := /usr/sbin:/usr/bin:/sbin:/bin:$(PATH)

# check-deps, then check-vm beside the other groups in turn (tests/check-all.sh),
# then the seconds of each and of each VM scenario.
check:
	@tests/check-all.sh "$(MAKE)" $(CHECK_GROUPS)

check-deps:
	tools/install-deps build check bpf deb vm cross vm-arm64 publish

# The tests of check-unit that neither run the helper nor link its code: the
# sanitizer build leaves them out, having nothing of its own to give them.
HELPER_FREE_TESTS = tests/debconf-po-test.sh tests/make-test.sh tests/maintainer-test.sh \
	tests/readme-zh-test.sh tests/man-zh-test.sh

check-unit: $(B)/wp-panel-nettune $(UNIT_BINS) $(B)/dump-tunables $(B)/dump-commands \
		$(B)/l10n/wp-panel-nettune $(B)/wp-panel-nettune.pot $(MO_FILES)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done
	tests/root-test.sh $(B)/wp-panel-nettune
	tests/output-test.sh $(B)/wp-panel-nettune
	tests/design-test.sh $(B)/wp-panel-nettune $(B)/dump-tunables
	tests/leave-alone-test.sh $(B)/wp-panel-nettune
	tests/postrm-journal-test.sh $(B)/wp-panel-nettune $(B)/dump-tunables build/fuzz/corpus-journal
	tests/debconf-config-test.sh $(B)/wp-panel-nettune
	tests/cli-test.sh $(B)/wp-panel-nettune $(B)/dump-commands
	tests/completion-test.sh $(B)/wp-panel-nettune $(B)/dump-commands
	tests/l10n-test.sh $(B)/l10n/wp-panel-nettune $(B)/wp-panel-nettune.pot
	@set -e; for t in $(HELPER_FREE_TESTS); do echo "== $$t"; $$t; done

check-sanitize:
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
		$(MAKE) B=build/sanitize CFLAGS="$(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" HELPER_FREE_TESTS= check-unit

check-robust: $(B)/wp-panel-nettune
	tests/robust-test.sh $(B)/wp-panel-nettune
	@set -e; for t in tests/robust/*.sh; do echo "== $$t"; $$t $(B)/wp-panel-nettune; done

# libFuzzer needs clang. The corpus grows in build/fuzz/corpus-*, seeded from
# tests/fuzz/seed-*.
FUZZ_TARGETS = sysctld journal
FUZZ_SRC = src/util.c src/dirfd.c src/sysctl.c src/sysctld.c src/journal.c
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_SECONDS = 600
FUZZ_CHECK_SECONDS = 5

$(B)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ_SRC) src/*.h | need-clang
	@mkdir -p $(@D)
	$(CLANG) $(BASE_CFLAGS) $(FUZZ_FLAGS) -Isrc -o $@ $< $(FUZZ_SRC)

fuzz-run = set -e; for t in $(FUZZ_TARGETS); do \
		mkdir -p $(B)/fuzz/corpus-$$t; \
		echo "== fuzz-$$t, $(1) s"; \
		$(B)/fuzz/fuzz-$$t -max_total_time=$(1) -max_len=4096 -print_final_stats=1 \
			-artifact_prefix=$(B)/fuzz/$$t- \
			$(B)/fuzz/corpus-$$t tests/fuzz/seed-$$t >$(B)/fuzz/$$t.log 2>&1 || \
			{ tail -n 40 $(B)/fuzz/$$t.log; exit 1; }; \
		grep -E '^stat::number_of_executed_units' $(B)/fuzz/$$t.log; \
	done

check-fuzz: $(patsubst %,$(B)/fuzz/fuzz-%,$(FUZZ_TARGETS))
	@$(call fuzz-run,$(FUZZ_CHECK_SECONDS))

fuzz: $(patsubst %,$(B)/fuzz/fuzz-%,$(FUZZ_TARGETS))
	@$(call fuzz-run,$(FUZZ_SECONDS))

check-netns: $(B)/wp-panel-nettune
	tests/netns-test.sh $(B)/wp-panel-nettune

$(B)/sockops-ctl: $(B)/tests/sockops-ctl.o $(B)/sockops.o $(B)/bpfobj.o $(B)/util.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBBPF_LIBS)

$(B)/test-sockops: $(B)/tests/test-sockops.o $(B)/tests/helpers.o $(B)/sockops.o $(B)/bpfobj.o \
		$(B)/util.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(LIBBPF_LIBS)

# The loader with an earlier build of the program, for check-sockops: the
# source less its test of the kernel's default window, the program before
# it raised only that, as an upgrade finds the version before's attached.
$(B)/earlier/bpf/initwnd.bpf.o: src/bpf/initwnd.bpf.c | need-bpf
	@mkdir -p $(@D)
	sed 's/ || skops->snd_cwnd != TCP_INIT_CWND)/)/' $< >$(@D)/initwnd.bpf.c
	@! cmp -s $< $(@D)/initwnd.bpf.c || { echo "$<: the earlier build's edit no longer applies" >&2; exit 1; }
	$(BPF_CLANG) $(BPF_CFLAGS) -Isrc/bpf -c -o $@ $(@D)/initwnd.bpf.c
$(B)/earlier/initwnd.skel.h: $(B)/earlier/bpf/initwnd.bpf.o | need-bpf
	$(BPFTOOL) gen skeleton $< name initwnd_bpf >$@.tmp
	mv $@.tmp $@
$(B)/earlier/sockops.o: src/sockops.c $(B)/earlier/initwnd.skel.h | need-libkmod
	$(CC) $(CPPFLAGS) -I$(B)/earlier $(BASE_CFLAGS) $(CFLAGS) -c -o $@ $<
$(B)/sockops-ctl-earlier: $(B)/tests/sockops-ctl.o $(B)/earlier/sockops.o $(B)/bpfobj.o $(B)/util.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBBPF_LIBS)

check-sockops: $(B)/test-sockops $(B)/sockops-ctl $(B)/sockops-ctl-earlier $(B)/bpf/initwnd.bpf.o
	$(B)/test-sockops
	tests/sockops-test.sh $(B)/sockops-ctl $(B)/bpf/initwnd.bpf.o $(B)/sockops-ctl-earlier

check-bench-report:
	tests/bench-report-test.sh

check-repro:
	tests/repro-test.sh

check-alerts: $(B)/wp-panel-nettune
	tests/alert-test.sh $(B)/wp-panel-nettune

check-vm:
	tests/vm/run
.PHONY: check-repro

# The expected outputs of the --root fixture tests, written anew by this
# helper: after a change to the profile or to what a command prints, review
# the diff it shows and commit it with the change.
fixtures: $(B)/wp-panel-nettune
	NETTUNE_UPDATE_EXPECTED=1 tests/root-test.sh $(B)/wp-panel-nettune >$(B)/fixtures.log || \
		{ grep -v '^ok' $(B)/fixtures.log; exit 1; }
	@git diff --stat -- tests/expected 2>/dev/null; git status --short -- tests/expected 2>/dev/null | grep '^??' || true

.PHONY: fixtures check check-deps check-unit check-sanitize check-robust check-fuzz fuzz check-netns check-sockops check-bench-report check-alerts check-vm
