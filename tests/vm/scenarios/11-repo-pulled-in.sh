# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 11. Pulled in: the installer's own package (a stand-in, wp-panel, built
#     by tests/vm/run with "Depends: wp-panel-nettune" and published in the
#     same repository) installed with "apt-get install -y wp-panel",
#     unattended: wp-panel-nettune comes with it, marked automatic, with no
#     prompt, and the profile is live.
title="pulled in by the installer's package from the repository"
wants=repos

scenario() {
	boot install "$(disk repo-pulled-in)" 2 <<'GUEST'
repo_serve /host/repo
repo_add_source
check_update_clean update
check_eq "apt's candidate for wp-panel" 1.0 "$(candidate wp-panel)"
check "DEBIAN_FRONTEND=noninteractive apt-get install -y wp-panel-nettune-archive-keyring wp-panel" \
	apt_get install install wp-panel-nettune-archive-keyring wp-panel
check_eq "wp-panel installed" "install ok installed" \
	"$(dpkg-query -W -f '${Status}' wp-panel 2>&1)"
check_eq "wp-panel-nettune pulled in" "install ok installed $PKG_VERSION" \
	"$(dpkg-query -W -f '${Status} ${Version}' wp-panel-nettune 2>&1)"
check "wp-panel-nettune marked as installed automatically" \
	sh -c 'apt-mark showauto | grep -qx wp-panel-nettune'
check_installed_from_repo install
check_profile_in_effect bbr
check_status_ok "after the install of wp-panel"
GUEST
}
