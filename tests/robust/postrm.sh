#!/bin/sh
# debian/postrm purge on a corrupt or hostile state directory: FIFOs, a
# directory and symlinks where the journal, the saved copy of a taken-over
# file, the file's path or the lock should be; journals too large,
# truncated, or with malformed lines, which the helper's seal refuses; a
# seal forged over hostile lines; the records of an earlier version; the
# lock held by a run still going. Before each postrm case the helper seals
# the journal, as the prerm's remove does (journal --seal). And
# debian/prerm remove, which removes the node exporter's metrics, on a
# hostile directory.
# Each case runs the real script, unchanged, in namespaces of its own
# (tests/robust/ns-lib): network, UTS, PID and mount namespaces, and an
# overlay of this machine's / with tmpfs over the trees the script writes.
# Every case must finish (exit 0) within 60 s, with one line per refused
# item, and leave what the case says. The journal is bounded as the helper
# bounds it (src/journal.h): 427008 bytes.
#
# usage: tests/robust/postrm.sh BINARY    (root; the helper seals, postrm
# runs once it is gone)
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
# shellcheck source=tests/robust/ns-lib
. "$here/ns-lib"
postrm=$here/../../debian/postrm
prerm=$here/../../debian/prerm
# The helper, which seals the journal before each postrm case as the
# prerm's remove does.
helper=$(realpath "$1")

work=$(mktemp -d /tmp/nettune-robust-postrm.XXXXXX)
trap 'rm -rf "$work"' EXIT
if ! why=$(ns_usable); then
	fail "tests/robust/postrm.sh: $why"
	summary
	exit 1
fi
sysctl -a 2>/dev/null | grep '^net\.' >"$work/net-before" || true

# What every case of this test can use, inside its root, besides ns_helpers.
# shellcheck disable=SC2016 # expanded inside the case's root
printf '%s\n' 'J=$S/journal
F=/etc/sysctl.d/99-wp-panel.conf
# keys: the key steps of fin_timeout and somaxconn, whose originals are the
# namespace'"'"'s values, now changed to those the package gives them.
keys() {
	printf "key\tnet.ipv4.tcp_fin_timeout\t%s\t15\n" "$(get net.ipv4.tcp_fin_timeout)"
	printf "key\tnet.core.somaxconn\t%s\t65535\n" "$(get net.core.somaxconn)"
	put net.ipv4.tcp_fin_timeout 15
	put net.core.somaxconn 65535
}
# taken: the installer'"'"'s file taken over, its copy in taken-over/ with
# mode 0640 and owner 1234:2345; prints its file step and its set step.
installer() { printf "# installer\nnet.ipv4.tcp_keepalive_time = 600\n"; }
taken() {
	mkdir -p $S/taken-over
	installer >$S/taken-over/99-wp-panel.conf
	chown 1234:2345 $S/taken-over/99-wp-panel.conf
	chmod 640 $S/taken-over/99-wp-panel.conf
	printf "file\t%s\t0640\t1234\t2345\ttaken-over/99-wp-panel.conf\n" "$F"
	printf "set\tnet.ipv4.tcp_keepalive_time\t600\n"
}
# pad N: comment lines (none longer than the helper reads, 3335 bytes) and
# the trailer, N bytes in all, after the journal.
comment() { printf "#"; head -c $(($1 - 2)) /dev/zero | tr "\0" x; echo; }
pad() {
	n=$(($1 - 6))
	while [ $n -gt 3000 ]; do l=$((n > 4000 ? 2000 : n / 2)) && comment $l && n=$((n - l)); done
	comment $n && echo "# end"
} >>$J
# sound: a sound journal of both keys and the file taken over.
sound() { { keys; taken; } | journal >$J; }
# values: the keys the cases change, as the kernel has them now.
values() {
	for k in net.ipv4.tcp_fin_timeout net.core.somaxconn net.ipv4.tcp_keepalive_time; do
		echo "$k $(get "$k")"
	done
}
# files: what stands under the trees the scripts write, a random name made
# XXXXXX; regular files with their bytes summed. The seal the helper made
# before the case is not listed: it stays with the state directory.
files() {
	find /etc/sysctl.d /var/lib/wp-panel-nettune /var/lib/prometheus /srv -mindepth 1 \
		! -path $S/sealed -printf "%p %y %m %U:%G\n" 2>/dev/null | sort |
		sed "s/\.wp-panel-nettune\.[A-Za-z0-9]\{6\} /.wp-panel-nettune.XXXXXX /"
	find /etc/sysctl.d /srv -type f -exec md5sum {} + 2>/dev/null | sort -k2 |
		sed "s/\.wp-panel-nettune\.[A-Za-z0-9]\{6\}$/.wp-panel-nettune.XXXXXX/"
}' >"$work/prelude"

# case_ NAME WANT [SCRIPT ARG]: runs the case whose setup and report
# functions are on standard input around SCRIPT ARG (default: postrm
# purge); what it reports must be WANT.
case_() {
	_case=$work/case-$(echo "$1" | tr -c 'a-z0-9\n' -)
	{
		cat "$work/prelude"
		cat
	} >"$_case.sh"
	_start=$(date +%s)
	ns_seal='' && [ "${3:-$postrm}" != "$postrm" ] || ns_seal=$helper
	ns_run "${3:-$postrm}" "${4:-purge}" "$_case.sh" "$_case.got"
	note "$(sed -n 1p "$_case.got") after $(($(date +%s) - _start)) s: $1"
	check_eq "$1" "$2
exit of the namespaces: 0" "$(cat "$_case.got")"
}

sum() { printf '%s\n' "$2" | md5sum | sed "s|-\$|$1|"; }
inst=$(printf '# installer\nnet.ipv4.tcp_keepalive_time = 600\n' | md5sum | cut -d' ' -f1)
say="said: wp-panel-nettune:"
tab=$(printf '\t')
S=/var/lib/wp-panel-nettune
J=$S/journal
F=/etc/sysctl.d/99-wp-panel.conf
# The values of a new network namespace, and those the package gave.
sound_values="net.ipv4.tcp_fin_timeout 60
net.core.somaxconn 4096
net.ipv4.tcp_keepalive_time 7200"
applied_values="net.ipv4.tcp_fin_timeout 15
net.core.somaxconn 65535
net.ipv4.tcp_keepalive_time 7200"
# The seal refused the journal, and purge takes nothing from it.
refused="$say $J is not taken: the helper refused it at the package's remove; nothing is put back, /var/lib/wp-panel-nettune is left in place"
corrupt() { echo "sealed: wp-panel-nettune: journal: $J${1:+:$1}: ${2:-corrupt}, not using it; move it aside to start anew"; }
# Nothing put back: the journal and the file taken over kept.
kept="$J f 644 0:0
/var/lib/wp-panel-nettune/taken-over d 755 0:0
/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf f 640 1234:2345"
# All put back: the keys, the file with its mode and owner, its set step.
all_back="$say put back $F, byte for byte
$say net.ipv4.tcp_keepalive_time: set again from $F
$say put back the original value of 2 kernel setting(s)
net.ipv4.tcp_fin_timeout 60
net.core.somaxconn 4096
net.ipv4.tcp_keepalive_time 600
$F f 640 1234:2345"

# --- A sound journal ------------------------------------------------------------

case_ "a sound journal: the keys and the file put back, mode and owner too, then its set step" \
	"exit 0
$all_back
$inst  $F" <<'CASE'
setup() { sound; }
report() { values; files; }
CASE

case_ "a symlink at the old fixed temporary name: the file put back, the symlink's target untouched" \
	"exit 0
$all_back
$F.wp-panel-nettune-tmp l 777 0:0
/srv/victim f 644 0:0
$inst  $F
$(sum /srv/victim victim)" <<'CASE'
setup() {
	sound
	mkdir -p /srv && echo victim >/srv/victim && chmod 644 /srv/victim
	ln -s /srv/victim $F.wp-panel-nettune-tmp
}
report() { values; files; }
CASE

case_ "another file at the path: both kept, the one taken over beside it, no temporary left, no set step" \
	"exit 0
$say $F was taken over and another file stands there now: both kept, the one taken over is $F.wp-panel-nettune
$say put back the original value of 2 kernel setting(s)
$sound_values
$F f 644 0:0
$F.wp-panel-nettune f 640 1234:2345
$(sum $F other)
$inst  $F.wp-panel-nettune" <<'CASE'
setup() { sound; echo other >$F && chmod 644 $F; }
report() { values; files; }
CASE

case_ "another file at the path, a symlink at the name beside it: both kept, the symlink's target untouched" \
	"exit 0
$say $F was taken over and another file stands there now: both kept, the one taken over is $F.wp-panel-nettune.XXXXXX
$say put back the original value of 2 kernel setting(s)
$sound_values
$F f 644 0:0
$F.wp-panel-nettune l 777 0:0
$F.wp-panel-nettune.XXXXXX f 640 1234:2345
/srv/victim f 644 0:0
$(sum $F other)
$inst  $F.wp-panel-nettune.XXXXXX
$(sum /srv/victim victim)" <<'CASE'
setup() {
	sound
	echo other >$F && chmod 644 $F
	mkdir -p /srv && echo victim >/srv/victim && chmod 644 /srv/victim
	ln -s /srv/victim $F.wp-panel-nettune
}
report() { values; files; }
CASE

case_ "the file is back already: nothing beside it, its set step written" \
	"exit 0
$say $F is back already
$say net.ipv4.tcp_keepalive_time: set again from $F
$say put back the original value of 2 kernel setting(s)
net.ipv4.tcp_fin_timeout 60
net.core.somaxconn 4096
net.ipv4.tcp_keepalive_time 600
$F f 600 0:0
$inst  $F" <<'CASE'
setup() { sound; installer >$F && chmod 600 $F; }
report() { values; files; }
CASE

# A takeover killed between moving the file off its path and removing it
# leaves it hidden beside the path; the copy stands for it and it goes.
case_ "an interrupted takeover's hidden file: removed, the file put back" \
	"exit 0
$all_back
$inst  $F" <<'CASE'
setup() { sound; installer >/etc/sysctl.d/.99-wp-panel.conf.taking-over; }
report() { values; files; }
CASE

case_ "a hidden file of that name that is not the copy: kept, the file put back" \
	"exit 0
$all_back
$inst  $F
/etc/sysctl.d/.99-wp-panel.conf.taking-over f 644 0:0
$(sum /etc/sysctl.d/.99-wp-panel.conf.taking-over other)" <<'CASE'
setup() { sound; echo other >/etc/sysctl.d/.99-wp-panel.conf.taking-over; }
report() { values; files | grep -v taking-over; files | sed -n "/taking-over/p"; }
CASE

# --- The set step follows its file ------------------------------------------------

case_ "the file cannot be put back (read-only /etc/sysctl.d): its set step not written, its copy kept" \
	"exit 0
$say could not put back $F; it is left in /var/lib/wp-panel-nettune
$say put back the original value of 2 kernel setting(s)
$sound_values
/var/lib/wp-panel-nettune/journal f 644 0:0
/var/lib/wp-panel-nettune/lock f 644 0:0
/var/lib/wp-panel-nettune/taken-over d 755 0:0
/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf f 640 1234:2345" <<'CASE'
setup() { sound; : >$S/firstboot; mount -o remount,ro /etc/sysctl.d; }
report() { values; files; }
CASE

case_ "the saved copy is missing: its set step not written, the state directory kept" \
	"exit 0
$say /var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf is missing or not a file: $F cannot be put back; /var/lib/wp-panel-nettune is left in place
$say put back the original value of 2 kernel setting(s)
$sound_values
/var/lib/wp-panel-nettune/journal f 644 0:0
/var/lib/wp-panel-nettune/lock f 644 0:0
/var/lib/wp-panel-nettune/taken-over d 755 0:0" <<'CASE'
setup() { sound; rm $S/taken-over/99-wp-panel.conf; }
report() { values; files; }
CASE

# The set steps of a file follow it up to the next file step, even past a
# key step.
case_ "set steps: written after their file only, not after the next file that is not back" \
	"exit 0
$say put back $F, byte for byte
$say net.ipv4.tcp_keepalive_time: set again from $F
$say /var/lib/wp-panel-nettune/taken-over/98-other.conf is missing or not a file: /etc/sysctl.d/98-other.conf cannot be put back; /var/lib/wp-panel-nettune is left in place
$say put back the original value of 2 kernel setting(s)
net.ipv4.tcp_fin_timeout 60
net.core.somaxconn 4096
net.ipv4.tcp_keepalive_time 600
net.ipv4.tcp_keepalive_probes 9
net.ipv4.tcp_keepalive_intvl 75" <<'CASE'
setup() {
	keys >/tmp/keys
	taken >/tmp/taken
	{
		sed 1q /tmp/taken
		cat /tmp/keys
		sed 1d /tmp/taken
		printf "file\t/etc/sysctl.d/98-other.conf\t0644\t0\t0\ttaken-over/98-other.conf\n"
		printf "set\tnet.ipv4.tcp_keepalive_probes\t3\n"
	} | journal >$J
}
report() {
	values
	echo "net.ipv4.tcp_keepalive_probes $(get net.ipv4.tcp_keepalive_probes)"
	echo "net.ipv4.tcp_keepalive_intvl $(get net.ipv4.tcp_keepalive_intvl)"
}
CASE

# --- The seal ---------------------------------------------------------------------

# forge KERNEL: a seal of the journal as it is, for this root, written by
# hand, with KERNEL as its kernel line ("ok", or "KIND: REASON").
# shellcheck disable=SC2016 # expanded inside the case's root
forge='forge() {
	: >/tmp/unsealed
	printf "# wp-panel-nettune seal 1\nroot %s:%s\nkernel %s\njournal %s\n" \
		"$(stat -f -c %i /)" "$(stat -c %i /)" "$1" "$(cksum <$J)" >$S/sealed
}'

case_ "no seal: the journal not taken, nothing put back, the directory kept" \
	"exit 0
$say $J is not taken: the package's remove left no seal of it ($S/sealed); nothing is put back, /var/lib/wp-panel-nettune is left in place
$applied_values
$kept" <<'CASE'
setup() { sound; : >/tmp/unsealed; }
report() { values; files | grep -v "  "; }
CASE

case_ "the journal changed after the seal: not taken, nothing put back, the directory kept" \
	"exit 0
$say $J is not taken: it changed since the package's remove sealed it; nothing is put back, /var/lib/wp-panel-nettune is left in place
$applied_values
$kept" <<'CASE'
setup() { sound; /helper journal --seal; : >/tmp/unsealed; echo "# a comment" >>$J; }
report() { values; files | grep -v "  "; }
CASE

case_ "a seal made where the kernel is left alone: the file put back, no key written" \
	"exit 0
$say running in a container (lxc): the running kernel is left alone
$say put back $F, byte for byte
$applied_values
$F f 640 1234:2345" <<CASE
$forge
setup() { sound; forge "container: running in a container (lxc)"; }
report() { values; files | grep -v "  \|^/var"; }
CASE

case_ "a seal made for another root: the file put back, no key written" \
	"exit 0
$say sealed for another file system or directory: the running kernel is left alone
$say put back $F, byte for byte
$applied_values
$F f 640 1234:2345" <<CASE
$forge
setup() { sound; forge ok; sed -i "s/^root .*/root 1:2/" \$S/sealed; }
report() { values; files | grep -v "  \|^/var"; }
CASE

# A seal forged over lines the helper never writes: purge still writes no
# key outside net. and no file but /etc/sysctl.d/NAME from taken-over/NAME.
case_ "a seal forged over hostile lines: no key outside net., no file outside /etc/sysctl.d" \
	"exit 0
$say put back the original value of 0 kernel setting(s)
kernel.hostname not written
/etc/passwd untouched
/srv/secret untouched" <<CASE
$forge
setup() {
	mkdir -p /srv \$S/taken-over && echo planted >\$S/taken-over/x.conf && echo secret >/srv/secret
	md5sum /etc/passwd /srv/secret >/tmp/sums
	{
		printf "key\tkernel.hostname\t%s\tplanted\n" "\$(get kernel.hostname)"
		printf "file\t/etc/passwd\t0644\t0\t0\ttaken-over/x.conf\n"
		printf "file\t/etc/sysctl.d/../passwd\t0644\t0\t0\ttaken-over/x.conf\n"
		printf "file\t/etc/sysctl.d/sub/x.conf\t0644\t0\t0\ttaken-over/x.conf\n"
		printf "file\t/etc/sysctl.d/.x.conf\t0644\t0\t0\ttaken-over/x.conf\n"
		printf "file\t/etc/sysctl.d/x.conf\t0644\t0\t0\ttaken-over/../../../../srv/secret\n"
		printf "file\t/etc/sysctl.d/y.conf\t0644\t0\t0\t/srv/secret\n"
		printf "set\tkernel.hostname\tplanted\n"
	} | journal >\$J
	put kernel.hostname planted
	forge ok
}
report() {
	[ "\$(get kernel.hostname)" = planted ] && echo "kernel.hostname not written"
	md5sum --quiet -c /tmp/sums >/dev/null && echo "/etc/passwd untouched" && echo "/srv/secret untouched"
	ls /etc/sysctl.d
}
CASE

# --- FIFOs, directories, symlinks -----------------------------------------------

case_ "the lock is a FIFO: no hang, the journal sealed and replayed without the lock" \
	"sealed: wp-panel-nettune: journal: cannot lock $S/lock: not a regular file
exit 0
$all_back" <<'CASE'
setup() { sound; mkfifo $S/lock; }
report() { values; files | grep -v "  "; }
CASE

case_ "the lock is a directory: the journal sealed and replayed without the lock" \
	"sealed: wp-panel-nettune: journal: cannot lock $S/lock: Is a directory
exit 0
$all_back" <<'CASE'
setup() { sound; mkdir $S/lock; }
report() { values; files | grep -v "  "; }
CASE

case_ "the lock is a dangling symlink: its target is not created" \
	"sealed: wp-panel-nettune: journal: cannot lock $S/lock: Too many levels of symbolic links
exit 0
$all_back" <<'CASE'
setup() { sound; mkdir -p /srv; ln -s /srv/planted $S/lock; }
report() { values; files | grep -v "  "; }
CASE

case_ "the journal is a FIFO: no hang, refused in one line, nothing written, the directory kept" \
	"sealed: wp-panel-nettune: journal: cannot read $J: not a regular file
exit 0
$say $J is not a journal this version can read: nothing is put back, /var/lib/wp-panel-nettune is left in place
$applied_values
$J p 644 0:0
/var/lib/wp-panel-nettune/taken-over d 755 0:0
/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf f 640 1234:2345" <<'CASE'
setup() { sound; rm $J; mkfifo -m 644 $J; : >$S/firstboot; : >$S/fragment.base; }
report() { values; files; }
CASE

case_ "the journal is a directory: refused in one line, the directory kept" \
	"sealed: wp-panel-nettune: journal: cannot read $J: not a regular file
exit 0
$say $J is not a journal this version can read: nothing is put back, /var/lib/wp-panel-nettune is left in place
$applied_values
$J d 755 0:0
$J/journal f 644 0:0" <<'CASE'
setup() { sound; rm -r $S/taken-over; mkdir $S/j; mv $J $S/j/; mv $S/j $J; }
report() { values; files; }
CASE

case_ "the journal is a symlink to a sound journal: not followed, refused in one line" \
	"sealed: wp-panel-nettune: journal: cannot read $J: Too many levels of symbolic links
exit 0
$say $J is not a journal this version can read: nothing is put back, /var/lib/wp-panel-nettune is left in place
$applied_values
/srv/journal f 644 0:0
$J l 777 0:0" <<'CASE'
setup() { sound; rm -r $S/taken-over; mkdir -p /srv; mv $J /srv/journal; ln -s /srv/journal $J; }
report() { values; files | grep -v "  "; }
CASE

case_ "the saved copy is a FIFO: no hang, reported, kept; the keys put back" \
	"exit 0
$say /var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf is missing or not a file: $F cannot be put back; /var/lib/wp-panel-nettune is left in place
$say put back the original value of 2 kernel setting(s)
$sound_values
$J f 644 0:0
/var/lib/wp-panel-nettune/lock f 644 0:0
/var/lib/wp-panel-nettune/taken-over d 755 0:0
/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf p 640 0:0" <<'CASE'
setup() { sound; rm $S/taken-over/99-wp-panel.conf; mkfifo -m 640 $S/taken-over/99-wp-panel.conf; }
report() { values; files; }
CASE

case_ "the saved copy is a FIFO, an interrupted takeover's hidden file beside the path: no hang, both kept" \
	"exit 0
$say /var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf is missing or not a file: $F cannot be put back; /var/lib/wp-panel-nettune is left in place
$say put back the original value of 2 kernel setting(s)
$sound_values
/etc/sysctl.d/.99-wp-panel.conf.taking-over f 644 0:0
$J f 644 0:0
/var/lib/wp-panel-nettune/lock f 644 0:0
/var/lib/wp-panel-nettune/taken-over d 755 0:0
/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf p 640 0:0
$inst  /etc/sysctl.d/.99-wp-panel.conf.taking-over" <<'CASE'
setup() {
	sound
	rm $S/taken-over/99-wp-panel.conf
	mkfifo -m 640 $S/taken-over/99-wp-panel.conf
	installer >/etc/sysctl.d/.99-wp-panel.conf.taking-over
}
report() { values; files; }
CASE

case_ "the saved copy is a symlink: not followed, nothing put at the path" \
	"exit 0
$say /var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf is missing or not a file: $F cannot be put back; /var/lib/wp-panel-nettune is left in place
$say put back the original value of 2 kernel setting(s)
$sound_values
/srv/secret f 600 0:0
$J f 644 0:0
/var/lib/wp-panel-nettune/lock f 644 0:0
/var/lib/wp-panel-nettune/taken-over d 755 0:0
/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf l 777 0:0
$(sum /srv/secret secret)" <<'CASE'
setup() {
	sound
	mkdir -p /srv && (umask 077 && echo secret >/srv/secret)
	ln -sf /srv/secret $S/taken-over/99-wp-panel.conf
}
report() { values; files; }
CASE

case_ "the saved copy is a directory: reported, kept" \
	"exit 0
$say /var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf is missing or not a file: $F cannot be put back; /var/lib/wp-panel-nettune is left in place
$say put back the original value of 2 kernel setting(s)
$sound_values
$J f 644 0:0
/var/lib/wp-panel-nettune/lock f 644 0:0
/var/lib/wp-panel-nettune/taken-over d 755 0:0
/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf d 755 0:0" <<'CASE'
setup() { sound; rm $S/taken-over/99-wp-panel.conf; mkdir $S/taken-over/99-wp-panel.conf; }
report() { values; files; }
CASE

case_ "the saved copy is larger than a file taken over can be: reported, kept" \
	"exit 0
$say /var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf is missing or not a file: $F cannot be put back; /var/lib/wp-panel-nettune is left in place
$say put back the original value of 2 kernel setting(s)
$sound_values" <<'CASE'
setup() { sound; head -c 65537 /dev/zero >$S/taken-over/99-wp-panel.conf; }
report() { values; }
CASE

case_ "a FIFO at the path: no hang, both kept" \
	"exit 0
$say $F was taken over and another file stands there now: both kept, the one taken over is $F.wp-panel-nettune
$say put back the original value of 2 kernel setting(s)
$sound_values
$F p 644 0:0
$F.wp-panel-nettune f 640 1234:2345
$inst  $F.wp-panel-nettune" <<'CASE'
setup() { sound; mkfifo -m 644 $F; }
report() { values; files; }
CASE

case_ "a directory at the path: both kept, nothing put into it" \
	"exit 0
$say $F was taken over and another file stands there now: both kept, the one taken over is $F.wp-panel-nettune
$say put back the original value of 2 kernel setting(s)
$sound_values
$F d 755 0:0
$F.wp-panel-nettune f 640 1234:2345
$inst  $F.wp-panel-nettune" <<'CASE'
setup() { sound; mkdir $F; }
report() { values; files; }
CASE

case_ "a symlink at the path: not followed, its target untouched, both kept" \
	"exit 0
$say $F was taken over and another file stands there now: both kept, the one taken over is $F.wp-panel-nettune
$say put back the original value of 2 kernel setting(s)
$sound_values
$F l 777 0:0
$F.wp-panel-nettune f 640 1234:2345
/srv/victim f 644 0:0
$inst  $F.wp-panel-nettune
$(sum /srv/victim victim)" <<'CASE'
setup() {
	sound
	mkdir -p /srv && echo victim >/srv/victim && chmod 644 /srv/victim
	ln -s /srv/victim $F
}
report() { values; files; }
CASE

case_ "taken-over is a symlink to a directory: nothing copied from it, nothing put at the path" \
	"exit 0
$say /var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf is missing or not a file: $F cannot be put back; /var/lib/wp-panel-nettune is left in place
$say put back the original value of 2 kernel setting(s)
$sound_values
/srv/secret d 755 0:0
/srv/secret/99-wp-panel.conf f 600 0:0
$J f 644 0:0
/var/lib/wp-panel-nettune/lock f 644 0:0
/var/lib/wp-panel-nettune/taken-over l 777 0:0" <<'CASE'
setup() {
	sound
	mkdir -p /srv && mv $S/taken-over /srv/secret && chown 0:0 /srv/secret/* && chmod 600 /srv/secret/*
	ln -s /srv/secret $S/taken-over
}
report() { values; files | grep -v "  "; }
CASE

case_ "/etc/sysctl.d is a symlink to a directory: nothing put through it, the state directory kept" \
	"exit 0
$say could not put back $F; it is left in /var/lib/wp-panel-nettune
$say put back the original value of 2 kernel setting(s)
$sound_values
/srv/sysctl d 755 0:0
$J f 644 0:0
/var/lib/wp-panel-nettune/lock f 644 0:0
/var/lib/wp-panel-nettune/taken-over d 755 0:0
/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf f 640 1234:2345" <<'CASE'
setup() {
	sound
	umount /etc/sysctl.d && rm -r /etc/sysctl.d && mkdir -p /srv/sysctl && ln -s /srv/sysctl /etc/sysctl.d
}
report() { values; files | grep -v "  "; }
CASE

# DPKG_ROOT: an image whose /etc/sysctl.d is an absolute symlink, which
# names the image's own in the image, but this system's here.
# The prerm seals nothing under DPKG_ROOT (the helper is this system's, if
# any): purge takes nothing from the image's journal.
case_ "DPKG_ROOT, the image's /etc/sysctl.d a symlink to /etc/sysctl.d: this system's files untouched" \
	"exit 0
$say DPKG_ROOT is /srv/img: not the running system: the running kernel is left alone
$say /srv/img$J is not taken: the package's remove left no seal of it (/srv/img$S/sealed); nothing is put back, /srv/img/var/lib/wp-panel-nettune is left in place
/etc/sysctl.d/60-wp-panel-nettune.conf f 644 0:0
/etc/sysctl.d/60-wp-panel-nettune.conf.dpkg-old f 644 0:0
/srv/img/var/lib/wp-panel-nettune/journal f 644 0:0
/srv/img/var/lib/wp-panel-nettune/taken-over d 755 0:0
/srv/img/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf f 640 1234:2345" <<'CASE'
setup() {
	mkdir -p /srv/img/etc /srv/img/var/lib /srv/img/var/cache
	cp /etc/debconf.conf /srv/img/etc && cp -a /var/cache/debconf /srv/img/var/cache
	sound && mv $S /srv/img/var/lib && ln -s /etc/sysctl.d /srv/img/etc/sysctl.d
	echo ours | tee /etc/sysctl.d/60-wp-panel-nettune.conf >/etc/sysctl.d/60-wp-panel-nettune.conf.dpkg-old
	export DPKG_ROOT=/srv/img
}
report() { find /etc/sysctl.d/ /srv/img/var/lib/wp-panel-nettune -mindepth 1 -name "[0-9j-t]*" -printf "%p %y %m %U:%G
" | sort; }
CASE

case_ "the state directory is a symlink: nothing read or removed through it" \
	"sealed: wp-panel-nettune: journal: cannot lock $S/lock: $S is a symlink, refused
sealed: wp-panel-nettune: journal: cannot read $J: Too many levels of symbolic links
sealed: wp-panel-nettune: journal: cannot write $S/sealed: Too many levels of symbolic links
exit 0
$say $J is not a journal this version can read: nothing is put back, /var/lib/wp-panel-nettune is left in place
$applied_values
/srv/state d 755 0:0
/srv/state/firstboot f 644 0:0
/srv/state/journal f 644 0:0
/srv/state/taken-over d 755 0:0
/srv/state/taken-over/99-wp-panel.conf f 640 1234:2345
/var/lib/wp-panel-nettune l 777 0:0" <<'CASE'
setup() { sound; : >$S/firstboot; mkdir -p /srv && mv $S /srv/state && ln -s /srv/state $S; }
report() { values; { find /var/lib -maxdepth 1 -name wp-panel-nettune -printf "%p %y %m %U:%G\n"; files | grep -v "  "; } | sort; }
CASE

# added: the drop-in of a link of systemd-networkd as an earlier build's
# apply wrote it, its copy and its journal step; NAME.network.d a symlink to
# another directory that holds the same bytes. The seal takes such files
# back, and this one it leaves, and says so.
case_ "a symlinked NAME.network.d: nothing removed through it" \
	"sealed: Taking back what an earlier version wrote for the routes' initial windows:
sealed: /etc/systemd/network/50-nt.network.d/50-wp-panel-nettune.conf is reached through a symlink now: left in place.
exit 0
$say no record of changed kernel values, none to put back
/etc/systemd/network/50-nt.network.d l 777 0:0
/srv/other d 755 0:0
/srv/other/50-wp-panel-nettune.conf f 644 0:0" <<'CASE'
setup() {
	mkdir -p /srv/other $S/added /etc/systemd/network
	echo "[Route]" | tee /srv/other/50-wp-panel-nettune.conf >$S/added/50-nt.conf
	ln -s /srv/other /etc/systemd/network/50-nt.network.d
	printf "added\t/etc/systemd/network/50-nt.network.d/50-wp-panel-nettune.conf\tadded/50-nt.conf\tnew-dir\n" | journal >$J
}
report() { { find /etc/systemd/network -name 50-nt.network.d -printf "%p %y %m %U:%G\n"; files | grep -v "  "; } | sort; }
CASE

# --- The lock -------------------------------------------------------------------

# A run still going holds the lock, and adds a step to the journal before
# it lets go: purge must wait for it, and read the journal it leaves.
case_ "the lock held by a run still going: purge waits, then replays the journal that run leaves" \
	"exit 0
$say put back the original value of 2 kernel setting(s)
$sound_values
waited" <<'CASE'
setup() {
	keys | journal >$J.whole
	sed /somaxconn/d $J.whole >$J
	flock $S/lock sh -c ": >/tmp/held; sleep 3; mv $J.whole $J" &
	while [ ! -e /tmp/held ]; do sleep 0.1; done
	date +%s >/tmp/start
}
report() { values; [ $(($(date +%s) - $(cat /tmp/start))) -ge 2 ] && echo waited; }
CASE

# --- Sizes ------------------------------------------------------------------------

case_ "a journal line of 1 MB: the journal refused whole" \
	"sealed: wp-panel-nettune: journal: cannot read $J: File too large
exit 0
$say $J is not a journal this version can read: nothing is put back, /var/lib/wp-panel-nettune is left in place
$applied_values" <<'CASE'
setup() {
	keys | journal - >$J
	{ printf "key\tnet.ipv4.tcp_keepalive_time\t"; head -c 1000000 /dev/zero | tr "\0" 7; printf "\t1\n# end\n"; } >>$J
}
report() { values; }
CASE

case_ "a journal of 100,000 lines (3.5 MB): refused whole" \
	"sealed: wp-panel-nettune: journal: cannot read $J: File too large
exit 0
$say $J is not a journal this version can read: nothing is put back, /var/lib/wp-panel-nettune is left in place
$applied_values" <<'CASE'
setup() {
	keys >/dev/null
	yes "key${tab}net.ipv4.tcp_fin_timeout${tab}60${tab}15" | head -n 100000 | journal >$J
}
report() { values; }
CASE

# The bound itself: 427008 bytes are read, one more is not.
case_ "a journal of 427008 bytes: replayed" \
	"exit 0
$say put back the original value of 2 kernel setting(s)
$sound_values
427008" <<'CASE'
setup() {
	keys | journal - >$J
	pad $((427008 - $(stat -c %s $J)))
	stat -c %s $J >/tmp/size
}
report() { values; cat /tmp/size; }
CASE

case_ "a journal of 427009 bytes: refused whole" \
	"sealed: wp-panel-nettune: journal: cannot read $J: File too large
exit 0
$say $J is not a journal this version can read: nothing is put back, /var/lib/wp-panel-nettune is left in place
$applied_values" <<'CASE'
setup() {
	keys | journal - >$J
	pad $((427009 - $(stat -c %s $J)))
}
report() { values; }
CASE

case_ "a line of 400 kB within the bound: read in bounded time, refused at the seal, nothing put back" \
	"$(corrupt 9)
exit 0
$refused
$applied_values" <<'CASE'
setup() {
	{ keys; printf "key\tnet.ipv4."; head -c 400000 /dev/zero | tr "\0" X; printf "\t1\t2\n"; } | journal >$J
}
report() { values; }
CASE

case_ "a journal of 30,000 short malformed lines: refused at the seal in one line, the directory kept" \
	"$(corrupt 9)
exit 0
$refused
$applied_values
$J f 644 0:0" <<'CASE'
setup() { { keys; yes "n${tab}1${tab}2" | head -n 30000; } | journal >$J; }
report() { values; files; }
CASE

# --- Headers, truncation ----------------------------------------------------------

for header in "# wp-panel-nettune journal 2" "# wp-panel-nettune state 1" "" "# end"; do
	case_ "a journal whose first line is \"$header\": refused in one line, nothing written, the directory kept" \
		"$(corrupt 1)
exit 0
$refused
$applied_values
$J f 644 0:0
/var/lib/wp-panel-nettune/taken-over d 755 0:0
/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf f 640 1234:2345" <<CASE
setup() { sound; sed -i "1s/.*/$header/" \$J; }
report() { values; files | grep -v "  "; }
CASE
done

case_ "an empty journal: refused in one line, the directory kept" \
	"$(corrupt "" "truncated or not a record of this package")
exit 0
$refused
$J f 644 0:0" <<'CASE'
setup() { : >$J; }
report() { files; }
CASE

# Written by the helper in one go (a new file renamed over the old), a
# journal is truncated only by damage: the seal refuses it, and the state
# directory stays, with what its steps would have put back.
case_ "a truncated journal: refused at the seal, nothing put back, the state directory kept" \
	"$(corrupt 10)
exit 0
$refused
net.ipv4.tcp_fin_timeout 15
net.core.somaxconn 65535
net.ipv4.tcp_keepalive_time 7200
$kept" <<'CASE'
setup() {
	keys >/tmp/keys
	{ sed 2d /tmp/keys; taken; } | journal - >$J
	printf "%s\t655" "$(sed -n 2p /tmp/keys)" >>$J
}
report() { values; files; }
CASE

case_ "a journal cut after its key lines: refused at the seal; the file taken over kept" \
	"$(corrupt "" "truncated or not a record of this package")
exit 0
$refused
$applied_values
$kept" <<'CASE'
setup() { taken >/dev/null; keys | journal - >$J; }
report() { values; files; }
CASE

case_ "a journal whose last file line lacks its newline: refused at the seal, kept" \
	"$(corrupt 9)
exit 0
$refused
$applied_values
$kept" <<'CASE'
setup() { keys | journal - >$J; printf "%s" "$(taken | sed 1q)" >>$J; }
report() { values; files; }
CASE

case_ "steps after the end of the journal: refused at the seal, the state directory kept" \
	"$(corrupt 10)
exit 0
$refused
$applied_values
$kept" <<'CASE'
setup() { { keys; echo "# end"; taken; } | journal - >$J; }
report() { values; files; }
CASE

case_ "no journal at all: said so, the state directory removed" \
	"exit 0
$say no record of changed kernel values, none to put back" <<'CASE'
setup() { : >$S/firstboot; }
report() { files; }
CASE

# --- Malformed lines ----------------------------------------------------------------

# Lines the helper never writes: the seal refuses the journal at the first;
# the key steps would put fin_timeout back (it holds 15), the file steps
# would write a file, the set steps a key, if any were taken.
malformed_keys="key${tab}..${tab}1${tab}1
key${tab}net..ipv4.tcp_fin_timeout${tab}60${tab}15
key${tab}.net.ipv4.tcp_fin_timeout${tab}60${tab}15
key${tab}net.ipv4.tcp_fin_timeout.${tab}60${tab}15
key${tab}net/ipv4/tcp_fin_timeout${tab}60${tab}15
key${tab}NET.ipv4.tcp_fin_timeout${tab}60${tab}15
key${tab}kernel.hostname${tab}planted${tab}@HOST@
key${tab}net.ipv4.tcp_fin_timeout${tab}60
key${tab}net.ipv4.tcp_fin_timeout${tab}${tab}60${tab}15
key${tab}net.ipv4.tcp_fin_timeout${tab}60${tab}15${tab}
${tab}key${tab}net.ipv4.tcp_fin_timeout${tab}60${tab}15
key${tab}net.ipv4.tcp_fin_timeout${tab}60${tab}15${tab}20${tab}25
KEY${tab}net.ipv4.tcp_fin_timeout${tab}60${tab}15
net.ipv4.tcp_fin_timeout${tab}60${tab}15
set${tab}net.ipv4.tcp_keepalive_time
set${tab}net.ipv4.tcp_keepalive_time${tab}600${tab}700
set${tab}net.ipv4.tcp_keepalive_time${tab}${tab}600
set${tab}kernel.hostname${tab}planted
"
case_ "malformed key and set lines: refused at the seal, nothing written" \
	"$(corrupt 9)
exit 0
$refused
net.ipv4.tcp_fin_timeout 15
net.core.somaxconn 4096
net.ipv4.tcp_keepalive_time 7200
kernel.hostname not written" <<CASE
setup() {
	put net.ipv4.tcp_fin_timeout 15
	{ taken; printf "%s" "$malformed_keys" | sed "s/@HOST@/\$(get kernel.hostname)/"; } | journal >\$J
}
report() { values; [ "\$(get kernel.hostname)" = planted ] || echo "kernel.hostname not written"; }
CASE

g="${tab}0${tab}0${tab}taken-over/99-wp-panel.conf"
malformed_files="file${tab}/etc/passwd${tab}0644$g
file${tab}/etc/sysctl.d/../passwd${tab}0644$g
file${tab}/etc/sysctl.d/sub/x.conf${tab}0644$g
file${tab}/etc/sysctl.d/.hidden.conf${tab}0644$g
file${tab}/etc/sysctl.d/a b.conf${tab}0644$g
file${tab}/etc/sysctl.d/${tab}0644$g
file${tab}etc/sysctl.d/x.conf${tab}0644$g
file${tab}$F${tab}0644${tab}0${tab}0${tab}taken-over/sub/99-wp-panel.conf
file${tab}$F${tab}0644${tab}0${tab}0${tab}taken-over/../../../../srv/secret
file${tab}$F${tab}0644${tab}0${tab}0${tab}taken-over/..
file${tab}$F${tab}0644${tab}0${tab}0${tab}journal
file${tab}$F${tab}0644${tab}0${tab}0${tab}/srv/secret
file${tab}$F${tab}644$g
file${tab}$F${tab}0648$g
file${tab}$F${tab}00644$g
file${tab}$F${tab}rw-r--r--$g
file${tab}$F${tab}0644${tab}root${tab}0${tab}taken-over/99-wp-panel.conf
file${tab}$F${tab}0644${tab}0${tab}-1${tab}taken-over/99-wp-panel.conf
file${tab}$F${tab}0644${tab}0${tab}taken-over/99-wp-panel.conf
file${tab}$F${tab}0644${tab}0${tab}0${tab}${tab}taken-over/99-wp-panel.conf
"
case_ "malformed file lines: refused at the seal, no file written, the saved copy and the directory kept" \
	"$(corrupt 7)
exit 0
$refused
net.ipv4.tcp_fin_timeout 60
net.core.somaxconn 4096
net.ipv4.tcp_keepalive_time 7200
/srv/secret f 600 0:0
$J f 644 0:0
/var/lib/wp-panel-nettune/taken-over d 755 0:0
/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf f 640 1234:2345
$(sum /srv/secret secret)
/etc/passwd untouched" <<CASE
setup() {
	taken >/dev/null
	mkdir -p /srv && (umask 077 && echo secret >/srv/secret)
	md5sum /etc/passwd >/tmp/passwd.md5
	printf "%s" "$malformed_files" | journal >\$J
}
report() {
	values
	files
	ls -d /etc/passwd?* /etc/x.conf* 2>/dev/null | grep -v "^/etc/passwd-\$"
	md5sum --quiet -c /tmp/passwd.md5 && echo "/etc/passwd untouched"
}
CASE

# Steps the helper's reader refuses, though each is well formed: a key
# named twice (chained, the second would write what the first put back), a
# key or a set step it never journals.
case_ "a key named twice: refused at the seal, nothing written" \
	"$(corrupt 8)
exit 0
$refused
net.ipv4.tcp_fin_timeout 15
$J f 644 0:0" <<'CASE'
setup() {
	put net.ipv4.tcp_fin_timeout 15
	printf "key\tnet.ipv4.tcp_fin_timeout\t60\t15\nkey\tnet.ipv4.tcp_fin_timeout\t1\t60\n" | journal >$J
}
report() { echo "net.ipv4.tcp_fin_timeout $(get net.ipv4.tcp_fin_timeout)"; files; }
CASE

case_ "net.* keys the helper never journals, in key and set steps: refused at the seal, not written" \
	"sealed: wp-panel-nettune: journal: $J: net.ipv4.ip_forward is not a key the package sets: corrupt, not using it; move it aside to start anew
exit 0
$refused
net.ipv4.ip_forward 1
net.ipv4.tcp_syn_retries 6" <<'CASE'
setup() {
	put net.ipv4.ip_forward 1
	{ printf "key\tnet.ipv4.ip_forward\t0\t1\n"; taken; printf "set\tnet.ipv4.tcp_syn_retries\t2\n"; } | journal >$J
}
report() { for k in net.ipv4.ip_forward net.ipv4.tcp_syn_retries; do echo "$k $(get $k)"; done; }
CASE

# A file line with a field too many, and a set step after it.
case_ "a file line with a field too many: refused at the seal, nothing written" \
	"$(corrupt 9)
exit 0
$refused
net.ipv4.tcp_keepalive_intvl 75
$J f 644 0:0
/var/lib/wp-panel-nettune/taken-over d 755 0:0
/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf f 640 1234:2345" <<'CASE'
setup() {
	{
		taken
		printf "file\t/etc/sysctl.d/98-x.conf\t0644\t0\t0\ttaken-over/98-x.conf\tx\n"
		printf "set\tnet.ipv4.tcp_keepalive_intvl\t1\n"
	} | journal >$J
}
report() { echo "net.ipv4.tcp_keepalive_intvl $(get net.ipv4.tcp_keepalive_intvl)"; files | grep -v "^/etc/\|  "; }
CASE

case_ "a key the kernel will not take back: said, the state directory kept" \
	"exit 0
$say net.ipv4.tcp_syncookies: could not put back 1000, left at 1
$say put back the original value of 0 kernel setting(s)
$J f 644 0:0
/var/lib/wp-panel-nettune/lock f 644 0:0" <<'CASE'
setup() { put net.ipv4.tcp_syncookies 1; printf "key\tnet.ipv4.tcp_syncookies\t1000\t1\n" | journal >$J; }
report() { files; }
CASE

# --- The records of an earlier version --------------------------------------------

# 0.1.0's record, which no configure converted: the seal does.
case_ "an unconverted state record: converted by the seal, its values put back" \
	"exit 0
$say put back the original value of 2 kernel setting(s)
$sound_values" <<'CASE'
setup() {
	: >$S/firstboot
	keys | sed "s/^key\t//" | journal | sed "1s/.*/# wp-panel-nettune state 1/" >$S/state
}
report() { values; files; }
CASE

case_ "an unconverted takeover record: nothing put back from it, the saved copy kept" \
	"exit 0
$say /var/lib/wp-panel-nettune holds the record of an earlier version, never converted: nothing is put back from it, it is left in place
/var/lib/wp-panel-nettune/taken-over d 755 0:0
/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf f 640 1234:2345
/var/lib/wp-panel-nettune/taken-over/record f 644 0:0" <<'CASE'
setup() {
	taken >/dev/null
	printf "# wp-panel-nettune taken-over 2\n%s\t0640\t2cpu\t1234\t2345\n# end\n" $F >$S/taken-over/record
}
report() { files; }
CASE

case_ "a journal beside a record a conversion stopped before removing: the journal replayed" \
	"exit 0
$all_back
$inst  $F" <<'CASE'
setup() {
	sound
	keys | sed "s/^key\t//" | journal | sed "1s/.*/# wp-panel-nettune state 1/" >$S/state
}
report() { values; files; }
CASE

# --- The node exporter's directory, on prerm remove ------------------------------------

case_ "prerm remove: the metrics and both kinds of temporary file removed, other files kept" \
	"exit 0
/var/lib/prometheus/node-exporter d 755 0:0
/var/lib/prometheus/node-exporter/other.prom f 644 0:0
/var/lib/prometheus/node-exporter/wp-panel-nettune.prom.tmpXYZ123 f 644 0:0" "$prerm" remove <<'CASE'
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

case_ "prerm upgrade: the metrics kept" \
	"exit 0
/var/lib/prometheus/node-exporter d 755 0:0
/var/lib/prometheus/node-exporter/wp-panel-nettune.prom f 644 0:0" "$prerm" upgrade <<'CASE'
setup() { mkdir -p /var/lib/prometheus/node-exporter && echo x >/var/lib/prometheus/node-exporter/wp-panel-nettune.prom; }
report() { files; }
CASE

case_ "prerm remove: the node exporter's directory is a symlink: nothing removed through it" \
	"exit 0
$say /var/lib/prometheus/node-exporter leads to /srv: its files are left alone
/srv/wp-panel-nettune.prom f 644 0:0
/var/lib/prometheus/node-exporter l 777 0:0
$(sum /srv/wp-panel-nettune.prom keep)" "$prerm" remove <<'CASE'
setup() {
	mkdir -p /srv && echo keep >/srv/wp-panel-nettune.prom
	mkdir -p /var/lib/prometheus
	ln -s /srv /var/lib/prometheus/node-exporter
}
report() { files; }
CASE

case_ "prerm remove: /var/lib/prometheus is a symlink: nothing removed through it" \
	"exit 0
$say /var/lib/prometheus/node-exporter leads to /srv/node-exporter: its files are left alone
/srv/node-exporter d 755 0:0
/srv/node-exporter/wp-panel-nettune.prom f 644 0:0
$(sum /srv/node-exporter/wp-panel-nettune.prom keep)" "$prerm" remove <<'CASE'
setup() {
	mkdir -p /srv/node-exporter && echo keep >/srv/node-exporter/wp-panel-nettune.prom
	ln -s /srv /var/lib/prometheus
}
report() { files; }
CASE

sysctl -a 2>/dev/null | grep '^net\.' >"$work/net-after" || true
check "this machine's net.* sysctl values are as they were" \
	diff -u "$work/net-before" "$work/net-after"

summary
