# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 5. An administrator's edit survives. On the disk of scenario 1: one value
#    of the fragment edited and applied as README.Debian says; then
#    "apt-get install --reinstall" of the same version, and an upgrade to a
#    newer version whose profile differs (tcp_keepalive_time): the edited
#    fragment is kept whole, the new one is put beside it as .ucf-dist, the
#    edited value stays live. After the reinstall status exits 0, the edit
#    a choice; after the upgrade it exits 3: the new keepalive is an update
#    not taken, named with its value and how to take it, the edit still a
#    choice. An administrator's own later file (/etc/sysctl.d/70-local.conf,
#    tcp_max_syn_backlog 4096, applied) is left alone by dpkg-reconfigure,
#    the reinstall and the upgrade: its value stays live, status calls it
#    overridden, a choice; the purge at the end keeps it too, and puts back
#    what the package changed.
title="admin edit and admin file survive reconfigure, reinstall, upgrade, purge"
needs=01

scenario() {
	boot edit "$(disk install-2cpu)" 2 <<'GUEST'
check_eq "installed version" "$PKG_VERSION" "$(dpkg-query -W -f '${Version}' wp-panel-nettune)"
sed -i 's/^net\.ipv4\.tcp_fin_timeout = 15$/net.ipv4.tcp_fin_timeout = 25/' "$NT_SYSCTL"
check_eq "the edit is in the fragment" "net.ipv4.tcp_fin_timeout 25" \
	"$(fragment_settings "$NT_SYSCTL" | grep '^net.ipv4.tcp_fin_timeout ')"
check "wp-panel-nettune apply" logged apply wp-panel-nettune apply
check_sysctl net.ipv4.tcp_fin_timeout 25

# The administrator's own file, after the fragment, applied as
# README.Debian says. The install of scenario 1 had set the key: its
# original stays in the journal, for a purge that finds the key as set.
echo 'net.ipv4.tcp_max_syn_backlog = 4096' >/etc/sysctl.d/70-local.conf
sysctl -q -p /etc/sysctl.d/70-local.conf
check_sysctl net.ipv4.tcp_max_syn_backlog 4096
check "dpkg-reconfigure -f noninteractive wp-panel-nettune" \
	logged reconfigure dpkg-reconfigure -f noninteractive wp-panel-nettune
said "the reconfigure leaves the key to that file" reconfigure \
	'^left net.ipv4.tcp_max_syn_backlog alone: /etc/sysctl.d/70-local.conf sets it to 4096 at boot$'
check_sysctl net.ipv4.tcp_max_syn_backlog 4096
check "the journal keeps the original the install recorded" \
	grep -Eq '^key	net.ipv4.tcp_max_syn_backlog	[0-9]+	8192$' "$NT_JOURNAL"
check_status_ok "after the reconfigure"
check "status names the file for the key, overridden" \
	grep -Eq '^net.ipv4.tcp_max_syn_backlog +8192 +4096 +/etc/sysctl.d/70-local.conf +\(overridden\)$' \
	/host/status.log

# Reinstalling the same version.
check "apt-get install --reinstall, unattended" apt_get reinstall install --reinstall /host/pkg.deb
check_eq "reinstall: the edit is kept" "net.ipv4.tcp_fin_timeout 25" \
	"$(fragment_settings "$NT_SYSCTL" | grep '^net.ipv4.tcp_fin_timeout ')"
check "reinstall: same profile, so no .ucf-dist" test ! -e "$NT_SYSCTL.ucf-dist"
check_sysctl net.ipv4.tcp_fin_timeout 25
check_sysctl net.ipv4.tcp_max_syn_backlog 4096
check_status_ok "after the reinstall"
check "status shows tcp_fin_timeout 25, edited" \
	grep -Eq '^net.ipv4.tcp_fin_timeout +25 +25 .*\(edited; the profile: 15\)$' /host/status.log
cp /host/status.log /host/status-reinstall.log

# Upgrading to a version whose profile differs.
check "upgrade to $NEW_VERSION, unattended" apt_get upgrade install /host/pkg-new.deb
check_eq "upgraded" "$NEW_VERSION" "$(dpkg-query -W -f '${Version}' wp-panel-nettune)"
check_eq "upgrade: the edit is kept" "net.ipv4.tcp_fin_timeout 25" \
	"$(fragment_settings "$NT_SYSCTL" | grep '^net.ipv4.tcp_fin_timeout ')"
check_eq "upgrade: the edited fragment is kept whole (old keepalive)" \
	"net.ipv4.tcp_keepalive_time 300" \
	"$(fragment_settings "$NT_SYSCTL" | grep '^net.ipv4.tcp_keepalive_time ')"
check "upgrade: the new fragment is beside it as .ucf-dist" test -f "$NT_SYSCTL.ucf-dist"
check_eq ".ucf-dist has the new profile's keepalive" "net.ipv4.tcp_keepalive_time $NEW_KEEPALIVE" \
	"$(fragment_settings "$NT_SYSCTL.ucf-dist" 2>&1 | grep '^net.ipv4.tcp_keepalive_time ')"
check_eq ".ucf-dist has the profile's fin_timeout" "net.ipv4.tcp_fin_timeout 15" \
	"$(fragment_settings "$NT_SYSCTL.ucf-dist" 2>&1 | grep '^net.ipv4.tcp_fin_timeout ')"
check_sysctl net.ipv4.tcp_fin_timeout 25
check_sysctl net.ipv4.tcp_keepalive_time 300
said "the upgrade leaves the administrator's key alone" upgrade \
	'^left net.ipv4.tcp_max_syn_backlog alone: /etc/sysctl.d/70-local.conf sets it to 4096 at boot$'
check_sysctl net.ipv4.tcp_max_syn_backlog 4096
check_fragment_live net.ipv4.tcp_max_syn_backlog
check_eq "after the upgrade: status exits 3" 3 "$(nt_status)"
sed 's/^/#   | /' /host/status.log
check "status shows the edit as a choice" \
	grep -Eq '^net.ipv4.tcp_fin_timeout +25 +25 .*\(edited; the profile: 15\)$' /host/status.log
check "and the keepalive not taken" \
	grep -Eq '^net.ipv4.tcp_keepalive_time +300 +300 .*OUTDATED$' /host/status.log
check "with the value it would take" \
	grep -Eq "^ +net.ipv4.tcp_keepalive_time: 300 -> $NEW_KEEPALIVE$" /host/status.log
check "and where the new fragment is" grep -q "beside it: $NT_SYSCTL.ucf-dist$" /host/status.log
check "the administrator's key overridden, a choice" \
	grep -Eq '^net.ipv4.tcp_max_syn_backlog +8192 +4096 +/etc/sysctl.d/70-local.conf +\(overridden\)$' \
	/host/status.log
check_match "the verdict" '^Not as it should be \(exit 3\): outdated\.$' "$(tail -n 1 /host/status.log)"

# Purge puts back what the package changed, and nothing else.
original=$(sed -n 's/^key	net.ipv4.tcp_keepalive_intvl	\([0-9]*\)	30$/\1/p' "$NT_JOURNAL")
check "the journal has the original of tcp_keepalive_intvl" test -n "$original"
check "apt-get purge -y wp-panel-nettune" apt_get purge purge wp-panel-nettune
check_sysctl net.ipv4.tcp_max_syn_backlog 4096
check "the administrator's file stays" \
	grep -qx 'net.ipv4.tcp_max_syn_backlog = 4096' /etc/sysctl.d/70-local.conf
check_sysctl net.ipv4.tcp_keepalive_intvl "$original"
GUEST
}
