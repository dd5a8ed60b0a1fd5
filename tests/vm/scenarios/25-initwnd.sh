# shellcheck shell=bash disable=SC2034 # title, estimate and needs are read by tests/vm/run
# 25. The initial windows through the sock_ops program, on 2 vCPUs (fq), in
#     an image with ifupdown (a Debian server's network), bpftool and
#     python3, and no NIC. A unit makes, at every boot, two dummy links, nta
#     and ntb, each with an IPv4 default route of metric 100 and an IPv6
#     one (100 and 200: IPv6 takes a second route of a metric only as a
#     multipath one),
#     a ToS default route, and the administrator's own route with initcwnd
#     32 initrwnd 32: `ip route show table all` and `ip -6 route show table
#     all` are quoted and byte for byte the same before the install, after
#     it, after a reboot and after the purge. The install attaches nothing
#     (the shipped setting names no port) and status says so; once the
#     administrator lists ports 80 and 443 and runs initwnd, bpftool
#     lists nettune_initwnd on /sys/fs/cgroup (sock_ops, multi) and the
#     listing is otherwise the one before (systemd's programs stay); the
#     server side of fresh connections to port 80 over IPv4 and IPv6 shows
#     cwnd:32 in `ss -tin`, the client side of the same connections and a
#     server on port 8080 keep cwnd:10; status exits 0 and says attached,
#     given N times (N > 0). The reboot is a real one: the unit attached it
#     again, the same checks. Run without CAP_BPF, CAP_SYS_ADMIN and
#     CAP_NET_ADMIN, initwnd says in one line that the kernel refused it
#     (libbpf's own lines only with -v), status says why and exits 0, and
#     initwnd attaches it again; the postinst's abort-remove attaches
#     what the prerm's remove detached. Purge: nothing in /sys/fs/bpf of the
#     package, bpftool's listing as before, /etc/wp-panel-nettune gone,
#     /etc, /var/lib, /usr and /proc/sys/net as before.
title="initial windows by the sock_ops program: ss cwnd, bpftool, routes untouched, reboot, purge"
estimate=400

image_packages="ifupdown bpftool python3"

# The links and routes, at every boot; the web servers and clients.
initwnd_files() {
	local dir=$1
	cat >"$dir/vm-routes" <<'SH'
#!/bin/sh
set -e
ip link add nta address 02:00:00:00:25:0a type dummy
ip link add ntb address 02:00:00:00:25:0b type dummy
ip link set nta up
ip link set ntb up
ip addr add 192.0.2.10/24 dev nta
ip addr add 198.51.100.10/24 dev ntb
ip -6 addr add 2001:db8:a::10/64 dev nta nodad
ip -6 addr add 2001:db8:b::10/64 dev ntb nodad
ip route add default via 192.0.2.1 dev nta metric 100
ip route append default via 198.51.100.1 dev ntb metric 100
ip route add default tos 0x10 via 198.51.100.1 dev ntb metric 100
ip route add default via 192.0.2.1 dev nta metric 300 initcwnd 32 initrwnd 32
ip -6 route add default via 2001:db8:a::1 dev nta metric 100
ip -6 route add default via 2001:db8:b::1 dev ntb metric 200
SH
	cat >"$dir/vm-routes.service" <<'UNIT'
[Unit]
Description=Two dummy links with default routes of equal metric, a ToS route and an administrator's windows
Before=networking.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/vm-routes

[Install]
WantedBy=multi-user.target
UNIT
}

guest_lib() {
	cat <<'GUEST'
# route_tables NAME: both tables whole into /host/NAME.routes, quoted.
route_tables() {
	{ ip route show table all; ip -6 route show table all; } >"/host/$1.routes"
	sed "s/^/#   ip route ($1): /" "/host/$1.routes"
}
# cgroup_tree NAME: bpftool's listing of the cgroup tree into /host/NAME.cgroups,
# and without the program's line into NAME.others.
cgroup_tree() {
	bpftool cgroup tree /sys/fs/cgroup >"/host/$1.cgroups" 2>&1
	grep -v -e ' nettune_initwnd *$' -e '^/sys/fs/cgroup *$' "/host/$1.cgroups" >"/host/$1.others"
	sed "s/^/#   bpftool cgroup tree ($1): /" "/host/$1.cgroups"
}
# without_ids FILE: bpftool's listing less the programs' ids, which each boot
# gives anew.
without_ids() { awk '$1 ~ /^[0-9]+$/ { $1 = "" } { print }' "$1"; }
# cwnd_of FILTER: the cwnd of the one established socket ss finds, its
# lines quoted.
cwnd_of() {
	ss -Htin state established "$1" >/tmp/ss.out
	sed "s/^/#   ss -tin ($1): /" /tmp/ss.out >&2
	grep -o 'cwnd:[0-9]*' /tmp/ss.out | head -n 1
}
# connections WHEN: servers on 127.0.0.1:80, [::1]:80 and 127.0.0.1:8080,
# a fresh connection to each held open, and the windows of both sides.
connections() {
	_pids=
	for _s in 127.0.0.1:80 ::1:80 127.0.0.1:8080; do
		python3 -m http.server --bind "${_s%:*}" "${_s##*:}" >/dev/null 2>&1 &
		_pids="$_pids $!"
	done
	# Python starts slowly under emulation: up to 60 s for the three.
	_i=0
	while [ "$(ss -Hltn 'sport = :80 or sport = :8080' | wc -l)" -lt 3 ] && [ "$_i" -lt 60 ]; do
		sleep 1
		_i=$((_i + 1))
	done
	python3 -c 'import socket, time
s = [socket.create_connection(a) for a in (("127.0.0.1", 80), ("::1", 80), ("127.0.0.1", 8080))]
time.sleep(30)' &
	_pids="$_pids $!"
	sleep 3
	check_eq "$1: IPv4, the server side of a connection to port 80" cwnd:32 \
		"$(cwnd_of 'src 127.0.0.1:80')"
	check_eq "$1: IPv6, the server side of a connection to port 80" cwnd:32 \
		"$(cwnd_of 'src [::1]:80')"
	check_eq "$1: the client side of that IPv4 connection (active) keeps the kernel's" cwnd:10 \
		"$(cwnd_of 'dst 127.0.0.1:80')"
	check_eq "$1: the client side of the IPv6 one" cwnd:10 "$(cwnd_of 'dst [::1]:80')"
	check_eq "$1: the server side of a connection to port 8080 keeps the kernel's" cwnd:10 \
		"$(cwnd_of 'src 127.0.0.1:8080')"
	# shellcheck disable=SC2086 # a list of pids
	kill $_pids 2>/dev/null
	# shellcheck disable=SC2086
	wait $_pids 2>/dev/null || true
}
# attached WHEN: the program as bpftool and status see it.
attached() {
	cgroup_tree "$1"
	check_eq "$1: bpftool lists nettune_initwnd on /sys/fs/cgroup, sock_ops, multi" \
		"/sys/fs/cgroup cgroup_sock_ops multi nettune_initwnd" \
		"$(awk '/^\// { p = $1 } / nettune_initwnd *$/ { print p, $(NF - 2), $(NF - 1), $NF }' "/host/$1.cgroups")"
	check_eq "$1: the pins" "given link ports prog windows" "$(ls /sys/fs/bpf/wp-panel-nettune | tr '\n' ' ' | sed 's/ $//')"
	connections "$1"
	check_status_ok "$1"
	said "$1: status says attached and given" status \
		'^initial windows: 32 and 32 for new connections to ports 80 and 443, attached to /sys/fs/cgroup \(program [0-9]+\), given [1-9][0-9]* times$'
	grep '^initial windows' /host/status.log | sed "s/^/#   status ($1): /"
}
GUEST
}

initwnd_boot() {
	initwnd_files "$(share install)"
	boot install "$(disk initwnd)" 2 < <(
		guest_lib
		cat <<'GUEST'
check_eq "2 vCPUs" 2 "$(nproc)"
install -m 0755 /host/vm-routes /usr/local/sbin/vm-routes
install -m 0644 /host/vm-routes.service /etc/systemd/system/vm-routes.service
check "the links and routes" systemctl enable --now vm-routes.service
route_tables before-install
cgroup_tree before-install
check "systemd's programs are listed" grep -q . /host/before-install.others
purge_baseline

check "DEBIAN_FRONTEND=noninteractive apt-get install -y /host/pkg.deb" \
	apt_get install install /host/pkg.deb
said "the install attaches nothing: the shipped setting names no port" install \
	'^Initial windows: /etc/wp-panel-nettune/initial-window-ports names no port; the program is not attached\.$'
check "nothing pinned" test ! -e /sys/fs/bpf/wp-panel-nettune
check "status exits 0" logged status-default wp-panel-nettune status
said "status: left to the kernel" status-default \
	'^initial windows: left to the kernel: /etc/wp-panel-nettune/initial-window-ports names no port$'
# The administrator gives the web ports the windows, as the file says to.
check "the web ports listed" sed -i 's/^#80 443$/80 443/' /etc/wp-panel-nettune/initial-window-ports
check_eq "the setting's one line" "80 443" "$(grep -v '^#' /etc/wp-panel-nettune/initial-window-ports)"
check "initwnd" logged initwnd wp-panel-nettune initwnd
said "initwnd attaches the program" initwnd \
	'^Initial windows 32 and 32 for new connections to ports 80 and 443: attached to /sys/fs/cgroup\.$'
route_tables after-install
check_same "after the install: the routes byte for byte as before" \
	/host/before-install.routes /host/after-install.routes
attached after-install
check_same "after the install: bpftool's listing but the program's line as before" \
	/host/before-install.others /host/after-install.others
GUEST
	) || return 1
	cp "$(share install)"/before.* "$(share install)"/before-install.* "$(share reboot)/"
	boot reboot "$(disk initwnd)" 2 < <(
		guest_lib
		cat <<'GUEST'
check_eq "the unit attached it at boot" "active success" \
	"$(systemctl show -p ActiveState --value wp-panel-nettune-initwnd.service) $(systemctl show -p Result --value wp-panel-nettune-initwnd.service)"
journalctl -b -o cat -u wp-panel-nettune-initwnd.service | sed 's/^/#   wp-panel-nettune-initwnd: /'
route_tables after-reboot
check_same "after the reboot: the routes byte for byte as before the install" \
	/host/before-install.routes /host/after-reboot.routes
attached after-reboot
without_ids /host/before-install.others >/tmp/before.noid
without_ids /host/after-reboot.others >/tmp/reboot.noid
check_same "after the reboot: bpftool's listing but the program's line as before the install (less the ids)" \
	/tmp/before.noid /tmp/reboot.noid

# A refusal: initwnd run without the capabilities bpf() asks for (gone from
# the bounding set, so root's exec keeps none of them). One line of the
# helper's says why; libbpf's own lines come only with -v.
check "initwnd --detach" logged detach wp-panel-nettune initwnd --detach
drop_bpf="setpriv --bounding-set=-bpf,-sys_admin,-perfmon,-net_admin"
check "initwnd without CAP_BPF, CAP_SYS_ADMIN and CAP_NET_ADMIN exits 0" logged refused \
	$drop_bpf wp-panel-nettune initwnd
sed 's/^/#   initwnd (refused): /' /host/refused.log
said "initwnd says why the program is not attached" refused \
	'^Initial windows left to the kernel: the kernel refused BPF \(EPERM\)'
check_eq "and says it in one line, none of libbpf's" 1 "$(wc -l </host/refused.log)"
check "initwnd -v, refused the same way" logged refused-v $drop_bpf wp-panel-nettune -v initwnd
said "with -v, libbpf's lines follow the helper's prefix" refused-v '^wp-panel-nettune: initwnd: libbpf: '
check "status exits 0 with the refusal" logged status wp-panel-nettune status
said "status says why the windows are the kernel's" status \
	'^initial windows: left to the kernel: the kernel refused BPF \(EPERM\)'
check "initwnd attaches it again" logged attach-again wp-panel-nettune initwnd
said "attached again" attach-again '^Initial windows 32 and 32 for new connections to ports 80 and 443: attached to /sys/fs/cgroup\.$'

# A removal that fails after the prerm: dpkg runs the postinst's
# abort-remove, which attaches the program the prerm detached.
check "the prerm, remove" logged prerm /var/lib/dpkg/info/wp-panel-nettune.prerm remove
check "the prerm detached it" test ! -e /sys/fs/bpf/wp-panel-nettune/link
check "the postinst, abort-remove" logged abort-remove \
	/var/lib/dpkg/info/wp-panel-nettune.postinst abort-remove
said "abort-remove attaches it again" abort-remove \
	'^Initial windows 32 and 32 for new connections to ports 80 and 443: attached to /sys/fs/cgroup\.$'
check "the link is pinned again" test -e /sys/fs/bpf/wp-panel-nettune/link

check "purge" apt_get purge purge wp-panel-nettune
check "nothing of the package in /sys/fs/bpf" test ! -e /sys/fs/bpf/wp-panel-nettune
ls -A /sys/fs/bpf | sed 's/^/#   ls \/sys\/fs\/bpf: /'
cgroup_tree after-purge
check_same "after the purge: bpftool's listing as before it, less the program" \
	/host/after-reboot.others /host/after-purge.cgroups
without_ids /host/after-purge.cgroups >/tmp/purge.noid
check_same "and as before the install (less the ids)" /tmp/before.noid /tmp/purge.noid
check "/etc/wp-panel-nettune is gone" test ! -e /etc/wp-panel-nettune
route_tables after-purge
check_same "after the purge: the routes byte for byte as before the install" \
	/host/before-install.routes /host/after-purge.routes
check_purge_restored
GUEST
	)
}

scenario() {
	with_image "$image_packages" initwnd_boot
}
