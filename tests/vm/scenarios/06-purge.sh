# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 6. Purge puts everything back. On a fresh disk (2 vCPUs, one boot): the
#    files under /etc and /var/lib (paths, types, modes, owners; the
#    contents of /etc), the paths and types under /usr, and every
#    readable key under /proc/sys/net are recorded; the package is
#    installed; an administrator changes one key the package set; the
#    package is purged. Then the files are as before
#    (save what tree_compare in guest-lib.sh excludes, each with its
#    reason; ucf's numbered backups are reported as a finding), every value
#    is as before, and the administrator's key keeps the administrator's
#    value.
title="purge: files and values as before install"

scenario() {
	boot purge "$(disk purge)" 2 <<'GUEST'
purge_baseline
check "install" apt_get install install /host/pkg.deb
check_sysctl net.ipv4.tcp_congestion_control bbr
check_eq "tcp_bbr loaded" live "$(bbr_module)"
check_sysctl net.ipv4.tcp_keepalive_time 300
check "the administrator changes tcp_keepalive_time" \
	sh -c 'echo 900 >/proc/sys/net/ipv4/tcp_keepalive_time'

check "apt-get purge -y wp-panel-nettune" apt_get purge purge wp-panel-nettune
said "purge says it left the administrator's key alone" purge \
	'tcp_keepalive_time: changed since'
check_sysctl net.ipv4.tcp_keepalive_time 900
check_purge_restored net.ipv4.tcp_keepalive_time
GUEST
}
