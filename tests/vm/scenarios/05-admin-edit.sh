# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 5. An administrator's edit survives. On the disk of scenario 1: one value
#    of the fragment edited and applied as README.Debian says; then
#    "apt-get install --reinstall" of the same version, and an upgrade to a
#    newer version whose profile differs (tcp_keepalive_time): the edited
#    fragment is kept whole, the new one is put beside it as .ucf-dist, the
#    edited value stays live. After the reinstall status exits 0, the edit
#    a choice; after the upgrade it exits 3: the new keepalive is an update
#    not taken, named with its value and how to take it, the edit still a
#    choice.
title="admin edit survives reinstall and upgrade"
needs=01

scenario() {
	boot edit "$(disk install-2cpu)" 2 <<'GUEST'
check_eq "installed version" "$PKG_VERSION" "$(dpkg-query -W -f '${Version}' wp-panel-nettune)"
sed -i 's/^net\.ipv4\.tcp_fin_timeout = 15$/net.ipv4.tcp_fin_timeout = 25/' "$NT_SYSCTL"
check_eq "the edit is in the fragment" "net.ipv4.tcp_fin_timeout 25" \
	"$(fragment_settings "$NT_SYSCTL" | grep '^net.ipv4.tcp_fin_timeout ')"
check "wp-panel-nettune apply" logged apply wp-panel-nettune apply
check_sysctl net.ipv4.tcp_fin_timeout 25

# Reinstalling the same version.
check "apt-get install --reinstall, unattended" apt_get reinstall install --reinstall /host/pkg.deb
check_eq "reinstall: the edit is kept" "net.ipv4.tcp_fin_timeout 25" \
	"$(fragment_settings "$NT_SYSCTL" | grep '^net.ipv4.tcp_fin_timeout ')"
check "reinstall: same profile, so no .ucf-dist" test ! -e "$NT_SYSCTL.ucf-dist"
check_sysctl net.ipv4.tcp_fin_timeout 25
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
check_fragment_live
check_eq "after the upgrade: status exits 3" 3 "$(nt_status)"
sed 's/^/#   | /' /host/status.log
check "status shows the edit as a choice" \
	grep -Eq '^net.ipv4.tcp_fin_timeout +25 +25 .*\(edited; the profile: 15\)$' /host/status.log
check "and the keepalive not taken" \
	grep -Eq '^net.ipv4.tcp_keepalive_time +300 +300 .*OUTDATED$' /host/status.log
check "with the value it would take" \
	grep -Eq "^ +net.ipv4.tcp_keepalive_time: 300 -> $NEW_KEEPALIVE$" /host/status.log
check "and where the new fragment is" grep -q "beside it: $NT_SYSCTL.ucf-dist$" /host/status.log
check_match "the verdict" '^Not as it should be \(exit 3\): outdated\.$' "$(tail -n 1 /host/status.log)"
GUEST
}
