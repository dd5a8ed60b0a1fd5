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

# The routes' initial windows 0.2.0 gave, taken back by apply and by revert
# on the real root (status no longer lists routes): tests/netns-takeback.sh,
# each run in a network namespace of its own.
for cmd in apply revert; do
	check "the take-back of 0.2.0's route windows and files by $cmd" \
		"$here/netns-takeback.sh" "$bin" "$cmd"
	note "netns-takeback $cmd: $(printf '%s\n' "$out" | tail -n 1)"
done

summary
