# shellcheck shell=bash disable=SC2034 # title, estimate and needs are read by tests/vm/run
# 22. Ansible: examples/ansible/wp-panel-nettune.yml (the role
#     roles/wp_panel_nettune), unchanged, run as an administrator runs it:
#     from another machine, over SSH, against a Debian 13 server. The
#     controller is the image's own ansible-core, run on this machine in a
#     chroot of the image (tests/vm/run's image_check, at this machine's
#     speed); the server is the VM, whose sshd this machine reaches through
#     a QEMU hostfwd port, as root with a key made for the run. The
#     inventory's host_vars give the repository's URL, key and fingerprint,
#     cubic, and "leave the installer's file": the role's defaults say
#     example.invalid, auto and true, so each value seen is the inventory's.
#     The playbook passes ansible-playbook --syntax-check and ansible-lint
#     at the production profile, the image's own, in the same chroot.
#     The server starts without gpg and python3-debian (the image has both:
#     each is packed into a local stand-in for the Debian archive, then
#     purged), as a bare server: the role installs gpg, and needs no
#     python3-debian. A --check --diff run first changes nothing and shows
#     the entry it would write. The first run adds the repository (the key
#     file made on the server from the fingerprint), preseeds both
#     answers, installs the package and checks status: the profile is
#     cubic (2 vCPUs: "auto" would give BBR), status 0; a --check run then
#     changes nothing, and --check -e bbr shows the answer and the
#     reconfigure it would make and changes nothing. Then the installer's
#     file is put in place and
#     applied, left there as the inventory says, and a 70-local.conf
#     overrides one more key: the second run reports changed=0, does not
#     update the package lists (cache_valid_time), reports both files as
#     chosen and succeeds. With both taken away, the third run with -e bbr
#     changes the preseed and reconfigures the package: bbr in effect,
#     status 0. A fourth, after a sysctl -w behind the package's back,
#     fails its check. A key given with another key's secret block beside
#     it is refused and nothing is written. Last, state absent (after its
#     --check): the package purged, the entry and the key file gone; run
#     again, it changes nothing. The guest
#     script asks for each run through the share (NAME.go), this machine's
#     controller answers with its log and exit status (NAME.log, NAME.rc),
#     and the guest checks the machine in between. The repository is served
#     in the guest on 127.0.0.1 (repo_serve), the image's own sources aside;
#     cloud-init, in the image for scenario 21, stays off without a seed.
title="Ansible playbook: twice, the second run changes nothing"
wants=repos
estimate=1200

scenario() {
	local dir port controller home rc=0
	# An image of its own, for this scenario only (local: the next one
	# gets the run's).
	local VM_IMAGE VM_KERNEL VM_INITRD VM_RELEASE
	# shellcheck disable=SC2086 # a word list
	vm_image $PROVISION_PACKAGES
	dir=$(share converge)
	cp -r "$TOP/examples" "$dir/"
	# The inventory, as examples/ansible/inventory.example and
	# host_vars.example/ say to write one: the server is this machine's
	# port that QEMU forwards to the guest's sshd.
	port=$(free_port) || return 1
	mkdir "$dir/host_vars"
	{
		echo "server ansible_host=127.0.0.1 ansible_port=$port ansible_user=root" \
			"ansible_ssh_private_key_file=/tmp/id_ed25519" \
			"ansible_ssh_common_args='-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null'"
	} >"$dir/inventory"
	key_fingerprint "$REPOS/repo/wp-panel-nettune-archive-keyring.asc" >"$dir/fingerprint"
	grep -Eqx '[0-9A-F]{40}' "$dir/fingerprint" || {
		echo "vm-run: not one key in the repository's keyring: $(cat "$dir/fingerprint")"
		return 1
	}
	{
		echo "wp_panel_nettune_repo_url: $REPO_URL"
		echo "wp_panel_nettune_repo_key: |"
		sed 's/^/  /' "$REPOS/repo/wp-panel-nettune-archive-keyring.asc"
		echo "wp_panel_nettune_repo_key_fingerprint: $(cat "$dir/fingerprint")"
		echo "wp_panel_nettune_congestion: cubic"
		echo "wp_panel_nettune_take_over_installer_tuning: false"
	} >"$dir/host_vars/server.yml"
	# The forged key of issue "trust by machine": the genuine certificate
	# and, beside it, another key's secret block.
	home=$(mktemp -d)
	gpg --homedir "$home" --batch --quiet --passphrase '' \
		--quick-gen-key 'another key <another@example.invalid>' ed25519 cert never 2>/dev/null &&
		gpg --homedir "$home" --batch --pinentry-mode loopback --passphrase '' --armor \
			--export-secret-keys >"$dir/other-secret.asc" || return 1
	gpgconf --homedir "$home" --kill all 2>/dev/null || true
	rm -rf "$home"
	{
		echo "wp_panel_nettune_repo_key: |"
		cat "$REPOS/repo/wp-panel-nettune-archive-keyring.asc" "$dir/other-secret.asc" | sed 's/^/  /'
	} >"$dir/forged-key.yml"
	cp "$TOP/share/installer/99-wp-panel.conf.2cpu" "$dir/installer-2cpu.conf"
	# The static checks need no machine: the image's own ansible-core and
	# ansible-lint, run here.
	cat >"$dir/static-checks" <<-'CHECK'
		set -e
		cp -r /host/examples/ansible /tmp/ansible
		cp -r /host/inventory /host/host_vars /tmp/ansible/
		cd /tmp/ansible
		export ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP=/tmp/ansible-local
		case $1 in
		syntax) ansible-playbook --syntax-check -i inventory wp-panel-nettune.yml ;;
		lint) ansible-lint --offline --nocolor --profile production wp-panel-nettune.yml ;;
		esac
	CHECK
	image_check syntax-check "ansible-playbook --syntax-check" "$dir" sh /host/static-checks syntax ||
		return 1
	image_check ansible-lint "ansible-lint, production profile" "$dir" sh /host/static-checks lint || return 1
	sed 's/^/#   /' "$LOGDIR/$SCENARIO-ansible-lint.log"
	# The controller: a key for the guest's root (id_ed25519.pub, which the
	# guest waits for), then each run the guest asks for (NAME.go, its
	# arguments one a line), in the order asked, until the guest is done
	# (stop).
	cat >"$dir/controller" <<-'CONTROL'
		ssh-keygen -q -t ed25519 -N '' -C 'the controller of scenario 22' -f /tmp/id_ed25519 || exit 1
		cp /tmp/id_ed25519.pub /host/id_ed25519.pub.tmp && mv /host/id_ed25519.pub.tmp /host/id_ed25519.pub
		cp -r /host/examples/ansible /tmp/ansible
		cp -r /host/inventory /host/host_vars /tmp/ansible/
		cd /tmp/ansible || exit 1
		# Pipelining: a task is one process on the server, not five.
		export ANSIBLE_NOCOLOR=1 ANSIBLE_PIPELINING=True ANSIBLE_LOCAL_TEMP=/tmp/ansible-local
		while [ ! -e /host/stop ]; do
			for go in /host/*.go; do
				[ -e "$go" ] || continue
				run=${go%.go}
				IFS='
		'
				# shellcheck disable=SC2046 # one argument a line
				set -- $(cat "$go")
				unset IFS
				rm -f "$go"
				echo "$(date +%T) $run: ansible-playbook $*"
				rc=0
				ansible-playbook -v -i inventory wp-panel-nettune.yml "$@" >"$run.log" 2>&1 || rc=$?
				echo "$(date +%T) $run: exit $rc"
				echo "$rc" >"$run.rc.tmp" && mv "$run.rc.tmp" "$run.rc"
			done
			sleep 0.5
		done
	CONTROL
	vm_image_chroot "$dir" sh /host/controller >"$LOGDIR/$SCENARIO-controller.log" 2>&1 &
	controller=$!
	VM_NIC=1 VM_HOSTFWD="tcp:127.0.0.1:$port-:22" boot converge "$(disk ansible)" 2 1500 <<'GUEST' || rc=$?
check_eq "2 vCPUs" 2 "$(nproc)"
check_eq "cloud-init is off: no seed, no datasource" "status: disabled" \
	"$(cloud-init status 2>&1 | head -n 1)"
# The controller's key, for root: the server is administered as root.
i=0
while [ ! -f /host/id_ed25519.pub ] && [ "$i" -lt 120 ]; do sleep 1 && i=$((i + 1)); done
install -d -m 0700 /root/.ssh
check "the controller's key for root" install -m 0600 /host/id_ed25519.pub /root/.ssh/authorized_keys
check "sshd is running" systemctl is-active --quiet ssh.service

apt_sources_aside
# A bare server has neither gpg nor python3-debian; the image has both. Each
# is packed, as installed, into a local stand-in for the Debian archive
# (a flat repository apt trusts, as it trusts the archive), and purged.
repack() { # repack PACKAGE DIR: the installed PACKAGE as DIR/PACKAGE.deb
	_r=$(mktemp -d)
	mkdir "$_r/DEBIAN"
	dpkg-query -s "$1" | grep -Ev '^(Status|Config-Version):' >"$_r/DEBIAN/control"
	for _s in preinst postinst prerm postrm conffiles triggers; do
		[ ! -f "/var/lib/dpkg/info/$1.$_s" ] || cp -a "/var/lib/dpkg/info/$1.$_s" "$_r/DEBIAN/"
	done
	dpkg-query -L "$1" | while IFS= read -r _p; do
		if [ -d "$_p" ] && [ ! -L "$_p" ]; then
			mkdir -p "$_r$_p"
		elif [ -e "$_p" ] || [ -L "$_p" ]; then
			mkdir -p "$_r${_p%/*}" && cp -a "$_p" "$_r$_p"
		fi
	done
	dpkg-deb --root-owner-group -b "$_r" "$2/$1.deb" >/dev/null
	rm -rf "$_r"
}
archive=/var/tmp/archive
mkdir -p "$archive"
for p in gpg python3-debian; do
	check "$p packed for the stand-in archive" repack "$p" "$archive"
done
(
	cd "$archive" || exit 1
	for d in *.deb; do
		dpkg-deb -f "$d"
		printf 'Filename: ./%s\nSize: %s\nSHA256: %s\n\n' "$d" "$(stat -c %s "$d")" \
			"$(sha256sum <"$d" | cut -d' ' -f1)"
	done >Packages
	printf 'Origin: stand-in\nSuite: stand-in\nDate: %s\nSHA256:\n %s %s Packages\n' \
		"$(date -Ru)" "$(sha256sum <Packages | cut -d' ' -f1)" "$(stat -c %s Packages)" >Release
)
echo "deb [trusted=yes] file:$archive ./" >/etc/apt/sources.list.d/stand-in.list
# A server's lists know its archive: updated here, as they were when the
# image was made (within the role's cache_valid_time, so that it need not).
check "the stand-in archive listed (apt-get update)" apt-get update -qq
check "gpg and python3-debian purged" dpkg --purge gpg python3-debian
# pkg_state PACKAGE: installed, not-installed, or another of dpkg's states.
pkg_state() { dpkg-query -W -f '${db:Status-Status}' "$1" 2>/dev/null | grep . || echo not-installed; }
check_eq "no gpg, no python3-debian: a bare server" "not-installed not-installed" \
	"$(pkg_state gpg) $(pkg_state python3-debian)"
check "and python3 cannot import debian" sh -c '! python3 -c "import debian" 2>/dev/null'
repo_serve /host/repo
# playbook NAME [ARG...]: one run of the controller's ansible-playbook
# against this machine, its output in /host/NAME.log; its exit status.
playbook() {
	_run=$1
	shift
	rm -f "/host/$_run.rc"
	printf '%s\n' "$@" >"/host/$_run.go.tmp" && mv "/host/$_run.go.tmp" "/host/$_run.go"
	_waited=0
	while [ ! -f "/host/$_run.rc" ]; do
		if [ "$_waited" -ge 600 ]; then
			echo "# $_run: no answer from the controller in 600 s"
			return 124
		fi
		sleep 1
		_waited=$((_waited + 1))
	done
	_rc=$(cat "/host/$_run.rc")
	if [ "$_rc" != 0 ]; then
		tail -n 20 "/host/$_run.log" | sed 's/^/#   /'
	fi
	return "$_rc"
}
# inrelease: how many times apt asked the repository for its InRelease.
inrelease() { grep -c 'GET /dists/trixie/InRelease' /host/http.log || true; }
# recap NAME: the PLAY RECAP line of run NAME, blanks squeezed.
recap() {
	sed -n 's/^server *: //p' "/host/$1.log" | tr -s ' ' | sed 's/ $//'
}
# snapshot: what the role may write, with the package's state.
sources=/etc/apt/sources.list.d/wp-panel-nettune.sources
keyfile=/etc/apt/keyrings/wp-panel-nettune.asc
snapshot() {
	ls -l --time-style=+%s "$sources" "$keyfile" 2>&1
	cat "$sources" "$keyfile" 2>/dev/null | sha256sum
	dpkg-query -W -f '${Package} ${db:Status-Status}\n' wp-panel-nettune gpg 2>&1
	debconf-show wp-panel-nettune 2>&1
	sysctl_snapshot /dev/stdout
}
fpr=$(cat /host/fingerprint)

# --check --diff on the bare server: it says what it would do, and does
# nothing.
snapshot >/tmp/before
check "--check --diff on the bare server" playbook check-bare --check --diff
note "--check on the bare server: $(recap check-bare)"
check_match "--check on the bare server: changes to make, no failure" \
	'changed=[1-9][0-9]* unreachable=0 failed=0' "$(recap check-bare)"
said "--check on the bare server: it would install gpg first, and says so" check-bare \
	'gpg would be installed first'
said "--diff: the repository entry it would write" check-bare "^\+URIs: $REPO_URL\$"
said "--diff: and the package it would install" check-bare 'wp-panel-nettune would be installed from'
snapshot >/tmp/after
check "--check on the bare server changed nothing" cmp /tmp/before /tmp/after

check "first run" playbook first-run
note "first run: $(recap first-run)"
check_match "first run: changes, no failure" 'changed=[1-9][0-9]* unreachable=0 failed=0' \
	"$(recap first-run)"
check "first run: no facts gathered (the role reads none)" \
	sh -c "! grep -q 'TASK \[Gathering Facts\]' /host/first-run.log"
inrelease >/host/inrelease-first
check_eq "installed from the repository" "install ok installed $PKG_VERSION" \
	"$(dpkg-query -W -f '${Status} ${Version}' wp-panel-nettune 2>&1)"
check_eq "the candidate comes from the repository" "$PKG_VERSION" "$(candidate wp-panel-nettune)"
check_eq "gpg installed by the role, python3-debian not needed" "installed not-installed" \
	"$(pkg_state gpg) $(pkg_state python3-debian)"
check_eq "the .sources file, as the role writes it" \
	"$(printf 'Types: deb\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: %s' "$REPO_URL" "$keyfile")" \
	"$(cat "$sources")"
home=$(mktemp -d)
check_eq "the key file: one certificate, the fingerprint's" "pub $fpr" \
	"$(gpg --homedir "$home" --batch --with-colons --show-keys "$keyfile" 2>/dev/null |
		awk -F: '$1 == "pub" || $1 == "sec" { k = $1 } $1 == "fpr" && k { print k, $10; k = "" }')"
check "the key file: the certificate as gpg exports it" sh -c "
	gpg --homedir '$home' --batch --quiet --no-autostart --import /host/repo/wp-panel-nettune-archive-keyring.asc &&
	gpg --homedir '$home' --batch --no-autostart --armor --export '$fpr' | cmp - '$keyfile'"
rm -rf "$home"
check_eq "the preseeded answer: cubic" cubic \
	"$(debconf-show wp-panel-nettune | sed -n 's|^[* ] wp-panel-nettune/congestion: ||p')"
check_eq "the preseeded takeover answer: false" false \
	"$(debconf-show wp-panel-nettune |
		sed -n 's|^[* ] wp-panel-nettune/take-over-installer-tuning: ||p')"
check_profile_in_effect cubic
check_status_ok "after the first run"

snapshot >/tmp/before
check "--check --diff after the first run" playbook check-done --check --diff
note "--check after the first run: $(recap check-done)"
check_match "--check after the first run: nothing to change" \
	'^ok=[0-9]+ changed=0 unreachable=0 failed=0 ' "$(recap check-done)"
snapshot >/tmp/after
check "--check after the first run changed nothing" cmp /tmp/before /tmp/after

# With another answer, --check shows the answer it would change and the
# reconfigure it would run, and changes nothing.
snapshot >/tmp/before
check "--check --diff -e bbr" playbook check-bbr --check --diff -e wp_panel_nettune_congestion=bbr
note "--check -e bbr: $(recap check-bbr)"
check_match "--check -e bbr: the answer it would change" \
	'^ok=[0-9]+ changed=[1-9] unreachable=0 failed=0 ' "$(recap check-bbr)"
said "--diff: the congestion answer, cubic to bbr" check-bbr '^\+.*bbr'
said "--check -e bbr: and the reconfigure it would run" check-bbr \
	'dpkg-reconfigure.*Command would have run if not in check mode'
snapshot >/tmp/after
check "--check -e bbr changed nothing" cmp /tmp/before /tmp/after

# Before the second run, the installer's file, which the inventory says to
# leave in place, applied as its own sysctl -p leaves it, and a later file
# of the administrator's: both are choices, so the second run changes
# nothing, its check passes, and it reports them.
cp /host/installer-2cpu.conf /etc/sysctl.d/99-wp-panel.conf
echo 'net.ipv4.tcp_mtu_probing = 0' >/etc/sysctl.d/70-local.conf
sysctl -q -p /etc/sysctl.d/70-local.conf
sysctl -q -p /etc/sysctl.d/99-wp-panel.conf
check "second run, the installer's file and a 70-local.conf in place" playbook second-run
note "second run: $(recap second-run)"
check_match "second run: changed=0, no failure" '^ok=[0-9]+ changed=0 unreachable=0 failed=0 ' \
	"$(recap second-run)"
grep -A3 '^PLAY RECAP' /host/second-run.log | sed 's/^/#   /'
# The lists were updated by the first run, just after the entry was added;
# within cache_valid_time the second leaves them alone: no request for the
# repository's InRelease (an update would ask, even for a 304).
check_match "first run: the package lists updated" '^[1-9]' "$(cat /host/inrelease-first)"
check_eq "second run: the package lists not updated again" \
	"$(cat /host/inrelease-first)" "$(inrelease)"
said "second run: the role reports the keys the installer's file overrides" second-run \
	'/etc/sysctl.d/99-wp-panel.conf +\(overridden\)'
said "second run: and the one of 70-local.conf" second-run \
	'tcp_mtu_probing .*/etc/sysctl.d/70-local.conf +\(overridden\)'
check "the installer's file left where it is, byte for byte" \
	cmp /host/installer-2cpu.conf /etc/sysctl.d/99-wp-panel.conf
# The administrator takes both away; the reconfigure below sets the values.
rm /etc/sysctl.d/99-wp-panel.conf /etc/sysctl.d/70-local.conf

check "third run, bbr" playbook bbr-run -e wp_panel_nettune_congestion=bbr
note "third run, bbr: $(recap bbr-run)"
check_match "third run: the preseed and the reconfigure changed, nothing else" \
	'^ok=[0-9]+ changed=2 unreachable=0 failed=0 ' "$(recap bbr-run)"
said "third run: the handler reconfigured the package" bbr-run \
	'RUNNING HANDLER \[(wp_panel_nettune : )?Reconfigure wp-panel-nettune\]'
check_profile_in_effect bbr
check_status_ok "after the third run"

# A value changed behind the package's back is nobody's choice: it fails.
sysctl -q -w net.ipv4.tcp_fin_timeout=77
playbook drift-run -e wp_panel_nettune_congestion=bbr || true
note "fourth run: $(recap drift-run)"
check_match "fourth run, after a sysctl -w: the check fails" \
	'^ok=[0-9]+ changed=0 unreachable=0 failed=1 ' "$(recap drift-run)"
said "fourth run: and says which key" drift-run 'tcp_fin_timeout .*DRIFT'
sysctl -q -w net.ipv4.tcp_fin_timeout="$(sed -n 's/^net.ipv4.tcp_fin_timeout = //p' "$NT_SYSCTL")"

# The genuine certificate with another key's secret block beside it: the
# key is refused on the server, and nothing is written.
snapshot >/tmp/before
playbook forged-run -e wp_panel_nettune_congestion=bbr -e @/host/forged-key.yml || true
note "a forged key: $(recap forged-run)"
check_match "a forged key: the run fails" 'changed=0 unreachable=0 failed=1 ' "$(recap forged-run)"
said "a forged key: refused, and why" forged-run \
	'the repository key holds secret key material: refused'
snapshot >/tmp/after
check "a forged key: nothing changed" cmp /tmp/before /tmp/after

snapshot >/tmp/before
check "--check, state absent" playbook check-absent --check -e wp_panel_nettune_state=absent
note "--check, state absent: $(recap check-absent)"
check_match "--check, state absent: what it would remove" \
	'changed=[1-9][0-9]* unreachable=0 failed=0' "$(recap check-absent)"
snapshot >/tmp/after
check "--check, state absent: changed nothing" cmp /tmp/before /tmp/after

check "state absent" playbook absent-run -e wp_panel_nettune_state=absent
note "state absent: $(recap absent-run)"
check_match "state absent: changes, no failure" 'changed=[1-9][0-9]* unreachable=0 failed=0' \
	"$(recap absent-run)"
check_eq "state absent: the package purged" not-installed "$(pkg_state wp-panel-nettune)"
check "state absent: its fragments gone" sh -c "[ ! -e '$NT_SYSCTL' ] && [ ! -e '$NT_MODULES' ]"
check "state absent: its debconf answers gone" sh -c "[ -z \"\$(debconf-show wp-panel-nettune 2>/dev/null)\" ]"
check "state absent: the entry and the key file removed" sh -c "[ ! -e '$sources' ] && [ ! -e '$keyfile' ]"
check_eq "state absent: apt knows no wp-panel-nettune" "(none)" "$(candidate wp-panel-nettune)"
check "state absent again" playbook absent-again -e wp_panel_nettune_state=absent
check_match "state absent again: nothing to change" \
	'^ok=[0-9]+ changed=0 unreachable=0 failed=0 ' "$(recap absent-again)"
GUEST
	touch "$dir/stop"
	wait "$controller" || true
	return "$rc"
}
