#!/bin/sh
# The metrics writer against the owner of the directory above the node
# exporter's: as on Debian, /var/lib/prometheus belongs to an unprivileged
# user (nobody here) and its node-exporter directory to root. That user
# watches node-exporter, and for each temporary file it sees there links the
# same name (and the .prom name) in a directory of its own to a root-owned
# 0600 file and swaps node-exporter for a symlink to that directory for a
# moment, in a tight loop, while root runs the writer again and again. The 0600 file must stay as it
# is, and nothing may appear outside the real directory. The shell writer of
# the first metrics timer (before 0.2.0) is run the same way for the record (NETTUNE_OLD_WRITER=FILE).
#
# usage: tests/robust/metrics.sh BINARY    (root: it runs the attack as nobody)
set -eu

bin=$(realpath "$1")
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
tries=${NETTUNE_METRICS_TRIES:-40}

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	fail "tests/robust/metrics.sh needs root and setpriv (util-linux)"
	summary
	exit 1
fi
work=$(mktemp -d /tmp/nettune-metrics.XXXXXX)
trap 'touch "$work/stop"; wait; rm -rf "$work"' EXIT
chmod 755 "$work"
t=$work/tree
cp -a "$here/fixtures/debian13-2cpu" "$t"
mkdir -p "$t/var/lib/prometheus/node-exporter" "$t/etc/sysctl.d" "$t/etc/modules-load.d"
"$bin" --root "$t" render sysctl >"$t/etc/sysctl.d/60-wp-panel-nettune.conf"
"$bin" --root "$t" render modules >"$t/etc/modules-load.d/wp-panel-nettune.conf"
"$bin" --root "$t" apply >/dev/null
parent=$t/var/lib/prometheus
dir=$parent/node-exporter
chown 65534:65534 "$parent"
mkdir "$work/safe"
victim=$work/safe/secret
attacker=$work/attacker
mkdir "$attacker"
chown 65534:65534 "$attacker"

# The attack, as nobody, until $work/stop exists.
cat >"$work/attack.sh" <<'EOF'
parent=$1 attacker=$2 victim=$3 stop=$4
cd "$parent"
ln -sf "$victim" "$attacker/wp-panel-nettune.prom"
# Each temporary name seen in the real directory is linked to the victim in
# the attacker's, and the directories are swapped for a moment.
while [ ! -e "$stop" ]; do
	for f in node-exporter/.wp-panel-nettune.prom.* node-exporter/wp-panel-nettune.prom.tmp*; do
		[ -e "$f" ] || continue
		ln -sf "$victim" "$attacker/${f##*/}" 2>/dev/null
		# Where the directory is the attacker's, the name itself.
		ln -sf "$victim" "$f" 2>/dev/null
		if mv -T node-exporter away 2>/dev/null; then
			ln -s "$attacker" node-exporter
			sleep 0.05
			rm -f node-exporter
			mv -T away node-exporter
		fi
	done
done
EOF

# attack NAME COMMAND...: runs COMMAND as root $tries times during the
# attack; prints how many runs changed the 0600 file or left a file outside
# the real directory.
attack() {
	_name=$1
	shift
	rm -f "$work/stop"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh "$work/attack.sh" "$parent" "$attacker" "$victim" "$work/stop" &
	_pid=$!
	_lost=0
	for _i in $(seq "$tries"); do
		printf 'secret\n' >"$victim"
		chmod 600 "$victim"
		timeout 20 "$@" >/dev/null 2>&1 || true
		if [ "$(stat -c '%a %U %s' "$victim")" != "600 root 7" ] ||
			[ "$(cat "$victim")" != secret ] ||
			[ -n "$(find "$work/safe" -mindepth 1 ! -name secret)" ]; then
			_lost=$((_lost + 1))
		fi
	done
	touch "$work/stop"
	wait "$_pid" || true
	# The directory is back where it was.
	if [ ! -d "$dir" ] || [ -L "$dir" ]; then
		rm -f "$dir"
		mv -T "$parent/away" "$dir"
	fi
	note "$_name: $_lost of $tries runs changed the 0600 file"
	lost=$_lost
}

# The first timer's writer: debian/prometheus-textfile, its paths pointed into
# the tree; status as slow as on a loaded machine, 0.1 s between the
# temporary file's creation and its chmod, the window strace gives the new
# writer below by holding it before it sets the temporary file's mode.
if [ -n "${NETTUNE_OLD_WRITER:-}" ]; then
	printf '#!/bin/sh\nsleep 0.1\nexec "%s" --root "%s" "$@"\n' "$bin" "$t" >"$work/helper"
	chmod 755 "$work/helper"
	sed -e "s|^helper=.*|helper=$work/helper|" -e "s|^dir=.*|dir=$dir|" \
		"$NETTUNE_OLD_WRITER" >"$work/old-writer"
fi
if ! command -v strace >/dev/null 2>&1; then
	fail "strace is needed to hold the writer (apt install strace)"
	summary
	exit 1
fi
# Debian's node-exporter directory is root's; guides often give it to the
# exporter's user.
for owner in root nobody; do
	chown "$owner:" "$dir"
	if [ -n "${NETTUNE_OLD_WRITER:-}" ]; then
		attack "node-exporter owned by $owner, the first shell writer" sh "$work/old-writer"
		find "$dir" "$attacker" -mindepth 1 -delete
	fi
	attack "node-exporter owned by $owner, status --prometheus --textfile" \
		strace -f -qq -o /dev/null -e trace=fchmod -e inject=fchmod:delay_enter=100000 \
		"$bin" --root "$t" status --prometheus --textfile /var/lib/prometheus/node-exporter
	check_eq "node-exporter owned by $owner: a swap never changes a file outside it" 0 "$lost"
done
chown root: "$dir"
rm -f "$dir"/*
check_eq "nothing is left in the attacker's directory but its own links" "" \
	"$(find "$attacker" -mindepth 1 ! -type l)"

# Without the attack: written, 0644, root's as the directory is, no
# temporary file left; a symlinked directory is refused in one line.
check_rc "the writer on a sound directory" 0 \
	"$bin" --root "$t" status --prometheus --textfile /var/lib/prometheus/node-exporter
check_eq "writes the metrics, 0644, as the directory's owner" "644 root:root" \
	"$(stat -c '%a %U:%G' "$dir/wp-panel-nettune.prom" 2>&1)"
check_eq "and the same as status --prometheus prints" \
	"$("$bin" --root "$t" status --prometheus 2>&1)" "$(cat "$dir/wp-panel-nettune.prom")"
check_eq "no temporary file left" "wp-panel-nettune.prom" "$(ls -A "$dir")"
chown 65534:65534 "$dir"
rm -f "$dir/wp-panel-nettune.prom"
check_rc "a directory nobody owns" 0 \
	"$bin" --root "$t" status --prometheus --textfile /var/lib/prometheus/node-exporter
check_eq "is written as nobody" "644 nobody" "$(stat -c '%a %U' "$dir/wp-panel-nettune.prom" 2>&1)"
chown 0:0 "$dir"
chmod 777 "$dir"
check_rc "a directory anyone may write in is refused" 1 \
	"$bin" --root "$t" status --prometheus --textfile /var/lib/prometheus/node-exporter
check_match "in one line" "^wp-panel-nettune: status: cannot write metrics into .*node-exporter: .*node-exporter is writable by its group or others$" "$out"
chmod 755 "$dir"
mv -T "$dir" "$parent/real"
ln -s "$attacker" "$dir"
check_rc "a symlinked directory is refused" 1 \
	"$bin" --root "$t" status --prometheus --textfile /var/lib/prometheus/node-exporter
check_match "in one line" "^wp-panel-nettune: status: cannot write metrics into .*node-exporter: .*/var/lib/prometheus/node-exporter is a symlink$" "$out"
rm "$dir"
check_rc "no directory: nothing to do, success" 0 \
	"$bin" --root "$t" status --prometheus --textfile /var/lib/prometheus/node-exporter
mv -T "$parent/real" "$dir"
rm "$t/etc/sysctl.d/60-wp-panel-nettune.conf"
mkdir "$t/etc/sysctl.d/60-wp-panel-nettune.conf"
check_rc "status failing removes the file" 1 \
	"$bin" --root "$t" status --prometheus --textfile /var/lib/prometheus/node-exporter
check "and it is gone" test ! -e "$dir/wp-panel-nettune.prom"
check_rc "--textfile without --prometheus is a usage error" 2 \
	"$bin" --root "$t" status --textfile /var/lib/prometheus/node-exporter

summary
