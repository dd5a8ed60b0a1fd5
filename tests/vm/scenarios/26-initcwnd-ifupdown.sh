# shellcheck shell=bash disable=SC2034 # title, estimate and needs are read by tests/vm/run
# 26. The initial windows through ifupdown, on 2 vCPUs (fq), in an image with
#     ifupdown, dhcpcd-base (the DHCP client of a new Debian 13 install) and
#     dnsmasq, and no NIC (so no systemd-networkd). A unit makes, at every
#     boot before ifupdown, two veths whose peers sit in a network namespace
#     of their own: vt0, for which dnsmasq there serves DHCP with a router,
#     and vs0, configured statically with a gateway; /etc/network/interfaces.d
#     has "iface vt0 inet dhcp" and "iface vs0 inet static". `ip route show`
#     is quoted in the guest output before the install, after it, after a
#     DHCP renewal, after ifdown and ifup, after a reboot and after the purge.
#     After the install both default routes have initcwnd 32 and initrwnd
#     32, given by the helper; the hooks are in if-up.d and
#     /etc/dhcpcd.exit-hook (at boot dhcpcd adds the route after ifup is
#     done, so only its own hook gives it the windows then), the journal
#     records both interfaces; status exits 0. A renewal (dhcpcd -n,
#     answered by dnsmasq) keeps them; ifdown and ifup give them again
#     through the hook, and so does the next boot, a real one. Purge removes
#     the hook and takes the windows off: the routes are byte for byte those
#     before the install, and /etc, /var/lib, /usr and /proc/sys/net are as
#     before.
title="initial windows through ifupdown: DHCP renewal, ifup, reboot, purge"
estimate=600

image_packages="ifupdown dhcpcd-base dnsmasq-base"

# The guest's own DHCP server and gateway, at every boot, before ifupdown.
lan_setup() {
	local dir
	dir=$(share install)
	lan_unit networking.service 02:00:00:00:26:01 10m static >"$dir/vm-lan.service"
	cat >"$dir/vm-lan.interfaces" <<'IFACES'
auto vt0
iface vt0 inet dhcp

auto vs0
iface vs0 inet static
	address 203.0.113.10/24
	gateway 203.0.113.1
IFACES
}

# What both boots' scripts begin with.
guest_lib() {
	cat <<'GUEST'
hook=/etc/network/if-up.d/wp-panel-nettune
GUEST
}

ifupdown_boot() {
	lan_setup
	boot install "$(disk ifupdown)" 2 < <(
		guest_lib
		cat <<'GUEST'
install -m 0644 /host/vm-lan.service /etc/systemd/system/vm-lan.service
install -m 0644 /host/vm-lan.interfaces /etc/network/interfaces.d/vm-lan
check "the DHCP server and gateway in their namespace start" systemctl enable --now vm-lan.service
check "ifup -a" ifup -a
routes before-install vt0 vs0
check_match "vt0's default route, from dhcpcd, no window" \
	'^default via 198\.51\.100\.1 dev vt0 proto dhcp src 198\.51\.100\.50 metric [0-9]+ $' \
	"$(grep 'default.*vt0' /host/before-install.routes)"
check_match "vs0's default route, from ifupdown's gateway (onlink), no window" \
	'^default via 203\.0\.113\.1 dev vs0 onlink $' "$(grep 'default.*vs0' /host/before-install.routes)"
check_eq "ifupdown configures both (and lo)" "lo vs0 vt0" "$(ls /run/network | sed -n 's/^ifstate\.//p' | sort | tr '\n' ' ' | sed 's/ $//')"
purge_baseline

check "DEBIAN_FRONTEND=noninteractive apt-get install -y /host/pkg.deb" \
	apt_get install install /host/pkg.deb
check_windows after-install
said "the install writes the hook" install "^Wrote $hook\\.\$"
said "and dhcpcd's exit hook, for new leases" install '^Wrote /etc/dhcpcd\.exit-hook\.$'
said "and gives vt0's route the windows" install \
	'^route default via 198\.51\.100\.1 dev vt0: initial windows 32 and 32, given\.$'
check_eq "the hook: executable, root's" "755 root:root" "$(stat -c '%a %U:%G' "$hook")"
check_match "the journal records vt0" '^windows	vt0	32	32$' "$(cat "$NT_JOURNAL")"
check_match "and vs0" '^windows	vs0	32	32$' "$(cat "$NT_JOURNAL")"
check_status_ok "after install"
said "status: vt0's route, the package's windows" status \
	"^  the package's, from $hook \\(ifupdown\\)\$"

acks_before=$(dhcp_acks)
check "dhcpcd -n vt0 (renew)" dhcpcd -n vt0
dhcp_answered "$acks_before" 30
sleep 2
check_windows after-renewal

check "ifdown vt0 vs0" ifdown vt0 vs0
check "ifup vt0 vs0" ifup vt0 vs0
check_windows after-ifup
GUEST
	) || return 1
	cp "$(share install)"/before.* "$(share install)/before-install.routes" "$(share reboot)/"
	boot reboot "$(disk ifupdown)" 2 < <(
		guest_lib
		cat <<'GUEST'
check_windows after-reboot
check_status_ok "after a reboot"

check "purge" apt_get purge purge wp-panel-nettune
said "purge removes the hook" purge "^wp-panel-nettune: removed $hook\$"
said "and dhcpcd's" purge '^wp-panel-nettune: removed /etc/dhcpcd\.exit-hook$'
check "dhcpcd's exit hook is gone" test ! -e /etc/dhcpcd.exit-hook
said "and takes the windows off vt0's route" purge \
	'^wp-panel-nettune: vt0: took the initial windows off the route default via 198\.51\.100\.1'
routes after-purge vt0 vs0
check_same "the routes after the purge, byte for byte those before the install" \
	/host/before-install.routes /host/after-purge.routes
check_purge_restored
GUEST
	)
}

scenario() {
	with_image "$image_packages" ifupdown_boot
}
