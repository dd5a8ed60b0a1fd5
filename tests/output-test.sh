#!/bin/sh
# status --json, status --prometheus and detect --json on every captured
# tree (tests/fixtures/), each not tuned, tuned, drifted and with a
# malformed fragment, on a container made from one, in every state of the
# matrix of tests/states.sh (the text line, the JSON member, the metric and
# the exit status of each), and on a tree whose
# sysctl.d file names and values hold every kind of awkward byte: each
# output parsed by a real parser (Python's json; Prometheus' format line by
# line, and by promtool when it is installed), held against the schema of
# the man page, and the three forms checked to exit alike and, for JSON and
# Prometheus, to state the same facts.
#
# usage: tests/output-test.sh BINARY
set -eu

bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/states.sh"
checker=$here/output-check.py
work=$(mktemp -d /tmp/nettune-output.XXXXXX)
trap 'rm -rf "$work"' EXIT
fragment=/etc/sysctl.d/60-wp-panel-nettune.conf

if command -v promtool >/dev/null 2>&1; then
	promtool=promtool
else
	promtool=
	note "promtool (Debian package prometheus) is not installed: the exposition format is checked by tests/output-check.py alone"
fi

# tree NAME FROM: a writable copy of the captured tree FROM.
tree() {
	t=$work/$1
	cp -a "$here/fixtures/$2" "$t"
	mkdir -p "$t/var/lib" "$t/etc/sysctl.d" "$t/etc/modules-load.d"
	echo "$t"
}

# tune TREE: the fragments in place, recorded and applied, as the postinst
# leaves them.
tune() {
	"$bin" --root "$1" render sysctl >"$1$fragment"
	"$bin" --root "$1" render modules >"$1/etc/modules-load.d/wp-panel-nettune.conf"
	"$bin" --root "$1" rendered
	"$bin" --root "$1" apply >/dev/null
}

# outputs NAME TREE WANT: the three forms exit WANT, and the machine-readable
# ones parse and agree.
outputs() {
	o=$work/$1.out
	rc_text=0 rc_json=0 rc_prom=0
	"$bin" --root "$2" status >"$o.text" 2>"$o.err" || rc_text=$?
	"$bin" --root "$2" status --json >"$o.json" 2>>"$o.err" || rc_json=$?
	"$bin" --root "$2" status --prometheus >"$o.prom" 2>>"$o.err" || rc_prom=$?
	check_eq "$1: status exits $3" "$3" "$rc_text"
	check_eq "$1: and so do --json and --prometheus" "$rc_text $rc_text" "$rc_json $rc_prom"
	check "$1: status --json and --prometheus parse, follow the schema, agree" \
		python3 "$checker" status "$o.json" "$o.prom" "$rc_json"
	if [ -n "$promtool" ]; then
		check "$1: promtool check metrics" sh -c "$promtool check metrics <'$o.prom'"
	fi
	"$bin" --root "$2" detect --json >"$o.detect"
	check "$1: detect --json parses and follows the schema" \
		python3 "$checker" detect "$o.detect"
}

check "the man page names every member, state and condition of the JSON schemas" \
	python3 "$checker" manpage

for name in $(cd "$here/fixtures" && ls); do
	[ -d "$here/fixtures/$name/proc" ] || continue
	t=$(tree "$name-bare" "$name")
	outputs "$name, not tuned" "$t" 3
	t=$(tree "$name" "$name")
	tune "$t"
	outputs "$name, tuned" "$t" 0
	echo 4242 >"$t/proc/sys/net/ipv4/tcp_fin_timeout"
	outputs "$name, tcp_fin_timeout changed" "$t" 3
	check_eq "$name: the JSON says which key" "net.ipv4.tcp_fin_timeout 4242 drift" \
		"$(python3 -c 'import json, sys
for k in json.load(open(sys.argv[1]))["keys"]:
    if k["alarm"]:
        print(k["key"], k["live"], k["state"])' "$work/$name, tcp_fin_timeout changed.out.json")"
	echo 'no assignment here' >>"$t$fragment"
	outputs "$name, malformed fragment" "$t" 3
done

# The matrix: each state, made for real, in the three forms.
while read -r state rc condition key_state _alert; do
	[ -n "$state" ] || continue
	t=$work/state-$state
	make_state "$state" "$t"
	outputs "state $state" "$t" "$rc"
	o="$work/state $state.out"
	case $rc in
	0) verdict='^(All in effect|As chosen \(exit 0\): .*)\.$' ;;
	*) verdict="^Not as it should be \\(exit 3\\): .*$condition" ;;
	esac
	check_match "state $state: the text's last line" "$verdict" "$(tail -n 1 "$o.text")"
	if [ "$condition" != - ]; then
		check_eq "state $state: JSON conditions name $condition" yes \
			"$(python3 -c 'import json, sys
print("yes" if sys.argv[2] in json.load(open(sys.argv[1]))["conditions"] else "no")' "$o.json" "$condition")"
		check_match "state $state: nettune_condition $condition is 1" \
			"^nettune_condition\\{condition=\"$condition\",chosen=\"(yes|no)\"\\} 1$" "$(cat "$o.prom")"
	else
		check_eq "state $state: no condition" "[]" \
			"$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["conditions"])' "$o.json")"
	fi
	check_match "state $state: nettune_alarm" "^nettune_alarm $([ "$rc" = 0 ] && echo 0 || echo 1)$" "$(cat "$o.prom")"
	if [ "$key_state" != - ]; then
		key=${key_state%%=*}
		check_eq "state $state: $key in JSON" "${key_state#*=}" \
			"$(python3 -c 'import json, sys
print(*[k["state"] for k in json.load(open(sys.argv[1]))["keys"] if k["key"] == sys.argv[2]])' "$o.json" "$key")"
		check_match "state $state: and in the metrics" \
			"^nettune_key_state\\{key=\"$key\",state=\"${key_state#*=}\"\\} 1$" "$(cat "$o.prom")"
	fi
done <<EOF
$states_matrix
EOF

# A container: the global keys absent, /proc/sys/net read-only.
t=$(tree container debian13-2cpu)
tune "$t"
rm -f "$t"/proc/sys/net/core/default_qdisc "$t"/proc/sys/net/core/rmem_max
mkdir -p "$t/run/systemd"
echo lxc >"$t/run/systemd/container"
find "$t/proc/sys/net" -type f -exec chmod a-w {} +
outputs "container" "$t" 0
check_eq "container: named in the JSON" "container lxc" \
	"$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["environment"], d["container"])' "$work/container.out.json")"

# File names with a newline, a quote, a backslash, control bytes and
# invalid UTF-8, each winning one key at boot; values with control bytes
# and invalid UTF-8, in a file and live.
t=$(tree hostile debian13-2cpu)
tune "$t"
d=$t/etc/sysctl.d
printf 'net.core.somaxconn = 1\n' >"$d/$(printf '70-new\nline.conf')"
printf 'net.ipv4.tcp_fin_timeout = 2\n' >"$d/71-q\"uote.conf"
printf 'net.ipv4.tcp_tw_reuse = 0\n' >"$d/72-back\\slash.conf"
printf 'net.ipv4.tcp_keepalive_intvl = 3\n' >"$d/$(printf '73-\001\033[31m\177.conf')"
printf 'net.ipv4.tcp_keepalive_probes = 4\n' >"$d/$(printf '74-\377\300\257\355\240\200.conf')"
printf 'net.ipv4.tcp_keepalive_time = 5\001\377x\n' >"$d/75-value.conf"
printf '\344\270\255\033"\\\n' >"$t/proc/sys/net/ipv4/tcp_notsent_lowat"
outputs "hostile names and values" "$t" 3
python3 -c 'import json, sys
for k in json.load(open(sys.argv[1]))["keys"]:
    print(k["key"], ascii(k["boot_file"]), ascii(k["boot_value"]), ascii(k["live"]))' \
	"$work/hostile names and values.out.json" >"$work/hostile.keys"
# check_key KEY WANT: KEY's boot_file, boot_value and live value, as
# Python's ascii() prints the strings the JSON parser returned.
check_key() {
	check_eq "hostile: $1" "$1 $2" "$(grep "^$1 " "$work/hostile.keys")"
}
check_key net.core.somaxconn "'/etc/sysctl.d/70-new\\nline.conf' '1' '65535'"
check_key net.ipv4.tcp_fin_timeout "'/etc/sysctl.d/71-q\"uote.conf' '2' '15'"
check_key net.ipv4.tcp_tw_reuse "'/etc/sysctl.d/72-back\\\\slash.conf' '0' '1'"
check_key net.ipv4.tcp_keepalive_intvl "'/etc/sysctl.d/73-\\x01\\x1b[31m\\x7f.conf' '3' '30'"
check_key net.ipv4.tcp_keepalive_probes \
	"'/etc/sysctl.d/74-\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd.conf' '4' '5'"
check_key net.ipv4.tcp_keepalive_time "'/etc/sysctl.d/75-value.conf' '5\\x01\\ufffdx' '300'"
check_key net.ipv4.tcp_notsent_lowat \
	"'/etc/sysctl.d/60-wp-panel-nettune.conf' '16384' '\\u4e2d\\x1b\"\\\\'"
check "hostile: no file name reaches a metric's label" \
	sh -c "! grep -q 'sysctl.d/7' '$work/hostile names and values.out.prom'"
check "hostile: a live value that is not a number has no nettune_key_value" \
	sh -c "! grep -q '^nettune_key_value{key=\"net.ipv4.tcp_notsent_lowat\"}' '$work/hostile names and values.out.prom'"

summary
