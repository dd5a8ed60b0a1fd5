# wp-panel-nettune: build, test, package. The targets, one line each (make help):
# make all                the helper, build/wp-panel-nettune, and its catalogues (plain make)
# make install            install what the package installs, docs aside, into DESTDIR PREFIX
# make check              every test group below (check-vm beside the rest), then the seconds of each
# make check-deps         install what building and testing need (tools/install-deps)
# make check-unit         cmocka unit tests and the --root fixture tests (no root)
# make check-sanitize     the same, built with AddressSanitizer and UBSan
# make check-robust       concurrent runs, runs killed at every write, hostile trees
# make check-fuzz         the sysctl.d and record parsers under libFuzzer, briefly
# make fuzz               the same for FUZZ_SECONDS (default 600) each
# make check-netns        apply and revert on the real kernel in a netns (root)
# make check-sockops      the sock_ops initial-window program on the real kernel (root)
# make check-bench-report bench/report's arithmetic on a hand-worked results.csv
# make check-repro        two builds of the package are byte-identical (root)
# make check-alerts       the shipped alerting rules under promtool, every state (root)
# make check-vm           the Debian 13 acceptance scenarios in QEMU VMs (root)
# make fixtures          rewrite tests/expected/ from this helper, then show the diff
# make deb                the Debian 13 package, built and linted in a trixie chroot
# make repo               the signed apt repository build/repo/ (REPO_URL, ARCH)
# make lint               clang-format, shellcheck, actionlint, Python syntax, repeated code (root)
# make format             clang-format the C sources in place, with Debian 13's (root)
# make bench              the network benchmark (at most 60 min), in bench/results/
# make bench-helper       the helper's memory and time on large trees
# make clean              remove build/
# make pot                refresh po/wp-panel-nettune.pot from the sources, msgmerge po/*.po
# make help               this list

# The version, of the helper and of the package: the one of the latest
# debian/changelog entry, and nowhere else.
VERSION := $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog 2>/dev/null)
ifeq ($(VERSION),)
$(error cannot read the version from debian/changelog)
endif
PREFIX = /usr
SBINDIR = $(PREFIX)/sbin
LIBEXECDIR = $(PREFIX)/libexec
DATADIR = $(PREFIX)/share
MANDIR = $(DATADIR)/man
LOCALEDIR = $(DATADIR)/locale
BASHCOMPDIR = $(DATADIR)/bash-completion/completions
UNITDIR = $(PREFIX)/lib/systemd/system
SYSCONFDIR = /etc

CC ?= cc
PKG_CONFIG ?= pkg-config
CFLAGS ?= -O2 -g
# Flags the code needs, kept apart so that a CFLAGS given to make adds to them.
BASE_CFLAGS = -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers -Wshadow -Wformat=2 \
	-Wstrict-prototypes -Wmissing-prototypes -D_GNU_SOURCE -DVERSION='"$(VERSION)"'
KMOD_CFLAGS := $(shell $(PKG_CONFIG) --cflags libkmod 2>/dev/null)
KMOD_LIBS := $(shell $(PKG_CONFIG) --libs libkmod 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

B = build
LIB_SRC = src/util.c src/dirfd.c src/log.c src/sysctl.c src/sysctld.c src/modulesd.c src/sysctld-files.c src/journal.c \
	src/modload.c src/sysinfo.c src/profile.c src/render.c src/qdisc.c src/netlink.c src/route.c src/bpfobj.c src/sockops.c src/initwnd.c src/apply.c src/status.c \
	src/takeover.c src/journal-command.c src/overrides.c src/command.c src/offlimits.c src/usage.c src/detect.c src/utf8.c src/textfile.c src/json.c src/expo.c src/report.c \
	src/rendered.c src/seal.c
PROG_SRC = src/main.c
# The languages of po/, each built into a catalogue of the helper's messages.
PO_LANGS = $(basename $(notdir $(wildcard po/*.po)))
# The man page's translations, man/LANG/wp-panel-nettune.8.
MAN_LANGS = $(patsubst man/%/,%,$(wildcard man/*/))
MO_FILES = $(patsubst %,$(B)/locale/%/LC_MESSAGES/wp-panel-nettune.mo,$(PO_LANGS))

all: $(B)/wp-panel-nettune $(MO_FILES)

# What compiles needs libkmod, and the unit tests cmocka: without them make
# stops before the compiler does, with one line saying what to run. (Each
# check is a recipe, so that it is made only for a target that compiles.)
need-libkmod:
	$(if $(KMOD_LIBS),@:,$(error libkmod not found ($(PKG_CONFIG) --libs libkmod): run 'tools/install-deps build'))
need-cmocka:
	$(if $(CMOCKA_LIBS),@:,$(error cmocka not found ($(PKG_CONFIG) --libs cmocka): run 'tools/install-deps check'))
# The fuzzers are built by clang (libFuzzer).
CLANG = clang
need-clang:
	$(if $(shell command -v $(CLANG)),@:,$(error $(CLANG) not found (libFuzzer): run 'tools/install-deps check'))

$(B)/%.o: src/%.c | need-libkmod
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BASE_CFLAGS) $(CFLAGS) $(KMOD_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/wp-panel-nettune: $(patsubst src/%.c,$(B)/%.o,$(LIB_SRC) $(PROG_SRC)) | need-bpf
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(KMOD_LIBS) $(LIBBPF_LIBS)

# Where main binds the message catalogues: the helper make installs looks in
# LOCALEDIR; the one the tests run in Chinese, in the catalogues of the build.
$(B)/main.o: CPPFLAGS += -DLOCALEDIR='"$(LOCALEDIR)"'
$(B)/l10n/main.o: src/main.c | need-libkmod
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DLOCALEDIR='"$(abspath $(B))/locale"' $(BASE_CFLAGS) $(CFLAGS) \
		$(KMOD_CFLAGS) -MMD -MP -c -o $@ $<
$(B)/l10n/wp-panel-nettune: $(patsubst src/%.c,$(B)/%.o,$(LIB_SRC)) $(B)/l10n/main.o | need-bpf
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(KMOD_LIBS) $(LIBBPF_LIBS)

# The translations of the helper's messages: a catalogue per language,
# checked by msgfmt as it is compiled. make pot takes the messages from the
# sources again and merges them into each language's file, for its
# translator.
# Every source file: a message marked anywhere is in the template.
POT_SRC = $(sort $(wildcard src/*.c src/*.h))
XGETTEXT_FLAGS = --language=C --from-code=UTF-8 --keyword=_ --keyword=N_ \
	--keyword=ngettext:1,2 --add-comments=TRANSLATORS: --package-name=wp-panel-nettune \
	--package-version=$(VERSION)
need-gettext:
	$(if $(shell command -v msgfmt),@:,$(error msgfmt not found: run 'tools/install-deps build'))

$(B)/locale/%/LC_MESSAGES/wp-panel-nettune.mo: po/%.po | need-gettext
	@mkdir -p $(@D)
	msgfmt --check -o $@.tmp $<
	mv $@.tmp $@

$(B)/wp-panel-nettune.pot: $(POT_SRC) | need-gettext
	@mkdir -p $(@D)
	xgettext $(XGETTEXT_FLAGS) -o $@ $(POT_SRC)

pot: $(B)/wp-panel-nettune.pot
	cp $< po/wp-panel-nettune.pot
	set -e; for po in po/*.po; do \
		msgmerge --quiet --update --backup=none $$po po/wp-panel-nettune.pot; \
	done

# The sock_ops program that gives the initial windows (src/bpf/), and its
# loader, src/sockops.c, which includes the program as a skeleton made by
# bpftool: the helper carries the program inside it, and links libbpf.
# The program is built for the build machine's byte order (-target bpf),
# with the kernel's headers for the target's architecture.
BPF_CLANG = clang
BPFTOOL = bpftool
BPF_CFLAGS = -g -O2 -Wall -Wextra -target bpf -I/usr/include/$(shell $(CC) -print-multiarch 2>/dev/null) -ffile-prefix-map=$(CURDIR)=.
LIBBPF_LIBS := $(shell $(PKG_CONFIG) --libs libbpf 2>/dev/null)
need-bpf:
	$(if $(and $(LIBBPF_LIBS),$(shell command -v $(BPF_CLANG)),$(shell command -v $(BPFTOOL))),@:,$(error clang, libbpf or bpftool not found: run 'tools/install-deps bpf'))

$(B)/bpf/%.bpf.o: src/bpf/%.bpf.c | need-bpf
	@mkdir -p $(@D)
	$(BPF_CLANG) $(BPF_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/%.skel.h: $(B)/bpf/%.bpf.o | need-bpf
	$(BPFTOOL) gen skeleton $< name $*_bpf >$@.tmp
	mv $@.tmp $@

$(B)/sockops.o: $(B)/initwnd.skel.h
$(B)/sockops.o: CPPFLAGS += -I$(B)

include tests/tests.mk

# What the package installs, all of it but the documentation, which
# debhelper installs (debian/README.Debian, NEWS, changelog, copyright,
# examples): the helper, the catalogues of its messages and its man page; its data (the installer's
# variants takeover compares with, the JSON Schemas, the shell functions the
# maintainer scripts share); the first-boot script and unit and the
# initial-window unit, which sysinit.target wants through the links
# installed here (the units have no [Install] section: nothing enables
# them), and the metrics service and timer
# (debian/rules has dh_installsystemd enable the timer); the bash
# completion; the open-files limits for sessions and services, and the
# initial window's ports; and the
# directories the fragments are written to. The units and scripts name
# their files under /usr, the default PREFIX.
install: $(B)/wp-panel-nettune $(MO_FILES)
	install -D -m 0755 $(B)/wp-panel-nettune $(DESTDIR)$(SBINDIR)/wp-panel-nettune
	set -e; for lang in $(PO_LANGS); do \
		install -D -m 0644 $(B)/locale/$$lang/LC_MESSAGES/wp-panel-nettune.mo \
			$(DESTDIR)$(LOCALEDIR)/$$lang/LC_MESSAGES/wp-panel-nettune.mo; \
	done
	# The version on the man pages' title line is debian/changelog's; a
	# translation, man/LANG/, goes where man(1) looks for LANG's pages.
	set -e; for sub in "" $(addsuffix /,$(MAN_LANGS)); do \
		install -d $(DESTDIR)$(MANDIR)/$${sub}man8; \
		sed '1,/^\.TH /s/"wp-panel-nettune [^"]*"/"wp-panel-nettune $(VERSION)"/' \
			man/$${sub}wp-panel-nettune.8 >$(DESTDIR)$(MANDIR)/$${sub}man8/wp-panel-nettune.8; \
		chmod 0644 $(DESTDIR)$(MANDIR)/$${sub}man8/wp-panel-nettune.8; \
	done
	install -d $(DESTDIR)$(DATADIR)/wp-panel-nettune/installer
	install -m 0644 share/installer/* $(DESTDIR)$(DATADIR)/wp-panel-nettune/installer/
	install -d $(DESTDIR)$(DATADIR)/wp-panel-nettune/schema
	install -m 0644 share/schema/*.schema.json $(DESTDIR)$(DATADIR)/wp-panel-nettune/schema/
	install -m 0644 debian/fragments.sh $(DESTDIR)$(DATADIR)/wp-panel-nettune/fragments.sh
	install -D -m 0755 debian/firstboot $(DESTDIR)$(LIBEXECDIR)/wp-panel-nettune/firstboot
	install -d $(DESTDIR)$(UNITDIR)/sysinit.target.wants
	install -m 0644 debian/units/*.service debian/units/*.timer $(DESTDIR)$(UNITDIR)/
	ln -sf ../wp-panel-nettune-firstboot.service \
		$(DESTDIR)$(UNITDIR)/sysinit.target.wants/wp-panel-nettune-firstboot.service
	ln -sf ../wp-panel-nettune-initwnd.service \
		$(DESTDIR)$(UNITDIR)/sysinit.target.wants/wp-panel-nettune-initwnd.service
	install -D -m 0644 share/bash-completion/wp-panel-nettune \
		$(DESTDIR)$(BASHCOMPDIR)/wp-panel-nettune
	install -D -m 0644 conffiles/etc/security/limits.d/wp-panel-nettune.conf \
		$(DESTDIR)$(SYSCONFDIR)/security/limits.d/wp-panel-nettune.conf
	install -D -m 0644 conffiles/etc/systemd/system.conf.d/wp-panel-nettune.conf \
		$(DESTDIR)$(SYSCONFDIR)/systemd/system.conf.d/wp-panel-nettune.conf
	install -D -m 0644 conffiles/etc/wp-panel-nettune/initial-window-ports \
		$(DESTDIR)$(SYSCONFDIR)/wp-panel-nettune/initial-window-ports
	install -d $(DESTDIR)$(SYSCONFDIR)/sysctl.d $(DESTDIR)$(SYSCONFDIR)/modules-load.d

# The Debian architectures make deb and make repo build for; empty: this
# machine's own. ARCH=arm64 cross-builds; ARCH="amd64 arm64" builds both.
ARCH =
deb:
	@set -e; for a in $(or $(ARCH),$(shell dpkg --print-architecture)); do \
		echo "tools/make-deb --arch $$a"; tools/make-deb --arch $$a; done

# The URL written into build/repo/wp-panel-nettune.sources; the default is a
# placeholder that resolves nowhere.
REPO_URL = https://example.invalid/debian
repo:
	tools/make-repo --url '$(REPO_URL)' $(patsubst %,--arch %,$(ARCH))
.PHONY: repo

lint:
	tools/lint

# The network benchmark in a Debian 13 VM (at most 60 minutes); see bench/README.
bench:
	bench/run

# The helper's peak memory and time on large sysctl.d trees and records.
bench-helper: $(B)/wp-panel-nettune
	bench/helper-bench $(B)/wp-panel-nettune $(BENCH_ALSO)

clean:
	rm -rf $(B)

help:
	@sed -n '2,/^$$/s/^# make /make /p' Makefile

format:
	tools/lint --format

.PHONY: all install deb lint bench bench-helper clean format help pot
.PHONY: need-libkmod need-cmocka need-clang need-bpf need-gettext
.SECONDARY:

-include $(wildcard $(B)/*.d $(B)/*/*.d)
