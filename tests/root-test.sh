#!/bin/sh
# The real binary on --root trees captured from real machines: rendered
# fragments compared byte for byte with tests/expected/, apply then revert
# leaving a tree byte-identical, and every kind of bad input refused with a
# one-line message and nothing on disk changed.
#
# usage: tests/root-test.sh BINARY
# NETTUNE_UPDATE_EXPECTED=1 rewrites tests/expected/ instead (review the diff).
set -eu

bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
fixtures=${NETTUNE_FIXTURES:-$here/fixtures}
expected=$here/expected
work=$(mktemp -d /tmp/nettune-root.XXXXXX)
trap 'rm -rf "$work"' EXIT

fragment=/etc/sysctl.d/60-wp-panel-nettune.conf
modules=/etc/modules-load.d/wp-panel-nettune.conf
state=/var/lib/wp-panel-nettune/state

# Trees derived from a captured one at run time: git keeps no mode bits, and
# each differs from its source by one fact.
derive() {
	name=$1
	from=$2
	t=$work/trees/$name
	mkdir -p "$work/trees"
	cp -a "$fixtures/$from" "$t"
	case $name in
	container)
		# Global keys absent, /proc/sys/net read-only, as in an LXC container.
		rm -f "$t"/proc/sys/net/core/default_qdisc "$t"/proc/sys/net/core/rmem_max \
			"$t"/proc/sys/net/core/wmem_max "$t"/proc/sys/net/core/netdev_max_backlog
		mkdir -p "$t/run/systemd"
		echo lxc >"$t/run/systemd/container"
		find "$t/proc/sys/net" -type f -exec chmod a-w {} +
		;;
	bbr-missing)
		# A kernel built without BBR: no module, not in the kernel's list.
		rm -rf "$t/lib/modules"
		echo "reno cubic" >"$t/proc/sys/net/ipv4/tcp_available_congestion_control"
		;;
	bbr-blacklisted)
		mkdir -p "$t/etc/modprobe.d"
		echo "blacklist tcp_bbr" >"$t/etc/modprobe.d/no-bbr.conf"
		;;
	bbr-install-false)
		mkdir -p "$t/etc/modprobe.d"
		echo "install tcp_bbr /bin/false" >"$t/etc/modprobe.d/no-bbr.conf"
		;;
	small-memory)
		sed -i 's/^MemTotal:.*/MemTotal:         480000 kB/' "$t/proc/meminfo"
		;;
	esac
}

tree() {
	if [ -d "$work/trees/$1" ]; then
		echo "$work/trees/$1"
	else
		echo "$fixtures/$1"
	fi
}

derive container debian13-2cpu
derive bbr-missing debian13-2cpu
derive bbr-blacklisted debian13-2cpu
derive bbr-install-false debian13-2cpu
derive small-memory debian13-1cpu
all_trees="buildhost debian13-1cpu debian13-2cpu container bbr-missing bbr-blacklisted
bbr-install-false small-memory"

# compare NAME FILE OUTPUT: the output against tests/expected/NAME/FILE.
compare() {
	want=$expected/$1/$2
	if [ "${NETTUNE_UPDATE_EXPECTED:-}" = 1 ]; then
		mkdir -p "$expected/$1"
		printf '%s\n' "$3" >"$want"
	fi
	if printf '%s\n' "$3" | diff -u "$want" - >"$work/diff" 2>&1; then
		pass "$1: $2 matches"
	else
		fail "$1: $2 differs from tests/expected/$1/$2" "$(cat "$work/diff")"
	fi
}

for name in $all_trees; do
	t=$(tree "$name")
	compare "$name" detect "$("$bin" --root "$t" detect 2>&1)"
	compare "$name" render-sysctl "$("$bin" --root "$t" render sysctl 2>&1)"
	compare "$name" render-modules "$("$bin" --root "$t" render modules 2>&1)"
done
compare debian13-1cpu render-sysctl-bbr \
	"$("$bin" --root "$(tree debian13-1cpu)" render sysctl --congestion bbr 2>&1)"
compare debian13-1cpu render-modules-bbr \
	"$("$bin" --root "$(tree debian13-1cpu)" render modules --congestion bbr 2>&1)"
compare debian13-2cpu render-sysctl-cubic \
	"$("$bin" --root "$(tree debian13-2cpu)" render sysctl --congestion cubic 2>&1)"

# Where the tree lies is no part of what is rendered from it.
mkdir -p "$work/elsewhere/deeper"
cp -a "$fixtures/debian13-2cpu" "$work/elsewhere/deeper/machine"
check_eq "the fragment does not depend on the root's path" \
	"$("$bin" --root "$fixtures/debian13-2cpu" render sysctl 2>&1)" \
	"$("$bin" --root "$work/elsewhere/deeper/machine" render sysctl 2>&1)"

# snapshot DIR: every path, type, mode, size and content hash.
snapshot() {
	(cd "$1" && find . -printf '%p %y %m %s %l\n' | LC_ALL=C sort &&
		find . -type f -exec sha256sum {} + | LC_ALL=C sort -k2)
}

# install_fragments TREE [render args]: what the package's postinst does.
install_fragments() {
	t=$1
	shift
	mkdir -p "$t/etc/sysctl.d" "$t/etc/modules-load.d"
	"$bin" --root "$t" render sysctl "$@" >"$t$fragment"
	"$bin" --root "$t" render modules "$@" >"$t$modules"
}


# fresh NAME: a writable copy of a tree with the fragments installed.
fresh() {
	rm -rf "$work/run"
	cp -a "$(tree "$1")" "$work/run"
	# Every Debian system has /var/lib; the captured trees have no /var.
	mkdir -p "$work/run/var/lib"
	install_fragments "$work/run"
	echo "$work/run"
}

for name in $all_trees; do
	t=$(fresh "$name")
	snapshot "$t" >"$work/before"
	check_rc "$name: apply exits 0" 0 "$bin" --root "$t" apply
	if [ "$name" = container ]; then
		check_match "$name: apply leaves the kernel alone" 'container \(lxc\): leaving the kernel alone' "$out"
		snapshot "$t" >"$work/after"
		check "$name: apply changed nothing" cmp -s "$work/before" "$work/after"
		continue
	fi
	bad=
	fragment_settings "$t$fragment" >"$work/settings"
	while read -r key want; do
		[ -e "$t/proc/sys/$(echo "$key" | tr . /)" ] || continue
		[ "$(sysctl_value "$key" "$t")" = "$want" ] || bad="$bad $key"
	done <"$work/settings"
	check_eq "$name: every key of the fragment is set" "" "$bad"
	check_rc "$name: status exits 0 after apply" 0 "$bin" --root "$t" status
	check_rc "$name: revert exits 0" 0 "$bin" --root "$t" revert
	snapshot "$t" >"$work/after"
	if cmp -s "$work/before" "$work/after"; then
		pass "$name: apply then revert leaves the tree byte-identical"
	else
		fail "$name: apply then revert leaves the tree byte-identical" \
			"$(diff -u "$work/before" "$work/after")"
	fi
done

t=$(fresh debian13-2cpu)
check_rc "modules under --root are only resolved" 0 "$bin" --root "$t" apply
check_match "and reported as what would be loaded" '^would load module tcp_bbr$' "$out"
"$bin" --root "$t" revert >/dev/null

t=$(fresh bbr-blacklisted)
echo tcp_bbr >>"$t$modules"
check_rc "a blacklisted module does not fail apply" 0 "$bin" --root "$t" apply
check_match "and is reported" 'tcp_bbr is blacklisted in modprobe.d, not loading it' "$out"

# A fragment made before the admin blacklisted tcp_bbr: setting bbr would
# make the kernel load it anyway, so apply leaves the key alone.
t=$(fresh debian13-2cpu)
mkdir -p "$t/etc/modprobe.d"
echo "blacklist tcp_bbr" >"$t/etc/modprobe.d/no-bbr.conf"
check_rc "apply with bbr in the fragment but blacklisted" 0 "$bin" --root "$t" apply
check_match "warns about it" 'not setting net.ipv4.tcp_congestion_control = bbr: its module is blacklisted' "$out"
check_eq "congestion control stays cubic" cubic "$(sysctl_value net.ipv4.tcp_congestion_control "$t")"
check_eq "the other keys are set" 65535 "$(sysctl_value net.core.somaxconn "$t")"

# Refusals: a clear one-line message, exit 1, the tree untouched.
refused() {
	name=$1
	pattern=$2
	shift 2
	snapshot "$t" >"$work/before"
	check_rc "$name: exit 1" 1 "$@"
	check_eq "$name: one line" 1 "$(printf '%s\n' "$out" | wc -l)"
	check_match "$name: says why" "$pattern" "$out"
	snapshot "$t" >"$work/after"
	check "$name: nothing changed" cmp -s "$work/before" "$work/after"
}

t=$(fresh debian13-2cpu)
echo "net.core.somaxconn" >>"$t$fragment"
refused "a line without =" "60-wp-panel-nettune.conf:[0-9]+: not an assignment" \
	"$bin" --root "$t" apply

refused "status with a line without =" "60-wp-panel-nettune.conf:[0-9]+: not an assignment" \
	"$bin" --root "$t" status

t=$(fresh debian13-2cpu)
echo "net.ipv4/../../../etc/passwd = 1" >>"$t$fragment"
refused "a key with .." "60-wp-panel-nettune.conf:[0-9]+: not a valid key = value line" \
	"$bin" --root "$t" apply

t=$(fresh debian13-2cpu)
head -c 5000 /dev/zero | tr '\0' a >>"$t$fragment"
echo " = 1" >>"$t$fragment"
refused "an overlong line" "60-wp-panel-nettune.conf:[0-9]+: line too long" "$bin" --root "$t" apply

t=$(fresh debian13-2cpu)
echo "../evil" >>"$t$modules"
refused "a bad module name" "wp-panel-nettune.conf:[0-9]+: not a module name" \
	"$bin" --root "$t" apply

t=$(fresh debian13-2cpu)
mkdir -p "$t/var/lib/wp-panel-nettune"
printf '# wp-panel-nettune state 1\nnet.core.somaxconn\t4096\n# end\n' >"$t$state"
refused "a corrupt record" "state:2: corrupt record" "$bin" --root "$t" apply
refused "revert with a corrupt record" "state:2: corrupt record" "$bin" --root "$t" revert
printf '# wp-panel-nettune state 1\nnet.core.somaxconn\t4096\t65535\n' >"$t$state"
refused "a truncated record" "state:0: corrupt record" "$bin" --root "$t" apply

t=$(fresh debian13-2cpu)
rm "$t/proc/meminfo"
refused "a missing /proc file" "cannot read .*/proc/meminfo: No such file or directory" \
	"$bin" --root "$t" apply

# A value the kernel rejects: every other key is still set, then exit 1.
t=$(fresh debian13-2cpu)
rm "$t/proc/sys/net/ipv4/tcp_fin_timeout"
mkdir "$t/proc/sys/net/ipv4/tcp_fin_timeout"
check_rc "a key that cannot be read fails apply" 1 "$bin" --root "$t" apply
check_match "with a message naming it" 'cannot read net.ipv4.tcp_fin_timeout' "$out"
check_eq "the keys after it are still set" 16384 "$(sysctl_value net.ipv4.tcp_notsent_lowat "$t")"
check_rc "revert still restores them" 0 "$bin" --root "$t" revert
check_eq "notsent_lowat is back" 4294967295 "$(sysctl_value net.ipv4.tcp_notsent_lowat "$t")"

# --dry-run writes nothing.
t=$(fresh debian13-2cpu)
snapshot "$t" >"$work/before"
check_rc "apply --dry-run exits 0" 0 "$bin" --root "$t" --dry-run apply
check_match "and tells what it would set" '^would set net.core.somaxconn = 65535 \(now 4096\)$' "$out"
snapshot "$t" >"$work/after"
check "apply --dry-run wrote nothing" cmp -s "$work/before" "$work/after"

# A second apply never overwrites a recorded original.
t=$(fresh debian13-2cpu)
"$bin" --root "$t" apply >/dev/null
sed -i 's/^net.core.somaxconn = .*/net.core.somaxconn = 1234/' "$t$fragment"
check_rc "apply after an edit" 0 "$bin" --root "$t" apply
check_eq "the edited value is live" 1234 "$(sysctl_value net.core.somaxconn "$t")"
check_match "the original is kept" "^net.core.somaxconn	4096	1234$" "$(cat "$t$state")"
check_rc "status is 0 with the edit" 0 "$bin" --root "$t" status

# Somebody else's change is left alone by revert, and status sees drift.
echo 77 >"$t/proc/sys/net/ipv4/tcp_fin_timeout"
check_rc "status exits 3 on drift" 3 "$bin" --root "$t" status
check_match "and names the key" '^net.ipv4.tcp_fin_timeout +15 +77 .*DRIFT$' "$out"
check_rc "revert exits 0" 0 "$bin" --root "$t" revert
check_match "revert reports the changed key" 'tcp_fin_timeout is now 77, changed since it was set to 15; leaving it' "$out"
check_eq "that key keeps its new value" 77 "$(sysctl_value net.ipv4.tcp_fin_timeout "$t")"
check_eq "the others are back" 4096 "$(sysctl_value net.core.somaxconn "$t")"

# A later sysctl.d file wins at boot: status says which.
t=$(fresh debian13-2cpu)
"$bin" --root "$t" apply >/dev/null
echo "net.ipv4.tcp_keepalive_time = 600" >"$t/etc/sysctl.d/70-local.conf"
check_rc "status exits 3 on an override" 3 "$bin" --root "$t" status
check_match "and names the file" '^net.ipv4.tcp_keepalive_time .*/etc/sysctl.d/70-local.conf  OVERRIDDEN$' "$out"

# The CPU count changed since the fragment was rendered.
echo 0 >"$t/sys/devices/system/cpu/online"
"$bin" --root "$t" status >"$work/out" 2>&1 || true
check_match "status warns when the CPU count changed" 'made for 2 CPUs, this machine has 1 now' "$(cat "$work/out")"

# A crash after the record was written and one key set: revert still works.
t=$(fresh debian13-2cpu)
snapshot "$t" >"$work/before"
mkdir -p "$t/var/lib/wp-panel-nettune"
printf '# wp-panel-nettune state 1\nnet.core.somaxconn\t4096\t65535\nnet.ipv4.tcp_sack\t1\t1\n# end\n' >"$t$state"
echo 65535 >"$t/proc/sys/net/core/somaxconn"
check_rc "revert after a crash mid-apply" 0 "$bin" --root "$t" revert
snapshot "$t" >"$work/after"
check "the tree is back as it was" cmp -s "$work/before" "$work/after"

# Switching to cubic puts the recorded congestion control back.
t=$(fresh debian13-2cpu)
"$bin" --root "$t" apply >/dev/null
check_eq "bbr is set" bbr "$(sysctl_value net.ipv4.tcp_congestion_control "$t")"
install_fragments "$t" --congestion cubic
check_rc "apply with cubic" 0 "$bin" --root "$t" apply
check_eq "cubic is back" cubic "$(sysctl_value net.ipv4.tcp_congestion_control "$t")"
check_eq "fq_codel is back" fq_codel "$(sysctl_value net.core.default_qdisc "$t")"

# Usage errors exit 2.
check_rc "no command" 2 "$bin"
check_rc "an unknown command" 2 "$bin" frobnicate
check_rc "no prefix matching" 2 "$bin" stat
check_rc "an unknown option" 2 "$bin" --frobnicate status
check_rc "render without a fragment name" 2 "$bin" render
check_rc "render of an unknown fragment" 2 "$bin" render grub
check_rc "a bad --congestion" 2 "$bin" render sysctl --congestion reno
check_rc "--congestion outside render" 2 "$bin" --congestion bbr apply
check_rc "--root that is not a directory" 2 "$bin" --root /nonexistent detect
check_rc "an extra argument" 2 "$bin" status now
check_rc "--help exits 0" 0 "$bin" --help
check_match "--help lists the commands" '^  revert' "$out"

summary
