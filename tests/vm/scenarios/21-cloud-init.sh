# shellcheck shell=bash disable=SC2034 # title, estimate and needs are read by tests/vm/run
# 21. cloud-init: a new server's first boot with examples/cloud-init.yaml as
#     its user-data, the placeholders replaced as the file tells an
#     administrator to (the repository's URL and key) and cubic preseeded on
#     2 vCPUs, where "auto" would give BBR. Debian's cloud-init finds the
#     NoCloud seed on a second disk (ISO 9660, labelled cidata, as
#     cloud-localds makes it); its apt module stores the key and writes the
#     source, its package module installs from the repository: the first
#     boot ends with the package installed from there, cubic in effect,
#     status 0, and cloud-init done without an error or a warning.
#
#     The repository is served from this machine, as a real one is from
#     another: the guest's NIC (QEMU's user network, restrict=on) reaches
#     one address, 10.0.2.100:80, which QEMU forwards to
#     tests/vm/serve-connection (guestfwd). So cloud-init fetches it over
#     the guest's network, in the order its own units give (its config and
#     final stages after network-online.target, here systemd-networkd's
#     wait-online), and nothing in the guest prepares the repository for
#     it. The seed's network-config leaves the network to the image's own
#     systemd-networkd file, as a provider's image with its own network
#     setup does. The Debian mirror in the image's own sources is not
#     reachable, and apt-get update only warns about it.
title="cloud-init first boot: repository, preseed, install"
wants=repos
estimate=900

SEED_ADDR=10.0.2.100

# seed_user_data URL KEYFILE CHOICE: examples/cloud-init.yaml, with URL in
# the source line, KEYFILE (armored) in place of the placeholder key block,
# at its indentation, and CHOICE as the preseeded answer. Fails, saying
# which, when the example no longer has each place exactly once.
seed_user_data() {
	awk -v url="$1" -v keyfile="$2" -v choice="$3" '
		/^ *#/ { print; next }
		index($0, "https://example.invalid/debian") {
			sub("https://example[.]invalid/debian", url)
			n_url++
		}
		/^ *-----BEGIN PGP PUBLIC KEY BLOCK-----$/ {
			indent = $0
			sub(/-.*/, "", indent)
			while ((getline line <keyfile) > 0)
				print indent line
			in_key = 1
			n_key++
			next
		}
		in_key {
			if ($0 ~ /-----END PGP PUBLIC KEY BLOCK-----$/)
				in_key = 0
			next
		}
		/wp-panel-nettune\/congestion select auto$/ {
			sub(/auto$/, choice)
			n_choice++
		}
		{ print }
		END {
			if (n_url != 1 || n_key != 1 || n_choice != 1) {
				printf "examples/cloud-init.yaml: expected one URL placeholder, one key block and one \"congestion select auto\", found %d, %d and %d\n", \
					n_url, n_key, n_choice >"/dev/stderr"
				exit 1
			}
		}' "$TOP/examples/cloud-init.yaml"
}

scenario() {
	local dir seed arch http_log deb disk
	# An image of its own, for this scenario only (local: the next one
	# gets the run's).
	local VM_IMAGE VM_KERNEL VM_INITRD VM_RELEASE
	# shellcheck disable=SC2086 # a word list
	vm_image $PROVISION_PACKAGES
	dir=$(share first-boot)
	seed=$VM_WORKDIR/$SCENARIO-seed
	mkdir -p "$seed"
	seed_user_data "http://$SEED_ADDR/" "$REPOS/repo/wp-panel-nettune-archive-keyring.asc" cubic \
		>"$seed/user-data" || return 1
	printf 'instance-id: %s\nlocal-hostname: nettune-vm\n' "$SCENARIO" >"$seed/meta-data"
	printf 'network:\n  config: disabled\n' >"$seed/network-config"
	genisoimage -quiet -output "$seed.iso" -volid cidata -joliet -rock \
		"$seed/user-data" "$seed/meta-data" "$seed/network-config" || return 1
	cp "$TOP/examples/cloud-init.yaml" "$seed/user-data" "$dir/"
	echo "SEED_URL='http://$SEED_ADDR/'" >>"$dir/env"
	# The schema of the files needs no machine: the image's own cloud-init,
	# run here.
	image_check schema-example "cloud-init schema --config-file: examples/cloud-init.yaml as shipped" \
		"$dir" cloud-init schema --config-file /host/cloud-init.yaml || return 1
	grep -q '^Valid schema' "$LOGDIR/$SCENARIO-schema-example.log" || {
		echo "not ok - schema of the example: no 'Valid schema' line"
		return 1
	}
	sed 's/^/#   /' "$LOGDIR/$SCENARIO-schema-example.log"
	image_check schema-user-data "cloud-init schema --config-file: the user-data of this boot" \
		"$dir" cloud-init schema --config-file /host/user-data || return 1

	# The image's /etc/resolv.conf is the build machine's (mmdebstrap
	# copies it in): here an address that means nothing on the guest's
	# network, where QEMU drops what is sent to it, so each lookup of the
	# mirror's name waited out the resolver's timeouts, 20 s for each of
	# apt's four tries in both of cloud-init's apt-get updates, three
	# minutes in all. A provider's image is given the provider's
	# resolver; this network has none, and the guest is told so: its own
	# loopback, where nothing answers, so a lookup fails at once, whatever
	# machine built the image.
	disk=$(disk cloud-init)
	echo 'nameserver 127.0.0.1' | disk_file "$disk" /etc/resolv.conf 0644 || return 1

	http_log=$LOGDIR/$SCENARIO-http.log
	: >"$http_log"
	VM_NIC=1 VM_DISK2=$seed.iso \
		VM_GUESTFWD="tcp:$SEED_ADDR:80-cmd:$VM_RUN_DIR/serve-connection $REPOS/repo $http_log" \
		VM_APPEND=systemd.wants=systemd-networkd-wait-online.service \
		boot first-boot "$disk" 2 1200 <<'GUEST' || return 1
check_eq "2 vCPUs" 2 "$(nproc)"
# vm-run and cloud-init's final stage both start after multi-user.target.
cloud-init status --wait >/dev/null 2>&1
rc=0
cloud-init status --long >/host/cloud-init-status.log 2>&1 || rc=$?
sed 's/^/#   /' /host/cloud-init-status.log
check_eq "cloud-init status exits 0 (done, no error, no warning)" 0 "$rc"
said "cloud-init: status done" cloud-init-status '^status: done$'
said "cloud-init: the NoCloud seed on /dev/vdb" cloud-init-status 'DataSourceNoCloud.*/dev/vdb'
cp /var/log/cloud-init-output.log /host/cloud-init-output.log
cp /var/log/cloud-init.log /host/cloud-init.log
check "cloud-init schema --system: what this boot got" logged schema-system cloud-init schema --system
grep -h . /host/schema-system.log | sed 's/^/#   /'

list=/etc/apt/sources.list.d/wp-panel-nettune.list
key=/etc/apt/cloud-init.gpg.d/wp-panel-nettune.gpg
check_eq "cloud-init wrote the source, signed by its key alone" \
	"deb [signed-by=$key] $SEED_URL trixie main" "$(cat "$list")"
fingerprint() {
	gpg --show-keys --with-colons "$1" 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }'
}
check_eq "the key cloud-init stored is the repository's" \
	"$(fingerprint /host/repo/wp-panel-nettune-archive-keyring.asc)" "$(fingerprint "$key")"
check_eq "the preseeded answer: cubic" cubic \
	"$(debconf-show wp-panel-nettune | sed -n 's|^[* ] wp-panel-nettune/congestion: ||p')"

check_eq "installed at the first boot" "install ok installed $PKG_VERSION" \
	"$(dpkg-query -W -f '${Status} ${Version}' wp-panel-nettune 2>&1)"
apt-cache policy wp-panel-nettune >/host/policy.log 2>&1
said "installed from the repository at $SEED_URL" policy "^ +\\*\\*\\* $PKG_VERSION "
check_match "the version installed comes from $SEED_URL" "^ +500 ${SEED_URL%/}/? trixie/main " \
	"$(grep -A1 '^ *\*\*\* ' /host/policy.log | tail -n 1)"
said "cloud-init's output shows the install" cloud-init-output \
	"^Setting up wp-panel-nettune \\($PKG_VERSION\\)"
said "cloud-init ran its package module" cloud-init \
	'Running module package-update-upgrade-install '
check "no debconf frontend trouble in cloud-init's output" \
	sh -c "! grep -Ei 'unable to (initialize|re-open)|frontend' /host/cloud-init-output.log"
grep -E '^(Get|Err|W):|wp-panel-nettune' /host/cloud-init-output.log | sed 's/^/#   /'

check_profile_in_effect cubic
check_status_ok "after cloud-init's first boot"
sed 's/^/#   /' /host/status.log
# The default route of the NIC keeps the kernel's initial windows; cubic
# (preseeded) and fq_codel: no program either.
ip route show default | sed 's/^/#   ip route show default: /'
check "no initcwnd on the default route" sh -c '! ip route show default | grep -q initcwnd'
said "status: the windows left to the kernel" status \
	'^initial windows: left to the kernel: the fragment does not set fq$'
GUEST

	# The package came over the guest's network, from the repository.
	arch=$(dpkg --print-architecture)
	deb=pool/main/w/wp-panel-nettune/wp-panel-nettune_$(deb_version "$TOP")_$arch.deb
	if grep -q "\"GET /$deb HTTP/1.1\" 200 " "$http_log"; then
		echo "ok - the repository served /$deb to the guest ($http_log)"
	else
		echo "not ok - no GET of /$deb answered 200 in $http_log"
		return 1
	fi
}
