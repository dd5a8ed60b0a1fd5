#!/bin/sh
# The undo journal has one grammar and one reader, the helper's (journal.c):
# debian/postrm replays only a journal the helper sealed at the package's
# remove (journal --seal, seal.c), since the helper is gone at purge. Over
# every file of the journal's fuzz corpus (tests/fuzz/seed-journal, with the
# hostile journals there, and the corpus make check-fuzz grows, when there
# is one), and a journal the helper writes, cut short around each line's
# end: the seal says "refused" where the helper's reader refuses the file,
# and otherwise the cksum of the journal it leaves, which is the journal
# the helper read, written again as the helper writes it. postrm's replay
# reads every step of a sealed journal with the fields the helper wrote.
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
check "postrm defines replay before its case" grep -q '^replay() {' "$work/postrm.sh"
# shellcheck source=/dev/null # cut out of debian/postrm above
. "$work/postrm.sh"

# The installer's files set no key the journal may not name (takeover.c
# makes a set step of each key the fragment does not set).
check_eq "every key of the installer's files is one the helper journals" "" \
	"$(sed -n 's/^\([a-z][^ =]*\) *=.*/\1/p' "$here/../share/installer/"* | sort -u |
		grep -vxF "$("$dump" --journaled)" || true)"

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
sealed=$root/var/lib/wp-panel-nettune/sealed
mkdir -p "$root/var/lib/wp-panel-nettune"
n=0 taken=0
for dir in "$here/fuzz/seed-journal" "$made" "$@"; do
	[ -d "$dir" ] || continue
	for f in "$dir"/*; do
		[ -f "$f" ] || continue
		cp "$f" "$root/var/lib/wp-panel-nettune/journal"
		rm -f "$sealed"
		helper=refuses
		! "$bin" --root "$root" journal >/dev/null 2>&1 || helper=takes
		"$bin" --root "$root" journal --seal >/dev/null 2>&1 || :
		seal=$(sed -n 's/^journal //p' "$sealed" 2>/dev/null)
		n=$((n + 1))
		if [ "$helper" = refuses ] && [ "$seal" != refused ]; then
			fail "${f#"$here/"}: the helper refuses it, its seal says \"$seal\""
		elif [ "$helper" = takes ] && [ "$seal" != "$(cksum <"$root/var/lib/wp-panel-nettune/journal")" ]; then
			fail "${f#"$here/"}: the helper takes it, its seal says \"$seal\", not its cksum"
		elif [ "$helper" = takes ]; then
			taken=$((taken + 1))
		fi
	done
done
note "$n journals read, $taken of them taken and sealed"
check "the corpus holds journals the helper takes and journals it refuses" \
	test "$taken" -gt 0 -a "$taken" -lt "$n"
[ "$failed" -gt 0 ] || pass "the seal refuses the journals the helper refuses, and names the cksum of the $taken it takes"

# The helper's own journal, sealed, is the same bytes.
cp "$made/whole" "$root/var/lib/wp-panel-nettune/journal"
"$bin" --root "$root" journal --seal
check "the seal leaves the helper's journal byte for byte" cmp "$made/whole" "$root/var/lib/wp-panel-nettune/journal"
may=$("$bin" --root "$root" detect --may-tune || :)
case $may in tune:*) may=ok ;; esac
check_eq "its seal: the root, detect --may-tune's answer, the journal's cksum" "# wp-panel-nettune seal 1
root $(stat -f -c %i "$root"):$(stat -c %i "$root")
kernel $may
journal $(cksum <"$made/whole")" "$(cat "$sealed")"

# postrm's replay: each step with the fields of its line, as awk splits
# them at the tabs (values hold spaces), and the comments passed over.
# shellcheck disable=SC2034 # postrm's code reads them
ifs=$IFS tab=$(printf '\t') journal=$made/whole
step() {
	case $1 in '#'*) return ;; esac
	_line=$1 && shift && for _f; do [ -z "$_f" ] || _line="$_line|$_f"; done && echo "$_line"
}
check_eq "postrm's replay reads each step of the journal with its fields" \
	"$(awk -F '\t' '!/^#/ { line = $1; for (i = 2; i <= NF; i++) line = line "|" $i; print line }' "$made/whole")" \
	"$(replay)"
check "and the journal holds values with spaces, read whole" grep -q "${tab}[0-9]* [0-9 ]*${tab}" "$made/whole"

summary
