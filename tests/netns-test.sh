#!/bin/sh
# apply and revert against the real kernel, inside a throwaway network
# namespace: the netns keys are written for real and read back from
# /proc/sys, and the machine's own settings are never touched.
#
# The helper runs with --root on a tree whose proc and sys are the real ones,
# so that its /etc and /var/lib are the tree's.
#
# usage: tests/netns-test.sh BINARY
set -eu

bin=$(realpath "$1")
here=$(dirname "$0")

if [ "$(id -u)" != 0 ]; then
	echo "netns-test: needs root to create a network namespace" >&2
	exit 1
fi
if [ "${NETTUNE_IN_NETNS:-}" != 1 ]; then
	# Re-run inside a new network namespace. unshare fails clearly where
	# namespaces are not allowed; that is a failure, not a skip.
	allowed=/proc/sys/net/ipv4/tcp_allowed_congestion_control
	saved=$(cat "$allowed")
	# A child namespace may only pick an algorithm the initial one allows:
	# bbr, and cubic for a fragment that names it.
	wanted=$saved
	for algo in bbr cubic; do
		case " $wanted " in
		*" $algo "*) ;;
		*) wanted="$wanted $algo" ;;
		esac
	done
	if [ "$wanted" != "$saved" ]; then
		trap 'echo "$saved" > "$allowed"' EXIT
		echo "$wanted" > "$allowed"
	fi
	rc=0
	NETTUNE_IN_NETNS=1 unshare --net "$0" "$@" || rc=$?
	exit "$rc"
fi

. "$here/lib.sh"

tree=$(mktemp -d /tmp/nettune-netns.XXXXXX)
trap 'rm -rf "$tree"' EXIT
# The kernel's files are the real ones. PID 1's view of the mounts is given
# as our own: this tree is the host, not a chroot, whether or not this
# machine lets us read /proc/1.
mkdir -p "$tree/proc/1" "$tree/proc/self"
ln -s /proc/sys "$tree/proc/sys"
ln -s /proc/meminfo "$tree/proc/meminfo"
ln -s /proc/self/mountinfo "$tree/proc/1/mountinfo"
ln -s /proc/self/mountinfo "$tree/proc/self/mountinfo"
ln -s /sys "$tree/sys"
mkdir -p "$tree/etc/sysctl.d" "$tree/etc/modules-load.d"
fragment=$tree/etc/sysctl.d/60-wp-panel-nettune.conf
journal=$tree/var/lib/wp-panel-nettune/journal
nettune() { "$bin" --root "$tree" "$@"; }

# key_path KEY: the /proc/sys file of a dotted key.
key_path() { echo "/proc/sys/$(echo "$1" | tr . /)"; }

check_match "the tree is the host, not a chroot" '^environment: host$' "$(nettune detect)"
check "render the fragment" sh -c "'$bin' --root '$tree' render sysctl > '$fragment'"
nettune render modules > "$tree/etc/modules-load.d/wp-panel-nettune.conf"

# Global keys are absent or read-only in a child namespace, as in a container.
keys=$(fragment_settings "$fragment" | cut -d ' ' -f 1)
netns_keys=
for key in $keys; do
	[ -w "$(key_path "$key")" ] && [ -n "$(find "$(key_path "$key")" -perm /222)" ] &&
		netns_keys="$netns_keys $key"
done
check_match "the netns keys include the buffers" ' net.ipv4.tcp_rmem ' "$netns_keys "
check_match "but not the global rmem_max" '^$' "$(echo "$netns_keys" | tr ' ' '\n' | grep -x net.core.rmem_max || true)"

check_match "the fragment sets bbr on this 2-CPU machine" \
	'^net.ipv4.tcp_congestion_control = bbr$' "$(cat "$fragment")"

originals=
for key in $netns_keys; do
	originals="$originals$key=$(sysctl_value "$key");"
done

check_rc "apply exits 0" 0 nettune apply
for key in $netns_keys; do
	want=$(fragment_settings "$fragment" | sed -n "s/^$key //p")
	check_eq "$key is live after apply" "$want" "$(sysctl_value "$key")"
done
check_match "apply sets the netns keys" '^set net.ipv4.tcp_fin_timeout = 15 ' "$out"
check_eq "and says nothing of the global keys, absent or read-only here" "" \
	"$(printf '%s\n' "$out" | grep -E 'default_qdisc|netdev_max_backlog|[rw]mem_max' || true)"
check_rc "status exits 0 with every netns key in effect" 0 nettune status
check_match "status marks absent global keys" 'net.core.netdev_max_backlog .*not in this namespace' "$out"
check_match "and read-only ones" 'net.core.rmem_max .*read-only in this namespace' "$out"

check_rc "journal lists what purge puts back" 0 nettune journal
fin_was=$(echo "$originals" | tr ';' '\n' | sed -n 's/^net.ipv4.tcp_fin_timeout=//p')
check_match "the original of a key apply changed" \
	"^  net.ipv4.tcp_fin_timeout = $fin_was, if it is still 15\$" "$out"
check_eq "and nothing of the global keys" "" \
	"$(printf '%s\n' "$out" | grep -E 'default_qdisc|netdev_max_backlog|[rw]mem_max' || true)"
first=$(cat "$journal" 2>&1 || true)
check_rc "a second apply changes nothing" 0 nettune apply
check_match "and says so" '^Set 0 keys, 1[0-9] already in effect, [0-9] skipped' "$out"
check_eq "not even the journal" "$first" "$(cat "$journal" 2>&1 || true)"

echo 45 > "$(key_path net.ipv4.tcp_keepalive_intvl)"
check_rc "status exits 3 on drift" 3 nettune status
check_match "and names the key" '^net.ipv4.tcp_keepalive_intvl .*DRIFT' "$out"

check_rc "revert exits 0" 0 nettune revert
check_match "revert leaves a key someone changed" 'tcp_keepalive_intvl is now 45, changed since' "$out"
for key in $netns_keys; do
	want=$(echo "$originals" | tr ';' '\n' | sed -n "s/^$key=//p")
	if [ "$key" = net.ipv4.tcp_keepalive_intvl ]; then
		want=45
	fi
	check_eq "$key is back to its original" "$want" "$(sysctl_value "$key")"
done
check "the journal is gone" test ! -e "$tree/var/lib/wp-panel-nettune"
check_rc "a second revert is harmless" 0 nettune revert

# Switching to cubic later sets cubic; revert puts the recorded congestion
# control back.
echo 75 > "$(key_path net.ipv4.tcp_keepalive_intvl)"
orig_cc=$(sysctl_value net.ipv4.tcp_congestion_control)
check_rc "apply again" 0 nettune apply
check_eq "bbr is live" bbr "$(sysctl_value net.ipv4.tcp_congestion_control)"
nettune render sysctl --congestion cubic > "$fragment"
check_rc "apply after choosing cubic" 0 nettune apply
check_eq "cubic is live" cubic "$(sysctl_value net.ipv4.tcp_congestion_control)"
check_eq "the other keys stay applied" 15 "$(sysctl_value net.ipv4.tcp_fin_timeout)"
check_rc "revert" 0 nettune revert
check_eq "the original congestion control is back" \
	"$orig_cc" "$(sysctl_value net.ipv4.tcp_congestion_control)"
check_eq "fin_timeout is back" \
	"$(echo "$originals" | tr ';' '\n' | sed -n 's/^net.ipv4.tcp_fin_timeout=//p')" \
	"$(sysctl_value net.ipv4.tcp_fin_timeout)"

# An administrator's later file, live: apply leaves its key alone on the
# real kernel, records nothing for it, and revert leaves its value.
nettune render sysctl > "$fragment"
fin=$(sysctl_value net.ipv4.tcp_fin_timeout)
echo "net.ipv4.tcp_fin_timeout = 30" > "$tree/etc/sysctl.d/70-local.conf"
echo 30 > "$(key_path net.ipv4.tcp_fin_timeout)"
check_rc "apply with 70-local.conf setting tcp_fin_timeout" 0 nettune apply
check_match "leaves it to that file" \
	"^left net.ipv4.tcp_fin_timeout alone: $tree/etc/sysctl.d/70-local.conf sets it to 30 at boot\$" "$out"
check_eq "which stays live" 30 "$(sysctl_value net.ipv4.tcp_fin_timeout)"
check_eq "with no original recorded" "" "$(grep '^key	net.ipv4.tcp_fin_timeout	' "$journal" || true)"
check_rc "status exits 0" 0 nettune status
check_match "the key overridden by the file" \
	'^net.ipv4.tcp_fin_timeout +15 +30 +/etc/sysctl.d/70-local.conf  \(overridden\)$' "$out"
check_rc "revert" 0 nettune revert
check_eq "leaves the administrator's value" 30 "$(sysctl_value net.ipv4.tcp_fin_timeout)"
rm "$tree/etc/sysctl.d/70-local.conf"
echo "$fin" > "$(key_path net.ipv4.tcp_fin_timeout)"

# Values the kernel does not take as written. The journal must keep the
# original and what the kernel really holds, so revert and purge still work.
fin=$(sysctl_value net.ipv4.tcp_fin_timeout)
somax=$(sysctl_value net.core.somaxconn)
rmem=$(sysctl_value net.ipv4.tcp_rmem)
nettune render sysctl >"$fragment"
sed -i -e 's/^net.ipv4.tcp_fin_timeout = .*/net.ipv4.tcp_fin_timeout = 015/' "$fragment"
check_rc "apply with an octal value" 0 nettune apply
check_eq "the kernel reads 015 as 13" 13 "$(sysctl_value net.ipv4.tcp_fin_timeout)"
check_match "apply says how the kernel read it" 'tcp_fin_timeout = 015 \(was [0-9]+; the kernel reads it as 13\)' "$out"
check_match "the journal holds what the kernel holds" "^key	net.ipv4.tcp_fin_timeout	$fin	13\$" \
	"$(cat "$journal")"

sed -i -e 's/^net.core.somaxconn = .*/net.core.somaxconn = lots/' "$fragment"
check_rc "a value the kernel rejects fails apply" 1 nettune apply
check_match "with a message naming it" 'cannot set net.core.somaxconn to lots: Invalid argument' "$out"
check_eq "somaxconn keeps the value applied before" 65535 "$(sysctl_value net.core.somaxconn)"
check_match "and the journal still has its original" "^key	net.core.somaxconn	$somax	65535\$" \
	"$(cat "$journal")"

sed -i -e 's/^net.ipv4.tcp_rmem = .*/net.ipv4.tcp_rmem = 4096 131072 8388608 99/' "$fragment"
nettune apply >/dev/null 2>&1 || true
check_rc "revert after all that" 0 nettune revert
check_eq "fin_timeout's original is back" "$fin" "$(sysctl_value net.ipv4.tcp_fin_timeout)"
check_eq "somaxconn's original is back" "$somax" "$(sysctl_value net.core.somaxconn)"
check_eq "tcp_rmem's original is back" "$rmem" "$(sysctl_value net.ipv4.tcp_rmem)"
check "nothing is left recorded" test ! -e "$tree/var/lib/wp-panel-nettune"

# A record 0.1.0 left, converted into the journal and reverted from it on
# the real kernel.
fin=$(sysctl_value net.ipv4.tcp_fin_timeout)
echo 21 >"$(key_path net.ipv4.tcp_fin_timeout)"
mkdir -p "$tree/var/lib/wp-panel-nettune"
printf '%s\n' '# wp-panel-nettune state 1' "net.ipv4.tcp_fin_timeout	$fin	21" '# end' \
	>"$tree/var/lib/wp-panel-nettune/state"
check_rc "journal --convert takes a record of 0.1.0" 0 nettune journal --convert
check_match "into a journal step" "^key	net.ipv4.tcp_fin_timeout	$fin	21\$" "$(cat "$journal")"
check "and removes the record" test ! -e "$tree/var/lib/wp-panel-nettune/state"
check_rc "revert from it" 0 nettune revert
check_eq "puts the original back" "$fin" "$(sysctl_value net.ipv4.tcp_fin_timeout)"
check "and leaves nothing recorded" test ! -e "$tree/var/lib/wp-panel-nettune"

# Several applies and a revert at once against the real kernel, round after
# round: the lock keeps every original, so a last revert puts all back.
nettune render sysctl >"$fragment"
before=
for key in $netns_keys; do before="$before$key=$(sysctl_value "$key");"; done
good=0
rounds=${NETTUNE_NETNS_ROUNDS:-20}
for _ in $(seq "$rounds"); do
	nettune apply >/dev/null 2>&1 &
	a=$!
	nettune apply >/dev/null 2>&1 &
	b=$!
	nettune revert >/dev/null 2>&1 &
	c=$!
	nettune apply >/dev/null 2>&1 || true
	wait "$a" "$b" "$c" || true
	nettune revert >/dev/null 2>&1 || true
	now=
	for key in $netns_keys; do now="$now$key=$(sysctl_value "$key");"; done
	[ "$now" = "$before" ] && [ ! -e "$tree/var/lib/wp-panel-nettune" ] && good=$((good + 1))
done
echo "# netns concurrency: $good of $rounds rounds put every original back"
check_eq "concurrent runs on the real kernel lose no original" "$rounds" "$good"

# The default routes and their initial windows, read from this namespace's
# kernel: status asks the kernel on the real root only, so these runs are
# without --root (the machine's own /etc has no fragment: exit 3). A veth
# pair gives the routes an interface; a default route of another table, and
# a route that is not a default one, must not be listed.
ip link add nt-v0 type veth peer name nt-v1
ip link set nt-v0 up
ip link set nt-v1 up
ip addr add 192.0.2.10/24 dev nt-v0
ip -6 addr add 2001:db8::10/64 dev nt-v0 nodad
check "a default route with initial windows" \
	ip route add default via 192.0.2.1 dev nt-v0 proto static initcwnd 32 initrwnd 32
check "an IPv6 default route with initcwnd alone" \
	ip -6 route add default via 2001:db8::1 dev nt-v0 metric 512 initcwnd 20
ip route add 198.51.100.0/24 via 192.0.2.1 dev nt-v0 initcwnd 5
ip route add default via 192.0.2.2 dev nt-v0 table 100 initcwnd 7
routes=$(mktemp -d /tmp/nettune-routes.XXXXXX)
rc=0
"$bin" status --json >"$routes/json" || rc=$?
"$bin" status --prometheus >"$routes/prom" || rc=$?
check "status --json and --prometheus on the real root parse, follow the schema, agree" \
	python3 "$here/output-check.py" status "$routes/json" "$routes/prom" "$rc"
if command -v promtool >/dev/null 2>&1; then
	check "promtool check metrics accepts the route families" sh -c "promtool check metrics <'$routes/prom'"
fi
check_eq "status --json: the two default routes, windows as the kernel holds them" \
	'[{"family":"ipv4","interface":"nt-v0","gateway":"192.0.2.1","protocol":"static","metric":0,"initcwnd":32,"initrwnd":32,"manager":null,"wanted_initcwnd":null,"wanted_initrwnd":null,"wanted_from":null,"left_alone":"the profile gives initial windows only where fq paces the first flight"},{"family":"ipv6","interface":"nt-v0","gateway":"2001:db8::1","protocol":"boot","metric":512,"initcwnd":20,"initrwnd":null,"manager":null,"wanted_initcwnd":null,"wanted_initrwnd":null,"wanted_from":null,"left_alone":"the profile gives initial windows only where fq paces the first flight"}]' \
	"$(python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["routes"], separators=(",", ":")))' <"$routes/json")"
check_match "status --prometheus: the IPv4 route's initcwnd" \
	'^nettune_route_initcwnd\{family="ipv4",interface="nt-v0",gateway="192\.0\.2\.1",protocol="static",metric="0"\} 32$' \
	"$(cat "$routes/prom")"
check_match "status --prometheus: 0 where the route sets no initrwnd" \
	'^nettune_route_initrwnd\{family="ipv6",interface="nt-v0",gateway="2001:db8::1",protocol="boot",metric="512"\} 0$' \
	"$(cat "$routes/prom")"
# The text lists them after the qdiscs when there is a fragment: a mount
# namespace of its own, with a tmpfs over /etc/sysctl.d holding the tree's.
nettune render sysctl >"$fragment"
text=$(unshare --mount sh -c "mount -t tmpfs nettune /etc/sysctl.d && cp '$fragment' /etc/sysctl.d/ && '$bin' status" 2>&1 || true)
check_match "status: the IPv4 default route's windows" \
	'^route default via 192\.0\.2\.1 dev nt-v0 \(ipv4, static\): initcwnd 32, initrwnd 32$' "$text"
check_match "status: the IPv6 one, the kernel's initrwnd" \
	'^route default via 2001:db8::1 dev nt-v0 \(ipv6, boot\): initcwnd 20, initrwnd the kernel.s$' "$text"
ip route del default via 192.0.2.1 dev nt-v0
ip -6 route del default via 2001:db8::1 dev nt-v0
text=$(unshare --mount sh -c "mount -t tmpfs nettune /etc/sysctl.d && cp '$fragment' /etc/sysctl.d/ && '$bin' status" 2>&1 || true)
check_match "status: without a default route, says so" '^routes: no default route$' "$text"
"$bin" status --json >"$routes/json" || true
check_eq "status --json: an empty list" '[]' \
	"$(python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["routes"]))' <"$routes/json")"
ip route add default via 192.0.2.1 dev nt-v0
text=$(unshare --mount sh -c "mount -t tmpfs nettune /etc/sysctl.d && cp '$fragment' /etc/sysctl.d/ && '$bin' status" 2>&1 || true)
check_match "status: a route that sets no window, the kernel's" \
	'^route default via 192\.0\.2\.1 dev nt-v0 \(ipv4, boot\): initcwnd 10 \(the kernel.s\), initrwnd the kernel.s$' "$text"
rm -rf "$routes"


summary
