# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 6. Purge puts everything back. On a fresh disk (2 vCPUs, one boot): the
#    files under /etc, /var/lib and /usr (paths, types, modes, owners; the
#    contents of /etc) and every readable key under /proc/sys/net are
#    recorded; the package is installed; an administrator changes one key
#    the package set; the package is purged. Then the files are as before
#    (save what tree_compare in guest-lib.sh excludes, each with its
#    reason; ucf's numbered backups are reported as a finding), every value
#    is as before, and the administrator's key keeps the administrator's
#    value.
title="purge: files and values as before install"

scenario() {
	boot purge "$(disk purge)" 2 <<'GUEST'
tree_listing /host/before.tree
sysctl_snapshot /host/before.sysctl
check "install" apt_get install install /host/pkg.deb
check_sysctl net.ipv4.tcp_congestion_control bbr
check_eq "tcp_bbr loaded" live "$(bbr_module)"
check_sysctl net.ipv4.tcp_keepalive_time 300
check "the administrator changes tcp_keepalive_time" \
	sh -c 'echo 900 >/proc/sys/net/ipv4/tcp_keepalive_time'

check "apt-get purge -y wp-panel-nettune" apt_get purge purge wp-panel-nettune
check "not installed any more" sh -c '! dpkg-query -W wp-panel-nettune >/dev/null 2>&1'
said "purge says it left the administrator's key alone" purge \
	'tcp_keepalive_time: changed since'
check_sysctl net.ipv4.tcp_keepalive_time 900
check "no debconf question or template left" \
	sh -c '! grep -q "wp-panel-nettune" /var/cache/debconf/config.dat /var/cache/debconf/templates.dat'

tree_listing /host/after.tree
tree_compare "/etc, /var/lib, /usr as before the install" /host/before.tree /host/after.tree

sysctl_snapshot /host/after.sysctl
# Compared on their own: the administrator's key (above), and the
# algorithms unprivileged sockets may choose: tcp_bbr declares itself
# non-restricted, so loading it adds bbr to that list, and modules are
# never unloaded (README.Debian). Left out for the same reason: the list
# of available algorithms.
for f in before after; do
	grep -v -e '^net\.ipv4\.tcp_keepalive_time ' \
		-e '^net\.ipv4\.tcp_allowed_congestion_control ' \
		-e '^net\.ipv4\.tcp_available_congestion_control ' \
		"/host/$f.sysctl" >"/tmp/$f.values"
done
check_same "every other value under /proc/sys/net as before the install" \
	/tmp/before.values /tmp/after.values
check_eq "net.ipv4.tcp_allowed_congestion_control as before the install, but for the loaded tcp_bbr" \
	"$(snapshot_get /host/before.sysctl net.ipv4.tcp_allowed_congestion_control |
		tr ' ' '\n' | grep -vx bbr | LC_ALL=C sort | tr '\n' ' ')" \
	"$(snapshot_get /host/after.sysctl net.ipv4.tcp_allowed_congestion_control |
		tr ' ' '\n' | grep -vx bbr | LC_ALL=C sort | tr '\n' ' ')"
note "available congestion control after purge: $(sysctl_value net.ipv4.tcp_available_congestion_control)"
GUEST
}
