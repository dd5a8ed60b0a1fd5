#!/bin/sh
# Reproducible builds: the tree built twice with tools/make-deb (the trixie
# build environment, unit tests skipped) gives the same .deb byte for byte,
# and nothing of the build's time, place or user is inside: every file is
# root's and no newer than the changelog entry (SOURCE_DATE_EPOCH), and no
# file names the build directory.
#
# usage: tests/repro-test.sh (root, as make-deb)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "repro-test: needs root (tools/make-deb)" >&2
	exit 1
fi

work=$(mktemp -d "${TMPDIR:-/var/tmp}/nettune-repro.XXXXXX")
trap 'rm -rf "$work"' EXIT

for n in 1 2; do
	if ! DEB_BUILD_OPTIONS=nocheck NETTUNE_OUTDIR=$work/$n "$top/tools/make-deb" \
		>"$work/make-deb-$n.log" 2>&1; then
		fail "build $n" "$(tail -n 20 "$work/make-deb-$n.log")"
		summary
		exit 1
	fi
done

# The changelog's date, as dpkg-buildpackage takes it for SOURCE_DATE_EPOCH.
epoch=$(date -u -d "$(sed -n '/^ -- /{s/^ -- .*>  //p;q;}' "$top/debian/changelog")" \
	'+%Y-%m-%d %H:%M:%S')

n=0
for deb in "$work"/1/*.deb; do
	n=$((n + 1))
	name=$(basename "$deb")
	check "$name: the two builds are byte-identical" cmp "$deb" "$work/2/$name"
	listing=$(dpkg-deb --fsys-tarfile "$deb" | tar -tvf - --numeric-owner --full-time --utc)
	check_eq "$name: every file owned by 0/0" "" \
		"$(printf '%s\n' "$listing" | awk '$2 != "0/0"')"
	check_eq "$name: no file newer than the changelog ($epoch)" "" \
		"$(printf '%s\n' "$listing" | awk -v e="$epoch" '$4 " " $5 > e')"
	check_eq "$name: no file names the build directory" 0 \
		"$(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - | grep -ac /build/wp-panel-nettune || true)"
done
check "a package was built" test "$n" -gt 0
summary
