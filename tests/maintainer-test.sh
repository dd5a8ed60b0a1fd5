#!/bin/sh
# tools/set-maintainer: the release's maintainer replaces the placeholder in
# the control, copyright, changelog and NEWS files of both packages, and
# nowhere else; an address that is not one, or one in a domain that
# resolves nowhere, is refused in one line with every file left as it was.
#
# usage: tests/maintainer-test.sh
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
work=$(mktemp -d /tmp/nettune-maintainer.XXXXXX)
trap 'rm -rf "$work"' EXIT

placeholder='wp-panel-nettune developers <wp-panel-nettune@packages.invalid>'
files="debian/control debian/copyright debian/changelog debian/NEWS
	keyring/debian/control keyring/debian/copyright keyring/debian/changelog"

# A copy of what the script reads and writes, and its digest.
tree=$work/tree
mkdir -p "$tree/tools" "$tree/debian" "$tree/keyring/debian"
cp "$top/tools/set-maintainer" "$tree/tools/"
for f in $files; do cp "$top/$f" "$tree/$f"; done
digest() { (cd "$tree" && find . -type f | LC_ALL=C sort | xargs sha256sum); }
before=$(digest)

for f in debian/control keyring/debian/control; do
	check_eq "$f: the tree's Maintainer: is the placeholder" "Maintainer: $placeholder" \
		"$(grep '^Maintainer:' "$tree/$f")"
done

# refused WHO WHY: set-maintainer WHO exits 1 with one line saying WHY, and
# changes no file.
refused() {
	_label=$(printf '%s' "$1" | tr '\n' '|')
	check_rc "refused: '$_label'" 1 "$tree/tools/set-maintainer" "$1"
	check_eq "refused: '$_label': one line" 1 "$(printf '%s\n' "$out" | wc -l)"
	check_match "refused: '$_label': saying why" "$2" "$out"
	check_eq "refused: '$_label': every file as it was" "$before" "$(digest)"
}
refused '' "is not 'Name <address>'"
refused 'jane@example.org' "is not 'Name <address>'"
refused 'Jane Doe <jane>' "is not 'Name <address>'"
refused 'Jane Doe <jane@example.org> x' "is not 'Name <address>'"
refused "Jane Doe <jane@example.org>
Other <o@example.org>" "is not 'Name <address>'"
refused 'Jane Doe <jane@example.invalid>' 'resolves nowhere'
refused 'Jane Doe <jane@localhost>' "is not 'Name <address>'"
refused "$placeholder" 'resolves nowhere'
check_rc "no argument: usage" 1 "$tree/tools/set-maintainer"
check_match "saying how" "^set-maintainer: usage: " "$out"

who='Jane Doe & Co. <jane.doe@mail.example.org>'
check_rc "set: exit 0" 0 "$tree/tools/set-maintainer" "$who"
check_match "set: says so" "the maintainer is now '$who' in 7 files" "$out"
for f in debian/control keyring/debian/control; do
	check_eq "$f: Maintainer: the release's" "Maintainer: $who" \
		"$(grep '^Maintainer:' "$tree/$f")"
done
for f in debian/copyright keyring/debian/copyright; do
	check_eq "$f: Upstream-Contact: the release's" "Upstream-Contact: $who" \
		"$(grep '^Upstream-Contact:' "$tree/$f")"
done
for f in $files; do
	check_eq "$f: no placeholder left" "" "$(grep -F "$placeholder" "$tree/$f" || true)"
	# Only the placeholder changed: putting it back gives the file again.
	PLACEHOLDER=$placeholder WHO=$who awk '{
		while ((i = index($0, ENVIRON["WHO"])) > 0)
			$0 = substr($0, 1, i - 1) ENVIRON["PLACEHOLDER"] substr($0, i + length(ENVIRON["WHO"]))
		print
	}' "$tree/$f" >"$work/back"
	check "$f: nothing else changed" cmp "$top/$f" "$work/back"
done
check_eq "a changelog trailer names the release's maintainer" \
	" -- $who  Mon, 30 Nov 2026 16:35:34 +0000" "$(grep '^ -- .*Mon, 30 Nov 2026' "$tree/debian/changelog")"
check_rc "set again: refused, the placeholder is gone" 1 "$tree/tools/set-maintainer" "$who"
check_match "saying so" "the maintainer is set already" "$out"

summary
