# shellcheck shell=bash disable=SC2034 # title, estimate and needs are read by tests/vm/run
# 25. The initial windows through systemd-networkd, on 2 vCPUs (fq), in an
#     image with D-Bus (networkctl reload needs it) and dnsmasq. Two links:
#     the image's own NIC, configured statically by networkd (Gateway= in
#     80-vm-nic.network), and vt0, a veth whose peer is in a network
#     namespace of its own where dnsmasq serves DHCP with a router (a unit
#     the guest enables, so that it is there again at the next boot);
#     50-lan.network says DHCP=ipv4 for vt0. `ip route show` is quoted
#     before the install, after it, after a DHCP renewal, after a reboot and
#     after the purge, in each boot's guest output (build/vm-logs).
#     After the install: vt0's default route has initcwnd 32 and initrwnd
#     32, through the drop-in 50-lan.network.d/50-wp-panel-nettune.conf,
#     recorded in the journal; the static route is as it was, and status
#     says why it is left alone; status exits 0. A renewal (networkctl
#     renew, answered by dnsmasq: one more DHCPACK in its log) keeps them.
#     The second boot is a real one: networkd gives the route the windows
#     from the drop-in; status exits 0. Purge removes the drop-in and its
#     directory, networkd's reload takes the windows away: the routes are
#     byte for byte those before the install, and /etc, /var/lib, /usr and
#     /proc/sys/net are as before.
title="initial windows through systemd-networkd: DHCP renewal, reboot, purge"
estimate=600

image_packages="dbus dnsmasq-base"

# The guest's own DHCP server, at every boot: vt0 here, vt1 in the namespace
# "lan" with 198.51.100.1, which dnsmasq hands out as the router, and a
# fixed lease for vt0's address.
lan_setup() {
	local dir
	dir=$(share install)
	lan_unit systemd-networkd.service 02:00:00:00:25:01 10m >"$dir/vm-lan.service"
	printf '[Match]\nName=vt0\n\n[Network]\nDHCP=ipv4\nLinkLocalAddressing=no\nIPv6AcceptRA=no\n' \
		>"$dir/50-lan.network"
}

# What both boots' scripts begin with.
guest_lib() {
	cat <<'GUEST'
dropin=/etc/systemd/network/50-lan.network.d/50-wp-panel-nettune.conf
GUEST
}

networkd_boot() {
	lan_setup
	VM_NIC=1 boot install "$(disk networkd)" 2 < <(
		guest_lib
		cat <<'GUEST'
install -m 0644 /host/vm-lan.service /etc/systemd/system/vm-lan.service
install -m 0644 /host/50-lan.network /etc/systemd/network/50-lan.network
check "the DHCP server in its namespace starts" systemctl enable --now vm-lan.service
networkctl reload
routes before-install vt0
check_match "vt0's default route, from DHCP, the kernel's windows" \
	'^default via 198\.51\.100\.1 dev vt0 proto dhcp src 198\.51\.100\.50 metric 1024 $' \
	"$(grep vt0 /host/before-install.routes)"
check_match "the NIC's static default route" '^default via 10\.0\.2\.2 dev ens2 proto static $' \
	"$(cat /host/before-install.routes)"
# The files and values with the DHCP server's link, before the package's.
purge_baseline

check "DEBIAN_FRONTEND=noninteractive apt-get install -y /host/pkg.deb" \
	apt_get install install /host/pkg.deb
routes after-install vt0
said "the install gives vt0's route the windows, through the drop-in" install \
	"^route default via 198\.51\.100\.1 dev vt0: initial windows 32 and 32, through $dropin\.\$"
said "and says why it leaves the NIC's alone" install \
	"^route default via 10\.0\.2\.2 dev ens2: initial windows left alone: systemd-networkd adds it from /etc/systemd/network/80-vm-nic\.network"
said "networkd reloaded" install '^systemd-networkd reloaded its configuration\.$'
check_match "vt0's default route has them" \
	'^default via 198\.51\.100\.1 dev vt0 proto dhcp src 198\.51\.100\.50 metric 1024 initcwnd 32 initrwnd 32 $' \
	"$(grep vt0 /host/after-install.routes)"
check_eq "the NIC's route as before" "$(grep ens2 /host/before-install.routes)" \
	"$(grep ens2 /host/after-install.routes)"
check_eq "the drop-in" "[DHCPv4]|InitialCongestionWindow=32|InitialAdvertisedReceiveWindow=32|" \
	"$(sed '/^#/d' "$dropin" | tr '\n' '|')"
check_eq "networkd reads it" "$dropin" \
	"$(sed -n 's/^NETWORK_FILE_DROPINS="\(.*\)"$/\1/p' "/run/systemd/netif/links/$(cat /sys/class/net/vt0/ifindex)")"
check_match "the journal records it" \
	"^added	$dropin	added/50-lan\\.conf	new-dir\$" "$(cat "$NT_JOURNAL")"
check_status_ok "after install"
said "status: vt0's route, the package's windows" status \
	"^  the package's, from $dropin \\(systemd-networkd\\)\$"
said "status: the NIC's route left alone, and why" status \
	'^  left alone: systemd-networkd adds it from /etc/systemd/network/80-vm-nic\.network \(Gateway= or \[Route\]\)'

acks_before=$(dhcp_acks)
check "networkctl renew vt0" networkctl renew vt0
dhcp_answered "$acks_before" 30
sleep 2
routes after-renewal vt0
check_match "after the renewal: the windows" \
	'^default via 198\.51\.100\.1 dev vt0 proto dhcp src 198\.51\.100\.50 metric 1024 initcwnd 32 initrwnd 32 $' \
	"$(grep vt0 /host/after-renewal.routes)"
GUEST
	) || return 1
	cp "$(share install)"/before.* "$(share install)/before-install.routes" "$(share reboot)/"
	VM_NIC=1 boot reboot "$(disk networkd)" 2 < <(
		guest_lib
		cat <<'GUEST'
routes after-reboot vt0
check_match "after a reboot: networkd gives the route the windows" \
	'^default via 198\.51\.100\.1 dev vt0 proto dhcp src 198\.51\.100\.50 metric 1024 initcwnd 32 initrwnd 32 $' \
	"$(grep vt0 /host/after-reboot.routes)"
check_status_ok "after a reboot"

check "purge" apt_get purge purge wp-panel-nettune
said "purge removes the drop-in" purge "^wp-panel-nettune: removed $dropin\$"
said "and has networkd reload" purge '^wp-panel-nettune: systemd-networkd reloaded'
sleep 3
routes after-purge vt0
check_same "the routes after the purge, byte for byte those before the install" \
	/host/before-install.routes /host/after-purge.routes
check "the drop-in's directory is gone" test ! -e /etc/systemd/network/50-lan.network.d
check_purge_restored
GUEST
	)
}

scenario() {
	with_image "$image_packages" networkd_boot
}
