#!/bin/sh
# The one decision "leave the running kernel alone", made in two places: by
# the helper (detect --may-tune, which the postinst and the first-boot unit
# ask) and by debian/postrm in shell, since the helper is gone at purge. Both
# run over the same environments, fake trees given with --root (the same
# tree to postrm's function), and on this machine as it is and in a mount
# namespace of its own. They must give the same answer in the same words,
# and the answer each case wants.
#
# usage: tests/leave-alone-test.sh BINARY
set -eu

bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
work=$(mktemp -d /tmp/nettune-leave-alone.XXXXXX)
trap 'rm -rf "$work"' EXIT

# postrm's own code, cut out between its markers, not a copy of it.
sed -n '/^# leave-alone: begin$/,/^# leave-alone: end$/p' "$here/../debian/postrm" \
	>"$work/postrm-leave-alone.sh"
check "postrm holds kernel_off_limits between its markers" \
	grep -q '^kernel_off_limits() {$' "$work/postrm-leave-alone.sh"
# shellcheck source=/dev/null # cut out of debian/postrm above
. "$work/postrm-leave-alone.sh"

# tree NAME: a fake root that is the root of its PID 1 (proc/1/root leads
# back to it), with a writable per-netns key: a host, until a case changes it.
tree() {
	_t=$work/$1
	mkdir -p "$_t/proc/1" "$_t/proc/sys/net/ipv4" "$_t/run/systemd"
	ln -s ../.. "$_t/proc/1/root"
	echo 60 >"$_t/proc/sys/net/ipv4/tcp_fin_timeout"
	chmod 0644 "$_t/proc/sys/net/ipv4/tcp_fin_timeout"
	echo "$_t"
}

# helper_says ROOT: the helper's reason, empty when it may tune.
helper_says() {
	_rc=0
	if [ -n "$1" ]; then
		_line=$("$bin" --root "$1" detect --may-tune) || _rc=$?
	else
		_line=$("$bin" detect --may-tune) || _rc=$?
	fi
	case $_rc in
	0) [ "$_line" = "tune: the running kernel may be tuned" ] || echo "exit 0 but: $_line" ;;
	4) echo "$_line" ;;
	*) echo "exit $_rc: $_line" ;;
	esac
}

# agree NAME WANT ROOT: the helper and postrm, on ROOT, both say WANT (the
# kind of place and the reason to leave the kernel alone; empty: tune it).
agree() {
	_helper=$(helper_says "$3")
	_shell=$(kernel_off_limits "$3")
	check_eq "$1: the helper" "$2" "$_helper"
	check_eq "$1: postrm" "$2" "$_shell"
}

t=$(tree host)
agree "a host" "" "$t"

t=$(tree dpkg-root)
DPKG_ROOT=/target
export DPKG_ROOT
agree "DPKG_ROOT set" "dpkg-root: DPKG_ROOT is /target: not the running system" "$t"
unset DPKG_ROOT
DPKG_ROOT=
export DPKG_ROOT
agree "DPKG_ROOT empty" "" "$t"
unset DPKG_ROOT

# DPKG_ROOT comes first, before any container marker is looked at.
t=$(tree dpkg-root-container)
echo lxc >"$t/run/systemd/container"
: >"$t/.dockerenv"
DPKG_ROOT=/target
export DPKG_ROOT
agree "DPKG_ROOT set in a container" "dpkg-root: DPKG_ROOT is /target: not the running system" "$t"
unset DPKG_ROOT

t=$(tree systemd-container)
echo systemd-nspawn >"$t/run/systemd/container"
agree "/run/systemd/container" "container: running in a container (systemd-nspawn)" "$t"

t=$(tree empty-systemd-container)
: >"$t/run/systemd/container"
agree "an empty /run/systemd/container" "" "$t"
printf 'container=lxc\0' >"$t/proc/1/environ"
agree "an empty /run/systemd/container, container= in /proc/1/environ" \
	"container: running in a container (lxc)" "$t"

t=$(tree environ)
printf 'HOME=/\0container=lxc\0TERM=linux\0' >"$t/proc/1/environ"
agree "container= in /proc/1/environ" "container: running in a container (lxc)" "$t"

t=$(tree environ-empty)
printf 'container=\0TERM=linux\0' >"$t/proc/1/environ"
agree "an empty container= in /proc/1/environ" "" "$t"

t=$(tree dockerenv)
: >"$t/.dockerenv"
agree "/.dockerenv" "container: running in a container (docker)" "$t"

t=$(tree containerenv)
: >"$t/run/.containerenv"
agree "/run/.containerenv" "container: running in a container (podman)" "$t"

t=$(tree openvz)
mkdir "$t/proc/vz"
agree "OpenVZ: /proc/vz without /proc/bc" "container: running in a container (openvz)" "$t"
mkdir "$t/proc/bc"
agree "OpenVZ's host: /proc/vz and /proc/bc" "" "$t"

t=$(tree order)
echo lxc >"$t/run/systemd/container"
: >"$t/.dockerenv"
rm "$t/proc/1/root"
agree "the first marker found names the container" "container: running in a container (lxc)" "$t"

t=$(tree chroot)
rm "$t/proc/1/root"
ln -s / "$t/proc/1/root"
agree "a chroot: / is not PID 1's root" "chroot: running in a chroot" "$t"

# Where /proc/1/root cannot be read: the mount at / of PID 1 and ours.
line='22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw'
t=$(tree mountinfo-same)
rm "$t/proc/1/root"
mkdir -p "$t/proc/self"
printf '%s\n' "$line" >"$t/proc/1/mountinfo"
printf '%s\n' "$line" >"$t/proc/self/mountinfo"
agree "no /proc/1/root, the same mount at /" "" "$t"
printf '%s\n' "${line%% *} 1 254:1 /srv/image / rw - ext4 /dev/vda1 rw" \
	>"$t/proc/self/mountinfo"
agree "no /proc/1/root, another mount at /" "chroot: running in a chroot" "$t"
rm "$t/proc/self/mountinfo"
agree "no /proc/1/root and no mountinfo of ours" "chroot: running in a chroot" "$t"

t=$(tree mode)
chmod 0444 "$t/proc/sys/net/ipv4/tcp_fin_timeout"
agree "a per-netns key without a write bit" "read-only: $t/proc/sys/net is read-only" "$t"

t=$(tree missing)
rm "$t/proc/sys/net/ipv4/tcp_fin_timeout"
agree "no /proc/sys/net" "read-only: $t/proc/sys/net is read-only" "$t"

# A read-only mount, and this machine itself, as each is in a mount
# namespace of its own: a namespace is no chroot.
if [ "$(id -u)" = 0 ] && unshare --mount true 2>/dev/null; then
	t=$(tree read-only-mount)
	# shellcheck disable=SC2016 # expanded by the inner shell
	both=$(unshare --mount sh -c '
		mount --bind "$3/proc/sys" "$3/proc/sys" &&
		mount -o remount,bind,ro "$3/proc/sys" || exit 1
		. "$2"
		"$1" --root "$3" detect --may-tune || echo "exit $?"
		kernel_off_limits "$3"' sh "$bin" "$work/postrm-leave-alone.sh" "$t")
	check_eq "a read-only mount of /proc/sys: the helper, then postrm" \
		"read-only: $t/proc/sys/net is read-only
exit 4
read-only: $t/proc/sys/net is read-only" "$both"

	here_helper=$(helper_says "")
	here_shell=$(kernel_off_limits "")
	note "this machine: ${here_helper:-may be tuned}"
	check_eq "this machine: postrm as the helper" "$here_helper" "$here_shell"
	# shellcheck disable=SC2016 # expanded by the inner shell
	ns=$(unshare --mount sh -c '
		. "$2"
		"$1" detect --may-tune || echo "exit $?"
		kernel_off_limits ""' sh "$bin" "$work/postrm-leave-alone.sh")
	check_eq "this machine in a mount namespace of its own: the helper's answer" \
		"${here_helper:-tune: the running kernel may be tuned}${here_helper:+
exit 4}" "$(printf '%s\n' "$ns" | sed '$d')"
	check_eq "this machine in a mount namespace of its own: postrm's" \
		"$here_shell" "$(printf '%s\n' "$ns" | sed -n '$p' | grep -v '^tune: the running kernel may be tuned$' || true)"
else
	note "skipped: a read-only mount and a mount namespace need root and unshare"
fi

# The scripts branch on the kind, the first word, never on the reason's
# words, which may be reworded.
for f in debian/postinst debian/postrm debian/firstboot; do
	check_eq "$f compares no reason's words" "" \
		"$(grep -nE ' !?= "(running in|DPKG_ROOT is|[^"]*is read-only)' "$here/../$f" || true)"
done

summary
