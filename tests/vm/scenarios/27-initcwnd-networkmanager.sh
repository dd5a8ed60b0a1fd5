# shellcheck shell=bash disable=SC2034 # title, estimate and needs are read by tests/vm/run
# 27. The initial windows through NetworkManager, on 2 vCPUs (fq), in an
#     image with network-manager (its own DHCP client) and dnsmasq, and
#     no NIC (so no systemd-networkd link). A unit makes, at every boot
#     before NetworkManager, two veths whose peers sit in a network
#     namespace of their own: vt0, for which dnsmasq there serves DHCP
#     with a router and a 2-minute lease, and vs0, configured statically
#     with a gateway; two keyfile profiles (ipv4.method auto and manual,
#     each with a route metric of its own, so that the routes do not
#     depend on the order the connections come up in) and a conf.d file
#     that has NetworkManager manage both (its udev rules leave veths
#     alone). `ip route show` is quoted in the guest output before the
#     install, after it, after a DHCP renewal, after the connections went
#     down and up, after a reboot and after the purge. After the install
#     both default routes have initcwnd 32 and initrwnd 32, given by the
#     helper; the dispatcher script is in
#     /etc/NetworkManager/dispatcher.d, the journal records both
#     interfaces; status exits 0. The lease's own renewal
#     (NetworkManager's client, at half the lease, answered by dnsmasq)
#     keeps them: NetworkManager adds its route again beside the one with
#     the windows, and the script deletes that one, so that one route is
#     left and status exits 0; down and up give them again through the
#     script, and so does the next boot, a real one. Purge removes the
#     script and takes the windows off: the routes are byte for byte
#     those before the install, and /etc, /var/lib, /usr and
#     /proc/sys/net are as before.
title="initial windows through NetworkManager: DHCP renewal, down and up, reboot, purge"
estimate=600

image_packages="network-manager dnsmasq-base"

# The guest's own DHCP server and gateway, and NetworkManager's profiles.
lan_setup() {
	local dir
	dir=$(share install)
	lan_unit NetworkManager.service 02:00:00:00:27:01 2m static >"$dir/vm-lan.service"
	printf '[device-vm-lan]\nmatch-device=interface-name:vt0;interface-name:vs0\nmanaged=1\n' \
		>"$dir/vm-lan.conf"
	printf '[connection]\nid=vt0\ntype=ethernet\ninterface-name=vt0\n\n[ipv4]\nmethod=auto\nroute-metric=100\n\n[ipv6]\nmethod=disabled\n' \
		>"$dir/vt0.nmconnection"
	printf '[connection]\nid=vs0\ntype=ethernet\ninterface-name=vs0\n\n[ipv4]\nmethod=manual\naddress1=203.0.113.10/24,203.0.113.1\nroute-metric=200\n\n[ipv6]\nmethod=disabled\n' \
		>"$dir/vs0.nmconnection"
}

# What both boots' scripts begin with.
guest_lib() {
	cat <<'GUEST'
script=/etc/NetworkManager/dispatcher.d/50-wp-panel-nettune
GUEST
}

networkmanager_boot() {
	lan_setup
	boot install "$(disk networkmanager)" 2 < <(
		guest_lib
		cat <<'GUEST'
install -m 0644 /host/vm-lan.service /etc/systemd/system/vm-lan.service
install -m 0644 /host/vm-lan.conf /etc/NetworkManager/conf.d/vm-lan.conf
install -m 0600 /host/vt0.nmconnection /host/vs0.nmconnection /etc/NetworkManager/system-connections/
check "the DHCP server and gateway in their namespace start" systemctl enable --now vm-lan.service
check "NetworkManager restarts with the profiles" systemctl restart NetworkManager.service
routes before-install vt0 vs0
nmcli -t -f DEVICE,STATE,CONNECTION device 2>&1 | sed 's/^/#   nmcli device: /'
for _if in vt0 vs0; do
	check_eq "NetworkManager's state file of $_if says it manages it" managed=true \
		"$(grep '^managed=' "/run/NetworkManager/devices/$(cat /sys/class/net/$_if/ifindex)")"
done
check_match "vt0's default route, from NetworkManager's DHCP client, no window" \
	'^default via 198\.51\.100\.1 dev vt0 proto dhcp src 198\.51\.100\.50 metric [0-9]+ $' \
	"$(grep 'default.*vt0' /host/before-install.routes)"
check_match "vs0's default route, from its static profile, no window" \
	'^default via 203\.0\.113\.1 dev vs0 proto static metric [0-9]+ $' "$(grep 'default.*vs0' /host/before-install.routes)"
purge_baseline

check "DEBIAN_FRONTEND=noninteractive apt-get install -y /host/pkg.deb" \
	apt_get install install /host/pkg.deb
check_windows after-install
said "the install writes the dispatcher script" install "^Wrote $script\\.\$"
said "and gives vt0's route the windows" install \
	'^route default via 198\.51\.100\.1 dev vt0: initial windows 32 and 32, given\.$'
said "and vs0's" install \
	'^route default via 203\.0\.113\.1 dev vs0: initial windows 32 and 32, given\.$'
check_eq "the script: executable, root's, as NetworkManager wants" "755 root:root" "$(stat -c '%a %U:%G' "$script")"
check_match "the journal records vt0" '^windows	vt0	32	32$' "$(cat "$NT_JOURNAL")"
check_match "and vs0" '^windows	vs0	32	32$' "$(cat "$NT_JOURNAL")"
check_status_ok "after install"
said "status: vt0's route, the package's windows" status \
	"^  the package's, from $script \\(NetworkManager\\)\$"

# The lease is 2 minutes: NetworkManager's client renews it after one.
acks_before=$(dhcp_acks)
ip monitor route >/tmp/renewal.routes 2>&1 &
monitor=$!
dhcp_answered "$acks_before" 150
check_windows after-renewal
# NetworkManager adds its route again at the renewal, beside the one with
# the windows (the kernel keeps both: they differ in their metrics); the
# dispatcher script's "windows vt0" deletes the one without.
_i=0
while [ "$(ip route show default dev vt0 | wc -l)" -gt 1 ] && [ "$_i" -lt 30 ]; do
	sleep 1
	_i=$((_i + 1))
done
kill "$monitor"
sed 's/^/#   ip monitor route, at the renewal: /' /tmp/renewal.routes
ip route show default dev vt0 | sed 's/^/#   ip route show default dev vt0: /'
check_eq "after the renewal: one default route through vt0" 1 "$(ip route show default dev vt0 | wc -l)"
check_status_ok "after the renewal"

check "nmcli connection down vt0" nmcli connection down vt0
check "nmcli connection down vs0" nmcli connection down vs0
check "nmcli connection up vt0" nmcli connection up vt0
check "nmcli connection up vs0" nmcli connection up vs0
check_windows after-up
GUEST
	) || return 1
	cp "$(share install)"/before.* "$(share install)/before-install.routes" "$(share reboot)/"
	boot reboot "$(disk networkmanager)" 2 < <(
		guest_lib
		cat <<'GUEST'
check_windows after-reboot
check_status_ok "after a reboot"

check "purge" apt_get purge purge wp-panel-nettune
said "purge removes the dispatcher script" purge "^wp-panel-nettune: removed $script\$"
said "and takes the windows off vt0's route" purge \
	'^wp-panel-nettune: vt0: took the initial windows off the route default via 198\.51\.100\.1'
said "and vs0's" purge \
	'^wp-panel-nettune: vs0: took the initial windows off the route default via 203\.0\.113\.1'
routes after-purge vt0 vs0
check_same "the routes after the purge, byte for byte those before the install" \
	/host/before-install.routes /host/after-purge.routes
check_purge_restored
GUEST
	)
}

scenario() {
	with_image "$image_packages" networkmanager_boot
}
