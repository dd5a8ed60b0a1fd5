# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 2. Reboot the disk of scenario 1: the profile is live again, applied by
#    systemd at boot (systemd-modules-load loads tcp_bbr, systemd-sysctl
#    reads the fragment; the package's own first-boot unit stays idle); fq
#    is the root or a leaf qdisc of the default interface, whose qdisc is
#    made at boot; status exits 0; services get 65535 open files.
title="reboot: systemd applies it, fq on the NIC, LimitNOFILE"
needs=01

scenario() {
	VM_NIC=1 boot reboot "$(disk install-2cpu)" 2 <<'GUEST'
check_eq "2 vCPUs" 2 "$(nproc)"
check_eq "still installed" "install ok installed" \
	"$(dpkg-query -W -f '${Status}' wp-panel-nettune 2>&1)"
check_fragment_profile bbr
check_fragment_live
check_sysctl net.ipv4.tcp_congestion_control bbr
check_sysctl net.core.default_qdisc fq
check_eq "tcp_bbr loaded" live "$(bbr_module)"
# By the identifier the program logs under: journald attributes a message to
# a unit from the sender's cgroup, which it cannot read once an early, short
# process has exited, so "-u systemd-modules-load.service" may miss the line.
check_match "systemd-modules-load inserted tcp_bbr at boot" \
	"^Inserted module 'tcp_bbr'\$" \
	"$(journalctl -b -o cat -t systemd-modules-load 2>&1)"
check_eq "systemd-sysctl ran at boot" "active success" \
	"$(systemctl show -p ActiveState --value systemd-sysctl.service) $(systemctl show -p Result --value systemd-sysctl.service)"
check "systemd-sysctl reads the fragment" \
	sh -c "/usr/lib/systemd/systemd-sysctl --cat-config | grep -qx '# $NT_SYSCTL'"
check_eq "the first-boot unit did not run (nothing for it to do)" no \
	"$(systemctl show -p ConditionResult --value wp-panel-nettune-firstboot.service)"

# The NIC is configured by systemd-networkd, after systemd-sysctl.
i=0
while [ -z "$(ip -o route show default)" ] && [ "$i" -lt 60 ]; do
	sleep 1
	i=$((i + 1))
done
nic=$(ip -o route show default | awk '{ print $5; exit }')
check "a default interface: '$nic'" test -n "$nic"
note "tc qdisc show dev $nic: $(tc qdisc show dev "$nic" | tr '\n' ';')"
check "fq is the root or a leaf qdisc of $nic" \
	sh -c "tc qdisc show dev '$nic' | grep -Eq '^qdisc fq [0-9a-f]+: (root|parent)'"
check_status_ok "after a reboot"

check_eq "systemd: DefaultLimitNOFILESoft" 65535 "$(systemctl show -p DefaultLimitNOFILESoft --value)"
check_eq "systemd: DefaultLimitNOFILE (hard)" 524288 "$(systemctl show -p DefaultLimitNOFILE --value)"
check_eq "this test's own service: soft nofile" 65535 "$(ulimit -Sn)"
cat >/run/systemd/system/vm-limits.service <<'UNIT'
[Service]
Type=oneshot
ExecStart=/bin/sh -c 'echo $$(ulimit -Sn) $$(ulimit -Hn) >/run/vm-limits'
UNIT
systemctl daemon-reload
check "systemctl start a service" systemctl start vm-limits.service
check_eq "that service: soft and hard nofile" "65535 524288" "$(cat /run/vm-limits 2>&1)"
GUEST
}
