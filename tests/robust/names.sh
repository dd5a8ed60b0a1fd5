#!/bin/sh
# What status prints of what an administrator wrote: a key assigned twice
# in our fragment is one entry in every output (the last assignment, the
# one systemd-sysctl applies), a sysctl.d file whose name is as long as a
# name can be is named whole, and a name holding a newline or an escape
# sequence is printed escaped, in the text output and on stderr alike.
#
# usage: tests/robust/names.sh BINARY
set -eu

bin=$(realpath "$1")
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
work=$(mktemp -d /tmp/nettune-names.XXXXXX)
trap 'rm -rf "$work"' EXIT
fragment=/etc/sysctl.d/60-wp-panel-nettune.conf
esc=$(printf '\033')

# fresh: a tuned copy of the captured Debian 13 tree in $t.
fresh() {
	t=$work/tree
	rm -rf "$t"
	cp -a "$here/fixtures/debian13-2cpu" "$t"
	mkdir -p "$t/var/lib" "$t/etc/sysctl.d" "$t/etc/modules-load.d"
	"$bin" --root "$t" render sysctl >"$t$fragment"
	"$bin" --root "$t" render modules >"$t/etc/modules-load.d/wp-panel-nettune.conf"
	"$bin" --root "$t" apply >/dev/null
}

# --- A key assigned twice in the fragment ------------------------------------
fresh
echo "net.ipv4.tcp_fin_timeout = 30" >>"$t$fragment"
echo 30 >"$t/proc/sys/net/ipv4/tcp_fin_timeout"
"$bin" --root "$t" status --prometheus >"$work/prom" 2>&1 || true
check_eq "a key assigned twice: no metric sample is repeated" "" \
	"$(grep -v '^#' "$work/prom" | sed 's/ [^ ]*$//' | LC_ALL=C sort | uniq -d)"
check_match "and its samples carry the last value" \
	'^nettune_key_value\{key="net.ipv4.tcp_fin_timeout"\} 30$' "$(cat "$work/prom")"
"$bin" --root "$t" status --json >"$work/json" 2>&1 || true
check_eq "a key assigned twice: one JSON entry, the last value" "30" \
	"$(python3 -c 'import json, sys
keys = [k for k in json.load(open(sys.argv[1]))["keys"] if k["key"] == "net.ipv4.tcp_fin_timeout"]
print(" ".join(k["wanted"] for k in keys))' "$work/json" 2>&1)"
"$bin" --root "$t" status >"$work/text" 2>&1 || true
check_eq "a key assigned twice: one text row, the last value" \
	"net.ipv4.tcp_fin_timeout 30 30" \
	"$(grep '^net.ipv4.tcp_fin_timeout ' "$work/text" | awk '{ print $1, $2, $3 }' | tr '\n' ' ' | sed 's/ $//')"

# --- A file name as long as a name can be --------------------------------------
fresh
long=70-$(printf '%0245d' 0 | tr 0 x).conf
echo "net.core.somaxconn = 1024" >"$t/etc/sysctl.d/$long"
check_eq "the long name is NAME_MAX bytes" 253 "${#long}"
"$bin" --root "$t" status --json >"$work/json" 2>&1 || true
check_eq "a 253-byte file name: boot_file names it whole" "/etc/sysctl.d/$long" \
	"$(python3 -c 'import json, sys
for k in json.load(open(sys.argv[1]))["keys"]:
    if k["key"] == "net.core.somaxconn":
        print(k["boot_file"])' "$work/json" 2>&1)"
"$bin" --root "$t" status >"$work/text" 2>&1 || true
check_match "and so does the text output" "^net.core.somaxconn .* /etc/sysctl.d/$long " \
	"$(cat "$work/text")"

# --- A newline and an escape sequence in a file name ---------------------------
fresh
odd=$(printf '70-a\033[31mb\nc.conf')
echo "net.core.somaxconn = 1024" >"$t/etc/sysctl.d/$odd"
# A FIFO is named in a warning.
mkfifo "$t/etc/sysctl.d/$(printf '71-a\033[31mb\nc.conf')"
"$bin" --root "$t" status >"$work/text" 2>"$work/err" || true
check_match "an odd file name: the text output escapes it" \
	'^net.core.somaxconn .* /etc/sysctl.d/70-a\\x1b\[31mb\\nc.conf ' "$(cat "$work/text")"
check_eq "and holds no escape byte" 0 "$(grep -c "$esc" "$work/text" || true)"
check_match "stderr names the file escaped" \
	'^wp-panel-nettune: .*/etc/sysctl.d/71-a\\x1b\[31mb\\nc.conf' "$(cat "$work/err")"
check_eq "and holds no escape byte" 0 "$(grep -c "$esc" "$work/err" || true)"
check_eq "every line of stderr is a message of its own" "" \
	"$(grep -v '^wp-panel-nettune: ' "$work/err" || true)"
"$bin" --root "$t" overrides >"$work/text" 2>&1 || true
check_match "overrides escapes it too" '70-a\\x1b\[31mb\\nc.conf sets 1 key' "$(cat "$work/text")"

summary
