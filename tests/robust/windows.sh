#!/bin/sh
# The initial windows of the default routes (src/initwnd.c), as on a host
# whose interface systemd-networkd configures: apply writes the drop-in for
# a route learned from DHCP, records it, reloads networkd; status tells each
# route's windows, wanted and live, or why it leaves the route alone; apply
# takes the drop-in away when the fragment drops fq; debian/postrm purge
# removes it while it is as written and reloads networkd. Each case runs in
# namespaces of its own (tests/robust/ns-lib), the helper or the postrm
# copied into a root that is an overlay of this machine's, with a veth pair
# for the route, /run saying who configures it, and a networkctl earlier in
# PATH standing in for networkd: it adds the route again with the windows
# while the drop-in is there, without them once it is gone, and logs its
# calls.
#
# usage: tests/robust/windows.sh BINARY
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
# shellcheck source=tests/robust/ns-lib
. "$here/ns-lib"
bin=$(realpath "$1")
postrm=$here/../../debian/postrm

work=$(mktemp -d /tmp/nettune-robust-windows.XXXXXX)
trap 'rm -rf "$work"' EXIT
if ! why=$(ns_usable); then
	fail "tests/robust/windows.sh: $why"
	summary
	exit 1
fi
# Only fq, a "-" line: the global key is not in a child network namespace,
# so apply skips it quietly and prints what it does with the routes.
printf '%s\n' '# wp-panel-nettune: test fragment' '-net.core.default_qdisc = fq' >"$work/fragment"

dropin=/etc/systemd/network/50-nt.network.d/50-wp-panel-nettune.conf
# What every case can use inside its root.
# shellcheck disable=SC2016 # expanded inside the case's root
printf '%s\n' "D=$dropin" 'NMD=/etc/NetworkManager/dispatcher.d/50-wp-panel-nettune
N=/etc/systemd/network/50-nt.network
# host: the veth pair, a default route on nt-v0 learned from DHCP, the
# fragment with fq, networkd configuring nt-v0 from 50-nt.network, and the
# stand-in networkctl.
host() {
	ip link add nt-v0 type veth peer name nt-v1 && ip link set nt-v0 up && ip link set nt-v1 up
	ip addr add 192.0.2.10/24 dev nt-v0
	ip route add default via 192.0.2.1 dev nt-v0 proto "${1:-dhcp}" ${2:-}
	cp /fragment /etc/sysctl.d/60-wp-panel-nettune.conf
	mkdir -p /run/systemd/netif/links /run/systemd/system /etc/systemd/network
	rm -rf /etc/systemd/network/*
	links configured
	printf "[Match]\nName=nt-v0\n\n[Network]\nDHCP=ipv4\n" >$N
	cat >/usr/sbin/networkctl <<STUB
#!/bin/sh
echo "networkctl \$*" >>/run/networkctl.log
if [ -f $D ]; then
	ip route replace default via 192.0.2.1 dev nt-v0 proto dhcp initcwnd 32 initrwnd 32
else
	ip route replace default via 192.0.2.1 dev nt-v0 proto dhcp
fi
STUB
	printf "#!/bin/sh\necho \"systemctl \$*\" >>/run/networkctl.log\n" >/usr/sbin/systemctl
	chmod 755 /usr/sbin/networkctl /usr/sbin/systemctl
}
# ifupdown: ifupdown configures nt-v0 (and not networkd), with an IPv6
# default route beside the IPv4 one; the helper is installed, for the hooks.
ifupdown() {
	rm -f /run/systemd/netif/links/*
	rm -rf /usr/lib/dhcpcd /etc/dhcpcd.exit-hook
	mkdir -p /run/network /etc/network/if-up.d && : >/run/network/ifstate.nt-v0
	ip -6 addr add 2001:db8::10/64 dev nt-v0 nodad
	ip -6 route add default via 2001:db8::1 dev nt-v0 metric 512
	cp /wp-panel-nettune /usr/sbin/wp-panel-nettune 2>/dev/null || true
}
# networkmanager true|false: the state file NetworkManager keeps of nt-v0, as it
# writes one for a device it manages or not (and none of networkd).
networkmanager() {
	rm -f /run/systemd/netif/links/*
	mkdir -p /run/NetworkManager/devices /etc/NetworkManager/dispatcher.d
	printf "# NetworkManager runtime state of device\n\n[device]\nmanaged=%s\nnm-owned=false\n" "$1" \
		>/run/NetworkManager/devices/$(ip -o link show nt-v0 | cut -d: -f1)
	cp /wp-panel-nettune /usr/sbin/wp-panel-nettune 2>/dev/null || true
}
# nm_recorded: the dispatcher script as apply leaves it, its copy, and the
# steps of the journal for it and for nt-v0.
nm_recorded() {
	mkdir -p /var/lib/wp-panel-nettune/added
	echo "# dispatcher" >$NMD && cp $NMD /var/lib/wp-panel-nettune/added/nm-dispatcher
	printf "added\t%s\tadded/nm-dispatcher\tdir-existed\nwindows\tnt-v0\t32\t32\n" $NMD | journal >$S/journal
}
links() { printf "ADMIN_STATE=%s\nNETWORK_FILE=%s\n" "$1" $N >/run/systemd/netif/links/$(ip -o link show nt-v0 | cut -d: -f1); }
route() { echo "route: $(ip route show default dev nt-v0)"; }
route6() { echo "route6: $(ip -6 route show default dev nt-v0)"; }
calls() { cat /run/networkctl.log 2>/dev/null; }
# plan: the line status prints below the route.
plan() { /wp-panel-nettune status 2>&1 | grep -A1 "^route default via 192.0.2.1" | sed -n 2p; }
tree() {
	{
		find /etc/systemd/network /var/lib/wp-panel-nettune -mindepth 1 -printf "%p %y %m\n"
		find /etc/network /etc/dhcp /etc/NetworkManager -name "*wp-panel-nettune*" -printf "%p %y %m\n"
		find /etc/dhcpcd.exit-hook -printf "%p %y %m\n"
	} 2>/dev/null | sort
}' \
	>"$work/prelude"

# case_ NAME WANT SCRIPT ARG: the case on standard input (setup and report)
# around SCRIPT ARG; what it reports must be WANT.
case_() {
	_case=$work/case-$(echo "$1" | tr -c 'a-z0-9\n' -)
	{
		cat "$work/prelude"
		cat
	} >"$_case.sh"
	ns_run "$3" "$4" "$_case.sh" "$_case.got"
	check_eq "$1" "$2
exit of the namespaces: 0" "$(cat "$_case.got")"
}
# The fragment goes into every root as /fragment; ns_run copies only the
# script, so the cases' setup writes it.
printf '%s\n' "cp_fragment() { cat >/fragment <<'FRAGMENT'" "$(cat "$work/fragment")" 'FRAGMENT
}' >>"$work/prelude"

text="# The initial windows of the routes this link learns from DHCP, written
# by wp-panel-nettune where fq paces the first flight (wp-panel-nettune(8)).
# Purging the package removes this file.
[DHCPv4]
InitialCongestionWindow=32
InitialAdvertisedReceiveWindow=32"
tab=$(printf '\t')
say="said: wp-panel-nettune:"

case_ "apply: the drop-in written and recorded, networkd reloaded, the route has the windows" \
	"exit 0
said: route default via 192.0.2.1 dev nt-v0: initial windows 32 and 32, through $dropin.
said: Wrote $dropin.
said: systemd-networkd reloaded its configuration.
said: Set 0 keys, 0 already in effect, 1 skipped.
networkctl reload
route: default via 192.0.2.1 proto dhcp initcwnd 32 initrwnd 32 
$text
added$tab$dropin${tab}added/50-nt.conf${tab}new-dir
copy: the same
  the package's, from $dropin (systemd-networkd)
/etc/systemd/network/50-nt.network f 644
/etc/systemd/network/50-nt.network.d d 755
$dropin f 644
/var/lib/wp-panel-nettune/added d 755
/var/lib/wp-panel-nettune/added/50-nt.conf f 644
/var/lib/wp-panel-nettune/journal f 644" "$bin" "apply" <<'CASE'
setup() { cp_fragment; host; }
report() {
	calls; route; cat $D; grep ^added /var/lib/wp-panel-nettune/journal
	cmp -s $D /var/lib/wp-panel-nettune/added/50-nt.conf && echo "copy: the same"
	plan; tree
}
CASE

case_ "apply again: nothing written, no reload; the windows lost behind its back: status exit 3" \
	"exit 0
said: route default via 192.0.2.1 dev nt-v0: initial windows 32 and 32, through $dropin.
said: Set 0 keys, 0 already in effect, 1 skipped.
networkctl reload
  WANTED initcwnd 32, initrwnd 32, from $dropin (systemd-networkd): not live; networkctl reload applies them
status: 3
route-windows" "$bin" apply <<'CASE'
setup() { cp_fragment; host; /wp-panel-nettune apply >/dev/null 2>&1; }
report() {
	calls
	ip route replace default via 192.0.2.1 dev nt-v0 proto dhcp
	plan
	rc=0 && /wp-panel-nettune status >/tmp/status 2>&1 || rc=$?
	echo "status: $rc"
	tail -n 1 /tmp/status | grep -o route-windows
}
CASE

case_ "cubic: apply removes the drop-in and the directory it made, and reloads" \
	"exit 0
said: Removed $dropin.
said: systemd-networkd reloaded its configuration.
said: Set 0 keys, 0 already in effect, 0 skipped.
networkctl reload
networkctl reload
route: default via 192.0.2.1 proto dhcp 
/etc/systemd/network/50-nt.network f 644" "$bin" apply <<'CASE'
setup() {
	cp_fragment; host; /wp-panel-nettune apply >/dev/null 2>&1
	echo '# cubic' >/etc/sysctl.d/60-wp-panel-nettune.conf
}
report() { calls; route; tree; }
CASE

case_ "revert: removes the drop-in and its directory, reloads; nothing left recorded" \
	"exit 0
said: No kernel value recorded: nothing to revert.
said: Removed $dropin.
said: systemd-networkd reloaded its configuration.
networkctl reload
networkctl reload
route: default via 192.0.2.1 proto dhcp 
/etc/systemd/network/50-nt.network f 644" "$bin" revert <<'CASE'
setup() { cp_fragment; host; /wp-panel-nettune apply >/dev/null 2>&1; }
report() { calls; route; tree; }
CASE

case_ "a directory that was there stays; an edited drop-in stays, and its step" \
	"exit 0
said: $dropin was changed since the package wrote it: left in place.
said: Set 0 keys, 0 already in effect, 0 skipped.
added$tab$dropin${tab}added/50-nt.conf${tab}dir-existed
/etc/systemd/network/50-nt.network f 644
/etc/systemd/network/50-nt.network.d d 755
$dropin f 644
/etc/systemd/network/50-nt.network.d/60-mine.conf f 644
/var/lib/wp-panel-nettune/added d 755
/var/lib/wp-panel-nettune/added/50-nt.conf f 644
/var/lib/wp-panel-nettune/journal f 644" "$bin" apply <<'CASE'
setup() {
	cp_fragment; host
	mkdir -p $N.d && echo '# mine' >$N.d/60-mine.conf
	/wp-panel-nettune apply >/dev/null 2>&1
	echo '# edited' >>$D
	echo '# cubic' >/etc/sysctl.d/60-wp-panel-nettune.conf
}
report() { grep ^added /var/lib/wp-panel-nettune/journal; tree; }
CASE

case_ "a drop-in of that name the package did not write: left as it is, nothing recorded" \
	"exit 0
said: route default via 192.0.2.1 dev nt-v0: initial windows 32 and 32, through $dropin.
said: wp-panel-nettune: apply: warning: $dropin is not the package's: left as it is
said: Set 0 keys, 0 already in effect, 1 skipped.
# mine
/etc/systemd/network/50-nt.network f 644
/etc/systemd/network/50-nt.network.d d 755
$dropin f 644" "$bin" apply <<'CASE'
setup() { cp_fragment; host; mkdir -p $N.d && echo '# mine' >$D; }
report() { calls; cat $D; tree; }
CASE

# The routes apply leaves alone, and why: "journal" runs, status tells.
alone() {
	case_ "left alone: $1" "exit 0
said: Nothing recorded: purge has nothing to put back.
  left alone: $2" "$bin" journal
}
alone "a static route of networkd, and how to have the windows" \
	"systemd-networkd adds it from /etc/systemd/network/50-nt.network (Gateway= or [Route]), and a drop-in would only add a second default route beside it; InitialCongestionWindow=32 and InitialAdvertisedReceiveWindow=32 in a [Route] section of that file would give it the windows" <<'CASE'
setup() { cp_fragment; host static; }
report() { plan; }
CASE
alone "a route from a router advertisement" \
	"learned from a router advertisement: systemd-networkd has no initial window setting for those" <<'CASE'
setup() { cp_fragment; host ra; }
report() { plan; }
CASE
alone "a route with a window of its own" \
	"it has initial windows of its own (initcwnd 20, initrwnd 0)" <<'CASE'
setup() { cp_fragment; host dhcp "initcwnd 20"; }
report() { plan; }
CASE
alone "a .network file that sets a window" \
	"/etc/systemd/network/50-nt.network sets initial windows of its own" <<'CASE'
setup() { cp_fragment; host; printf '[DHCPv4]\nInitialCongestionWindow=10\n' >>$N; }
report() { plan; }
CASE
alone "another drop-in that sets a window" \
	"/etc/systemd/network/50-nt.network.d/70-mine.conf sets initial windows of its own" <<'CASE'
setup() {
	cp_fragment; host
	mkdir $N.d && printf '[DHCPv4]\nInitialAdvertisedReceiveWindow=64\n' >$N.d/70-mine.conf
	printf 'NETWORK_FILE_DROPINS="%s"\n' $N.d/70-mine.conf >>/run/systemd/netif/links/$(ip -o link show nt-v0 | cut -d: -f1)
}
report() { plan; }
CASE
alone "an interface NetworkManager does not manage (managed=false)" \
	"no network manager the package knows configures nt-v0 (systemd-networkd, NetworkManager, ifupdown)" <<'CASE'
setup() { cp_fragment; host; networkmanager false; }
report() { plan; }
CASE
alone "a router advertisement's route on NetworkManager's interface" \
	"learned from a router advertisement: the kernel adds it again at each one, without the windows" <<'CASE'
setup() { cp_fragment; host ra; networkmanager true; }
report() { plan; }
CASE
alone "a router advertisement's route on ifupdown's interface" \
	"learned from a router advertisement: the kernel adds it again at each one, without the windows" <<'CASE'
setup() { cp_fragment; host ra; ifupdown; }
report() { plan; }
CASE
alone "an interface no manager configures" \
	"no network manager the package knows configures nt-v0 (systemd-networkd, NetworkManager, ifupdown)" <<'CASE'
setup() { cp_fragment; host; rm /run/systemd/netif/links/*; }
report() { plan; }
CASE
alone "cubic: no windows" \
	"the profile gives initial windows only where fq paces the first flight" <<'CASE'
setup() { cp_fragment; host; echo 'net.ipv4.tcp_fin_timeout = 15' >/etc/sysctl.d/60-wp-panel-nettune.conf; }
report() { plan; }
CASE

# --- ifupdown --------------------------------------------------------------------

hook=/etc/network/if-up.d/wp-panel-nettune
dhook=/etc/dhcp/dhclient-exit-hooks.d/wp-panel-nettune
case_ "ifupdown: apply writes the if-up.d hook, records the interface, gives both routes the windows" \
	"exit 0
said: route default via 192.0.2.1 dev nt-v0: initial windows 32 and 32, through $hook.
said: route default via 2001:db8::1 dev nt-v0: initial windows 32 and 32, through $hook.
said: Wrote $hook.
said: route default via 192.0.2.1 dev nt-v0: initial windows 32 and 32, given.
said: route default via 2001:db8::1 dev nt-v0: initial windows 32 and 32, given.
said: Set 0 keys, 0 already in effect, 1 skipped.
route: default via 192.0.2.1 proto dhcp src 192.0.2.10 initcwnd 32 initrwnd 32 
route6: default via 2001:db8::1 metric 512 initcwnd 32 initrwnd 32 pref medium
added$tab$hook${tab}added/if-up.d${tab}dir-existed
windows${tab}nt-v0${tab}32${tab}32
  the package's, from $hook (ifupdown)
$hook f 755
/var/lib/wp-panel-nettune/added d 755
/var/lib/wp-panel-nettune/added/if-up.d f 644
/var/lib/wp-panel-nettune/journal f 644" "$bin" apply <<'CASE'
setup() {
	cp_fragment; host; ip route replace default via 192.0.2.1 dev nt-v0 proto dhcp src 192.0.2.10
	ifupdown
}
report() { calls; route; route6; grep -E '^(added|windows)' /var/lib/wp-panel-nettune/journal; plan; tree | grep -v /etc/systemd; }
CASE

case_ "ifupdown with dhclient: its exit hook too; the hooks give the windows again" \
	"exit 0
said: route default via 192.0.2.1 dev nt-v0: initial windows 32 and 32, through $hook.
said: route default via 2001:db8::1 dev nt-v0: initial windows 32 and 32, through $hook.
said: Wrote $hook.
said: Wrote $dhook.
said: route default via 192.0.2.1 dev nt-v0: initial windows 32 and 32, given.
said: route default via 2001:db8::1 dev nt-v0: initial windows 32 and 32, given.
said: Set 0 keys, 0 already in effect, 1 skipped.
route: default via 192.0.2.1 proto dhcp initcwnd 32 initrwnd 32 
route6: default via 2001:db8::1 metric 512 initcwnd 32 initrwnd 32 pref medium
$dhook f 644
$hook f 755
ifup: route: default via 192.0.2.1 proto dhcp initcwnd 32 initrwnd 32 
dhclient BOUND: route: default via 192.0.2.1 proto dhcp initcwnd 32 initrwnd 32 
dhclient EXPIRE: route: default via 192.0.2.1 proto dhcp " "$bin" apply <<'CASE'
setup() {
	cp_fragment; host; ifupdown
	mkdir -p /etc/dhcp/dhclient-exit-hooks.d && : >/run/dhclient.nt-v0.pid
}
report() {
	route; route6; tree | grep -v -e /etc/systemd -e /var/lib
	ip route replace default via 192.0.2.1 dev nt-v0 proto dhcp
	IFACE=nt-v0 /etc/network/if-up.d/wp-panel-nettune && echo "ifup: $(route)"
	for reason in BOUND EXPIRE; do
		ip route replace default via 192.0.2.1 dev nt-v0 proto dhcp
		(interface=nt-v0 && . /etc/dhcp/dhclient-exit-hooks.d/wp-panel-nettune) && echo "dhclient $reason: $(route)"
	done
}
CASE

case_ "ifupdown with dhcpcd: dhcpcd's exit hook too, which gives the windows again" \
	"exit 0
said: route default via 192.0.2.1 dev nt-v0: initial windows 32 and 32, through $hook.
said: route default via 2001:db8::1 dev nt-v0: initial windows 32 and 32, through $hook.
said: Wrote $hook.
said: Wrote /etc/dhcpcd.exit-hook.
said: route default via 192.0.2.1 dev nt-v0: initial windows 32 and 32, given.
said: route default via 2001:db8::1 dev nt-v0: initial windows 32 and 32, given.
said: Set 0 keys, 0 already in effect, 1 skipped.
added$tab/etc/dhcpcd.exit-hook${tab}added/dhcpcd-exit-hook${tab}dir-existed
/etc/dhcpcd.exit-hook f 644
dhcpcd BOUND: route: default via 192.0.2.1 proto dhcp initcwnd 32 initrwnd 32 
dhcpcd NOCARRIER: route: default via 192.0.2.1 proto dhcp " "$bin" apply <<'CASE'
setup() {
	cp_fragment; host; ifupdown
	mkdir -p /usr/lib/dhcpcd && : >/usr/lib/dhcpcd/dhcpcd-run-hooks
}
report() {
	grep dhcpcd /var/lib/wp-panel-nettune/journal; tree | grep '^/etc/dhcpcd'
	for reason in BOUND NOCARRIER; do
		ip route replace default via 192.0.2.1 dev nt-v0 proto dhcp
		(interface=nt-v0 && . /etc/dhcpcd.exit-hook) && echo "dhcpcd $reason: $(route)"
	done
}
CASE

nmd=/etc/NetworkManager/dispatcher.d/50-wp-panel-nettune
case_ "NetworkManager: apply writes the dispatcher script, gives the windows; the script gives them again on up and DHCP changes" \
	"exit 0
said: route default via 192.0.2.1 dev nt-v0: initial windows 32 and 32, through $nmd.
said: route default via 2001:db8::1 dev nt-v0: initial windows 32 and 32, through $nmd.
said: Wrote $nmd.
said: route default via 192.0.2.1 dev nt-v0: initial windows 32 and 32, given.
said: route default via 2001:db8::1 dev nt-v0: initial windows 32 and 32, given.
said: Set 0 keys, 0 already in effect, 1 skipped.
route: default via 192.0.2.1 proto dhcp initcwnd 32 initrwnd 32 
added$tab$nmd${tab}added/nm-dispatcher${tab}dir-existed
windows${tab}nt-v0${tab}32${tab}32
  the package's, from $nmd (NetworkManager)
$nmd f 755
/var/lib/wp-panel-nettune/added d 755
/var/lib/wp-panel-nettune/added/nm-dispatcher f 644
/var/lib/wp-panel-nettune/journal f 644
up: route: default via 192.0.2.1 proto dhcp initcwnd 32 initrwnd 32 
dhcp4-change: route: default via 192.0.2.1 proto dhcp initcwnd 32 initrwnd 32 
down: route: default via 192.0.2.1 proto dhcp 
hostname: route: default via 192.0.2.1 proto dhcp " "$bin" apply <<'CASE'
setup() {
	cp_fragment; host; networkmanager true
	ip -6 addr add 2001:db8::10/64 dev nt-v0 nodad
	ip -6 route add default via 2001:db8::1 dev nt-v0 metric 512
}
report() {
	route; grep -E '^(added|windows)' /var/lib/wp-panel-nettune/journal; plan; tree | grep -v /etc/systemd
	for action in up dhcp4-change down; do
		ip route replace default via 192.0.2.1 dev nt-v0 proto dhcp
		/etc/NetworkManager/dispatcher.d/50-wp-panel-nettune nt-v0 $action && echo "$action: $(route)"
	done
	/etc/NetworkManager/dispatcher.d/50-wp-panel-nettune "" hostname && echo "hostname: $(route)"
}
CASE

case_ "windows IFACE: the route added again beside the one with the windows (NetworkManager's renewal) goes" \
	"exit 0
said: route default via 192.0.2.1 dev nt-v0: initial windows 32 and 32, given.
route: default via 192.0.2.1 proto dhcp metric 101 initcwnd 32 initrwnd 32 " "$bin" "windows nt-v0" <<'CASE'
setup() {
	cp_fragment; host; networkmanager true
	ip route del default dev nt-v0
	ip route add default via 192.0.2.1 dev nt-v0 proto dhcp metric 101 initcwnd 32 initrwnd 32
	ip route append default via 192.0.2.1 dev nt-v0 proto dhcp metric 101
}
report() { route; }
CASE

case_ "windows IFACE: a route with windows of its own stays; recorded once" \
	"exit 0
said: route default via 2001:db8::1 dev nt-v0: initial windows 32 and 32, given.
route: default via 192.0.2.1 proto dhcp initcwnd 20 
route6: default via 2001:db8::1 metric 512 initcwnd 32 initrwnd 32 pref medium
windows${tab}nt-v0${tab}32${tab}32" "$bin" "windows nt-v0" <<'CASE'
setup() { cp_fragment; host dhcp "initcwnd 20"; ifupdown; }
report() { route; route6; grep -E '^(added|windows)' /var/lib/wp-panel-nettune/journal; }
CASE

case_ "ifupdown: the windows lost, status says which command gives them again" \
	"exit 0
said: Nothing recorded: purge has nothing to put back.
  WANTED initcwnd 32, initrwnd 32, from $hook (ifupdown): not live; wp-panel-nettune windows nt-v0 applies them" "$bin" journal <<'CASE'
setup() { cp_fragment; host; ifupdown; /wp-panel-nettune apply >/dev/null 2>&1; rm $S/journal; ip route replace default via 192.0.2.1 dev nt-v0 proto dhcp; }
report() { plan; }
CASE

case_ "ifupdown: the hook missing, or not the package's: status says so" \
	"exit 0
said: Nothing recorded: purge has nothing to put back.
  WANTED initcwnd 32, initrwnd 32, from $hook (ifupdown): not live, and the file is missing; wp-panel-nettune apply writes it
  WANTED initcwnd 32, initrwnd 32, from $hook (ifupdown): not live, and the file is not the one the package writes: yours to fix" "$bin" journal <<'CASE'
setup() { cp_fragment; host; ifupdown; }
report() { plan; echo '#!/bin/sh' >/etc/network/if-up.d/wp-panel-nettune; plan; }
CASE

case_ "windows IFACE without fq: nothing" \
	"exit 0
said: The fragment does not set fq: no initial windows.
route: default via 192.0.2.1 proto dhcp " "$bin" "windows nt-v0" <<'CASE'
setup() { cp_fragment; host; ifupdown; echo '# cubic' >/etc/sysctl.d/60-wp-panel-nettune.conf; }
report() { route; ls /var/lib/wp-panel-nettune 2>&1 | sed 's/^ls: //'; }
CASE

case_ "ifupdown, revert: the hook removed, the windows taken off, nothing recorded" \
	"exit 0
said: No kernel value recorded: nothing to revert.
said: Removed $hook.
said: route default via 192.0.2.1 dev nt-v0: initial windows taken off.
said: route default via 2001:db8::1 dev nt-v0: initial windows taken off.
route: default via 192.0.2.1 proto dhcp 
route6: default via 2001:db8::1 metric 512 pref medium" "$bin" revert <<'CASE'
setup() { cp_fragment; host; ifupdown; /wp-panel-nettune apply >/dev/null 2>&1; }
report() { route; route6; tree | grep -v /etc/systemd || true; }
CASE

# --- debian/postrm purge ----------------------------------------------------------

# added: the drop-in as apply writes it, its copy and its journal step.
printf '%s\n' "added() {
	mkdir -p \$N.d /var/lib/wp-panel-nettune/added
	cat >\$D <<'TEXT'
$text
TEXT
	cp \$D /var/lib/wp-panel-nettune/added/50-nt.conf
	printf 'added\t%s\tadded/50-nt.conf\t%s\n' \$D \"\$1\" | journal >\$S/journal
}" >>"$work/prelude"

case_ "purge: the drop-in removed, and the directory apply made; networkd reloaded" \
	"exit 0
$say removed $dropin
$say put back the original value of 0 kernel setting(s)
$say systemd-networkd reloaded: the routes it learns from DHCP lose the initial windows
networkctl reload
systemctl --system daemon-reload
route: default via 192.0.2.1 proto dhcp 
/etc/systemd/network/50-nt.network f 644" "$postrm" purge <<'CASE'
setup() { cp_fragment; host; added new-dir; ip route replace default via 192.0.2.1 dev nt-v0 proto dhcp initcwnd 32 initrwnd 32; }
report() { calls; route; tree; }
CASE

case_ "purge: a directory that was there stays" \
	"exit 0
$say removed $dropin
$say put back the original value of 0 kernel setting(s)
$say systemd-networkd reloaded: the routes it learns from DHCP lose the initial windows
/etc/systemd/network/50-nt.network f 644
/etc/systemd/network/50-nt.network.d d 755" "$postrm" purge <<'CASE'
setup() { cp_fragment; host; added dir-existed; }
report() { tree; }
CASE

case_ "purge: an edited drop-in stays, said; no reload" \
	"exit 0
$say $dropin was changed since the package wrote it: left in place
$say put back the original value of 0 kernel setting(s)
systemctl --system daemon-reload
/etc/systemd/network/50-nt.network f 644
/etc/systemd/network/50-nt.network.d d 755
$dropin f 644" "$postrm" purge <<'CASE'
setup() { cp_fragment; host; added new-dir; echo '# mine' >>$D; }
report() { calls; tree; }
CASE

case_ "purge: the drop-in gone already, said" \
	"exit 0
$say $dropin is gone already
$say put back the original value of 0 kernel setting(s)
systemctl --system daemon-reload
/etc/systemd/network/50-nt.network f 644
/etc/systemd/network/50-nt.network.d d 755" "$postrm" purge <<'CASE'
setup() { cp_fragment; host; added new-dir; rm $D; }
report() { calls; tree; }
CASE

case_ "purge: a FIFO at the drop-in's path is not read, and stays" \
	"exit 0
$say $dropin was changed since the package wrote it: left in place
$say put back the original value of 0 kernel setting(s)
systemctl --system daemon-reload
/etc/systemd/network/50-nt.network f 644
/etc/systemd/network/50-nt.network.d d 755
$dropin p 644" "$postrm" purge <<'CASE'
setup() { cp_fragment; host; added new-dir; rm $D; mkfifo -m 644 $D; }
report() { calls; tree; }
CASE

case_ "purge: steps naming other files are malformed: nothing removed, the state directory kept" \
	"exit 0
$say ignoring a malformed line in /var/lib/wp-panel-nettune/journal
$say ignoring a malformed line in /var/lib/wp-panel-nettune/journal
$say ignoring a malformed line in /var/lib/wp-panel-nettune/journal
$say put back the original value of 0 kernel setting(s)
systemctl --system daemon-reload
/etc/passwd: kept
/etc/systemd/network/50-nt.network f 644
/etc/systemd/network/50-nt.network.d d 755
$dropin f 644
/var/lib/wp-panel-nettune/added d 755
/var/lib/wp-panel-nettune/added/50-nt.conf f 644
/var/lib/wp-panel-nettune/journal f 644
/var/lib/wp-panel-nettune/lock f 644" "$postrm" purge <<'CASE'
setup() {
	cp_fragment; host; added new-dir
	{
		printf 'added\t/etc/passwd\tadded/50-nt.conf\tnew-dir\n'
		printf 'added\t/etc/systemd/network/../../passwd.network.d/50-wp-panel-nettune.conf\tadded/50-nt.conf\tnew-dir\n'
		printf 'added\t%s\tadded/../../../etc/passwd\tnew-dir\n' $D
	} | journal >$S/journal
}
report() { calls; test -s /etc/passwd && echo "/etc/passwd: kept"; tree; }
CASE

case_ "purge, ifupdown: the hooks removed, the windows taken off both routes; another's windows stay" \
	"exit 0
$say removed $hook
$say removed $dhook
$say removed /etc/dhcpcd.exit-hook
$say nt-v0: took the initial windows off the route default via 192.0.2.1 proto dhcp initcwnd 32 initrwnd 32 
$say nt-v0: took the initial windows off the route default via 2001:db8::1 metric 512 initcwnd 32 initrwnd 32 pref medium
$say put back the original value of 0 kernel setting(s)
systemctl --system daemon-reload
route: default via 192.0.2.1 proto dhcp 
route6: default via 2001:db8::1 metric 512 pref medium
route nt-v2: default via 198.51.100.1 proto dhcp metric 5 linkdown initcwnd 32 initrwnd 32 " "$postrm" purge <<'CASE'
setup() {
	cp_fragment; host; ifupdown
	mkdir -p /etc/dhcp/dhclient-exit-hooks.d && : >/run/dhclient.nt-v0.pid
	ip link add nt-v2 type veth peer name nt-v3 && ip link set nt-v2 up && ip addr add 198.51.100.10/24 dev nt-v2
	ip route add default via 198.51.100.1 dev nt-v2 proto dhcp metric 5 initcwnd 32 initrwnd 32
	ip route replace default via 192.0.2.1 dev nt-v0 proto dhcp initcwnd 32 initrwnd 32
	ip -6 route replace default via 2001:db8::1 dev nt-v0 metric 512 initcwnd 32 initrwnd 32
	mkdir -p /var/lib/wp-panel-nettune/added
	for f in /etc/network/if-up.d/wp-panel-nettune:if-up.d /etc/dhcp/dhclient-exit-hooks.d/wp-panel-nettune:dhclient-exit-hook \
		/etc/dhcpcd.exit-hook:dhcpcd-exit-hook; do
		echo "# hook" >${f%:*} && cp ${f%:*} /var/lib/wp-panel-nettune/added/${f#*:}
		printf "added\t%s\tadded/%s\tdir-existed\n" ${f%:*} ${f#*:}
	done | { cat; printf "windows\tnt-v0\t32\t32\n"; } | journal >$S/journal
}
report() { calls; route; route6; echo "route nt-v2: $(ip route show default dev nt-v2)"; tree | grep -v -e /etc/systemd -e /var/lib || true; }
CASE

case_ "purge, NetworkManager: the dispatcher script removed, the windows taken off" \
	"exit 0
$say removed $nmd
$say nt-v0: took the initial windows off the route default via 192.0.2.1 proto dhcp initcwnd 32 initrwnd 32 
$say put back the original value of 0 kernel setting(s)
systemctl --system daemon-reload
route: default via 192.0.2.1 proto dhcp 
/etc/NetworkManager/dispatcher.d d 755" "$postrm" purge <<'CASE'
setup() {
	cp_fragment; host; networkmanager true
	ip route replace default via 192.0.2.1 dev nt-v0 proto dhcp initcwnd 32 initrwnd 32
	nm_recorded
}
report() { calls; route; tree | grep -v -e /etc/systemd -e /var/lib || true; find /etc/NetworkManager -printf "%p %y %m\n" | grep dispatcher; }
CASE

case_ "purge, NetworkManager: the route added again beside the one with the windows stays, alone" \
	"exit 0
$say removed $nmd
$say nt-v0: took the initial windows off the route default via 192.0.2.1 proto dhcp metric 101 initcwnd 32 initrwnd 32 
$say put back the original value of 0 kernel setting(s)
systemctl --system daemon-reload
route: default via 192.0.2.1 proto dhcp metric 101 " "$postrm" purge <<'CASE'
setup() {
	cp_fragment; host; networkmanager true
	ip route del default dev nt-v0
	ip route add default via 192.0.2.1 dev nt-v0 proto dhcp metric 101 initcwnd 32 initrwnd 32
	ip route append default via 192.0.2.1 dev nt-v0 proto dhcp metric 101
	nm_recorded
}
report() { calls; route; }
CASE

summary
