# shellcheck shell=bash disable=SC2034 # title, estimate and needs are read by tests/vm/run
# 26. The upgrade from the builds that gave the default routes the initial
#     windows (the package of df8ffc3, ROUTE_VERSION in tests/vm/run), on 2
#     vCPUs, in 25's image (ifupdown, bpftool). A unit makes, at every boot
#     before ifupdown, the dummy links vs0 and vu0, which ifupdown
#     configures statically with gateways of metric 100 and 200. The old
#     package's install gives both default routes initcwnd 32 and initrwnd
#     32 and writes its if-up.d hook, recorded in its journal. Then nta, a
#     link of no manager, gets a default route of metric 100, vs0's. The
#     new package, installed over it with apt (an upgrade): the hook is
#     gone; vu0's route, alone under its key, loses its windows; vs0's
#     keeps them, said, since replacing it could replace nta's; nta's
#     route and every other line of `ip route show table all` are byte for
#     byte as before; `wp-panel-nettune journal` has no added or windows
#     step; no program is attached (the shipped setting names no port:
#     the kernel's windows). With nta gone, ifdown and ifup vs0
#     bring its route back without windows: the routes are those before
#     the first install (sorted: the link's IPv6 routes come last after
#     it went down); purge changes no route (byte for byte) and leaves
#     nothing in /sys/fs/bpf. The route tables are quoted at each step.
title="upgrade from the route variant: hooks and windows taken back, another link's route untouched"
estimate=300

image_packages="ifupdown bpftool python3"

upgrade_files() {
	local dir=$1
	cat >"$dir/vm-links.service" <<'UNIT'
[Unit]
Description=Two dummy links for ifupdown
Before=networking.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/sbin/ip link add vs0 address 02:00:00:00:26:0a type dummy
ExecStart=/usr/sbin/ip link add vu0 address 02:00:00:00:26:0b type dummy

[Install]
WantedBy=multi-user.target
UNIT
	cat >"$dir/vm-links.interfaces" <<'IFACES'
auto vs0
iface vs0 inet static
	address 203.0.113.10/24
	gateway 203.0.113.1
	metric 100

auto vu0
iface vu0 inet static
	address 198.51.100.10/24
	gateway 198.51.100.1
	metric 200
IFACES
}

upgrade_boot() {
	upgrade_files "$(share upgrade)"
	boot upgrade "$(disk initwnd-upgrade)" 2 <<'GUEST'
route_tables() {
	{ ip route show table all; ip -6 route show table all; } >"/host/$1.routes"
	sed "s/^/#   ip route ($1): /" "/host/$1.routes"
}
hook=/etc/network/if-up.d/wp-panel-nettune
install -m 0644 /host/vm-links.service /etc/systemd/system/vm-links.service
install -m 0644 /host/vm-links.interfaces /etc/network/interfaces.d/vm-links
check "the links" systemctl enable --now vm-links.service
check "ifup vs0 vu0" ifup vs0 vu0
route_tables before-install
purge_baseline

check "the route variant, $ROUTE_VERSION: apt-get install /host/pkg-route.deb" \
	apt_get install-route install /host/pkg-route.deb
check "its hook is in if-up.d" test -x "$hook"
route_tables after-route-install
check_match "vs0's default route has its windows" \
	'^default via 203\.0\.113\.1 dev vs0 metric 100 onlink initcwnd 32 initrwnd 32 $' "$(cat /host/after-route-install.routes)"
check_match "and vu0's" \
	'^default via 198\.51\.100\.1 dev vu0 metric 200 onlink initcwnd 32 initrwnd 32 $' "$(cat /host/after-route-install.routes)"
check_match "its journal records vs0" '^windows	vs0	32	32$' "$(cat "$NT_JOURNAL")"
check_match "and the hook" "^added	$hook	" "$(cat "$NT_JOURNAL")"
# Every other route as before.
sed 's/ initcwnd 32 initrwnd 32 / /' /host/after-route-install.routes >/tmp/no-windows.routes
check_same "the route variant: the routes but for the windows as before" \
	/host/before-install.routes /tmp/no-windows.routes

# Another link, no manager's, with vs0's metric.
ip link add nta address 02:00:00:00:26:0c type dummy
ip link set nta up
ip addr add 192.0.2.10/24 dev nta
check "nta's default route, metric 100" ip route append default via 192.0.2.1 dev nta metric 100
route_tables before-upgrade

check "the new package over it: apt-get install /host/pkg.deb" apt_get install install /host/pkg.deb
check_eq "an upgrade from $ROUTE_VERSION to $PKG_VERSION" "$PKG_VERSION" \
	"$(dpkg-query -W -f '${Version}' wp-panel-nettune)"
grep -A20 '^Taking back' /host/install.log | sed 's/^/#   install: /'
said "it says it takes back what the route variant wrote" install \
	"^Taking back what an earlier version wrote for the routes' initial windows:$"
said "the hook removed" install "^Removed $hook\\.\$"
check "the hook is gone" test ! -e "$hook"
said "vu0's windows taken off" install \
	'^route default via 198\.51\.100\.1 dev vu0 metric 200: initial windows taken off\.$'
said "vs0's left, and why" install \
	'^route default via 203\.0\.113\.1 dev vs0 metric 100: initial windows 32 and 32 left on it: another default route has its metric'
route_tables after-upgrade
check_eq "nta's route byte for byte as before" \
	"$(grep 'dev nta' /host/before-upgrade.routes)" "$(grep 'dev nta' /host/after-upgrade.routes)"
sed '/dev vu0/s/ initcwnd 32 initrwnd 32 / /' /host/before-upgrade.routes >/tmp/want.routes
check_same "every route but vu0's windows as before the upgrade" /tmp/want.routes /host/after-upgrade.routes
wp-panel-nettune journal >/host/journal.log 2>&1
check "wp-panel-nettune journal: no added or windows step" \
	sh -c '! grep -Eq "^(added|windows)[[:space:]]" /host/journal.log'
check "nor the journal's file" sh -c "! grep -Eq '^(added|windows)	' $NT_JOURNAL"
bpftool cgroup tree /sys/fs/cgroup | sed 's/^/#   bpftool cgroup tree: /'
# The windows the routes gave are not given again another way: the shipped
# setting names no port, so no program is attached either.
check "no program attached" sh -c '! bpftool cgroup tree /sys/fs/cgroup | grep -q nettune_initwnd'
check_status_ok "after the upgrade"
grep '^initial windows' /host/status.log | sed 's/^/#   status: /'
said "status: the windows left to the kernel" status \
	'^initial windows: left to the kernel: /etc/wp-panel-nettune/initial-window-ports names no port$'

# nta goes first: while its route holds the key (metric 100), ifup could
# not add vs0's (EEXIST). Taking a link down and up lists its IPv6 routes
# last, so from here the tables are compared sorted.
check "ip link del nta" ip link del nta
check "ifdown vs0" ifdown vs0
check "ifup vs0" ifup vs0
route_tables after-ifup
sort /host/before-install.routes >/tmp/before-install.sorted
sort /host/after-ifup.routes >/tmp/after-ifup.sorted
check_same "vs0 brought up again, nta gone: the routes of before the first install (sorted)" \
	/tmp/before-install.sorted /tmp/after-ifup.sorted

check "purge" apt_get purge purge wp-panel-nettune
route_tables after-purge
check_same "after the purge: the routes byte for byte as before it" \
	/host/after-ifup.routes /host/after-purge.routes
check "nothing of the package in /sys/fs/bpf" test ! -e /sys/fs/bpf/wp-panel-nettune
check "no sock_ops program left" sh -c '! bpftool cgroup tree /sys/fs/cgroup | grep -q nettune_initwnd'
check_purge_restored
GUEST
}

scenario() {
	with_image "$image_packages" upgrade_boot
}
