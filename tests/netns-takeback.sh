#!/bin/sh
# The take-back of the route windows the builds of 0.2.0 gave, on the real
# kernel in a network namespace of its own: routes the helper must leave
# alone stay byte for byte (another interface's default route of the same
# metric, a ToS route beside a plain one, the administrator's own windows,
# IPv6 routes of equal metric), and the windows come off where the route's
# key is its own. And the files those builds wrote: removed only while they
# are their copy.
#
# The take-back runs on the real root only, where the kernel may be tuned: a
# container's marker files (/.dockerenv) would make the helper leave it
# alone. So each run is in a root of its own, a directory holding a copy of
# /etc, its own /var/lib and /run, and /usr read-only, entered with chroot
# as PID 1 of a PID namespace of its own: there / is PID 1's root, as on a
# host.
#
# usage: tests/netns-takeback.sh BINARY [COMMAND]
# COMMAND is apply (the default) or revert: both take back the steps.
set -eu

bin=$(realpath "$1")
cmd=${2:-apply}
here=$(dirname "$0")

if [ "$(id -u)" != 0 ]; then
	echo "netns-takeback: needs root to create a network namespace" >&2
	exit 1
fi
if [ "${NETTUNE_TAKEBACK_IN_NETNS:-}" != 1 ]; then
	rc=0
	NETTUNE_TAKEBACK_IN_NETNS=1 unshare --net "$0" "$@" || rc=$?
	exit "$rc"
fi

. "$here/lib.sh"

# No duplicate address detection in this namespace: an interface's IPv6
# link-local address, and the local route the kernel gives it, are there
# as soon as the interface is up, not a second later, between two
# snapshots of the route tables that must be the same.
sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0

sys=$(mktemp -d /tmp/nettune-sys.XXXXXX)
trap 'rm -rf "$sys"' EXIT
mkdir -p "$sys/usr" "$sys/dev" "$sys/proc" "$sys/sys" "$sys/run" "$sys/tmp" "$sys/var/lib" "$sys/opt"
for link in bin sbin lib lib64; do
	ln -s "usr/$link" "$sys/$link"
done
cp -a /etc "$sys/etc"
rm -rf "$sys/etc/sysctl.d" "$sys/etc/modules-load.d" "$sys/etc/wp-panel-nettune"
mkdir -p "$sys/etc/sysctl.d" "$sys/etc/modules-load.d"
# A fragment without fq: apply leaves the sock_ops program alone here.
echo "net.ipv4.tcp_fin_timeout = 15" >"$sys/etc/sysctl.d/60-wp-panel-nettune.conf"
cp "$bin" "$sys/opt/wp-panel-nettune"
state=$sys/var/lib/wp-panel-nettune

# in_root COMMAND...: COMMAND in that root, PID 1 of its own PID namespace.
# shellcheck disable=SC2016 # expanded by the shells it starts
in_root() {
	unshare --mount --pid --fork --propagation private /bin/sh -ec '
		sys=$1
		shift
		mount --bind /usr "$sys/usr"
		mount -o remount,bind,ro "$sys/usr"
		mount --rbind /dev "$sys/dev"
		exec env -i PATH=/usr/sbin:/usr/bin LC_ALL=C chroot "$sys" /bin/sh -ec \
			"mount -t proc proc /proc; mount -t sysfs sysfs /sys; exec \"\$@\"" sh "$@"' \
		sh "$sys" "$@"
}
nettune() { in_root /opt/wp-panel-nettune "$@"; }

check_match "the root of its own is a host, not a container" '^environment: host$' "$(nettune detect)"

# journal STEP...: a journal of 0.2.0 holding these steps alone.
journal() {
	rm -rf "$state"
	mkdir -p "$state"
	{
		echo "# wp-panel-nettune journal 1"
		printf '%s\n' "$@"
		echo "# end"
	} >"$state/journal"
}
steps() { grep -E '^(windows|added)	' "$state/journal" 2>/dev/null || true; }

# veth NAME: an interface with a carrier (its peer, NAMEp, is up too).
veth() {
	ip link add name "$1" type veth peer name "$1p"
	ip link set dev "$1" up
	ip link set dev "$1p" up
}
# reset: nta and ntb, fresh, with addresses and no default route.
reset() {
	for link in nta ntb ntc -x; do
		ip link del dev "$link" 2>/dev/null || true
	done
	veth nta
	veth ntb
	ip addr add 192.0.2.10/24 dev nta
	ip addr add 198.51.100.10/24 dev ntb
	ip -6 addr add 2001:db8:a::10/64 dev nta nodad
	ip -6 addr add 2001:db8:b::10/64 dev ntb nodad
}
routes() {
	ip route show table all
	ip -6 route show table all
}
windows_off() { sed "$1"' s/ initcwnd 32 initrwnd 32 / /'; }

# Another interface's default route of the same metric: replacing ntb's
# route (NLM_F_REPLACE) would replace nta's, the first of their key.
reset
ip route add default via 192.0.2.1 dev nta metric 100
ip route append default via 198.51.100.1 dev ntb metric 100 initcwnd 32 initrwnd 32
before=$(routes)
journal "windows	ntb	32	32"
check_rc "$cmd beside another interface's route of the same metric" 0 nettune "$cmd"
check_eq "leaves every route byte for byte, nta's and ntb's" "$before" "$(routes)"
check_match "and says ntb's keeps its windows, and why" \
	'^route default via 198\.51\.100\.1 dev ntb metric 100: initial windows 32 and 32 left on it: another default route has its metric' "$out"
# Once: the next ifup or DHCP renewal of ntb adds its route without them.
check_eq "the step is done with" "" "$(steps)"

# An unreachable default route of the same metric shares the key too: the
# kernel keys routes of every type alike.
reset
ip route add unreachable default metric 100
ip route append default via 198.51.100.1 dev ntb metric 100 initcwnd 32 initrwnd 32
ip -6 route add unreachable default metric 100
ip -6 route append default via 2001:db8:b::1 dev ntb metric 100 initcwnd 32 initrwnd 32
before=$(routes)
journal "windows	ntb	32	32"
check_rc "$cmd beside unreachable default routes of the same metric" 0 nettune "$cmd"
check_eq "leaves every route byte for byte" "$before" "$(routes)"
check_match "and says ntb's keeps its windows" \
	'^route default via 198\.51\.100\.1 dev ntb metric 100: initial windows 32 and 32 left on it' "$out"
ip route del unreachable default metric 100 2>/dev/null || true
ip -6 route del unreachable default metric 100 2>/dev/null || true

# ntb's route alone under its key, IPv4 and IPv6: the windows come off, the
# rest of the route stays.
reset
ip route add default via 198.51.100.1 dev ntb proto static metric 100 src 198.51.100.10 onlink initcwnd 32 initrwnd 32
ip -6 route add default via 2001:db8:b::1 dev ntb proto static metric 100 initcwnd 32 initrwnd 32
before=$(routes)
journal "windows	ntb	32	32"
check_rc "$cmd with ntb's routes alone under their keys" 0 nettune "$cmd"
check_eq "takes the windows off, proto, metric, src and onlink kept" \
	"$(printf '%s\n' "$before" | windows_off '/^default via .* dev ntb /')" "$(routes)"
check_match "and says so" '^route default via 198\.51\.100\.1 dev ntb metric 100: initial windows taken off\.$' "$out"
check_match "for IPv6 too" '^route default via 2001:db8:b::1 dev ntb metric 100: initial windows taken off\.$' "$out"
check_eq "the step is done with" "" "$(steps)"

# A ToS route with the windows beside the plain route without them: another
# key, no twin; it keeps its place, without the windows.
reset
ip route add default via 198.51.100.1 dev ntb
ip route add default tos 0x10 via 198.51.100.1 dev ntb initcwnd 32 initrwnd 32
before=$(routes)
journal "windows	ntb	32	32"
check_rc "$cmd with a ToS route beside a plain one" 0 nettune "$cmd"
check_match "the ToS route is still there" '^default tos 0x10 via 198\.51\.100\.1 dev ntb $' "$(routes)"
check_eq "only its windows are gone" \
	"$(printf '%s\n' "$before" | windows_off '/^default tos 0x10 /')" "$(routes)"

# The administrator's own windows on an interface the journal does not name.
reset
ip route add default via 192.0.2.1 dev nta metric 50 initcwnd 32 initrwnd 32
ip route add default via 198.51.100.1 dev ntb metric 100
before=$(routes)
journal "windows	ntb	32	32"
check_rc "$cmd with the administrator's own windows on nta" 0 nettune "$cmd"
check_eq "leaves them" "$before" "$(routes)"

# IPv6 default routes of equal metric on two interfaces: through gateways
# the kernel makes them one multipath route (never taken back); without,
# two routes of one key, so ntb's is shared.
reset
ip -6 route add default via 2001:db8:a::1 dev nta metric 100
ip -6 route append default via 2001:db8:b::1 dev ntb metric 100
ip -6 route add default dev nta metric 200
ip -6 route append default dev ntb metric 200 initcwnd 32 initrwnd 32
before=$(routes)
journal "windows	ntb	32	32"
check_rc "$cmd with IPv6 routes of equal metric on nta and ntb" 0 nettune "$cmd"
check_eq "leaves every route byte for byte" "$before" "$(routes)"
check_match "and says ntb's keeps its windows" \
	'^route default dev ntb metric 200: initial windows 32 and 32 left on it' "$out"

# An interface whose name begins with "-".
reset
ip link add name -x type veth peer name -xp
ip link set dev -x up
ip link set dev -xp up
ip addr add 203.0.113.10/24 dev -x
ip route add default via 203.0.113.1 dev -x metric 400 initcwnd 32 initrwnd 32
before=$(routes)
journal "windows	-x	32	32"
check_rc "$cmd with a windows step for -x" 0 nettune "$cmd"
check_eq "takes the windows off its route" \
	"$(printf '%s\n' "$before" | windows_off '/^default via 203\.0\.113\.1 dev -x /')" "$(routes)"
ip link del dev -x

# A route whose link has no carrier (its veth peer down): linkdown.
reset
ip link add name ntc type veth peer name ntcp
ip link set dev ntc up
ip addr add 10.9.0.10/24 dev ntc
ip route add default via 10.9.0.1 dev ntc metric 500 initcwnd 32 initrwnd 32
before=$(routes)
journal "windows	ntc	32	32"
check_match "the route is linkdown" '^default via 10\.9\.0\.1 dev ntc metric 500 linkdown initcwnd 32 initrwnd 32 $' "$before"
check_rc "$cmd with a linkdown route" 0 nettune "$cmd"
check_eq "takes the windows off it too" \
	"$(printf '%s\n' "$before" | windows_off '/^default via 10\.9\.0\.1 dev ntc /')" "$(routes)"
check_eq "the step is done with" "" "$(steps)"

# The files: removed while they are their copy, left when edited or a
# symlink; the directory the helper made goes with the file.
reset
dropin=/etc/systemd/network/50-ntb.network.d/50-wp-panel-nettune.conf
journal "added	/etc/network/if-up.d/wp-panel-nettune	added/ifupdown-hook	dir-existed" \
	"added	/etc/dhcp/dhclient-exit-hooks.d/wp-panel-nettune	added/dhclient-hook	dir-existed" \
	"added	$dropin	added/50-ntb.conf	new-dir"
mkdir -p "$state/added" "$sys/etc/network/if-up.d" "$sys/etc/dhcp/dhclient-exit-hooks.d" \
	"$sys${dropin%/*}"
echo "#!/bin/sh" >"$state/added/ifupdown-hook"
printf '#!/bin/sh\n# the administrator was here\n' >"$sys/etc/network/if-up.d/wp-panel-nettune"
echo "#!/bin/sh" >"$state/added/dhclient-hook"
cp "$state/added/dhclient-hook" "$sys/tmp/hook"
ln -s /tmp/hook "$sys/etc/dhcp/dhclient-exit-hooks.d/wp-panel-nettune"
printf '[Route]\nInitialCongestionWindow=32\n' >"$state/added/50-ntb.conf"
cp "$state/added/50-ntb.conf" "$sys$dropin"
check_rc "$cmd with three added steps" 0 nettune "$cmd"
check_match "an edited file is left, and said so" \
	'^/etc/network/if-up\.d/wp-panel-nettune was changed since the package wrote it: left in place\.$' "$out"
check_eq "byte for byte" "$(printf '#!/bin/sh\n# the administrator was here\n')" \
	"$(cat "$sys/etc/network/if-up.d/wp-panel-nettune")"
check_match "a symlink is left, and said so" \
	'^/etc/dhcp/dhclient-exit-hooks\.d/wp-panel-nettune is a symlink now: left in place\.$' "$out"
check_match "the file as written is removed" "^Removed $dropin\\.\$" "$out"
check "still a symlink" test -L "$sys/etc/dhcp/dhclient-exit-hooks.d/wp-panel-nettune"
check "with the directory the package made for it" test ! -e "$sys${dropin%/*}"
check "the copies are gone, and their directory" test ! -e "$state/added"
check_eq "and the steps" "" "$(steps)"

summary
