#!/bin/sh
# The release key as RELEASING.md handles it, through tools/make-repo in a
# scratch clone: a primary key made by tools/release-key in a throwaway
# GNUPGHOME, and the pipeline's secret holding its signing subkey alone.
# make repo signs with the subkey, records the primary, and ships the
# primary with its subkeys in the keyring package, whose key verifies
# InRelease; a rotated subkey publishes into the same repository; another
# primary, a subkey that never expires and an expired one are refused in
# one line. tools/publish then checks the real repository, and refuses to
# put the rotated one where machines do not have the new subkey yet.
# Minutes: each publishing run builds in the trixie build environment; like
# tests/robust/repo.sh, skipped, and said so, until that environment exists.
#
# usage: tests/robust/signing-key.sh [BINARY]    (root; the helper is not used)
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	fail "tests/robust/signing-key.sh needs root (tools/make-repo)"
	summary
	exit 1
fi
if [ ! -d "${NETTUNE_CACHE:-/var/cache/wp-panel-nettune-dev}/trixie-build" ] ||
	[ -n "${NETTUNE_SKIP_MAKE_REPO:-}" ]; then
	note "skipped: make-repo runs (no trixie build environment yet, or NETTUNE_SKIP_MAKE_REPO)"
	summary
	exit
fi
work=$(mktemp -d /tmp/nettune-robust-signing.XXXXXX)
# shellcheck source=tests/robust/site-lib
. "$here/site-lib"
trap site_cleanup EXIT
keyring=wp-panel-nettune-archive-keyring

# --- Keys ----------------------------------------------------------------------
# rk HOME COMMAND ARG...: tools/release-key in the throwaway GNUPGHOME HOME.
rk() {
	_h=$work/gnupg-$1
	shift
	[ -d "$_h" ] || mkdir -m 700 "$_h"
	GNUPGHOME=$_h "$top/tools/release-key" --no-passphrase "$@"
}

check_rc "release-key new: exit 0" 0 rk a new "signing test key <a@packages.invalid>"
P=$(fprs a | sed -n 1p) S1=$(fprs a | sed -n 2p)
check_match "it says the primary certifies only" "^release-key: primary key $P \\(certifies only, no expiry\\)$" "$out"
check_match "and that the subkey expires" "^release-key: new signing subkey $S1, which expires on " "$out"
check_rc "release-key export-secret: exit 0" 0 rk a export-secret "$work/s1.asc"
check_eq "the pipeline's secret is for no one else" 600 "$(stat -c %a "$work/s1.asc")"
mkdir -m 700 "$work/gnupg-look"
gpg --homedir "$work/gnupg-look" --batch --import "$work/s1.asc" 2>/dev/null
check_eq "it holds the primary as a stub and the subkey's secret" "sec:#
ssb:+" "$(gpg --homedir "$work/gnupg-look" --batch --with-colons --list-secret-keys |
	awk -F: '$1 == "sec" || $1 == "ssb" { print $1 ":" $15 }')"
check_rc "release-key refuses a subkey that never expires" 1 rk a rotate never
check_eq "in one line" "release-key: a signing subkey must expire: give a period such as 1y or 18m" "$out"

# Refused keys, made with gpg itself: another primary with a good subkey, a
# subkey that never expires, one that expired (made a year and a day ago).
rk b new "another key <b@packages.invalid>" >/dev/null 2>&1
B=$(fprs b | sed -n 1p)
rk b export-secret "$work/other-primary.asc" >/dev/null 2>&1
g() { # g HOME ARG...: gpg in the throwaway GNUPGHOME HOME, no passphrase
	_h=$work/gnupg-$1
	shift
	[ -d "$_h" ] || mkdir -m 700 "$_h"
	gpg --homedir "$_h" --batch --passphrase '' "$@" 2>/dev/null
}
g c --quick-gen-key "never expires <c@packages.invalid>" ed25519 cert never
C=$(fprs c | sed -n 1p)
g c --quick-add-key "$C" ed25519 sign never
Cs=$(fprs c | sed -n 2p)
g c --armor --export-secret-subkeys "$Cs!" >"$work/never.asc"
then=$(date -u -d '-2 years' +%Y%m%dT%H%M%S)
g d --faked-system-time "$then" --quick-gen-key "expired <d@packages.invalid>" ed25519 cert never
D=$(fprs d | sed -n 1p)
g d --faked-system-time "$then" --quick-add-key "$D" ed25519 sign 1y
Ds=$(fprs d | sed -n 2p)
g d --armor --export-secret-subkeys "$Ds!" >"$work/expired.asc"
check "the refused keys were made" test -s "$work/never.asc" -a -s "$work/expired.asc" -a -s "$work/other-primary.asc"

# --- make-repo ---------------------------------------------------------------------
clone=$work/clone
git clone -q "$top" "$clone"
for f in make-repo repo-env release-key publish install-deps; do
	cp "$top/tools/$f" "$clone/tools/"
done
# The version this tree packages, and the one a rotation releases after it.
version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$top/debian/changelog")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
repo=$work/repo

# make_repo LOG KEYFILE [DIR]: the clone's make-repo for $url into DIR
# (default $repo), signing with KEYFILE; sets rc and last, the last line.
make_repo() {
	rc=0
	NETTUNE_SIGNING_KEY=$2 DEB_BUILD_OPTIONS=nocheck timeout 1800 "$clone/tools/make-repo" \
		--url "$url/debian" --dir "${3:-$repo}" >"$work/$1.log" 2>&1 || rc=$?
	last=$(tail -n 1 "$work/$1.log")
}
# validsig KEYFILE FILE: "SUBKEY PRIMARY" of the good signature on the
# cleartext FILE, verified by gpgv with the armored key KEYFILE.
validsig() {
	gpg --homedir "$work/gnupg-look" --batch --dearmor <"$1" >"$work/vs.gpg"
	gpgv --status-fd 1 --keyring "$work/vs.gpg" "$2" 2>/dev/null |
		awk '$2 == "VALIDSIG" { v = $3 " " $12 } $2 == "GOODSIG" { g = 1 } END { if (g) print v }'
}
# keyring_key DIR VERSION: the key file the keyring package VERSION of the
# repository DIR installs, extracted to $work/kr-VERSION.asc.
keyring_key() {
	rm -rf "$work/kr"
	dpkg-deb -x "$1/pool/main/w/$keyring/${keyring}_$2_all.deb" "$work/kr" &&
		cp "$work/kr/usr/share/keyrings/$keyring.asc" "$work/kr-$2.asc"
}

make_repo first "$work/s1.asc"
check_eq "make-repo with the subkey alone: exit 0" 0 "$rc"
[ "$rc" = 0 ] || note "$(tail -n 20 "$work/first.log")"
check_match "it signs with the subkey" \
	"^make-repo: signing key $P, signing with its subkey $S1, which expires on " "$(cat "$work/first.log")"
check_eq "the repository records the primary" "$P" "$(cat "$repo.db/signing-key.fpr" 2>/dev/null)"
check "the keyring package 1 is published" keyring_key "$repo" 1
check_eq "the key it installs is the primary with its signing subkey" "pub:$P sub:$S1:s" \
	"$(gpg --homedir "$work/gnupg-look" --batch --with-colons --show-keys "$work/kr-1.asc" 2>/dev/null |
		awk -F: '$1 == "pub" || $1 == "sub" { k = $1; c = $12; next }
			$1 == "fpr" && k != "" { printf "%s%s:%s", (n++ ? " " : ""), k, $10
				if (k == "sub") printf ":%s", c
				k = "" }
			END { print "" }')"
check_eq "InRelease verifies with it: signed by the subkey, under the primary" "$S1 $P" \
	"$(validsig "$work/kr-1.asc" "$repo/dists/trixie/InRelease")"
check "the key published beside the repository is the same" cmp "$work/kr-1.asc" "$repo/$keyring.asc"

check_rc "tools/publish on it, nothing served yet: exit 0" 0 "$clone/tools/publish" --fingerprint "$P" \
	--url "$url" --repo "$repo" --tag "v$version" "$work/site-1"
check_match "it checked the subkey's signature" "InRelease signed by its subkey $S1 " "$out"
check "the site holds the keyring package" cmp "$work/site-1/$keyring.deb" \
	"$repo/pool/main/w/$keyring/${keyring}_1_all.deb"

# --- Refused keys ---------------------------------------------------------------------
make_repo never "$work/never.asc" "$work/repo-never"
check_eq "a subkey that never expires: exit 1" 1 "$rc"
check_eq "said in one line" \
	"make-repo: the signing subkey $Cs has no expiry date: give it one (tools/release-key rotate)" "$last"
make_repo expired "$work/expired.asc" "$work/repo-expired"
check_eq "an expired subkey: exit 1" 1 "$rc"
check_match "said in one line" \
	"^make-repo: the signing subkey $Ds expired on [0-9-]+: rotate it \\(tools/release-key rotate\\)$" "$last"
check_eq "nothing published for them" "no no" \
	"$([ -e "$work/repo-never" ] && echo yes || echo no) $([ -e "$work/repo-expired" ] && echo yes || echo no)"
make_repo other "$work/other-primary.asc"
check_eq "another primary into the same repository: exit 1" 1 "$rc"
check_eq "said in one line" "make-repo: $repo is signed by key $P, not $B: machines that trust the old key would refuse it; remove $repo and $repo.db to start afresh" "$last"
for log in never expired other; do
	check_eq "$log: one line of refusal" 1 "$(sed -n '/signing with the key in NETTUNE_SIGNING_KEY/,$p' \
		"$work/$log.log" | grep -c -v -e 'signing with the key in' -e '^make-repo: left out' \
		-e '^make-repo: signing key ')"
done

# --- Rotation ---------------------------------------------------------------------------
check_rc "release-key rotate: exit 0" 0 rk a rotate
S2=$(fprs a | sed -n 3p)
check_match "it names the new subkey" "^release-key: new signing subkey $S2, which expires on " "$out"
rk a export-secret "$work/s2.asc" >/dev/null 2>&1
# The new key is a new keyring package, and the tree changed is a new
# version of wp-panel-nettune.
entry() { # entry FILE PACKAGE VERSION
	{
		printf '%s (%s) trixie; urgency=medium\n\n  * Signing subkey rotated.\n\n' "$2" "$3"
		printf ' -- wp-panel-nettune developers <wp-panel-nettune@packages.invalid>  %s\n\n' \
			"$(date -u -R)"
		cat "$1"
	} >"$1.new" && mv "$1.new" "$1"
}
entry "$clone/keyring/debian/changelog" "$keyring" 2
entry "$clone/debian/changelog" wp-panel-nettune "$version+1"
make_repo rotated "$work/s2.asc"
check_eq "make-repo with the new subkey into the same repository: exit 0" 0 "$rc"
[ "$rc" = 0 ] || note "$(tail -n 20 "$work/rotated.log")"
check_match "it signs with the new subkey" \
	"^make-repo: signing key $P, signing with its subkey $S2, " "$(cat "$work/rotated.log")"
check_eq "the repository still records the primary" "$P" "$(cat "$repo.db/signing-key.fpr" 2>/dev/null)"
check "the keyring package 2 is published" keyring_key "$repo" 2
check_eq "InRelease verifies with its key: the new subkey, under the same primary" "$S2 $P" \
	"$(validsig "$work/kr-2.asc" "$repo/dists/trixie/InRelease")"
check_eq "the key machines had before does not verify it" "" \
	"$(validsig "$work/kr-1.asc" "$repo/dists/trixie/InRelease")"

# Served, the first site is what machines have: the rotated repository must
# wait until the new subkey has reached them.
serve "$work/site-1"
check_rc "tools/publish of the rotated repository over the first site: exit 1" 1 \
	"$clone/tools/publish" --fingerprint "$P" --url "$url" --repo "$repo" "$work/site-2"
check_eq "it says why, in one line" \
	"publish: InRelease is signed by subkey $S2, which the key machines hold now ($url/$keyring.asc) does not have: publish the new subkey in the keyring package first, signed by the old one (RELEASING.md)" \
	"$out"

summary
