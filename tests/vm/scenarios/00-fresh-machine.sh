# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 0. The harness itself: every scenario's first boot of a fresh disk checks
#    that the machine is the fresh one (check_fresh_machine against the
#    listing the saved machine recorded), restored or booted. The first
#    boot, restored, passes that check, then leaves what a scenario might:
#    a file in /etc/sysctl.d, a folder under /usr/local, the package
#    removed but not purged. Its disk, handed out again as if fresh,
#    boots: the check must fail there and name each of them.
title="the fresh-machine check: passes on a fresh disk, names what an earlier boot left"

scenario() {
	local d
	d=$(disk fresh-machine)
	boot first "$d" 2 <<'GUEST' || return 1
echo 'net.core.somaxconn = 4096' >/etc/sysctl.d/70-left-behind.conf
mkdir -p /usr/local/lib/left-behind
check "install" apt_get install install /host/pkg.deb
check "remove (not purge): the package's conffiles stay" apt_get remove remove wp-panel-nettune
GUEST
	# What a harness reusing a disk by mistake would do: boot it as fresh.
	touch "$d.fresh"
	VM_BOOT=1 boot again "$d" 2 <<'GUEST'
GUEST
	local out=$LOGDIR/$SCENARIO-again.out
	echo "checks on the host, of $out:"
	local rc=0 want
	for want in 'not ok 1 - a fresh machine: nothing an earlier scenario left' \
		'#   \+path f /etc/sysctl.d/70-left-behind.conf' \
		'#   \+path d /usr/local/lib/left-behind' \
		'#   \+package wp-panel-nettune [^ ]+ rc'; do
		if grep -Eq -- "^$want\$" "$out"; then
			echo "ok - the second boot says: $want"
		else
			echo "not ok - the second boot does not say: $want"
			rc=1
		fi
	done
	return "$rc"
}
