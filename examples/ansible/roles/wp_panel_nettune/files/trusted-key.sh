# shellcheck shell=sh
# The key apt trusts for the repository, made on the server from the
# fingerprint alone. The role gives this script to sh -s on its standard
# input, with the mode and the fingerprint as arguments:
#   make FPR        the key in WP_PANEL_NETTUNE_KEY, imported into a
#                   throwaway GNUPGHOME only if it is one public certificate
#                   whose primary fingerprint is FPR, then exported from
#                   there (gpg --export FPR, armored) on standard output
#   check FPR FILE  the same test of FILE, the key file as written
# Anything else (secret key material, a second certificate, another
# fingerprint, no key at all) is refused with one line, exit 1. gpg starts
# no agent (--no-autostart): the throwaway home holds public keys only, and
# an agent would outlive it. Nothing here reads standard input, which is
# this script.
set -eu

refuse() {
	echo "wp_panel_nettune: the repository key $*: refused" >&2
	exit 1
}

main() {
	mode=$1
	fpr=$2
	home=$(mktemp -d)
	trap 'rm -rf "$home"' EXIT
	case $mode in
	make) printf '%s\n' "${WP_PANEL_NETTUNE_KEY:-}" >"$home/given" ;;
	check) cat -- "$3" >"$home/given" </dev/null ;;
	*) refuse "mode '$mode' unknown" ;;
	esac
	# What the file holds, as gpg reads it, before anything is imported.
	gpg --homedir "$home" --batch --quiet --no-autostart --with-colons \
		--import-options show-only --import "$home/given" \
		>"$home/listing" 2>"$home/errors" </dev/null ||
		refuse "is not an OpenPGP key ($(head -n 1 "$home/errors"))"
	n_sec=$(grep -c '^sec:' "$home/listing" || true)
	n_pub=$(grep -c '^pub:' "$home/listing" || true)
	[ "$n_sec" = 0 ] || refuse "holds secret key material"
	[ "$n_pub" = 1 ] || refuse "holds $n_pub certificates, not one"
	primary=$(awk -F: '$1 == "pub" { p = 1; next } p && $1 == "fpr" { print $10; exit }' \
		"$home/listing")
	[ "$primary" = "$fpr" ] || refuse "is the certificate $primary, not $fpr"
	[ "$mode" = make ] || return 0
	gpg --homedir "$home" --batch --quiet --no-autostart --import "$home/given" \
		2>"$home/errors" </dev/null ||
		refuse "cannot be imported ($(head -n 1 "$home/errors"))"
	gpg --homedir "$home" --batch --no-autostart --armor --export "$fpr" </dev/null
}

main "$@"
