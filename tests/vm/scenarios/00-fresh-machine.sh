# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 0. The harness itself: every scenario's first boot of a fresh disk checks
#    that the machine is the fresh one (check_fresh_machine against the
#    listing the saved machine recorded), restored or booted. The first
#    boot, restored, passes that check, then leaves what a scenario might:
#    a file in /etc/sysctl.d, a folder under /usr/local, the package
#    removed but not purged. Its disk, handed out again as if fresh,
#    boots: the check must fail there and name each of them. The first
#    boot also proves the purge scenarios' comparison of /etc, /var/lib
#    and /usr (guest-lib.sh's tree_compare) fails on a file planted under
#    /usr and a mode changed under /etc.
title="the fresh-machine check: passes on a fresh disk, names what an earlier boot left"

scenario() {
	local d
	d=$(disk fresh-machine)
	boot first "$d" 2 <<'GUEST' || return 1
# The purge scenarios' comparison (tree_listing, tree_compare) must fail on
# a file left under /usr, known there by its path alone, and on a mode
# changed under /etc; both are undone before the rest.
tree_listing /tmp/planted.before
mkdir /usr/share/left-behind
: >/usr/share/left-behind/file
mode=$(stat -c %a /etc/hostname)
chmod 600 /etc/hostname
tree_listing /tmp/planted.after
compared=$(tree_compare "planted" /tmp/planted.before /tmp/planted.after)
check_match "the purge comparison fails on what was planted" '^not ok [0-9]+ - planted$' "$compared"
check_match "and names the file left under /usr" '^#   \+f /usr/share/left-behind/file$' "$compared"
check_match "and the mode changed under /etc" '^#   \+f 600 root:root /etc/hostname$' "$compared"
rm -r /usr/share/left-behind
chmod "$mode" /etc/hostname
tree_listing /tmp/planted.undone
compared=$(tree_compare "undone" /tmp/planted.before /tmp/planted.undone)
check_match "and passes once they are undone" '^ok [0-9]+ - undone$' "$compared"

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
