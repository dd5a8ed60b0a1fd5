#!/bin/sh
# What the builds that gave the default routes the initial windows (0.2.0's
# first builds) wrote, taken back by apply at the upgrade, once, with the
# care of purge: the networkd drop-ins and the hooks of ifupdown, dhclient,
# dhcpcd and NetworkManager while each is byte for byte the copy beside the
# journal (systemd-networkd then reloaded), and the windows the helper gave
# an interface's routes where the route's key (table, prefix, ToS, metric) is
# its own: no other interface's route, no route of another ToS and no route
# of the administrator's is ever changed. debian/postrm changes no route.
# Each case runs in namespaces of its own (tests/robust/ns-lib), the helper
# or the postrm copied into a root that is an overlay of this machine's,
# with veth pairs for the routes and a networkctl earlier in PATH standing
# in for networkd: it adds the route again without the windows, and logs
# its calls.
#
# usage: tests/robust/takeback.sh BINARY
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
# shellcheck source=tests/robust/ns-lib
. "$here/ns-lib"
bin=$(realpath "$1")
postrm=$here/../../debian/postrm

work=$(mktemp -d /tmp/nettune-robust-takeback.XXXXXX)
trap 'rm -rf "$work"' EXIT
if ! why=$(ns_usable); then
	fail "tests/robust/takeback.sh: $why"
	summary
	exit 1
fi
# Only fq, a "-" line: the global key is not in a child network namespace,
# so apply skips it quietly.
printf '%s\n' '# wp-panel-nettune: test fragment' '-net.core.default_qdisc = fq' >"$work/fragment"

dropin=/etc/systemd/network/50-nt.network.d/50-wp-panel-nettune.conf
hook=/etc/network/if-up.d/wp-panel-nettune
dhook=/etc/dhcp/dhclient-exit-hooks.d/wp-panel-nettune
nmd=/etc/NetworkManager/dispatcher.d/50-wp-panel-nettune
# What every case can use inside its root.
# shellcheck disable=SC2016 # expanded inside the case's root
printf '%s\n' "D=$dropin H=$hook DH=$dhook NMD=$nmd" 'N=/etc/systemd/network/50-nt.network
A=/var/lib/wp-panel-nettune/added
# host: a veth pair, nt-v0 with a default route of each family, the
# fragment with fq, and the stand-in networkctl.
host() {
	ip link add nt-v0 type veth peer name nt-v1 && ip link set nt-v0 up && ip link set nt-v1 up
	ip addr add 192.0.2.10/24 dev nt-v0
	ip -6 addr add 2001:db8::10/64 dev nt-v0 nodad
	cp /fragment /etc/sysctl.d/60-wp-panel-nettune.conf
	mkdir -p /etc/systemd/network "$A"
	rm -rf /etc/systemd/network/*
	printf "[Match]\nName=nt-v0\n\n[Network]\nDHCP=ipv4\n" >$N
	printf "#!/bin/sh\necho \"networkctl \$*\" >>/run/networkctl.log\nip route replace default via 192.0.2.1 dev nt-v0 proto dhcp\n" \
		>/usr/sbin/networkctl
	chmod 755 /usr/sbin/networkctl
}
# other: a second pair, nt-v2, for another interface'"'"'s routes.
other() {
	ip link add nt-v2 type veth peer name nt-v3 && ip link set nt-v2 up && ip link set nt-v3 up
	ip addr add 198.51.100.10/24 dev nt-v2
	ip -6 addr add 2001:db8:2::10/64 dev nt-v2 nodad
}
# windows ROUTE...: ROUTE given the windows 32 and 32 (ip route add words).
windows() { ip "$@" initcwnd 32 initrwnd 32; }
# file PATH COPY [new-dir]: PATH as an earlier version wrote it, its copy
# and its step on standard output.
file() {
	mkdir -p "${1%/*}"
	printf "# written by wp-panel-nettune 0.2.0 for %s\n" "$1" >"$1"
	cp "$1" "$A/$2"
	printf "added\t%s\tadded/%s\t%s\n" "$1" "$2" "${3:-dir-existed}"
}
routes() { ip route show table all | grep -v -e "^local" -e "^broadcast" -e "^multicast"; ip -6 route show table all | grep "^default"; }
calls() { cat /run/networkctl.log 2>/dev/null; }
steps() { grep -sE "^(added|windows)" $S/journal || echo "journal: no added or windows step"; }
tree() {
	{
		find /etc/systemd/network /var/lib/wp-panel-nettune -mindepth 1 -printf "%p %y %m\n"
		find /etc/network /etc/dhcp /etc/NetworkManager -name "*wp-panel-nettune*" -printf "%p %y %m\n"
		find /etc/dhcpcd.exit-hook -printf "%p %y %m\n"
	} 2>/dev/null | sort
}' >"$work/prelude"
printf '%s\n' "cp_fragment() { cat >/fragment <<'FRAGMENT'" "$(cat "$work/fragment")" 'FRAGMENT
}' >>"$work/prelude"

# case_ NAME WANT SCRIPT ARG: the case on standard input (setup and report)
# around SCRIPT ARG; what it reports must be WANT.
case_() {
	_case=$work/case-$(echo "$1" | tr -c 'a-z0-9\n' -)
	{
		cat "$work/prelude"
		cat
	} >"$_case.sh"
	# Before a purge, the helper seals the journal, as the prerm's remove does.
	ns_seal='' && [ "$3" != "$postrm" ] || ns_seal=$bin
	ns_run "$3" "$4" "$_case.sh" "$_case.got"
	check_eq "$1" "$2
exit of the namespaces: 0" "$(cat "$_case.got")"
}
say="said: wp-panel-nettune:"
# No initial-window-ports names a port here (none does as shipped): the
# program is not attached; the rest of apply goes on.
noport="said: Initial windows: /etc/wp-panel-nettune/initial-window-ports names no port; the program is not attached."
taking="said: Taking back what an earlier version wrote for the routes' initial windows:"

case_ "networkd: the drop-in and the directory it made removed, networkd reloaded, the step gone" \
	"exit 0
$noport
$taking
said: Removed $dropin.
said: systemd-networkd reloaded its configuration.
said: Set 0 keys, 0 already in effect, 1 skipped.
networkctl reload
default via 192.0.2.1 dev nt-v0 proto dhcp 
journal: no added or windows step
/etc/systemd/network/50-nt.network f 644" "$bin" apply <<'CASE'
setup() {
	cp_fragment; host
	windows route add default via 192.0.2.1 dev nt-v0 proto dhcp
	file $D 50-nt.conf new-dir | journal >$S/journal
}
report() { calls; ip route show default; steps; tree; }
CASE

case_ "ifupdown: the hooks removed, the windows off both routes; the administrator's windows on another interface stay" \
	"exit 0
$noport
$taking
said: Removed $hook.
said: Removed $dhook.
said: Removed /etc/dhcpcd.exit-hook.
said: route default via 192.0.2.1 dev nt-v0 metric 0: initial windows taken off.
said: route default via 2001:db8::1 dev nt-v0 metric 512: initial windows taken off.
said: Set 0 keys, 0 already in effect, 1 skipped.
default via 192.0.2.1 dev nt-v0 proto dhcp src 192.0.2.10 
default via 198.51.100.1 dev nt-v2 proto static metric 5 initcwnd 32 initrwnd 32 
default via 2001:db8::1 dev nt-v0 metric 512 pref medium
journal: no added or windows step
/etc/systemd/network/50-nt.network f 644" "$bin" apply <<'CASE'
setup() {
	cp_fragment; host; other
	windows route add default via 192.0.2.1 dev nt-v0 proto dhcp src 192.0.2.10
	windows -6 route add default via 2001:db8::1 dev nt-v0 metric 512
	windows route add default via 198.51.100.1 dev nt-v2 proto static metric 5
	{ file $H if-up.d; file $DH dhclient-exit-hook; file /etc/dhcpcd.exit-hook dhcpcd-exit-hook
	  printf "windows\tnt-v0\t32\t32\n"; } | journal >$S/journal
}
report() { ip route show default; ip -6 route show default; steps; tree; }
CASE

# Two IPv6 gateway routes of one metric are one multipath route to the
# kernel (and a multipath route was never given the windows): the other
# interface's route here has no gateway.
case_ "another interface's route of the same metric: neither changed, both families; said, once" \
	"exit 0
$noport
$taking
said: route default via 192.0.2.1 dev nt-v0 metric 100: initial windows 32 and 32 left on it: another default route has its metric, and replacing one could replace the other; they go when nt-v0 is next brought up.
said: route default via 2001:db8::1 dev nt-v0 metric 100: initial windows 32 and 32 left on it: another default route has its metric, and replacing one could replace the other; they go when nt-v0 is next brought up.
said: Set 0 keys, 0 already in effect, 1 skipped.
routes: as before
journal: no added or windows step" "$bin" apply <<'CASE'
setup() {
	cp_fragment; host; other
	ip route add default via 198.51.100.1 dev nt-v2 metric 100
	windows route append default via 192.0.2.1 dev nt-v0 metric 100
	ip -6 route add default dev nt-v2 metric 100
	windows -6 route append default via 2001:db8::1 dev nt-v0 metric 100
	printf "windows\tnt-v0\t32\t32\n" | journal >$S/journal
	routes >/tmp/before
}
report() { routes | cmp -s /tmp/before - && echo "routes: as before"; steps; }
CASE

case_ "a ToS route is no twin: the windows come off the route of its own key, the other ToS stays" \
	"exit 0
$noport
$taking
said: route default via 192.0.2.1 dev nt-v0 metric 0: initial windows taken off.
said: Set 0 keys, 0 already in effect, 1 skipped.
default tos 0x10 via 192.0.2.1 dev nt-v0 
default via 192.0.2.1 dev nt-v0 " "$bin" apply <<'CASE'
setup() {
	cp_fragment; host
	windows route add default via 192.0.2.1 dev nt-v0
	ip route add default tos 0x10 via 192.0.2.1 dev nt-v0
	printf "windows\tnt-v0\t32\t32\n" | journal >$S/journal
}
report() { ip route show default; }
CASE

case_ "NetworkManager's route added again beside the one with the windows: that one goes, the other stays" \
	"exit 0
$noport
$taking
said: Removed $nmd.
said: route default via 192.0.2.1 dev nt-v0 metric 101: removed, since the same route without the initial windows stands beside it.
said: Set 0 keys, 0 already in effect, 1 skipped.
default via 192.0.2.1 dev nt-v0 proto dhcp metric 101 " "$bin" apply <<'CASE'
setup() {
	cp_fragment; host
	windows route add default via 192.0.2.1 dev nt-v0 proto dhcp metric 101
	ip route append default via 192.0.2.1 dev nt-v0 proto dhcp metric 101
	{ file $NMD nm-dispatcher; printf "windows\tnt-v0\t32\t32\n"; } | journal >$S/journal
}
report() { ip route show default; }
CASE

case_ "edited, a symlink, or without its copy: each file left in place, said once; its step and copy go" \
	"exit 0
$noport
$taking
said: $hook was changed since the package wrote it: left in place.
said: $dhook is a symlink now: left in place.
said: $nmd: its copy in /var/lib/wp-panel-nettune is missing: left in place.
said: /etc/dhcpcd.exit-hook is gone already.
said: Set 0 keys, 0 already in effect, 1 skipped.
journal: no added or windows step
$nmd f 644
$dhook l 777
$hook f 644
/etc/systemd/network/50-nt.network f 644
again: no step, nothing to take back" "$bin" apply <<'CASE'
setup() {
	cp_fragment; host
	{ file $H if-up.d; file $DH dhclient-exit-hook; file $NMD nm-dispatcher
	  file /etc/dhcpcd.exit-hook dhcpcd-exit-hook; } | journal >$S/journal
	echo "# mine" >>$H
	rm $DH && ln -s /etc/passwd $DH
	rm $A/nm-dispatcher
	rm /etc/dhcpcd.exit-hook
}
report() {
	steps; tree
	/wp-panel-nettune apply 2>&1 | grep -q "Taking back" || echo "again: no step, nothing to take back"
}
CASE

case_ "--dry-run: says what it would take back, changes nothing" \
	"exit 0
$noport
$taking
said: Would remove $hook.
said: Would take the initial windows 32 and 32 off the default routes of nt-v0.
said: Would set 0 keys, 0 already in effect, 1 skipped.
journal: the same
routes: as before
$hook f 644
/etc/systemd/network/50-nt.network f 644" "$bin" "apply --dry-run" <<'CASE'
setup() {
	cp_fragment; host
	windows route add default via 192.0.2.1 dev nt-v0
	{ file $H if-up.d; printf "windows\tnt-v0\t32\t32\n"; } | journal >$S/journal
	cp $S/journal /tmp/journal && routes >/tmp/before
}
report() {
	cmp -s $S/journal /tmp/journal && echo "journal: the same"
	routes | cmp -s /tmp/before - && echo "routes: as before"
	tree | grep -v /var/lib
}
CASE

case_ "revert takes them back too" \
	"exit 0
said: No kernel value recorded: nothing to revert.
$taking
said: Removed $hook.
said: route default via 192.0.2.1 dev nt-v0 metric 0: initial windows taken off.
default via 192.0.2.1 dev nt-v0 
journal: no added or windows step" "$bin" revert <<'CASE'
setup() {
	cp_fragment; host
	windows route add default via 192.0.2.1 dev nt-v0
	{ file $H if-up.d; printf "windows\tnt-v0\t32\t32\n"; } | journal >$S/journal
}
report() { ip route show default; steps; }
CASE

case_ "a FIFO at a hook's path: no hang, left in place, said once; its step and copy go" \
	"exit 0
$noport
$taking
said: /etc/dhcpcd.exit-hook was changed since the package wrote it: left in place.
said: Set 0 keys, 0 already in effect, 1 skipped.
journal: no added or windows step
/etc/dhcpcd.exit-hook p 644
/etc/systemd/network/50-nt.network f 644" "$bin" apply <<'CASE'
setup() {
	cp_fragment; host
	file /etc/dhcpcd.exit-hook dhcpcd-exit-hook | journal >$S/journal
	rm /etc/dhcpcd.exit-hook && mkfifo -m 644 /etc/dhcpcd.exit-hook
}
report() { steps; tree; }
CASE

# --- debian/postrm purge -----------------------------------------------------

case_ "purge: the hook taken back by the seal, a windows step left over told, no route changed" \
	"sealed: ${taking#said: }
sealed: Removed $hook.
exit 0
$say the default routes of nt-v0 may keep the initial windows 32 and 32 an earlier version gave them, until nt-v0 is next brought up
$say put back the original value of 0 kernel setting(s)
routes: as before" "$postrm" purge <<'CASE'
setup() {
	cp_fragment; host; other
	ip route add default via 198.51.100.1 dev nt-v2 metric 100
	windows route append default via 192.0.2.1 dev nt-v0 metric 100
	{ file $H if-up.d; printf "windows\tnt-v0\t32\t32\n"; } | journal >$S/journal
	routes >/tmp/before
}
report() { routes | cmp -s /tmp/before - && echo "routes: as before"; }
CASE

summary
