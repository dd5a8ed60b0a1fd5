# Shared by the shell tests: a check counter and a summary line. The
# helpers keep their own variables apart (_name, _want) from the caller's.
# shellcheck shell=sh

passed=0
failed=0

pass() {
	passed=$((passed + 1))
	echo "ok $((passed + failed)) - $1"
}

fail() {
	failed=$((failed + 1))
	echo "not ok $((passed + failed)) - $1"
	shift
	for line in "$@"; do
		echo "#   $line"
	done
}

# check NAME COMMAND...: passes when the command succeeds.
check() {
	_name=$1
	shift
	if out=$("$@" 2>&1); then
		pass "$_name"
	else
		fail "$_name" "command: $*" "$out"
	fi
}

# check_eq NAME GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "got:  $2" "want: $3"
	fi
}

# check_rc NAME WANT COMMAND...: the command exits with WANT; its output is
# kept in $out for further checks.
check_rc() {
	_name=$1
	_want=$2
	shift 2
	rc=0
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" = "$_want" ]; then
		pass "$_name"
	else
		fail "$_name" "command: $*" "exit $rc, want $_want" "$out"
	fi
}

# check_match NAME PATTERN TEXT: grep -E PATTERN matches a line of TEXT.
check_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		pass "$1"
	else
		fail "$1" "no line matches: $2" "$3"
	fi
}

summary() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
