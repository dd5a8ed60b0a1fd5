#!/bin/bash
# Captures the Debian 13 fixture trees: boots a fresh, stock Debian 13 disk
# with 1 and then 2 vCPUs and runs tests/fixtures/capture.sh inside, first
# thing after boot, before anything changes the kernel's settings.
#
# Usage: tests/vm/capture-fixtures.sh	(as root)
# Replaces tests/fixtures/debian13-1cpu and tests/fixtures/debian13-2cpu.
set -eu

# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

fixtures=$VM_TOPDIR/tests/fixtures

# What to capture: the keys and modules of the helper's own table.
make -C "$VM_TOPDIR" --no-print-directory build/dump-tunables >/dev/null
vm_image
for cpus in 1 2; do
	name=debian13-${cpus}cpu
	share=$(vm_share "$name")
	cp "$fixtures/capture.sh" "$share/capture.sh"
	"$VM_TOPDIR/build/dump-tunables" --keys >"$share/keys"
	"$VM_TOPDIR/build/dump-tunables" --modules >"$share/modules"
	# Captured inside the guest, then copied to the share with tar: 9p
	# need not keep ownership or symlinks the way ext4 does.
	cat >"$share/run.sh" <<-'SCRIPT'
		set -eu
		sh /host/capture.sh /run/fixture /host/keys /host/modules
		tar -C /run/fixture -cf /host/fixture.tar .
	SCRIPT
	vm_boot "$(vm_disk "$name")" "$cpus" "$share" "$VM_WORKDIR/$name.log" 600
	rm -rf "${fixtures:?}/$name"
	mkdir -p "$fixtures/$name"
	tar -C "$fixtures/$name" -xf "$share/fixture.tar"
	vm_log "captured $fixtures/$name"
done
