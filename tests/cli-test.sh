#!/bin/sh
# The command line: every usage error is one line naming what is wrong and
# one pointing to --help, exit 2, nothing on standard output; --help, help
# and each command's --help name every option the helper's own tables give
# it (tests/dump-commands), and each option they name is taken; -V and
# --version print the version of debian/changelog. The man page, from the
# same tables: a subsection of COMMANDS for every command, listing each of
# its options (a .TP tag), the global ones listed under OPTIONS, and
# EXAMPLES ahead of FILES.
#
# usage: tests/cli-test.sh BINARY DUMP-COMMANDS [MAN-PAGE]
set -eu

bin=$(realpath "$1")
dump=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
manpage=${3:-$here/../man/wp-panel-nettune.8}
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
work=$(mktemp -d /tmp/nettune-cli.XXXXXX)
trap 'rm -rf "$work"' EXIT

# usage_error NAME WANT TRY ARGS...: the helper run with ARGS exits 2, prints
# nothing on standard output, and on standard error exactly the line WANT and
# the line pointing to TRY's --help (TRY empty: the program's).
usage_error() {
	_name=$1
	_want=$2
	_try=${3:+ $3}
	shift 3
	_rc=0
	"$bin" "$@" >"$work/stdout" 2>"$work/stderr" || _rc=$?
	check_eq "$_name" "exit 2, $(printf '%s\n%s' "$_want" \
		"Try 'wp-panel-nettune$_try --help' for more information."), stdout 0 bytes" \
		"exit $_rc, $(cat "$work/stderr"), stdout $(wc -c <"$work/stdout") bytes"
}

# Before the command is known.
usage_error "no command" "wp-panel-nettune: missing command" ""
usage_error "an unknown command" "wp-panel-nettune: unknown command 'frobnicate'" "" frobnicate
usage_error "no prefix matching" "wp-panel-nettune: unknown command 'stat'" "" stat
usage_error "an unknown option" "wp-panel-nettune: unknown option '--frobnicate'" "" \
	--frobnicate status
usage_error "an unknown letter" "wp-panel-nettune: unknown option '-x'" "" -x status
usage_error "and one in a group" "wp-panel-nettune: unknown option '-x'" "" -vx status
usage_error "an ambiguous prefix" \
	"wp-panel-nettune: option '--ver' is ambiguous (--verbose, --version)" "" --ver
usage_error "--root without its argument" "wp-panel-nettune: option '--root' needs an argument" "" \
	--root
usage_error "--help with an argument" "wp-panel-nettune: option '--help' takes no argument" "" \
	--help=all
usage_error "--root that does not exist" \
	"wp-panel-nettune: --root /nonexistent: No such file or directory" "" --root /nonexistent detect
usage_error "--root that is not a directory" "wp-panel-nettune: --root /dev/null: not a directory" \
	"" --root /dev/null detect
usage_error "an option with no name" "wp-panel-nettune: unknown option '--=x'" "" --=x detect
usage_error "an empty --root" "wp-panel-nettune: --root: empty; give / for this machine" "" \
	--root "" detect
usage_error "an empty --root=" "wp-panel-nettune: --root: empty; give / for this machine" "" \
	--root= detect
usage_error "--congestion before the command" "wp-panel-nettune: unknown option '--congestion'" "" \
	--congestion bbr render sysctl
usage_error "--dry-run is apply's, not global" "wp-panel-nettune: unknown option '--dry-run'" "" \
	--dry-run apply

# A command's own.
usage_error "render without a fragment" \
	"wp-panel-nettune: render: missing fragment; expected sysctl or modules" render render
usage_error "render names the fragment it does not know" \
	"wp-panel-nettune: render: unknown fragment 'grub'; expected sysctl or modules" render \
	render grub
usage_error "and escapes it" \
	"wp-panel-nettune: render: unknown fragment 'a\\x1b[31mb'; expected sysctl or modules" render \
	render "$(printf 'a\033[31mb')"
usage_error "render with an extra argument" "wp-panel-nettune: render: unexpected argument 'now'" \
	render render sysctl now
usage_error "a bad --congestion" \
	"wp-panel-nettune: render: unknown congestion choice 'reno'; expected auto, bbr or cubic" \
	render render sysctl --congestion reno
usage_error "--congestion without its argument" \
	"wp-panel-nettune: render: option '--congestion' needs an argument" render render --congestion
usage_error "--congestion to another command" \
	"wp-panel-nettune: apply: unknown option '--congestion'" apply apply --congestion bbr
usage_error "--dry-run to a command that changes nothing" \
	"wp-panel-nettune: status: unknown option '--dry-run'" status status --dry-run
usage_error "a letter a command does not take" "wp-panel-nettune: status: unknown option '-v'" \
	status status -v
usage_error "an option given an argument it does not take" \
	"wp-panel-nettune: status: option '--json' takes no argument" status status --json=yes
usage_error "an extra argument" "wp-panel-nettune: status: unexpected argument 'now'" status \
	status now
usage_error "detect --may-tune --json" \
	"wp-panel-nettune: detect: --may-tune and --json cannot be combined" detect \
	detect --may-tune --json
usage_error "detect --json --may-tune" \
	"wp-panel-nettune: detect: --may-tune and --json cannot be combined" detect \
	detect --json --may-tune
usage_error "status --json --prometheus" \
	"wp-panel-nettune: status: --json and --prometheus cannot be combined" status \
	status --json --prometheus
usage_error "--textfile without --prometheus" \
	"wp-panel-nettune: status: --textfile writes metrics: it goes with --prometheus" status \
	status --textfile /srv
usage_error "--textfile relative" \
	"wp-panel-nettune: status: --textfile takes an absolute path: srv" status \
	status --prometheus --textfile srv
usage_error "help of an unknown command" "wp-panel-nettune: help: unknown command 'foo'" "" \
	help foo
usage_error "help of two commands" "wp-panel-nettune: help: unexpected argument 'apply'" help \
	help status apply
usage_error "a usage error before --help" "wp-panel-nettune: status: unknown option '--frob'" \
	status status --frob --help

# --help, from the tables: the global options and every command in
# wp-panel-nettune --help, each command's options in its own, and help
# COMMAND the same as COMMAND --help.
"$dump" >"$work/dump"
# options COMMAND: the options the tables give COMMAND ("-": the global
# ones), as "OPTION ARG" lines.
options() {
	awk -F '\t' -v command="$1" '$1 == "option" && $2 == command { print $3, $4 }' "$work/dump"
}
# mentions NAME WORD TEXT: TEXT has WORD, whole, between blanks or commas
# (a fixed string: WORD may hold "|").
mentions() {
	_flat=" $(printf '%s' "$3" | tr '\n,' '  ') "
	case $_flat in
	*" $2 "*) pass "$1" ;;
	*) fail "$1" "no '$2' in the help" ;;
	esac
}
# named_are_taken COMMAND HELP: each option HELP names is one COMMAND
# (empty: the global options) takes: given before --help, it is read, and a
# bad one would be a usage error.
named_are_taken() {
	printf '%s\n' "$2" | sed -n 's/^  \(-[a-zA-Z]\)*,* *\(--[a-z-]*\).*/\2/p' >"$work/named"
	while read -r _option; do
		case $_option in
		--congestion) _value=auto ;;
		--textfile | --root) _value=/ ;;
		*) _value= ;;
		esac
		# shellcheck disable=SC2086 # no command: no word
		check "${1:-wp-panel-nettune} takes $_option" \
			"$bin" $1 "$_option" ${_value:+"$_value"} --help
	done <"$work/named"
}
check_rc "--help exits 0" 0 "$bin" --help
main_help=$out
check_eq "help is --help" "$main_help" "$("$bin" help)"
check_eq "-h is --help" "$main_help" "$("$bin" -h)"
options - >"$work/options"
while read -r option arg; do
	mentions "--help: $option" "$option${arg:+ $arg}" "$main_help"
done <"$work/options"
named_are_taken "" "$main_help"
commands=$(awk -F '\t' '$1 == "command" { print $2 }' "$work/dump")
for command in $commands; do
	check_match "--help lists $command" "^  $command +[a-z]" "$main_help"
	check_rc "$command --help exits 0" 0 "$bin" "$command" --help
	help=$out
	check_match "$command --help: its usage line" "^usage: wp-panel-nettune \[--root dir\] \[-v\] $command( |\$)" "$help"
	check_eq "$command --help: a sentence under it" . \
		"$(printf '%s\n' "$help" | sed -n '3,/^$/p' | tr -d '\n' | tail -c 1)"
	check_eq "help $command is $command --help" "$help" "$("$bin" help "$command")"
	check_eq "$command --help: no line wider than 79 columns" "" \
		"$(printf '%s\n' "$help" | awk 'length > 79')"
	options "$command" >"$work/options"
	while read -r option arg; do
		mentions "$command --help: $option" "$option${arg:+ $arg}" "$help"
	done <"$work/options"
	named_are_taken "$command" "$help"
done
for word in 0 1 2 3 4; do
	check_match "--help: exit status $word" "^  $word  [a-z]" "$main_help"
done

# The man page. man_part FROM TO: the source's lines from the one FROM
# matches to the one before the next TO matches, with roff's \- as -, its
# font escapes gone and each line between blanks.
man_part() {
	awk -v from="$1" -v to="$2" '
		on && $0 ~ to { exit }
		$0 ~ from { on = 1 }
		on { gsub(/\\-/, "-"); gsub(/\\f[BIRP]/, ""); print " " $0 " " }' "$manpage"
}
# man_tags TEXT: the tags of TEXT's .TP lists, a line each.
man_tags() {
	printf '%s\n' "$1" | awk 'tag { print; tag = 0 } $1 == ".TP" { tag = 1 }'
}
# man_names NAME OPTION TEXT: TEXT has OPTION, not as part of a longer one.
man_names() {
	if printf '%s\n' "$3" | grep -Eq -- "(^|[^-a-z])$2([^-a-z]|\$)"; then
		pass "$1"
	else
		fail "$1" "no '$2' in it"
	fi
}
commands_intro=$(man_part '^\.SH COMMANDS' '^\.S[HS] ')
for option in -h --help; do
	man_names "man page: COMMANDS says every command takes $option" "$option" "$commands_intro"
done
options - >"$work/options"
global=$(man_tags "$(man_part '^\.SH OPTIONS' '^\.SH ')")
while read -r option arg; do
	man_names "man page: OPTIONS lists $option" "$option" "$global"
done <"$work/options"
for command in $commands; do
	part=$(man_part "^\\.SS \"?$command\"?\$" '^\.S[HS] ')
	section=$(awk -v want=".SS $command" '/^\.SH /{sh = $2} $0 == want {print sh; exit}' "$manpage")
	check_eq "man page: $command has its subsection of COMMANDS" COMMANDS "$section"
	options "$command" | grep -v '^-h \|^--help ' >"$work/options" || true
	while read -r option arg; do
		man_names "man page: $command's subsection lists $option" "$option" "$(man_tags "$part")"
	done <"$work/options"
done
sections=$(sed -n 's/^\.SH "\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$manpage")
examples=$(printf '%s\n' "$sections" | grep -nx EXAMPLES | cut -d: -f1)
files=$(printf '%s\n' "$sections" | grep -nx FILES | cut -d: -f1)
if [ -n "$examples" ] && [ -n "$files" ] && [ "$examples" -lt "$files" ]; then
	pass "man page: EXAMPLES ahead of FILES"
else
	fail "man page: EXAMPLES ahead of FILES" "the sections: $(printf '%s\n' "$sections" | paste -sd ,)"
fi

# The version.
version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$here/../debian/changelog")
check_eq "--version" "wp-panel-nettune $version" "$("$bin" --version)"
check_eq "-V" "wp-panel-nettune $version" "$("$bin" -V)"

summary
