# Helpers for the scripts that run inside a test VM. vm_boot copies this
# file into the share; a guest script starts with
#
#	. /host/guest-lib.sh
#
# and ends with checks_done, whose exit status becomes vm_boot's. Each check
# prints one "ok - NAME" or "FAIL - NAME" line; checks_done prints
# "N passed, N failed". POSIX sh: the guest's /bin/sh is dash.

checks_passed=0
checks_failed=0

# check NAME COMMAND [ARG...]: passes when COMMAND succeeds.
check() {
	_name=$1
	shift
	if "$@"; then
		echo "ok - $_name"
		checks_passed=$((checks_passed + 1))
	else
		echo "FAIL - $_name (failed: $*)"
		checks_failed=$((checks_failed + 1))
	fi
}

# check_eq NAME WANT GOT: passes when the two strings are equal.
check_eq() {
	if [ "$2" = "$3" ]; then
		echo "ok - $1"
		checks_passed=$((checks_passed + 1))
	else
		echo "FAIL - $1 (want '$2', got '$3')"
		checks_failed=$((checks_failed + 1))
	fi
}

# sysctl_get KEY: prints the live value of KEY (dotted name) with runs of
# white space made single spaces, as in the sysctl.d files ("4096 131072
# 6291456" rather than the kernel's tabs). Prints nothing if KEY is absent.
sysctl_get() {
	_path=/proc/sys/$(echo "$1" | tr . /)
	[ -r "$_path" ] && tr -s ' \t' '  ' <"$_path"
	return 0
}

# check_sysctl KEY WANT: passes when the live value of KEY is WANT.
check_sysctl() {
	check_eq "$1 = $2" "$2" "$(sysctl_get "$1")"
}

# note TEXT: an information line that is neither a pass nor a failure.
note() {
	echo "# $*"
}

# checks_done: prints the totals and exits 1 if any check failed.
checks_done() {
	echo "$checks_passed passed, $checks_failed failed"
	[ "$checks_failed" = 0 ] && exit 0
	exit 1
}
