# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 10. By name, from the signed repository, as an installer does it
#     (README.md): the key and the .sources file from the repository, in
#     place; apt-get update prints no warning; "apt-get install -y
#     wp-panel-nettune-archive-keyring wp-panel-nettune", unattended: no
#     prompt, the keyring package owns the key apt trusts, the profile is
#     live and status exits 0. The guest serves make-repo's repository
#     over HTTP itself (it has no network).
title="by name from the signed apt repository"
wants=repos

scenario() {
	boot install "$(disk repo-by-name)" 2 <<'GUEST'
repo_serve /host/repo
repo_add_source
check_update_clean update
check_eq "apt's candidate: $PKG_VERSION from the repository" "$PKG_VERSION" \
	"$(candidate wp-panel-nettune)"
check "DEBIAN_FRONTEND=noninteractive apt-get install -y wp-panel-nettune-archive-keyring wp-panel-nettune" \
	apt_get install install wp-panel-nettune-archive-keyring wp-panel-nettune
check_eq "installed from the repository" "install ok installed $PKG_VERSION" \
	"$(dpkg-query -W -f '${Status} ${Version}' wp-panel-nettune 2>&1)"
check_installed_from_repo install
check_profile_in_effect bbr
check_status_ok "after the install by name"
check_update_clean update-after
GUEST
}
