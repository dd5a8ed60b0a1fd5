#!/bin/sh
# Every file a command reads under the root, made hostile. The files are
# found, not listed: each command runs under strace on a --root copy of the
# Debian 13 fixture (fragments rendered and applied, the installer's file
# taken over, and back at its path as the installer writes it again, its
# variants, the undo journal), and every regular file it opens for reading
# is then replaced, in a fresh copy, by a FIFO, a 1 GB sparse file,
# /dev/zero's device and a symlink to /dev/zero; a FIFO and a 1 GB *.conf
# are also planted in each modprobe.d directory. The commands that read the
# journal run again on a copy with 0.1.0's record instead. Each run must end within 20 s, exit with a status its command
# documents, name the file in a line of its output, and peak under 16 MiB.
#
# usage: tests/robust/reads.sh BINARY (as root: it makes device nodes)
# NETTUNE_READS_COMMANDS="status|detect" tries only those (on the tree
# with the journal; NETTUNE_READS_LEGACY_COMMANDS on the other).
set -eu

bin=$(realpath "$1")
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

if [ "$(id -u)" != 0 ]; then
	fail "reads.sh needs root (device nodes)"
	summary
	exit 1
fi
for tool in strace /usr/bin/time timeout; do
	if ! command -v "$tool" >/dev/null; then
		fail "reads.sh needs $tool"
		summary
		exit 1
	fi
done

work=$(mktemp -d /tmp/nettune-reads.XXXXXX)
trap 'rm -rf "$work"' EXIT
limit_kib=16384
confdirs="/etc/modprobe.d /run/modprobe.d /usr/local/lib/modprobe.d /usr/lib/modprobe.d
/lib/modprobe.d"

installer=$here/../share/installer
journal_base=$work/journal
cp -a "$here/fixtures/debian13-2cpu" "$journal_base"
mkdir -p "$journal_base/var/lib" "$journal_base/etc/sysctl.d" \
	"$journal_base/etc/modules-load.d" "$journal_base/usr/share/wp-panel-nettune/installer"
"$bin" --root "$journal_base" render sysctl >"$journal_base/etc/sysctl.d/60-wp-panel-nettune.conf"
"$bin" --root "$journal_base" render modules >"$journal_base/etc/modules-load.d/wp-panel-nettune.conf"
cp "$installer/"* "$journal_base/usr/share/wp-panel-nettune/installer/"
cp "$installer/99-wp-panel.conf.2cpu" "$journal_base/etc/sysctl.d/99-wp-panel.conf"
"$bin" --root "$journal_base" takeover >/dev/null
"$bin" --root "$journal_base" apply >/dev/null
cp "$installer/99-wp-panel.conf.2cpu" "$journal_base/etc/sysctl.d/99-wp-panel.conf"
# apply set every key; one back to the kernel's value, so that apply
# --dry-run has something to do and reads the journal.
echo 60 >"$journal_base/proc/sys/net/ipv4/tcp_fin_timeout"
# The same tree with the journal's key steps in 0.1.0's record instead.
legacy_base=$work/legacy
cp -a "$journal_base" "$legacy_base"
legacy_dir=$legacy_base/var/lib/wp-panel-nettune
{
	printf '%s\n' '# wp-panel-nettune state 1' '# key	original	applied'
	sed -n 's/^key	//p' "$legacy_dir/journal" | cut -f 1-3
	echo '# end'
} >"$legacy_dir/state"
rm "$legacy_dir/journal"

# The commands to try on each tree, "|" between them.
commands=${NETTUNE_READS_COMMANDS:-"status|apply --dry-run|detect|render sysctl|takeover --dry-run|journal"}
legacy_commands=${NETTUNE_READS_LEGACY_COMMANDS:-"apply --dry-run|journal|journal --convert"}

# reads CMD: the regular files of the tree $base that CMD opens for reading,
# relative to the tree, one a line. CMD runs on a copy: it may write.
reads() {
	rm -rf "$work/r"
	cp -a "$base" "$work/r"
	# shellcheck disable=SC2086 # the command's words
	strace -f -y -e trace=openat,open -o "$work/strace" "$bin" --root "$work/r" $1 \
		>/dev/null 2>&1 || true
	grep -v 'O_WRONLY\|O_RDWR\|O_DIRECTORY' "$work/strace" |
		sed -n "s|.*= [0-9][0-9]*<$work/r\(/[^>]*\)>\$|\1|p" | LC_ALL=C sort -u |
		while read -r rel; do
			if [ -f "$base$rel" ] && [ ! -L "$base$rel" ]; then
				echo "$rel"
			fi
		done
}

# make KIND PATH: PATH replaced by a hostile file of KIND.
make_kind() {
	rm -f "$2"
	case $1 in
	fifo) mkfifo "$2" ;;
	sparse) truncate -s 1G "$2" ;;
	zero) mknod "$2" c 1 5 ;;
	link) ln -s /dev/zero "$2" ;;
	esac
}

# named TREE REL OUTPUT: OUTPUT has a line naming the file, with its real
# reason; a key of /proc/sys may be named as the key.
named() {
	if grep -q 'File descriptor in bad state' "$3"; then
		return 1
	fi
	if grep -qF "$1$2" "$3"; then
		return 0
	fi
	case $2 in
	/proc/sys/*)
		key=$(echo "${2#/proc/sys/}" | tr / .)
		grep -F "$key" "$3" | grep -Eq 'unreadable|cannot read'
		;;
	*) return 1 ;;
	esac
}

cases=0
hung=0
crashed=0
over=0
wrong=0
silent=0
# run CMD REL KIND: one case, in a fresh copy of the tree.
run_case() {
	t=$work/t
	rm -rf "$t"
	cp -a "$base" "$t"
	mkdir -p "$t$(dirname "$2")"
	make_kind "$3" "$t$2"
	rc=0
	# A 1 GiB address space keeps a run that reads without end from
	# taking the machine with it (dash and bash have ulimit -v).
	# shellcheck disable=SC2086,SC3045 # the command's words; see above
	(ulimit -v 1048576 && exec /usr/bin/time -f %M -o "$work/mem" \
		timeout 20 "$bin" --root "$t" $1) >"$work/out" 2>&1 || rc=$?
	mem=$(tail -n 1 "$work/mem" 2>/dev/null || echo 0)
	cases=$((cases + 1))
	what="$1: $2 as $3"
	case $rc in
	124)
		hung=$((hung + 1))
		note "hung: $what"
		return
		;;
	0 | 1 | 3)
		if [ "$rc" = 3 ] && [ "$1" != status ]; then
			wrong=$((wrong + 1))
			note "exit $rc: $what"
		fi
		;;
	*)
		if [ "$rc" -gt 128 ]; then
			crashed=$((crashed + 1))
			note "crashed (exit $rc): $what"
		else
			wrong=$((wrong + 1))
			note "exit $rc: $what"
		fi
		;;
	esac
	case $mem in
	'' | *[!0-9]*) mem=0 ;;
	esac
	if [ "$mem" -ge "$limit_kib" ]; then
		over=$((over + 1))
		note "peak $mem KiB: $what"
	fi
	case $2:$3 in
	*/sysctl.d/*:zero | */sysctl.d/*:link)
		# systemd-sysctl takes a device, /dev/null or not, for a
		# masked file, and so does the helper: nothing to say.
		return
		;;
	esac
	if ! named "$t" "$2" "$work/out"; then
		silent=$((silent + 1))
		note "silent: $what: $(head -c 300 "$work/out" | tr '\n' '|')"
	fi
}

# try BASE COMMANDS: every case of each of COMMANDS ("|" between them) on
# copies of the tree BASE; the files they read are added to $all.
try() {
	base=$1
	IFS='|'
	for cmd in $2; do
		IFS=' 
'
		reads "$cmd" >"$work/files"
		note "$cmd reads $(wc -l <"$work/files") files: $(tr '\n' ' ' <"$work/files")"
		cat "$work/files" >>"$all"
		while read -r rel; do
			for kind in fifo sparse zero link; do
				run_case "$cmd" "$rel" "$kind"
			done
		done <"$work/files"
		case $cmd in
		takeover* | journal*) ;;
		*)
			for dir in $confdirs; do
				run_case "$cmd" "$dir/zz-fifo.conf" fifo
				run_case "$cmd" "$dir/zz-big.conf" sparse
			done
			;;
		esac
		IFS='|'
	done
	IFS=' 
'
}

all=$work/all
: >"$all"
try "$journal_base" "$commands"
try "$legacy_base" "$legacy_commands"

note "$cases cases: $hung hung, $crashed crashed, $over over 16 MiB," \
	"$wrong with an undocumented status, $silent silent"
check_match "the discovered files include the module directory's" \
	'^/lib/modules/.*/modules\.dep\.bin$' "$(cat "$all")"
check_match "the journal" '^/var/lib/wp-panel-nettune/journal$' "$(cat "$all")"
check_match "the copy of the file taken over" '^/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf$' \
	"$(cat "$all")"
check_match "0.1.0's record" '^/var/lib/wp-panel-nettune/state$' "$(cat "$all")"
check_eq "no case hangs" 0 "$hung"
check_eq "no case crashes" 0 "$crashed"
check_eq "every case peaks under 16 MiB" 0 "$over"
check_eq "every case exits with a status its command documents" 0 "$wrong"
check_eq "every case names the file and why" 0 "$silent"
summary
