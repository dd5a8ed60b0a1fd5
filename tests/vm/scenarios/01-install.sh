# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 1. Install on 2 vCPUs, unattended and offline, with a NIC up (as on a
#    VPS): no prompt; the fragment holds the profile of DESIGN.md and each
#    of its keys is live; bbr and fq in effect and tcp_bbr loaded; status
#    exits 0 and leaves the initial windows to the kernel (no port listed);
#    the files are the ones debian/README.Debian lists, with the
#    contents it gives, and the record holds the pre-install values. The
#    NIC keeps its qdisc until the next boot, as README.Debian says.
#    Scenarios 2 and 5 boot this disk again.
title="2 vCPUs: unattended install, profile live, bbr + fq, the files"

scenario() {
	VM_NIC=1 boot install "$(disk install-2cpu)" 2 <<'GUEST'
check_eq "2 vCPUs" 2 "$(nproc)"
sysctl_snapshot /host/before.sysctl
nic=$(ip -o route show default | awk '{ print $5; exit }')
check "a default interface (the restricted NIC): '$nic'" test -n "$nic"
qdisc_before=$(tc qdisc show dev "$nic" | awk '{ print $2, $4 }')
note "qdiscs of $nic before the install: $qdisc_before"

check "DEBIAN_FRONTEND=noninteractive apt-get install -y /host/pkg.deb, no input" \
	apt_get install install /host/pkg.deb
check_eq "package installed" "install ok installed" \
	"$(dpkg-query -W -f '${Status}' wp-panel-nettune 2>&1)"
check "no debconf frontend trouble in the install log" \
	sh -c '! grep -Ei "unable to (initialize|re-open)|frontend|prompt" /host/install.log'

check_fragment_profile bbr
check_fragment_live
check_sysctl net.ipv4.tcp_congestion_control bbr
check_sysctl net.core.default_qdisc fq
check_eq "tcp_bbr loaded (/sys/module/tcp_bbr/initstate)" live "$(bbr_module)"
check "tcp_bbr in lsmod" sh -c 'lsmod | grep -q "^tcp_bbr "'
check_status_ok "after install"
# The initial windows stay the kernel's: the shipped initial-window-ports
# names no port, so no program is attached (scenario 25 lists the web
# ports), and the NIC's default route (networkd's Gateway=) is left as it
# was.
ip route show default | sed 's/^/#   ip route show default: /'
check "no initcwnd on the default route" sh -c '! ip route show default | grep -q initcwnd'
said "status: the windows left to the kernel" status \
	'^initial windows: left to the kernel: /etc/wp-panel-nettune/initial-window-ports names no port$'
check "no program pinned" test ! -e /sys/fs/bpf/wp-panel-nettune

# The files README.Debian lists.
for f in "$NT_SYSCTL" "$NT_MODULES" "$NT_LIMITS" "$NT_DROPIN" "$NT_JOURNAL"; do
	check_eq "$f: a root-owned 0644 file" "regular file 644 root:root" \
		"$(stat -c '%F %a %U:%G' "$f" 2>&1)"
done
check_eq "modules fragment loads tcp_bbr" tcp_bbr "$(modules_listed)"
check_eq "limits.d: soft nofile 65535 for everyone and root, no hard limit" \
	"* soft nofile 65535|root soft nofile 65535|" \
	"$(sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$NT_LIMITS" | awk '{ $1 = $1; printf "%s|", $0 }')"
check_eq "system.conf.d drop-in" "[Manager]|DefaultLimitNOFILE=65535:524288|" \
	"$(sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$NT_DROPIN" | tr '\n' '|')"
conffiles=$(dpkg-query -W -f '${Conffiles}\n' wp-panel-nettune | awk 'NF { print $1 }' | sort | tr '\n' ' ')
check_eq "dpkg conffiles: the two limits files and the ports file, not the fragments" \
	"$NT_LIMITS $NT_DROPIN /etc/wp-panel-nettune/initial-window-ports " "$conffiles"
check_eq "ucf registers both fragments to the package" "$NT_MODULES $NT_SYSCTL " \
	"$(awk '$1 == "wp-panel-nettune" { print $2 }' /var/lib/ucf/registry | sort | tr '\n' ' ')"
check_eq "ucf knows both fragments' checksums" 2 \
	"$(grep -c -e " $NT_SYSCTL\$" -e " $NT_MODULES\$" /var/lib/ucf/hashfile)"
check_record /host/before.sysctl
check "no first-boot marker on a machine the install could see" test ! -e "$NT_MARKER"
# The package's own link makes sysinit.target want the first-boot unit,
# which has no [Install] section: nothing under /etc.
check_eq "first-boot unit static (it runs only after a chroot install)" static \
	"$(systemctl is-enabled wp-panel-nettune-firstboot.service 2>&1)"
check_eq "sysinit.target wants it" sysinit.target \
	"$(systemctl show -p WantedBy --value wp-panel-nettune-firstboot.service)"
check "no enablement link under /etc" \
	test ! -e /etc/systemd/system/sysinit.target.wants/wp-panel-nettune-firstboot.service
check_eq "services started from now on: soft nofile (daemon-reload done)" 65535 \
	"$(systemctl show -p DefaultLimitNOFILESoft --value)"

# README.Debian: default_qdisc reaches existing interfaces at the next boot;
# the package does not replace a live interface's qdisc.
check_eq "$nic keeps its qdisc until the next boot" "$qdisc_before" \
	"$(tc qdisc show dev "$nic" | awk '{ print $2, $4 }')"
GUEST
}
