# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 12. Tampered repositories are refused. With the genuine key and .sources
#     in place, on a fresh disk: a copy with one byte of its Packages file
#     changed (and its .xz made again; Release and its signatures left as
#     they were), then a copy whose Release is signed by another key: each
#     time apt-get update fails and says why, apt has no candidate and
#     "apt-get install wp-panel-nettune" installs nothing. Last, the
#     genuine repository at the same URL: the update is clean and the
#     candidate appears, so the refusals were the tampering's doing.
title="tampered repository and another key refused"
wants=repos

scenario() {
	boot tampered "$(disk repo-tampered)" 2 <<'GUEST'
fails() { ! "$@"; }

# refused NAME: apt-get update (logged as NAME) fails, then nothing from
# the repository can be installed.
refused() {
	check "apt-get update ($1) fails" fails apt_get "$1" update
	sed 's/^/#   /' "/host/$1.log"
	check_eq "$1: no candidate for wp-panel-nettune" "(none)" "$(candidate wp-panel-nettune)"
	check "$1: apt-get install -y wp-panel-nettune fails" \
		fails apt_get "$1-install" install wp-panel-nettune
	check_eq "$1: wp-panel-nettune not installed" "" \
		"$(dpkg-query -W -f '${Status}' wp-panel-nettune 2>/dev/null | grep ' installed$')"
}

repo_serve /host/repo-tampered
repo_add_source
refused update-tampered
# Packages.xz made again from the changed Packages: apt finds it does not
# match the signed Release, by its size or else by its hash.
said "one byte in Packages: it does not match the signed Release" update-tampered \
	'File has unexpected size|Hash Sum mismatch'

repo_serve /host/repo-otherkey
refused update-otherkey
said "another key: no public key for the signature" update-otherkey \
	'NO_PUBKEY|Missing key|is not signed'

repo_serve /host/repo
check_update_clean update-genuine
check_eq "the genuine repository at the same URL: candidate $PKG_VERSION" "$PKG_VERSION" \
	"$(candidate wp-panel-nettune)"
GUEST
}
