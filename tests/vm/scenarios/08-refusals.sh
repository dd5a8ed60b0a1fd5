# shellcheck shell=bash disable=SC2034 # title, estimate and needs are read by tests/vm/run
# 8. Refusals, one 2-vCPU boot.
#    a. tcp_bbr blacklisted in /etc/modprobe.d before the install: the
#       install succeeds and says why BBR is not used; nothing is half
#       applied (neither bbr nor fq, tcp_bbr not loaded or listed, every
#       other key live, nothing recorded for the two congestion keys,
#       status 0); purge leaves files and values as before.
#    b. /proc/sys read-only, as in a container, two ways: apt run in a
#       mount namespace of its own (unshare --mount) whose /proc/sys is
#       bind-remounted read-only; and /proc/sys made read-only the same way
#       in the machine's own mount namespace, where nothing but the
#       read-only /proc/sys tells the package to keep off. Each time the
#       install and the purge succeed and say the kernel is left alone,
#       and it is; the fragments and the first-boot marker are written;
#       purge leaves files and values as before. Both ways the install and
#       the purge give the read-only /proc/sys/net as their reason: a mount
#       namespace of its own is no chroot.
title="refusals: tcp_bbr blacklisted; read-only /proc/sys"
estimate=600

scenario() {
	# Three installs and purges: 600 s with another lane beside it.
	boot refusals "$(disk refusals)" 2 1200 <<'GUEST'
note "a. tcp_bbr blacklisted"
tree_listing /host/a-before.tree
sysctl_snapshot /host/a-before.sysctl
echo 'blacklist tcp_bbr' >/etc/modprobe.d/vm-test-blacklist.conf
check "install with tcp_bbr blacklisted" apt_get install-blacklisted install /host/pkg.deb
said "the install says tcp_bbr is blacklisted" install-blacklisted 'tcp_bbr.*blacklist|blacklist.*tcp_bbr'
note "the fragment says: $(grep -m1 '^# Why' "$NT_SYSCTL")"
check_profile_in_effect cubic
check "nothing recorded for the congestion keys" \
	sh -c "! grep -Eq '^key[[:space:]]net\.(ipv4\.tcp_congestion_control|core\.default_qdisc)[[:space:]]' $NT_JOURNAL"
check_status_ok "tcp_bbr blacklisted"
check "purge" apt_get purge-blacklisted purge wp-panel-nettune
rm -f /etc/modprobe.d/vm-test-blacklist.conf
tree_listing /host/a-after.tree
tree_compare "a: /etc, /var/lib, /usr as before the install" /host/a-before.tree /host/a-after.tree
sysctl_snapshot /host/a-after.sysctl
check_same "a: every value under /proc/sys/net as before the install" \
	/host/a-before.sysctl /host/a-after.sysctl

# ro_install NAME WRAPPER: install and purge with WRAPPER running apt
# while /proc/sys is read-only; checks as above, logs NAME-install and
# NAME-purge, snapshots /host/NAME-*.
ro_install() {
	tree_listing "/host/$1-before.tree"
	sysctl_snapshot "/host/$1-before.sysctl"
	check "$1: in there, /proc/sys/net is read-only" $2 sh -c '! test -w /proc/sys/net/core/somaxconn'
	check "$1: install with /proc/sys read-only" logged "$1-install" $2 env \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o Dpkg::Use-Pty=0 /host/pkg.deb
	said "$1: the install says it leaves the running kernel alone" "$1-install" \
		'running kernel is left alone'
	sysctl_snapshot "/host/$1-installed.sysctl"
	check_same "$1: the kernel untouched by the install" \
		"/host/$1-before.sysctl" "/host/$1-installed.sysctl"
	check_eq "$1: tcp_bbr not loaded" absent "$(bbr_module)"
	check "$1: the fragments are written" test -f "$NT_SYSCTL" -a -f "$NT_MODULES"
	check "$1: the first-boot marker is left for the next boot" test -f "$NT_MARKER"
	check "$1: purge with /proc/sys read-only" logged "$1-purge" $2 env \
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -q -o Dpkg::Use-Pty=0 wp-panel-nettune
	said "$1: the purge says the kernel is left alone" "$1-purge" 'left alone'
	tree_listing "/host/$1-after.tree"
	tree_compare "$1: /etc, /var/lib, /usr as before the install" \
		"/host/$1-before.tree" "/host/$1-after.tree"
	sysctl_snapshot "/host/$1-after.sysctl"
	check_same "$1: every value under /proc/sys/net as before" \
		"/host/$1-before.sysctl" "/host/$1-after.sysctl"
}

note "b1. read-only /proc/sys in a mount namespace of apt's own"
# ro_ns CMD...: CMD in a new mount namespace whose /proc/sys is read-only.
ro_ns() {
	unshare --mount sh -c 'mount --bind /proc/sys /proc/sys &&
		mount -o remount,bind,ro /proc/sys && exec "$@"' sh "$@"
}
ro_install ro-ns ro_ns
# A mount namespace of its own is no chroot: its root is PID 1's root.
said "ro-ns: the install's reason is the read-only /proc/sys/net, not a chroot" ro-ns-install \
	'^wp-panel-nettune: /proc/sys/net is read-only: the running kernel is left alone'
said "ro-ns: the purge's reason is the same" ro-ns-purge \
	'^wp-panel-nettune: /proc/sys/net is read-only: the running kernel is left alone'

note "b2. read-only /proc/sys in the machine's own mount namespace"
mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys
ro_install ro-host ""
said "ro-host: the reason given is the read-only /proc/sys/net" ro-host-install \
	'/proc/sys/net is read-only'
said "ro-host: the purge's reason is the same" ro-host-purge \
	'^wp-panel-nettune: /proc/sys/net is read-only: the running kernel is left alone'
umount /proc/sys
check "/proc/sys writable again" test -w /proc/sys/net/core/somaxconn
GUEST
}
