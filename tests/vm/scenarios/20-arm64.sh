# shellcheck shell=bash disable=SC2034 # title, estimate and needs are read by tests/vm/run
# 20. The arm64 package on a Debian 13 arm64 machine: the image of
#     linux-image-arm64 and the base packages (tests/vm/lib.sh, VM_ARCH=arm64),
#     booted under qemu-system-aarch64 -M virt with 2 emulated CPUs, one boot.
#     The package (make deb ARCH=arm64) and the image are made, or found in
#     their caches, by the scenario itself: in its lane, while the other
#     lanes run (the image from nothing takes about 20 minutes).
#     Installed unattended and offline, the profile is live with bbr and fq,
#     from the arm64 kernel's own modules tcp_bbr and sch_fq (its config says
#     both are modules, as on amd64: checked first), status exits 0; then a
#     purge puts every value and file back, as scenario 6 checks it.
title="arm64: install, bbr + fq from the kernel's modules, purge as before"
estimate=1800

scenario() {
	# Local, so that the other scenarios keep amd64's. vm_image exits
	# on failure: tried in a subshell first, so that the lane goes on.
	local VM_ARCH=arm64 VM_IMAGE VM_KERNEL VM_INITRD VM_RELEASE PKG_DEB DEB
	build_deb arm64 || return 1
	PKG_DEB=$DEB
	(vm_image) || { echo "vm-run: no arm64 image"; return 1; }
	vm_image
	boot arm64 "$(disk arm64)" 2 1500 <<'GUEST'
check_eq "an arm64 machine" aarch64 "$(uname -m)"
check_eq "2 vCPUs" 2 "$(nproc)"
config=/boot/config-$(uname -r)
check_eq "the arm64 kernel builds BBR as a module ($config)" CONFIG_TCP_CONG_BBR=m \
	"$(grep '^CONFIG_TCP_CONG_BBR=' "$config")"
check_eq "the arm64 kernel builds fq as a module ($config)" CONFIG_NET_SCH_FQ=m \
	"$(grep '^CONFIG_NET_SCH_FQ=' "$config")"
check_eq "tcp_bbr not loaded before the install" absent "$(bbr_module)"
check_sysctl net.ipv4.tcp_congestion_control cubic
check_sysctl net.core.default_qdisc fq_codel
purge_baseline

check "DEBIAN_FRONTEND=noninteractive apt-get install -y /host/pkg.deb, no input" \
	apt_get install install /host/pkg.deb
check_eq "the arm64 package installed" "install ok installed arm64" \
	"$(dpkg-query -W -f '${Status} ${Architecture}' wp-panel-nettune 2>&1)"
check_profile_in_effect bbr
check_eq "sch_fq loaded (/sys/module/sch_fq/initstate)" live \
	"$(cat /sys/module/sch_fq/initstate 2>/dev/null || echo absent)"
check_status_ok "after install"
check_record /host/before.sysctl

check "apt-get purge -y wp-panel-nettune" apt_get purge purge wp-panel-nettune
check_purge_restored
GUEST
}
