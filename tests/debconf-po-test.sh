#!/bin/sh
# The translations of debian/templates. Every debian/po/*.po passes msgfmt -c,
# and, merged by debconf-updatepo (in a copy) with the strings of the
# templates as they are now, has no fuzzy, untranslated or obsolete entry:
# a string changed in the templates and not in a translation fails here.
# debian/po/templates.pot holds the strings of the templates, and po2debconf
# renders, for every language, a description of every template and the
# choices of every select.
#
# usage: tests/debconf-po-test.sh    (needs po-debconf, which brings gettext)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
work=$(mktemp -d /tmp/nettune-po.XXXXXX)
trap 'rm -rf "$work"' EXIT

for tool in debconf-updatepo po2debconf msgfmt msgattrib msgcmp; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		fail "$tool is needed: run tools/install-deps check"
		summary
		exit 1
	fi
done

mkdir "$work/debian"
cp -r "$here/../debian/templates" "$here/../debian/po" "$work/debian/"
langs=$(cd "$work/debian/po" && for po in *.po; do echo "${po%.po}"; done)
check "there are translations" test -n "$langs"
for lang in $langs; do
	check "$lang.po: msgfmt -c" msgfmt -c -o /dev/null "$work/debian/po/$lang.po"
done

# The address the tree's templates.pot gives, as tools/make-deb gives it.
address=$(sed -n 's/^"Report-Msgid-Bugs-To: \(.*\)\\n"$/\1/p' "$work/debian/po/templates.pot")
cp "$work/debian/po/templates.pot" "$work/tree.pot"
check "debconf-updatepo" sh -c "cd '$work' && debconf-updatepo --msgid-bugs-address='$address'"
check "templates.pot has every string of the templates" \
	msgcmp --use-untranslated "$work/tree.pot" "$work/debian/po/templates.pot"
check "templates.pot has no string the templates lack" \
	msgcmp --use-untranslated "$work/debian/po/templates.pot" "$work/tree.pot"

# none LANG WHAT OPTION: msgattrib OPTION selects no entry of LANG.po (on
# failure, those it selects are shown, without the header).
none() {
	check_eq "$1.po: no $2 entry" "" \
		"$(msgattrib "$3" "$work/debian/po/$1.po" | sed '1,/^$/d')"
}
for lang in $langs; do
	none "$lang" fuzzy --only-fuzzy
	none "$lang" untranslated --untranslated
	none "$lang" obsolete --only-obsolete
done

po2debconf "$work/debian/templates" >"$work/rendered"
templates=$(grep -c '^Template: ' "$work/rendered" || true)
selects=$(grep -c '^Choices: ' "$work/rendered" || true)
for lang in $langs; do
	check_eq "po2debconf: a $lang description for each template" "$templates" \
		"$(grep -c "^Description-$lang\.UTF-8: " "$work/rendered" || true)"
	check_eq "po2debconf: $lang choices for each select" "$selects" \
		"$(grep -c "^Choices-$lang\.UTF-8: " "$work/rendered" || true)"
done

summary
