# Tests. make check runs them all; each group also has its own target.
#   check-unit      cmocka unit tests and the --root fixture tests (no root needed)
#   check-sanitize  the same, built with AddressSanitizer and UBSan
#   check-robust    concurrent runs, and runs killed at every write (strace)
#   check-netns     apply and revert against the real kernel in a throwaway netns (root)
#   check-repro     two builds of the package are byte-identical (root, make-deb)
#   check-vm        the Debian 13 acceptance scenarios in a QEMU VM (root)

UNIT_TESTS = util sysctl sysctld state profile render sysinfo modload takeover
UNIT_BINS = $(patsubst %,$(B)/test-%,$(UNIT_TESTS))
LIB_OBJ = $(patsubst src/%.c,$(B)/%.o,$(LIB_SRC))
KMOD_WRAPS = kmod_new kmod_unref kmod_set_log_fn kmod_module_new_from_lookup \
	kmod_module_apply_filter kmod_module_get_install_commands kmod_module_get_initstate \
	kmod_module_probe_insert_module kmod_module_unref_list kmod_module_unref \
	kmod_module_get_module kmod_list_next
SAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all

$(B)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BASE_CFLAGS) $(CFLAGS) $(KMOD_CFLAGS) -Isrc -MMD -MP -c -o $@ $<

$(B)/test-modload: $(B)/tests/test-modload.o $(B)/modload.o $(B)/util.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(patsubst %,-Wl$(,)--wrap=%,$(KMOD_WRAPS)) \
		$(CMOCKA_LIBS) $(KMOD_LIBS)

$(B)/dump-tunables: $(B)/tests/dump-tunables.o $(LIB_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(KMOD_LIBS)

$(B)/test-%: $(B)/tests/test-%.o $(B)/tests/helpers.o $(LIB_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(KMOD_LIBS)

, := ,

check: check-deps
	$(MAKE) check-unit
	$(MAKE) check-sanitize
	$(MAKE) check-robust
	$(MAKE) check-netns
	$(MAKE) check-repro
	$(MAKE) check-vm
	@echo "make check: all test groups passed"

check-deps:
	tools/install-deps build check

check-unit: $(B)/wp-panel-nettune $(UNIT_BINS) $(B)/dump-tunables
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done
	tests/root-test.sh $(B)/wp-panel-nettune
	tests/design-test.sh $(B)/wp-panel-nettune $(B)/dump-tunables

check-sanitize:
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
		$(MAKE) B=build/sanitize CFLAGS="$(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" check-unit

check-robust: $(B)/wp-panel-nettune
	tests/robust-test.sh $(B)/wp-panel-nettune

check-netns: $(B)/wp-panel-nettune
	tests/netns-test.sh $(B)/wp-panel-nettune

check-repro:
	tests/repro-test.sh

check-vm:
	tests/vm/run
.PHONY: check-repro

.PHONY: check check-deps check-unit check-sanitize check-robust check-netns check-vm
