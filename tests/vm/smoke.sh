#!/bin/bash
# Proves the VM harness: boots one Debian 13 disk with 1 vCPU, then again
# with 2, and checks what the guest sees against the stock Debian 13
# defaults. The first boot installs a .deb from the share, as the package
# tests will, with no network; the second finds it still installed, so
# the disk survives a poweroff.
#
# Usage: tests/vm/smoke.sh	(as root; VM_KEEP=1 keeps the logs)
set -eu

# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

# A package with the runtime dependencies wp-panel-nettune will have, all
# of which the image must already hold.
make_dummy_deb() {
	local dir=$VM_WORKDIR/dummy
	mkdir -p "$dir/DEBIAN"
	cat >"$dir/DEBIAN/control" <<-CONTROL
		Package: nettune-vm-dummy
		Version: 1.0
		Architecture: all
		Maintainer: VM harness <root@localhost>
		Depends: libkmod2, kmod, procps, ucf, debconf (>= 0.5) | debconf-2.0
		Description: dependency probe for the VM harness
	CONTROL
	dpkg-deb --root-owner-group --build "$dir" "$1" >/dev/null
}

vm_image
disk=$(vm_disk smoke)
failed=0

for cpus in 1 2; do
	share=$(vm_share "smoke-$cpus")
	cat >"$share/run.sh" <<-SCRIPT
		. /host/guest-lib.sh
		check_eq "nproc is $cpus" $cpus "\$(nproc)"
		check_sysctl net.ipv4.tcp_congestion_control cubic
		check_sysctl net.core.default_qdisc fq_codel
		check "no network interface but lo" test "\$(ls /sys/class/net)" = lo
	SCRIPT
	if [ "$cpus" = 1 ]; then
		make_dummy_deb "$share/dummy.deb"
		cat >>"$share/run.sh" <<-'SCRIPT'
			check "apt installs a .deb from the share, offline" sh -c \
				'DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
				/host/dummy.deb >/host/apt.log 2>&1'
		SCRIPT
	else
		cat >>"$share/run.sh" <<-'SCRIPT'
			check "the .deb is still installed after a reboot" \
				dpkg-query -W nettune-vm-dummy
		SCRIPT
	fi
	echo checks_done >>"$share/run.sh"
	vm_boot "$disk" "$cpus" "$share" "$VM_WORKDIR/smoke-$cpus.log" 300 || failed=1
done

exit "$failed"
