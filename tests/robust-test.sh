#!/bin/sh
# The undo journal under stress, on --root trees: several applies and
# reverts at once, and runs killed (SIGKILL through strace's fault
# injection) before every write, rename, unlink and fsync they make, those
# that convert the records of an earlier version into the journal too.
# After each, a plain revert must leave the tree byte-identical to what it
# was before the first apply.
#
# usage: tests/robust-test.sh BINARY
# NETTUNE_ROBUST_ITERATIONS sets the concurrency rounds (default 40).
set -eu

bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$(mktemp -d /tmp/nettune-robust.XXXXXX)
trap 'rm -rf "$work"' EXIT
rounds=${NETTUNE_ROBUST_ITERATIONS:-40}

fragment=/etc/sysctl.d/60-wp-panel-nettune.conf
modules=/etc/modules-load.d/wp-panel-nettune.conf
journal=/var/lib/wp-panel-nettune/journal
legacy_state=/var/lib/wp-panel-nettune/state

snapshot() {
	(cd "$1" && find . -printf '%p %y %m %s %l\n' | LC_ALL=C sort &&
		find . -type f -exec sha256sum {} + | LC_ALL=C sort -k2)
}
# digest DIR: one hash of what snapshot lists but directories' sizes (names,
# types, modes, sizes, link targets, contents), in two processes rather
# than six: restored compares it at each of some 450 kill points, and lists
# the tree only where it differs.
digest() {
	tar -C "$1" --sort=name --format=gnu --mtime=@0 --owner=0 --group=0 --numeric-owner \
		-cf - . | sha256sum
}

# The captured Debian 13 tree, fragments installed, made once; fresh DIR
# copies it.
template=$work/template
cp -a "$here/fixtures/debian13-2cpu" "$template"
mkdir -p "$template/var/lib" "$template/etc/sysctl.d" "$template/etc/modules-load.d"
"$bin" --root "$template" render sysctl >"$template$fragment"
"$bin" --root "$template" render modules >"$template$modules"
fresh() {
	rm -rf "$1"
	cp -a "$template" "$1"
}
# remember TREE NAME: its listing and digest in $work/NAME and NAME.digest.
remember() {
	snapshot "$1" >"$work/$2"
	digest "$1" >"$work/$2.digest"
}
# What every fresh tree is: the state each revert below must give back.
remember "$template" fresh

# restored NAME TREE: revert, then the tree must be as in $work/before (its
# digest in $work/before.digest).
restored() {
	"$bin" --root "$2" revert >"$work/revert.out" 2>&1 || true
	[ "$(digest "$2")" != "$(cat "$work/before.digest")" ] || return 0
	snapshot "$2" >"$work/after"
	if cmp -s "$work/before" "$work/after"; then
		return 0
	fi
	echo "# $1: $(diff "$work/before" "$work/after" | grep '^[<>]' | head -5 | tr '\n' ' ')"
	return 1
}

# One writer at a time: three applies and a revert at once, again and again.
t=$work/tree
fresh "$t"
remember "$t" before
good=0
for i in $(seq "$rounds"); do
	pids=
	for cmd in apply apply revert apply; do
		"$bin" --root "$t" "$cmd" >"$work/run.$cmd.$i" 2>&1 &
		pids="$pids $!"
	done
	bad=0
	for pid in $pids; do
		wait "$pid" || bad=1
	done
	if [ "$bad" = 0 ] && restored "concurrent round $i" "$t"; then
		good=$((good + 1))
	fi
done
echo "# concurrency: $good of $rounds rounds restored the tree exactly"
check_eq "concurrent applies and reverts: every round restored exactly" "$rounds" "$good"

# A run that holds the lock makes another wait, then give up with a message.
fresh "$t"
mkdir -p "$t/var/lib/wp-panel-nettune"
flock "$t/var/lib/wp-panel-nettune/lock" sleep 3 &
holder=$!
sleep 0.5
WP_PANEL_NETTUNE_LOCK_TIMEOUT=1 check_rc "apply gives up on a held lock" 1 \
	"$bin" --root "$t" apply
check_match "and says why" "lock: another wp-panel-nettune is applying or reverting; gave up after 1 s" "$out"
check "and changed nothing" test ! -e "$t$journal"
wait "$holder"
check_rc "apply runs once the lock is free" 0 "$bin" --root "$t" apply
check "and leaves no lock file behind" test ! -e "$t/var/lib/wp-panel-nettune/lock"
check "but its journal" test -s "$t$journal"

# An override status cannot read is reported, and status cannot call the
# machine in effect (systemd-sysctl, as root at boot, reads what the admin
# may not). Run as nobody, on a tree nobody can read but for that file.
if command -v setpriv >/dev/null 2>&1; then
	fresh "$t"
	"$bin" --root "$t" apply >/dev/null
	chmod 755 "$work"
	echo "net.core.somaxconn = 1" >"$t/etc/sysctl.d/70-secret.conf"
	chmod 600 "$t/etc/sysctl.d/70-secret.conf"
	check_rc "status with an unreadable override exits 3" 3 \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" --root "$t" status
	check_match "and names it" "warning: cannot read .*/etc/sysctl.d/70-secret.conf: Permission denied; what systemd-sysctl sets at boot is unknown" "$out"
	rm "$t/etc/sysctl.d/70-secret.conf"
	chmod 700 "$work"
	"$bin" --root "$t" revert >/dev/null
else
	fail "setpriv (util-linux) is needed for the unreadable-override test"
fi

if ! command -v strace >/dev/null 2>&1; then
	fail "strace is needed for the crash tests (apt install strace)"
	summary
	exit 1
fi

# crash NAME SETUP CMD [MIN]: for every write, rename, unlink and fsync of
# CMD on a tree prepared by SETUP, kill CMD just before it, then revert: the
# tree must be as before, and CMD killed at MIN points at least (10 unless
# told). A run that fails by itself, unkilled, ends the count of its call.
# SETUP runs in the tree's parent, with $t set.
crash() {
	name=$1 setup=$2 cmd=$3 min=${4:-10}
	total=0 good=0 failed_alone=0
	for call in write renameat unlinkat fsync; do
		n=1
		while :; do
			fresh "$t"
			cp "$work/fresh" "$work/before"
			cp "$work/fresh.digest" "$work/before.digest"
			$setup
			rc=0
			# shellcheck disable=SC2086 # the command's words
			strace -f -qq -o /dev/null -e trace="$call" \
				-e inject="$call":signal=KILL:when="$n" \
				"$bin" --root "$t" $cmd >/dev/null 2>&1 || rc=$?
			[ "$rc" = 0 ] && break # ran to the end: no call left to kill
			if [ "$rc" != 137 ]; then
				note "$name: exit $rc at $call $n, not killed"
				failed_alone=$((failed_alone + 1))
				break
			fi
			total=$((total + 1))
			[ -f "$work/fragment" ] && cp "$work/fragment" "$t$fragment"
			if restored "$name, killed at $call $n" "$t"; then
				good=$((good + 1))
			fi
			n=$((n + 1))
		done
	done
	echo "# crash, $name: $good of $total kill points restored the tree exactly"
	check_eq "$name: killed at any point, revert restores the tree" "$total" "$good"
	check "$name: killed at $min points or more" test "$total" -ge "$min"
	check_eq "$name: every run unkilled ran to its end" 0 "$failed_alone"
}

no_setup() {
	rm -f "$work/fragment"
}
# An edited fragment over an applied one: the re-apply is what gets killed.
applied_then_edited() {
	rm -f "$work/fragment"
	"$bin" --root "$t" apply >/dev/null
	cp "$t$fragment" "$work/fragment"
	sed -i -e 's/^net.core.somaxconn = .*/net.core.somaxconn = 1234/' \
		-e 's/^net.ipv4.tcp_congestion_control = .*/net.ipv4.tcp_congestion_control = reno/' \
		"$t$fragment"
}
applied() {
	rm -f "$work/fragment"
	"$bin" --root "$t" apply >/dev/null
}
# As 0.1.0 left a tree it tuned: two keys set, their originals in its
# record. What converts it may be killed between writing the journal and
# removing the record: the journal counts then.
legacy_applied() {
	rm -f "$work/fragment"
	mkdir -p "$t/var/lib/wp-panel-nettune"
	printf '%s\n' '# wp-panel-nettune state 1' 'net.core.somaxconn	4096	65535' \
		'net.ipv4.tcp_fin_timeout	60	15' '# end' >"$t$legacy_state"
	echo 65535 >"$t/proc/sys/net/core/somaxconn"
	echo 15 >"$t/proc/sys/net/ipv4/tcp_fin_timeout"
}

crash "apply" no_setup apply
crash "apply after an edit" applied_then_edited apply
crash "revert" applied revert
crash "apply over a record of 0.1.0" legacy_applied apply
# It writes the journal, removes the record and the lock, and syncs: fewer
# calls to kill it at.
crash "journal --convert" legacy_applied "journal --convert" 5

# Stale temporary journals of a killed run are removed by the next one.
fresh "$t"
remember "$t" before
mkdir -p "$t/var/lib/wp-panel-nettune"
echo partial >"$t$journal.tmp1a2b3c"
check_rc "a run after a crash" 0 "$bin" --root "$t" apply
check "removes the temporary journal left behind" test ! -e "$t$journal.tmp1a2b3c"
check "restored after the stale file" restored "stale temporary" "$t"

summary
