#!/bin/sh
# takeover on hostile ground, on --root trees: several runs at once, a
# symlinked state directory, the file edited or replaced while a run holds
# it (strace holds the run just before it removes the file), runs killed
# before every write, rename, unlink and fsync, and a huge journal or
# record of an earlier version. After each, the installer's file is at its
# path unchanged, or its copy is kept with the journal step that puts it
# back.
#
# usage: tests/robust/takeover.sh BINARY (as root: it chowns files)
# NETTUNE_TAKEOVER_ROUNDS sets the rounds of each concurrency test (default 200).
set -eu

bin=$(realpath "$1")
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
work=$(mktemp -d /tmp/nettune-takeover.XXXXXX)
trap 'rm -rf "$work"' EXIT
rounds=${NETTUNE_TAKEOVER_ROUNDS:-200}

if [ "$(id -u)" != 0 ]; then
	fail "tests/robust/takeover.sh needs root (chown, and files owned by others)"
	summary
	exit 1
fi
if ! command -v strace >/dev/null 2>&1; then
	fail "strace is needed (apt install strace)"
	summary
	exit 1
fi

variant=$here/../share/installer/99-wp-panel.conf.2cpu
file=/etc/sysctl.d/99-wp-panel.conf
taken=/var/lib/wp-panel-nettune/taken-over
journal=/var/lib/wp-panel-nettune/journal
t=$work/tree
cp -a "$here/fixtures/debian13-2cpu" "$work/base"
mkdir -p "$work/base/var/lib" "$work/base/etc/sysctl.d" \
	"$work/base/usr/share/wp-panel-nettune/installer"
cp "$here"/../share/installer/* "$work/base/usr/share/wp-panel-nettune/installer/"
"$bin" --root "$work/base" render sysctl >"$work/base/etc/sysctl.d/60-wp-panel-nettune.conf"

# fresh: the tree with the installer's 2-CPU file in place, no state.
fresh() {
	rm -rf "$t"
	cp -a "$work/base" "$t"
	cp "$variant" "$t$file"
}

# kept: the file is at its path byte for byte, or its copy is kept with a
# whole journal whose step puts it back. Where no journal exists, the
# takeover record of an earlier version counts, as the helper reads it, so
# that the figures of an older helper say what they mean.
kept() {
	if [ -e "$t$file" ]; then
		cmp -s "$variant" "$t$file"
		return
	fi
	cmp -s "$variant" "$t$taken/99-wp-panel.conf" || return
	if [ ! -e "$t$journal" ] && [ -e "$t$taken/record" ]; then
		sed -n 1p "$t$taken/record" | grep -Eq '^# wp-panel-nettune taken-over [12]$' &&
			[ "$(sed -n '$p' "$t$taken/record")" = "# end" ] &&
			grep -Eq "^/etc/sysctl.d/99-wp-panel.conf	0644	99-wp-panel.conf.2cpu(	0	0)?$" \
				"$t$taken/record"
		return
	fi
	[ "$(sed -n 1p "$t$journal")" = "# wp-panel-nettune journal 1" ] &&
		[ "$(sed -n '$p' "$t$journal")" = "# end" ] &&
		[ "$(grep -c '^file	' "$t$journal")" = 1 ] &&
		grep -q "^file	/etc/sysctl.d/99-wp-panel.conf	0644	0	0	taken-over/99-wp-panel.conf$" \
			"$t$journal"
}

# --- Several at once ----------------------------------------------------------
for n in 2 3 10; do
	lost=0
	stayed=0
	i=0
	while [ "$i" -lt "$rounds" ]; do
		i=$((i + 1))
		rm -rf "$t/var/lib/wp-panel-nettune"
		cp "$variant" "$t$file" 2>/dev/null || fresh
		pids=
		j=0
		while [ "$j" -lt "$n" ]; do
			j=$((j + 1))
			timeout 60 "$bin" --root "$t" takeover >"$work/run.$j" 2>&1 &
			pids="$pids $!"
		done
		for pid in $pids; do
			wait "$pid" || true
		done
		if ! kept; then
			lost=$((lost + 1))
		elif [ -e "$t$file" ]; then
			stayed=$((stayed + 1))
		else
			continue
		fi
		[ $((lost + stayed)) -gt 3 ] ||
			note "round $i: $(cat "$work"/run.* | grep -v '^took over\|^note:' | head -3)"
	done
	note "$n at once: the file lost in $lost, left in place in $stayed of $rounds rounds"
	check_eq "$n takeovers at once: lost or left in no round" "0 0" "$lost $stayed"
	check "$n takeovers at once: the last one's step is in the journal" test -s "$t$journal"
done

# --- A symlinked state directory ------------------------------------------------
for dir in /var/lib /var/lib/wp-panel-nettune $taken; do
	fresh
	mkdir -p "$t${dir%/*}" "$work/outside"
	rm -rf "$work/outside"/* "$t$dir"
	mkdir -p "$work/outside"
	ln -s "$work/outside" "$t$dir"
	check_rc "symlinked $dir: refused" 1 timeout 30 "$bin" --root "$t" takeover
	check_eq "symlinked $dir: one line" 1 "$(printf '%s\n' "$out" | wc -l)"
	check_match "symlinked $dir: naming it" "^wp-panel-nettune: .*cannot .*: $t$dir is a symlink, refused" "$out"
	check_eq "symlinked $dir: nothing written where it points" "" "$(ls -A "$work/outside")"
	check "symlinked $dir: the file is at its path" cmp "$variant" "$t$file"
	rm -f "$t$dir"
done

# --- Edited while a run holds it --------------------------------------------------
# held EDIT: a takeover held for 2 s at its first rename or unlink in
# /etc/sysctl.d (the removal step); EDIT runs once it is held.
held() {
	fresh
	rm -f "$work/log"
	timeout 60 strace -qq -o "$work/log" -P "$t/etc/sysctl.d" -P "$t$file" \
		-e trace=rename,renameat,renameat2,unlink,unlinkat \
		-e inject=rename,renameat,renameat2,unlink,unlinkat:delay_enter=2000000:when=1 \
		"$bin" --root "$t" takeover >"$work/held.out" 2>&1 &
	pid=$!
	k=0
	while [ ! -s "$work/log" ] && [ "$k" -lt 300 ]; do
		sleep 0.1
		k=$((k + 1))
	done
	"$1"
	rc=0
	wait "$pid" || rc=$?
}
# The same size, the old mtime: one digit changed in place.
edit_in_place() {
	cp -p "$t$file" "$work/ref"
	sed 's/^net.core.somaxconn = 65535$/net.core.somaxconn = 65534/' "$variant" >"$work/edited"
	off=$(grep -b '^net.core.somaxconn = 65535$' "$variant" | cut -d: -f1)
	printf 4 | dd of="$t$file" bs=1 seek=$((off + 25)) conv=notrunc status=none
	touch -r "$work/ref" "$t$file"
}
move_over() {
	sed 's/^net.core.somaxconn = 65535$/net.core.somaxconn = 4096/' "$variant" >"$work/edited"
	cp "$work/edited" "$t/etc/sysctl.d/.new"
	mv "$t/etc/sysctl.d/.new" "$t$file"
}
for edit in edit_in_place move_over; do
	held "$edit"
	check "$edit while held: the run was held" test -s "$work/log"
	check "$edit while held: the edited file is at its path" cmp "$work/edited" "$t$file"
	check_match "$edit while held: and said so" "changed while it was taken over: left in place" \
		"$(cat "$work/held.out")"
	check_eq "$edit while held: nothing left beside it" "60-wp-panel-nettune.conf 99-wp-panel.conf README.sysctl" \
		"$(cd "$t/etc/sysctl.d" && find . -mindepth 1 -printf '%f\n' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
done

# --- Owner and mode ---------------------------------------------------------------
fresh
chown 1234:5678 "$t$file"
chmod 0640 "$t$file"
check_rc "a file owned by 1234:5678: taken over" 0 "$bin" --root "$t" takeover
check_match "the journal keeps owner and mode" \
	"^file	/etc/sysctl.d/99-wp-panel.conf	0640	1234	5678	taken-over/99-wp-panel.conf$" \
	"$(cat "$t$journal" 2>&1)"
check_eq "the copy keeps the mode" 640 "$(stat -c %a "$t$taken/99-wp-panel.conf" 2>&1)"

# --- Killed at every step -----------------------------------------------------------
total=0
good=0
for call in write renameat renameat2 unlink unlinkat fsync; do
	n=1
	while [ "$n" -lt 100 ]; do
		fresh
		rc=0
		timeout 60 strace -qq -o /dev/null -e trace="$call" \
			-e inject="$call":signal=KILL:when="$n" \
			"$bin" --root "$t" takeover >/dev/null 2>&1 || rc=$?
		[ "$rc" = 0 ] && break
		total=$((total + 1))
		ok=1
		kept || { ok=0; note "killed at $call $n: the file is lost"; }
		timeout 60 "$bin" --root "$t" takeover >/dev/null 2>&1 || {
			ok=0
			note "killed at $call $n: the next takeover failed"
		}
		left=$(cd "$t" && find etc/sysctl.d var/lib -name '*.tmp*' -o -name '.99-*' | tr '\n' ' ')
		if [ ! -e "$t$file" ] && kept && [ -z "$left" ]; then
			good=$((good + 1))
		elif [ "$ok" = 1 ]; then
			note "killed at $call $n: after the next takeover: ${left:-the file not taken over}"
		fi
		n=$((n + 1))
	done
done
note "killed: $good of $total kill points kept the file and the next takeover completed cleanly"
check_eq "killed at any point: kept, and the next takeover completes" "$total" "$good"
check_match "killed at many points" '^[1-9][0-9]' "$total"

# --- A huge journal, or record of an earlier version ------------------------------
# Each is refused before it is read, by every command that reads it, and
# takeover leaves the file where it is.
for huge in $journal /var/lib/wp-panel-nettune/state; do
	name=${huge#/var/lib/wp-panel-nettune/}
	fresh
	mkdir -p "$t$(dirname "$huge")"
	truncate -s 1G "$t$huge"
	for cmd in status apply revert journal takeover; do
		rc=0
		timeout 60 /usr/bin/time -o "$work/rss" -f %M "$bin" --root "$t" "$cmd" \
			>"$work/out" 2>&1 || rc=$?
		kib=$(tail -n 1 "$work/rss")
		note "$cmd on a 1 GB sparse $name: exit $rc, peak RSS $kib KiB"
		check "$cmd on a 1 GB $name: at most 8 MiB" test "$kib" -le 8192
		[ "$cmd" != status ] || continue
		check_eq "$cmd on a 1 GB $name: refused" 1 "$rc"
		check_match "$cmd on a 1 GB $name: naming it" \
			"^wp-panel-nettune: $cmd: cannot read $t$huge: File too large$" "$(cat "$work/out")"
	done
	check "a 1 GB $name: the file is at its path" cmp "$variant" "$t$file"
done

summary
