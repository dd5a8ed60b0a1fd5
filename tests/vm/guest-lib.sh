# shellcheck shell=sh disable=SC2034 # NT_* are for the scenarios
# Helpers for the scripts that run inside a test VM. vm_boot copies this
# file into the share; a guest script starts with
#
#	. /host/guest-lib.sh
#
# and ends with checks_done, whose exit status becomes vm_boot's. Each check
# prints "ok N - NAME" or "not ok N - NAME"; checks_done prints "N passed,
# N failed". POSIX sh: the guest's /bin/sh is dash.

# The checks themselves (check, check_eq, check_match, note, summary, and
# sysctl_value, fragment_settings) are those of every test: tests/lib.sh,
# which vm_boot puts beside this file.
# shellcheck source=tests/lib.sh
. /host/lib.sh
# Each check that took 5 s or more says so (lib.sh, took).
read -r CHECK_UPTIME _ </proc/uptime
CHECK_UPTIME=${CHECK_UPTIME%.*}

# check_sysctl KEY WANT: passes when the live value of KEY is WANT.
check_sysctl() {
	check_eq "$1 = $2" "$2" "$(sysctl_value "$1")"
}

# checks_done: prints the totals and exits 1 if any check failed.
checks_done() {
	summary && exit 0
	exit 1
}

# --- Logs, snapshots and comparisons -------------------------------------

# finding TEXT: something worth reporting that is not a failure (a known
# leftover, say). The host collects these lines into its summary.
finding() {
	echo "finding: $*"
}

# logged NAME COMMAND [ARG...]: runs COMMAND with no input and its output
# in /host/NAME.log, which the host keeps. On failure prints the exit
# status and the log's last lines. Returns COMMAND's status.
logged() {
	_log=/host/$1.log
	shift
	"$@" </dev/null >"$_log" 2>&1 && return 0
	_rc=$?
	echo "# '$*' exited $_rc; the last lines of $_log:"
	tail -n 30 "$_log" | sed 's/^/#   /'
	return "$_rc"
}

# apt_get NAME ARG...: apt-get -y ARG... as an unattended install runs it,
# logged as NAME (see logged).
apt_get() {
	_apt_log=$1
	shift
	logged "$_apt_log" env DEBIAN_FRONTEND=noninteractive \
		apt-get -y -q -o Dpkg::Use-Pty=0 "$@"
}

# said NAME LOG PATTERN: passes when /host/LOG.log has a line matching the
# extended regular expression PATTERN (case-insensitive).
said() {
	if grep -Eqi -- "$3" "/host/$2.log"; then
		pass "$1"
	else
		fail "$1" "no line matching '$3' in /host/$2.log"
	fi
}

# sysctl_snapshot FILE: every readable key under /proc/sys/net, and the
# few others a network tuner might touch by mistake, as "key value" lines
# (white space normalized), sorted. Unreadable (write-only) keys are left
# out. One grep reads them all: fast even on an emulated CPU.
sysctl_snapshot() {
	{
		grep -rs . /proc/sys/net
		grep -s . /proc/sys/fs/file-max /proc/sys/fs/nr_open \
			/proc/sys/kernel/pid_max
	} | awk '{
		i = index($0, ":")
		key = substr($0, 11, i - 11)	# after "/proc/sys/"
		gsub("/", ".", key)
		value = substr($0, i + 1)
		gsub(/[ \t]+/, " ", value)
		print key, value
	}' | LC_ALL=C sort >"$1"
}

# snapshot_get FILE KEY: the value of KEY in a sysctl_snapshot FILE.
snapshot_get() {
	awk -v k="$2" '$1 == k { sub(/^[^ ]* /, ""); print; exit }' "$1"
}

# tree_listing FILE: every file under /etc and /var/lib (type, mode, owner,
# path, a symlink's target) and under /usr (type, path, a symlink's
# target), and the SHA-256 of every regular file under /etc, sorted.
# Under /usr only dpkg writes, never the package's scripts: what a purge
# may leave or take there is a path. Its 16,000 modes and owners are a
# stat(2) each, which under emulation made the listing ten times slower
# (6.6 s against 0.7 s for /usr, in a guest beside another run).
tree_listing() {
	{
		find /etc /var/lib -xdev \
			\( -type l -printf '%y %m %u:%g %p -> %l\n' \) -o \
			-printf '%y %m %u:%g %p\n'
		find /usr -xdev \( -type l -printf '%y %p -> %l\n' \) -o -printf '%y %p\n'
		find /etc -xdev -type f -exec sha256sum {} + |
			awk '{ print "sha256", $2, $1 }'
	} | LC_ALL=C sort >"$1"
}

# check_same NAME BEFORE AFTER: passes when the two files are equal, else
# prints their differences ("-" only before, "+" only after), at most 40.
check_same() {
	if diff -U0 "$2" "$3" >/tmp/check_same.diff; then
		pass "$1"
	else
		fail "$1" "differences (-before +after):"
		grep -v '^\(---\|+++\|@@\)' /tmp/check_same.diff | head -n 40 |
			sed 's/^/#   /'
	fi
}

# check_fresh_machine: passes when this machine is the fresh one the image
# gives (the host's /host/manifest, tests/vm/saved/machine-listing: same
# paths where packages and scenarios write, same packages), fails naming
# each path or package that differs ("-" only the fresh one has, "+" only
# this one): what an earlier scenario took away or left behind. The host
# runs it first in every boot of a fresh disk, restored or booted.
check_fresh_machine() {
	sh /host/machine-listing >/tmp/machine.now
	note "the fresh machine lists $(wc -l </host/manifest) paths and packages"
	check_same "a fresh machine: nothing an earlier scenario left" /host/manifest /tmp/machine.now
}

# --- wp-panel-nettune -----------------------------------------------------

NT_SYSCTL=/etc/sysctl.d/60-wp-panel-nettune.conf
NT_MODULES=/etc/modules-load.d/wp-panel-nettune.conf
NT_LIMITS=/etc/security/limits.d/wp-panel-nettune.conf
NT_DROPIN=/etc/systemd/system.conf.d/wp-panel-nettune.conf
NT_JOURNAL=/var/lib/wp-panel-nettune/journal
NT_MARKER=/var/lib/wp-panel-nettune/firstboot

# nt_profile bbr|cubic: the profile DESIGN.md gives a 1 GiB machine (16 MiB
# buffer ceilings), "key value" per line, sorted: with bbr, fq and BBR;
# with cubic, fq_codel and cubic. tests/design-table wrote it into
# the share from DESIGN.md's table.
nt_profile() {
	cat "/host/profile-$1"
}

# check_fragment_profile bbr|cubic: the sysctl fragment holds exactly the
# profile of nt_profile.
check_fragment_profile() {
	nt_profile "$1" >/tmp/profile.want
	fragment_settings "$NT_SYSCTL" | LC_ALL=C sort >/tmp/profile.got
	check_same "the fragment holds the $1 profile of DESIGN.md" \
		/tmp/profile.want /tmp/profile.got
}

# check_fragment_live [KEY]: every "key = value" of the sysctl fragment is
# the live value of key, white space normalized; but KEY, which another
# file sets at boot.
# shellcheck disable=SC2120 # scenario 5 passes KEY
check_fragment_live() {
	fragment_settings "$NT_SYSCTL" | awk -v but="${1:-}" '$1 != but' >/tmp/fragment.settings
	_n=0
	while read -r _key _value; do
		check_sysctl "$_key" "$_value"
		_n=$((_n + 1))
	done </tmp/fragment.settings
	check "the fragment sets keys ($_n)" test "$_n" -gt 0
}

# nt_status: runs "wp-panel-nettune status" into /host/status.log and
# prints its exit status.
nt_status() {
	_rc=0
	wp-panel-nettune status >/host/status.log 2>&1 || _rc=$?
	echo "$_rc"
}

# check_status_ok WHEN: status exits 0; on another status, its output.
check_status_ok() {
	_rc=$(nt_status)
	check_eq "$1: wp-panel-nettune status exits 0" 0 "$_rc"
	[ "$_rc" = 0 ] || sed 's/^/#   /' /host/status.log
}

# bbr_module: "live" when tcp_bbr is loaded, else "absent".
bbr_module() {
	cat /sys/module/tcp_bbr/initstate 2>/dev/null || echo absent
}

# modules_listed [FILE]: the module names the modules fragment (or FILE)
# loads, on one line.
# shellcheck disable=SC2120 # scenarios pass FILE
modules_listed() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "${1:-$NT_MODULES}" 2>/dev/null |
		tr -s ' \t\n' ' ' | sed 's/ $//'
}

# check_profile_in_effect bbr|cubic: the fragment holds that profile, every
# key of it is live, and congestion control, qdisc and tcp_bbr agree with it.
check_profile_in_effect() {
	check_fragment_profile "$1"
	check_fragment_live
	if [ "$1" = bbr ]; then
		check_sysctl net.ipv4.tcp_congestion_control bbr
		check_sysctl net.core.default_qdisc fq
		check_eq "modules fragment loads tcp_bbr" tcp_bbr "$(modules_listed)"
		check_eq "tcp_bbr loaded" live "$(bbr_module)"
	else
		check_sysctl net.ipv4.tcp_congestion_control cubic
		check_sysctl net.core.default_qdisc fq_codel
		check_eq "no module in the modules fragment" "" "$(modules_listed)"
		check_eq "tcp_bbr not loaded" absent "$(bbr_module)"
	fi
}

# check_record SNAPSHOT: the undo journal is well formed, each key's
# original is the value SNAPSHOT (taken before the install) had, each applied
# value is the live one, and no write is left pending.
check_record() {
	check_eq "journal header" "# wp-panel-nettune journal 1" "$(head -n 1 "$NT_JOURNAL")"
	check_eq "journal ends with '# end'" "# end" "$(tail -n 1 "$NT_JOURNAL")"
	_n=0
	_tab=$(printf '\t')
	while IFS="$_tab" read -r _kind _key _original _applied _pending; do
		[ "$_kind" = key ] || continue
		_n=$((_n + 1))
		check_eq "journal: $_key original is the pre-install value" \
			"$(snapshot_get "$1" "$_key")" "$_original"
		check_eq "journal: $_key applied is live" "$_applied" "$(sysctl_value "$_key")"
		check_eq "journal: $_key has no write pending" "" "$_pending"
	done <"$NT_JOURNAL"
	check "journal lists keys ($_n)" test "$_n" -gt 0
}

# journal_original KEY: the original the journal holds for KEY.
journal_original() {
	awk -F '\t' -v k="$1" '$1 == "key" && $2 == k { print $3; exit }' "$NT_JOURNAL"
}

# What tree_compare leaves out, each for a reason:
# - /var/lib/apt/lists/auxfiles: apt makes this folder the first time it
#   installs a .deb given as a file rather than from an archive; it is
#   apt's, and installing any local .deb makes it.
TREE_EXCLUDE='^d [0-7]+ [^ ]+ /var/lib/apt/lists/auxfiles$'

# What tree_compare reports as findings, not failures: ucf's own state,
# which README.Debian says outlives a purge. ucf keeps numbered backups of
# its records (hashfile.N, registry.N) that may name the purged files, and
# makes /var/lib/ucf/cache on first use (left empty by ucf --purge).
UCF_LEFTOVERS='^[a-z] [0-7]+ [^ ]+ /var/lib/ucf/((hashfile|registry)\.[0-9]+|cache)$'

# tree_compare NAME BEFORE AFTER: check_same on two tree_listing files,
# less TREE_EXCLUDE; new UCF_LEFTOVERS make one finding line (an empty
# cache folder only: anything in it is a failure).
tree_compare() {
	grep -Ev -e "$TREE_EXCLUDE" -e "$UCF_LEFTOVERS" "$2" >/tmp/tree.before
	grep -Ev -e "$TREE_EXCLUDE" -e "$UCF_LEFTOVERS" "$3" >/tmp/tree.after
	grep -Ex "$UCF_LEFTOVERS" "$3" | while read -r _line; do
		grep -qxF "$_line" "$2" || echo "${_line##* }"
	done >/tmp/tree.leftovers
	if [ -s /tmp/tree.leftovers ]; then
		_naming=$(xargs grep -l wp-panel-nettune </tmp/tree.leftovers 2>/dev/null | wc -l)
		finding "ucf's own state left after purge (README.Debian names the numbered backups):" \
			"$(sed 's|^/var/lib/ucf/||' /tmp/tree.leftovers | tr '\n' ' ')-" \
			"$_naming of them name wp-panel-nettune"
	fi
	# Other packages' (openssh-server's sshd_config on the provisioning
	# image) stay.
	if [ -d /var/lib/ucf/cache ]; then
		check_eq "$1: /var/lib/ucf/cache holds no copy of the package's fragments" "" \
			"$(find /var/lib/ucf/cache -mindepth 1 -name '*wp-panel-nettune*')"
	fi
	check_same "$1" /tmp/tree.before /tmp/tree.after
}

# purge_baseline: what check_purge_restored compares with, taken before
# the install: /host/before.tree, /host/before.sysctl and the boot's
# /host/before.boot_id.
purge_baseline() {
	tree_listing /host/before.tree
	sysctl_snapshot /host/before.sysctl
	cat /proc/sys/kernel/random/boot_id >/host/before.boot_id
}

# The values the kernel works out at each boot from the memory it counts
# then (inet_initpeers, tcp_init_mem, udp_init, files_maxfiles_init): two
# boots of the same machine may differ by a page (inet_peer_threshold
# 50443, then 50442, in scenario 25).
BOOT_DERIVED='net.ipv4.inet_peer_threshold net.ipv4.tcp_mem net.ipv4.udp_mem fs.file-max'


# check_purge_restored [KEY]: after "apt-get purge": the package is gone
# with its debconf data, the files under /etc, /var/lib and /usr are as in
# purge_baseline (tree_compare), and so is every value under /proc/sys/net
# but KEY (one the administrator changed meanwhile: the scenario checks
# it), BOOT_DERIVED where the purge is in a later boot than the baseline,
# and two lists: the algorithms unprivileged sockets may choose, to
# which loading tcp_bbr adds bbr (it declares itself non-restricted, and
# modules are never unloaded, README.Debian), compared less bbr; and the
# available algorithms, left out for the same reason.
check_purge_restored() {
	check "not installed any more" sh -c '! dpkg-query -W wp-panel-nettune >/dev/null 2>&1'
	check "no debconf question or template left" \
		sh -c '! grep -q "wp-panel-nettune" /var/cache/debconf/config.dat /var/cache/debconf/templates.dat'

	tree_listing /host/after.tree
	tree_compare "/etc, /var/lib, /usr as before the install" /host/before.tree /host/after.tree

	sysctl_snapshot /host/after.sysctl
	_skip=
	if [ -f /host/before.boot_id ] && [ "$(cat /host/before.boot_id)" != "$(cat /proc/sys/kernel/random/boot_id)" ]; then
		_skip=$BOOT_DERIVED
		note "the purge is a boot later than the baseline: left out of the comparison, as each boot works them out anew: $_skip"
	fi
	for _f in before after; do
		awk -v k="${1:-}" -v skip=" $_skip " '$1 != k && index(skip, " " $1 " ") == 0 &&
			$1 != "net.ipv4.tcp_allowed_congestion_control" &&
			$1 != "net.ipv4.tcp_available_congestion_control"' \
			"/host/$_f.sysctl" >"/tmp/$_f.values"
	done
	check_same "every other value under /proc/sys/net as before the install" \
		/tmp/before.values /tmp/after.values
	check_eq "net.ipv4.tcp_allowed_congestion_control as before the install, but for the loaded tcp_bbr" \
		"$(snapshot_get /host/before.sysctl net.ipv4.tcp_allowed_congestion_control |
			tr ' ' '\n' | grep -vx bbr | LC_ALL=C sort | tr '\n' ' ')" \
		"$(snapshot_get /host/after.sysctl net.ipv4.tcp_allowed_congestion_control |
			tr ' ' '\n' | grep -vx bbr | LC_ALL=C sort | tr '\n' ' ')"
	note "available congestion control after purge: $(sysctl_value net.ipv4.tcp_available_congestion_control)"
}

# --- Servers tuned before the package ------------------------------------

# installer_server 2cpu|1cpu: a server as the WP Panel installer's built-in
# tuning leaves it, with the bytes of tests/fixtures/legacy and
# share/installer (the scenario copies them to /host/legacy): its sysctl.d
# file written with "cat >", tcp_bbr loaded (2+ CPUs), "sysctl --system",
# then its two limits.conf lines appended.
installer_server() {
	cat "/host/legacy/99-wp-panel.conf.$1" >/etc/sysctl.d/99-wp-panel.conf
	[ "$1" = 1cpu ] || modprobe tcp_bbr
	sysctl --system >/dev/null 2>&1
	cat /host/legacy/limits.conf.lines >>/etc/security/limits.conf
}

# --- An apt repository served in the guest ---------------------------------

# repo_serve DIR: serves a copy of the repository DIR (from the share) at
# REPO_URL, http://127.0.0.1:8080/, with python3's HTTP server; a second
# call replaces what is served. The server's log is /host/http.log.
repo_serve() {
	rm -rf /srv/repo
	mkdir -p /srv
	cp -a "$1" /srv/repo
	[ -z "${_repo_server:-}" ] || return 0
	python3 -m http.server --bind 127.0.0.1 --directory /srv/repo 8080 \
		</dev/null >/host/http.log 2>&1 &
	_repo_server=$!
	# Stopped at the end, so that nothing holds /host open at poweroff.
	trap 'kill "$_repo_server" 2>/dev/null' EXIT
	_i=0
	while ! ss -Htln 'sport = :8080' | grep -q .; do
		_i=$((_i + 1))
		[ "$_i" -lt 60 ] || { echo "# the HTTP server did not start"; return 1; }
		sleep 1
	done
}

# repo_fetch PATH FILE: REPO_URL's PATH into FILE, as an installer's curl would.
repo_fetch() {
	python3 -c 'import sys, urllib.request
sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1]).read())' "$REPO_URL$1" >"$2"
}

# apt_sources_aside: the image's own sources (a Debian mirror the guest
# cannot reach) moved out of the way, so that apt-get update speaks only of
# the repositories a test adds.
apt_sources_aside() {
	mkdir -p /etc/apt/sources-off
	for _f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources; do
		[ ! -e "$_f" ] || mv "$_f" /etc/apt/sources-off/
	done
}

# repo_add_source: what README.md has an installer do before apt-get update:
# the key and the .sources file from the repository, in place, with the
# image's own sources aside.
repo_add_source() {
	apt_sources_aside
	check "the key from the repository, in place" repo_fetch \
		wp-panel-nettune-archive-keyring.asc /usr/share/keyrings/wp-panel-nettune-archive-keyring.asc
	check "the .sources file from the repository, in place" repo_fetch \
		wp-panel-nettune.sources /etc/apt/sources.list.d/wp-panel-nettune.sources
	chmod 644 /usr/share/keyrings/wp-panel-nettune-archive-keyring.asc \
		/etc/apt/sources.list.d/wp-panel-nettune.sources
	check_eq "the .sources file names the served URL" "URIs: $REPO_URL" \
		"$(grep '^URIs:' /etc/apt/sources.list.d/wp-panel-nettune.sources)"
}

# check_update_clean NAME: "apt-get update", logged as NAME, succeeds and
# prints no warning, error or notice; its output is shown with "#".
check_update_clean() {
	check "apt-get update ($1)" apt_get "$1" update
	sed 's/^/#   /' "/host/$1.log"
	check "apt-get update ($1): no warning, error or notice" \
		sh -c "! grep -Ei '^(W|E|N):|Policy will reject|Missing Signed-By|not signed' /host/$1.log"
}

# candidate PACKAGE: the version apt would install, "(none)" if none.
candidate() {
	apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep . || echo '(none)'
}

# check_installed_from_repo LOG: the keyring package owns the key apt uses, mode
# 644, the same key as served; the install logged as LOG asked nothing.
check_installed_from_repo() {
	_key=/usr/share/keyrings/wp-panel-nettune-archive-keyring.asc
	check_eq "the keyring package owns $_key" "wp-panel-nettune-archive-keyring: $_key" \
		"$(dpkg -S "$_key" 2>&1)"
	check_eq "$_key: root's, 0644" "644 root:root" "$(stat -c '%a %U:%G' "$_key")"
	check "$_key is the key the repository serves" \
		cmp "$_key" /srv/repo/wp-panel-nettune-archive-keyring.asc
	check "no debconf frontend trouble in the install log" \
		sh -c "! grep -Ei 'unable to (initialize|re-open)|frontend|prompt' /host/$1.log"
}
