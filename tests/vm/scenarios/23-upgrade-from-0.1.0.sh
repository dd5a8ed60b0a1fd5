# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 23. Upgrade from the first release. 0.1.0, built from its tag by
#     make-repo (tests/vm/run: old_release_tree) and laid out by
#     tools/publish as the release site (site-v0.1.0), is installed as
#     0.1.0's README said (the keyring package from the site, the .sources
#     file, apt-get update, install by name: a machine set up then; the
#     steps README gives now are tests/robust/publish.sh's); then the site of this version,
#     published over it (site, which tools/publish checked against
#     site-v0.1.0 served), is served, and "apt-get update && apt-get
#     upgrade -y" runs, unattended. On each, the upgrade takes back the
#     link and record deb-systemd-helper made when 0.1.0 enabled the
#     first-boot unit, which the package now wants through its own link.
#     Three machines:
#     - plain: the version-1 record is read and carried over into a
#       version-2 one whose originals are the values from before 0.1.0,
#       tcp_mtu_probing (new in 0.2.0) is live, status exits 0, and the
#       purge puts back the values the machine had before 0.1.0;
#     - edited: one line of the fragment changed under 0.1.0. The edit is
#       kept (the modules fragment, not edited, follows), the new key waits: status exits 3, names tcp_mtu_probing
#       MISSING and the edit a choice, and says to take the line by hand;
#       done so, dpkg-reconfigure applies it and status exits 0;
#     - confold: upgraded with --force-confold. ucf keeps 0.1.0's fragment;
#       status exits 3, names the key MISSING and says dpkg-reconfigure
#       takes the new fragment; after it, all is in effect.
title="upgrade from 0.1.0: record carried over, new key live or said to wait"
wants=repos
estimate=720

# The guest script: MODE=plain|edited|confold.
old_upgrade_guest() {
	echo "MODE=$1"
	cat <<'GUEST'
if [ ! -f /host/site-v0.1.0/debian/dists/trixie/InRelease ]; then
	fail "the release site of 0.1.0" "tests/vm/run could not build it: see make-repo-old.log and publish.log"
	checks_done
fi
# 0.1.0's README, "Install it on a server", with python3 fetching in place of curl
# and without the gpg line (no gpg in this image: tools/publish checked the
# key's fingerprint when it made the site).
repo_serve /host/site-v0.1.0
apt_sources_aside
keyring=wp-panel-nettune-archive-keyring
check "the keyring package from the site" repo_fetch "$keyring.deb" "/root/$keyring.deb"
check "the keyring package holds the key the site publishes" sh -c \
	"dpkg-deb --fsys-tarfile /root/$keyring.deb | tar -xOf - ./usr/share/keyrings/$keyring.asc |
		cmp -s - /host/site-v0.1.0/$keyring.asc"
# The keyring first, so that the purge baseline already holds it: the
# purge below takes back wp-panel-nettune, not the repository.
check "apt-get install ./$keyring.deb" apt_get keyring install "/root/$keyring.deb"
check "the .sources file from the site" \
	repo_fetch debian/wp-panel-nettune.sources /etc/apt/sources.list.d/wp-panel-nettune.sources
chmod 644 /etc/apt/sources.list.d/wp-panel-nettune.sources
check_eq "the .sources file names the site's repository" "URIs: ${REPO_URL%/}/debian" \
	"$(grep '^URIs:' /etc/apt/sources.list.d/wp-panel-nettune.sources)"
check_update_clean update-old
check_eq "apt's candidate: 0.1.0" 0.1.0 "$(candidate wp-panel-nettune)"
[ "$MODE" != plain ] || purge_baseline
check "install 0.1.0 by name" apt_get install-old install wp-panel-nettune
check_eq "installed 0.1.0" 0.1.0 "$(dpkg-query -W -f '${Version}' wp-panel-nettune)"
record_v1=/var/lib/wp-panel-nettune/state
check_eq "0.1.0 wrote a version 1 record" "# wp-panel-nettune state 1" "$(head -n 1 "$record_v1")"
cp "$record_v1" /host/state-0.1.0
cp "$NT_SYSCTL" /host/fragment-0.1.0
check "0.1.0's fragment has no tcp_mtu_probing" \
	sh -c "! grep -q '^net.ipv4.tcp_mtu_probing' $NT_SYSCTL"
firstboot_link=/etc/systemd/system/sysinit.target.wants/wp-panel-nettune-firstboot.service
firstboot_dsh=/var/lib/systemd/deb-systemd-helper-enabled/wp-panel-nettune-firstboot.service.dsh-also
check "0.1.0 enabled the first-boot unit with deb-systemd-helper (a link under /etc, its record)" \
	test -L "$firstboot_link" -a -f "$firstboot_dsh"
mtu_before=$(sysctl_value net.ipv4.tcp_mtu_probing)
note "tcp_mtu_probing under 0.1.0: $mtu_before"

if [ "$MODE" = edited ]; then
	sed -i 's/^net\.ipv4\.tcp_fin_timeout = 15$/net.ipv4.tcp_fin_timeout = 25/' "$NT_SYSCTL"
	check "0.1.0's wp-panel-nettune apply of the edit" logged apply-old wp-panel-nettune apply
	check_sysctl net.ipv4.tcp_fin_timeout 25
fi

repo_serve /host/site
check_update_clean update
check_eq "apt's candidate: $PKG_VERSION" "$PKG_VERSION" "$(candidate wp-panel-nettune)"
if [ "$MODE" = confold ]; then
	check "apt-get upgrade -y -o Dpkg::Options::=--force-confold" \
		apt_get upgrade upgrade -o Dpkg::Options::=--force-confold
else
	check "apt-get upgrade -y" apt_get upgrade upgrade
fi
echo "# the upgrade's lines:"
sed -n '/^Preparing to unpack/,$s/^/#   /p' /host/upgrade.log
check_eq "upgraded to $PKG_VERSION" "$PKG_VERSION" \
	"$(dpkg-query -W -f '${Version}' wp-panel-nettune)"
check "no debconf frontend trouble in the upgrade log" \
	sh -c "! grep -Ei 'unable to (initialize|re-open)|frontend|prompt' /host/upgrade.log"
check "the upgrade converted 0.1.0's record" \
	grep -qx "converted $record_v1 into $NT_JOURNAL" /host/upgrade.log
check "0.1.0's record is gone" test ! -e "$record_v1"
check "0.1.0's enablement of the first-boot unit is taken back" \
	test ! -e "$firstboot_link" -a ! -e "$firstboot_dsh"
check_eq "the first-boot unit is static, wanted through the package's link" "static sysinit.target" \
	"$(systemctl is-enabled wp-panel-nettune-firstboot.service 2>&1) $(systemctl show -p WantedBy --value wp-panel-nettune-firstboot.service)"
check_eq "the undo journal replaces it" "# wp-panel-nettune journal 1" "$(head -n 1 "$NT_JOURNAL")"
# Every key of 0.1.0's record keeps its original in the journal.
_tab=$(printf '\t')
while IFS="$_tab" read -r _key _original _rest; do
	case $_key in '#'* | '') continue ;; esac
	check_eq "journal: $_key keeps 0.1.0's original" "$_original" "$(journal_original "$_key")"
done </host/state-0.1.0

case $MODE in
plain)
	check "the new fragment replaced 0.1.0's" \
		sh -c "wp-panel-nettune render sysctl | cmp -s - $NT_SYSCTL"
	check "no .ucf-dist" test ! -e "$NT_SYSCTL.ucf-dist"
	check_sysctl net.ipv4.tcp_mtu_probing 1
	check_record /host/before.sysctl
	check_profile_in_effect bbr
	check_status_ok "after the upgrade"
	check_eq "status: the last line" "All in effect." "$(tail -n 1 /host/status.log)"

	check "apt-get purge -y wp-panel-nettune" apt_get purge purge wp-panel-nettune
	check_purge_restored
	;;
edited)
	check_eq "the edit is kept" "net.ipv4.tcp_fin_timeout 25" \
		"$(fragment_settings "$NT_SYSCTL" | grep '^net.ipv4.tcp_fin_timeout ')"
	check "the new fragment is beside it as .ucf-dist" test -f "$NT_SYSCTL.ucf-dist"
	check "the modules fragment, not edited, follows the new version" \
		sh -c "wp-panel-nettune render modules | cmp -s - $NT_MODULES"
	check "no .ucf-dist beside the modules fragment" test ! -e "$NT_MODULES.ucf-dist"
	check_eq ".ucf-dist has the new key" "net.ipv4.tcp_mtu_probing 1" \
		"$(fragment_settings "$NT_SYSCTL.ucf-dist" 2>&1 | grep '^net.ipv4.tcp_mtu_probing ')"
	check_sysctl net.ipv4.tcp_fin_timeout 25
	check_sysctl net.ipv4.tcp_mtu_probing "$mtu_before"
	check_eq "after the upgrade: status exits 3 (the new key waits)" 3 "$(nt_status)"
	sed 's/^/#   /' /host/status.log
	check "status names tcp_mtu_probing MISSING" \
		grep -Eq '^net\.ipv4\.tcp_mtu_probing .*MISSING$' /host/status.log
	check "status names the edit a choice" grep -q '(edited; the profile: ' /host/status.log
	check "status lists the value the update would set" \
		grep -Eq '^ +net\.ipv4\.tcp_mtu_probing: \(not set\) -> 1$' /host/status.log
	check "status says to take the lines by hand" grep -q 'take these lines' /host/status.log

	echo 'net.ipv4.tcp_mtu_probing = 1' >>"$NT_SYSCTL"
	check "dpkg-reconfigure -fnoninteractive after the merge by hand" \
		logged reconfigure dpkg-reconfigure -fnoninteractive wp-panel-nettune
	check_sysctl net.ipv4.tcp_mtu_probing 1
	check_sysctl net.ipv4.tcp_fin_timeout 25
	check_eq "after the merge: status exits 0" 0 "$(nt_status)"
	check "status: as chosen, the edit" grep -q '^As chosen (exit 0): ' /host/status.log
	tail -n 1 /host/status.log | sed 's/^/#   /'
	;;
confold)
	check_same "0.1.0's fragment is kept" /host/fragment-0.1.0 "$NT_SYSCTL"
	check_sysctl net.ipv4.tcp_mtu_probing "$mtu_before"
	check_eq "after the upgrade: status exits 3 (the new key waits)" 3 "$(nt_status)"
	sed 's/^/#   /' /host/status.log
	check "status names tcp_mtu_probing MISSING" \
		grep -Eq '^net\.ipv4\.tcp_mtu_probing .*MISSING$' /host/status.log
	check "status says dpkg-reconfigure takes the new fragment" \
		grep -q "'dpkg-reconfigure wp-panel-nettune' to take the new one" /host/status.log

	check "dpkg-reconfigure -fnoninteractive" \
		logged reconfigure dpkg-reconfigure -fnoninteractive wp-panel-nettune
	check "the new fragment is in place" \
		sh -c "wp-panel-nettune render sysctl | cmp -s - $NT_SYSCTL"
	check_sysctl net.ipv4.tcp_mtu_probing 1
	check_profile_in_effect bbr
	check_status_ok "after dpkg-reconfigure"
	check_eq "status: the last line" "All in effect." "$(tail -n 1 /host/status.log)"
	;;
esac
GUEST
}

scenario() {
	local mode
	for mode in plain edited confold; do
		cp -a "$REPOS/site-v0.1.0" "$REPOS/site" "$(share "$mode")/" || true
	done
	boot plain "$(disk upgrade-old-plain)" 2 < <(old_upgrade_guest plain) || return 1
	boot edited "$(disk upgrade-old-edited)" 2 < <(old_upgrade_guest edited) || return 1
	boot confold "$(disk upgrade-old-confold)" 2 < <(old_upgrade_guest confold)
}
