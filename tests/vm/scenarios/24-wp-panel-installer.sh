# shellcheck shell=bash disable=SC2034 # title and estimate are read by tests/vm/run
# 24. The WP Panel installer with contrib/wp-panel/install.sh.patch: its
#     install.sh at the commit the patch names (../shared/legacy/wp-panel/
#     beside the checkout holds it: installer_script), patched here (it
#     must apply with no fuzz), the patched functions taken out with
#     contrib/wp-panel/extract-functions and run in the guest as install.sh
#     runs them (bash, set -e and pipefail, DEBIAN_FRONTEND exported,
#     DEBIAN_CODENAME as it finds it), with the repository key's
#     fingerprint set as a release sets it. One machine, 2 vCPUs, the
#     provisioning image (gpg and wget, which the installer installs
#     before it tunes), a source elsewhere that would fail a full
#     "apt-get update":
#     1. the site served on 127.0.0.1: wp-panel-nettune and its keyring
#        installed from it, the profile live, status 0, no 99-wp-panel.conf,
#        limits.conf untouched, the other source never asked;
#     4. the same again: it says so, and nothing changes (/etc, /var/lib,
#        /usr and every value under /proc/sys/net);
#     5. the patched do_purge, confirmed with "yes" on a terminal: the
#        machine as before the install (check_purge_restored);
#     2. the default site, which the guest cannot reach, and
#     3. the site with a key file holding another key: each falls
#        back to the installer's own tuning, the run succeeds, its
#        99-wp-panel.conf is byte for byte the one the unpatched function
#        writes (and 99-wp-panel.conf.2cpu), its values live, limits.conf
#        as the unpatched function leaves it, and nothing of the package
#        is left in /etc/apt, the keyrings, apt's lists or /tmp.
#     The installer's lines of each case are in this boot's output.
title="WP Panel installer patch: package, fallbacks, rerun, purge"
wants=repos
estimate=480

# The installer's install.sh the patch applies to, and its SHA-256.
WP_PANEL_COMMIT=0014e8334ac0ddc159c941b53f6bb73b82b6842c
WP_PANEL_SHA256=ed777e4843e146ae962160cdaa4dc9851cdfae821b5e64e70f0396bf8050fac8

# installer_script FILE: that install.sh into FILE, from WP_PANEL_INSTALLER
# (the file itself, or a clone of the installer's repository, bare or not),
# else from ../shared/legacy/wp-panel/install.sh beside the checkout (a
# byte for byte copy, ../shared/legacy/README.md says), else from the copy
# an earlier run kept in the VM cache, else from GitHub; kept in the cache
# once its SHA-256 is right. Returns 77 where none of these is there and
# GitHub cannot be reached: the project does not ship the installer's code,
# and a checkout without a way to it cannot test the patch (the scenario is
# skipped, saying so); 1 for a copy that is not the one the patch names.
installer_script() {
	local cache=$VM_CACHE/wp-panel-install-$WP_PANEL_COMMIT.sh from
	local shared=$TOP/../shared/legacy/wp-panel/install.sh
	local url=https://raw.githubusercontent.com/naibabiji/wp-panel/$WP_PANEL_COMMIT/install.sh
	if [ -d "${WP_PANEL_INSTALLER:-}" ]; then
		from="$WP_PANEL_INSTALLER (git, $WP_PANEL_COMMIT)"
		git -C "$WP_PANEL_INSTALLER" show "$WP_PANEL_COMMIT:install.sh" >"$1" 2>/dev/null
	elif [ -n "${WP_PANEL_INSTALLER:-}" ]; then
		from=$WP_PANEL_INSTALLER
		cp "$WP_PANEL_INSTALLER" "$1"
	elif [ -f "$shared" ]; then
		from=$(cd "$(dirname "$shared")" && pwd)/install.sh
		cp "$shared" "$1"
	elif [ -f "$cache" ]; then
		from=$cache
		cp "$cache" "$1"
	else
		from=$url
		curl -fsSL --connect-timeout 20 --max-time 60 -o "$1" "$url" || {
			echo "vm-run: SKIP $SCENARIO: no copy of the WP Panel installer's install.sh at" \
				"$WP_PANEL_COMMIT: none beside this checkout (../shared/legacy/wp-panel/install.sh)," \
				"none given (WP_PANEL_INSTALLER), none in $VM_CACHE, and $url cannot be fetched" \
				"from this machine"
			return 77
		}
	fi
	if [ "$(sha256sum <"$1" 2>/dev/null | cut -d' ' -f1)" != "$WP_PANEL_SHA256" ]; then
		echo "vm-run: $from is not the install.sh of the WP Panel installer at $WP_PANEL_COMMIT" \
			"(its SHA-256 is not $WP_PANEL_SHA256); WP_PANEL_INSTALLER may name it, or a clone" \
			"of its repository"
		return 1
	fi
	[ -f "$cache" ] || cp "$1" "$cache"
	echo "vm-run: the installer's install.sh from $from (SHA-256 $WP_PANEL_SHA256)"
}

scenario() {
	local dir work keyring=usr/share/keyrings/wp-panel-nettune-archive-keyring.asc
	# The provisioning image (local: the next scenario gets the run's).
	local VM_IMAGE VM_KERNEL VM_INITRD VM_RELEASE
	# shellcheck disable=SC2086 # a word list
	vm_image $PROVISION_PACKAGES
	dir=$(share installer)
	work=$VM_WORKDIR/$SCENARIO-installer
	rm -rf "$work"
	mkdir -p "$work"
	installer_script "$work/install.sh" || return $?
	cp "$work/install.sh" "$dir/install.sh.orig"
	(cd "$work" && patch --dry-run --fuzz=0 -s -p1 <"$TOP/contrib/wp-panel/install.sh.patch" &&
		patch --fuzz=0 -s -p1 <"$TOP/contrib/wp-panel/install.sh.patch") || {
		echo "vm-run: contrib/wp-panel/install.sh.patch does not apply to install.sh at $WP_PANEL_COMMIT"
		return 1
	}
	bash -n "$work/install.sh" || return 1
	cp "$work/install.sh" "$dir/install.sh"
	"$TOP/contrib/wp-panel/extract-functions" "$work/install.sh" >"$dir/patched.sh" || return 1
	"$TOP/contrib/wp-panel/extract-functions" "$dir/install.sh.orig" \
		RED GREEN YELLOW NC log_info log_warn apply_system_tuning >"$dir/unpatched.sh" || return 1
	cp -a "$REPOS/site" "$REPOS/site-otherkey" "$dir/" || return 1
	key_fingerprint "$REPOS/repo/wp-panel-nettune-archive-keyring.asc" >"$dir/fingerprint"
	dpkg-deb --fsys-tarfile "$REPOS/site-otherkey/wp-panel-nettune-archive-keyring.deb" |
		tar -xOf - "./$keyring" >"$work/otherkey.asc"
	key_fingerprint "$work/otherkey.asc" >"$dir/otherkey-fingerprint"
	if ! grep -Eqx '[0-9A-F]{40}' "$dir/fingerprint" ||
		! grep -Eqx '[0-9A-F]{40}' "$dir/otherkey-fingerprint" ||
		cmp -s "$dir/fingerprint" "$dir/otherkey-fingerprint"; then
		echo "vm-run: not two keys, one each: $(cat "$dir/fingerprint" "$dir/otherkey-fingerprint" | tr '\n' ' ')"
		return 1
	fi
	mkdir -p "$dir/legacy"
	cp "$TOP/share/installer/99-wp-panel.conf.2cpu" "$dir/legacy/"
	# installer-run FUNCTIONS SITE FUNCTION: FUNCTION of the extracted
	# FUNCTIONS as install.sh runs it, with SITE (or "default": the patch's
	# own) and the repository key's fingerprint.
	cat >"$dir/installer-run" <<'RUN'
#!/bin/bash
# shellcheck disable=SC1090,SC1091,SC2034 # the functions, os-release and their variables
set -e
set -o pipefail
. "$1"
export DEBIAN_FRONTEND=noninteractive
DEBIAN_CODENAME=$(lsb_release -sc 2>/dev/null || true)
[ -n "$DEBIAN_CODENAME" ] || DEBIAN_CODENAME=$(. /etc/os-release && echo "$VERSION_CODENAME")
[ "$2" = default ] || NETTUNE_SITE=$2
NETTUNE_KEY_FPR=$(cat /host/fingerprint)
"$3"
RUN
	boot installer "$(disk wp-panel-installer)" 2 1500 <<'GUEST'
key=/usr/share/keyrings/wp-panel-nettune-archive-keyring.asc
sources=/etc/apt/sources.list.d/wp-panel-nettune.sources
site=http://127.0.0.1:8080

# run_case NAME FUNCTIONS SITE FUNCTION: installer-run, logged as NAME.
run_case() {
	logged "$1" bash /host/installer-run "$2" "$3" "$4"
}

# installer_lines NAME: the lines of /host/NAME.log without terminal
# control sequences (colours; apt's progress bar on a terminal) and
# carriage returns, into /host/NAME-lines.log and this output.
installer_lines() {
	sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1b[78]//g' "/host/$1.log" | tr -d '\r' \
		>"/host/$1-lines.log"
	note "the installer's lines ($1):"
	sed "s/^/#   $1 | /" "/host/$1-lines.log"
}

# absent PACKAGE: dpkg has PACKAGE in no state but not-installed.
absent() {
	case $(dpkg-query -W -f '${db:Status-Status}' "$1" 2>/dev/null) in
	"" | not-installed) return 0 ;;
	esac
	return 1
}

# ours FILE: what the package and the patch could leave: /etc/apt (with
# the contents), the keyrings, apt's lists, the patch's files in /tmp;
# less apt's own lists/auxfiles (TREE_EXCLUDE in guest-lib.sh says why).
ours() {
	{
		find /etc/apt /usr/share/keyrings /var/lib/apt/lists -printf '%y %m %u:%g %p\n'
		find /etc/apt -type f -exec sha256sum {} +
		ls -d /tmp/wp-panel-nettune* 2>/dev/null
	} | grep -Ev "$TREE_EXCLUDE" | LC_ALL=C sort >"$1"
}

# builtin_undone: the installer's own tuning taken away as its do_purge
# takes it away (the values stay), so that the next run writes it anew.
builtin_undone() {
	rm -f /etc/sysctl.d/99-wp-panel.conf
	sed -i '/nofile 65535/d' /etc/security/limits.conf
}

# fell_back NAME: after a run that had to fall back: the installer's own
# file, its values live, nothing of the package anywhere. The file and
# limits.conf are kept as /tmp/NAME.conf and /tmp/NAME.limits.
fell_back() {
	check "$1: the installer's own file, byte for byte 99-wp-panel.conf.2cpu" \
		cmp /host/legacy/99-wp-panel.conf.2cpu /etc/sysctl.d/99-wp-panel.conf
	check_eq "$1: its mode" "644 root:root" "$(stat -c '%a %U:%G' /etc/sysctl.d/99-wp-panel.conf)"
	cp /etc/sysctl.d/99-wp-panel.conf "/tmp/$1.conf"
	cp /etc/security/limits.conf "/tmp/$1.limits"
	fragment_settings /etc/sysctl.d/99-wp-panel.conf >"/tmp/$1.settings"
	while read -r fb_key fb_value; do
		check_sysctl "$fb_key" "$fb_value"
	done <"/tmp/$1.settings"
	check_eq "$1: that is every key of the installer's file" 22 "$(wc -l <"/tmp/$1.settings")"
	check "$1: wp-panel-nettune not installed" absent wp-panel-nettune
	check "$1: nor its keyring package" absent wp-panel-nettune-archive-keyring
	ours "/tmp/$1.ours"
	check_same "$1: nothing of the package in /etc/apt, the keyrings, apt's lists, /tmp" \
		/tmp/baseline.ours "/tmp/$1.ours"
}

check_eq "2 vCPUs" 2 "$(nproc)"
check_eq "Debian 13, as install.sh finds it" trixie "$(lsb_release -sc 2>/dev/null)"
check "gpg, which the installer installs before it tunes (gnupg)" command -v gpg
check "wget, one of download_file's two" command -v wget
# A source that makes a full "apt-get update" fail (no Release file): the
# patch refreshes its own source only.
cat >/etc/apt/sources.list.d/elsewhere.sources <<'EOF'
Types: deb
URIs: http://127.0.0.1:8080/elsewhere/
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.pgp
EOF
purge_baseline
ours /tmp/baseline.ours
sha256sum /etc/security/limits.conf >/tmp/limits.sha256
repo_serve /host/site

note "case 1: the site served, the package installed"
check "case 1: the patched apply_system_tuning succeeds" \
	run_case case1 /host/patched.sh "$site" apply_system_tuning
installer_lines case1
said "case 1: it says the package is installed" case1-lines 'wp-panel-nettune 安装完成'
check_eq "case 1: wp-panel-nettune from the repository" "install ok installed $PKG_VERSION" \
	"$(dpkg-query -W -f '${Status} ${Version}' wp-panel-nettune 2>&1)"
check_eq "case 1: the keyring package too" "install ok installed" \
	"$(dpkg-query -W -f '${Status}' wp-panel-nettune-archive-keyring 2>&1)"
check_eq "case 1: the keyring package owns $key" "wp-panel-nettune-archive-keyring: $key" \
	"$(dpkg -S "$key" 2>&1)"
check_eq "case 1: $key: root's, 0644" "644 root:root" "$(stat -c '%a %U:%G' "$key")"
check "case 1: $key is the key the repository serves" \
	cmp "$key" /srv/repo/debian/wp-panel-nettune-archive-keyring.asc
check_eq "case 1: the source the patch writes" \
	"$(printf 'Types: deb\nURIs: %s/debian/\nSuites: trixie\nComponents: main\nSigned-By: %s' "$site" "$key")" \
	"$(cat "$sources")"
check_eq "case 1: $sources: 0644" "644 root:root" "$(stat -c '%a %U:%G' "$sources")"
check "case 1: the other source was never asked" sh -c '! grep -q /elsewhere/ /host/http.log'
check_profile_in_effect bbr
check_status_ok "case 1"
check "case 1: no /etc/sysctl.d/99-wp-panel.conf" test ! -e /etc/sysctl.d/99-wp-panel.conf
check_eq "case 1: limits.conf untouched" "$(cat /tmp/limits.sha256)" \
	"$(sha256sum /etc/security/limits.conf)"
check "case 1: no temporary files left" sh -c '! ls -d /tmp/wp-panel-nettune* 2>/dev/null'

note "case 4: the same again"
tree_listing /host/run1.tree
sysctl_snapshot /host/run1.sysctl
requests=$(wc -l </host/http.log)
check "case 4: the patched apply_system_tuning again succeeds" \
	run_case case4 /host/patched.sh "$site" apply_system_tuning
installer_lines case4
said "case 4: it says the package is there already" case4-lines 'wp-panel-nettune 已安装，无需重复优化'
tree_listing /host/run2.tree
sysctl_snapshot /host/run2.sysctl
check_same "case 4: /etc, /var/lib, /usr as after the first run" /host/run1.tree /host/run2.tree
check_same "case 4: every value under /proc/sys/net as after the first run" \
	/host/run1.sysctl /host/run2.sysctl
check_eq "case 4: the site not asked again" "$requests" "$(wc -l </host/http.log)"

note "case 5: the patched do_purge, confirmed on a terminal"
rc=0
printf 'yes\n' | script -qec "bash /host/installer-run /host/patched.sh $site do_purge" /dev/null \
	>/host/case5.log 2>&1 || rc=$?
check_eq "case 5: the patched do_purge exits 0" 0 "$rc"
installer_lines case5
said "case 5: confirmed" case5-lines '正在清空'
said "case 5: the package purged" case5-lines 'Purging configuration files for wp-panel-nettune \('
said "case 5: the keyring package removed (it has no conffiles to purge)" case5-lines \
	'Removing wp-panel-nettune-archive-keyring \('
check "case 5: the keyring package gone" absent wp-panel-nettune-archive-keyring
check "case 5: $key removed" test ! -e "$key"
said "case 5: to the end" case5-lines '全部清除完成'
check "case 5: $sources removed" test ! -e "$sources"
check_purge_restored

note "case 2: the default site, unreachable from this machine"
check "case 2: the patched apply_system_tuning succeeds" \
	run_case case2 /host/patched.sh default apply_system_tuning
installer_lines case2
said "case 2: it says why it falls back" case2-lines \
	'wp-panel-nettune 仓库无法访问（key 下载失败），改用内置优化'
fell_back case2
builtin_undone

note "case 3: a key file holding another key"
repo_serve /host/site-otherkey
requests=$(wc -l </host/http.log)
check "case 3: the patched apply_system_tuning succeeds" \
	run_case case3 /host/patched.sh "$site" apply_system_tuning
installer_lines case3
said "case 3: it names the fingerprint it found" case3-lines \
	"wp-panel-nettune 仓库 key 指纹不符（$(cat /host/otherkey-fingerprint)），改用内置优化"
check_eq "case 3: the key file fetched, nothing else" \
	"GET /wp-panel-nettune-archive-keyring.asc" \
	"$(sed -n "$((requests + 1)),\$p" /host/http.log | sed -n 's/.*"\(GET [^ ]*\) HTTP.*/\1/p' | paste -sd ' ')"
fell_back case3
builtin_undone

note "the unpatched apply_system_tuning, for what it writes today"
check "the unpatched apply_system_tuning succeeds" \
	run_case unpatched /host/unpatched.sh default apply_system_tuning
installer_lines unpatched
for c in case2 case3; do
	check "$c: 99-wp-panel.conf as the unpatched function writes it" \
		cmp /etc/sysctl.d/99-wp-panel.conf "/tmp/$c.conf"
	check "$c: limits.conf as the unpatched function leaves it" \
		cmp /etc/security/limits.conf "/tmp/$c.limits"
	check_eq "$c: the unpatched function's lines, after the patch's own" \
		"$(cat /host/unpatched-lines.log)" \
		"$(tail -n "$(wc -l </host/unpatched-lines.log)" "/host/$c-lines.log")"
done
GUEST
}
