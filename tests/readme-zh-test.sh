#!/bin/sh
# README.zh-CN.md, the Chinese README, in step with README.md. The two link
# to each other on the line under their titles; the code blocks of their
# install sections ("## Install it on a server", "## 在服务器上安装") give
# the same commands, byte for byte, in the same order (a comment may be
# translated); the install steps themselves, the sh -eu block, are the same
# bytes comments included, as the release page prints them; every command
# line of the Chinese README's other code blocks is a line of README.md or
# debian/README.Debian; and every file it links to is in the tree.
#
# A code block is a run of lines indented by four spaces after a blank line
# (none of the two READMEs has one in a list).
#
# usage: tests/readme-zh-test.sh
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
work=$(mktemp -d /tmp/nettune-readme-zh.XXXXXX)
trap 'rm -rf "$work"' EXIT
en=$top/README.md
zh=$top/README.zh-CN.md

check "README.zh-CN.md is there" test -s "$zh"

# under_title FILE: the first line after FILE's title that is not blank.
under_title() {
	awk 'NR > 1 && NF { print; exit }' "$1"
}
check_match "README.md links to README.zh-CN.md under its title" \
	'\]\(README\.zh-CN\.md\)' "$(under_title "$en")"
check_match "README.zh-CN.md links to README.md under its title" \
	'\]\(README\.md\)' "$(under_title "$zh")"

# blocks FILE [HEADING]: the code blocks of FILE's section "## HEADING" (up
# to the next "## " line), or of the whole file, each followed by "--".
blocks() {
	awk -v heading="${2+## $2}" '
		BEGIN { in_section = heading == "" }
		heading != "" && /^## / { in_section = $0 == heading }
		in_section && /^    / && (code || prev == "") { print; code = 1; prev = $0; next }
		code { print "--"; code = 0 }
		{ prev = $0 }
		END { if (code) print "--" }' "$1"
}

# commands: the lines of standard input without their comments: a line that
# is one goes, a comment after two blanks or more is cut with the blanks.
commands() {
	sed -e '/^[[:space:]]*#/d' -e 's/[[:space:]]\{2,\}# .*$//'
}

blocks "$en" "Install it on a server" >"$work/en-install"
blocks "$zh" "在服务器上安装" >"$work/zh-install"
check "README.md's install section has code blocks" test -s "$work/en-install"
check "README.zh-CN.md has the section 在服务器上安装, with code blocks" test -s "$work/zh-install"
commands <"$work/en-install" >"$work/en-commands"
commands <"$work/zh-install" >"$work/zh-commands"
check "the install sections give the same commands, byte for byte" \
	diff -u "$work/en-commands" "$work/zh-commands"

# The install steps, as tests/robust/publish.sh takes them from README.md.
steps() {
	sed -n "/^    sh -eu <<'EOF'\$/,/^    EOF\$/p" "$1"
}
steps "$en" >"$work/en-steps"
steps "$zh" >"$work/zh-steps"
check "README.md has the install steps" test -s "$work/en-steps"
check "the install steps are README.md's, comments included" \
	diff -u "$work/en-steps" "$work/zh-steps"

# Every other command line is one of the English documents'.
blocks "$zh" | commands | grep -v '^--$' >"$work/zh-all" || true
cat "$en" "$top/debian/README.Debian" | commands >"$work/en-all"
grep -Fxv -f "$work/en-all" "$work/zh-all" >"$work/unknown" || true
check_eq "every command line of README.zh-CN.md is README.md's or README.Debian's" \
	"" "$(cat "$work/unknown")"

# Relative links: [text](PATH) and [text](PATH#anchor).
grep -o '\](\([^)]*\))' "$zh" | sed 's/^](//; s/)$//; s/#.*//' |
	grep -v -e '^[a-z]*://' -e '^$' | LC_ALL=C sort -u >"$work/links"
check "README.zh-CN.md has relative links" test -s "$work/links"
while read -r link; do
	check "README.zh-CN.md links to $link, which is in the tree" test -e "$top/$link"
done <"$work/links"

summary
