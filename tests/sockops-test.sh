#!/bin/sh
# The sock_ops program (src/bpf/initwnd.bpf.c) and its loader (src/sockops.c,
# driven by tests/sockops-ctl) on this machine's kernel, inside a throwaway
# network namespace: attached to a child cgroup made for the test (never the
# root of the tree), on a BPF file system mounted for the test (never
# /sys/fs/bpf). Servers on port 80 and 8080 run in that cgroup, on 127.0.0.1
# and ::1; ss -ti reads back the congestion window of each connection, and
# the window the client was offered.
#
# usage: tests/sockops-test.sh SOCKOPS_CTL BPF_OBJECT SOCKOPS_CTL_EARLIER
# (the last: the loader built with an earlier version of the program)
set -eu

ctl=$(realpath "$1")
obj=$(realpath "$2")
ctl_earlier=$(realpath "$3")
here=$(cd "$(dirname "$0")" && pwd)

if [ "$(id -u)" != 0 ]; then
	echo "sockops-test: needs root (bpf(), a network namespace, cgroups)" >&2
	exit 1
fi
if [ "${NETTUNE_IN_NETNS:-}" != 1 ]; then
	rc=0
	NETTUNE_IN_NETNS=1 unshare --net "$0" "$@" || rc=$?
	exit "$rc"
fi

. "$here/lib.sh"

# The cgroup v2 tree: /sys/fs/cgroup on a unified machine (Debian 13),
# /sys/fs/cgroup/unified on a hybrid one.
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -z "$cg2" ]; then
	echo "sockops-test: no cgroup2 file system is mounted" >&2
	exit 1
fi

work=$(mktemp -d /tmp/nettune-sockops.XXXXXX)
bpffs=$work/bpffs
pins=$bpffs/wp-panel-nettune
cg=$cg2/nettune-test.$$
cg_other=$cg2/nettune-test-other.$$
cg_excl=$cg2/nettune-test-excl.$$
cg_gone=$cg2/nettune-test-gone.$$
pids=

cleanup() {
	set +e
	for pid in $pids; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	"$ctl" detach "$pins" >/dev/null 2>&1
	for c in "$cg" "$cg_other" "$cg_excl" "$cg_gone"; do
		[ -d "$c" ] && rmdir "$c"
	done
	mountpoint -q "$bpffs" && umount "$bpffs"
	rm -rf "$work"
}
trap cleanup EXIT
mkdir "$bpffs" "$cg" "$cg_other" "$cg_excl"
mount -t bpf bpf "$bpffs"
ls -A "$bpffs" >"$work/bpffs.before"

# A link MTU of Ethernet's, so that 32 segments are fewer bytes than the
# receive buffer offers and the receive window shows.
ip link set lo mtu 1500 up

# in_cgroup CGROUP COMMAND...: COMMAND in the background, in CGROUP (a
# socket takes the cgroup of the process that makes it; a server's
# connections take their listener's).
in_cgroup() {
	_cg=$1
	shift
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$_cg" "$@" &
	pids="$pids $!"
}

# The servers listen and never accept; the connections wait established in
# the accept queue. The clients connect and hold. Each writes "ready" to
# the file it is given first, then waits to be killed.
serve='
import socket, sys, time
held = []
for spec in sys.argv[2:]:
    host, port = spec.rsplit(":", 1)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(family, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, int(port)))
    s.listen(16)
    held.append(s)
open(sys.argv[1], "w").write("ready\n")
time.sleep(600)
'
connect='
import socket, sys, time
held = []
for spec in sys.argv[2:]:
    host, port = spec.rsplit(":", 1)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(family, socket.SOCK_STREAM)
    s.connect((host, int(port)))
    held.append(s)
open(sys.argv[1], "w").write("ready\n")
time.sleep(600)
'
# wait_ready FILE: until a server or client has written it (5 s at most).
wait_ready() {
	_i=0
	while [ ! -s "$1" ] && [ "$_i" -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ -s "$1" ]
}

# cwnd FILTER...: the cwnd of each established connection ss selects.
cwnd() {
	ss -Htin state established "$@" | sed -n 's/.* cwnd:\([0-9]*\).*/\1/p' | tr '\n' ' ' |
		sed 's/ $//'
}
# snd_wnd FILTER...: the window each selected connection was offered.
snd_wnd() {
	ss -Htin state established "$@" | sed -n 's/.* snd_wnd:\([0-9]*\).*/\1/p' | tr '\n' ' ' |
		sed 's/ $//'
}

# Another program on the same cgroup, attached first with
# BPF_F_ALLOW_MULTI: the package's own object, loaded again with empty maps,
# so that it gives nothing.
check "another sock_ops program, loaded" bpftool prog load "$obj" "$bpffs/other" type sockops
check "another sock_ops program, attached with BPF_F_ALLOW_MULTI" \
	bpftool cgroup attach "$cg" sock_ops pinned "$bpffs/other" multi
other_id=$(bpftool prog show pinned "$bpffs/other" | sed -n '1s/^\([0-9]*\):.*/\1/p')

check_rc "attach to the test's cgroup" 0 "$ctl" attach "$cg" "$pins"
check_eq "attach says it attached" "attached" "$out"
check_rc "attach again" 0 "$ctl" attach "$cg" "$pins"
check_eq "attach again says it was attached already" "already attached" "$out"
programs=$(bpftool cgroup show "$cg" | awk 'NR > 1 { print $1, $2, $3, $4 }')
ours=$(bpftool prog show pinned "$pins/prog" | sed -n '1s/^\([0-9]*\):.*/\1/p')
check_eq "the cgroup has the other program and ours, once, both multi" \
	"$other_id cgroup_sock_ops multi nettune_initwnd
$ours cgroup_sock_ops multi nettune_initwnd" "$programs"
check_eq "the pins" "given link ports prog windows" "$(cd "$pins" && echo *)"
check_rc "read back" 0 "$ctl" read "$pins"
check_match "read back: attached, windows 32, ports 80 and 443, none given yet" \
	'^attached yes cgroup [1-9][0-9]* cwnd 32 rwnd 32 ports (80 443|443 80) given 0$' \
	"$(echo "$out" | tr '\n' ' ' | sed 's/ $//')"

in_cgroup "$cg" /usr/bin/python3 -c "$serve" "$work/served" \
	127.0.0.1:80 ::1:80 127.0.0.1:8080 ::1:8080
in_cgroup "$cg_other" /usr/bin/python3 -c "$serve" "$work/served-other" 127.0.0.2:80
check "the servers listen" wait_ready "$work/served"
check "the server in another cgroup listens" wait_ready "$work/served-other"
# The clients run in the same cgroup: the program leaves active
# connections alone wherever they are.
in_cgroup "$cg" /usr/bin/python3 -c "$connect" "$work/connected" \
	127.0.0.1:80 ::1:80 127.0.0.1:8080 ::1:8080 127.0.0.2:80
check "the clients connect" wait_ready "$work/connected"
# The lines of port 80's connections, for the log.
ss -HtinO state established '( sport = :80 or dport = :80 )' |
	awk '{ w = ""; for (i = 5; i <= NF; i++) if ($i ~ /^(cwnd|snd_wnd):/) w = w " " $i
		print $3, $4 w }' |
	while IFS= read -r line; do note "ss -ti: $line"; done

check_eq "IPv4, port 80: the server's connection starts at cwnd 32" 32 \
	"$(cwnd src 127.0.0.1:80)"
check_eq "IPv6, port 80: the server's connection starts at cwnd 32" 32 "$(cwnd src '[::1]:80')"
check_eq "the clients' connections to port 80 keep cwnd 10" "10 10" \
	"$(cwnd dst 127.0.0.1:80; echo " $(cwnd dst '[::1]:80')")"
check_eq "port 8080, IPv4 and IPv6: the server's connections keep cwnd 10" "10 10" \
	"$(cwnd src 127.0.0.1:8080; echo " $(cwnd src '[::1]:8080')")"
check_eq "port 80 in another cgroup: the server's connection keeps cwnd 10" 10 \
	"$(cwnd src 127.0.0.2:80)"
# The SYN-ACK offers min(the buffer's space, 32 segments) on port 80: 32 x
# 1448 over IPv4 and 32 x 1428 over IPv6 (an MSS of 1460 and 1440 less the
# timestamp option); the buffer's space on 8080.
check_eq "port 80: the client is offered 32 segments, IPv4 and IPv6" "46336 45696" \
	"$(snd_wnd dst 127.0.0.1:80; echo " $(snd_wnd dst '[::1]:80')")"
w8080=$(snd_wnd dst 127.0.0.1:8080)
check "port 8080: the client is offered more than 32 segments ($w8080)" \
	test "${w8080:-0}" -gt 46336
check_rc "read back after the connections" 0 "$ctl" read "$pins"
check_match "the counter: two connections given the window" '^given 2$' "$out"

# The program raises only the kernel's default window, 10. The
# administrator's initcwnd on the route to a client stands: a client from
# 127.0.0.3, whose route has initcwnd 20, to a server on 127.0.0.4:80.
check "a route of the administrator's with initcwnd 20" \
	ip route add local 127.0.0.3 dev lo table local initcwnd 20
connect_from='
import socket, sys, time
s = socket.create_connection((sys.argv[2], 80), source_address=(sys.argv[3], 0))
open(sys.argv[1], "w").write("ready\n")
time.sleep(600)
'
in_cgroup "$cg" /usr/bin/python3 -c "$serve" "$work/served-admin" 127.0.0.4:80 127.0.0.5:80 \
	127.0.0.6:80 127.0.0.7:80
check "the servers on 127.0.0.4 to 127.0.0.7 listen" wait_ready "$work/served-admin"
in_cgroup "$cg" /usr/bin/python3 -c "$connect_from" "$work/connected-admin" 127.0.0.4 127.0.0.3
check "the client from 127.0.0.3 connects" wait_ready "$work/connected-admin"
check_eq "port 80, the route's initcwnd 20: the server's connection keeps cwnd 20" 20 \
	"$(cwnd src 127.0.0.4:80)"
# SYN-ACKs lost: tcp_init_transfer() sets the window to one segment (RFC
# 5681, 3.1), and the program leaves it there. The SYN-ACKs of
# 127.0.0.5:80 are dropped (nftables) for 2.5 s, long enough for two of them to go
# (the kernel's rule is more than one retransmitted), then let through.
check "the SYN-ACKs of 127.0.0.5:80 dropped" nft -f - <<'NFT'
table ip nettune_test {
	chain out {
		type filter hook output priority 0;
		ip saddr 127.0.0.5 tcp sport 80 tcp flags & (syn | ack) == syn | ack drop
	}
}
NFT
in_cgroup "$cg" /usr/bin/python3 -c "$connect_from" "$work/connected-lossy" 127.0.0.5 127.0.0.1
sleep 2.5
nft delete table ip nettune_test
check "the client connects once a SYN-ACK goes through" wait_ready "$work/connected-lossy"
ss -HtinO state established src 127.0.0.5:80 | while IFS= read -r line; do note "ss -ti: $line"; done
check_eq "port 80 after lost SYN-ACKs: the server's connection keeps cwnd 1" 1 \
	"$(cwnd src 127.0.0.5:80)"
check_rc "read back after them" 0 "$ctl" read "$pins"
check_match "the counter: still the two connections given the window" '^given 2$' "$out"

# An upgrade: the program of an earlier build attached (the one before it
# left a route's initcwnd alone) is replaced by this build's at the next
# attach, not kept with its maps set anew.
tag() { bpftool prog show pinned "$pins/prog" | sed -n '1s/.* tag \([0-9a-f]*\).*/\1/p'; }
check_rc "detach" 0 "$ctl" detach "$pins"
check_rc "attach an earlier build's program" 0 "$ctl_earlier" attach "$cg" "$pins"
tag_earlier=$(tag)
in_cgroup "$cg" /usr/bin/python3 -c "$connect_from" "$work/connected-earlier" 127.0.0.6 127.0.0.3
check "a client from 127.0.0.3 connects" wait_ready "$work/connected-earlier"
check_eq "the earlier build gives 32 over the route's initcwnd 20" 32 "$(cwnd src 127.0.0.6:80)"
check_rc "attach this build's" 0 "$ctl" attach "$cg" "$pins"
check_eq "  says it attached it" "attached" "$out"
tag_now=$(tag)
check "  another program: tag $tag_earlier before, $tag_now now" \
	test -n "$tag_now" -a "$tag_now" != "$tag_earlier"
ours=$(bpftool prog show pinned "$pins/prog" | sed -n '1s/^\([0-9]*\):.*/\1/p')
check_eq "  the cgroup has the other program and this build's, once" \
	"$other_id cgroup_sock_ops multi nettune_initwnd
$ours cgroup_sock_ops multi nettune_initwnd" \
	"$(bpftool cgroup show "$cg" | awk 'NR > 1 { print $1, $2, $3, $4 }')"
in_cgroup "$cg" /usr/bin/python3 -c "$connect_from" "$work/connected-now" 127.0.0.7 127.0.0.3
check "another client from 127.0.0.3 connects" wait_ready "$work/connected-now"
check_eq "this build keeps the route's initcwnd 20" 20 "$(cwnd src 127.0.0.7:80)"
check_rc "attach again" 0 "$ctl" attach "$cg" "$pins"
check_eq "  this build's is kept" "already attached" "$out"
check_eq "  the same program" "$tag_now" "$(tag)"
ip route del local 127.0.0.3 dev lo table local

check_rc "attach with other ports sets them" 0 "$ctl" attach "$cg" "$pins" 8443
check_match "read back: port 8443 alone" '^ports 8443$' "$("$ctl" read "$pins")"

check_rc "detach" 0 "$ctl" detach "$pins"
check_eq "detach says it detached" "detached" "$out"
check_eq "the other program stays on the cgroup" \
	"$other_id cgroup_sock_ops multi nettune_initwnd" \
	"$(bpftool cgroup show "$cg" | awk 'NR > 1 { print $1, $2, $3, $4 }')"
check_rc "detach again" 0 "$ctl" detach "$pins"
check_eq "detach again says nothing was pinned" "nothing pinned" "$out"
check_rc "read back when detached: ENOENT" 1 "$ctl" read "$pins"
check_eq "read back when detached: the reason" \
	"sockops-ctl: $pins: not pinned: No such file or directory" "$out"
bpftool cgroup detach "$cg" sock_ops pinned "$bpffs/other"
rm "$bpffs/other"
check_eq "nothing is left in the BPF file system" "$(cat "$work/bpffs.before")" \
	"$(ls -A "$bpffs")"

# A cgroup removed under the program: the kernel detaches the link (when it
# releases the cgroup, a moment later); its pins stay, read back as not
# attached, and the next attach replaces them.
mkdir "$cg_gone"
check_rc "attach to a cgroup about to be removed" 0 "$ctl" attach "$cg_gone" "$pins"
rmdir "$cg_gone"
i=0
while "$ctl" read "$pins" | grep -qx 'attached yes' && [ "$i" -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
check_match "its cgroup removed, the program reads back as not attached" '^attached no$' \
	"$("$ctl" read "$pins")"
check_rc "attach again, to a live cgroup" 0 "$ctl" attach "$cg" "$pins"
check_eq "  replaces the pins" "attached" "$out"
check_match "  read back: attached" '^attached yes$' "$("$ctl" read "$pins")"
check_rc "detach" 0 "$ctl" detach "$pins"
check_eq "the test's cgroup has no program left" "" "$(bpftool cgroup show "$cg")"

# Refusals: one line each, nothing pinned.
check_rc "read back pins outside a BPF file system" 1 "$ctl" read "$work/pins"
check_eq "  says why" \
	"sockops-ctl: $work/pins: no BPF file system mounted above the pin directory: Wrong medium type" \
	"$out"
check_rc "attach to a directory that is not cgroup2" 1 "$ctl" attach "$work" "$pins"
check_eq "  says why" \
	"sockops-ctl: $work: not a cgroup v2 directory (no cgroup2 file system mounted there): Wrong medium type" \
	"$out"
check_rc "attach to a missing cgroup" 1 "$ctl" attach "$cg2/nettune-missing.$$" "$pins"
check_eq "  says why" \
	"sockops-ctl: $cg2/nettune-missing.$$: no such cgroup directory: No such file or directory" \
	"$out"
check_rc "pins outside a BPF file system" 1 "$ctl" attach "$cg" "$work/pins"
check_eq "  says why" \
	"sockops-ctl: $cg: no BPF file system mounted above the pin directory: Wrong medium type" \
	"$out"
check_rc "attach without the capabilities (as in a container)" 1 \
	setpriv --inh-caps=-all --bounding-set=-all "$ctl" attach "$cg" "$pins"
check_match "  says why" \
	"^sockops-ctl: $cg: the kernel refused BPF \\(EPERM\\).*: Operation not permitted$" "$out"
bpftool prog load "$obj" "$bpffs/excl" type sockops
bpftool cgroup attach "$cg_excl" sock_ops pinned "$bpffs/excl"
check_rc "attach beside a program attached without BPF_F_ALLOW_MULTI" 1 \
	"$ctl" attach "$cg_excl" "$pins"
check_eq "  says why" \
	"sockops-ctl: $cg_excl: another program holds the cgroup's sock_ops hook without BPF_F_ALLOW_MULTI: Operation not permitted" \
	"$out"
bpftool cgroup detach "$cg_excl" sock_ops pinned "$bpffs/excl"
rm "$bpffs/excl"
check_eq "no refusal left anything in the BPF file system" "$(cat "$work/bpffs.before")" \
	"$(ls -A "$bpffs")"

summary
