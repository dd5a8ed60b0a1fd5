# shellcheck shell=sh
# The checks of every shell test of the project: the tests under tests/, the
# guest scripts of the VM scenarios (tests/vm/guest-lib.sh builds on it) and
# the autopkgtests under debian/tests. POSIX sh: a guest's /bin/sh is dash.
#
# Each check prints "ok N - NAME", or "not ok N - NAME" and "#" lines saying
# why; summary prints "N passed, N failed". One argument order: the name,
# then what is wanted, then what was got. The helpers keep their variables
# (_name, _want, ...) apart from the caller's.

passed=0
failed=0

# The helper speaks the locale's language (LANG, LC_ALL, LANGUAGE) where a
# catalogue of it is installed, and the checks read its English: they run
# in C.UTF-8, which every Debian system has, without LANGUAGE, which that
# locale would follow. NETTUNE_TEST_LOCALE names another locale and keeps
# LANGUAGE: tests/l10n-test.sh runs tests so, with the Chinese catalogue.
if [ -n "${NETTUNE_TEST_LOCALE:-}" ]; then
	LC_ALL=$NETTUNE_TEST_LOCALE
else
	LC_ALL=C.UTF-8
	unset LANGUAGE
fi
export LC_ALL

pass() {
	passed=$((passed + 1))
	took
	echo "ok $((passed + failed)) - $1$_took"
}

# took: with CHECK_UPTIME set (the VM guests set it to the uptime in whole
# seconds), sets _took to " (N s)" where N, the seconds since the check
# before, is 5 or more, so that a scenario's output shows where its time
# goes; else to nothing.
took() {
	_took=
	[ -n "${CHECK_UPTIME:-}" ] || return 0
	read -r _now _ </proc/uptime
	_now=${_now%.*}
	[ $((_now - CHECK_UPTIME)) -lt 5 ] || _took=" ($((_now - CHECK_UPTIME)) s)"
	CHECK_UPTIME=$_now
}

# fail NAME [LINE...]: a failed check, with LINEs saying why.
fail() {
	failed=$((failed + 1))
	took
	echo "not ok $((passed + failed)) - $1"
	shift
	for _line in "$@"; do
		echo "#   $_line"
	done
}

# note TEXT: information, neither a pass nor a failure.
note() {
	echo "# $*"
}

# check NAME COMMAND...: passes when COMMAND succeeds. It runs in this shell
# (COMMAND may be a function that sets variables); its output is kept in
# $out and shown on failure.
check() {
	_name=$1
	shift
	_out=${TMPDIR:-/tmp}/nettune-check.$$
	if "$@" >"$_out" 2>&1; then
		out=$(cat "$_out")
		pass "$_name"
	else
		_rc=$?
		out=$(cat "$_out")
		fail "$_name" "command: $*" "exit $_rc" "$out"
	fi
	rm -f "$_out"
}

# check_eq NAME WANT GOT
check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "want: $2" "got:  $3"
	fi
}

# check_rc NAME WANT COMMAND...: COMMAND exits with status WANT; its output
# (standard output and error) is kept in $out for further checks.
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

# check_match NAME PATTERN TEXT: a line of TEXT matches the extended regular
# expression PATTERN.
check_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		pass "$1"
	else
		fail "$1" "no line matches: $2" "$3"
	fi
}

# summary: the totals; returns 1 when a check failed.
summary() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

# --- Values as the sysctl.d files write them ---------------------------------

# fold_blanks TEXT: TEXT with each run of blanks (spaces, tabs) made one
# space and none at either end: the kernel separates the numbers of a vector
# with tabs, a sysctl.d file with spaces.
fold_blanks() {
	set -f
	# shellcheck disable=SC2086 # splitting is the point
	set -- $1
	set +f
	echo "$*"
}

# sysctl_value KEY [ROOT]: the value of the dotted KEY under ROOT's /proc/sys
# (default: this machine's), blanks folded. Prints nothing and returns 1 when
# the key is absent.
sysctl_value() {
	_path=${2:-}/proc/sys/$(echo "$1" | tr . /)
	[ -r "$_path" ] || return 1
	fold_blanks "$(cat "$_path")"
}

# fragment_settings FILE: a "key value" line for each assignment of a sysctl.d
# FILE, in its order, without the leading "-" and with blanks folded.
fragment_settings() {
	sed -n 's/^[[:space:]]*-\{0,1\}\([a-z0-9_.-]*\)[[:space:]]*=[[:space:]]*\(.*\)$/\1 \2/p' "$1" |
		while read -r _key _value; do
			echo "$_key $(fold_blanks "$_value")"
		done
}
