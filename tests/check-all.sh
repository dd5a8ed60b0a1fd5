#!/bin/bash
# make check: runs each test group (a make target) in turn, as long as they
# pass, then prints how long each took, and, when the VM scenarios ran,
# each scenario's seconds and the five slowest (from the times.tsv and
# slowest that tests/vm/run leaves in its log folder).
#
# Usage: tests/check-all.sh MAKE GROUP...
set -u

make=$1
shift
logdir=${VM_LOGDIR:-$(pwd)/build/vm-logs}
declare -a names seconds results
start=$(date +%s)
rc=0
for group in "$@"; do
	[ "$group" != check-vm ] || rm -f "$logdir/times.tsv" "$logdir/slowest"
	t=$(date +%s)
	$make "$group" || rc=$?
	names+=("$group")
	seconds+=($(($(date +%s) - t)))
	if [ "$rc" = 0 ]; then results+=(PASS); else results+=(FAIL); fi
	[ "$rc" = 0 ] || break
done

echo
echo "== make check: $(($(date +%s) - start)) s in all"
printf '%-20s %-6s %8s\n' group result seconds
for i in "${!names[@]}"; do
	printf '%-20s %-6s %8s\n' "${names[$i]}" "${results[$i]}" "${seconds[$i]}"
done
if [ "${names[-1]}" = check-vm ] && [ -f "$logdir/times.tsv" ]; then
	echo "VM scenarios (seconds each; they run in lanes at once, so they add up to more than check-vm):"
	awk -F '\t' '{ printf "  %-22s %-6s %6s s\n", $1, $2, $3 }' "$logdir/times.tsv"
	echo "slowest five: $(cat "$logdir/slowest")"
fi
if [ "$rc" = 0 ]; then
	echo "make check: all test groups passed"
else
	echo "make check: ${names[-1]} failed"
fi
exit "$rc"
