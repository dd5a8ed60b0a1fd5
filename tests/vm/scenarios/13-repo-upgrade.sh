# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 13. Upgrade from the repository. Installed by name from make-repo's
#     repository; then the same repository with a newer version published
#     by make-repo again (the patched copy of tests/vm/run: NEW_VERSION,
#     tcp_keepalive_time NEW_KEEPALIVE), and "apt-get update && apt-get
#     upgrade -y", unattended. Two machines:
#     - edited: one line of the sysctl fragment changed and applied first.
#       The edit is kept whole (the new fragment beside it as .ucf-dist),
#       the unedited modules fragment follows the new version, the edited
#       values stay live; status shows the edit as a choice and the new
#       keepalive as an update not taken, and exits 3;
#     - unedited: the new fragment replaces the old one, the new keepalive
#       is live, status shows it and exits 0.
title="upgrade from the repository: edit kept, new values live"

# The guest script of both boots: install, maybe edit, upgrade. EDIT=1
# edits.
upgrade_guest() {
	echo "EDIT=$1"
	cat <<'GUEST'
repo_serve /host/repo
repo_add_source
check_update_clean update
check "install by name" apt_get install install wp-panel-nettune-archive-keyring wp-panel-nettune
check_eq "installed $PKG_VERSION" "$PKG_VERSION" "$(dpkg-query -W -f '${Version}' wp-panel-nettune)"
fin=15
if [ "$EDIT" = 1 ]; then
	fin=25
	sed -i 's/^net\.ipv4\.tcp_fin_timeout = 15$/net.ipv4.tcp_fin_timeout = 25/' "$NT_SYSCTL"
	check_eq "the edit is in the fragment" "net.ipv4.tcp_fin_timeout 25" \
		"$(fragment_settings "$NT_SYSCTL" | grep '^net.ipv4.tcp_fin_timeout ')"
	check "wp-panel-nettune apply" logged apply wp-panel-nettune apply
fi

repo_serve /host/repo-new
check_update_clean update-new
check_eq "apt's candidate: $NEW_VERSION" "$NEW_VERSION" "$(candidate wp-panel-nettune)"
check "DEBIAN_FRONTEND=noninteractive apt-get upgrade -y" apt_get upgrade upgrade
check_eq "upgraded to $NEW_VERSION" "$NEW_VERSION" "$(dpkg-query -W -f '${Version}' wp-panel-nettune)"
check "no debconf frontend trouble in the upgrade log" \
	sh -c "! grep -Ei 'unable to (initialize|re-open)|frontend|prompt' /host/upgrade.log"

check "the modules fragment follows the new version" \
	sh -c "wp-panel-nettune render modules | cmp -s - $NT_MODULES"
check "no .ucf-dist beside the modules fragment" test ! -e "$NT_MODULES.ucf-dist"
check_eq "tcp_fin_timeout in the fragment" "net.ipv4.tcp_fin_timeout $fin" \
	"$(fragment_settings "$NT_SYSCTL" | grep '^net.ipv4.tcp_fin_timeout ')"
check_sysctl net.ipv4.tcp_fin_timeout "$fin"
if [ "$EDIT" = 1 ]; then
	check_eq "the edited fragment is kept whole (old keepalive)" \
		"net.ipv4.tcp_keepalive_time 300" \
		"$(fragment_settings "$NT_SYSCTL" | grep '^net.ipv4.tcp_keepalive_time ')"
	check "the new fragment is beside it as .ucf-dist" test -f "$NT_SYSCTL.ucf-dist"
	check_eq ".ucf-dist has the new keepalive" "net.ipv4.tcp_keepalive_time $NEW_KEEPALIVE" \
		"$(fragment_settings "$NT_SYSCTL.ucf-dist" 2>&1 | grep '^net.ipv4.tcp_keepalive_time ')"
	keepalive=300
else
	check "the new fragment replaced the old one" \
		sh -c "wp-panel-nettune render sysctl | cmp -s - $NT_SYSCTL"
	check "no .ucf-dist" test ! -e "$NT_SYSCTL.ucf-dist"
	keepalive=$NEW_KEEPALIVE
fi
check_sysctl net.ipv4.tcp_keepalive_time "$keepalive"
check_fragment_live
if [ "$EDIT" = 1 ]; then
	check_eq "after the upgrade: status exits 3 (an update not taken)" 3 "$(nt_status)"
	check "status names the keepalive outdated" \
		grep -Eq "^net.ipv4.tcp_keepalive_time +300 +300 .*OUTDATED$" /host/status.log
	check "and the edit a choice" grep -q "(edited; the profile: " /host/status.log
else
	check_status_ok "after the upgrade"
fi
check "status shows tcp_keepalive_time $keepalive live" \
	grep -Eq "^net.ipv4.tcp_keepalive_time +$keepalive +$keepalive " /host/status.log
check "status shows tcp_fin_timeout $fin live" \
	grep -Eq "^net.ipv4.tcp_fin_timeout +$fin +$fin " /host/status.log
GUEST
}

scenario() {
	boot edited "$(disk repo-upgrade-edited)" 2 < <(upgrade_guest 1) || return 1
	boot unedited "$(disk repo-upgrade-unedited)" 2 < <(upgrade_guest 0)
}
