#!/bin/bash
# make check: runs the test groups (make targets), then prints how long each
# took and the CPU time it used, and, when the VM scenarios ran, each
# scenario's seconds and the five slowest (from the times.tsv and slowest
# that tests/vm/run leaves in its log folder).
#
# The first group (check-deps) installs what every other one needs. Then
# check-vm, if listed, starts beside the others: its guests keep the CPUs
# busy for most of the run, and the other groups, each mostly one process
# at a time, fill what they leave; the VM scenarios' output goes to
# build/check-vm.log and is printed once the other groups are done. Those
# run in turn as long as they pass; check-vm runs to its end either way.
#
# Usage: tests/check-all.sh MAKE GROUP...
set -u

make=$1
shift
logdir=${VM_LOGDIR:-$(pwd)/build/vm-logs}
vmlog=$(dirname "$logdir")/check-vm.log
declare -a names seconds cpu results
start=$(date +%s)
rc=0
hz=$(getconf CLK_TCK)

# children_cpu: the CPU seconds (user and system) of this shell's children
# that have ended and been waited for, /proc/PID/stat's cutime and cstime.
children_cpu() {
	local st
	read -r -a st <"/proc/$$/stat"
	echo $(((st[15] + st[16]) / hz))
}

# run_group GROUP: runs it, records its seconds, CPU seconds and result.
run_group() {
	local t c r=0
	t=$(date +%s)
	c=$(children_cpu)
	"$make" "$1" || r=$?
	names+=("$1")
	seconds+=($(($(date +%s) - t)))
	cpu+=($(($(children_cpu) - c)))
	if [ "$r" = 0 ]; then results+=(PASS); else results+=(FAIL); fi
	return "$r"
}

groups=() vm=
for group in "$@"; do
	if [ "$group" = check-vm ]; then vm=yes; else groups+=("$group"); fi
done

vm_pid=
if [ "${groups[0]:-}" = check-deps ]; then
	run_group check-deps || rc=$?
	groups=("${groups[@]:1}")
fi
if [ "$rc" = 0 ] && [ -n "$vm" ]; then
	rm -f "$logdir/times.tsv" "$logdir/slowest"
	mkdir -p "$logdir"
	echo "== check-vm: begins beside the other groups; its output follows theirs (or see $vmlog)"
	vm_start=$(date +%s)
	# A process group of its own, so that stopping make check stops
	# every process of the scenarios too. Its CPU seconds are counted by
	# the shell that waits for make, in vm.cpu beside the log: bash reaps
	# a background job as soon as it ends, before this shell could count.
	rm -f "$vmlog.cpu"
	# shellcheck disable=SC2016 # expanded by that shell
	setsid bash -c '"$1" check-vm; rc=$?
		read -r -a st <"/proc/$$/stat"
		echo $(((st[15] + st[16]) / $(getconf CLK_TCK))) >"$2"
		exit "$rc"' sh "$make" "$vmlog.cpu" >"$vmlog" 2>&1 </dev/null &
	vm_pid=$!
	trap '[ -z "$vm_pid" ] || kill -TERM -- "-$vm_pid" 2>/dev/null; exit 130' INT TERM
fi
if [ "$rc" = 0 ]; then
	for group in "${groups[@]}"; do
		run_group "$group" || { rc=$?; break; }
	done
fi
if [ -n "$vm_pid" ]; then
	echo
	echo "== check-vm (began $(($(date +%s) - vm_start)) s ago, beside the groups above)"
	tail -n +1 --pid="$vm_pid" -f "$vmlog"
	vm_rc=0
	wait "$vm_pid" || vm_rc=$?
	vm_pid=
	names+=(check-vm)
	seconds+=($(($(date +%s) - vm_start)))
	cpu+=("$(cat "$vmlog.cpu" 2>/dev/null || echo '?')")
	if [ "$vm_rc" = 0 ]; then results+=(PASS); else results+=(FAIL); fi
	[ "$rc" != 0 ] || rc=$vm_rc
fi

echo
echo "== make check: $(($(date +%s) - start)) s in all, $(children_cpu) s of CPU"
printf '%-20s %-6s %8s %8s\n' group result seconds "CPU s"
for i in "${!names[@]}"; do
	printf '%-20s %-6s %8s %8s\n' "${names[$i]}" "${results[$i]}" "${seconds[$i]}" "${cpu[$i]}"
done
if [ -n "$vm" ]; then
	echo "(check-vm ran beside the groups after check-deps: the seconds add up to more than the whole;"
	echo " its CPU seconds are mostly its guests', the other groups' are taken from them)"
fi
if [ -n "$vm" ] && [ -f "$logdir/times.tsv" ]; then
	echo "VM scenarios (seconds each; they run in lanes at once, so they add up to more than check-vm):"
	awk -F '\t' '{ printf "  %-22s %-6s %6s s\n", $1, $2, $3 }' "$logdir/times.tsv"
	echo "slowest five: $(cat "$logdir/slowest")"
fi
failed=
for i in "${!names[@]}"; do
	[ "${results[$i]}" = PASS ] || failed="$failed ${names[$i]}"
done
skipped=
if [ -n "$vm" ] && [ -f "$logdir/times.tsv" ]; then
	skipped=$(awk -F '\t' '$2 == "SKIP" { printf " %s", $1 }' "$logdir/times.tsv")
fi
if [ "$rc" = 0 ] && [ -z "$failed" ]; then
	if [ -n "$skipped" ]; then
		echo "make check: all test groups passed; skipped, the output of check-vm says why:$skipped"
	else
		echo "make check: all test groups passed"
	fi
else
	echo "make check: failed:${failed:- (exit $rc)}"
fi
[ -z "$failed" ] && [ "$rc" = 0 ]
