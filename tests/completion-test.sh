#!/bin/bash
# The bash completion (share/bash-completion/wp-panel-nettune) under
# bash-completion, as an interactive shell runs it: COMP_WORDS and COMP_CWORD
# set for a command line, COMPREPLY held against what the helper's own tables
# say (tests/dump-commands): every command, the global options, each
# command's options, and the words render and --congestion take, each of
# which the helper accepts. A command or an option added to the helper and
# not to the completion fails here.
#
# usage: tests/completion-test.sh BINARY DUMP-COMMANDS
set -eu

bin=$(realpath "$1")
dump=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
completion=$here/../share/bash-completion/wp-panel-nettune
# NETTUNE_BASH_COMPLETION: another bash-completion's main script (another
# release's, say), instead of this machine's.
framework=${NETTUNE_BASH_COMPLETION:-/usr/share/bash-completion/bash_completion}
machine=$here/fixtures/debian13-2cpu
work=$(mktemp -d /tmp/nettune-completion.XXXXXX)
trap 'rm -rf "$work"' EXIT

if [ ! -r "$framework" ]; then
	fail "bash-completion is installed" "no $framework: run tools/install-deps check"
	summary
	exit
fi
# bash-completion is not written for set -u.
set +u
# shellcheck source=/dev/null
. "$framework"
# shellcheck source=share/bash-completion/wp-panel-nettune
. "$completion"
set -u
# compopt changes how readline shows the completion; there is no readline
# here, and outside it the builtin fails.
compopt() { :; }

# complete LINE: what the completion offers for LINE, the cursor at its end,
# sorted, one a line. The words are split as bash splits them for
# completion: at blanks, and around each "=" (it is in COMP_WORDBREAKS).
complete_line() {
	local line=$1 word
	local -a split
	read -ra split <<<"$line"
	COMP_WORDS=()
	for word in "${split[@]}"; do
		while [[ $word == *=* ]]; do
			[[ ${word%%=*} ]] && COMP_WORDS+=("${word%%=*}")
			COMP_WORDS+=("=")
			word=${word#*=}
		done
		[[ $word ]] && COMP_WORDS+=("$word")
	done
	[[ $line == *' ' || $line == *= ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	set +u
	_comp_cmd_wp_panel_nettune wp-panel-nettune "${COMP_WORDS[COMP_CWORD]}" \
		"${COMP_WORDS[COMP_CWORD - 1]}"
	set -u
	if ((${#COMPREPLY[@]} > 0)); then
		printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
	fi
}

"$dump" >"$work/dump"
# table KIND [COMMAND]: the third field of the dump's KIND lines (of
# COMMAND), sorted.
table() {
	awk -F '\t' -v kind="$1" -v command="${2:-}" \
		'$1 == kind && (command == "" || $2 == command) { print (kind == "command" ? $2 : $3) }' \
		"$work/dump" | LC_ALL=C sort
}
commands=$(table command)
congestion=$(awk -F '\t' '$1 == "option" && $2 == "render" && $3 == "--congestion" { print $4 }' \
	"$work/dump" | tr '|' '\n' | LC_ALL=C sort)

check_eq "the commands" "$commands" "$(complete_line 'wp-panel-nettune ')"
check_eq "the global options" "$(table option -)" "$(complete_line 'wp-panel-nettune -')"
check_eq "the commands after --root dir and -v" "$commands" \
	"$(complete_line 'wp-panel-nettune --root /tmp -v ')"
check_eq "and after --root=dir" "$commands" "$(complete_line 'wp-panel-nettune --root=/tmp ')"
check_eq "a command's name completed" status "$(complete_line 'wp-panel-nettune -v st')"
check_eq "nothing after an unknown command" "" "$(complete_line 'wp-panel-nettune frobnicate ')"
for command in $commands; do
	check_eq "$command: its options" "$(table option "$command")" \
		"$(complete_line "wp-panel-nettune $command -")"
	check "$command: the helper has it" "$bin" "$command" --help
done
check_eq "after the global options too" "$(table option status)" \
	"$(complete_line 'wp-panel-nettune --root /tmp status -')"

check_eq "render: its fragments" "$(table word render)" "$(complete_line 'wp-panel-nettune render ')"
check_eq "render: after --congestion's value too" "$(table word render)" \
	"$(complete_line 'wp-panel-nettune render --congestion bbr ')"
check_eq "render: one fragment only" "" "$(complete_line 'wp-panel-nettune render sysctl ')"
check_eq "render --congestion: its choices" "$congestion" \
	"$(complete_line 'wp-panel-nettune render --congestion ')"
check_eq "rendered --congestion: the same choices" "$(awk -F '\t' '$1 == "option" &&
	$2 == "rendered" && $3 == "--congestion" { print $4 }' "$work/dump" | tr '|' '\n' |
	LC_ALL=C sort)" "$(complete_line 'wp-panel-nettune rendered --congestion ')"
check_eq "render --congestion=: its choices" bbr \
	"$(complete_line 'wp-panel-nettune render --congestion=b')"
for fragment in $(complete_line 'wp-panel-nettune render '); do
	check "render $fragment: the helper takes it" "$bin" --root "$machine" render "$fragment"
done
for choice in $(complete_line 'wp-panel-nettune render --congestion '); do
	check "--congestion $choice: the helper takes it" \
		"$bin" --root "$machine" render --congestion "$choice" sysctl
done
check_eq "help: the commands" "$commands" "$(complete_line 'wp-panel-nettune help ')"
check_eq "help: one command only" "" "$(complete_line 'wp-panel-nettune help status ')"

# Directories, and only directories, for --root and --textfile.
mkdir "$work/tree" "$work/tree/etc" "$work/tree/var"
: >"$work/tree/file"
cd "$work/tree"
check_eq "--root: directories" "$(printf 'etc\nvar')" "$(complete_line 'wp-panel-nettune --root ')"
check_eq "--root=: directories" var "$(complete_line 'wp-panel-nettune --root=v')"
check_eq "--root after the command: nothing, it is global" "" \
	"$(complete_line 'wp-panel-nettune detect --root ')"
check_rc "and the helper refuses it there" 2 "$bin" detect --root "$work/tree"
check_eq "status --textfile: directories" "$(printf 'etc\nvar')" \
	"$(complete_line 'wp-panel-nettune status --prometheus --textfile ')"

summary
