# shellcheck shell=sh
# Sourced by the postinst and by the first-boot unit: the fragments rendered
# for this machine and handed to ucf, the copy of the sysctl.d fragment as
# the package installed it, which status reads to tell an administrator's
# edit from an update not taken, and the record of what they were rendered
# for.

nt_helper=/usr/sbin/wp-panel-nettune
nt_sysctl=/etc/sysctl.d/60-wp-panel-nettune.conf
nt_modules=/etc/modules-load.d/wp-panel-nettune.conf
nt_base=/var/lib/wp-panel-nettune/fragment.base
# What ucf --three-way keeps of the version it was last given.
nt_ucf_cache=/var/lib/ucf/cache/:etc:sysctl.d:60-wp-panel-nettune.conf

# nt_keep_base FILE: FILE becomes the base, whole or not at all.
nt_keep_base() {
	mkdir -p "${nt_base%/*}"
	cp "$1" "$nt_base.new" && mv -f "$nt_base.new" "$nt_base"
}

# nt_replace FILE DEST: DEST replaced by a copy of FILE, whole or not at all.
nt_replace() {
	cp "$1" "$2.new" && chmod 644 "$2.new" && mv -f "$2.new" "$2"
}

# nt_install_fragments CONGESTION RECONFIGURE [UCF OPTIONS...]: renders both
# fragments and hands them to ucf, which keeps an administrator's edits
# (the new version beside them as .ucf-dist, or merged when asked). Where
# ucf left the fragment as rendered, that is the new base. RECONFIGURE yes
# (dpkg-reconfigure): a fragment that is still, byte for byte, the one the
# package installed, which ucf keeps when told --force-confold, is replaced
# too. Then the helper records the CPU count and CONGESTION (rendered);
# that failing is a warning. Returns 1, having changed nothing, when the
# helper cannot render; 2 when ucf fails.
nt_install_fragments() {
	nt_congestion=$1 nt_reconfigure=$2
	shift 2
	nt_dir=$(mktemp -d) || return 1
	nt_new=$nt_dir/60-wp-panel-nettune.conf
	if ! "$nt_helper" render sysctl --congestion "$nt_congestion" >"$nt_new" ||
		! "$nt_helper" render modules --congestion "$nt_congestion" \
			>"$nt_dir/wp-panel-nettune.conf"; then
		rm -rf "$nt_dir"
		return 1
	fi
	# Upgraded from a version that kept no base: ucf's cache holds the
	# fragment that version installed.
	if [ ! -e "$nt_base" ] && [ -f "$nt_ucf_cache" ]; then
		nt_keep_base "$nt_ucf_cache"
	fi
	if ! { ucf --three-way "$@" "$nt_new" "$nt_sysctl" &&
		ucfr wp-panel-nettune "$nt_sysctl" &&
		ucf --three-way "$@" "$nt_dir/wp-panel-nettune.conf" "$nt_modules" &&
		ucfr wp-panel-nettune "$nt_modules"; }; then
		rm -rf "$nt_dir"
		return 2
	fi

	if cmp -s "$nt_new" "$nt_sysctl"; then
		nt_keep_base "$nt_new"
	elif [ "$nt_reconfigure" = yes ] && [ -f "$nt_base" ] &&
		cmp -s "$nt_sysctl" "$nt_base"; then
		nt_replace "$nt_new" "$nt_sysctl"
		nt_keep_base "$nt_new"
		echo "wp-panel-nettune: $nt_sysctl was the one the package installed: replaced by the new one"
		# What ucf put beside it is the fragment now.
		for nt_left in "$nt_sysctl.ucf-dist" "$nt_sysctl.ucf-new"; do
			if [ -f "$nt_left" ] && cmp -s "$nt_left" "$nt_sysctl"; then
				rm -f "$nt_left"
			fi
		done
	fi
	rm -rf "$nt_dir"
	# What status holds the fragment against: this machine's CPU count and
	# the choice, those of the new version where ucf kept an edited one.
	if ! "$nt_helper" rendered --congestion "$nt_congestion"; then
		echo "wp-panel-nettune: warning: what the fragments were rendered for is not recorded: status takes auto and checks no CPU count" >&2
	fi
}
