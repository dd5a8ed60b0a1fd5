# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 15. The server of scenario 14 with the takeover question preseeded to
#     false: the installer's file stays byte for byte, the install lists
#     the keys it overrides (the port range among those that differ) and
#     leaves each of them to it: the port range stays the installer's
#     1024 65535, which boot sets too, and status exits 0 naming the file
#     (overridden, a choice).
title="installer's file, takeover preseeded false: left, listed, status 0"

scenario() {
	local dir
	dir=$(share declined)/legacy
	mkdir -p "$dir"
	cp "$TOP"/share/installer/* "$TOP"/tests/fixtures/legacy/* "$dir/"
	boot declined "$(disk takeover-declined)" 2 <<'GUEST'
installer_server 2cpu
echo 'wp-panel-nettune wp-panel-nettune/take-over-installer-tuning boolean false' |
	debconf-set-selections
check "install" apt_get install install /host/pkg.deb
sed 's/^/#   | /' /host/install.log | grep -A4 'sets 20 keys'
check "the installer's file stays, byte for byte" cmp /host/legacy/99-wp-panel.conf.2cpu \
	/etc/sysctl.d/99-wp-panel.conf
check "nothing taken over" test ! -e /var/lib/wp-panel-nettune/taken-over
said "the install lists the file and how many keys it overrides" install \
	'^/etc/sysctl.d/99-wp-panel.conf sets 20 keys of /etc/sysctl.d/60-wp-panel-nettune.conf at boot, after it:$'
said "with the port range that differs" install \
	'^  net.ipv4.ip_local_port_range = 1024 65535 \(ours: 10240 65535\)$'
said "and the keys whose values are the same" install \
	'^  the same as ours: net.core.default_qdisc, net.ipv4.tcp_congestion_control, '
said "the install leaves the port range to it" install \
	'^left net.ipv4.ip_local_port_range alone: /etc/sysctl.d/99-wp-panel.conf sets it to 1024 65535 at boot$'
check_sysctl net.ipv4.ip_local_port_range "1024 65535"
check_status_ok "with the installer's file kept"
said "status names the file for the port range" status \
	'^net.ipv4.ip_local_port_range +10240 65535 +1024 65535 +/etc/sysctl.d/99-wp-panel.conf +\(overridden\)$'
said "and notes a key it sets to our value" status \
	'^net.core.somaxconn +65535 +65535 +/etc/sysctl.d/99-wp-panel.conf +\(the same value as ours\)$'
GUEST
}
