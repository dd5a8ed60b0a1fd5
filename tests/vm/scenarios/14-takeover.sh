# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 14. A server the WP Panel installer tuned (2 vCPUs: its 99-wp-panel.conf,
#     its limits.conf lines, tcp_bbr loaded, "sysctl --system"). An
#     unattended install takes the installer's file over: moved byte for
#     byte into the state directory, status 0, ports from 10240, the old
#     file read by nobody at boot; the same after a reboot. Then purge: the
#     file is back byte-identical with its mode, every value it sets is
#     live again (its rmem_default and wmem_default too, which the boot in
#     between reset), the rest of the profile's keys as before the install,
#     limits.conf unchanged, and /etc, /var/lib, /usr as before the install.
title="installer's 99-wp-panel.conf: taken over, reboot, purge puts it back"

# legacy BOOT: the bytes earlier tuning leaves, into the share of BOOT.
legacy() {
	local dir
	dir=$(share "$1")/legacy
	mkdir -p "$dir"
	cp "$TOP"/share/installer/* "$TOP"/tests/fixtures/legacy/* "$dir/"
}

scenario() {
	legacy install
	legacy purge
	boot install "$(disk takeover)" 2 <<'GUEST' || return 1
check_eq "2 vCPUs" 2 "$(nproc)"
installer_server 2cpu
check_sysctl net.ipv4.ip_local_port_range "1024 65535"
check_sysctl net.core.rmem_default 262144
sysctl_snapshot /host/before.sysctl
tree_listing /host/before.tree
sha256sum /etc/security/limits.conf >/host/limits.sha256

check "install" apt_get install install /host/pkg.deb
sed 's/^/#   | /' /host/install.log | grep -v -e '^#   | \(Selecting\|Preparing\|Unpacking\|Setting up\|Processing\|Reading\|(Reading\)' -e 'database' | head -n 20
said "the install says what it took over" install \
	'^took over /etc/sysctl.d/99-wp-panel.conf \(the WP Panel installer.s 99-wp-panel.conf.2cpu\)'
said "and what happens to the keys that are not ours" install \
	'^note: not in our fragment: net.core.rmem_default, net.core.wmem_default; '
said "nothing else overrides the fragment" install '^No other file sets a key'
check "the installer's file is gone from /etc/sysctl.d" test ! -e /etc/sysctl.d/99-wp-panel.conf
check "kept byte for byte" cmp /host/legacy/99-wp-panel.conf.2cpu \
	/var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf
check_eq "with its mode" "644 root:root" \
	"$(stat -c '%a %U:%G' /var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf)"
check_eq "in the journal, with its mode, owner and group" \
	"file	/etc/sysctl.d/99-wp-panel.conf	0644	0	0	taken-over/99-wp-panel.conf" \
	"$(grep '^file	' "$NT_JOURNAL")"
check_eq "and the keys purge sets again from it" \
	"set	net.core.rmem_default	262144|set	net.core.wmem_default	262144|" \
	"$(grep '^set	' "$NT_JOURNAL" | tr '\n' '|')"
check "wp-panel-nettune journal shows them" \
	sh -c 'wp-panel-nettune journal | grep -qx "    then net.core.rmem_default = 262144, from that file"'
check "no takeover record of the versions before" test ! -e /var/lib/wp-panel-nettune/taken-over/record
check_status_ok "after the install"
cp /host/status.log /host/status-install.log
check_sysctl net.ipv4.ip_local_port_range "10240 65535"
check_profile_in_effect bbr
check "status names no file but the fragment" \
	sh -c '! grep -q 99-wp-panel.conf /host/status.log'
check "systemd-sysctl does not read the old file" \
	sh -c '! /usr/lib/systemd/systemd-sysctl --cat-config | grep -q 99-wp-panel.conf'
check_eq "limits.conf untouched" "$(cat /host/limits.sha256)" \
	"$(sha256sum /etc/security/limits.conf)"
GUEST
	cp "$(share install)"/before.* "$(share install)/limits.sha256" "$(share purge)/"

	boot purge "$(disk takeover)" 2 <<'GUEST'
check_status_ok "after a reboot"
cp /host/status.log /host/status-reboot.log
check_sysctl net.ipv4.ip_local_port_range "10240 65535"
check_profile_in_effect bbr
check "the installer's file still away" test ! -e /etc/sysctl.d/99-wp-panel.conf
note "rmem_default after the reboot: $(sysctl_value net.core.rmem_default) (the kernel's default: nothing sets it now)"

check "purge" apt_get purge purge wp-panel-nettune
sed 's/^/#   | /' /host/purge.log | grep -v -e 'database' -e 'Reading\|Removing\|Purging\|Processing' | head -n 20
said "purge says it put the file back" purge \
	'put back /etc/sysctl.d/99-wp-panel.conf, byte for byte'
said "and set its own keys again" purge \
	'net.core.rmem_default: set again from /etc/sysctl.d/99-wp-panel.conf'
said "both of them" purge \
	'net.core.wmem_default: set again from /etc/sysctl.d/99-wp-panel.conf'
check "the installer's file is back byte-identical" cmp /host/legacy/99-wp-panel.conf.2cpu \
	/etc/sysctl.d/99-wp-panel.conf
check_eq "with its mode" "644 root:root" "$(stat -c '%a %U:%G' /etc/sysctl.d/99-wp-panel.conf)"
fragment_settings /etc/sysctl.d/99-wp-panel.conf >/tmp/installer.settings
while read -r key value; do
	check_sysctl "$key" "$value"
done </tmp/installer.settings
check_eq "that is every key of the installer's file" 22 "$(wc -l </tmp/installer.settings)"
nt_profile bbr | while read -r key _; do
	echo "$key $(snapshot_get /host/before.sysctl "$key")"
done >/tmp/profile.before
nt_profile bbr | while read -r key _; do
	echo "$key $(sysctl_value "$key")"
done >/tmp/profile.after
check_same "every key of the profile as before the install" /tmp/profile.before /tmp/profile.after
check_eq "limits.conf unchanged" "$(cat /host/limits.sha256)" \
	"$(sha256sum /etc/security/limits.conf)"
tree_listing /host/after.tree
diff -U0 /host/before.tree /host/after.tree >/host/purge-listing.diff || true
tree_compare "/etc, /var/lib, /usr as before the install" /host/before.tree /host/after.tree
GUEST
}
