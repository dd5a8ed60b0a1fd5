# shellcheck shell=bash
# Debian 13 virtual machines for acceptance tests and benchmarks: build a
# cached disk image, copy it per scenario, boot it with a shared folder, and
# get back the exit status of the script the scenario put in that folder.
#
# Source it from bash (it uses arrays for the QEMU command line):
#
#	. tests/vm/lib.sh
#	vm_image nginx-light		# build once (cached), or reuse
#	share=$(vm_share demo)		# a folder the guest sees as /host
#	echo 'nproc' >"$share/run.sh"	# what the guest runs after booting
#	vm_boot "$(vm_disk demo)" 2 "$share" "$VM_WORKDIR/demo.log" || rc=$?
#
# vm_boot returns the guest script's exit status. Inside the guest,
# /host/guest-lib.sh offers check helpers (see that file).
#
# Knobs (environment):
#	NETTUNE_CACHE	image cache, default /var/cache/wp-panel-nettune-dev
#	VM_WORKDIR	where disks, shares and logs of this run go
#			(default: a new folder under /var/tmp)
#	VM_ACCEL	"kvm" or "tcg" to skip detection
#	VM_MEM		guest memory in MiB, default 1024
#	VM_KEEP		1 keeps VM_WORKDIR at exit (to read the logs)
#	VM_DEBUG	1 boots without "quiet": the whole boot on the console
#	VM_NIC		1 gives the guest a virtio NIC on QEMU's user network
#			with restrict=on (nothing reaches the host or beyond),
#			configured at boot by systemd-networkd
#	VM_DISK2	a second disk image, /dev/vdb in the guest
#	VM_GUESTFWD	with VM_NIC=1, a QEMU guestfwd rule for that network
#			(tcp:ADDR:PORT-cmd:COMMAND, no commas): the one way
#			out of the VM that restrict=on leaves
#	VM_HOSTFWD	with VM_NIC=1, a QEMU hostfwd rule for that network
#			(tcp:127.0.0.1:PORT-:GUESTPORT): a port of this
#			machine that leads to one of the guest's
#	VM_APPEND	more kernel parameters for the guest
#	VM_ARCH		amd64 (default) or arm64: the Debian architecture of
#			the image vm_image builds and of the QEMU vm_boot runs
#			(arm64: qemu-system-aarch64 -M virt, always emulated)
#	VM_QEMU		"host" runs this machine's QEMU; by default, where
#			it is older than 10, QEMU runs from a Debian 13 tree
#			of its own in the cache (vm_qemu_tree)
#	VM_TCG_THREAD	"multi" (default: a host thread per vCPU) or
#			"single" (one host thread runs all the guest's
#			vCPUs in turn): see vm_accel_args
# VM_NIC, VM_DISK2, VM_GUESTFWD, VM_HOSTFWD and VM_APPEND are read by each
# vm_boot, so they can be given for one boot only: VM_NIC=1 vm_boot ...

VM_LIBDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_TOPDIR=$(cd "$VM_LIBDIR/../.." && pwd)
VM_CACHE=${NETTUNE_CACHE:-/var/cache/wp-panel-nettune-dev}/vm
VM_MEM=${VM_MEM:-1024}
VM_SUITE=trixie
VM_ARCH=${VM_ARCH:-amd64}

# What every image holds; tests add their own packages to it. ucf and
# debconf are the package's own dependencies, installed here because the
# guest has no network: "apt install /host/x.deb" can only use what is
# already on the disk. libkmod2 comes with kmod. linux-sysctl-defaults
# is only recommended by systemd, which a minimal build skips, but every
# real Debian 13 install has it: it sets default_qdisc = fq_codel.
# vm_image adds the kernel of VM_ARCH, linux-image-$VM_ARCH.
VM_BASE_PACKAGES="systemd-sysv kmod procps iproute2 udev
ucf debconf linux-sysctl-defaults"

vm_log() {
	echo "vm: $*" >&2
}

vm_die() {
	echo "vm: error: $*" >&2
	exit 1
}

# The cache key: the package list and everything that shapes the image (the
# two functions that build it, as bash prints them, and the files copied
# into it), so that a changed recipe builds a new image instead of reusing a
# stale one, while a change elsewhere in this file keeps the cached one.
# Another architecture than amd64 adds its name and how it is built for it
# (the amd64 key is the one it was before arm64 came).
vm_image_key() {
	{
		echo "$VM_SUITE"
		printf '%s\n' "$@" | sort -u
		declare -f vm_image_build vm_image_customize
		cat "$VM_LIBDIR"/image/*
		[ "$VM_ARCH" = amd64 ] || { echo "arch $VM_ARCH"; declare -f vm_foreign_mmdebstrap; }
	} | sha256sum | cut -c1-16
}

# vm_image_build runs mmdebstrap for the build machine's architecture. For
# another VM_ARCH it runs in a subshell where mmdebstrap is this function:
# the architecture added, the packages' maintainer scripts (and the
# initramfs build) run under qemu-user through binfmt_misc, whose "F" flag
# makes the emulator work inside the new root (tools/install-deps vm-arm64).
vm_foreign_mmdebstrap() {
	command mmdebstrap --architectures="$VM_ARCH" "$@"
}

# Puts the test runner into the root file system and trims what a test
# machine without network does not need.
vm_image_customize() {
	local root=$1

	install -m 0755 "$VM_LIBDIR/image/vm-run" "$root/usr/local/sbin/vm-run"
	install -m 0644 "$VM_LIBDIR/image/vm-run.service" \
		"$root/etc/systemd/system/vm-run.service"
	mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
	ln -sf /etc/systemd/system/vm-run.service \
		"$root/etc/systemd/system/multi-user.target.wants/vm-run.service"

	# The apt timers would take the dpkg lock while a test installs a
	# package; the login prompt on the console only adds noise to the log.
	local unit
	for unit in apt-daily.timer apt-daily-upgrade.timer \
		serial-getty@ttyS0.service; do
		ln -sf /dev/null "$root/etc/systemd/system/$unit"
	done

	# For boots with VM_NIC=1, which enable systemd-networkd on the kernel
	# command line: a fixed address and a default route, as a VPS has.
	# QEMU's restricted user network carries nothing out of the VM, and
	# no IPv6 autoconfiguration adds chatter of its own.
	mkdir -p "$root/etc/systemd/network"
	cat >"$root/etc/systemd/network/80-vm-nic.network" <<-'NETWORK'
		[Match]
		Type=ether

		[Network]
		Address=10.0.2.15/24
		Gateway=10.0.2.2
		LinkLocalAddressing=no
		IPv6AcceptRA=no
	NETWORK

	echo nettune-vm >"$root/etc/hostname"
	echo '/dev/vda / ext4 defaults 0 1' >"$root/etc/fstab"
}

# Builds the image into DIR: mmdebstrap into a folder, the kernel and
# initrd copied out of its /boot, then mkfs.ext4 -d, which needs no loop
# device and so works in a container.
vm_image_build() {
	local dir=$1 tmp=$1.tmp mirror
	shift
	mirror=$("$VM_TOPDIR/tools/debian-mirror") || exit 1

	rm -rf "$tmp"
	mkdir -p "$tmp"
	vm_log "building a Debian 13 image from $mirror (a few minutes), log $tmp/build.log"
	mmdebstrap --variant=apt --include="$(echo "$@" | tr ' ' ',')" \
		"$VM_SUITE" "$tmp/rootfs" "$mirror" >"$tmp/build.log" 2>&1 ||
		vm_die "mmdebstrap failed, see $tmp/build.log"
	vm_image_customize "$tmp/rootfs"

	# linux-image-amd64 installs exactly one kernel.
	cp "$tmp"/rootfs/boot/vmlinuz-* "$tmp/vmlinuz"
	cp "$tmp"/rootfs/boot/initrd.img-* "$tmp/initrd.img"
	ls "$tmp/rootfs/lib/modules" >"$tmp/kernel-release"
	chroot "$tmp/rootfs" dpkg-query -W >"$tmp/packages"

	mkfs.ext4 -q -F -L nettune-root -d "$tmp/rootfs" "$tmp/disk.img" 2G \
		>>"$tmp/build.log" 2>&1 || vm_die "mkfs.ext4 failed, see $tmp/build.log"
	rm -rf "$tmp/rootfs"
	mv "$tmp" "$dir"
}

# QEMU comes from Debian 13 too, from a tree of its own beside the images:
# under software emulation Debian 12's QEMU 7.2 runs these guests' work,
# which is mostly short processes (dpkg, debconf, ucf, systemctl), far
# slower than Debian 13's 10.0. Measured here, 2 vCPUs, one boot each: 300
# fork+exec of /bin/true 13.6 s against 5.1 s, the package's install 27.8 s
# against 19.3 s, its purge 30.4 s against 18.6 s, boot to the script 31 s
# against 27 s. The tree is not entered as a chroot: its own dynamic loader
# runs its QEMU with its libraries, so the disks, shares and sockets of this
# machine need no bind mount. Its firmware comes from the tree (-L), and so
# do QEMU's loadable modules (QEMU_MODULE_DIR), which must match the binary.
VM_QEMU_PACKAGES="qemu-system-x86 qemu-system-arm"

vm_qemu_tree_build() {
	local dir=$1 tmp=$1.tmp mirror arch libs ldso name
	mirror=$("$VM_TOPDIR/tools/debian-mirror") || exit 1
	arch=$(dpkg --print-architecture)
	rm -rf "$tmp" "$tmp.log"
	vm_log "fetching Debian 13's QEMU into $dir (a minute), log $tmp.log"
	command mmdebstrap --variant=essential --architectures="$arch" \
		--include="$(echo "$VM_QEMU_PACKAGES" | tr ' ' ',')" \
		"$VM_SUITE" "$tmp" "$mirror" >"$tmp.log" 2>&1 ||
		vm_die "mmdebstrap failed, see $tmp.log"
	libs=$(dpkg-architecture -a "$arch" -q DEB_HOST_MULTIARCH 2>/dev/null)
	ldso=$(cd "$tmp" && find "usr/lib/$libs" -maxdepth 1 -name 'ld-linux*.so.*' | head -n 1)
	[ -n "$ldso" ] || vm_die "no dynamic loader in $tmp/usr/lib/$libs"
	# A wrapper per program, finding the tree from its own path.
	mkdir -p "$tmp/wrap"
	for name in qemu-system-x86_64 qemu-system-aarch64; do
		sed -e "s|@NAME@|$name|g" -e "s|@LIBS@|$libs|g" -e "s|@LDSO@|$ldso|g" \
			>"$tmp/wrap/$name" <<-'WRAP'
				#!/bin/sh
				# @NAME@ of Debian 13 from the tree above (tests/vm/lib.sh).
				t=${0%/wrap/*}
				QEMU_MODULE_DIR=$t/usr/lib/@LIBS@/qemu exec "$t/@LDSO@" \
					--library-path "$t/usr/lib/@LIBS@" \
					--argv0 @NAME@ "$t/usr/bin/@NAME@" \
					-L "$t/usr/share/qemu" -L "$t/usr/share/seabios" "$@"
			WRAP
		chmod 0755 "$tmp/wrap/$name"
	done
	"$tmp/wrap/qemu-system-x86_64" --version >>"$tmp.log" 2>&1 ||
		vm_die "the QEMU of $tmp does not run, see $tmp.log"
	mv "$tmp.log" "$tmp/build.log"
	mv "$tmp" "$dir"
}

# vm_qemu_tree: makes (once, cached) or finds the Debian 13 QEMU and sets
# VM_QEMU_X86 and VM_QEMU_ARM64 to the qemu-system-x86_64 and
# qemu-system-aarch64 to run. VM_QEMU=host, or a QEMU of 10 or later on this
# machine, uses this machine's own.
vm_qemu_tree() {
	[ -z "${VM_QEMU_X86:-}" ] || return 0
	local major key dir
	major=$(qemu-system-x86_64 --version 2>/dev/null | sed -n 's/^QEMU emulator version \([0-9]*\)\..*/\1/p')
	if [ "${VM_QEMU:-}" = host ] || { [ -z "${VM_QEMU:-}" ] && [ "${major:-0}" -ge 10 ]; }; then
		VM_QEMU_X86=qemu-system-x86_64 VM_QEMU_ARM64=qemu-system-aarch64
		return 0
	fi
	key=$({
		echo "$VM_SUITE $(dpkg --print-architecture) $VM_QEMU_PACKAGES"
		declare -f vm_qemu_tree_build
	} | sha256sum | cut -c1-16)
	dir=$VM_CACHE/qemu-$VM_SUITE-$key
	mkdir -p "$VM_CACHE"
	(
		flock 9
		[ -x "$dir/wrap/qemu-system-x86_64" ] || vm_qemu_tree_build "$dir"
		touch "$dir"
		find "$VM_CACHE" -mindepth 1 -maxdepth 1 -name "qemu-$VM_SUITE-*" \
			! -path "$dir" -mtime +7 -exec rm -rf {} +
	) 9>"$VM_CACHE/.lock-qemu" || exit 1
	VM_QEMU_X86=$dir/wrap/qemu-system-x86_64
	VM_QEMU_ARM64=$dir/wrap/qemu-system-aarch64
}

# vm_image [PACKAGE...]
# Builds (once) or reuses the image holding the base packages plus PACKAGE...
# and sets VM_IMAGE (its folder), VM_KERNEL, VM_INITRD, VM_RELEASE (the
# kernel release string). Also creates VM_WORKDIR for this run.
# shellcheck disable=SC2120 # the packages are optional
vm_image() {
	local pkgs key dir lock=$VM_CACHE/.lock
	# shellcheck disable=SC2086 # a word list
	pkgs=$(printf '%s\n' "linux-image-$VM_ARCH" $VM_BASE_PACKAGES "$@" | sort -u | tr '\n' ' ')
	# shellcheck disable=SC2086 # a word list
	key=$(vm_image_key $pkgs)
	dir=$VM_CACHE/$VM_SUITE-$key
	# An emulated arm64 build takes a while: it has a lock of its own, so
	# that runs needing only the amd64 image do not wait for it.
	if [ "$VM_ARCH" != amd64 ]; then
		dir=$VM_CACHE/$VM_SUITE-$VM_ARCH-$key
		lock=$VM_CACHE/.lock-$VM_ARCH
	fi

	mkdir -p "$VM_CACHE"
	# One build at a time; a second caller waits and then reuses it.
	(
		flock 9
		if [ "$VM_ARCH" != "$(dpkg --print-architecture)" ]; then
			mmdebstrap() { vm_foreign_mmdebstrap "$@"; }
		fi
		# shellcheck disable=SC2086 # a word list
		[ -f "$dir/disk.img" ] || vm_image_build "$dir" $pkgs
		# Each recipe change leaves an image behind: drop those unused
		# for a week (a use touches the folder).
		touch "$dir"
		find "$VM_CACHE" -mindepth 1 -maxdepth 1 -name "$VM_SUITE-*" \
			-mtime +7 -exec rm -rf {} +
	) 9>"$lock" || exit 1

	VM_IMAGE=$dir
	VM_KERNEL=$dir/vmlinuz
	VM_INITRD=$dir/initrd.img
	VM_RELEASE=$(cat "$dir/kernel-release")
	vm_log "image $dir (kernel $VM_RELEASE)"
	vm_qemu_tree
	vm_workdir
}

# Creates VM_WORKDIR once per run (under /var/tmp: disks are too big for a
# tmpfs /tmp). At exit, a QEMU still running is stopped and the folder is
# removed unless VM_KEEP=1. This takes the scenario's EXIT trap.
vm_workdir() {
	if [ -z "${VM_WORKDIR:-}" ]; then
		VM_WORKDIR=$(mktemp -d "${TMPDIR:-/var/tmp}/nettune-vm.XXXXXX")
		[ "${VM_KEEP:-0}" != 1 ] || vm_log "keeping $VM_WORKDIR"
		trap vm_cleanup EXIT
		# Without these an interrupted scenario dies without its EXIT trap.
		trap 'exit 130' INT
		trap 'exit 143' TERM
	fi
	mkdir -p "$VM_WORKDIR"
}

vm_cleanup() {
	[ -z "${VM_QEMU_PID:-}" ] || vm_kill "$VM_QEMU_PID"
	[ "${VM_KEEP:-0}" = 1 ] || rm -rf "$VM_WORKDIR"
}

# vm_disk NAME: prints the path of a fresh copy of the image's disk. Sparse,
# so the 2 GiB disk costs what it holds (400 MiB) and a second or two.
vm_disk() {
	local disk=$VM_WORKDIR/$1.img
	cp --sparse=always "$VM_IMAGE/disk.img" "$disk"
	echo "$disk"
}

# vm_share NAME: prints the path of a new, empty folder to share with a
# guest (vm_boot adds guest-lib.sh to it).
vm_share() {
	local share=$VM_WORKDIR/$1.share
	rm -rf "$share"
	mkdir -p "$share"
	echo "$share"
}

# key_fingerprint KEYFILE: the primary fingerprint of each key in KEYFILE,
# one a line, as gpg reads it in a throwaway home.
key_fingerprint() {
	local home rc=0
	home=$(mktemp -d)
	gpg --homedir "$home" --batch --with-colons --show-keys "$1" 2>/dev/null |
		awk -F: '$1 == "pub" { p = 1; next } p && $1 == "fpr" { print $10; p = 0 }' || rc=$?
	rm -rf "$home"
	return "$rc"
}

# vm_image_chroot DIR CMD...: runs CMD on this machine, at its own speed,
# chrooted into the file system of the image (VM_IMAGE, the amd64 one),
# with DIR at /host and the working directory there. For what only reads
# the image's programs (a linter, a schema check): it sees the versions a
# guest has without booting one. The image is mounted read-only (a loop
# device) beneath a throwaway overlay, or, where this machine cannot
# mount it, copied out with debugfs. Returns CMD's exit status, or 125
# (said) when no root could be made.
vm_image_chroot() {
	local dir=$1 root rc=0 top
	shift
	root=$(mktemp -d "$VM_WORKDIR/chroot.XXXXXX") || return 125
	mkdir "$root/lower" "$root/upper" "$root/work" "$root/merged"
	if mount -o loop,ro,noload "$VM_IMAGE/disk.img" "$root/lower" 2>/dev/null; then
		if ! mount -t overlay overlay \
			-o "lowerdir=$root/lower,upperdir=$root/upper,workdir=$root/work" "$root/merged"; then
			umount "$root/lower"
			rm -rf "$root"
			vm_log "cannot put an overlay on the image's file system"
			return 125
		fi
		top=$root/merged
	else
		top=$root/upper
		if ! debugfs -R "rdump / $top" "$VM_IMAGE/disk.img" >/dev/null 2>&1 || [ ! -x "$top/bin/sh" ]; then
			rm -rf "$root"
			vm_log "cannot mount the image (no loop device?) nor copy it out with debugfs"
			return 125
		fi
	fi
	mkdir -p "$top/host"
	mount -t proc proc "$top/proc" &&
		mount --bind /dev "$top/dev" &&
		mount --bind "$dir" "$top/host" &&
		chroot "$top" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
			sh -c 'cd /host && exec "$@"' sh "$@" || rc=$?
	umount "$top/host" "$top/dev" "$top/proc" 2>/dev/null
	if [ "$top" = "$root/merged" ]; then
		umount "$top" "$root/lower"
	fi
	# Never rm -rf through a mount that stayed (this machine's /dev, DIR).
	if awk -v r="$root/" 'index($2 "/", r) == 1 { found = 1 } END { exit !found }' /proc/self/mounts; then
		vm_log "mounts under $root stayed: left in place"
	else
		rm -rf "$root"
	fi
	return "$rc"
}

# Waits for QEMU (PID, console in LOG) to exit, at most LIMIT seconds.
# Returns QEMU's exit status, 124 when it was killed at the limit, or 123
# when the console shows a KVM internal error: QEMU then stops the guest
# but keeps running, so waiting longer would gain nothing. It looks five
# times a second, so that a guest's poweroff costs no more than 0.2 s.
vm_wait() {
	local pid=$1 log=$2 limit=$3 ticks=0
	while kill -0 "$pid" 2>/dev/null; do
		if grep -q 'KVM internal error' "$log"; then
			vm_kill "$pid"
			return 123
		fi
		if [ "$ticks" -ge $((limit * 5)) ]; then
			vm_kill "$pid"
			return 124
		fi
		sleep 0.2
		ticks=$((ticks + 1))
	done
	wait "$pid"
}

vm_kill() {
	kill "$1" 2>/dev/null || true
	sleep 2
	kill -9 "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# vm_probe ACCEL CPU TIMEOUT: boots the kernel alone, without a root file
# system; it works where the kernel gets as far as its panic. The log is
# kept as $VM_WORKDIR/ACCEL-probe.log.
vm_probe() {
	local log=$VM_WORKDIR/$1-probe.log
	"$VM_QEMU_X86" -accel "$1" -cpu "$2" -smp 1 -m 256 \
		-display none -monitor none -serial stdio -no-reboot \
		-kernel "$VM_KERNEL" -append "console=ttyS0 panic=-1" \
		</dev/null >"$log" 2>&1 &
	# 2>/dev/null: no "Aborted" job notice when QEMU dies on its assertion.
	vm_wait $! "$log" "$3" 2>/dev/null || true
	grep -q 'Kernel panic' "$log"
}

# Nested KVM may exist and still fail: /dev/kvm opens, and then QEMU
# aborts on an MSR it cannot set (-cpu host) or stops the guest with
# "KVM internal error ... emulation failure" (other CPU models). So boot
# the kernel for real: where KVM works it prints its banner and panics
# within seconds.
vm_kvm_works() {
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	vm_probe kvm host 60
}

# vm_tcg_works: software emulation boots the kernel to its panic too, so a
# QEMU that cannot emulate at all is told apart from a scenario that fails.
# Takes 5-20 s.
vm_tcg_works() {
	vm_probe tcg max 120
}

# vm_accel: decides once per run between KVM and software emulation (TCG),
# in VM_ACCEL; a VM_ACCEL set beforehand forces the choice. Boots in
# parallel (subshells) should follow a call in the main shell.
vm_accel() {
	if [ -z "${VM_ACCEL:-}" ]; then
		if vm_kvm_works; then
			VM_ACCEL=kvm
			vm_log "KVM works: using it"
		else
			VM_ACCEL=tcg
			vm_log "KVM unusable here: using software emulation (TCG), slower"
		fi
	fi
}

# Under software emulation a guest's vCPUs are host threads (thread=multi)
# or take turns on one (thread=single). Alone on this 2-CPU machine, multi
# is faster: the same boot, install and purge took 44 s against 54 s.
# Two guests at once (tests/vm/run's lanes) are faster with single: 4 vCPU
# threads on 2 CPUs wait on each other, and two such guests each took 91 s
# against 64-69 s. tests/vm/run sets single when it runs lanes.

vm_accel_args() {
	case $VM_ACCEL in
	kvm) echo "-accel kvm -cpu host" ;;
	tcg) echo "-accel tcg,thread=${VM_TCG_THREAD:-multi} -cpu max" ;;
	*) vm_die "VM_ACCEL must be kvm or tcg, not '$VM_ACCEL'" ;;
	esac
}

# The CPU QEMU emulates for an arm64 guest. "max" has every feature QEMU
# knows, pointer authentication (the kernel signs return addresses) and SVE
# among them, each emulated at a cost; neoverse-n1 (Armv8.2, the core of
# Graviton2 and Ampere Altra) has neither and booted fastest of the models
# tried: to the test script in 45 s, against 65 s for max,pauth-impdef=on,
# 81 s for max and 83 s for cortex-a72 (2 vCPUs, one boot each, TCG on a
# shared 2-CPU machine).
VM_ARM64_CPU=${VM_ARM64_CPU:-neoverse-n1}

# vm_machine: sets, in the caller, machine (the QEMU program and its machine
# and CPU options for VM_ARCH) and console (the guest's serial device).
# arm64 is emulated whatever VM_ACCEL says: this machine is x86-64.
vm_machine() {
	case $VM_ARCH in
	amd64)
		# shellcheck disable=SC2207 # two or four plain words
		machine=("$VM_QEMU_X86" $(vm_accel_args))
		console=ttyS0
		;;
	arm64)
		# shellcheck disable=SC2054 # one QEMU argument with commas
		machine=("$VM_QEMU_ARM64" -M virt -accel "tcg,thread=${VM_TCG_THREAD:-multi}" -cpu "$VM_ARM64_CPU")
		console=ttyAMA0
		;;
	*) vm_die "VM_ARCH must be amd64 or arm64, not '$VM_ARCH'" ;;
	esac
}

# vm_qemu_args DISK CPUS SHARE: sets, in the caller, qemu (the QEMU command
# line for a boot of DISK with CPUS vCPUs and SHARE as 9p tag host0), as
# VM_NIC, VM_DISK2, VM_GUESTFWD, VM_HOSTFWD and VM_APPEND ask.
vm_qemu_args() {
	local disk=$1 cpus=$2 share=$3
	local machine console
	vm_machine
	local append="root=/dev/vda rw console=$console panic=-1"
	# The image masks the login prompt on ttyS0 only.
	[ "$console" = ttyS0 ] || append="$append systemd.mask=serial-getty@$console.service"
	[ "${VM_DEBUG:-0}" = 1 ] || append="$append quiet"
	[ -z "${VM_APPEND:-}" ] || append="$append $VM_APPEND"
	# The machine vm_saved saves, and those restored from it (the same
	# command line): vm-run-wait waits for the host only there.
	[ "${VM_SAVE_BOOT:-0}" != 1 ] || append="$append vm-run.save"
	local nic=(-nic none) disk2=()
	if [ "${VM_NIC:-0}" = 1 ]; then
		# shellcheck disable=SC2054 # one QEMU argument with commas
		nic=(-nic "user,model=virtio-net-pci,restrict=on${VM_GUESTFWD:+,guestfwd=$VM_GUESTFWD}${VM_HOSTFWD:+,hostfwd=$VM_HOSTFWD}")
		append="$append systemd.wants=systemd-networkd.service"
	fi
	if [ -n "${VM_DISK2:-}" ]; then
		disk2=(-drive "file=$VM_DISK2,format=raw,if=virtio,cache=unsafe")
	fi
	# debug-threads: the vCPU threads carry their names ("CPU 0/TCG"), for
	# bench/run, which pins them.
	# shellcheck disable=SC2054 # one QEMU argument with commas
	qemu=(
		"${machine[@]}" -name nettune-vm,debug-threads=on
		-smp "$cpus" -m "$VM_MEM"
		# No display, VGA or parallel port: with emulated CPUs their
		# drivers alone cost seconds of boot.
		-display none -vga none -parallel none
		-serial stdio -no-reboot
		-kernel "$VM_KERNEL" -initrd "$VM_INITRD" -append "$append"
		# The disk is a throwaway copy: skip the host's flushes.
		-drive "file=$disk,format=raw,if=virtio,cache=unsafe"
		"${disk2[@]}"
		-virtfs "local,path=$share,mount_tag=host0,security_model=none"
		-device virtio-rng-pci
		"${nic[@]}"
	)
}

# Runs QEMU once, under a hard time limit; returns as vm_wait does. With
# VM_RESTORE_FROM (a folder vm_saved made), the machine saved there is
# restored instead of booted: DISK must be a fresh copy of its disk.
# VM_QEMU_PID names QEMU while it runs, for vm_cleanup.
vm_qemu() {
	local disk=$1 cpus=$2 share=$3 log=$4 limit=$5
	local qemu
	VM_SAVE_BOOT=${VM_RESTORE_FROM:+1} vm_qemu_args "$disk" "$cpus" "$share"
	qemu+=(-monitor none)
	local sender=
	if [ -n "${VM_RESTORE_FROM:-}" ]; then
		local sock=$disk.go
		rm -f "$sock"
		vm_saved_port "$sock"
		qemu+=(-incoming "exec:cat $VM_RESTORE_FROM/state")
		vm_send_time "$sock" "$limit" &
		sender=$!
	fi
	local rc=0
	"${qemu[@]}" </dev/null >"$log" 2>&1 &
	VM_QEMU_PID=$!
	vm_wait "$VM_QEMU_PID" "$log" "$limit" || rc=$?
	VM_QEMU_PID=
	if [ -n "$sender" ]; then
		kill "$sender" 2>/dev/null
		wait "$sender" 2>/dev/null
		rm -f "$sock"
	fi
	return "$rc"
}

# --- Saved machines ------------------------------------------------------------
#
# Most boots of a scenario start from a fresh copy of the image, and under
# software emulation the boot alone takes a minute or more. vm_saved boots
# the image once, up to the moment vm-run would mount the share, and saves
# that machine, RAM and disk (QEMU's migration to a file); vm_boot with
# VM_RESTORE=1 then restores it onto a fresh copy of the saved disk in a
# few seconds. Every restore starts from the same machine: the same disk
# bytes, the same memory. The saved disk is the image's plus
# tests/vm/saved/ (a unit drop-in making vm-run wait for the host, and the
# listing of the machine that check_fresh_machine compares with).

# vm_saved_port SOCKET: adds to the caller's qemu the virtio port vm-run.go,
# a socket on the host, on which vm-run-wait hears that it was restored.
vm_saved_port() {
	# shellcheck disable=SC2054 # QEMU arguments with commas
	qemu+=(
		-device virtio-serial-pci
		-chardev "socket,id=vm-run-go,path=$1,server=on,wait=off"
		-device virtserialport,chardev=vm-run-go,name=vm-run.go
	)
}

# vm_send_time SOCKET LIMIT: once QEMU listens on SOCKET, sends the time and
# stays connected (at most LIMIT seconds, or until killed): the guest's end
# of a virtio port sees data only while the host's end is connected.
vm_send_time() {
	local i
	for i in $(seq 100); do
		[ -S "$1" ] && break
		sleep 0.1
	done
	# ignoreeof: at the end of its input socat waits for more, connected;
	# -T: at most LIMIT seconds of that.
	exec socat -T "$2" -u STDIN,ignoreeof "UNIX-CONNECT:$1" <<<"$(date +%s.%N)" 2>/dev/null
}

# vm_monitor SOCKET COMMAND...: runs QEMU monitor (HMP) commands, prints
# their answers.
vm_monitor() {
	local sock=$1
	shift
	printf '%s\n' "$@" | socat -t 5 - "UNIX-CONNECT:$sock" | tr -d '\r' |
		grep -av -e '^(qemu)' -e '^QEMU [0-9]'
}

# The cache key of a saved machine: its image, the vCPUs, the memory, a
# NIC (VM_NIC=1), the QEMU and its command line, and what tests/vm/saved/
# puts on the disk.
vm_saved_key() {
	{
		basename "$VM_IMAGE"
		echo "cpus $1 mem $VM_MEM arch $VM_ARCH"
		[ "${VM_NIC:-0}" != 1 ] || echo "nic"
		if [ "$VM_ARCH" = amd64 ]; then
			echo "accel $VM_ACCEL $(vm_accel_args)"
			"$VM_QEMU_X86" --version | head -n 1
		else
			echo "tcg ${VM_TCG_THREAD:-multi} cpu $VM_ARM64_CPU"
			"$VM_QEMU_ARM64" --version | head -n 1
		fi
		declare -f vm_qemu_args vm_machine vm_saved_port vm_saved_build
		cat "$VM_LIBDIR"/saved/*
	} | sha256sum | cut -c1-16
}

# vm_saved_build DIR CPUS: the image's disk with tests/vm/saved/ written
# into it (debugfs), booted with CPUS vCPUs until vm-run-wait says it is
# ready, then saved: DIR/disk.img, DIR/state (the migration stream) and
# DIR/manifest (the machine's listing, read back from the disk).
vm_saved_build() {
	local dir=$1 cpus=$2 tmp=$1.tmp qemu log status i
	rm -rf "$tmp"
	mkdir -p "$tmp/share"
	cp --sparse=always "$VM_IMAGE/disk.img" "$tmp/disk.img"
	debugfs -w -f - "$tmp/disk.img" >/dev/null 2>&1 <<-EOF
		cd /usr/local/sbin
		write $VM_LIBDIR/saved/vm-run-wait vm-run-wait
		sif vm-run-wait mode 0100755
		write $VM_LIBDIR/saved/machine-listing vm-machine-listing
		sif vm-machine-listing mode 0100755
		mkdir /etc/systemd/system/vm-run.service.d
		cd /etc/systemd/system/vm-run.service.d
		write $VM_LIBDIR/saved/vm-run-wait.conf wait.conf
	EOF
	# debugfs exits 0 whatever its commands did: read the files back.
	for i in usr/local/sbin/vm-run-wait:vm-run-wait \
		usr/local/sbin/vm-machine-listing:machine-listing \
		etc/systemd/system/vm-run.service.d/wait.conf:vm-run-wait.conf; do
		debugfs -R "cat /${i%%:*}" "$tmp/disk.img" 2>/dev/null |
			cmp -s - "$VM_LIBDIR/saved/${i#*:}" ||
			{ vm_log "cannot write /${i%%:*} into the disk to save"; return 1; }
	done
	VM_SAVE_BOOT=1 vm_qemu_args "$tmp/disk.img" "$cpus" "$tmp/share"
	vm_saved_port "$tmp/go"
	qemu+=(-monitor "unix:$tmp/monitor,server=on,wait=off")
	log=$tmp/console
	"${qemu[@]}" </dev/null >"$log" 2>&1 &
	VM_QEMU_PID=$!
	for i in $(seq 600); do
		grep -q 'vm-run: ready to be saved' "$log" && break
		kill -0 "$VM_QEMU_PID" 2>/dev/null || break
		sleep 1
	done
	status=
	if grep -q 'vm-run: ready to be saved' "$log"; then
		vm_monitor "$tmp/monitor" "migrate -d \"exec:cat >$tmp/state\"" >/dev/null
		for i in $(seq 300); do
			status=$(vm_monitor "$tmp/monitor" 'info migrate' | sed -n 's/^Migration status: //p')
			case $status in completed | failed | cancelled) break ;; esac
			sleep 0.5
		done
	fi
	vm_kill "$VM_QEMU_PID"
	VM_QEMU_PID=
	if [ "$status" != completed ]; then
		vm_log "saving the booted machine failed (migration: ${status:-never began}); console: $log"
		return 1
	fi
	debugfs -R 'cat /var/lib/vm-run/manifest' "$tmp/disk.img" >"$tmp/manifest" 2>/dev/null
	grep -q '^package wp-panel-nettune \|^package systemd ' "$tmp/manifest" ||
		{ vm_log "the saved machine's listing is missing or empty"; return 1; }
	rm -rf "$tmp/share" "$tmp/monitor" "$tmp/go"
	mv "$tmp" "$dir"
}

# vm_saved CPUS: makes (once, cached beside the image) or finds the saved
# machine of the image with CPUS vCPUs, and a NIC where VM_NIC=1, and sets
# VM_SAVED to its folder.
# Returns 1, VM_SAVED empty, where it cannot be made.
vm_saved() {
	local key dir
	VM_SAVED=
	vm_accel
	key=$(vm_saved_key "$1")
	dir=$VM_IMAGE/saved-$key
	(
		flock 9
		if [ ! -f "$dir/state" ]; then
			vm_log "saving a booted machine of $(basename "$VM_IMAGE"), $1 vCPUs$([ "${VM_NIC:-0}" != 1 ] || echo ", a NIC") (once; cached)"
			local start=$SECONDS
			vm_saved_build "$dir" "$1" || exit 1
			vm_log "saved in $((SECONDS - start)) s: $dir"
		fi
		touch "$dir"
		# Each recipe change leaves one behind: drop those unused for a
		# week (a use touches the folder), as vm_image does with images.
		find "$VM_IMAGE" -mindepth 1 -maxdepth 1 -name 'saved-*' ! -path "$dir" \
			-mtime +7 -exec rm -rf {} +
	) 9>"$VM_IMAGE/.saved-$key.lock" || return 1
	VM_SAVED=$dir
}

# vm_boot DISK CPUS SHARE_DIR LOG [TIMEOUT]
# Boots DISK with CPUS vCPUs and SHARE_DIR as /host; the guest runs
# /host/run.sh and powers off. The console goes to LOG, the script's output
# is printed. Returns the script's exit status, 124 on timeout (default
# 600 s), 125 when the guest never wrote its status.
# With VM_RESTORE=1, DISK is replaced by a copy of the saved
# machine's disk and that machine is restored rather than booted (see
# vm_saved); where none can be saved or the restore fails before the
# guest ran anything, DISK is a fresh copy of the image and boots.
vm_boot() {
	local disk=$1 cpus=$2 share=$3 log=$4 limit=${5:-600}
	local start rc=0 how=booted

	cp "$VM_LIBDIR/../lib.sh" "$share/lib.sh"
	cp "$VM_LIBDIR/guest-lib.sh" "$share/guest-lib.sh"
	# The profile as DESIGN.md states it, for guest-lib.sh's nt_profile.
	"$VM_LIBDIR/../design-table" --profile bbr >"$share/profile-bbr"
	"$VM_LIBDIR/../design-table" --profile cubic >"$share/profile-cubic"
	rm -f "$share/rc" "$share/output"
	local accel=tcg
	if [ "$VM_ARCH" = amd64 ]; then
		vm_accel
		accel=$VM_ACCEL
	fi

	start=$(date +%s)
	if [ "${VM_RESTORE:-0}" = 1 ] && vm_saved "$cpus"; then
		how=restored
		cp --sparse=always "$VM_SAVED/disk.img" "$disk"
		VM_RESTORE_FROM=$VM_SAVED vm_qemu "$disk" "$cpus" "$share" "$log" "$limit" || rc=$?
		if ! grep -q 'vm-run: restored' "$log"; then
			vm_log "restoring $VM_SAVED failed (console: $log.restore): booting instead"
			mv "$log" "$log.restore"
			cp --sparse=always "$VM_IMAGE/disk.img" "$disk"
			how=booted start=$(date +%s) rc=0
		fi
	fi
	if [ "$how" = booted ]; then
		vm_qemu "$disk" "$cpus" "$share" "$log" "$limit" || rc=$?
	fi
	if [ "$accel" = kvm ] && [ "$rc" = 123 ]; then
		vm_log "KVM failed during the boot: switching to TCG for this run"
		VM_ACCEL=tcg accel=tcg how=booted
		cp --sparse=always "$VM_IMAGE/disk.img" "$disk"
		start=$(date +%s)
		rc=0
		vm_qemu "$disk" "$cpus" "$share" "$log" "$limit" || rc=$?
	fi
	local up='guest never came up'
	if [ "$how" = restored ]; then
		up='restored'
	elif grep -q 'guest up after' "$log"; then
		up=$(grep -o 'guest up after [0-9.]* s' "$log")
	fi
	vm_log "$(basename "$disk"): $VM_ARCH, $accel, $cpus cpu, $how, $(($(date +%s) - start)) s ($up)"

	[ -f "$share/output" ] && cat "$share/output"
	if [ "$rc" = 124 ]; then
		vm_log "FAIL: no poweroff within $limit s; the console's last lines ($log):"
		tail -n 20 "$log" >&2
		return 124
	fi
	if [ ! -f "$share/rc" ]; then
		vm_log "FAIL: the guest wrote no exit status; the console's last lines ($log):"
		tail -n 20 "$log" >&2
		return 125
	fi
	return "$(cat "$share/rc")"
}
