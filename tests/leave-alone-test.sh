#!/bin/sh
# The one decision "leave the running kernel alone", made by the helper
# (offlimits.c): asked by the postinst and the first-boot unit (detect
# --may-tune), and by the prerm's remove, which leaves it in the seal for
# debian/postrm, since the helper is gone at purge (journal --seal). Both
# answers are asked over the same environments, fake trees given with
# --root, on this machine as it is and in a mount namespace of its own, and
# in a chroot that is PID 1 of a PID namespace of its own on the real
# kernel. They must be the same, in the same words, and the answer each
# case wants.
#
# usage: tests/leave-alone-test.sh BINARY
set -eu

bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
work=$(mktemp -d /tmp/nettune-leave-alone.XXXXXX)
trap 'rm -rf "$work"' EXIT

# seal_says HELPER [ROOT]: the kernel line of the seal the helper would
# write for ROOT (this machine without one), as postrm reads it: empty for
# "ok". Nothing is written (--dry-run).
# shellcheck disable=SC2016 # a function written for other shells too
printf '%s\n' 'seal_says() {
	_line=$("$1" ${2:+--root "$2"} journal --seal --dry-run 2>/dev/null | sed -n "s/^kernel //p")
	[ "$_line" = ok ] || echo "$_line"
}' >"$work/seal-says.sh"
# shellcheck source=/dev/null # written above
. "$work/seal-says.sh"

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

# agree NAME WANT ROOT: detect --may-tune and the seal, on ROOT, both say
# WANT (the kind of place and the reason to leave the kernel alone; empty:
# tune it).
agree() {
	_helper=$(helper_says "$3")
	_shell=$(seal_says "$bin" "$3")
	check_eq "$1: the helper" "$2" "$_helper"
	check_eq "$1: the seal" "$2" "$_shell"
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

# A FIFO at either file: read by neither (opening one blocks).
t=$(tree fifo)
for f in run/systemd/container proc/1/environ; do
	mkfifo "$t/$f"
	check_eq "a FIFO at /$f: the helper" "" "$(helper_says "$t" 2>/dev/null)"
	# shellcheck disable=SC2016 # expanded by the inner shell
	check_eq "a FIFO at /$f: the seal, within 10 s" "" \
		"$(timeout 10 sh -c '. "$1" && seal_says "$2" "$3"' sh "$work/seal-says.sh" "$bin" "$t" || echo "exit $?")"
done

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

# PID 1 of a PID namespace of its own (unshare --pid --fork chroot DIR makes
# the chroot PID 1): / is its root, but in the initial network namespace,
# the only one with net.core.netdev_max_backlog, the host's values would be
# written. /proc/self/ns/pid names the namespace; the initial one is
# 4026531836.
pid_ns() {
	mkdir -p "$1/proc/self/ns"
	ln -sfn "$2" "$1/proc/self/ns/pid"
}
pid_ns_reason="chroot: running in a PID namespace of its own, in the host's network namespace"
t=$(tree pid-namespace)
mkdir -p "$t/proc/sys/net/core"
echo 1000 >"$t/proc/sys/net/core/netdev_max_backlog"
agree "the initial network namespace, no /proc/self/ns/pid" "" "$t"
pid_ns "$t" 'pid:[4026531836]'
agree "the initial PID and network namespaces" "" "$t"
pid_ns "$t" 'pid:[4026532309]'
agree "PID 1 of a PID namespace of its own, in the initial network namespace" \
	"$pid_ns_reason" "$t"
for link in 'pid:[]' 'pid:[4026532309' 'net:[4026532309]' 'pid:[40265x2309]' 4026532309; do
	pid_ns "$t" "$link"
	agree "/proc/self/ns/pid reads $link: it cannot tell" "" "$t"
done
# A link whose text ends in a newline, which $(readlink) would drop.
link=$(printf 'pid:[4026532309]\n.') && pid_ns "$t" "${link%.}"
agree "/proc/self/ns/pid reads pid:[4026532309] and a newline: it cannot tell" "" "$t"
rm -r "$t/proc/self/ns"
mkdir -p "$t/proc/self/ns"
: >"$t/proc/self/ns/pid"
agree "/proc/self/ns/pid is no link: it cannot tell" "" "$t"
pid_ns "$t" 'pid:[4026532309]'
chmod 0444 "$t/proc/sys/net/ipv4/tcp_fin_timeout"
agree "a PID namespace of its own comes before a read-only /proc/sys/net" "$pid_ns_reason" "$t"
chmod 0644 "$t/proc/sys/net/ipv4/tcp_fin_timeout"
rm "$t/proc/1/root"
ln -s / "$t/proc/1/root"
agree "a PID namespace of its own, / not PID 1's root: a chroot as before" \
	"chroot: running in a chroot" "$t"
echo systemd-nspawn >"$t/run/systemd/container"
agree "a PID namespace of its own with a container marker: a container" \
	"container: running in a container (systemd-nspawn)" "$t"
t=$(tree pid-and-network-namespace)
pid_ns "$t" 'pid:[4026532309]'
agree "PID 1 of PID and network namespaces of its own" "" "$t"

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
		seal_says "$1" "$3"' sh "$bin" "$work/seal-says.sh" "$t")
	check_eq "a read-only mount of /proc/sys: the helper, then the seal" \
		"read-only: $t/proc/sys/net is read-only
exit 4
read-only: $t/proc/sys/net is read-only" "$both"

	here_helper=$(helper_says "")
	here_shell=$(seal_says "$bin")
	note "this machine: ${here_helper:-may be tuned}"
	check_eq "this machine: the seal as the helper" "$here_helper" "$here_shell"
	# shellcheck disable=SC2016 # expanded by the inner shell
	ns=$(unshare --mount sh -c '
		. "$2"
		"$1" detect --may-tune || echo "exit $?"
		seal_says "$1"' sh "$bin" "$work/seal-says.sh")
	check_eq "this machine in a mount namespace of its own: the helper's answer" \
		"${here_helper:-tune: the running kernel may be tuned}${here_helper:+
exit 4}" "$(printf '%s\n' "$ns" | sed '$d')"
	check_eq "this machine in a mount namespace of its own: the seal's" \
		"$here_shell" "$(printf '%s\n' "$ns" | sed -n '$p' | grep -v '^tune: the running kernel may be tuned$' || true)"
else
	note "skipped: a read-only mount and a mount namespace need root and unshare"
fi

# The real kernel: a plain tree, this system's programs and /dev/null mounted
# in, chrooted into as PID 1 of a PID namespace of its own, with a /proc of
# that namespace, in this network namespace and in one of its own; and
# without /proc, where nothing tells. detect --may-tune and the seal both
# run inside.
if [ "$(id -u)" != 0 ]; then
	note "skipped: a chroot as PID 1 of a PID namespace needs root"
elif ! unshare --pid --fork --mount --net true 2>/dev/null; then
	note "skipped: unshare cannot make PID, mount and network namespaces here"
else
	img=$work/image
	binds=
	mkdir -p "$img/proc" "$img/dev"
	: >"$img/dev/null"
	for d in bin sbin lib lib32 lib64 libx32 usr; do
		if [ -L "/$d" ]; then
			ln -s "$(readlink "/$d")" "$img/$d"
		elif [ -d "/$d" ]; then
			mkdir "$img/$d"
			binds="$binds $d"
		fi
	done
	cp "$bin" "$img/nettune"
	cp "$work/seal-says.sh" "$img/seal-says.sh"
	cat >"$img/ask.sh" <<-'EOF'
		. /seal-says.sh
		rc=0
		line=$(/nettune detect --may-tune) || rc=$?
		echo "helper: $line (exit $rc)"
		echo "postrm: $(seal_says /nettune)"
	EOF
	# in_image PROC UNSHARE-OPTION...: what the helper and the seal say as PID
	# 1 of new PID and mount namespaces chrooted into the image, with its
	# /proc mounted when PROC is "proc".
	in_image() {
		_proc=$1
		shift
		# shellcheck disable=SC2016,SC2086 # expanded by the inner shell; binds split
		unshare --pid --fork --mount "$@" sh -c '
			img=$1 proc=$2
			shift 2
			for d in "$@" dev/null; do mount --bind "/$d" "$img/$d" || exit 1; done
			[ "$proc" != proc ] || mount -t proc proc "$img/proc" || exit 1
			exec chroot "$img" /bin/sh /ask.sh' sh "$img" "$_proc" $binds 2>&1
	}
	# image NAME WANT-HELPER WANT-POSTRM PROC UNSHARE-OPTION...
	image() {
		_name=$1 _helper=$2 _shell=$3
		shift 3
		_got=$(in_image "$@")
		check_eq "the real kernel, $_name: the helper" "helper: $_helper" \
			"$(printf '%s\n' "$_got" | grep -v '^postrm: ')"
		check_eq "the real kernel, $_name: the seal" "postrm: $_shell" \
			"$(printf '%s\n' "$_got" | grep '^postrm: ')"
	}
	image "a chroot as PID 1 of a PID namespace, in this network namespace" \
		"$pid_ns_reason (exit 4)" "$pid_ns_reason" proc
	image "a chroot as PID 1 of PID and network namespaces of its own" \
		"tune: the running kernel may be tuned (exit 0)" "" proc --net
	# A sanitizer build cannot run without /proc: the runtime reads its
	# options from /proc/self/environ and LeakSanitizer fails at exit.
	if grep -q __asan_init "$bin"; then
		note "skipped: the helper without /proc, a sanitizer build needs /proc"
		check_eq "the real kernel, a chroot as PID 1 of a PID namespace, without /proc: the seal" \
			"postrm: chroot: running in a chroot" "$(in_image none | grep '^postrm: ')"
	else
		image "a chroot as PID 1 of a PID namespace, without /proc" \
			"chroot: running in a chroot (exit 4)" "chroot: running in a chroot" none
	fi
fi

# The scripts branch on the kind, the first word, never on the reason's
# words, which may be reworded.
for f in debian/postinst debian/postrm debian/firstboot; do
	check_eq "$f compares no reason's words" "" \
		"$(grep -nE ' !?= "(running in|DPKG_ROOT is|[^"]*is read-only)' "$here/../$f" || true)"
done

summary
