#!/bin/sh
# No secret key is ever published by make repo. The scan tools/repo-env ends
# publishing with must look inside every archive (the source tarball, each
# .deb's data and control archives, the compressed files in them); and the
# source package must hold only what git tracks, so that a release key left
# in the work tree stays out of it. The first part runs the scan on small
# trees made here; the second runs tools/make-repo twice in a scratch clone
# (minutes: it builds in the trixie build environment, and is skipped, and
# said so, until that environment exists).
#
# usage: tests/robust/repo.sh BINARY    (root; the helper is not used)
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	fail "tests/robust/repo.sh needs root (tools/make-repo)"
	summary
	exit 1
fi
work=$(mktemp -d /tmp/nettune-robust-repo.XXXXXX)
trap 'rm -rf "$work"' EXIT

# A real secret key, armored and as OpenPGP packets, in a scratch GNUPGHOME.
export GNUPGHOME="$work/gnupg"
mkdir -m 700 "$GNUPGHOME"
gpg --batch --passphrase '' --quick-gen-key 'robust test key' ed25519 sign never 2>/dev/null
gpg --batch --armor --export-secret-keys >"$work/secret.asc"
gpg --batch --export-secret-keys >"$work/secret.gpg"
gpg --batch --enarmor <"$work/secret.gpg" >"$work/secret.enarmored"
gpg --batch --armor --export >"$work/public.asc"
unset GNUPGHOME
check "a secret key was made" grep -q 'PRIVATE KEY BLOCK' "$work/secret.asc"

# --- The scan ----------------------------------------------------------------

# deb DIR NAME: a .deb of DIR (with DIR/DEBIAN/control) as NAME.
deb() {
	mkdir -p "$1/DEBIAN"
	printf 'Package: x\nVersion: 1\nArchitecture: all\nMaintainer: x <x@x.invalid>\nDescription: x\n' \
		>"$1/DEBIAN/control"
	dpkg-deb -Zxz --root-owner-group -b "$1" "$2" >/dev/null
}

# repo NAME: a small published tree, clean: a source tarball, a .deb with a
# gzip'd file, the public key.
repo() {
	_r=$work/$1
	mkdir -p "$_r/pool" "$_r/src/x" "$_r/pkg/usr/share/doc/x"
	echo "source" >"$_r/src/x/README"
	echo "changelog" | gzip -9n >"$_r/pkg/usr/share/doc/x/changelog.gz"
	cp "$work/public.asc" "$_r/x-archive-keyring.asc"
	echo "$_r"
}
seal() { # seal DIR: the tarball and the .deb from DIR/src and DIR/pkg
	tar -C "$1/src" -cJf "$1/pool/x_1.tar.xz" x
	deb "$1/pkg" "$1/pool/x_1_all.deb"
	rm -rf "$1/src" "$1/pkg"
}
scan() { # scan DIR: tools/repo-env scan; its exit status and first line
	_rc=0
	mkdir -p "$work/tmp"
	_said=$(TMPDIR=$work/tmp timeout 120 sh "$top/tools/repo-env" scan "$1" 2>&1) || _rc=$?
	echo "exit $_rc: $(printf '%s\n' "$_said" | head -n 1)"
}

r=$(repo clean)
seal "$r"
check_eq "a clean tree passes the scan" "exit 0: " "$(scan "$r")"

r=$(repo tarball)
cp "$work/secret.asc" "$r/src/x/release-key.asc"
seal "$r"
check_eq "an armored secret key inside the source tarball is found" \
	"exit 1: make-repo: secret key material in $r/pool/x_1.tar.xz:/x/release-key.asc" "$(scan "$r")"

r=$(repo data)
cp "$work/secret.gpg" "$r/pkg/usr/share/doc/x/key.gpg"
seal "$r"
check_eq "a binary secret key inside a .deb's data archive is found" \
	"exit 1: make-repo: secret key material in $r/pool/x_1_all.deb:/data/usr/share/doc/x/key.gpg" \
	"$(scan "$r")"

r=$(repo control)
mkdir -p "$r/pkg/DEBIAN"
{
	printf '#!/bin/sh\n: <<"KEY"\n'
	cat "$work/secret.asc"
	echo KEY
} >"$r/pkg/DEBIAN/postinst"
chmod 755 "$r/pkg/DEBIAN/postinst"
seal "$r"
check_eq "an armored secret key inside a .deb's control archive is found" \
	"exit 1: make-repo: secret key material in $r/pool/x_1_all.deb:/control/postinst" "$(scan "$r")"

r=$(repo gzip)
gzip -9n <"$work/secret.asc" >"$r/pkg/usr/share/doc/x/notes.gz"
seal "$r"
check_eq "a secret key in a compressed file inside a .deb is found" \
	"exit 1: make-repo: secret key material in $r/pool/x_1_all.deb:/data/usr/share/doc/x/notes.gz:/content" \
	"$(scan "$r")"
check_eq "the scan leaves nothing of what it unpacked" "" "$(ls -A "$work/tmp")"

r=$(repo enarmored)
cp "$work/secret.enarmored" "$r/pkg/usr/share/doc/x/key.txt"
seal "$r"
check_eq "a secret key under an armor of another name (gpg --enarmor) is found" \
	"exit 1: make-repo: secret key material in $r/pool/x_1_all.deb:/data/usr/share/doc/x/key.txt" \
	"$(scan "$r")"

# --- make-repo in a scratch clone ----------------------------------------------

if [ ! -d "${NETTUNE_CACHE:-/var/cache/wp-panel-nettune-dev}/trixie-build" ] ||
	[ -n "${NETTUNE_SKIP_MAKE_REPO:-}" ]; then
	note "skipped: make-repo runs (no trixie build environment yet, or NETTUNE_SKIP_MAKE_REPO)"
	summary
	exit
fi

# A clone of HEAD with this tree's tools/make-repo and tools/repo-env (the
# rest of a work tree may be half-way through a change), and an untracked
# release key.
clone=$work/clone
git clone -q "$top" "$clone"
cp "$top/tools/make-repo" "$top/tools/repo-env" "$clone/tools/"
cp "$work/secret.asc" "$clone/release-key.asc"

rc=0
DEB_BUILD_OPTIONS=nocheck timeout 1800 "$clone/tools/make-repo" --dir "$work/repo" \
	>"$work/make-repo-1.log" 2>&1 || rc=$?
check_eq "make-repo with an untracked release-key.asc: exit status" 0 "$rc"
check_match "make-repo says it left the untracked file out" \
	'^make-repo: left out 1 file\(s\) git does not track' "$(cat "$work/make-repo-1.log")"
src=$(find "$work/repo/pool" -name 'wp-panel-nettune_*.tar.xz' | head -n 1)
check "the source tarball is published" test -f "$src"
check_eq "the untracked release-key.asc is not in the source tarball" "" \
	"$(tar -tJf "$src" 2>/dev/null | grep 'release-key\.asc' || true)"
check_eq "nothing published holds the secret key" "exit 0: " "$(scan "$work/repo")"
# The benchmark's recorded runs stay in git (debian/source/options); what
# builds and tests the package, bench/report and its fixture included, is
# in the source package.
members=$(tar -tJf "$src" 2>/dev/null | sed 's|^[^/]*/||')
check_eq "no recorded benchmark run in the source tarball" "" \
	"$(printf '%s\n' "$members" | grep -E '^bench/results[^/]*/' || true)"
for f in bench/report bench/run bench/raw-archive bench/reportlib/decide.py tests/fixtures/bench/results.csv \
	debian/rules src/apply.c; do
	check_eq "the source tarball has $f" "$f" "$(printf '%s\n' "$members" | grep -x "$f" || true)"
done
[ "$rc" = 0 ] || note "$(tail -n 20 "$work/make-repo-1.log")"

# The same secret key, now in a file git tracks: the scan refuses to
# publish it, and the repository is left as it was (absent).
cp "$work/secret.asc" "$clone/examples/signing-key.asc"
git -C "$clone" add examples/signing-key.asc
rc=0
DEB_BUILD_OPTIONS=nocheck timeout 1800 "$clone/tools/make-repo" --dir "$work/repo2" \
	>"$work/make-repo-2.log" 2>&1 || rc=$?
check_eq "make-repo with a secret key in a tracked file: exit status" 1 "$rc"
check_match "the scan names the key inside the source tarball" \
	'^make-repo: secret key material in /build/out/repo/pool/.*\.tar\.xz:/.*examples/signing-key\.asc$' \
	"$(cat "$work/make-repo-2.log")"
check_eq "nothing published" no "$([ -e "$work/repo2" ] && echo yes || echo no)"

summary
