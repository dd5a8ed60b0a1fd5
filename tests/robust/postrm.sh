#!/bin/sh
# debian/postrm purge on a corrupt or hostile state directory: FIFOs, a
# directory and symlinks where its files should be, symlinks planted at the
# names it writes, records too large to parse line by line. Each case runs
# the real postrm, unchanged, in namespaces of its own: a network namespace
# (its writes to /proc/sys/net change nothing of this machine), a PID
# namespace whose PID 1 is the case's shell, and a mount namespace whose /
# is a copy-on-write overlay of this machine's, with tmpfs over /var/lib,
# /etc/sysctl.d, /etc/modules-load.d, /run and /tmp. The overlay hides a
# container's marker files, so that postrm takes the case for a host and
# puts values back; nothing it writes (ucf, debconf) reaches this machine.
# Every case must finish (exit 0) within 60 s, with one line per refused
# item, and leave what the case says. Records are bounded as the helper
# bounds them (src/state.h): 213248 bytes, lines of 3331.
#
# usage: tests/robust/postrm.sh BINARY    (root; the helper is not used:
# postrm runs when it is gone)
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
postrm=$here/../../debian/postrm

if [ "$(id -u)" != 0 ]; then
	fail "tests/robust/postrm.sh needs root (namespaces and mounts)"
	summary
	exit 1
fi
work=$(mktemp -d /tmp/nettune-robust-postrm.XXXXXX)
trap 'rm -rf "$work"' EXIT
sysctl -a 2>/dev/null | grep '^net\.' >"$work/net-before" || true

# The namespaces' PID 1: makes the root, then runs the case in it.
# shellcheck disable=SC2016 # expanded by that shell
printf '%s\n' 'set -e
n=$1
mount -t tmpfs scratch "$n"
mkdir "$n/upper" "$n/ovl" "$n/root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$n/upper,workdir=$n/ovl" "$n/root"
r=$n/root
mount -t proc proc "$r/proc"
mount --rbind /dev "$r/dev"
rm -f "$r/.dockerenv" "$r/run/.containerenv"
for d in /run /tmp /var/lib /etc/sysctl.d /etc/modules-load.d; do
	mkdir -p "$r$d"
	mount -t tmpfs nettune "$r$d"
done
mkdir -p "$r/var/lib/ucf/cache" "$r/var/lib/wp-panel-nettune"
cp "$2" "$r/postrm"
cp "$3" "$r/case.sh"
exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	DEBIAN_FRONTEND=noninteractive LC_ALL=C sh -c ". /case.sh
		setup
		rc=0
		timeout 60 /postrm purge >/tmp/out 2>&1 </dev/null || rc=\$?
		echo \"exit \$rc\"
		sed \"s/^/said: /; s/\\.wp-panel-nettune\\.[A-Za-z0-9]\\{6\\}\$/.wp-panel-nettune.XXXXXX/\" /tmp/out
		report"' >"$work/pid1.sh"

# What every case can use, inside its root.
# shellcheck disable=SC2016 # expanded inside the case's root
printf '%s\n' 'tab=$(printf "\t")
S=/var/lib/wp-panel-nettune
T=$S/taken-over
F=/etc/sysctl.d/99-wp-panel.conf
key() { echo "/proc/sys/$(echo "$1" | tr . /)"; }
put() { printf "%s\n" "$2" >"$(key "$1")"; }
# record: a sound record of originals; fin_timeout and somaxconn have the
# values the package gave them.
record() {
	fin=$(cat "$(key net.ipv4.tcp_fin_timeout)")
	max=$(cat "$(key net.core.somaxconn)")
	put net.ipv4.tcp_fin_timeout 15
	put net.core.somaxconn 65535
	printf "# wp-panel-nettune state 2\n# key\toriginal\tapplied\tpending (while being written)\n"
	printf "net.ipv4.tcp_fin_timeout\t%s\t15\nnet.core.somaxconn\t%s\t65535\n# end\n" "$fin" "$max"
}
# taken VERSION [FILE]: the installer'"'"'s file taken over, mode 0640, owner
# 1234:2345, with a record of that version.
installer() { printf "# installer\nnet.ipv4.tcp_keepalive_time = 600\n"; }
taken() {
	mkdir -p "$T"
	installer >"${2:-$T/99-wp-panel.conf}"
	chown 1234:2345 "${2:-$T/99-wp-panel.conf}"
	chmod 640 "${2:-$T/99-wp-panel.conf}"
	if [ "$1" = 2 ]; then
		printf "# wp-panel-nettune taken-over 2\n# path\tmode\tvariant\tuid\tgid\n%s\t0640\t2cpu\t1234\t2345\n# end\n" "$F"
	else
		printf "# wp-panel-nettune taken-over 1\n# path\tmode\tvariant\n%s\t0640\t2cpu\n# end\n" "$F"
	fi >"$T/record"
}
# values: the keys the cases change, as the kernel has them now.
values() {
	for k in net.ipv4.tcp_fin_timeout net.core.somaxconn net.ipv4.tcp_keepalive_time; do
		echo "$k $(cat "$(key "$k")")"
	done
}
# files: what stands under the trees postrm writes, a random name made
# XXXXXX; regular files with their bytes summed.
files() {
	find /etc/sysctl.d /var/lib/wp-panel-nettune /var/lib/prometheus /srv -mindepth 1 \
		-printf "%p %y %m %U:%G\n" 2>/dev/null | sort |
		sed "s/\.wp-panel-nettune\.[A-Za-z0-9]\{6\} /.wp-panel-nettune.XXXXXX /"
	find /etc/sysctl.d /srv -type f -exec md5sum {} + 2>/dev/null | sort -k2 |
		sed "s/\.wp-panel-nettune\.[A-Za-z0-9]\{6\}$/.wp-panel-nettune.XXXXXX/"
}' >"$work/prelude.sh"

# case NAME WANT: runs the case whose setup and report functions are on
# standard input; what it reports must be WANT.
case_() {
	_case=$work/case-$(echo "$1" | tr -c 'a-z0-9\n' -)
	mkdir -p "$_case/ns"
	{
		cat "$work/prelude.sh"
		cat
	} >"$_case/case.sh"
	_start=$(date +%s)
	timeout 120 unshare --mount --net --pid --fork --kill-child \
		sh "$work/pid1.sh" "$_case/ns" "$postrm" "$_case/case.sh" >"$_case/got" 2>&1
	echo "exit of the namespaces: $?" >>"$_case/got"
	note "$(sed -n 1p "$_case/got") after $(($(date +%s) - _start)) s: $1"
	check_eq "$1" "$2
exit of the namespaces: 0" "$(cat "$_case/got")"
}

sum() { printf '%s\n' "$2" | md5sum | sed "s|-\$|$1|"; }
inst=$(printf '# installer\nnet.ipv4.tcp_keepalive_time = 600\n' | md5sum | cut -d' ' -f1)
# The values of a new network namespace.
sound_values="net.ipv4.tcp_fin_timeout 60
net.core.somaxconn 4096
net.ipv4.tcp_keepalive_time 7200"

# --- A sound state directory --------------------------------------------------

case_ "a sound record and a version 2 takeover record: all put back, owner and group too" \
	"exit 0
said: wp-panel-nettune: put back the original value of 2 kernel setting(s)
said: wp-panel-nettune: put back /etc/sysctl.d/99-wp-panel.conf, byte for byte
said: wp-panel-nettune: set again from /etc/sysctl.d/99-wp-panel.conf: net.ipv4.tcp_keepalive_time
net.ipv4.tcp_fin_timeout 60
net.core.somaxconn 4096
net.ipv4.tcp_keepalive_time 600
/etc/sysctl.d/99-wp-panel.conf f 640 1234:2345
$inst  /etc/sysctl.d/99-wp-panel.conf" <<'CASE'
setup() { record >$S/state; taken 2; }
report() { values; files; }
CASE

# A version 1 record has no owner: the file comes back root's. At the old
# fixed temporary name stands a symlink to another file, which must stay
# as it is.
case_ "a version 1 takeover record, a symlink at the old temporary name: put back, the symlink's target untouched" \
	"exit 0
said: wp-panel-nettune: put back the original value of 2 kernel setting(s)
said: wp-panel-nettune: put back /etc/sysctl.d/99-wp-panel.conf, byte for byte
said: wp-panel-nettune: set again from /etc/sysctl.d/99-wp-panel.conf: net.ipv4.tcp_keepalive_time
net.ipv4.tcp_fin_timeout 60
net.core.somaxconn 4096
net.ipv4.tcp_keepalive_time 600
/etc/sysctl.d/99-wp-panel.conf f 640 0:0
/etc/sysctl.d/99-wp-panel.conf.wp-panel-nettune-tmp l 777 0:0
/srv/victim f 644 0:0
$inst  /etc/sysctl.d/99-wp-panel.conf
$(sum /srv/victim victim)" <<'CASE'
setup() {
	record >$S/state
	taken 1
	mkdir -p /srv && echo victim >/srv/victim && chmod 644 /srv/victim
	ln -s /srv/victim $F.wp-panel-nettune-tmp
}
report() { values; files; }
CASE

case_ "another file at the path, a symlink at the name beside it: both kept, the symlink's target untouched" \
	"exit 0
said: wp-panel-nettune: put back the original value of 2 kernel setting(s)
said: wp-panel-nettune: /etc/sysctl.d/99-wp-panel.conf was taken over and another file stands there now: both kept, the one taken over is /etc/sysctl.d/99-wp-panel.conf.wp-panel-nettune.XXXXXX
$sound_values
/etc/sysctl.d/99-wp-panel.conf f 644 0:0
/etc/sysctl.d/99-wp-panel.conf.wp-panel-nettune l 777 0:0
/etc/sysctl.d/99-wp-panel.conf.wp-panel-nettune.XXXXXX f 640 0:0
/srv/victim f 644 0:0
$(sum /etc/sysctl.d/99-wp-panel.conf other)
$inst  /etc/sysctl.d/99-wp-panel.conf.wp-panel-nettune.XXXXXX
$(sum /srv/victim victim)" <<'CASE'
setup() {
	record >$S/state
	taken 1
	echo other >$F && chmod 644 $F
	mkdir -p /srv && echo victim >/srv/victim && chmod 644 /srv/victim
	ln -s /srv/victim $F.wp-panel-nettune
}
report() { values; files; }
CASE

# A takeover killed between moving the file off its path and removing it
# leaves it hidden beside the path; the copy stands for it and it goes.
case_ "an interrupted takeover's hidden file: removed, the file put back" \
	"exit 0
said: wp-panel-nettune: put back the original value of 2 kernel setting(s)
said: wp-panel-nettune: put back /etc/sysctl.d/99-wp-panel.conf, byte for byte
said: wp-panel-nettune: set again from /etc/sysctl.d/99-wp-panel.conf: net.ipv4.tcp_keepalive_time
net.ipv4.tcp_fin_timeout 60
net.core.somaxconn 4096
net.ipv4.tcp_keepalive_time 600
/etc/sysctl.d/99-wp-panel.conf f 640 1234:2345
$inst  /etc/sysctl.d/99-wp-panel.conf" <<'CASE'
setup() { record >$S/state; taken 2; installer >/etc/sysctl.d/.99-wp-panel.conf.taking-over; }
report() { values; files; }
CASE

# --- FIFOs, a directory, symlinks ---------------------------------------------

case_ "the lock is a FIFO: no hang, values put back without the lock" \
	"exit 0
said: wp-panel-nettune: /var/lib/wp-panel-nettune/lock is not a regular file: going on without the lock
said: wp-panel-nettune: put back the original value of 2 kernel setting(s)
$sound_values" <<'CASE'
setup() { record >$S/state; mkfifo $S/lock; }
report() { values; files; }
CASE

case_ "the lock is a directory: values put back without the lock" \
	"exit 0
said: wp-panel-nettune: /var/lib/wp-panel-nettune/lock is not a regular file: going on without the lock
said: wp-panel-nettune: put back the original value of 2 kernel setting(s)
$sound_values" <<'CASE'
setup() { record >$S/state; mkdir $S/lock; }
report() { values; files; }
CASE

case_ "the lock is a dangling symlink: its target is not created" \
	"exit 0
said: wp-panel-nettune: /var/lib/wp-panel-nettune/lock is not a regular file: going on without the lock
said: wp-panel-nettune: put back the original value of 2 kernel setting(s)
$sound_values" <<'CASE'
setup() { record >$S/state; mkdir -p /srv; ln -s /srv/planted.conf $S/lock; }
report() { values; files; }
CASE

case_ "the state record is a FIFO: no hang, reported, nothing written" \
	"exit 0
said: wp-panel-nettune: /var/lib/wp-panel-nettune/state is not a regular file: no value put back
net.ipv4.tcp_fin_timeout 15
net.core.somaxconn 65535
net.ipv4.tcp_keepalive_time 7200" <<'CASE'
setup() { record >/dev/null; mkfifo $S/state; }
report() { values; files; }
CASE

case_ "the takeover record is a FIFO: no hang, reported, the saved file kept" \
	"exit 0
said: wp-panel-nettune: put back the original value of 2 kernel setting(s)
said: wp-panel-nettune: /var/lib/wp-panel-nettune/taken-over/record is not a regular file: /var/lib/wp-panel-nettune/taken-over is left in place
$sound_values
/var/lib/wp-panel-nettune/lock f 644 0:0
/var/lib/wp-panel-nettune/taken-over d 755 0:0
/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf f 640 1234:2345
/var/lib/wp-panel-nettune/taken-over/record p 644 0:0" <<'CASE'
setup() { record >$S/state; taken 2; rm $T/record; mkfifo -m 644 $T/record; }
report() { values; files; }
CASE

case_ "the saved file is a FIFO: no hang, reported, kept" \
	"exit 0
said: wp-panel-nettune: put back the original value of 2 kernel setting(s)
said: wp-panel-nettune: /var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf is not a regular file: /etc/sysctl.d/99-wp-panel.conf is not put back, /var/lib/wp-panel-nettune/taken-over is left in place
$sound_values
/var/lib/wp-panel-nettune/lock f 644 0:0
/var/lib/wp-panel-nettune/taken-over d 755 0:0
/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf p 640 0:0
/var/lib/wp-panel-nettune/taken-over/record f 644 0:0" <<'CASE'
setup() { record >$S/state; taken 2; rm $T/99-wp-panel.conf; mkfifo -m 640 $T/99-wp-panel.conf; }
report() { values; files; }
CASE

case_ "the saved file is a symlink: not followed, nothing put at the path" \
	"exit 0
said: wp-panel-nettune: put back the original value of 2 kernel setting(s)
said: wp-panel-nettune: /var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf is not a regular file: /etc/sysctl.d/99-wp-panel.conf is not put back, /var/lib/wp-panel-nettune/taken-over is left in place
$sound_values
/srv/secret f 600 0:0
/var/lib/wp-panel-nettune/lock f 644 0:0
/var/lib/wp-panel-nettune/taken-over d 755 0:0
/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf l 777 0:0
/var/lib/wp-panel-nettune/taken-over/record f 644 0:0
$(sum /srv/secret secret)" <<'CASE'
setup() {
	record >$S/state
	taken 1
	mkdir -p /srv && (umask 077 && echo secret >/srv/secret)
	ln -sf /srv/secret $T/99-wp-panel.conf
}
report() { values; files; }
CASE

# --- Records too large to parse line by line -----------------------------------

case_ "a record line of 1 MB: the record refused whole" \
	"exit 0
said: wp-panel-nettune: /var/lib/wp-panel-nettune/state is larger than 213248 bytes: no value put back
net.ipv4.tcp_fin_timeout 15
net.core.somaxconn 65535
net.ipv4.tcp_keepalive_time 7200" <<'CASE'
setup() {
	record | sed '$d' >$S/state
	{ printf 'net.ipv4.tcp_keepalive_time\t'; head -c 1000000 /dev/zero | tr '\0' 7; printf '\t1\n# end\n'; } >>$S/state
}
report() { values; files; }
CASE

case_ "a record line longer than the helper writes: not parsed, the other lines put back" \
	"exit 0
said: wp-panel-nettune: ignoring a line of more than 3331 bytes in /var/lib/wp-panel-nettune/state
said: wp-panel-nettune: put back the original value of 2 kernel setting(s)
$sound_values" <<'CASE'
setup() {
	record | sed '$d' >$S/state
	{ printf 'net.ipv4.tcp_keepalive_time\t'; head -c 100000 /dev/zero | tr '\0' 7; printf '\t1\n# end\n'; } >>$S/state
}
report() { values; files; }
CASE

case_ "a record of 100,000 lines (3.1 MB): refused whole" \
	"exit 0
said: wp-panel-nettune: /var/lib/wp-panel-nettune/state is larger than 213248 bytes: no value put back
net.ipv4.tcp_fin_timeout 15
net.core.somaxconn 65535
net.ipv4.tcp_keepalive_time 7200" <<'CASE'
setup() {
	record >/dev/null
	{
		printf '# wp-panel-nettune state 2\n'
		yes "net.ipv4.tcp_fin_timeout${tab}60${tab}15" | head -n 100000
		printf '# end\n'
	} >$S/state
}
report() { values; files; }
CASE

case_ "a record of 30,000 short malformed lines: read through, 21 lines said" \
	"exit 0
$(i=0; while [ $i -lt 20 ]; do echo "said: wp-panel-nettune: ignoring a malformed line in /var/lib/wp-panel-nettune/state"; i=$((i + 1)); done)
said: wp-panel-nettune: 29980 more message(s) about /var/lib/wp-panel-nettune/state left out
said: wp-panel-nettune: put back the original value of 2 kernel setting(s)
$sound_values" <<'CASE'
setup() {
	record | sed '$d' >$S/state
	{ yes "n${tab}1${tab}2" | head -n 30000; printf '# end\n'; } >>$S/state
}
report() { values; files; }
CASE

# --- The node exporter's directory ----------------------------------------------

case_ "the metrics and both kinds of temporary file removed, other files kept" \
	"exit 0
said: wp-panel-nettune: no record of changed kernel values, none to put back
/var/lib/prometheus/node-exporter d 755 0:0
/var/lib/prometheus/node-exporter/other.prom f 644 0:0
/var/lib/prometheus/node-exporter/wp-panel-nettune.prom.tmpXYZ123 f 644 0:0" <<'CASE'
setup() {
	d=/var/lib/prometheus/node-exporter
	mkdir -p $d
	for f in wp-panel-nettune.prom .wp-panel-nettune.prom.aB3dE9 wp-panel-nettune.prom.tmp0a1b2c \
		wp-panel-nettune.prom.tmpXYZ123 other.prom; do
		echo x >$d/$f
	done
}
report() { files; }
CASE

case_ "the node exporter's directory is a symlink: nothing removed through it" \
	"exit 0
said: wp-panel-nettune: /var/lib/prometheus/node-exporter leads to /srv: its files are left alone
said: wp-panel-nettune: no record of changed kernel values, none to put back
/srv/wp-panel-nettune.prom f 644 0:0
/var/lib/prometheus/node-exporter l 777 0:0
$(sum /srv/wp-panel-nettune.prom keep)" <<'CASE'
setup() {
	mkdir -p /srv && echo keep >/srv/wp-panel-nettune.prom
	mkdir -p /var/lib/prometheus
	ln -s /srv /var/lib/prometheus/node-exporter
}
report() { files; }
CASE

sysctl -a 2>/dev/null | grep '^net\.' >"$work/net-after" || true
check "this machine's net.* sysctl values are as they were" \
	diff -u "$work/net-before" "$work/net-after"

summary
