# wp-panel-nettune: build, test, package.
# make              build build/wp-panel-nettune
# make check        every test: unit, sanitizers, network namespace, Debian 13 VM
# make deb          the Debian 13 package, built and linted in a trixie chroot
#                   (ARCH=arm64: cross-built; ARCH="amd64 arm64": both)
# make repo         the signed apt repository build/repo/ (REPO_URL: where it is served;
#                   ARCH: the architectures built and published, default this machine's)
# make lint         clang-format, shellcheck, Python syntax, and the repeated-code report
# make bench        the network benchmark (at most 60 min), results in bench/results/
# make bench-helper the helper's memory and time on large trees, in bench/helper-results/
# make install      install into $(DESTDIR)$(PREFIX)

# The version is the one of the latest debian/changelog entry.
VERSION := $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog 2>/dev/null)
ifeq ($(VERSION),)
VERSION = 0.1.0
endif
PREFIX = /usr
SBINDIR = $(PREFIX)/sbin
MANDIR = $(PREFIX)/share/man

CC ?= cc
PKG_CONFIG ?= pkg-config
CFLAGS ?= -O2 -g
# Flags the code needs, kept apart so that a CFLAGS given to make adds to them.
BASE_CFLAGS = -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers -Wshadow -Wformat=2 \
	-Wstrict-prototypes -Wmissing-prototypes -D_GNU_SOURCE -DVERSION='"$(VERSION)"'
KMOD_CFLAGS := $(shell $(PKG_CONFIG) --cflags libkmod 2>/dev/null)
KMOD_LIBS := $(shell $(PKG_CONFIG) --libs libkmod 2>/dev/null || echo -lkmod)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

B = build
LIB_SRC = src/util.c src/dirfd.c src/log.c src/sysctl.c src/sysctld.c src/modulesd.c src/sysctld-files.c src/state.c \
	src/modload.c src/sysinfo.c src/profile.c src/render.c src/qdisc.c src/apply.c src/status.c \
	src/takeover.c src/overrides.c src/command.c src/usage.c src/detect.c src/utf8.c src/textfile.c src/json.c src/expo.c src/report.c
PROG_SRC = src/main.c

all: $(B)/wp-panel-nettune

$(B)/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(BASE_CFLAGS) $(CFLAGS) $(KMOD_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/wp-panel-nettune: $(patsubst src/%.c,$(B)/%.o,$(LIB_SRC) $(PROG_SRC))
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(KMOD_LIBS)

include tests/tests.mk

install: $(B)/wp-panel-nettune
	install -D -m 0755 $(B)/wp-panel-nettune $(DESTDIR)$(SBINDIR)/wp-panel-nettune
	install -D -m 0644 man/wp-panel-nettune.8 $(DESTDIR)$(MANDIR)/man8/wp-panel-nettune.8
	install -d $(DESTDIR)$(PREFIX)/share/wp-panel-nettune/installer
	install -m 0644 share/installer/* $(DESTDIR)$(PREFIX)/share/wp-panel-nettune/installer/

# The Debian architectures make deb and make repo build for; empty: this
# machine's own.
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

format:
	clang-format -i src/*.c src/*.h tests/*.c tests/*.h

.PHONY: all install deb lint bench bench-helper clean format
.SECONDARY:

-include $(wildcard $(B)/*.d $(B)/*/*.d)
