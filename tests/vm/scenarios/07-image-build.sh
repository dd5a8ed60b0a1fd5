# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 7. Image build. A 2-vCPU machine (the builder) installs the package into
#    a chroot on a second disk (a fresh Debian 13 root file system, with
#    /proc, /sys and /dev mounted as image builders do): the install says
#    it leaves the running kernel alone, and does (every value under
#    /proc/sys/net as before, tcp_bbr not loaded); the image gets the
#    fragments and the first-boot marker. That disk then boots on 1 vCPU:
#    the first-boot unit renders the fragments for that machine, so it ends
#    with cubic and fq_codel, no tcp_bbr, the profile live, status 0; the
#    initial-window unit runs after it and leaves the windows to the kernel
#    (no fq on 1 vCPU): nothing in /sys/fs/bpf.
title="chroot install: kernel untouched; image boots to cubic on 1 vCPU"

scenario() {
	local image
	image=$(disk image)
	VM_DISK2=$image boot builder "$(disk builder)" 2 <<'GUEST' || return 1
check_eq "2 vCPUs (the builder)" 2 "$(nproc)"
sysctl_snapshot /host/before.sysctl
check_eq "tcp_bbr not loaded before" absent "$(bbr_module)"
t=/mnt/image
mkdir -p "$t"
check "mount the image (/dev/vdb)" mount /dev/vdb "$t"
check "mount /proc, /sys, /dev in it" sh -c "mount -t proc proc $t/proc &&
	mount -t sysfs sysfs $t/sys && mount --bind /dev $t/dev"
cp /host/pkg.deb "$t/tmp/pkg.deb"
check "chroot: apt-get install -y /tmp/pkg.deb, unattended" \
	logged chroot-install chroot "$t" env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q -o Dpkg::Use-Pty=0 /tmp/pkg.deb
said "the install says it leaves the running kernel alone" chroot-install \
	'chroot.*(left alone|leaving the running kernel alone)'
sysctl_snapshot /host/after.sysctl
check_same "the running kernel's values untouched" /host/before.sysctl /host/after.sysctl
check_eq "tcp_bbr not loaded by the chroot install" absent "$(bbr_module)"
check "the image has the sysctl fragment" test -f "$t$NT_SYSCTL"
check "the image has the modules fragment" test -f "$t$NT_MODULES"
check "the image has the first-boot marker" test -f "$t$NT_MARKER"
check_eq "the image has the first-boot unit wanted by sysinit.target (the package's link)" \
	../wp-panel-nettune-firstboot.service \
	"$(readlink "$t/usr/lib/systemd/system/sysinit.target.wants/wp-panel-nettune-firstboot.service")"
note "rendered in the chroot: $(grep -m1 '^# Congestion control' "$t$NT_SYSCTL")"
note "modules fragment in the chroot: '$(modules_listed "$t$NT_MODULES")'"
rm -f "$t/tmp/pkg.deb"
check "unmount the image" sh -c "umount $t/dev $t/sys $t/proc && umount $t"
GUEST

	boot first-boot "$image" 1 <<'GUEST'
check_eq "1 vCPU (the machine the image runs on)" 1 "$(nproc)"
check_eq "the first-boot unit ran" yes \
	"$(systemctl show -p ConditionResult --value wp-panel-nettune-firstboot.service)"
check_eq "the first-boot unit succeeded" "success 0" \
	"$(systemctl show -p Result --value wp-panel-nettune-firstboot.service) $(systemctl show -p ExecMainStatus --value wp-panel-nettune-firstboot.service)"
note "first-boot unit: $(journalctl -b -o cat -u wp-panel-nettune-firstboot.service | tr '\n' ';')"
check "the marker is gone, later boots skip the unit" test ! -e "$NT_MARKER"
check_profile_in_effect cubic
check "the fragment was replaced, no .ucf-dist" test ! -e "$NT_SYSCTL.ucf-dist"
check "a journal of the values it changed" test -f "$NT_JOURNAL"
check_eq "journal: fin_timeout's original is the kernel's" 60 \
	"$(journal_original net.ipv4.tcp_fin_timeout)"
check_status_ok "first boot of the image"
# The initial-window unit, after the first-boot one: on 1 vCPU, cubic and
# fq_codel, no program to attach.
check_eq "the initial-window unit ran" "active success" \
	"$(systemctl show -p ActiveState --value wp-panel-nettune-initwnd.service) $(systemctl show -p Result --value wp-panel-nettune-initwnd.service)"
note "wp-panel-nettune-initwnd: $(journalctl -b -o cat -u wp-panel-nettune-initwnd.service | tr '\n' ';')"
check "no program pinned (no fq on 1 vCPU)" test ! -e /sys/fs/bpf/wp-panel-nettune/link
said "status: the windows left to the kernel" status \
	'^initial windows: left to the kernel: the fragment does not set fq$'
GUEST
}
