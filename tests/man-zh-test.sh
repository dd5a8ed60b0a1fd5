#!/bin/sh
# man/zh_CN/wp-panel-nettune.8, the Chinese man page, a hand translation kept
# in step with man/wp-panel-nettune.8 by these checks:
# * the same title line but for its last field, and the same headings in the
#   same order: .SS names the same, .SH names through the table below;
# * section by section (the n-th heading of one page against the n-th of the
#   other), every option, every command name the English section gives in a
#   .TP tag or a font macro line (.B, .BR, .IR, ...), every sysctl key and
#   identifier (net.ipv4.tcp_fin_timeout, default_qdisc, nettune_alarm,
#   WP_PANEL_NETTUNE_LOCK_TIMEOUT) and every file path is in the Chinese one;
# * the same SYNOPSIS, the same synopsis of each command (its .SS up to the
#   first .PP), the same examples (.EX to .EE), byte for byte, and the same
#   exit statuses;
# * it is UTF-8, man renders it with no warning on standard error (as
#   lintian runs it: man --warnings -E UTF-8 -l -Tutf8 -Z) and lexgrog reads
#   its whatis line; where man-db is not installed these are skipped, and
#   said so.
#
# When the English page gains or renames a section, the table gets its line
# and the Chinese page the section.
#
# usage: tests/man-zh-test.sh [ENGLISH-PAGE CHINESE-PAGE]
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
en=${1:-$top/man/wp-panel-nettune.8}
zh=${2:-$top/man/zh_CN/wp-panel-nettune.8}
work=$(mktemp -d /tmp/nettune-man-zh.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The .SH names of the English page and of the Chinese one.
cat >"$work/headings" <<'EOF'
NAME	名称
SYNOPSIS	概述
DESCRIPTION	描述
COMMANDS	命令
OPTIONS	选项
EXAMPLES	示例
FILES	文件
ROOT TREES	根目录树
INITIAL WINDOWS	初始窗口
ENVIRONMENT	环境变量
STATES	状态
JSON OUTPUT	JSON 输出
PROMETHEUS METRICS	Prometheus 指标
DIAGNOSTICS	诊断信息
EXIT STATUS	退出状态
NOTES	注意
SEE ALSO	参见
EOF

check "the Chinese man page is there" test -s "$zh"
check "the Chinese man page is UTF-8" iconv -f UTF-8 -t UTF-8 -o /dev/null "$zh"

# headings PAGE [TABLE]: "SH NAME" and "SS NAME" lines, quotes taken off;
# with TABLE, each .SH name mapped through it ("?NAME" when it has none).
headings() {
	awk -F '\t' -v table="${2-}" '
		FILENAME == table { to[$1] = $2; next }
		/^\.S[HS] / {
			kind = substr($0, 2, 2)
			name = substr($0, 5)
			gsub(/"/, "", name)
			if (table != "" && kind == "SH")
				name = name in to ? to[name] : "?" name
			print kind, name
		}' ${2:+"$2"} "$1"
}
headings "$en" "$work/headings" >"$work/en-headings"
headings "$zh" >"$work/zh-headings"
check_eq "every .SH of the English page has its Chinese name in the table" "" \
	"$(sed -n 's/^SH ?//p' "$work/en-headings")"
check "the same headings in the same order" diff -u "$work/en-headings" "$work/zh-headings"

# title PAGE: the .TH line's fields but the last (the manual's name).
title() {
	sed -n '/^\.TH /{s/ "[^"]*"$//p;q}' "$1"
}
check_eq "the same title line, the manual's name aside" "$(title "$en")" "$(title "$zh")"

# tokens PAGE: "SECTION CLASS TOKEN" lines, SECTION the heading's number
# (1 for the first .SH, counting .SS too), CLASS one of option, command,
# name (a sysctl key, an identifier with an underscore) and path. Each line
# is read as man renders it: a font macro's arguments joined (with a space
# for .B and .I, with none for the alternating ones), quotes, font escapes,
# \& \% \c gone, \- as -. Options and commands are those of .TP tags, of
# font macro lines and of headings; keys, names and paths those of any line.
tokens() {
	awk -v commands="$commands" '
		BEGIN { split(commands, c, " "); for (i in c) command[c[i]] = 1 }
		function plain(line,    name, rest, n, i, out, q, ch, arg, args) {
			if (line ~ /^\.(B|I|BR|RB|IR|RI|BI|IB)( |$)/) {
				name = line
				sub(/ .*/, "", name)
				rest = substr(line, length(name) + 2)
				n = 0; arg = ""; q = 0
				for (i = 1; i <= length(rest); i++) {
					ch = substr(rest, i, 1)
					if (ch == "\"") q = !q
					else if (ch == " " && !q) { if (arg != "") args[++n] = arg; arg = "" }
					else arg = arg ch
				}
				if (arg != "") args[++n] = arg
				out = ""
				for (i = 1; i <= n; i++)
					out = out (i > 1 && (name == ".B" || name == ".I") ? " " : "") args[i]
				line = out
			} else if (line ~ /^[.\047]/) {
				sub(/^[.\047][A-Za-z]+ */, "", line)
				gsub(/"/, "", line)
			}
			gsub(/\\f[BIRP]/, "", line)
			gsub(/\\-/, "-", line)
			gsub(/\\\(dq/, "\"", line)
			gsub(/\\\(aq/, "\047", line)
			gsub(/\\[&%c]/, "", line)
			gsub(/\\~/, " ", line)
			return line
		}
		function all(class, re, text,    t) {
			while (match(text, re)) {
				t = substr(text, RSTART, RLENGTH)
				text = substr(text, RSTART + RLENGTH)
				if (class == "path") sub(/\.+$/, "", t)	# a full stop
				if (class == "path" && t !~ /[A-Za-z]/) continue
				if (class == "name" && t !~ /[A-Za-z]/) continue
				print section, class, t
			}
		}
		/^\.\\"/ { next }
		/^\.S[HS] / { section++ }
		{
			tag = prev ~ /^\.T[PQ]$/
			marked = tag || /^\.(B|I|BR|RB|IR|RI|BI|IB|SS)( |$)/
			prev = $0
			text = " " plain($0) " "
		}
		marked {
			all("option", "--[a-z][a-z0-9-]*", text)
			t = text
			while (match(t, /[^-A-Za-z0-9]-[A-Za-z][^-A-Za-z0-9]/)) {
				print section, "option", substr(t, RSTART + 1, 2)
				t = substr(t, RSTART + 3)
			}
			n = split(text, w, /[^-a-z]+/)
			for (i = 1; i <= n; i++)
				if (w[i] in command) print section, "command", w[i]
		}
		{
			all("name", "net\\.[a-z0-9_.]*[a-z0-9_]", text)
			all("name", "[A-Za-z0-9]*_[A-Za-z0-9_]*", text)
			all("path", "[A-Za-z0-9_.*-]*/[A-Za-z0-9_.*/-]*", text)
		}' "$1" | LC_ALL=C sort -u
}
commands=$(awk '/^\.SH / { sh = $2 } sh == "COMMANDS" && /^\.SS / { print $2 }' "$en" |
	paste -sd ' ' -)
check "the English page has its commands' subsections" test -n "$commands"
tokens "$en" >"$work/en-tokens"
tokens "$zh" >"$work/zh-tokens"
LC_ALL=C comm -23 "$work/en-tokens" "$work/zh-tokens" >"$work/missing"
for class in option command name path; do
	check_eq "every $class of each English section is in the same Chinese section" "" \
		"$(awk -v class="$class" '$2 == class { print "section " $1 ": " $3 }' "$work/missing" |
			paste -sd ' ' -)"
done

# part PAGE FROM TO: the lines from the one FROM matches to the one before
# the next that TO matches.
part() {
	awk -v from="$2" -v to="$3" 'on && $0 ~ to { exit } $0 ~ from { on = 1 } on' "$1"
}
check_eq "the same SYNOPSIS, byte for byte" "$(part "$en" '^\.SH SYNOPSIS$' '^\.SH ' | sed 1d)" \
	"$(part "$zh" '^\.SH 概述$' '^\.SH ' | sed 1d)"
for command in $commands; do
	check_eq "the same synopsis of $command, byte for byte" \
		"$(part "$en" "^\\.SS $command\$" '^\.(PP|S[HS] )')" \
		"$(part "$zh" "^\\.SS $command\$" '^\.(PP|S[HS] )')"
done

# examples PAGE: the lines from .EX to .EE.
examples() {
	sed -n '/^\.EX$/,/^\.EE$/p' "$1"
}
check "the English page has examples" test -n "$(examples "$en")"
check_eq "the same examples, byte for byte" "$(examples "$en")" "$(examples "$zh")"

# exits PAGE HEADING: the tags of the .TP list of section HEADING.
exits() {
	part "$1" "^\\.SH \"?$2\"?\$" '^\.SH ' | awk 'tag { print; tag = 0 } /^\.TP$/ { tag = 1 }' |
		paste -sd ' ' -
}
check_eq "the same exit statuses" "$(exits "$en" 'EXIT STATUS')" "$(exits "$zh" '退出状态')"

# As lintian reads it, at its width.
if command -v man >/dev/null 2>&1; then
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$zh" \
		>"$work/rendered" 2>"$work/warnings" || true
	check_eq "man renders the Chinese page with no warning" "" "$(cat "$work/warnings")"
	check_match "man renders the Chinese page" '^[[:space:]]*wp-panel-nettune - ' \
		"$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$zh" 2>&1)"
	check_match "lexgrog reads its whatis line" \
		'^[^:]*: "wp-panel-nettune - [^"]+"$' "$(lexgrog "$zh" 2>&1)"
else
	note "skipped: rendering the Chinese page (no man here: apt install man-db)"
fi

summary
