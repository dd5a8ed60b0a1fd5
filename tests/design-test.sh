#!/bin/sh
# DESIGN.md's profile table against the helper: each row's key, condition,
# scope and reason against the table in src/profile.c (printed by
# dump-tunables), its profile value against the fragment rendered for the
# captured 2-CPU, 1 GiB Debian 13 machine, and its Debian 13 default against
# that machine's /proc/sys. Rows missing on either side fail.
#
# usage: tests/design-test.sh BINARY DUMP-TUNABLES
set -eu

bin=$(realpath "$1")
dump=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
machine=$here/fixtures/debian13-2cpu
work=$(mktemp -d /tmp/nettune-design.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The table's rows as key TAB default TAB profile TAB scope TAB when TAB why.
"$here/design-table" >"$work/table"
check "DESIGN.md has a profile table" test -s "$work/table"

"$dump" >"$work/tunables"
"$bin" --root "$machine" render sysctl >"$work/fragment"

# The rendered fragment as key TAB value TAB reason (the comment above it).
awk '/^# / { reason = substr($0, 3); next }
	/^-?[a-z]/ { key = $1; sub(/^-/, "", key); value = $0;
		sub(/^[^=]*= */, "", value); print key "\t" value "\t" reason }' \
	"$work/fragment" >"$work/rendered"

tab=$(printf '\t')
# field KEY FILE: the rest of KEY's line in a tab-separated FILE.
field() {
	awk -F '\t' -v key="$1" '$1 == key { print substr($0, length($1) + 2) }' "$2"
}
check_eq "the same keys, in the same order, as src/profile.c" \
	"$(cut -f1 "$work/tunables")" "$(cut -f1 "$work/table")"

while IFS="$tab" read -r key default value scope when why; do
	row=$(field "$key" "$work/tunables")
	check_eq "$key: when, scope and reason as in src/profile.c" \
		"$row" "$when$tab$scope$tab$why"
	rendered=$(field "$key" "$work/rendered" | cut -f1)
	check_eq "$key: the value rendered for 2 CPUs and 1 GiB" "$rendered" "$value"
	# A key the fixture machine lacks (its module is not loaded at boot) is
	# "(absent)" in the table.
	live=$(sysctl_value "$key" "$machine" 2>/dev/null) || live=
	check_eq "$key: the Debian 13 default" "${live:-(absent)}" "$default"
done <"$work/table"

# What the VM guests take as the profile (design-table --profile): the
# settings the helper renders for that machine, with BBR and with cubic.
for cc in bbr cubic; do
	"$bin" --root "$machine" render --congestion "$cc" sysctl |
		sed -n 's/^-\{0,1\}\([a-z][^ ]*\) = \(.*\)$/\1 \2/p' | LC_ALL=C sort >"$work/settings-$cc"
	check_eq "design-table --profile $cc: the settings rendered with $cc" \
		"$(cat "$work/settings-$cc")" "$("$here/design-table" --profile "$cc")"
done

summary
