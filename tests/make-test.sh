#!/bin/sh
# The Makefile: make help lists every target, one line each, and only
# targets; without libkmod (pkg-config does not find it) make stops before
# compiling anything, with one line saying what to install, and so do the
# unit tests without cmocka; make install installs what the package
# installs; and the version is debian/changelog's alone.
#
# usage: tests/make-test.sh
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
work=$(mktemp -d /tmp/nettune-make.XXXXXX)
trap 'rm -rf "$work"' EXIT

# run_make ARGS...: make in the tree, on its own: not a sub-make of the one
# running this test, whose variables (B, CFLAGS) would reach it.
run_make() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$top" "$@"
}

# The targets: those declared .PHONY in the Makefile and tests/tests.mk,
# but for need-* (what a compiling target checks first).
sed -n 's/^\.PHONY://p' "$top/Makefile" "$top/tests/tests.mk" | tr ' ' '\n' |
	grep -v '^need-' | sed '/^$/d' | LC_ALL=C sort -u >"$work/targets"
check "there are targets" test -s "$work/targets"
run_make help >"$work/help"
check_eq "make help: one line a target, each with its text" "" \
	"$(grep -Ev '^make [a-z-]+ +[^ ].*$' "$work/help" || true)"
check_eq "make help: every target, and only targets" "$(cat "$work/targets")" \
	"$(awk '{ print $2 }' "$work/help" | LC_ALL=C sort)"

check "plain make builds the helper" sh -c \
	"env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n -C '$top' B='$work/b' | grep -q -- '-o $work/b/wp-panel-nettune '"

# check_stops NAME WANT ARGS...: make ARGS exits 2, with one line on
# standard error that says WANT, and compiles nothing.
check_stops() {
	stop_name=$1
	stop_want=$2
	shift 2
	rc=0
	run_make "$@" >"$work/out" 2>"$work/err" || rc=$?
	check_eq "$stop_name: make stops" 2 "$rc"
	check_eq "$stop_name: with one line" 1 "$(wc -l <"$work/err")"
	check "$stop_name: that says what to run" grep -qF "$stop_want" "$work/err"
	check_eq "$stop_name: before compiling anything" "" \
		"$(find "$work/build" -name '*.o' 2>/dev/null)"
}
check_stops "no libkmod" "libkmod not found (false --libs libkmod): run 'tools/install-deps build'" \
	B="$work/build" PKG_CONFIG=false
check_stops "no libkmod, make -j4" "run 'tools/install-deps build'" \
	-j4 B="$work/build" PKG_CONFIG=false
# A pkg-config that finds libkmod and not cmocka, whatever is installed.
cat >"$work/pkg-config" <<'EOF'
#!/bin/sh
case "$*" in
*--libs*libkmod*) echo -lkmod ;;
*libkmod*) ;;
*) exit 1 ;;
esac
EOF
chmod +x "$work/pkg-config"
check_stops "no cmocka" "cmocka not found ($work/pkg-config --libs cmocka): run 'tools/install-deps check'" \
	B="$work/build" PKG_CONFIG="$work/pkg-config" "$work/build/tests/test-util.o"
check_stops "no clang" "clang-absent not found (libFuzzer): run 'tools/install-deps check'" \
	B="$work/build" CLANG=clang-absent "$work/build/fuzz/fuzz-journal"

# make install installs what the package installs, documentation aside:
# the paths, types, modes and links of tests/expected/install/listing (the
# package's file list without /usr/share/doc), each file byte for byte
# its source's, the man page with debian/changelog's version.
run_make -s install DESTDIR="$work/dest" B="$work/b-install" >/dev/null
(cd "$work/dest" && find . -mindepth 1 -printf '%p %y %m %l\n' | LC_ALL=C sort) >"$work/listing"
check "make install: what the package installs" \
	diff -u "$here/expected/install/listing" "$work/listing"
version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$top/debian/changelog")
for pair in sbin/wp-panel-nettune:"$work/b-install/wp-panel-nettune" \
	share/wp-panel-nettune/installer/99-wp-panel.conf.1cpu:share/installer/99-wp-panel.conf.1cpu \
	share/wp-panel-nettune/installer/99-wp-panel.conf.2cpu:share/installer/99-wp-panel.conf.2cpu \
	share/wp-panel-nettune/schema/detect.schema.json:share/schema/detect.schema.json \
	share/wp-panel-nettune/schema/status.schema.json:share/schema/status.schema.json \
	share/wp-panel-nettune/fragments.sh:debian/fragments.sh \
	libexec/wp-panel-nettune/firstboot:debian/firstboot \
	lib/systemd/system/wp-panel-nettune-firstboot.service:debian/units/wp-panel-nettune-firstboot.service \
	lib/systemd/system/wp-panel-nettune-initwnd.service:debian/units/wp-panel-nettune-initwnd.service \
	lib/systemd/system/wp-panel-nettune-prometheus.service:debian/units/wp-panel-nettune-prometheus.service \
	lib/systemd/system/wp-panel-nettune-prometheus.timer:debian/units/wp-panel-nettune-prometheus.timer \
	share/bash-completion/completions/wp-panel-nettune:share/bash-completion/wp-panel-nettune \
	share/locale/zh_CN/LC_MESSAGES/wp-panel-nettune.mo:"$work/b-install/locale/zh_CN/LC_MESSAGES/wp-panel-nettune.mo"; do
	installed=$work/dest/usr/${pair%%:*}
	source=${pair#*:}
	case $source in /*) ;; *) source=$top/$source ;; esac
	check "make install: /usr/${pair%%:*} is its source's bytes" cmp "$source" "$installed"
done
for f in security/limits.d/wp-panel-nettune.conf systemd/system.conf.d/wp-panel-nettune.conf \
	wp-panel-nettune/initial-window-ports; do
	check "make install: /etc/$f is its source's bytes" cmp "$top/conffiles/etc/$f" "$work/dest/etc/$f"
done
check "make install: the man page says the version" \
	grep -qF "\"wp-panel-nettune $version\"" "$work/dest/usr/share/man/man8/wp-panel-nettune.8"

# The version is said once, in debian/changelog: a tree whose latest entry
# says another builds a helper that says that one.
mkdir "$work/tree"
(cd "$top" && tar --exclude=./build --exclude=./.git --exclude=./bench -cf - .) |
	tar -C "$work/tree" -xf -
sed -i '1s/(\([^)]*\))/(9.8.7~test1)/' "$work/tree/debian/changelog"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$work/tree" B="$work/tree/b" >/dev/null
check_eq "--version is debian/changelog's" "wp-panel-nettune 9.8.7~test1" \
	"$("$work/tree/b/wp-panel-nettune" --version)"
: >"$work/tree/debian/changelog"
check_rc "an empty debian/changelog: make stops" 2 \
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$work/tree" B="$work/tree/b3"
check_match "saying why" 'cannot read the version from debian/changelog' "$out"

summary
