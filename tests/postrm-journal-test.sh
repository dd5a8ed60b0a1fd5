#!/bin/sh
# The undo journal has one grammar, read in two places: by the helper
# (journal.c, and the keys it journals), and by debian/postrm in shell, since
# the helper is gone at purge. Both read every file of the journal's fuzz
# corpus (tests/fuzz/seed-journal, with the hostile journals there, and the
# corpus make check-fuzz grows, when there is one), and a journal the helper
# writes, cut short around each line's end: each file the helper takes,
# postrm's replay must take, and each it refuses, postrm must too.
# And postrm's keys are the ones the helper journals.
#
# usage: tests/postrm-journal-test.sh BINARY DUMP-TUNABLES [CORPUS-DIR...]
set -eu

bin=$(realpath "$1")
dump=$(realpath "$2")
shift 2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
work=$(mktemp -d /tmp/nettune-postrm-journal.XXXXXX)
trap 'rm -rf "$work"' EXIT

# postrm's own code: its functions, before it looks at its argument.
# shellcheck disable=SC2016 # sed's addresses
sed -n '/^statedir=/,/^case "\$1" in$/p' "$here/../debian/postrm" | sed '$d' >"$work/postrm.sh"
check "postrm defines replay before its case" grep -q '^replay() {$' "$work/postrm.sh"
# shellcheck source=/dev/null # cut out of debian/postrm above
. "$work/postrm.sh"

# shellcheck disable=SC2086,SC2154 # one key a word; keys is postrm's
check_eq "postrm's keys are those the helper journals" \
	"$("$dump" --journaled | sort)" "$(printf '%s\n' $keys | sort)"
# The installer's files set no key the journal may not name (takeover.c
# makes a set step of each key the fragment does not set).
check_eq "every key of the installer's files is one the helper journals" "" \
	"$(sed -n 's/^\([a-z][^ =]*\) *=.*/\1/p' "$here/../share/installer/"* | sort -u |
		grep -vxF "$("$dump" --journaled)" || true)"

# postrm_takes FILE: whether postrm's replay, checking only, takes FILE.
postrm_takes() {
	(
		# The postrm runs without -u: an absent field is empty.
		set +u
		# shellcheck disable=SC2034 # postrm's code reads them
		LC_ALL=C ifs=$IFS tab=$(printf '\t') told=0 journal=$1
		# Its messages name the lines it refuses; the verdict is its status.
		readable && replay check >/dev/null
	)
}

# A journal the helper writes, by takeover and apply in a copy of a fixture
# tree, with the added and windows steps of a seed; and that journal cut a
# byte before, at and after each line's end, and with CRLF line ends.
t=$work/tree made=$work/made share=usr/share/wp-panel-nettune/installer
cp -a "$here/fixtures/debian13-2cpu" "$t"
mkdir -p "$made" "$t/var/lib/wp-panel-nettune" "$t/etc/modules-load.d" "$t/$share"
cp "$here/../share/installer/"* "$t/$share"
cp "$t/$share/99-wp-panel.conf.2cpu" "$t/etc/sysctl.d/99-wp-panel.conf"
"$bin" --root "$t" render sysctl >"$t/etc/sysctl.d/60-wp-panel-nettune.conf"
"$bin" --root "$t" render modules >"$t/etc/modules-load.d/wp-panel-nettune.conf"
cp "$t/etc/sysctl.d/60-wp-panel-nettune.conf" "$t/var/lib/wp-panel-nettune/fragment.base"
"$bin" --root "$t" takeover >/dev/null 2>&1
"$bin" --root "$t" apply >/dev/null
{
	sed '$d' "$t/var/lib/wp-panel-nettune/journal"
	grep -E '^(added|windows)' "$here/fuzz/seed-journal/hostile-whole"
	echo "# end"
} >"$made/whole"
check_eq "the helper's journal has steps of each kind" "added file key set windows" \
	"$(sed -n 's/^\([a-z]*\)\t.*/\1/p' "$made/whole" | sort -u | tr '\n' ' ' | sed 's/ $//')"
sed 's/$/\r/' "$made/whole" >"$made/crlf"
size=$(wc -c <"$made/whole")
LC_ALL=C awk '{ n += length($0) + 1; print n }' "$made/whole" | while read -r end; do
	for cut in $((end - 1)) "$end" $((end + 1)); do
		[ "$cut" -ge "$size" ] || head -c "$cut" "$made/whole" >"$made/cut-$cut"
	done
done

root=$work/root
mkdir -p "$root/var/lib/wp-panel-nettune"
n=0 taken=0
for dir in "$here/fuzz/seed-journal" "$made" "$@"; do
	[ -d "$dir" ] || continue
	for f in "$dir"/*; do
		[ -f "$f" ] || continue
		cp "$f" "$root/var/lib/wp-panel-nettune/journal"
		helper=refuses
		! "$bin" --root "$root" journal >/dev/null 2>&1 || helper=takes
		postrm=refuses
		! postrm_takes "$root/var/lib/wp-panel-nettune/journal" || postrm=takes
		n=$((n + 1))
		[ "$helper" = refuses ] || taken=$((taken + 1))
		if [ "$helper" != "$postrm" ]; then
			fail "${f#"$here/"}: the helper $helper it, postrm $postrm it"
		fi
	done
done
note "$n journals read, $taken of them taken by both"
check "the corpus holds journals both take and journals both refuse" \
	test "$taken" -gt 0 -a "$taken" -lt "$n"
[ "$failed" -gt 0 ] || pass "the helper and postrm take and refuse the same $n journals"

summary
