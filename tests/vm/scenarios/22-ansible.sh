# shellcheck shell=bash disable=SC2034 # title, estimate and needs are read by tests/vm/run
# 22. Ansible: a Debian 13 server runs examples/ansible/wp-panel-nettune.yml
#     against itself (ansible-playbook -c local -i localhost,), unchanged,
#     with the repository's URL and key and cubic as extra variables, as an
#     inventory would give them. The playbook passes ansible-playbook
#     --syntax-check and ansible-lint. The first run adds the repository,
#     preseeds cubic (2 vCPUs: "auto" would give BBR), installs the package
#     and checks status; the second reports changed=0; the profile is
#     cubic, status 0. A third run with bbr changes the preseed and
#     reconfigures the package: bbr in effect, status 0. The repository is
#     served in the guest on 127.0.0.1 (repo_serve), the image's own
#     sources aside; cloud-init, in the image for scenario 21, stays off
#     without a seed.
title="Ansible playbook: twice, the second run changes nothing"
estimate=900

scenario() {
	local dir
	# An image of its own, for this scenario only (local: the next one
	# gets the run's).
	local VM_IMAGE VM_KERNEL VM_INITRD VM_RELEASE
	# shellcheck disable=SC2086 # a word list
	vm_image $PROVISION_PACKAGES
	dir=$(share converge)
	cp -r "$TOP/examples" "$dir/"
	{
		echo "wp_panel_nettune_repo_url: $REPO_URL"
		echo "wp_panel_nettune_congestion: cubic"
		echo "wp_panel_nettune_repo_key: |"
		sed 's/^/  /' "$REPOS/repo/wp-panel-nettune-archive-keyring.asc"
	} >"$dir/fleet-vars.yml"
	boot converge "$(disk ansible)" 2 1500 <<'GUEST'
check_eq "2 vCPUs" 2 "$(nproc)"
check_eq "cloud-init is off: no seed, no datasource" "status: disabled" \
	"$(cloud-init status 2>&1 | head -n 1)"
export ANSIBLE_NOCOLOR=1
cp -r /host/examples /root/examples
cd /root/examples/ansible || exit 1
pb=wp-panel-nettune.yml
check "ansible-playbook --syntax-check" \
	logged syntax-check ansible-playbook --syntax-check -i localhost, "$pb"
check "ansible-lint" logged ansible-lint ansible-lint --offline "$pb"
sed 's/^/#   /' /host/syntax-check.log /host/ansible-lint.log

apt_sources_aside
repo_serve /host/repo
# playbook NAME [ARG...]: one run against this machine, logged as NAME.
playbook() {
	_run=$1
	shift
	logged "$_run" ansible-playbook -c local -i localhost, "$pb" \
		-e @/host/fleet-vars.yml "$@"
}
# recap NAME: the PLAY RECAP line of run NAME, blanks squeezed.
recap() {
	sed -n 's/^localhost *: //p' "/host/$1.log" | tr -s ' ' | sed 's/ $//'
}
check "first run" playbook first-run
note "first run: $(recap first-run)"
check_match "first run: changes, no failure" 'changed=[1-9][0-9]* unreachable=0 failed=0' \
	"$(recap first-run)"
check "second run" playbook second-run
note "second run: $(recap second-run)"
check_match "second run: changed=0, no failure" '^ok=[0-9]+ changed=0 unreachable=0 failed=0 ' \
	"$(recap second-run)"
grep -A3 '^PLAY RECAP' /host/second-run.log | sed 's/^/#   /'

check_eq "installed from the repository" "install ok installed $PKG_VERSION" \
	"$(dpkg-query -W -f '${Status} ${Version}' wp-panel-nettune 2>&1)"
check_eq "the candidate comes from the repository" "$PKG_VERSION" "$(candidate wp-panel-nettune)"
sources=/etc/apt/sources.list.d/wp-panel-nettune.sources
check_eq "the .sources file names the repository" "URIs: $REPO_URL" "$(grep '^URIs:' "$sources")"
check_eq "the .sources file holds the repository's key" \
	"$(grep -v '^$' /host/repo/wp-panel-nettune-archive-keyring.asc)" \
	"$(sed -n '/^Signed-By:/,/END PGP/p' "$sources" | sed -e 's/^Signed-By: *//' -e 's/^ *//' | grep -v '^\.*$')"
check_eq "the preseeded answer: cubic" cubic \
	"$(debconf-show wp-panel-nettune | sed -n 's|^[* ] wp-panel-nettune/congestion: ||p')"
check_profile_in_effect cubic
check_status_ok "after two runs"

check "third run, bbr" playbook bbr-run -e wp_panel_nettune_congestion=bbr
note "third run, bbr: $(recap bbr-run)"
check_match "third run: the preseed and the reconfigure changed, nothing else" \
	'^ok=[0-9]+ changed=2 unreachable=0 failed=0 ' "$(recap bbr-run)"
said "third run: the handler reconfigured the package" bbr-run \
	'RUNNING HANDLER \[Reconfigure wp-panel-nettune\]'
check_profile_in_effect bbr
check_status_ok "after the third run"
GUEST
}
