#!/bin/sh
# The real binary on --root trees captured from real machines: rendered
# fragments compared byte for byte with tests/expected/, apply then revert
# leaving a tree byte-identical, the undo journal and the records of earlier
# versions it replaces, and every kind of bad input refused with a one-line
# message and nothing on disk changed.
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
journal=/var/lib/wp-panel-nettune/journal
rendered=/var/lib/wp-panel-nettune/rendered
# 0.1.0's record, read while the journal is absent.
legacy_state=/var/lib/wp-panel-nettune/state
# The takeover record of the development builds before the journal, never
# released: not read.
dev_taken=/var/lib/wp-panel-nettune/taken-over/record

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
# detect's memory is what the machine has, MemTotal in whole MiB (988280 kB
# on the captured 1 GiB machine), beside the figure the buffers are sized for.
t=$(tree debian13-2cpu)
check_eq "detect: memory as MemTotal says" \
	"memory: 965 MiB (MemTotal 988280 kB; buffers sized for 1024 MiB)" \
	"$("$bin" --root "$t" detect | grep '^memory:')"
check_eq "and MemTotal is what the fixture says" "MemTotal: 988280 kB" \
	"$(sed -n 's/^\(MemTotal:\) *\([0-9]*\) kB$/\1 \2 kB/p' "$t/proc/meminfo")"
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

# install_fragments TREE [render args]: what the package's postinst does,
# the copy of the fragment as installed and the record of what it was
# rendered for included.
install_fragments() {
	t=$1
	shift
	mkdir -p "$t/etc/sysctl.d" "$t/etc/modules-load.d" "$t/var/lib/wp-panel-nettune"
	"$bin" --root "$t" render sysctl "$@" >"$t$fragment"
	"$bin" --root "$t" render modules "$@" >"$t$modules"
	cp "$t$fragment" "$t/var/lib/wp-panel-nettune/fragment.base"
	"$bin" --root "$t" rendered "$@"
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
		check_match "$name: apply leaves the kernel alone" '^running in a container \(lxc\): leaving the running kernel alone\.$' "$out"
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
check_match "with the key it leaves to the kernel" \
	"^tcp_bbr is blacklisted in modprobe.d: net.ipv4.tcp_congestion_control stays the kernel's\.$" "$out"

# A fragment made before the admin blacklisted tcp_bbr: setting bbr would
# make the kernel load it anyway, so apply leaves the key alone.
t=$(fresh debian13-2cpu)
mkdir -p "$t/etc/modprobe.d"
echo "blacklist tcp_bbr" >"$t/etc/modprobe.d/no-bbr.conf"
check_rc "apply with bbr in the fragment but blacklisted" 0 "$bin" --root "$t" apply
check_match "warns about it" 'not setting net.ipv4.tcp_congestion_control = bbr: its module is blacklisted' "$out"
check_eq "congestion control stays cubic" cubic "$(sysctl_value net.ipv4.tcp_congestion_control "$t")"
check_eq "the other keys are set" 65535 "$(sysctl_value net.core.somaxconn "$t")"
"$bin" --root "$t" revert >/dev/null

# The same for fq, sch_fq blacklisted after the fragment was made (the key
# itself: tests/test-apply.c): the rest of the profile is set.
t=$(fresh debian13-2cpu)
mkdir -p "$t/etc/modprobe.d"
echo "blacklist sch_fq" >"$t/etc/modprobe.d/no-fq.conf"
"$bin" --root "$t" apply >/dev/null 2>&1
check_eq "with fq blacklisted, bbr is set" bbr "$(sysctl_value net.ipv4.tcp_congestion_control "$t")"

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

# A fragment with bad lines: each is reported (file:line: why), the good ones
# are applied as systemd-sysctl applies them at boot, and apply exits 1.
t=$(fresh debian13-2cpu)
snapshot "$t" >"$work/before"
{
	echo "net.core.somaxconn"
	echo "net.ipv4/../../../etc/passwd = 1"
	head -c 5000 /dev/zero | tr '\0' a
	echo " = 1"
} >>"$t$fragment"
n=$(wc -l <"$t$fragment")
check_rc "apply with bad lines exits 1" 1 "$bin" --root "$t" apply
check_match "reports the line without =" "60-wp-panel-nettune.conf:$((n - 2)): not an assignment$" "$out"
check_match "reports the key with .." "60-wp-panel-nettune.conf:$((n - 1)): not a valid key = value line$" "$out"
check_match "reports the overlong key" "60-wp-panel-nettune.conf:$n: key or value too long$" "$out"
check_eq "three errors, one line each" 3 "$(printf '%s\n' "$out" | grep -c '^wp-panel-nettune: ')"
check_eq "the good lines are applied" 65535 "$(sysctl_value net.core.somaxconn "$t")"
check_rc "status with bad lines exits 3" 3 "$bin" --root "$t" status
check_match "and reports them too" "60-wp-panel-nettune.conf:$((n - 1)): not a valid key" "$out"
check_match "after the table" '^net.core.somaxconn +65535 +65535 ' "$out"
check_match "a malformed fragment is nobody's choice" '^Not as it should be \(exit 3\): .*malformed' "$out"
"$bin" --root "$t" revert >/dev/null
sed -i '$d' "$t$fragment"
sed -i '$d' "$t$fragment"
sed -i '$d' "$t$fragment"
snapshot "$t" >"$work/after"
check "revert after bad lines restores the tree" cmp -s "$work/before" "$work/after"

# A line longer than systemd's limit (1 MiB) ends the file for systemd-sysctl:
# the lines before it are applied, those after are not, and apply says so.
t=$(fresh debian13-2cpu)
head -n 30 "$t$fragment" >"$work/frag"
{ printf 'net.core.somaxconn = '; head -c 1048576 /dev/zero | tr '\0' 7; echo; } >>"$work/frag"
tail -n +31 "$t$fragment" >>"$work/frag"
cp "$work/frag" "$t$fragment"
check_rc "apply with a line over 1 MiB exits 1" 1 "$bin" --root "$t" apply
check_match "and names it" "60-wp-panel-nettune.conf:31: line longer than 1048575 bytes; systemd-sysctl stops reading the file here" "$out"
check_eq "a key before it is set" fq "$(sysctl_value net.core.default_qdisc "$t")"
check_eq "a key after it is not" 4294967295 "$(sysctl_value net.ipv4.tcp_notsent_lowat "$t")"
"$bin" --root "$t" revert >/dev/null

# Only regular files are read: a FIFO as the fragment, the journal, a record
# of an earlier version or a sysctl.d file never blocks a run.
t=$(fresh debian13-2cpu)
mv "$t$fragment" "$work/frag"
mkfifo "$t$fragment"
check_rc "a FIFO as the fragment fails apply" 1 timeout 10 "$bin" --root "$t" apply
check_match "without blocking, and says why" "cannot read .*60-wp-panel-nettune.conf: not a regular file" "$out"
check_rc "and status" 1 timeout 10 "$bin" --root "$t" status
rm "$t$fragment"
mv "$work/frag" "$t$fragment"
mkfifo "$t/etc/sysctl.d/70-fifo.conf"
check_rc "a FIFO among the sysctl.d files does not block apply" 0 timeout 10 "$bin" --root "$t" apply
check_match "which names it too" "70-fifo.conf is a FIFO: systemd-sysctl blocks reading it at boot" "$out"
check_rc "a FIFO among the sysctl.d files does not block status" 3 timeout 10 "$bin" --root "$t" status
check_match "which says systemd-sysctl would block on it" "70-fifo.conf is a FIFO: systemd-sysctl blocks reading it at boot and applies nothing" "$out"
"$bin" --root "$t" revert >/dev/null
rm "$t/etc/sysctl.d/70-fifo.conf"
for f in $journal $legacy_state; do
	mkdir -p "$t$(dirname "$f")"
	mkfifo "$t$f"
	check_rc "a FIFO as ${f##*/wp-panel-nettune/} fails apply" 1 timeout 10 "$bin" --root "$t" apply
	check_eq "and says why" "wp-panel-nettune: apply: cannot read $t$f: not a regular file" "$out"
	check_rc "and revert" 1 timeout 10 "$bin" --root "$t" revert
	check_rc "and journal" 1 timeout 10 "$bin" --root "$t" journal
	check_match "which names it too" "cannot read $t$f: not a regular file$" "$out"
	rm "$t$f"
done

# Writes stay in the tree: a symlink under proc/sys or as the state directory
# is refused, and nothing is written where it points.
t=$(fresh debian13-2cpu)
mkdir "$work/outside"
echo 4096 >"$work/outside/somaxconn"
mv "$t/proc/sys/net/core/somaxconn" "$work/somaxconn"
ln -s "$work/outside/somaxconn" "$t/proc/sys/net/core/somaxconn"
"$bin" --root "$t" apply >"$work/out" 2>&1 || true
check_match "a key that is a symlink is not written" "cannot read net.core.somaxconn: Too many levels of symbolic links" "$(cat "$work/out")"
check_eq "the file it points to is untouched" 4096 "$(cat "$work/outside/somaxconn")"
"$bin" --root "$t" revert >/dev/null
rm "$t/proc/sys/net/core/somaxconn"
mv "$work/somaxconn" "$t/proc/sys/net/core/somaxconn"
mkdir "$work/outside/state"
rm -rf "$t/var/lib/wp-panel-nettune"
ln -s "$work/outside/state" "$t/var/lib/wp-panel-nettune"
check_rc "a symlinked state directory fails apply" 1 "$bin" --root "$t" apply
check_match "with a message naming the link" "cannot lock .*/var/lib/wp-panel-nettune/lock: .*/var/lib/wp-panel-nettune is a symlink, refused$" "$out"
check_eq "nothing is written where it points" "" "$(ls -A "$work/outside/state")"
check_eq "nor to the kernel" 4096 "$(sysctl_value net.core.somaxconn "$t")"
rm "$t/var/lib/wp-panel-nettune"

t=$(fresh debian13-2cpu)
echo "../evil" >>"$t$modules"
refused "a bad module name" "wp-panel-nettune.conf:[0-9]+: not a module name" \
	"$bin" --root "$t" apply

# A damaged journal is refused whole, by every command that reads it, with
# the line at fault; one that ends before its trailer is named as truncated.
# corrupt FILE LINE: the message for FILE, refused at LINE (0: truncated).
corrupt() {
	if [ "$2" = 0 ]; then
		echo "^wp-panel-nettune: [a-z]+: $t$1: truncated or not a record of this package, not using it; move it aside to start anew\$"
	else
		echo "^wp-panel-nettune: [a-z]+: $t$1:$2: corrupt, not using it; move it aside to start anew\$"
	fi
}
# lines LINE...: the journal's header, then each LINE (\t a tab).
lines() {
	echo '# wp-panel-nettune journal 1'
	for _line in "$@"; do
		printf '%b\n' "$_line"
	done
}
t=$(fresh debian13-2cpu)
lines 'key\tnet.core.somaxconn\t4096' '# end' >"$t$journal"
refused "a corrupt journal" "$(corrupt "$journal" 2)" "$bin" --root "$t" apply
refused "revert with a corrupt journal" "$(corrupt "$journal" 2)" "$bin" --root "$t" revert
refused "journal with a corrupt journal" "$(corrupt "$journal" 2)" "$bin" --root "$t" journal
lines 'key\tnet.core.somaxconn\t4096\t65535' >"$t$journal"
refused "a truncated journal" "$(corrupt "$journal" 0)" "$bin" --root "$t" apply
printf '# wp-panel-nettune state 1\nnet.core.somaxconn\t4096\t65535\n# end\n' >"$t$journal"
refused "0.1.0's record under the journal's name" "$(corrupt "$journal" 1)" "$bin" --root "$t" apply
: >"$t$journal"
refused "an empty journal" "$(corrupt "$journal" 0)" "$bin" --root "$t" apply
lines 'set\tnet.core.rmem_default\t262144' '# end' >"$t$journal"
refused "a set step with no file before it" "$(corrupt "$journal" 2)" "$bin" --root "$t" apply
lines 'key\tnet.core.somaxconn\t4096\t65535' \
	'file\t/etc/passwd\t0644\t0\t0\ttaken-over/passwd' '# end' >"$t$journal"
refused "a file step outside /etc/sysctl.d" "$(corrupt "$journal" 3)" "$bin" --root "$t" revert
lines 'key\tnet.core.somaxconn\t4096\t65535' 'key\tnet.core.somaxconn\t1\t65535' '# end' \
	>"$t$journal"
refused "a key recorded twice" "$(corrupt "$journal" 3)" "$bin" --root "$t" revert
# The journal counts, whatever lies beside it: an earlier record is no
# fallback for a damaged one.
printf '# wp-panel-nettune state 1\nnet.core.somaxconn\t4096\t65535\n# end\n' >"$t$legacy_state"
refused "a corrupt journal beside a sound record" "$(corrupt "$journal" 3)" "$bin" --root "$t" revert
rm "$t$journal"
# 0.1.0's record is refused alike, and left in place.
printf '# wp-panel-nettune state 1\nnet.core.somaxconn\t4096\n# end\n' >"$t$legacy_state"
refused "a corrupt record of 0.1.0" "$(corrupt "$legacy_state" 2)" "$bin" --root "$t" apply
refused "journal --convert with it" "$(corrupt "$legacy_state" 2)" "$bin" --root "$t" journal --convert
printf '# wp-panel-nettune state 1\nnet.core.somaxconn\t4096\t65535\n' >"$t$legacy_state"
refused "a truncated record of 0.1.0" "$(corrupt "$legacy_state" 0)" "$bin" --root "$t" apply
# The record of the development builds after 0.1.0 ("state 2") was never
# released: refused as not 0.1.0's.
printf '# wp-panel-nettune state 2\nnet.core.somaxconn\t4096\t65535\t1234\n# end\n' >"$t$legacy_state"
refused "a record of a development build" "$(corrupt "$legacy_state" 1)" "$bin" --root "$t" journal --convert
rm "$t$legacy_state"

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

# An absent "-" key (net.core.rmem_max, which a network namespace does not
# have) is skipped quietly (tests/test-apply.c), said only with -v.
t=$(fresh debian13-2cpu)
rm "$t/proc/sys/net/core/rmem_max"
check_rc "apply -v" 0 "$bin" --root "$t" -v apply
check_match "-v says why it was skipped" \
	'^wp-panel-nettune: apply: cannot read net.core.rmem_max: No such file or directory, ignoring$' "$out"
"$bin" --root "$t" revert >/dev/null

# A key added to the fragment that is not the profile's is neither set nor
# journaled (tests/test-apply.c), since purge could not put it back: a
# journal that names one is not one the helper wrote.
t=$(fresh debian13-2cpu)
echo "net.ipv4.ip_forward = 1" >>"$t$fragment"
"$bin" --root "$t" apply >/dev/null 2>&1
{ sed '$d' "$t$journal" && printf 'key\tnet.ipv4.ip_forward\t1\t0\n# end\n'; } >"$work/journal"
cp "$work/journal" "$t$journal"
check_rc "a journal naming a key the package never sets is refused" 1 "$bin" --root "$t" journal
check_match "as corrupt, with the key" \
	"^wp-panel-nettune: journal: $t$journal: net\\.ipv4\\.ip_forward is not a key the package sets: corrupt, not using it; move it aside to start anew$" "$out"

# --dry-run writes nothing.
t=$(fresh debian13-2cpu)
snapshot "$t" >"$work/before"
check_rc "apply --dry-run exits 0" 0 "$bin" --root "$t" apply --dry-run
check_match "and tells what it would set" '^would set net.core.somaxconn = 65535 \(now 4096\)$' "$out"
snapshot "$t" >"$work/after"
check "apply --dry-run wrote nothing" cmp -s "$work/before" "$work/after"

# An edit applied (the second apply keeps the recorded original:
# tests/test-apply.c): status calls it a choice while the copy as installed
# proves it one.
t=$(fresh debian13-2cpu)
"$bin" --root "$t" apply >/dev/null
sed -i 's/^net.core.somaxconn = .*/net.core.somaxconn = 1234/' "$t$fragment"
"$bin" --root "$t" apply >/dev/null
check_rc "status is 0 with the edit" 0 "$bin" --root "$t" status
check_match "and calls it an edit" '^net.core.somaxconn +1234 +1234 .*  \(edited; the profile: 65535\)$' "$out"
check_match "a chosen one" '^As chosen \(exit 0\): edited\.$' "$out"
mv "$t/var/lib/wp-panel-nettune/fragment.base" "$work/base"
check_rc "without the copy as installed, status exits 3" 3 "$bin" --root "$t" status
check_match "nothing proves the edit was chosen" '^net.core.somaxconn +1234 +1234 .*  OUTDATED$' "$out"
check_match "what a new fragment would change" '^           net.core.somaxconn: 1234 -> 65535$' "$out"
check_match "and how to take it" "^         fragment\\), then run 'dpkg-reconfigure wp-panel-nettune' to apply it.$" "$out"
mv "$work/base" "$t/var/lib/wp-panel-nettune/fragment.base"

# Somebody else's change: status sees drift (revert leaves it:
# tests/test-apply.c).
echo 77 >"$t/proc/sys/net/ipv4/tcp_fin_timeout"
check_rc "status exits 3 on drift" 3 "$bin" --root "$t" status
check_match "and names the key" '^net.ipv4.tcp_fin_timeout +15 +77 .*DRIFT$' "$out"

# A later sysctl.d file wins at boot: status says which.
t=$(fresh debian13-2cpu)
"$bin" --root "$t" apply >/dev/null
echo "net.ipv4.tcp_keepalive_time = 600" >"$t/etc/sysctl.d/70-local.conf"
check_rc "status exits 3 before the override is applied" 3 "$bin" --root "$t" status
check_match "the live value is not the one boot sets" '^net.ipv4.tcp_keepalive_time .*/etc/sysctl.d/70-local.conf  DRIFT$' "$out"
echo 600 >"$t/proc/sys/net/ipv4/tcp_keepalive_time"
check_rc "status exits 0 on an override in effect" 0 "$bin" --root "$t" status
check_match "and names the file" '^net.ipv4.tcp_keepalive_time +300 +600 +/etc/sysctl.d/70-local.conf  \(overridden\)$' "$out"
check_match "a choice" '^As chosen \(exit 0\): overridden\.$' "$out"

# The CPU count changed since the fragment was rendered.
echo 0 >"$t/sys/devices/system/cpu/online"
"$bin" --root "$t" status >"$work/out" 2>&1 || true
check_match "status warns when the CPU count changed" '^warning: the fragment was made for 2 CPUs, this machine has 1 now,$' "$(cat "$work/out")"
check_match "and names what a new fragment would change" \
	"^           net.ipv4.tcp_congestion_control: bbr -> cubic$" "$(cat "$work/out")"
check_match "each value" '^           net.core.default_qdisc: fq -> ' "$(cat "$work/out")"
check_eq "and only those" 2 "$(grep -c '^           net\.' "$work/out")"
check_eq "--json: the same two" "net.core.default_qdisc fq fq_codel net.ipv4.tcp_congestion_control bbr cubic" \
	"$("$bin" --root "$t" status --json | python3 -c 'import json, sys
print(" ".join("%s %s %s" % (c["key"], c["then"], c["now"]) for c in json.load(sys.stdin)["fragment"]["cpus_change"]))')"
# With cubic chosen the CPU count decides nothing: a note, no warning.
t=$(fresh debian13-2cpu)
"$bin" --root "$t" render --congestion cubic sysctl >"$t/etc/sysctl.d/60-wp-panel-nettune.conf"
"$bin" --root "$t" rendered --congestion cubic
"$bin" --root "$t" apply >/dev/null
echo 0 >"$t/sys/devices/system/cpu/online"
check_rc "cubic, 2 CPUs then 1: status exits 0" 0 "$bin" --root "$t" status
check_match "with a note that the profile is the same" \
	'^note: the fragment was made for 2 CPUs, this machine has 1 now;$' "$out"
check_eq "and no warning" "" "$(printf '%s\n' "$out" | grep '^warning' || true)"
check_eq "--json: cpus_change is empty" "[]" \
	"$("$bin" --root "$t" status --json | python3 -c 'import json, sys
print(json.dumps(json.load(sys.stdin)["fragment"]["cpus_change"]))')"

# What the fragment was made for is the helper's record, not the header
# line of the fragment: a header that says otherwise changes nothing.
t=$(fresh debian13-2cpu)
check_eq "rendered records the CPU count and the choice" "cpus=2 congestion=auto" \
	"$(tr '\n' ' ' <"$t$rendered" | sed 's/ $//')"
check_rc "rendered --congestion cubic" 0 "$bin" --root "$t" rendered --congestion cubic
check_eq "and replaces it" "cpus=2 congestion=cubic" "$(tr '\n' ' ' <"$t$rendered" | sed 's/ $//')"
check_eq "written whole: no temporary file left" "rendered" \
	"$(cd "$t/var/lib/wp-panel-nettune" && printf '%s\n' rendered*)"
check_rc "an unknown choice" 2 "$bin" --root "$t" rendered --congestion reno
check_match "is a usage error" "^wp-panel-nettune: rendered: unknown congestion choice 'reno'; expected auto, bbr or cubic$" "$out"
check_eq "that leaves the record" "cpus=2 congestion=cubic" "$(tr '\n' ' ' <"$t$rendered" | sed 's/ $//')"
"$bin" --root "$t" rendered
sed -i 's/^# wp-panel-nettune: .*/# wp-panel-nettune: cpus=1 congestion=cubic/' "$t$fragment"
cp "$t$fragment" "$t/var/lib/wp-panel-nettune/fragment.base"
"$bin" --root "$t" apply >/dev/null
echo 0 >"$t/sys/devices/system/cpu/online"
"$bin" --root "$t" status >"$work/out" 2>&1 || true
check_match "the record, not the header, says 2 CPUs and auto" \
	'^warning: the fragment was made for 2 CPUs, this machine has 1 now,$' "$(cat "$work/out")"
check_eq "--json: the record's count and choice" "2 auto" \
	"$("$bin" --root "$t" status --json | python3 -c 'import json, sys
f = json.load(sys.stdin)["fragment"]
print(f["cpus"], f["congestion"])')"
# Without the record neither is known: no CPU check, the profile of auto.
echo 0-1 >"$t/sys/devices/system/cpu/online"
mv "$t$rendered" "$work/rendered"
check_rc "without the record, status exits 0" 0 "$bin" --root "$t" status
check_eq "and says nothing of the CPU count" "" "$(printf '%s\n' "$out" | grep 'made for' || true)"
check_eq "--json: null, null" "None None" \
	"$("$bin" --root "$t" status --json | python3 -c 'import json, sys
f = json.load(sys.stdin)["fragment"]
print(f["cpus"], f["congestion"])')"
# A record that is not one, or not a file, is named, and counts as none.
for bad in garbage cpus=0 link; do
	rm -f "$t$rendered"
	case $bad in
	garbage) printf 'cpus=2\ncongestion=reno\n' >"$t$rendered" ;;
	cpus=0) printf 'cpus=0\ncongestion=auto\n' >"$t$rendered" ;;
	link) ln -s "$work/rendered" "$t$rendered" ;;
	esac
	check_rc "a bad record ($bad): status exits 0" 0 "$bin" --root "$t" status
	check_match "and names it" "^wp-panel-nettune: status: warning: cannot read $t$rendered: .*; what the fragment was made for is not known$" "$out"
done
rm -f "$t$rendered"

# A crash after the journal was written and one key set, the next key
# being written: revert still works. So it does from a record left by
# 0.1.0, which it removes as it would the journal.
t=$(fresh debian13-2cpu)
snapshot "$t" >"$work/before"
lines 'key\tnet.core.somaxconn\t4096\t65535' 'key\tnet.ipv4.tcp_sack\t1\t1' \
	'key\tnet.ipv4.tcp_fin_timeout\t60\t60\t15' '# end' >"$t$journal"
echo 65535 >"$t/proc/sys/net/core/somaxconn"
echo 15 >"$t/proc/sys/net/ipv4/tcp_fin_timeout"
check_rc "revert after a crash mid-apply" 0 "$bin" --root "$t" revert
check_match "puts back the key being written" '^restored net.ipv4.tcp_fin_timeout = 60$' "$out"
snapshot "$t" >"$work/after"
check "the tree is back as it was" cmp -s "$work/before" "$work/after"
printf '# wp-panel-nettune state 1\nnet.core.somaxconn\t4096\t65535\nnet.ipv4.tcp_sack\t1\t1\n# end\n' \
	>"$t$legacy_state"
echo 65535 >"$t/proc/sys/net/core/somaxconn"
check_rc "revert from a record of 0.1.0" 0 "$bin" --root "$t" revert
snapshot "$t" >"$work/after"
check "the tree is back as it was, the record gone" cmp -s "$work/before" "$work/after"

# Switching to cubic puts the recorded congestion control back.
t=$(fresh debian13-2cpu)
"$bin" --root "$t" apply >/dev/null
check_eq "bbr is set" bbr "$(sysctl_value net.ipv4.tcp_congestion_control "$t")"
install_fragments "$t" --congestion cubic
check_rc "apply with cubic" 0 "$bin" --root "$t" apply
check_eq "cubic is back" cubic "$(sysctl_value net.ipv4.tcp_congestion_control "$t")"
check_eq "fq_codel is back" fq_codel "$(sysctl_value net.core.default_qdisc "$t")"

# --- Servers tuned before: the WP Panel installer's file, the article's ---

legacy=$here/fixtures/legacy
installer=$here/../share/installer
taken=/var/lib/wp-panel-nettune/taken-over

# fresh_legacy NAME: fresh NAME with the installer variants the package ships.
fresh_legacy() {
	t=$(fresh "$1")
	mkdir -p "$t/usr/share/wp-panel-nettune/installer"
	cp "$installer"/* "$t/usr/share/wp-panel-nettune/installer/"
	echo "$t"
}

# owned TEXT: TEXT with the owner of a file step, the user running this
# test, written UID GID (in the journal) or UID:GID (in journal's output).
owned() {
	printf '%s\n' "$1" | sed -e "s/^\(file	[^	]*	[0-7]*\)	$(id -u)	$(id -g)	/\1	UID	GID	/" \
		-e "s/, owner $(id -u):$(id -g)\$/, owner UID:GID/"
}

# listing TREE: the files takeover may touch, with modes, sizes and hashes
# (not the record of what the fragments were rendered for, which it does
# not). The journal names the file's owner: it is listed with the owner
# written UID GID, and without its size.
listing() {
	_journal=${journal#/} _rendered=${rendered#/}
	(cd "$1" && find etc/sysctl.d var/lib ! -path "$_journal" ! -path "$_rendered" \
		-printf '%p %y %m %s\n' 2>/dev/null &&
		find "$_journal" -printf '%p %y %m\n' 2>/dev/null) | LC_ALL=C sort
	(
		cd "$1" && find etc/sysctl.d var/lib -type f ! -path "$_journal" ! -path "$_rendered" \
			-exec sha256sum {} +
		if [ -f "$_journal" ]; then
			owned "$(cat "$_journal")" | sha256sum | sed "s|-\$|$_journal|"
		fi
	) | LC_ALL=C sort -k2
}

# run_out TREE ARGS...: the helper's output and exit status, the tree's
# path written ROOT.
run_out() {
	_t=$1
	shift
	rc=0
	"$bin" --root "$_t" "$@" >"$work/raw" 2>&1 || rc=$?
	sed "s|$_t|ROOT|g" "$work/raw"
	echo "exit $rc"
}

for variant in 2cpu 1cpu; do
	t=$(fresh_legacy "debian13-$variant")
	cp "$installer/99-wp-panel.conf.$variant" "$t/etc/sysctl.d/99-wp-panel.conf"
	[ "$variant" = 2cpu ] || chmod 600 "$t/etc/sysctl.d/99-wp-panel.conf"
	compare takeover "$variant-overrides-before" "$(run_out "$t" overrides)"
	snapshot "$t" >"$work/before"
	compare takeover "$variant-dry-run" "$(run_out "$t" takeover --dry-run)"
	snapshot "$t" >"$work/after"
	check "$variant: takeover --dry-run wrote nothing" cmp -s "$work/before" "$work/after"
	compare takeover "$variant-output" "$(run_out "$t" takeover)"
	compare takeover "$variant-tree" "$(listing "$t")"
	check "$variant: the copy is the installer's bytes" \
		cmp "$installer/99-wp-panel.conf.$variant" "$t$taken/99-wp-panel.conf"
	compare takeover "$variant-overrides-after" "$(run_out "$t" overrides)"
	check_rc "$variant: apply exits 0" 0 "$bin" --root "$t" apply
	compare takeover "$variant-journal" "$(owned "$(run_out "$t" journal)")"
	check_rc "$variant: status 0 once taken over" 0 "$bin" --root "$t" status
	check_rc "$variant: a second takeover with nothing there" 0 "$bin" --root "$t" takeover
	check_eq "$variant: says nothing" "" "$out"
done

# dpkg-reconfigure after the installer ran again: the latest file is kept.
cp "$installer/99-wp-panel.conf.2cpu" "$t/etc/sysctl.d/99-wp-panel.conf"
check_rc "the installer's file back: taken over again" 0 "$bin" --root "$t" takeover
check "the copy kept is the latest" cmp "$installer/99-wp-panel.conf.2cpu" \
	"$t$taken/99-wp-panel.conf"
check_eq "and the journal has one step for it, with its mode" \
	"file	/etc/sysctl.d/99-wp-panel.conf	0644	$(id -u)	$(id -g)	taken-over/99-wp-panel.conf" \
	"$(grep '^file	' "$t$journal")"
# The 2-CPU file sets the congestion control, which the 1-CPU fragment sets
# too (cubic): its original is a kernel value apply records, not a step.
check_eq "set again by purge: the keys of the latest file the fragment does not set" \
	"net.core.rmem_default net.core.wmem_default" \
	"$(sed -n 's/^set	\([^	]*\)	.*/\1/p' "$t$journal" | tr '\n' ' ' | sed 's/ $//')"
check_eq "the kernel values stay recorded" "$(grep -c '^  net\.' "$expected/takeover/1cpu-journal")" \
	"$(grep -c '^key	' "$t$journal" || true)"

# Left alone, the tree untouched: an edited file, and what is not a file.
left_alone() {
	name=$1
	snapshot "$t" >"$work/before"
	compare takeover "$name" "$(run_out "$t" takeover)"
	snapshot "$t" >"$work/after"
	check "$name: nothing changed" cmp -s "$work/before" "$work/after"
}
t=$(fresh_legacy debian13-2cpu)
{ cat "$installer/99-wp-panel.conf.2cpu" && echo "net.core.somaxconn = 4096"; } \
	>"$t/etc/sysctl.d/99-wp-panel.conf"
left_alone edited
compare takeover edited-overrides "$(run_out "$t" overrides)"
check_rc "status exits 3 with the edited file" 3 "$bin" --root "$t" status
check_match "naming it for the port range" \
	'^net.ipv4.ip_local_port_range +10240 65535 +[0-9	 ]+ /etc/sysctl.d/99-wp-panel.conf  DRIFT$' "$out"
# As the installer's own sysctl -p leaves the kernel: its values, chosen.
printf '1024\t65535\n' >"$t/proc/sys/net/ipv4/ip_local_port_range"
"$bin" --root "$t" status >"$work/out" 2>&1 || true
check_match "once live, the installer's value is an override" \
	'^net.ipv4.ip_local_port_range +10240 65535 +1024 65535 +/etc/sysctl.d/99-wp-panel.conf  \(overridden\)$' "$(cat "$work/out")"
check_match "and for a key it sets to our value: a note" \
	'^net.ipv4.tcp_sack +1 +1 +/etc/sysctl.d/99-wp-panel.conf  \(the same value as ours\)$' "$out"
t=$(fresh_legacy debian13-2cpu)
cp "$installer/99-wp-panel.conf.2cpu" "$t/etc/installer.conf"
ln -s ../installer.conf "$t/etc/sysctl.d/99-wp-panel.conf"
left_alone symlink
rm "$t/etc/sysctl.d/99-wp-panel.conf"
mkfifo "$t/etc/sysctl.d/99-wp-panel.conf"
left_alone fifo
rm "$t/etc/sysctl.d/99-wp-panel.conf"
mkdir "$t/etc/sysctl.d/99-wp-panel.conf"
left_alone directory
rmdir "$t/etc/sysctl.d/99-wp-panel.conf"
head -c 70000 /dev/zero | tr '\0' '#' >"$t/etc/sysctl.d/99-wp-panel.conf"
left_alone too-large

# A tree without the variants the package installs cannot tell the
# installer's file from an edited one: takeover names what is missing, and
# leaves the file and the tree as they were, with and without --dry-run,
# whether the directory is absent or empty.
t=$(fresh debian13-2cpu)
cp "$installer/99-wp-panel.conf.2cpu" "$t/etc/sysctl.d/99-wp-panel.conf"
left_alone no-variants
snapshot "$t" >"$work/before"
compare takeover no-variants "$(run_out "$t" takeover --dry-run)"
snapshot "$t" >"$work/after"
check "no-variants, --dry-run: nothing changed" cmp -s "$work/before" "$work/after"
mkdir -p "$t/usr/share/wp-panel-nettune/installer"
left_alone no-variants

# A --root tree without a file detection needs: each command that detects
# exits 1 with one line naming the three files and where a tree's layout
# is written down, and changes nothing; an empty tree the same.
for need in sys/devices/system/cpu/online proc/meminfo proc/sys/kernel/osrelease; do
	t=$(fresh debian13-2cpu)
	rm "$t/$need"
	for cmd in detect "render sysctl" apply revert status; do
		# shellcheck disable=SC2086 # the command and its argument
		refused "a tree without $need: $cmd" \
			"^wp-panel-nettune: ${cmd%% *}: cannot read $t/$need: No such file or directory; a --root tree needs sys/devices/system/cpu/online, proc/meminfo and proc/sys/kernel/osrelease \(ROOT TREES in wp-panel-nettune\(8\)\)\$" \
			"$bin" --root "$t" $cmd
	done
done
mkdir "$work/empty"
compare root-tree empty "$(run_out "$work/empty" detect)"
check_eq "an empty tree stays empty" "" "$(find "$work/empty" -mindepth 1)"

# Never worse than before: a failure leaves the original where it was.
t=$(fresh_legacy debian13-2cpu)
cp "$installer/99-wp-panel.conf.2cpu" "$t/etc/sysctl.d/99-wp-panel.conf"
rm -rf "$t/var/lib/wp-panel-nettune"
: >"$t/var/lib/wp-panel-nettune"
snapshot "$t" >"$work/before"
compare takeover state-dir-a-file "$(run_out "$t" takeover)"
snapshot "$t" >"$work/after"
check "state directory a file: nothing changed" cmp -s "$work/before" "$work/after"
if [ "$(id -u)" = 0 ] && unshare --mount true 2>/dev/null; then
	t=$(fresh_legacy debian13-2cpu)
	cp "$installer/99-wp-panel.conf.2cpu" "$t/etc/sysctl.d/99-wp-panel.conf"
	snapshot "$t" >"$work/before"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount sh -c 'mount --bind -o ro "$1" "$1" && "$2" --root "$3" takeover' \
		sh "$t/etc/sysctl.d" "$bin" "$t" >"$work/raw" 2>&1 && rc=0 || rc=$?
	compare takeover read-only-etc "$(sed "s|$t|ROOT|g" "$work/raw"; echo "exit $rc")"
	snapshot "$t" >"$work/after"
	check "read-only /etc/sysctl.d: original intact, no copy left" \
		cmp -s "$work/before" "$work/after"
else
	pass "read-only /etc/sysctl.d # SKIP needs root and a mount namespace"
fi

# The article's 99-bbr.conf: left alone, listed, in effect with a note;
# /etc/sysctl.conf's lines get one note; a glob never overrides a key the
# fragment sets.
t=$(fresh_legacy debian13-2cpu)
cp "$legacy/99-bbr.conf" "$t/etc/sysctl.d/99-bbr.conf"
printf 'net.core.default_qdisc=fq\nnet.ipv4.tcp_congestion_control=bbr\n' >"$t/etc/sysctl.conf"
echo "net.ipv4.tcp_keepalive_* = 60" >"$t/etc/sysctl.d/70-glob.conf"
left_alone bbr-takeover
compare takeover bbr-overrides "$(run_out "$t" overrides)"
# Live as the article's "sysctl --system" left them.
echo fq >"$t/proc/sys/net/core/default_qdisc"
echo bbr >"$t/proc/sys/net/ipv4/tcp_congestion_control"
"$bin" --root "$t" apply >/dev/null
check_rc "status exits 0 with 99-bbr.conf" 0 "$bin" --root "$t" status
check_match "and notes it" \
	'^net.ipv4.tcp_congestion_control +bbr +bbr +/etc/sysctl.d/99-bbr.conf  \(the same value as ours\)$' "$out"
ln -s ../sysctl.conf "$t/etc/sysctl.d/99-sysctl.conf"
check_rc "sysctl.conf read through 99-sysctl.conf" 0 "$bin" --root "$t" overrides
check_match "is listed as that file" "^$t/etc/sysctl.d/99-sysctl.conf sets 2 keys of " "$out"
check_eq "and not noted" 0 "$(printf '%s\n' "$out" | grep -c '^note')"

# --- A key another file sets at boot is that file's -------------------------

# live_from FILE TREE: TREE's kernel as "sysctl -p FILE" leaves it, for the
# keys the tree has (a vector tab-separated, as the kernel prints it).
live_from() {
	fragment_settings "$1" | while read -r _key _value; do
		_path=$2/proc/sys/$(echo "$_key" | tr . /)
		[ ! -f "$_path" ] || printf '%s\n' "$_value" | tr ' ' '\t' >"$_path"
	done
}
# recorded KEY: KEY's kernel value step in the journal, or nothing.
recorded() {
	grep "^key	$1	" "$t$journal" 2>/dev/null || true
}

# README.Debian's override, applied: apply leaves the key alone and records
# nothing for it; status calls it chosen; revert, as purge, leaves it.
t=$(fresh debian13-2cpu)
echo "net.ipv4.tcp_fin_timeout = 30" >"$t/etc/sysctl.d/70-local.conf"
echo 30 >"$t/proc/sys/net/ipv4/tcp_fin_timeout"
snapshot "$t" >"$work/before"
check_rc "apply with 70-local.conf setting tcp_fin_timeout" 0 "$bin" --root "$t" apply
check_match "says it leaves the key to that file" \
	"^left net.ipv4.tcp_fin_timeout alone: $t/etc/sysctl.d/70-local.conf sets it to 30 at boot$" "$out"
check_match "and counts it" '^Set 17 keys, 3 already in effect, 0 skipped, 1 left to another file\.$' "$out"
check_eq "the administrator's value stays live" 30 "$(sysctl_value net.ipv4.tcp_fin_timeout "$t")"
check_eq "and no original is recorded for it" "" "$(recorded net.ipv4.tcp_fin_timeout)"
check_rc "status exits 0" 0 "$bin" --root "$t" status
check_match "naming the file" \
	'^net.ipv4.tcp_fin_timeout +15 +30 +/etc/sysctl.d/70-local.conf  \(overridden\)$' "$out"
check_match "a choice" '^As chosen \(exit 0\): overridden\.$' "$out"
check_rc "a second apply" 0 "$bin" --root "$t" apply
check_match "leaves it alone again" '^Set 0 keys, 20 already in effect, 0 skipped, 1 left to another file\.$' "$out"
check_rc "revert" 0 "$bin" --root "$t" revert
snapshot "$t" >"$work/after"
check "apply then revert with the override: the tree as it was" cmp -s "$work/before" "$work/after"

# Not yet live: apply does not write the file's value either; status says
# the kernel differs from what boot sets.
t=$(fresh debian13-2cpu)
echo "net.ipv4.tcp_fin_timeout = 30" >"$t/etc/sysctl.d/70-local.conf"
check_rc "apply with 70-local.conf, its value not live" 0 "$bin" --root "$t" apply
check_eq "the key keeps its value" 60 "$(sysctl_value net.ipv4.tcp_fin_timeout "$t")"
check_rc "status exits 3" 3 "$bin" --root "$t" status
check_match "drift, naming the file" \
	'^net.ipv4.tcp_fin_timeout +15 +60 +/etc/sysctl.d/70-local.conf  DRIFT$' "$out"
"$bin" --root "$t" revert >/dev/null

# An override made after an earlier configure set the key: the original stays
# recorded; revert, as purge, puts it back only while the key has the value
# apply gave it.
t=$(fresh debian13-2cpu)
"$bin" --root "$t" apply >/dev/null
echo "net.ipv4.tcp_fin_timeout = 30" >"$t/etc/sysctl.d/70-local.conf"
echo 30 >"$t/proc/sys/net/ipv4/tcp_fin_timeout"
check_rc "apply after the override, applied" 0 "$bin" --root "$t" apply
check_eq "keeps the administrator's value" 30 "$(sysctl_value net.ipv4.tcp_fin_timeout "$t")"
check_eq "and the original of the first apply" "key	net.ipv4.tcp_fin_timeout	60	15" \
	"$(recorded net.ipv4.tcp_fin_timeout)"
check_rc "status exits 0" 0 "$bin" --root "$t" status
check_rc "revert" 0 "$bin" --root "$t" revert
check_eq "leaves the administrator's value" 30 "$(sysctl_value net.ipv4.tcp_fin_timeout "$t")"
t=$(fresh debian13-2cpu)
"$bin" --root "$t" apply >/dev/null
echo "net.ipv4.tcp_fin_timeout = 30" >"$t/etc/sysctl.d/70-local.conf"
check_rc "apply after the override, not yet live" 0 "$bin" --root "$t" apply
check_eq "leaves the value of the first apply" 15 "$(sysctl_value net.ipv4.tcp_fin_timeout "$t")"
check_rc "status exits 3" 3 "$bin" --root "$t" status
check_match "drift, naming the file" \
	'^net.ipv4.tcp_fin_timeout +15 +15 +/etc/sysctl.d/70-local.conf  DRIFT$' "$out"
check_rc "revert" 0 "$bin" --root "$t" revert
check_eq "puts back the original of the first apply" 60 \
	"$(sysctl_value net.ipv4.tcp_fin_timeout "$t")"

# The installer's file kept (takeover declined), live as its sysctl -p left
# the kernel: its port range and its vectors stay; status exits 0.
t=$(fresh_legacy debian13-2cpu)
cp "$installer/99-wp-panel.conf.2cpu" "$t/etc/sysctl.d/99-wp-panel.conf"
live_from "$t/etc/sysctl.d/99-wp-panel.conf" "$t"
check_rc "apply with the installer's file kept" 0 "$bin" --root "$t" apply
check_match "leaves the port range to it" \
	"^left net.ipv4.ip_local_port_range alone: $t/etc/sysctl.d/99-wp-panel.conf sets it to 1024 65535 at boot$" "$out"
check_eq "which stays the installer's" "1024 65535" \
	"$(sysctl_value net.ipv4.ip_local_port_range "$t")"
check_eq "and records nothing for it" "" "$(recorded net.ipv4.ip_local_port_range)"
check_eq "and so is every key of ours the file sets" 20 \
	"$(printf '%s\n' "$out" | grep -c "^left [a-z0-9_.]* alone: $t/etc/sysctl.d/99-wp-panel.conf ")"
check_rc "status exits 0" 0 "$bin" --root "$t" status
check_match "the port range overridden" \
	'^net.ipv4.ip_local_port_range +10240 65535 +1024 65535 +/etc/sysctl.d/99-wp-panel.conf  \(overridden\)$' "$out"
"$bin" --root "$t" revert >/dev/null

# 1 CPU and the article's 99-bbr.conf, live: the fragment names cubic and
# fq_codel, so the file's bbr and fq are an override, named with the file.
t=$(fresh_legacy debian13-1cpu)
cp "$legacy/99-bbr.conf" "$t/etc/sysctl.d/99-bbr.conf"
live_from "$legacy/99-bbr.conf" "$t"
check_rc "1 CPU, 99-bbr.conf: overrides" 0 "$bin" --root "$t" overrides
check_match "names the file" \
	"^$t/etc/sysctl.d/99-bbr.conf sets 2 keys of $t/etc/sysctl.d/60-wp-panel-nettune.conf at boot, after it:$" "$out"
check_match "with bbr against ours" '^  net.ipv4.tcp_congestion_control = bbr \(ours: cubic\)$' "$out"
check_match "and fq" '^  net.core.default_qdisc = fq \(ours: fq_codel\)$' "$out"
check_rc "apply" 0 "$bin" --root "$t" apply
check_eq "leaves bbr and fq live" "bbr fq" "$(sysctl_value net.ipv4.tcp_congestion_control "$t") \
$(sysctl_value net.core.default_qdisc "$t")"
check_rc "status exits 0" 0 "$bin" --root "$t" status
check_match "the congestion control overridden by the file" \
	'^net.ipv4.tcp_congestion_control +cubic +bbr +/etc/sysctl.d/99-bbr.conf  \(overridden\)$' "$out"
check_match "and the qdisc" \
	'^net.core.default_qdisc +fq_codel +fq +/etc/sysctl.d/99-bbr.conf  \(overridden\)$' "$out"
"$bin" --root "$t" revert >/dev/null

# cubic chosen on 2 CPUs where another file turns BBR on: the same.
t=$(fresh_legacy debian13-2cpu)
install_fragments "$t" --congestion cubic
cp "$legacy/99-bbr.conf" "$t/etc/sysctl.d/99-bbr.conf"
live_from "$legacy/99-bbr.conf" "$t"
check_rc "cubic chosen, 99-bbr.conf: overrides" 0 "$bin" --root "$t" overrides
check_match "names bbr against ours" '^  net.ipv4.tcp_congestion_control = bbr \(ours: cubic\)$' "$out"
check_rc "apply" 0 "$bin" --root "$t" apply
check_eq "leaves bbr live" bbr "$(sysctl_value net.ipv4.tcp_congestion_control "$t")"
check_rc "status exits 0" 0 "$bin" --root "$t" status
check_match "the congestion control overridden by the file" \
	'^net.ipv4.tcp_congestion_control +cubic +bbr +/etc/sysctl.d/99-bbr.conf  \(overridden\)$' "$out"

# --- The undo journal, and the records of earlier versions it replaces -------

# takeover writes its step in the journal first: a journal it cannot read
# leaves the file where it is, and the tree as it was.
t=$(fresh_legacy debian13-2cpu)
cp "$installer/99-wp-panel.conf.2cpu" "$t/etc/sysctl.d/99-wp-panel.conf"
lines 'key\tnet.core.somaxconn\t4096' '# end' >"$t$journal"
snapshot "$t" >"$work/before"
check_rc "takeover with a corrupt journal: exit 1" 1 "$bin" --root "$t" takeover
check_match "names the journal" "$(corrupt "$journal" 2)" "$out"
check_match "and leaves the file in place" \
	"^wp-panel-nettune: takeover: warning: cannot take over $t/etc/sysctl.d/99-wp-panel.conf: the journal cannot be read: .*; left it in place$" "$out"
snapshot "$t" >"$work/after"
check "takeover with a corrupt journal: nothing changed" cmp -s "$work/before" "$work/after"

# sets: the set steps of the journal, KEY=VALUE, in their order.
sets() {
	sed -n 's/^set	\([^	]*\)	\(.*\)$/\1=\2/p' "$t$journal" | tr '\n' ' ' | sed 's/ $//'
}
# The keys purge sets again once the file is back are those of the file that
# the fragment does not set: made again at every apply, they follow the
# fragment.
rm "$t$journal"
check_rc "takeover" 0 "$bin" --root "$t" takeover
check_eq "set again by purge: the two keys the fragment does not set" \
	"net.core.rmem_default=262144 net.core.wmem_default=262144" "$(sets)"
check_rc "apply" 0 "$bin" --root "$t" apply
check_eq "the same after apply" \
	"net.core.rmem_default=262144 net.core.wmem_default=262144" "$(sets)"
install_fragments "$t" --congestion cubic
check_rc "apply with cubic, a fragment that names cubic and fq_codel" 0 \
	"$bin" --root "$t" apply
check_eq "the keys of the file set again by purge are still the two" \
	"net.core.rmem_default=262144 net.core.wmem_default=262144" "$(sets)"
check_eq "cubic is back, its original: no kernel value recorded for it" \
	"cubic 0" "$(sysctl_value net.ipv4.tcp_congestion_control "$t") \
$(grep -c '^key	net.ipv4.tcp_congestion_control	' "$t$journal" || true)"
check_rc "journal exits 0" 0 "$bin" --root "$t" journal
check_match "and shows them after the file" '^    then net.core.wmem_default = 262144, from that file$' "$out"
echo "net.core.rmem_default = 212992" >>"$t$fragment"
check_rc "apply with a fragment that sets rmem_default" 0 "$bin" --root "$t" apply
check_eq "rmem_default is no longer set again by purge" \
	"net.core.wmem_default=262144" "$(sets)"
install_fragments "$t"
check_rc "apply with bbr again" 0 "$bin" --root "$t" apply
check_eq "the two keys again" "net.core.rmem_default=262144 net.core.wmem_default=262144" "$(sets)"
# revert puts the kernel values back; the file's steps stay for purge.
check_rc "revert" 0 "$bin" --root "$t" revert
check_eq "leaves no kernel value in the journal" 0 "$(grep -c '^key	' "$t$journal" || true)"
check_eq "but the file and the keys set from it" \
	"file	/etc/sysctl.d/99-wp-panel.conf	0644	$(id -u)	$(id -g)	taken-over/99-wp-panel.conf
set	net.core.rmem_default	262144
set	net.core.wmem_default	262144" "$(grep '^file	\|^set	' "$t$journal")"
check_rc "a second revert" 0 "$bin" --root "$t" revert
check_eq "has no kernel value to put back" "No kernel value recorded: nothing to revert." "$out"

# compare_file NAME FILE: FILE byte for byte as tests/expected/NAME.
compare_file() {
	if [ "${NETTUNE_UPDATE_EXPECTED:-}" = 1 ]; then
		mkdir -p "$(dirname "$expected/$1")"
		cp "$2" "$expected/$1"
	fi
	if cmp -s "$expected/$1" "$2"; then
		pass "$1: matches byte for byte"
	else
		fail "$1: differs from tests/expected/$1" "$(diff -u "$expected/$1" "$2" 2>&1)"
	fi
}

# legacy_tree: a tree as 0.1.0 left it: its record, as 0.1.0 wrote it.
legacy_tree() {
	t=$(fresh_legacy debian13-2cpu)
	printf '%s\n' '# wp-panel-nettune state 1' '# key	original	applied' \
		'net.core.somaxconn	4096	65535' 'net.ipv4.tcp_fin_timeout	60	15' '# end' \
		>"$t$legacy_state"
	echo 65535 >"$t/proc/sys/net/core/somaxconn"
	echo 15 >"$t/proc/sys/net/ipv4/tcp_fin_timeout"
}

legacy_tree
snapshot "$t" >"$work/before"
check_rc "journal reads 0.1.0's record" 0 "$bin" --root "$t" journal
check_eq "and lists its steps" "Purge puts back, in this order:
  net.core.somaxconn = 4096, if it is still 65535
  net.ipv4.tcp_fin_timeout = 60, if it is still 15" \
	"$(printf '%s\n' "$out" | sed -n '/^Purge puts back/,$p')"
check_match "saying it is not yet a journal" 'earlier version.*journal --convert' "$out"
snapshot "$t" >"$work/after"
check "journal without --convert writes nothing" cmp -s "$work/before" "$work/after"
check_rc "journal --convert" 0 "$bin" --root "$t" journal --convert
check_match "names the record" "^converted (ROOT)?$legacy_state into ROOT$journal\$" \
	"$(printf '%s\n' "$out" | sed "s|$t|ROOT|g")"
compare_file journal/converted "$t$journal"
check "and removes the record of 0.1.0" test ! -e "$t$legacy_state"
snapshot "$t" >"$work/before"
check_rc "a second journal --convert" 0 "$bin" --root "$t" journal --convert
check_eq "says nothing" "" "$out"
snapshot "$t" >"$work/after"
check "and changes nothing" cmp -s "$work/before" "$work/after"
check_rc "revert from the converted journal" 0 "$bin" --root "$t" revert
check_eq "puts back the originals of the record" "4096 60" \
	"$(sysctl_value net.core.somaxconn "$t") $(sysctl_value net.ipv4.tcp_fin_timeout "$t")"

# apply on a tree with only 0.1.0's record converts it too: the originals
# it holds are kept, not the values the kernel holds now.
legacy_tree
check_rc "apply on 0.1.0's record" 0 "$bin" --root "$t" apply
check "removes the record of 0.1.0" test ! -e "$t$legacy_state"
check_match "the journal keeps the original of somaxconn" "^key	net.core.somaxconn	4096	65535$" \
	"$(cat "$t$journal")"
check_rc "revert" 0 "$bin" --root "$t" revert
check_eq "puts back the originals of the record" "4096 60" \
	"$(sysctl_value net.core.somaxconn "$t") $(sysctl_value net.ipv4.tcp_fin_timeout "$t")"

# A development build's takeover record is not read: no step comes of it,
# and nothing removes it.
t=$(fresh_legacy debian13-2cpu)
mkdir -p "$t$taken"
cp "$installer/99-wp-panel.conf.2cpu" "$t$taken/99-wp-panel.conf"
printf '%s\n' '# wp-panel-nettune taken-over 2' \
	'/etc/sysctl.d/99-wp-panel.conf	0640	99-wp-panel.conf.2cpu	0	4' '# end' >"$t$dev_taken"
snapshot "$t" >"$work/before"
check_rc "journal --convert beside a development build's takeover record" 0 \
	"$bin" --root "$t" journal --convert
check_eq "converts nothing" "" "$out"
snapshot "$t" >"$work/after"
check "and changes nothing" cmp -s "$work/before" "$work/after"
check_rc "journal" 0 "$bin" --root "$t" journal
check_eq "has nothing to put back" "Nothing recorded: purge has nothing to put back." "$out"

# apply and revert on this machine need root; they say so and exit 1 before
# reading or writing anything. As root, the suite drops to nobody for it.
unprivileged() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		"$@"
	fi
}
for cmd in apply revert; do
	check_rc "$cmd without root fails" 1 unprivileged "$bin" "$cmd"
	check_eq "$cmd without root: one line that says why" \
		"wp-panel-nettune: $cmd: needs root: it changes the running kernel and the record in /var/lib/wp-panel-nettune" \
		"$out"
done

t=$(tree debian13-2cpu)
check_eq "render's options go before or after its argument" \
	"$("$bin" --root "$t" render sysctl --congestion cubic)" \
	"$("$bin" --root "$t" render --congestion=cubic sysctl)"

# Output that cannot be written is a failure, with one message on stderr.
t=$(fresh debian13-2cpu)
for cmd in --help --version detect "render sysctl" status apply; do
	# shellcheck disable=SC2086 # the command and its argument
	check_rc "$cmd with stdout on /dev/full exits 1" 1 sh -c "'$bin' --root '$t' $cmd >/dev/full"
	check_match "$cmd says stdout failed" '^wp-panel-nettune: ([a-z]+: )?cannot write to standard output: No space left on device$' "$out"
	check_eq "$cmd says it once" 1 "$(printf '%s\n' "$out" | grep -c 'standard output')"
	check_rc "$cmd with stdout closed exits 1" 1 sh -c "'$bin' --root '$t' $cmd >&-"
	check_match "$cmd says stdout is closed" 'cannot write to standard output: it is closed' "$out"
done
check "and the journal holds only its steps, no output meant for stdout" \
	sh -c "test -s '$t$journal' && ! grep -qv '^#\|^key	' '$t$journal'"
"$bin" --root "$t" revert >/dev/null

summary
