#!/bin/sh
# tools/publish refuses every site machines should not be given, each with
# one line, and makes the others. The repositories are small ones made here
# in make repo's layout (two packages, indices, InRelease and Release.gpg
# signed by a subkey of a throwaway key), so that a case is a file changed,
# a key swapped or a version given; the site served now is a folder
# publish made, served by python3 -m http.server on 127.0.0.1. Seconds; the
# real make repo output goes through publish in tests/robust/signing-key.sh.
# Then key files forged with gpg against publish, the page's install steps
# and the WP Panel installer's patch (the installer's install.sh from
# ../shared/legacy; skipped, and said so, without it), each run in a mount
# namespace with apt-get stubbed.
#
# usage: tests/robust/publish.sh [BINARY]    (the helper is not used; the
#                                            namespace needs root)
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"

for c in gpg gpgv curl dpkg-deb xz python3; do
	if ! command -v "$c" >/dev/null 2>&1; then
		fail "tests/robust/publish.sh needs $c (tools/install-deps publish)"
		summary
		exit 1
	fi
done
work=$(mktemp -d /tmp/nettune-robust-publish.XXXXXX)
# shellcheck source=tests/robust/site-lib
. "$here/site-lib"
trap site_cleanup EXIT

keyring=wp-panel-nettune-archive-keyring

# --- Keys --------------------------------------------------------------------
# A primary key A with signing subkeys A1 and A2, and another primary B with
# its subkey B1, made by tools/release-key in throwaway homes.
rk() { GNUPGHOME=$work/gnupg-$1 "$top/tools/release-key" --no-passphrase "$2" "$3"; }
for k in a b; do
	mkdir -m 700 "$work/gnupg-$k"
	rk "$k" new "publish test key $k <$k@packages.invalid>" >/dev/null 2>&1
done
A=$(fprs a | sed -n 1p) A1=$(fprs a | sed -n 2p) B=$(fprs b | sed -n 1p) B1=$(fprs b | sed -n 2p)
gpg --homedir "$work/gnupg-a" --batch --armor --export "$A" >"$work/key-a1.asc"
rk a rotate 1y >/dev/null 2>&1
A2=$(fprs a | sed -n 3p)
gpg --homedir "$work/gnupg-a" --batch --armor --export "$A" >"$work/key-a12.asc"
gpg --homedir "$work/gnupg-b" --batch --armor --export "$B" >"$work/key-b1.asc"
check "three signing subkeys made" test -n "$A1" -a -n "$A2" -a -n "$B1"

# --- Packages ----------------------------------------------------------------
# deb FILE NAME VERSION ARCH [KEYFILE] [NOTE]: $work/debs/FILE, a package
# that installs the key file where the keyring package installs it, if
# given, and a README saying NOTE (another NOTE, other contents).
mkdir "$work/debs"
deb() {
	_d=$work/pkg
	rm -rf "$_d"
	mkdir -p "$_d/DEBIAN" "$_d/usr/share/doc/$2"
	printf 'Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: x <x@packages.invalid>\nDescription: %s\n' \
		"$2" "$3" "$4" "$2" >"$_d/DEBIAN/control"
	echo "$2 $3 ${6:-}" >"$_d/usr/share/doc/$2/README"
	if [ -n "${5:-}" ]; then
		mkdir -p "$_d/usr/share/keyrings"
		cp "$5" "$_d/usr/share/keyrings/$keyring.asc"
	fi
	find "$_d" -exec touch -h -d @1780000000 {} +
	SOURCE_DATE_EPOCH=1780000000 dpkg-deb -Zxz --root-owner-group -b "$_d" "$work/debs/$1" >/dev/null
	rm -rf "$_d"
}
deb nt-0.1.0 wp-panel-nettune 0.1.0 amd64
deb nt-0.1.0-other wp-panel-nettune 0.1.0 amd64 "" other
deb nt-0.0.9 wp-panel-nettune 0.0.9 amd64
deb nt-0.1.1 wp-panel-nettune 0.1.1 amd64
deb nt-0.1.1-arm64 wp-panel-nettune 0.1.1 arm64
deb nt-0.1.2 wp-panel-nettune 0.1.2 amd64
deb nt-0.1.2-arm64 wp-panel-nettune 0.1.2 arm64
deb kr-1 "$keyring" 1 all "$work/key-a1.asc"
deb kr-1-a12 "$keyring" 1 all "$work/key-a12.asc"
deb kr-1-b "$keyring" 1 all "$work/key-b1.asc"
deb kr-2 "$keyring" 2 all "$work/key-a12.asc"
gpg --homedir "$work/gnupg-a" --batch --armor --pinentry-mode loopback --passphrase '' \
	--export-secret-subkeys "$A1!" >"$work/leak.asc"
deb nt-0.1.2-leak wp-panel-nettune 0.1.2 amd64 "$work/leak.asc"
differs() { ! cmp -s "$1" "$2"; }
check "the other 0.1.0 has other contents" differs "$work/debs/nt-0.1.0" "$work/debs/nt-0.1.0-other"

# --- Repositories -------------------------------------------------------------
# repo NAME URL HOME SIGNER KEYFILE 'ARCH...' DEB...: a repository in make
# repo's layout at $work/NAME for URL/debian, signed in HOME by the subkey
# SIGNER, publishing KEYFILE as the key, and the DEBs of $work/debs (those
# of architecture all in every index).
repo() {
	_r=$work/$1 _url=$2 _home=$3 _signer=$4 _key=$5 _arches=$6
	shift 6
	mkdir -p "$_r/pool/main" "$_r/dists/trixie/main"
	for _deb; do
		_f=$work/debs/$_deb
		cp "$_f" "$_r/pool/main/$(dpkg-deb -f "$_f" Package)_$(dpkg-deb -f "$_f" Version)_$(dpkg-deb -f "$_f" Architecture).deb"
	done
	for _a in $_arches; do
		_i=$_r/dists/trixie/main/binary-$_a
		mkdir -p "$_i"
		for _f in "$_r"/pool/main/*.deb; do
			_arch=$(dpkg-deb -f "$_f" Architecture)
			[ "$_arch" = "$_a" ] || [ "$_arch" = all ] || continue
			dpkg-deb -f "$_f" Package Version Architecture Maintainer
			echo "Filename: pool/main/$(basename "$_f")"
			echo "Size: $(wc -c <"$_f" | tr -d ' ')"
			echo "SHA256: $(sha256sum <"$_f" | cut -d' ' -f1)"
			dpkg-deb -f "$_f" Description
			echo
		done >"$_i/Packages"
		xz -k "$_i/Packages"
	done
	{
		printf 'Origin: wp-panel-nettune\nLabel: wp-panel-nettune\nCodename: trixie\n'
		printf 'Date: %s\nArchitectures: %s source\nComponents: main\nSHA256:\n' \
			"$(date -u -R)" "$_arches"
		(cd "$_r/dists/trixie" && for _f in main/binary-*/Packages*; do
			echo " $(sha256sum <"$_f" | cut -d' ' -f1) $(wc -c <"$_f" | tr -d ' ') $_f"
		done)
	} >"$_r/dists/trixie/Release"
	_g() { gpg --homedir "$_home" --batch --yes --digest-algo SHA512 --local-user "$_signer!" "$@"; }
	_g --clearsign -o "$_r/dists/trixie/InRelease" "$_r/dists/trixie/Release" 2>/dev/null
	_g --armor --detach-sign -o "$_r/dists/trixie/Release.gpg" "$_r/dists/trixie/Release" 2>/dev/null
	cp "$_key" "$_r/$keyring.asc"
	printf 'Types: deb\nURIs: %s/debian\nSuites: trixie\nComponents: main\nSigned-By: %s\n' \
		"$_url" "/usr/share/keyrings/$keyring.asc" >"$_r/wp-panel-nettune.sources"
}

# A local port: the one the site is served on, and one nothing listens on.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port=$(free_port)
url=http://127.0.0.1:$port
deaf=http://127.0.0.1:$(free_port)

# publish NAME [OPTION...]: tools/publish on the repository NAME into
# $work/site-NAME (site-NAME.2 and so on when that exists), for $url and the
# fingerprint of A unless OPTIONs say otherwise; checks that it exits with
# $want, and sets rc and out (check_rc).
publish() {
	_n=$1 _o=$work/site-$1 _i=1
	shift
	while [ -e "$_o" ]; do
		_i=$((_i + 1))
		_o=$work/site-$_n.$_i
	done
	check_rc "publish $_n $*: exit $want" "$want" "$top/tools/publish" --fingerprint "$A" --url "$url" \
		--repo "$work/$_n" "$@" "$_o"
}
lines() { printf '%s\n' "$out" | grep -c .; }

# --- Nothing served yet --------------------------------------------------------
repo good "$url" "$work/gnupg-a" "$A1" "$work/key-a1.asc" amd64 \
	nt-0.1.0 kr-1
# The site is checked against what $url serves: nothing, for now.
want=0 publish good --tag v0.1.0
check_match "the first site: nothing answers, said" "^publish: $url does not answer" "$out"
check_match "and reported on standard output" "^publish: wp-panel-nettune 0.1.0 for amd64, not reachable" "$out"
s=$work/site-good
check "the site holds the repository" test -f "$s/debian/dists/trixie/InRelease" -a -f "$s/debian/wp-panel-nettune.sources"
check "the keyring package at a stable name, the one the repository publishes" \
	cmp "$s/$keyring.deb" "$work/debs/kr-1"
check "the public key beside it" cmp "$s/$keyring.asc" "$work/key-a1.asc"
check_match "index.html gives the fingerprint" "$(echo "$A" | cut -c1-4) $(echo "$A" | cut -c5-8)" "$(cat "$s/index.html")"
check "no folder but the site's" test ! -e "$s.new.$$"

# --- Refusals on the repository alone -------------------------------------------
want=1
publish good --fingerprint "$B"
check_eq "another fingerprint expected: one line" \
	"publish: the keyring package's key is $A, not the expected $B" "$out"
publish good --tag v0.1.1
check_eq "a tag that is not the version" \
	"publish: the tag v0.1.1 is not the version published, 0.1.0 (debian/changelog): tag v0.1.0" "$out"
check_rc "publish for another URL: exit 1" 1 "$top/tools/publish" --fingerprint "$A" --url "$deaf" \
	--repo "$work/good" "$work/site-deaf"
check_match "the .sources must point to the site" \
	"^publish: .*/wp-panel-nettune.sources names URIs: $url/debian, not $deaf/debian: make the repository with make repo REPO_URL=$deaf/debian$" "$out"
check_eq "in one line" 1 "$(lines)"
check_rc "publish into an existing folder: exit 1" 1 "$top/tools/publish" --fingerprint "$A" \
	--url "$url" --repo "$work/good" "$work/site-good"
check_eq "an existing folder is not replaced" "publish: $work/site-good exists: give a folder that does not exist yet" "$out"

cp -a "$work/good" "$work/stale"
echo >>"$work/stale/dists/trixie/main/binary-amd64/Packages"
publish stale
check_eq "an index changed after signing" \
	"publish: dists/trixie/main/binary-amd64/Packages does not match its SHA256 (the index that lists it is stale or the file was changed)" "$out"

cp -a "$work/good" "$work/swapped"
cp "$work/debs/nt-0.1.0-other" "$work/swapped/pool/main/wp-panel-nettune_0.1.0_amd64.deb"
publish swapped
check_eq "a package changed after indexing" \
	"publish: pool/main/wp-panel-nettune_0.1.0_amd64.deb does not match its SHA256 (the index that lists it is stale or the file was changed)" "$out"

cp -a "$work/good" "$work/foreign"
for f in InRelease Release.gpg; do
	rm "$work/foreign/dists/trixie/$f"
done
gpg --homedir "$work/gnupg-b" --batch --digest-algo SHA512 --local-user "$B1!" \
	--clearsign -o "$work/foreign/dists/trixie/InRelease" "$work/foreign/dists/trixie/Release" 2>/dev/null
cp "$work/good/dists/trixie/Release.gpg" "$work/foreign/dists/trixie/"
publish foreign
check_eq "InRelease signed under another primary key" \
	"publish: InRelease does not verify with the keyring package's key (gpgv: BAD)" "$out"

repo mixed "$url" "$work/gnupg-a" "$A1" "$work/key-a1.asc" amd64 \
	nt-0.1.0 kr-1-b
publish mixed
check_eq "a keyring package that installs another key than the one beside it" \
	"publish: the keyring package 1 does not install the key published as $keyring.asc" "$out"

repo leak "$url" "$work/gnupg-a" "$A1" "$work/key-a1.asc" amd64 \
	nt-0.1.2-leak kr-1
publish leak
check_eq "secret key material inside a package" \
	"publish: secret key material in debian/pool/main/wp-panel-nettune_0.1.2_amd64.deb:/data/usr/share/keyrings/$keyring.asc" "$out"
for n in stale swapped foreign mixed leak; do
	[ ! -e "$work/site-$n" ] || fail "$n: refused, and yet the site was made"
done
check_eq "no site made for a refused repository" "site-good" "$(cd "$work" && echo site-*)"

# --- Against the site served now ----------------------------------------------------
serve "$work/site-good"
check "the site is served on $url" curl -fsS -o "$work/got.deb" "$url/$keyring.deb"
check "curl gets the keyring package from its stable URL" cmp "$work/got.deb" "$work/site-good/$keyring.deb"
mkdir "$work/apt"
dpkg-deb -x "$work/got.deb" "$work/apt"
gpg --homedir "$work/gnupg-b" --batch --dearmor <"$work/apt/usr/share/keyrings/$keyring.asc" >"$work/apt/keyring.gpg"
curl -fsS -o "$work/apt/InRelease" "$url/debian/dists/trixie/InRelease"
check "the InRelease served verifies with the key the package installs (gpgv)" \
	gpgv --keyring "$work/apt/keyring.gpg" "$work/apt/InRelease"

want=1
cp -a "$work/good" "$work/good2"
publish good2
check_eq "the same version again" \
	"publish: wp-panel-nettune 0.1.0 is what $url serves already: a release is a new version in debian/changelog" "$out"

repo older "$url" "$work/gnupg-a" "$A1" "$work/key-a1.asc" amd64 \
	nt-0.0.9 kr-1
publish older
check_eq "an older version" "publish: wp-panel-nettune 0.0.9 is older than 0.1.0, which $url serves" "$out"

repo changed "$url" "$work/gnupg-a" "$A1" "$work/key-a1.asc" amd64 \
	nt-0.1.0-other kr-1
publish changed
check_eq "the same version with other contents" \
	"publish: wp-panel-nettune 0.1.0 is served by $url with other contents: a changed package needs a new version in its debian/changelog" "$out"

repo keysame "$url" "$work/gnupg-a" "$A1" "$work/key-a12.asc" amd64 \
	nt-0.1.1 kr-1-a12
publish keysame
check_eq "a new key in the same keyring version" \
	"publish: $keyring 1 is served by $url with other contents: a changed package needs a new version in its debian/changelog" "$out"

repo early "$url" "$work/gnupg-a" "$A2" "$work/key-a12.asc" amd64 \
	nt-0.1.1 kr-2
publish early
check_eq "signed by a new subkey machines do not have yet" \
	"publish: InRelease is signed by subkey $A2, which the key machines hold now ($url/$keyring.asc) does not have: publish the new subkey in the keyring package first, signed by the old one (RELEASING.md)" "$out"

repo otherkey "$url" "$work/gnupg-b" "$B1" "$work/key-b1.asc" amd64 \
	nt-0.1.1 kr-1-b
publish otherkey --fingerprint "$B"
check_eq "a site signed under another primary than the one served" \
	"publish: what $url serves now is not signed under $B: machines that trust it would refuse this key" "$out"

repo dropped "$url" "$work/gnupg-a" "$A1" "$work/key-a1.asc" arm64 \
	nt-0.1.1-arm64 kr-1
publish dropped
check_eq "an architecture served is dropped" \
	"publish: $url serves binary-amd64, which $work/dropped lacks: machines of that architecture would lose their packages" "$out"

want=0
repo rotate1 "$url" "$work/gnupg-a" "$A1" "$work/key-a12.asc" "amd64 arm64" \
	nt-0.1.1 nt-0.1.1-arm64 kr-2
publish rotate1 --tag v0.1.1
check_match "a new version, the new subkey shipped and the old one signing: made" \
	"^publish: wp-panel-nettune 0.1.1 for amd64 arm64, newer than the 0.1.0 it serves: the site for $url is in $work/site-rotate1$" "$out"
check_match "and it says which subkey signed" "InRelease signed by its subkey $A1 " "$out"

# The rotated site is served; the next release may sign with the new subkey.
serve "$work/site-rotate1"
repo rotate2 "$url" "$work/gnupg-a" "$A2" "$work/key-a12.asc" "amd64 arm64" \
	nt-0.1.2 nt-0.1.2-arm64 kr-2
publish rotate2
check_match "then signing with the new subkey: made" \
	"^publish: wp-panel-nettune 0.1.2 for amd64 arm64, newer than the 0.1.1 it serves" "$out"
check_match "signed by the new subkey" "InRelease signed by its subkey $A2 " "$out"

# --- Forged keys ---------------------------------------------------------------------
# Key files that hold A's public key and more, made here with gpg in a
# throwaway home: beside it, the secret key block of another key E (gpg
# lists it as "sec"; apt's sqv takes the certificate in it as a signer),
# or E's public key. Each is refused, in one line, by tools/publish, by the
# steps the page gives and by the WP Panel installer's patch; nothing of
# them is installed, and what a server trusts for Signed-By: is gpg's
# export of A alone.
mkdir -m 700 "$work/gnupg-e"
gpg --homedir "$work/gnupg-e" --batch --passphrase '' --quick-gen-key 'forger <e@packages.invalid>' \
	ed25519 sign never 2>/dev/null
E=$(fprs e | sed -n 1p)
gpg --homedir "$work/gnupg-e" --batch --armor --pinentry-mode loopback --passphrase '' \
	--export-secret-keys "$E" >"$work/e-secret.asc" 2>/dev/null
gpg --homedir "$work/gnupg-e" --batch --armor --export "$E" >"$work/e-public.asc" 2>/dev/null
cat "$work/key-a1.asc" "$work/e-secret.asc" >"$work/forged-sec.asc"
cat "$work/key-a1.asc" "$work/e-public.asc" >"$work/forged-two.asc"
check "the forged keys were made" grep -q 'PRIVATE KEY BLOCK' "$work/forged-sec.asc"
deb kr-1-forged-sec "$keyring" 1 all "$work/forged-sec.asc"
deb kr-1-forged-two "$keyring" 1 all "$work/forged-two.asc"
# The genuine key as a machine makes it: gpg's export of A from a home that
# imported the key file.
mkdir -m 700 "$work/gnupg-export"
gpg --homedir "$work/gnupg-export" --batch --quiet --import "$work/key-a1.asc" 2>/dev/null
gpg --homedir "$work/gnupg-export" --batch --armor --export "$A" >"$work/a-export.asc" 2>/dev/null

want=1
repo forgedsec "$url" "$work/gnupg-a" "$A1" "$work/forged-sec.asc" amd64 \
	nt-0.1.2 kr-1-forged-sec
publish forgedsec
check_eq "publish: A's key with another key's secret block beside it, refused in one line" \
	"publish: $keyring.asc must hold the public key $A alone, not: pub $A sec $E secret" "$out"
repo forgedtwo "$url" "$work/gnupg-a" "$A1" "$work/forged-two.asc" amd64 \
	nt-0.1.2 kr-1-forged-two
publish forgedtwo
check_eq "publish: A's key with another public key beside it, refused in one line" \
	"publish: $keyring.asc must hold the public key $A alone, not: pub $A pub $E" "$out"
check "no site made for them" test ! -e "$work/site-forgedsec" -a ! -e "$work/site-forgedtwo"
# E's public key beside A's in armor gpg skips and apt's sqv reads: a block
# headed PGP MESSAGE, or one whose BEGIN line has four dashes. gpg lists A
# alone; sqv takes E as a signer (where it is installed here to say so).
# Beside A's key with both subkeys, in a keyring package 3 of a release
# that passes every other check against what is served now.
for k in a1 a12; do
	sed 's/PGP PUBLIC KEY BLOCK/PGP MESSAGE/' "$work/e-public.asc" | cat "$work/key-$k.asc" - >"$work/forged-msg-$k.asc"
	sed 's/^-----BEGIN/----BEGIN/' "$work/e-public.asc" | cat "$work/key-$k.asc" - >"$work/forged-dash-$k.asc"
done
echo signed >"$work/by-e"
gpg --homedir "$work/gnupg-e" --batch --detach-sign -o "$work/by-e.sig" "$work/by-e" 2>/dev/null
for f in msg dash; do
	check_eq "the key file with E in armor gpg skips ($f): gpg lists A alone" "$A" \
		"$(gpg --homedir "$work/gnupg-export" --batch --with-colons --show-keys "$work/forged-$f-a12.asc" 2>/dev/null |
			awk -F: '$1 == "pub" || $1 == "sec" { k = 1; next } k && $1 == "fpr" { print $10; k = 0 }')"
	if command -v sqv >/dev/null 2>&1; then
		if sqv --help 2>&1 | grep -q -- --signature-file; then
			set -- --signature-file "$work/by-e.sig" "$work/by-e"
		else
			set -- "$work/by-e.sig" "$work/by-e"
		fi
		check_eq "and sqv takes E's signature with it ($f)" "$E" \
			"$(sqv --keyring "$work/forged-$f-a12.asc" "$@" 2>/dev/null)"
	fi
	deb "kr-3-forged-$f" "$keyring" 3 all "$work/forged-$f-a12.asc"
	repo "forged$f" "$url" "$work/gnupg-a" "$A1" "$work/forged-$f-a12.asc" "amd64 arm64" \
		nt-0.1.2 nt-0.1.2-arm64 "kr-3-forged-$f"
	publish "forged$f"
	check_eq "publish: A's key with E in armor gpg skips ($f), refused in one line" \
		"publish: $keyring.asc is not the public key $A as gpg writes it out (gpg --armor --export): it holds more than gpg lists" "$out"
	check "no site made for it ($f)" test ! -e "$work/site-forged$f"
done

# The Ansible role's key script, given each key file as the inventory's key:
# it refuses the secret block and the second key in one line, and for the
# file with E in armor gpg skips it prints gpg's export of A alone.
role_key=$top/examples/ansible/roles/wp_panel_nettune/files/trusted-key.sh
for f in sec two msg-a1; do
	rc=0
	WP_PANEL_NETTUNE_KEY=$(cat "$work/forged-$f.asc") sh -s make "$A" <"$role_key" \
		>"$work/role-$f.out" 2>"$work/role-$f.err" || rc=$?
	echo "$rc" >"$work/role-$f.rc"
done
check_eq "the role's key script, key with a secret block: refused in one line" \
	"1 wp_panel_nettune: the repository key holds secret key material: refused" \
	"$(cat "$work/role-sec.rc") $(cat "$work/role-sec.err")"
check_eq "the role's key script, two keys: refused in one line" \
	"1 wp_panel_nettune: the repository key holds 2 certificates, not one: refused" \
	"$(cat "$work/role-two.rc") $(cat "$work/role-two.err")"
check_eq "the role's key script, E in armor gpg skips: exit 0" 0 "$(cat "$work/role-msg-a1.rc")"
check "it prints gpg's export of A alone" cmp "$work/role-msg-a1.out" "$work/a-export.asc"

if [ "$(id -u)" != 0 ] || ! unshare --mount true 2>/dev/null; then
	note "skipped: the page's steps and the installer's patch (their mount namespace needs root and unshare)"
	summary
	exit
fi

# sandbox LOG COMMAND...: COMMAND in a mount namespace where the keyrings,
# the sources and apt's lists are empty folders of its own, with apt-get
# and dpkg-query stubs (apt-get writes what it was asked to
# $work/apt-calls), in a scratch HOME; its output in LOG, and then the
# files those folders hold, one "PATH SHA256" a line, in LOG.files.
# Returns COMMAND's exit status.
mkdir -p "$work/stub"
cat >"$work/stub/apt-get" <<STUB
#!/bin/sh
echo "apt-get \$*" >>"$work/apt-calls"
STUB
printf '#!/bin/sh\nexit 1\n' >"$work/stub/dpkg-query"
chmod 755 "$work/stub/apt-get" "$work/stub/dpkg-query"
sandbox() {
	_log=$1
	shift
	rm -rf "$work/sandbox-home"
	mkdir -p "$work/sandbox-home"
	: >"$work/apt-calls"
	# shellcheck disable=SC2016 # expanded by the sandbox's shell
	(cd "$work/sandbox-home" && LOG=$_log HOME=$work/sandbox-home PATH=$work/stub:$PATH \
		unshare --mount --propagation private sh -c '
		for d in /usr/share/keyrings /etc/apt/sources.list.d /var/lib/apt/lists; do
			mount -t tmpfs tmpfs "$d" || exit 99
		done
		rc=0
		"$@" >"$LOG" 2>&1 </dev/null || rc=$?
		for d in /usr/share/keyrings /etc/apt/sources.list.d /var/lib/apt/lists; do
			find "$d" -type f -exec sha256sum {} + | awk "{ print \$2, \$1 }"
		done | sort >"$LOG.files"
		exit "$rc"
	' sandbox "$@")
}
# forged_site NAME KEYFILE DEB: site-good with KEYFILE as its key file and
# DEB as its keyring package, served on $url.
forged_site() {
	cp -a "$work/site-good" "$work/site-$1"
	cp "$2" "$work/site-$1/$keyring.asc"
	cp "$work/debs/$3" "$work/site-$1/$keyring.deb"
	serve "$work/site-$1"
}
kfile=/usr/share/keyrings/$keyring.asc
sfile=/etc/apt/sources.list.d/wp-panel-nettune.sources
# written URIS: what the sandbox lists after a run that trusted A alone: the
# source entry naming URIS, and gpg's export of A as the key.
written() {
	printf '%s %s\n%s %s\n' \
		"$sfile" "$(printf 'Types: deb\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: %s\n' "$1" "$kfile" |
			sha256sum | cut -d' ' -f1)" \
		"$kfile" "$(sha256sum <"$work/a-export.asc" | cut -d' ' -f1)"
}

# The page's steps: what its <pre> holds, as a browser shows it.
sed -n '/<pre>/,/<\/pre>/p' "$work/site-good/index.html" | sed '1d;$d' |
	sed 's/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g' >"$work/steps.sh"
check "the page gives its steps" test -s "$work/steps.sh"
for f in sec two; do
	forged_site "page-$f" "$work/forged-$f.asc" "kr-1-forged-$f"
	rc=0
	sandbox "$work/steps-$f.log" sh "$work/steps.sh" || rc=$?
	check_eq "the page's steps, key file with $f: they stop" 1 "$rc"
	check_eq "the page's steps, key file with $f: nothing installed but curl and gpg" \
		"apt-get install -y curl gpg" "$(cat "$work/apt-calls")"
	check_eq "the page's steps, key file with $f: no key, no source written" "" "$(cat "$work/steps-$f.log.files")"
done
check_eq "the page's steps say why, in one line (secret key)" \
	"refused: the key file holds pub $A sec $E, not the public key $A alone" \
	"$(grep -v '^apt-get' "$work/steps-sec.log")"
check_eq "the page's steps say why, in one line (two keys)" \
	"refused: the key file holds pub $A pub $E, not the public key $A alone" \
	"$(grep -v '^apt-get' "$work/steps-two.log")"
# A key file served with E in armor gpg skips: what is trusted is gpg's
# export of A, which holds nothing else.
forged_site page-msg "$work/forged-msg-a1.asc" kr-1
rc=0
sandbox "$work/steps-msg.log" sh "$work/steps.sh" || rc=$?
check_eq "the page's steps, key file with E in armor gpg skips: exit 0" 0 "$rc"
check_eq "they write gpg's export of A, not the file served" \
	"$(written "$url/debian")" "$(cat "$work/steps-msg.log.files")"
# A key file of 2 MiB (the genuine key, then padding gpg ignores): the
# download stops at 1 MiB, and so do the steps.
{
	cat "$work/key-a1.asc"
	head -c 2097152 /dev/zero | tr '\0' '\n'
} >"$work/huge.asc"
forged_site page-huge "$work/huge.asc" kr-1
rc=0
sandbox "$work/steps-huge.log" sh "$work/steps.sh" || rc=$?
check_eq "the page's steps, a key file of 2 MiB: they stop (curl: 63)" 63 "$rc"
check_eq "the page's steps, a key file of 2 MiB: no key, no source written" "" "$(cat "$work/steps-huge.log.files")"
serve "$work/site-good"
rc=0
sandbox "$work/steps-good.log" sh "$work/steps.sh" || rc=$?
check_eq "the page's steps, the genuine key: exit 0" 0 "$rc"
check_eq "they write gpg's export of A and the source, nothing else" \
	"$(written "$url/debian")" "$(cat "$work/steps-good.log.files")"
check_eq "apt installs both packages from the repository, nothing downloaded" \
	"apt-get install -y curl gpg
apt-get update
apt-get install -y wp-panel-nettune-archive-keyring wp-panel-nettune" "$(cat "$work/apt-calls")"
check_eq "the steps README.md gives are the page's, but for the fingerprint" \
	"$(sed "s/^fpr=$A\$/fpr=FINGERPRINT/; s|^root=$url\$|root=$("$top/tools/publish" --print-url)|" "$work/steps.sh")" \
	"$(sed -n "/^    sh -eu <<'EOF'\$/,/^    EOF\$/p" "$top/README.md" | sed 's/^    //')"

# The WP Panel installer's patch, on the installer's install.sh (in
# ../shared/legacy, as scenario 24 finds it): its install_nettune_package
# as the installer runs it, with the site on $url and A's fingerprint.
installer=$top/../shared/legacy/wp-panel/install.sh
if [ -f "$installer" ] && [ "$(sha256sum <"$installer" | cut -d' ' -f1)" = \
	ed777e4843e146ae962160cdaa4dc9851cdfae821b5e64e70f0396bf8050fac8 ]; then
	mkdir "$work/installer"
	cp "$installer" "$work/installer/install.sh"
	(cd "$work/installer" && patch --fuzz=0 -s -p1 <"$top/contrib/wp-panel/install.sh.patch") &&
		"$top/contrib/wp-panel/extract-functions" "$work/installer/install.sh" >"$work/patched.sh"
	check "the patch applies, its functions extracted" test -s "$work/patched.sh"
	cat >"$work/installer-run" <<-RUN
		#!/bin/bash
		# shellcheck disable=SC1091,SC2034
		set -e
		set -o pipefail
		. "$work/patched.sh"
		DEBIAN_CODENAME=trixie
		NETTUNE_SITE=$url
		NETTUNE_KEY_FPR=$A
		install_nettune_package
	RUN
	ls -d /tmp/wp-panel-nettune* 2>/dev/null >"$work/tmp-before"
	for f in sec two; do
		serve "$work/site-page-$f"
		rc=0
		sandbox "$work/patch-$f.log" bash "$work/installer-run" || rc=$?
		check_eq "the patch, key file with $f: it falls back (exit 1)" 1 "$rc"
		check_eq "the patch, key file with $f: apt never asked to install or update" "" \
			"$(grep -v '^apt-get purge' "$work/apt-calls")"
		check_eq "the patch, key file with $f: no key, no source left" "" "$(cat "$work/patch-$f.log.files")"
	done
	check_match "the patch says why (secret key)" \
		"wp-panel-nettune 仓库 key 文件不是单独一把公钥（pub $A sec $E secret），改用内置优化" \
		"$(cat "$work/patch-sec.log")"
	check_match "the patch says why (two keys)" \
		"wp-panel-nettune 仓库 key 文件不是单独一把公钥（pub $A pub $E），改用内置优化" \
		"$(cat "$work/patch-two.log")"
	serve "$work/site-page-msg"
	rc=0
	sandbox "$work/patch-msg.log" bash "$work/installer-run" || rc=$?
	check_eq "the patch, key file with E in armor gpg skips: exit 0" 0 "$rc"
	check_eq "it writes gpg's export of A, not the file served" \
		"$(written "$url/debian/")" "$(cat "$work/patch-msg.log.files")"
	# The 2 MiB key file, by curl and by wget (a PATH without curl).
	serve "$work/site-page-huge"
	rc=0
	sandbox "$work/patch-huge.log" bash "$work/installer-run" || rc=$?
	check_eq "the patch, a key file of 2 MiB: it falls back (exit 1)" 1 "$rc"
	check_match "it says the key could not be downloaded" \
		"wp-panel-nettune 仓库无法访问（key 下载失败），改用内置优化" "$(cat "$work/patch-huge.log")"
	check_eq "the patch, a key file of 2 MiB: nothing left" "" "$(cat "$work/patch-huge.log.files")"
	if command -v wget >/dev/null 2>&1; then
		mkdir "$work/nocurl"
		for c in /usr/sbin/* /usr/bin/*; do
			[ "${c##*/}" = curl ] || ln -sf "$c" "$work/nocurl/"
		done
		rc=0
		sandbox "$work/patch-huge-wget.log" env PATH="$work/stub:$work/nocurl" bash "$work/installer-run" || rc=$?
		check_eq "the patch, a key file of 2 MiB by wget: it falls back (exit 1)" 1 "$rc"
		check_match "it says the key could not be downloaded (wget)" \
			"wp-panel-nettune 仓库无法访问（key 下载失败），改用内置优化" "$(cat "$work/patch-huge-wget.log")"
		check_eq "the patch, a key file of 2 MiB by wget: nothing left" "" "$(cat "$work/patch-huge-wget.log.files")"
	fi
	serve "$work/site-good"
	rc=0
	sandbox "$work/patch-good.log" bash "$work/installer-run" || rc=$?
	check_eq "the patch, the genuine key: exit 0" 0 "$rc"
	check_eq "it writes gpg's export of A and its source, nothing else" \
		"$(written "$url/debian/")" "$(cat "$work/patch-good.log.files")"
	check_match "then apt installs both packages from the repository, downloaded first" \
		"^apt-get install -y --download-only .* wp-panel-nettune-archive-keyring wp-panel-nettune$" \
		"$(cat "$work/apt-calls")"
	check_eq "the site asked for the key file alone" "GET /$keyring.asc" \
		"$(sed -n 's/.*"\(GET [^ ]*\) HTTP.*/\1/p' "$work/server.log" | grep -vx 'GET /' | paste -sd ' ' -)"
	check_eq "no temporary file left in /tmp" "$(cat "$work/tmp-before")" \
		"$(ls -d /tmp/wp-panel-nettune* 2>/dev/null)"
else
	note "skipped: the WP Panel installer's patch (no install.sh of its commit 0014e83 in ../shared/legacy/wp-panel)"
fi

summary
